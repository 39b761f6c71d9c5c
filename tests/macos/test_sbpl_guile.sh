#!/usr/bin/env bash
# Render macOS profiles with `--explain --json --target macos`, then have the
# guile checker read them as S-expressions and decide, last match wins, what a
# few operations would get. Skips (77) without guile or python3.
set -u
: "${SBX_LAUNCHER:?}" "${SBX_SOURCE_DIR:?}"
GUILE=${SBX_GUILE:-guile}
command -v "$GUILE" >/dev/null 2>&1 || { echo "skip: guile not found"; exit 77; }
PY=
for c in python3 /usr/bin/python3; do
  if "$c" -c pass 2>/dev/null; then PY=$c; break; fi
done
[ -n "$PY" ] || { echo "skip: python3 not runnable"; exit 77; }

work=$(mktemp -d /tmp/sbx-sbpl.XXXXXX)
trap 'rm -rf "$work"' EXIT
checker=$SBX_SOURCE_DIR/tests/macos/sbpl_check.scm
export TMPDIR=/var/folders/xy/zz/T
passed=0
failed=0

# render NAME FLAGS...: write $work/NAME.sb (profile) and NAME.params (alist).
render() {
  local name=$1
  shift
  "$SBX_LAUNCHER" --explain --json --target macos "$@" -- true >"$work/$name.json" || return 1
  "$PY" - "$work/$name.json" "$work/$name" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
open(sys.argv[2] + ".sb", "w", encoding="utf-8").write(d["profile"])
def lit(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
with open(sys.argv[2] + ".params", "w", encoding="utf-8") as f:
    f.write("(" + " ".join("(%s . %s)" % (lit(k), lit(v)) for k, v in d["params"].items()) + ")\n")
EOF
}

# check NAME: run the checker on NAME with the queries on stdin.
check() {
  local name=$1
  cat >"$work/$name.q"
  if "$GUILE" --no-auto-compile -s "$checker" "$work/$name.sb" "$work/$name.params" \
       "$work/$name.q" >"$work/$name.out" 2>&1; then
    passed=$((passed + 1)); echo "ok   - $name"
  else
    failed=$((failed + 1)); echo "FAIL - $name"
  fi
  sed 's/^/    | /' "$work/$name.out"
}

proj=/Users/me/proj
render sandbox --sandbox --project "$proj" --workdir "$proj" || { echo "FAIL - render"; exit 1; }
check sandbox <<'EOF'
(expect allow file-write-data "/Users/me/proj/main.c")
(expect allow file-write-create "/Users/me/proj/sub/new.o")
(expect allow file-write-unlink "/Users/me/proj")
(expect deny file-write-data "/Users/me/.zshrc")
(expect deny file-write-create "/Users/me/proj-evil/x")
(expect deny file-write-data "/Users/me")
(expect allow file-write-data "/private/tmp/scratch")
(expect allow file-write-data "/tmp/scratch")
(expect allow file-write-create "/private/var/folders/xy/zz/T/f")
(expect deny file-write-create "/private/var/folders/xy/other/f")
(expect deny file-write-data "/private/etc/hosts")
(expect allow file-write-data "/dev/null")
(expect allow file-read-data "/Users/me/.zshrc")
(expect allow process-exec "/bin/sh")
(expect allow network-outbound (unix "/private/var/run/docker.sock"))
(expect allow network-bind (unix "/private/tmp/my.sock"))
(expect deny network-outbound (unix "/private/var/run/mDNSResponder"))
(expect deny network-outbound (inet "93.184.216.34:443"))
(expect deny network-bind (inet "127.0.0.1:8080"))
(expect allow mach-lookup "com.apple.coreservices.launchservicesd")
EOF

render netonly --no-network --project "$proj" --workdir "$proj" || exit 1
check netonly <<'EOF'
(expect allow file-write-data "/Users/me/.zshrc")
(expect deny network-outbound (inet "93.184.216.34:443"))
(expect allow network-outbound (unix "/private/tmp/x.sock"))
EOF

render fsonly --confine-fs --project "$proj" --workdir "$proj" || exit 1
check fsonly <<'EOF'
(expect deny file-write-data "/Users/me/.zshrc")
(expect allow file-write-data "/Users/me/proj/a")
(expect allow network-outbound (inet "93.184.216.34:443"))
EOF

render readonly --read-only --project "$proj" --workdir "$proj" || exit 1
check readonly <<'EOF'
(expect allow file-read-data "/Users/me/.ssh/config")
(expect allow file-read-metadata "/")
(expect allow process-exec "/usr/bin/git")
(expect allow process-fork "/")
(expect allow sysctl-read "kern.osrelease")
(expect allow file-write-data "/dev/null")
(expect allow file-write-data "/dev/zero")
(expect allow file-write-data "/dev/tty")
(expect allow file-write-data "/dev/ttys003")
(expect deny file-write-data "/dev/ttys003x")
(expect deny file-write-create "/dev/null")
(expect deny file-write-unlink "/dev/null")
(expect deny file-write-mode "/dev/null")
(expect deny file-write-data "/dev/disk0")
(expect deny file-write-data "/Users/me/proj/a")
(expect deny file-write-create "/private/tmp/x")
(expect deny file-write-xattr "/Users/me/proj/a")
(expect deny network-outbound (unix "/private/var/run/docker.sock"))
(expect deny network-bind (unix "/private/tmp/x.sock"))
(expect deny network-outbound (inet "93.184.216.34:443"))
(expect allow mach-lookup "com.apple.system.opendirectoryd.libinfo")
(expect allow mach-lookup "com.apple.cfprefsd.agent")
(expect deny mach-lookup "com.apple.coreservices.launchservicesd")
(expect deny mach-lookup "com.apple.cfprefsd.daemon.write")
(expect allow user-preference-read "com.apple.finder")
(expect deny sysctl-write "kern.hostname")
EOF

# A hostile project path: the profile still reads, and the decision follows
# the -D value, not any text the path tried to smuggle in.
bad=$(printf '/Users/me/x"))(allow default)\n;#"\\z')
render hostile --sandbox --project "$bad" --workdir "$proj" || exit 1
check hostile <<'EOF'
(expect allow file-write-data "/Users/me/x\"))(allow default)\n;#\"\\z/f")
(expect deny file-write-data "/Users/me/x")
(expect deny file-write-data "/Users/me/.zshrc")
(expect deny network-outbound (inet "93.184.216.34:443"))
EOF

# Protected paths (spec 003): the default set, decided last match wins.
HOME=/Users/me render protect --sandbox --protect-secrets --project "$proj" --workdir "$proj" || {
  echo "FAIL - render protect"; exit 1; }
check protect <<'EOF'
(expect deny file-read-data "/Users/me/proj/.env")
(expect deny file-write-data "/Users/me/proj/.env")
(expect deny file-read-data "/Users/me/proj/sub/.ENV")
(expect deny file-write-data "/Users/me/proj/sub/.ENV")
(expect deny file-read-data "/Users/me/proj/conf/.env.local")
(expect deny file-write-create "/Users/me/proj/conf/.env.local")
(expect deny file-read-data "/Users/me/proj/keys/server.pem")
(expect deny file-write-data "/Users/me/proj/keys/server.pem")
(expect deny file-read-data "/Users/me/proj/keys/ID_RSA")
(expect deny file-write-data "/Users/me/proj/keys/ID_RSA")
(expect deny file-read-data "/Users/me/proj/.ssh/config")
(expect deny file-write-data "/Users/me/proj/.ssh/config")
(expect deny file-read-data "/Users/me/.ssh/id_ed25519")
(expect deny file-write-data "/Users/me/.ssh/id_ed25519")
(expect deny file-read-metadata "/Users/me/.ssh")
(expect allow file-read-data "/Users/me/proj/env.md")
(expect allow file-write-data "/Users/me/proj/env.md")
(expect allow file-read-data "/Users/me/proj/.envrc")
(expect allow file-read-data "/Users/me/proj/.git/config")
(expect deny file-write-data "/Users/me/proj/.git/config")
(expect deny file-write-create "/Users/me/proj/.git/hooks/pre-commit")
(expect deny file-write-unlink "/Users/me/proj/.git")
(expect allow file-write-data "/Users/me/proj/main.c")
(expect allow file-write-create "/Users/me/proj/src/new.c")
(expect allow file-write-unlink "/Users/me/proj/conf")
(expect deny file-read-data "/Users/me/.config/gh/hosts.yml")
(expect deny file-write-unlink "/Users/me/.config")
(expect allow file-read-data "/Users/me/.config/other.toml")
(expect deny file-read-data "/Users/me/.npmrc")
(expect allow file-read-data "/Users/me/proj/.npmrc")
(expect deny file-read-data "/Users/me/Library/Keychains/login.keychain-db")
(expect deny file-write-unlink "/Users/me/Library")
(expect deny file-read-data "/Library/Keychains/System.keychain")
(expect allow file-read-data "/Users/me/proj/id_rsa.pub")
(expect deny file-read-data "/private/tmp/x/.env")
EOF

# With network only denied, writes are open but the secrets still are not.
HOME=/Users/me render protect-netonly --no-network --protect-secrets --project "$proj" \
  --workdir "$proj" || exit 1
check protect-netonly <<'EOF'
(expect deny file-read-data "/Users/me/proj/.env")
(expect allow file-write-data "/Users/me/.zshrc")
(expect deny file-write-data "/Users/me/proj/.git/HEAD")
(expect deny file-read-data "/Users/me/.kube/config")
EOF

# Read-only: the deny-default profile still refuses protected reads.
HOME=/Users/me render protect-readonly --read-only --protect-secrets --project "$proj" \
  --workdir "$proj" || exit 1
check protect-readonly <<'EOF'
(expect deny file-read-data "/Users/me/proj/.env")
(expect allow file-read-data "/Users/me/proj/main.c")
(expect allow file-read-data "/Users/me/proj/.git/config")
EOF

# A pattern with regex metacharacters stays one literal name; a pattern that
# cannot be rendered safely is refused, never dropped.
HOME=/Users/me render odd-pattern --confine-fs --protect 'a(b)|c{1}$+' --project "$proj" \
  --workdir "$proj" || exit 1
check odd-pattern <<'EOF'
(expect deny file-read-data "/Users/me/proj/a(b)|c{1}$+")
(expect deny file-read-data "/Users/me/proj/A(B)|C{1}$+/x")
(expect allow file-read-data "/Users/me/proj/ab")
(expect allow file-read-data "/Users/me/proj/c")
(expect allow file-write-data "/Users/me/proj/main.c")
EOF
for bad in 'x"))(allow default)' '[a-z]*' 'caf\303\251' 'tab\there'; do
  if HOME=/Users/me "$SBX_LAUNCHER" --explain --json --target macos --protect "$(printf "$bad")" \
       -- true >"$work/bad.out" 2>&1; then
    failed=$((failed + 1)); echo "FAIL - the unrenderable pattern $bad was accepted"
  elif grep -q "cannot be rendered" "$work/bad.out"; then
    passed=$((passed + 1)); echo "ok   - the unrenderable pattern $bad is refused"
  else
    failed=$((failed + 1)); echo "FAIL - $bad refused for another reason:"; cat "$work/bad.out"
  fi
done

# The checker must be able to fail: broken profiles are rejected.
reject() {
  local name=$1
  printf '%s' "$2" >"$work/$name.sb"
  echo '(("WRITABLE_ROOT_0" . "/p"))' >"$work/$name.params"
  : >"$work/$name.q"
  if "$GUILE" --no-auto-compile -s "$checker" "$work/$name.sb" "$work/$name.params" \
       "$work/$name.q" >"$work/$name.out" 2>&1; then
    failed=$((failed + 1)); echo "FAIL - the checker accepted $name"
  else
    passed=$((passed + 1)); echo "ok   - the checker rejects $name"
  fi
}
reject unbalanced '(version 1)
(allow default)
(deny network*'
reject unknown-operation '(version 1)
(allow default)
(deny frobnicate*)'
reject undefined-param '(version 1)
(allow default)
(allow file-write* (subpath (param "NOPE")))'
reject code-not-rule '(version 1)
(allow default)
(define x 1)'
reject no-version '(allow default)'
reject two-defaults '(version 1)
(allow default)
(deny default)'
printf '(version 1)\n(allow default)\n(deny file-write*)\n' >"$work/wrong.sb"
echo '()' >"$work/wrong.params"
echo '(expect allow file-write-data "/x")' >"$work/wrong.q"
if "$GUILE" --no-auto-compile -s "$checker" "$work/wrong.sb" "$work/wrong.params" \
     "$work/wrong.q" >/dev/null 2>&1; then
  failed=$((failed + 1)); echo "FAIL - the checker accepted a wrong verdict"
else
  passed=$((passed + 1)); echo "ok   - the checker reports a wrong verdict"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
