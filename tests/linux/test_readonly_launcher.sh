#!/usr/bin/env bash
# --read-only end to end through the launcher: no writes but the devices and
# the terminal, no truncation outside (whichever layer refuses it), everyday
# read tools work, no signals outside, no capability.
# Skips (77) while the launcher cannot apply the seccomp part yet.
. "$SBX_TESTLIB"

require landlock6 "--read-only" "$L" --read-only -- true

base=$(mktemp -d /var/tmp/sbx-ll-ro.XXXXXX)
chmod 755 "$base"
proj=$base/proj
mkdir "$proj"
echo "hello project" >"$proj/file"
echo 'int main(void) { return 0; }' >"$proj/x.c"
trap 'rm -rf "$base"' EXIT
export HOME=$base GIT_CONFIG_NOSYSTEM=1
(cd "$proj" && git init -q && git add file && git -c user.name=t -c user.email=t@example.invalid commit -qm first && echo change >>file)
RO=("$L" --read-only --project "$proj" --workdir "$proj")

expect_status 2 "no write in the project (sh: cannot create)" "${RO[@]}" -- sh -c "echo x > '$proj/new'"
[ ! -e "$proj/new" ] && pass "nothing was created" || fail "$proj/new exists"
expect_status 2 "no write in /tmp (sh: cannot create)" "${RO[@]}" -- sh -c "echo x > /tmp/sbx-ll-ro-$$"
expect_status 0 "/dev/null, /dev/zero and /dev/full stay writable" \
  "${RO[@]}" -- sh -c ': > /dev/null; echo x >> /dev/zero; if echo x 2>/dev/null >/dev/full; then exit 1; fi'
expect_status 0 "> /dev/null redirection works" "${RO[@]}" -- sh -c 'echo x > /dev/null'

# Truncation outside: read-only does not handle Landlock's TRUNCATE (a path
# walk on every open), so write_file refuses the write opens and the seccomp
# truncation group the rest. Each succeeds unconfined, fails confined with its
# errno, and leaves the file as it was.
out=$base/out
mkdir "$out"
victim=$out/victim
reset_victim() { printf 'orig data\n' >"$victim"; }
victim_intact() { # NAME
  if [ "$(cat "$victim")" = "orig data" ]; then pass "$1: the file is unchanged"; else
    fail "$1: the file changed (size $(stat -c %s "$victim"))"; fi
}
py_errno() { # CODE: runs python3 with CODE, prints ok or the errno name
  /usr/bin/python3 -c "
import errno, os, sys
try:
    $1
    print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])
" "$victim"
}
trunc_case() { # NAME WANT CODE
  local name=$1 want=$2 code=$3 got
  reset_victim
  got=$(py_errno "$code" 2>&1)
  if [ "$got" = ok ] && [ "$(stat -c %s "$victim")" = 0 ]; then pass "$name truncates unconfined"; else
    fail "$name unconfined: $got, size $(stat -c %s "$victim")"; fi
  reset_victim
  got=$("${RO[@]}" -- /usr/bin/python3 -c "
import errno, os, sys
try:
    $code
    print('ok')
except OSError as e:
    print(errno.errorcode[e.errno])
" "$victim" 2>&1)
  if [ "$got" = "$want" ]; then pass "$name fails with $want under --read-only"; else
    fail "$name under --read-only: got '$got', wanted $want"; fi
  victim_intact "$name"
}
trunc_case "os.truncate(path, 0)" EPERM "os.truncate(sys.argv[1], 0)"
trunc_case "open(path, O_RDONLY|O_TRUNC)" EACCES "os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_TRUNC))"
trunc_case "open(path, O_WRONLY|O_TRUNC)" EACCES "os.close(os.open(sys.argv[1], os.O_WRONLY | os.O_TRUNC))"
reset_victim
expect_status 0 "truncate -s 0 FILE works unconfined" truncate -s 0 "$victim"
[ "$(stat -c %s "$victim")" = 0 ] && pass "coreutils truncate emptied the file unconfined" \
  || fail "coreutils truncate had no effect unconfined"
reset_victim
expect_status 1 "truncate -s 0 FILE (open O_WRONLY + ftruncate) is refused" \
  env LC_ALL=C "${RO[@]}" -- truncate -s 0 "$victim"
expect_output_has "Permission denied" "coreutils truncate reports EACCES"
victim_intact "truncate -s 0"

expect_status 0 "ls, cat, grep -r, find work" \
  "${RO[@]}" -- sh -c "cd '$proj' && ls -la >/dev/null && cat file >/dev/null && grep -rq hello . && find . -name file | grep -q ."
expect_status 0 "git log, status and diff work" \
  "${RO[@]}" -- sh -c "cd '$proj' && git log --oneline | grep -q first && git status --short | grep -q file && git diff | grep -q change"
expect_status 0 "python3 -c works" "${RO[@]}" -- /usr/bin/python3 -c 'print(1)'
if command -v cc >/dev/null; then
  expect_status 0 "cc -c -o /dev/null works" "${RO[@]}" -- sh -c "cd '$proj' && cc -pipe -c -o /dev/null x.c"
fi
if command -v script >/dev/null; then
  expect_status 0 "output to a pseudo-terminal works, ioctls included" \
    script -qec "$(printf '%q ' "${RO[@]}") -- sh -c 'stty size >/dev/null && echo pty-ok > /dev/tty'" /dev/null
  expect_output_has "pty-ok" "the terminal received the output"
  expect_status 0 "echo x > /dev/tty works on a pseudo-terminal" \
    script -qec "$(printf '%q ' "${RO[@]}") -- sh -c 'echo tty-redirect-ok > /dev/tty'" /dev/null
  expect_output_has "tty-redirect-ok" "the terminal received the redirected echo"
fi
sleep 30 & sleeper=$!
expect_status 1 "no signal to a process outside" "${RO[@]}" -- kill -CONT "$sleeper"
expect_status 0 "the same signal works unconfined" kill -CONT "$sleeper"
kill "$sleeper"; wait "$sleeper" 2>/dev/null
if [ "$(id -u)" = 0 ]; then
  expect_status 0 "read /proc/self/status as root" "${RO[@]}" -- cat /proc/self/status
  if grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' "$_out" | grep -qv '0000000000000000'; then
    fail "a capability set is not empty"; grep '^Cap' "$_out"
  else
    pass "CapInh, CapPrm, CapEff, CapBnd and CapAmb are all zero as root"
  fi
fi
finish
