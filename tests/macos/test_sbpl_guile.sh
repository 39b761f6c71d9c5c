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

# ---- the escape list and the toolchain list (issue 21), per mode ----
# Each function prints queries. The escape list must be denied in every mode,
# the toolchain list allowed where the mode promises it; can_fail() below
# proves that the profile decides every one of them, not the default rule.

# Routes out of the sandbox: refused in every mode.
escapes() {
  cat <<'Q'
(expect deny job-creation "com.example.escape")
(expect deny lsopen "/System/Applications/Utilities/Terminal.app")
(expect deny appleevent-send "com.apple.Terminal")
(expect deny mach-lookup "com.apple.coreservices.launchservicesd")
(expect deny mach-lookup "com.apple.lsd.mapdb")
(expect deny mach-lookup "com.apple.CoreServices.coreservicesd")
(expect deny mach-lookup "com.apple.axserver")
(expect deny mach-lookup "com.apple.coreservices.appleevents")
(expect deny mach-lookup "com.apple.xpc.smd")
(expect deny mach-lookup "com.apple.SecurityServer")
(expect deny mach-lookup "com.apple.securityd.xpc")
(expect deny mach-lookup "com.apple.security.syspolicy")
(expect deny mach-lookup "com.apple.secd")
(expect deny mach-lookup "com.apple.pasteboard.1")
(expect deny mach-lookup "com.apple.windowserver.active")
(expect deny process-exec "/bin/launchctl")
(expect deny process-exec "/Users/me/proj/launchctl")
(expect deny process-exec "/private/tmp/LaunchCtl")
(expect deny process-exec "/usr/bin/osascript")
(expect deny process-exec "/Users/me/proj/bin/osascript")
(expect deny process-exec "/usr/bin/open")
(expect deny process-exec "/usr/bin/security")
(expect deny process-exec "/usr/bin/sudo")
(expect deny process-exec-interpreter "/usr/bin/osascript")
(expect deny process-exec-interpreter "/Users/me/proj/osascript")
(expect deny file-read-data "/dev/ttys003")
(expect deny file-write-data "/dev/ttys003")
(expect deny file-ioctl "/dev/ttys003")
(expect deny process-info-pidinfo (process other))
(expect deny signal (process other))
(expect deny sysctl-write "kern.hostname")
Q
}

# DNS by any route, when the network is not granted.
escapes_dns() {
  cat <<'Q'
(expect deny mach-lookup "com.apple.dnssd.service")
(expect deny network-outbound (unix "/private/var/run/mDNSResponder"))
(expect deny network-outbound (unix "/var/run/mDNSResponder"))
(expect deny network-outbound (inet "8.8.8.8:53"))
Q
}

# Second names and other spellings of protected files (--protect-secrets).
escapes_protected() {
  cat <<'Q'
(expect deny file-link "/Users/me/.aws/credentials")
(expect deny file-clone "/Users/me/.aws/credentials")
(expect deny file-link "/Users/me/proj/.env")
(expect deny file-clone "/Users/me/proj/.env")
(expect deny file-link "/Users/me/proj/.git/config")
(expect deny file-link "/Users/me/.kube/config")
(expect deny file-clone "/Users/me/.kube/config")
(expect deny file-read-data "/Users/me/.KUBE/config")
(expect deny file-read-data "/Users/me/.Docker/config.json")
(expect deny file-read-data "/Users/me/.NPMRC")
(expect deny file-read-data "/Users/me/.Config/GH/hosts.yml")
(expect deny file-read-data "/Users/me/library/keychains/login.keychain-db")
(expect deny file-read-data "/LIBRARY/Keychains/System.keychain")
Q
}

# What every mode allows, read-only included (spec 000's read-only list).
toolchain_base() {
  cat <<'Q'
(expect allow process-exec "/bin/sh")
(expect allow process-exec "/usr/bin/git")
(expect allow process-exec "/Users/me/proj/build/a.out")
(expect allow process-fork "/")
(expect allow file-map-executable "/usr/lib/dyld")
(expect allow file-read-data "/usr/lib/libSystem.B.dylib")
(expect allow file-read-metadata "/")
(expect allow sysctl-read "hw.ncpu")
(expect allow process-info-pidinfo (process same))
(expect allow signal (process same))
(expect allow file-write-data "/dev/null")
(expect allow file-write-data "/dev/stdout")
(expect allow file-write-data "/dev/stderr")
(expect allow file-write-data "/dev/fd/1")
(expect allow file-write-data "/dev/tty")
(expect allow file-read-data "/dev/tty")
(expect allow mach-lookup "com.apple.system.opendirectoryd.libinfo")
(expect allow mach-lookup "com.apple.system.opendirectoryd.membership")
(expect allow mach-lookup "com.apple.cfprefsd.daemon")
(expect allow mach-lookup "com.apple.cfprefsd.agent")
(expect allow user-preference-read "com.apple.finder")
Q
}

# What ordinary toolchains need beyond that: every mode but read-only.
toolchain() {
  cat <<'Q'
(expect allow file-ioctl "/dev/tty")
(expect allow file-ioctl "/dev/ptmx")
(expect allow pseudo-tty "/dev/ptmx")
(expect allow file-ioctl "/dev/dtracehelper")
(expect allow file-write-data "/dev/dtracehelper")
(expect allow mach-host* "")
(expect allow ipc-posix-sem "/mp-1a2b3c")
(expect allow ipc-posix-shm-read-data "/psm_1a2b3c")
(expect allow ipc-posix-shm-write-create "/psm_1a2b3c")
(expect allow sysctl-write "kern.grade_cputype")
(expect allow mach-lookup "com.apple.logd")
(expect allow mach-lookup "com.apple.system.logger")
(expect allow mach-lookup "com.apple.system.notification_center")
(expect allow mach-lookup "com.apple.bsd.dirhelper")
Q
}

# Read-only refuses what the toolchain list adds (spec 000: no IPC, no
# ioctls, no other Mach service).
readonly_refuses() {
  toolchain | sed 's/(expect allow /(expect deny /'
}

# Writes in the confining mode of a project-building class: the per-user
# cache beside TMPDIR.
toolchain_confined() {
  cat <<'Q'
(expect allow file-write-create "/private/var/folders/xy/zz/C/clang/ModuleCache/x.pcm")
(expect allow file-write-data "/var/folders/xy/zz/C/org.swift.swiftpm/x")
Q
}
# No hard link and no clone, either direction (review of issue 21: XNU checks
# one path of each, so allowing them by path leaves one direction open).
confined_refuses() {
  cat <<'Q'
(expect deny file-link "/Users/me/.zshrc")
(expect deny file-write-create "/private/var/folders/xy/zz/X/f")
(expect deny file-clone "/Users/me/Library/LaunchAgents/evil.plist")
(expect deny file-clone "/Users/me/.zshenv")
(expect deny file-link "/Users/me/Library/LaunchAgents/x.plist")
(expect deny file-link "/Users/me/proj/z")
(expect deny file-clone "/Users/me/proj/a.o")
Q
}

# With a network grant: DNS and TLS by their Mach services.
toolchain_net() {
  cat <<'Q'
(expect allow mach-lookup "com.apple.dnssd.service")
(expect allow mach-lookup "com.apple.trustd.agent")
(expect allow mach-lookup "com.apple.SystemConfiguration.DNSConfiguration")
(expect allow network-outbound (unix "/private/var/run/mDNSResponder"))
(expect allow network-outbound (inet "93.184.216.34:443"))
Q
}

# Plain --no-network and --sandbox spare AF_UNIX (spec 000); a class does not.
unix_spared() {
  cat <<'Q'
(expect allow network-outbound (unix "/private/var/run/docker.sock"))
(expect allow network-bind (unix "/private/tmp/my.sock"))
(expect allow system-socket (socket AF_UNIX))
Q
}
unix_refused() {
  unix_spared | grep -v system-socket | sed 's/(expect allow /(expect deny /'
}
# A granted network's resolver needs an AF_UNIX socket to talk to.
dns_socket() {
  echo '(expect allow system-socket (socket AF_UNIX))'
}

# can_fail NAME REF QUERY-FUNCTION...: every query must get the other answer
# from a profile that is only its default rule: (allow default), which is
# what the old allow-default profiles gave every operation they did not
# name, for the escape lists; (deny default) for the toolchain lists. A
# query that the bare default already answers right tests nothing.
can_fail() {
  local name=$1 ref=$2 n m f
  shift 2
  for f in "$@"; do "$f"; done >"$work/cf-$name.q"
  printf '(version 1)\n(%s default)\n' "$ref" >"$work/cf-$name.sb"
  echo '()' >"$work/cf-$name.params"
  "$GUILE" --no-auto-compile -s "$checker" "$work/cf-$name.sb" "$work/cf-$name.params" \
    "$work/cf-$name.q" >"$work/cf-$name.out" 2>&1
  n=$(grep -c '^(expect' "$work/cf-$name.q")
  m=$(grep -c '^FAIL - expected' "$work/cf-$name.out")
  if [ "$n" -gt 0 ] && [ "$n" = "$m" ]; then
    passed=$((passed + 1)); echo "ok   - each of the $n $name queries fails under ($ref default)"
  else
    failed=$((failed + 1)); echo "FAIL - only $m of $n $name queries fail under ($ref default):"
    grep '^ok ' "$work/cf-$name.out" | sed 's/^/    | /'
  fi
}
can_fail escapes allow escapes escapes_dns escapes_protected unix_refused confined_refuses
can_fail toolchain deny toolchain_base toolchain toolchain_confined toolchain_net unix_spared dns_socket

proj=/Users/me/proj
render sandbox --sandbox --project "$proj" --workdir "$proj" || { echo "FAIL - render"; exit 1; }
{ escapes; escapes_dns; toolchain_base; toolchain; toolchain_confined; confined_refuses
  unix_spared; cat <<'EOF2'
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
(expect allow file-read-data "/Users/me/.zshrc")
(expect deny network-outbound (inet "93.184.216.34:443"))
(expect deny network-bind (inet "127.0.0.1:8080"))
EOF2
} | check sandbox

render netonly --no-network --project "$proj" --workdir "$proj" || exit 1
{ escapes; escapes_dns; toolchain_base; toolchain; unix_spared; cat <<'EOF2'
(expect allow file-write-data "/Users/me/.zshrc")
(expect allow file-link "/Users/me/.zshrc")
(expect deny network-outbound (inet "93.184.216.34:443"))
(expect allow network-outbound (unix "/private/tmp/x.sock"))
EOF2
} | check netonly

render fsonly --confine-fs --project "$proj" --workdir "$proj" || exit 1
{ escapes; toolchain_base; toolchain; toolchain_confined; toolchain_net; cat <<'EOF2'
(expect deny file-write-data "/Users/me/.zshrc")
(expect allow file-write-data "/Users/me/proj/a")
(expect allow network-outbound (inet "93.184.216.34:443"))
(expect allow network-outbound (unix "/private/tmp/x.sock"))
(expect allow mach-lookup "com.apple.networkd")
EOF2
} | check fsonly

# --internet-only: the internet, DNS, no loopback, nothing listening.
render inet --confine-fs --internet-only --project "$proj" --workdir "$proj" || exit 1
{ escapes; toolchain_base; toolchain; toolchain_confined; toolchain_net; unix_refused; dns_socket
  cat <<'EOF2'
(expect deny network-outbound (inet "127.0.0.1:8080"))
(expect deny network-outbound (inet "localhost:8080"))
(expect deny network-outbound (inet "[::1]:8080"))
(expect deny network-bind (inet "*:8080"))
(expect deny network-inbound (inet "93.184.216.34:443"))
(expect deny mach-lookup "com.apple.networkd")
EOF2
} | check inet

# Activity classes (spec 004): unix sockets refused but the resolver's, DNS
# following the network grant; other apps' processes never reachable.
render offline --class offline --project "$proj" --workdir "$proj" || exit 1
{ escapes; escapes_dns; toolchain_base; toolchain; toolchain_confined; unix_refused; } | check offline
render build-inet --class build --internet-only --project "$proj" --workdir "$proj" || exit 1
{ escapes; toolchain_base; toolchain; toolchain_confined; toolchain_net; unix_refused; dns_socket
  cat <<'EOF2'
(expect deny network-outbound (inet "127.0.0.1:5432"))
EOF2
} | check build-inet
render project-class --class project --no-network --project "$proj" --workdir "$proj" || exit 1
{ escapes; escapes_dns; toolchain_base; toolchain; toolchain_confined; unix_refused; } | check project-class

# Issue 28: a class reads the OS, its toolchains, the project and its roots;
# plain --sandbox (above) still reads everything. Metadata stays open.
class_reads() {
  cat <<'Q'
(expect allow file-read-data "/usr/lib/libSystem.B.dylib")
(expect allow file-read-data "/System/Library/Frameworks/Foundation.framework/Foundation")
(expect allow file-read-data "/private/etc/hosts")
(expect allow file-read-data "/private/etc/ssh/ssh_config")
(expect allow file-read-data "/")
(expect allow file-read-metadata "/Users/me/Documents/x")
(expect allow file-read-data "/Users/me/proj/main.c")
(expect allow file-read-data "/private/var/folders/xy/zz/T/f")
(expect allow file-read-data "/dev/urandom")
(expect allow file-read-data "/dev/fd/3")
(expect deny file-read-data "/Users/me/Documents/x")
(expect deny file-read-data "/Users/me/other-proj/README")
(expect deny file-read-data "/Users/me/Library/Application Support/Firefox/Profiles/x/key4.db")
(expect deny file-read-data "/Users/me/.cargo/credentials.toml")
(expect deny file-read-data "/Users/me/.zshrc")
(expect deny file-read-data "/Users")
(expect deny file-read-data "/Library/Keychains/System.keychain")
(expect deny file-read-data "/private/etc/master.passwd")
(expect deny file-read-data "/private/etc/sudoers")
(expect deny file-read-data "/private/etc/ssh/ssh_host_ed25519_key")
(expect deny file-read-data "/private/var/root/.ssh/id_rsa")
(expect deny file-read-data "/dev/disk0")
(expect deny file-read-data "/private/etc/kcpassword")
(expect deny file-read-data "/private/etc/krb5.keytab")
(expect deny file-read-data "/opt/homebrew/var/postgresql@16/base/1/1259")
(expect allow file-read-data "/opt/homebrew/bin/python3")
(expect deny file-read-data "/dev/bpf0")
(expect deny file-read-data "/dev/fsevents")
(expect deny file-read-data "/dev/klog")
(expect deny file-read-data "/dev/auditpipe")
Q
}
class_toolchains() {
  cat <<'Q'
(expect allow file-read-data "/Users/me/.cargo/bin/cargo")
(expect allow file-read-data "/Users/me/.rustup/toolchains/stable/bin/rustc")
(expect allow file-read-data "/Users/me/.gitconfig")
(expect allow file-read-data "/Users/me/.nvm/versions/node/v20/bin/node")
Q
}
class_toolchain_secrets() {
  cat <<'Q'
(expect deny file-read-data "/Users/me/.config/git/credentials")
(expect deny file-read-data "/Users/me/.nvm/.git/config")
Q
}
can_fail class-reads-allow deny class_toolchains
for cls in project research build offline; do
  HOME=/Users/me PYENV_ROOT= CARGO_HOME= RUSTUP_HOME= NVM_DIR= XDG_CONFIG_HOME= \
    render "reads-$cls" --class "$cls" --project "$proj" --workdir "$proj" || exit 1
  { class_reads; class_toolchains; class_toolchain_secrets; } | check "reads-$cls"
done
HOME=/Users/me PYENV_ROOT= render reads-media --class media --output "$proj/out" --project "$proj" \
  --workdir "$proj" || exit 1
{ class_reads | grep -v cargo; cat <<'EOF2'
(expect allow file-read-data "/Users/me/proj/out/a.png")
(expect deny file-read-data "/Users/me/.cargo/bin/cargo")
(expect deny file-read-data "/Users/me/.gitconfig")
EOF2
} | check reads-media
HOME=/Users/me PYENV_ROOT= render reads-added --class research --add-read /Users/me/datasets \
  --project "$proj" --workdir "$proj" || exit 1
check reads-added <<'EOF2'
(expect allow file-read-data "/Users/me/datasets/a.csv")
(expect deny file-read-data "/Users/me/datasets-old/a.csv")
(expect deny file-read-data "/Users/me/Documents/x")
EOF2

# The user cache beside TMPDIR is for the classes that build the project.
for cls in research media; do
  render "$cls" --class "$cls" --output "$proj/out" --project "$proj" --workdir "$proj" || exit 1
  check "$cls" <<'EOF2'
(expect deny file-write-create "/private/var/folders/xy/zz/C/clang/ModuleCache/x.pcm")
(expect deny file-write-data "/var/folders/xy/zz/C/x")
(expect allow file-write-create "/private/var/folders/xy/zz/T/f")
EOF2
done
# Every writable parameter is a root --explain shows (and the scan walks).
for name in sandbox fsonly inet offline build-inet project-class research media; do
  if "$PY" - "$work/$name.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
shown = {p for r in d["roots"] for p in (r["path"], r["canonical"])}
hidden = [v for k, v in d["params"].items() if k.startswith("WRITABLE_ROOT_") and v not in shown]
sys.exit(1 if hidden else 0)
EOF2
  then passed=$((passed + 1)); echo "ok   - $name: every WRITABLE_ROOT_ is an explained root"
  else failed=$((failed + 1)); echo "FAIL - $name: a WRITABLE_ROOT_ is not among --explain's roots"
  fi
done

render readonly --read-only --project "$proj" --workdir "$proj" || exit 1
{ escapes; escapes_dns; toolchain_base; readonly_refuses; unix_refused; cat <<'EOF2'
(expect allow file-read-data "/Users/me/.ssh/config")
(expect allow file-read-metadata "/")
(expect allow process-exec "/usr/bin/git")
(expect allow process-fork "/")
(expect allow sysctl-read "kern.osrelease")
(expect allow file-write-data "/dev/null")
(expect allow file-write-data "/dev/zero")
(expect allow file-write-data "/dev/tty")
(expect deny file-write-data "/dev/ttys003")
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
(expect deny file-write-data "/dev/dtracehelper")
(expect deny file-link "/Users/me/proj/a")
(expect deny file-write-create "/private/var/folders/xy/zz/C/x")
EOF2
} | check readonly

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
{ escapes; escapes_dns; escapes_protected; toolchain_base; toolchain; toolchain_confined; cat <<'EOF2'
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
(expect allow file-read-data "/Users/me/proj/.kube/config")
(expect allow file-read-data "/Users/me/proj/Library/Keychains/x")
(expect deny file-clone "/Users/me/proj/.git/hooks/pre-commit")
(expect deny file-clone "/Users/me/proj/.GIT/hooks/pre-commit")
(expect deny file-read-data "/users/me/.kube/config")
(expect deny file-read-data "/Users/ME/.kube/config")
(expect deny file-read-data "/USERS/ME/.KUBE/config")
(expect deny file-read-data "/USERS/ME/LIBRARY/KEYCHAINS/login.keychain-db")
(expect deny file-read-data "/Users/ME/.ssh/id_rsa")
(expect deny file-write-unlink "/Users/me/.CONFIG")
(expect deny file-write-unlink "/users/me/.config")
(expect deny file-write-unlink "/USERS/ME/LIBRARY")
(expect deny file-read-data "/Users/me/.CONFIG/gh/hosts.yml")
(expect deny network-outbound (unix "/Users/me/.gnupg/S.gpg-agent"))
(expect deny network-outbound (unix "/users/me/.GNUPG/S.gpg-agent"))
(expect deny network-outbound (unix "/Users/me/.ssh/cm-git@github.com:22"))
(expect deny network-bind (unix "/Users/me/.ssh/agent.sock"))
(expect deny network-bind (unix "/Users/me/proj/.git/x.sock"))
(expect allow network-outbound (unix "/private/tmp/com.apple.launchd.x/Listeners"))
EOF2
} | check protect

# With network only denied, writes are open but the secrets still are not.
HOME=/Users/me render protect-netonly --no-network --protect-secrets --project "$proj" \
  --workdir "$proj" || exit 1
{ escapes; escapes_dns; escapes_protected; cat <<'EOF2'
(expect deny file-read-data "/Users/me/proj/.env")
(expect allow file-write-data "/Users/me/.zshrc")
(expect deny file-write-data "/Users/me/proj/.git/HEAD")
(expect deny file-read-data "/Users/me/.kube/config")
(expect allow file-write-unlink "/Users/me/notes")
(expect deny file-write-unlink "/Users/me/.config")
(expect deny file-write-unlink "/Users/me/.CONFIG")
(expect deny file-write-unlink "/users/me/.config")
(expect deny file-write-unlink "/USERS/ME/LIBRARY")
(expect deny network-outbound (unix "/Users/me/.ssh/cm-git@github.com:22"))
(expect deny network-outbound (unix "/USERS/ME/.gnupg/S.gpg-agent"))
EOF2
} | check protect-netonly

# Read-only: the deny-default profile still refuses protected reads.
HOME=/Users/me render protect-readonly --read-only --protect-secrets --project "$proj" \
  --workdir "$proj" || exit 1
{ escapes; escapes_dns; escapes_protected; cat <<'EOF2'
(expect deny file-read-data "/Users/me/proj/.env")
(expect allow file-read-data "/Users/me/proj/main.c")
(expect allow file-read-data "/Users/me/proj/.git/config")
EOF2
} | check protect-readonly

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
