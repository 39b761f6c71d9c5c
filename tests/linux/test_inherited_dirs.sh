#!/usr/bin/env bash
# Inherited directory and O_PATH descriptors (issue-18 review, item 1): in a
# private mount namespace (the masks of --protect-secrets, root's rootfs) a
# descriptor opened outside still points at the host's mounts, where nothing
# is masked or read-only: /proc/self/fd/N/.env reads the secret. Such a
# descriptor, inherited open across exec, is refused (126, naming it);
# regular files, pipes and ttys stay usable. Each refusal is first shown
# working unconfined (the control).
. "$SBX_TESTLIB"

proj=$_scratch/proj
home=$(mktemp -d /var/tmp/sbx-home.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -p "$proj/.git" "$home"
export HOME=$home
cd "$proj" || exit 1
echo "TOKEN=fd-dir-secret-42" >.env
printf '[core]\n\tbare = false\n' >.git/config
cp .git/config "$_scratch/config.orig"
echo data >plain.txt
require guard "--protect-secrets" "$L" --protect-secrets --project "$proj" -- true
S=("$L" --protect-secrets --project "$proj")

# leaks NAME CMD...: CMD must not print the token.
no_token() {
  if grep -q fd-dir-secret-42 "$_out"; then fail "$1: the secret was printed"; else pass "$1: no secret"; fi
}

expect_status 0 "unconfined: fd 3 on the project reads .env" \
  bash -c 'exec 3<"$0"; exec cat /proc/self/fd/3/.env' "$proj"
expect_output_has fd-dir-secret-42 "the control reads the secret"
expect_status 126 "--protect-secrets: an inherited directory fd 3 is refused" \
  bash -c 'exec 3<"$0"; exec "$@"' "$proj" "${S[@]}" -- cat /proc/self/fd/3/.env
no_token "fd 3"
grep -q "descriptor 3" "$_err" && pass "the refusal names descriptor 3" ||
  { fail "the refusal does not name descriptor 3"; sed 's/^/    | /' "$_err" | head -3; }

expect_status 126 "--protect-secrets --close-fds: a directory on stdin is refused" \
  bash -c 'exec "$@" <"$0"' "$proj" "${S[@]}" --close-fds -- cat /proc/self/fd/0/.env
no_token "stdin"

expect_status 0 "unconfined: fd 3 writes .git/config" \
  bash -c 'exec 3<"$0"; printf x | dd of=/proc/self/fd/3/.git/config conv=notrunc,nocreat status=none' "$proj"
cp "$_scratch/config.orig" .git/config
expect_status 126 "--protect-secrets: writing .git/config through fd 3 is refused" \
  bash -c 'exec 3<"$0"; exec "$@"' "$proj" "${S[@]}" -- \
  sh -c 'printf x | dd of=/proc/self/fd/3/.git/config conv=notrunc,nocreat status=none'
cmp -s .git/config "$_scratch/config.orig" && pass ".git/config is unchanged" || fail ".git/config was written"
cp "$_scratch/config.orig" .git/config

if have python3; then
  opath='import os, sys
fd = os.open(sys.argv[1], os.O_PATH)
if fd != 4:
    os.dup2(fd, 4)
os.set_inheritable(4, True)
os.execvp(sys.argv[2], sys.argv[2:])'
  expect_status 0 "unconfined: an O_PATH fd 4 on .env reopens it" \
    python3 -c "$opath" "$proj/.env" cat /proc/self/fd/4
  expect_output_has fd-dir-secret-42 "the O_PATH control reads the secret"
  expect_status 126 "--protect-secrets: an inherited O_PATH fd 4 is refused" \
    python3 -c "$opath" "$proj/.env" "${S[@]}" -- cat /proc/self/fd/4
  no_token "O_PATH fd 4"
  grep -q "descriptor 4" "$_err" && pass "the refusal names descriptor 4" || fail "descriptor 4 not named"
else
  skip "python3: no O_PATH case"
fi

# What the host legitimately passes stays.
expect_status 0 "--protect-secrets: a regular file on fd 3 stays usable" \
  bash -c 'exec 3<"$0"; exec "$@"' "$proj/plain.txt" "${S[@]}" -- sh -c 'cat <&3'
expect_output_has data "the regular file was read"
expect_status 0 "--protect-secrets: a pipe on stdin stays usable" \
  bash -c 'echo piped | "$@"' x "${S[@]}" -- cat
expect_output_has piped "the pipe was read"

# Root: its private namespace (read-only /proc/sys, a small /dev) in every
# confining mode; an fd on / or /dev would reach the host's.
if have root; then
  expect_status 0 "unconfined: fd 5 on / reaches /proc/sys" \
    bash -c 'exec 5</; exec test -e /proc/self/fd/5/proc/sys/kernel/core_pattern'
  expect_status 126 "root --no-network: an inherited fd 5 on / is refused" \
    bash -c 'exec 5</; exec "$@"' x "$L" --no-network -- \
    sh -c 'cat /proc/self/fd/5/proc/sys/kernel/core_pattern'
  expect_status 126 "root --no-network: an inherited fd 5 on /dev is refused" \
    bash -c 'exec 5</dev; exec "$@"' x "$L" --no-network -- sh -c 'ls /proc/self/fd/5/'
else
  expect_status 0 "non-root --no-network (no private namespace): an fd on / is not refused" \
    bash -c 'exec 5</; exec "$@"' x "$L" --no-network -- test -d /proc/self/fd/5/etc
fi
finish
