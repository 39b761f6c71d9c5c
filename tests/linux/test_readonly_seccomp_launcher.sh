#!/usr/bin/env bash
# The seccomp rules of read-only and confined mode, end to end through the
# launcher (with Landlock): each call is refused with its exact errno or
# signal, and the same call succeeds unconfined.
. "$SBX_TESTLIB"

PY=$(command -v /usr/bin/python3 || command -v python3 || true)
[ -n "$PY" ] || { echo "python3 missing"; exit 77; }
SIGSYS_STATUS=$((128 + $(kill -l SYS)))
f=$_scratch/file
echo data >"$f"
chmod 644 "$f"

# check FLAGS ERRNO NAME CODE: unconfined CODE prints ok; under the launcher
# with FLAGS it raises ERRNO.
pycall() { "$PY" -c "
import errno, os, socket, sys
try:
    $1
    print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])
"; }
check() {
  local flags=$1 want=$2 name=$3 code=$4 got
  got=$(pycall "$code" 2>&1)
  if [ "$got" = ok ]; then pass "$name succeeds unconfined"; else
    fail "$name unconfined: $got"; fi
  # shellcheck disable=SC2086
  got=$("$L" $flags -- "$PY" -c "
import errno, os, socket, sys
try:
    $code
    print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])
" 2>&1)
  if [ "$got" = "$want" ]; then pass "$name fails with $want under $flags"; else
    fail "$name under $flags: got '$got', wanted $want"; fi
}

check --read-only EPERM "chmod" "os.chmod('$f', 0o600)"
check --read-only EPERM "chown to oneself" "os.chown('$f', os.getuid(), os.getgid())"
check --read-only EPERM "utimensat" "os.utime('$f')"
if "$PY" -c "import os; os.setxattr('$f', 'user.sbx', b'1')" 2>/dev/null; then
  check --read-only EPERM "setxattr" "os.setxattr('$f', 'user.sbx', b'2')"
else
  skip "user_xattr: setxattr: user xattrs unsupported on $(stat -f -c %T "$f")"
fi
check --read-only EPERM "socket(AF_UNIX)" "socket.socket(socket.AF_UNIX)"
check --read-only EPERM "socketpair" "socket.socketpair()"
check --read-only EPERM "socket(AF_NETLINK)" "socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)"
check "--read-only --net-eperm" EPERM "socket(AF_INET) with the EPERM switch" "socket.socket()"
expect_status "$SIGSYS_STATUS" "socket(AF_INET) under --read-only is killed by SIGSYS" \
  "$L" --read-only -- "$PY" -c "import socket; socket.socket()"

# Confined mode: truncation Landlock does not check without TRUNCATE.
proj=$_scratch/proj
mkdir -p "$proj"
echo data >"$proj/t"
check "--sandbox --project $proj" EACCES "open(O_RDONLY|O_TRUNC) in the project" \
  "os.open('$proj/t', os.O_RDONLY | os.O_TRUNC)"
echo data >"$proj/t"
check "--sandbox --project $proj" EPERM "truncate(2) by path in the project" \
  "os.truncate('$proj/t', 0)"
echo data >"$proj/t"
expect_status 0 "coreutils truncate (open + ftruncate) works in the project" \
  "$L" --sandbox --project "$proj" -- truncate -s 1 "$proj/t"
[ "$(stat -c %s "$proj/t")" = 1 ] && pass "the file was truncated to 1 byte" || fail "truncate had no effect"
expect_status 0 "O_WRONLY|O_TRUNC works in the project" \
  "$L" --sandbox --project "$proj" -- sh -c ": > '$proj/t'"
finish
