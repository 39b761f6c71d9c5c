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
