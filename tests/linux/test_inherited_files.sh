#!/usr/bin/env bash
# Inherited regular-file descriptors (issue 18, what round two left open): a
# file the host has open keeps the host's mount after the command enters its
# private namespace, so /proc/self/fd/N reopens it there: .git/config writable
# past its read-only bind, .env readable under its mask, /proc/sys writable
# for root. Such a descriptor (stdio included) is refused (126, naming it);
# one on a file the command's view shows as it is stays usable. Every refusal
# is first shown working unconfined (the control), and checked from outside.
. "$SBX_TESTLIB"

proj=$_scratch/proj
home=$_home/home
mkdir -p "$proj/.git" "$proj/.aws" "$proj/.husky" "$home/.ssh"
export HOME=$home
cd "$proj" || exit 1
echo "TOKEN=fd-file-secret-91" >.env
echo "TOKEN=fd-file-secret-91" >.aws/credentials
echo "TOKEN=fd-file-secret-91" >"$home/.ssh/id_ed25519"
printf '[core]\n\tbare = false\n' >.git/config
printf '#!/bin/sh\ntrue\n' >.husky/pre-commit
printf '[core]\n\thooksPath = .husky\n' >>.git/config
cp .git/config "$_scratch/config.orig"
cp .husky/pre-commit "$_scratch/hook.orig"
echo data >plain.txt
require guard "--protect-secrets" "$L" --protect-secrets --project "$proj" -- true
S=("$L" --protect-secrets --project "$proj")

no_token() {
  if grep -q fd-file-secret-91 "$_out"; then fail "$1: the secret was printed"; else pass "$1: no secret"; fi
}
names() {
  if grep -q "descriptor $1" "$_err"; then pass "the refusal names descriptor $1"; else
    fail "the refusal does not name descriptor $1"; sed 's/^/    | /' "$_err" | head -3; fi
}
unchanged() { # FILE ORIG NAME
  if cmp -s "$1" "$2"; then pass "$3 is unchanged"; else fail "$3 was written"; cp "$2" "$1"; fi
}

# ---- a read-only descriptor on .git/config, reopened for writing ----
expect_status 0 "unconfined: fd 3 (read-only) on .git/config reopens writable" \
  bash -c 'exec 3<.git/config; echo hacked >>/proc/self/fd/3'
grep -q hacked .git/config && pass "the control wrote .git/config" || fail "the control did not write (the case proves nothing)"
cp "$_scratch/config.orig" .git/config
for mode in "" --sandbox; do
  expect_status 126 "--protect-secrets $mode: fd 3 on .git/config is refused" \
    bash -c 'exec 3<.git/config; exec "$@"' x "${S[@]}" $mode -- sh -c 'echo hacked >>/proc/self/fd/3'
  names 3
  unchanged .git/config "$_scratch/config.orig" ".git/config ($mode)"
done
expect_status 126 "--protect-secrets: stdout appended to .git/config is refused" \
  bash -c 'exec "$@" >>.git/config' x "${S[@]}" -- echo hacked
names 1
unchanged .git/config "$_scratch/config.orig" ".git/config (stdout)"

# ---- a file outside .git that git runs (core.hooksPath), write-protected ----
expect_status 0 "unconfined: fd 4 on .husky/pre-commit reopens writable" \
  bash -c 'exec 4<.husky/pre-commit; echo "touch pwned" >>/proc/self/fd/4'
cp "$_scratch/hook.orig" .husky/pre-commit
expect_status 126 "--protect-secrets: fd 4 on the hooksPath's hook is refused" \
  bash -c 'exec 4<.husky/pre-commit; exec "$@"' x "${S[@]}" -- sh -c 'echo "touch pwned" >>/proc/self/fd/4'
unchanged .husky/pre-commit "$_scratch/hook.orig" ".husky/pre-commit"

# ---- descriptors on masked secrets: read, or reopened ----
expect_status 0 "unconfined: fd 3 on .env reads it through /proc/self/fd/3" \
  bash -c 'exec 3<.env; cat /proc/self/fd/3'
expect_output_has fd-file-secret-91 "the control reads the secret"
expect_status 126 "--protect-secrets: fd 3 on .env is refused" \
  bash -c 'exec 3<.env; exec "$@"' x "${S[@]}" -- cat /proc/self/fd/3
no_token "fd 3 on .env"
names 3
expect_status 126 "--protect-secrets: .env as stdin is refused" \
  bash -c 'exec "$@" <.env' x "${S[@]}" -- cat
no_token "stdin"
names 0
expect_status 126 "--protect-secrets: a file under a masked directory (.aws) is refused" \
  bash -c 'exec 5<.aws/credentials; exec "$@"' x "${S[@]}" -- cat /proc/self/fd/5
no_token ".aws/credentials"
expect_status 126 "--protect-secrets: ~/.ssh/id_ed25519 on fd 3 is refused" \
  bash -c 'exec 3<"$HOME/.ssh/id_ed25519"; exec "$@"' x "${S[@]}" -- cat /proc/self/fd/3
no_token "~/.ssh/id_ed25519"

# ---- other names of a masked file ----
ln .env notes.txt
expect_status 126 "--protect-secrets: fd 3 on a hard link of .env (notes.txt, masked too) is refused" \
  bash -c 'exec 3<notes.txt; exec "$@"' x "${S[@]}" -- cat /proc/self/fd/3
no_token "notes.txt"
rm -f notes.txt
# The name the host opened is gone, the file lives on as a masked .env.deep.
echo "TOKEN=fd-file-secret-91" >alias.txt
ln alias.txt .env.deep
expect_status 0 "unconfined: an fd whose name was removed still reads the file" \
  bash -c 'exec 3<alias.txt; rm alias.txt; cat /proc/self/fd/3'
expect_output_has fd-file-secret-91 "the control reads the renamed-away secret"
ln .env.deep alias.txt
expect_status 126 "--protect-secrets: an fd whose name was removed, the file kept as .env.deep, is refused" \
  bash -c 'exec 3<alias.txt; rm alias.txt; exec "$@"' x "${S[@]}" -- cat /proc/self/fd/3
no_token "the removed name"
rm -f alias.txt .env.deep

# An ending of the descriptor's name that is another name of the same file
# (review r41 F3): for a masked $proj/tmp/U/.env, a hard link at /tmp/U/.env
# was taken for the descriptor's name in the view, and the secret was
# rewritten through /proc/self/fd/N on the host's mount.
u=sbx-sfx.$$
mkdir -p "tmp/$u" "/tmp/$u"
echo "TOKEN=fd-file-secret-91" >"tmp/$u/.env"
if ln "tmp/$u/.env" "/tmp/$u/.env" 2>"$_err"; then
  cp "tmp/$u/.env" "$_scratch/sfx.orig"
  expect_status 0 "unconfined: fd 5 (read-only) on tmp/$u/.env reopens writable" \
    bash -c 'exec 5<"$0"; echo pwned >/proc/self/fd/5' "tmp/$u/.env"
  grep -q pwned "tmp/$u/.env" && pass "the control wrote the secret" ||
    fail "the control did not write (the case proves nothing)"
  cat "$_scratch/sfx.orig" >"tmp/$u/.env"
  for mode in "" --sandbox; do
    expect_status 126 "--protect-secrets $mode: fd 5 on a masked .env linked at an ending of its name (/tmp/$u/.env) is refused" \
      bash -c 'exec 5<"$0"; shift; exec "$@"' "tmp/$u/.env" x "${S[@]}" $mode -- sh -c 'echo pwned >/proc/self/fd/5'
    names 5
    unchanged "tmp/$u/.env" "$_scratch/sfx.orig" "the masked tmp/$u/.env ($mode)"
  done
else
  skip "hardlink_tmp: cannot link the project's tmp/$u/.env at /tmp/$u/.env: $(head -1 "$_err")"
fi
rm -rf "tmp/$u" "/tmp/$u"

# ---- what the host legitimately passes stays ----
expect_status 0 "--protect-secrets: a project file on fd 3 and stdout to a project log" \
  bash -c 'exec 3<plain.txt; exec "$@" >build.log' x "${S[@]}" -- sh -c 'cat <&3; echo logged'
grep -q logged build.log && grep -q data build.log && pass "the log was written through stdout" ||
  fail "the log was not written"
expect_status 0 "--protect-secrets: a here-document (a deleted temp file or a pipe) on stdin" \
  bash -c 'exec "$@" <<EOF
here-doc-line
EOF' x "${S[@]}" -- cat
expect_output_has here-doc-line "the here-document was read"
expect_status 0 "--protect-secrets: a deleted temp file on fd 3 stays usable" \
  bash -c 't=$(mktemp); echo tmpdata >"$t"; exec 3<"$t"; rm "$t"; exec "$@"' x "${S[@]}" -- sh -c 'cat <&3'
expect_output_has tmpdata "the deleted temp file was read"
if have python3; then
  expect_status 0 "--protect-secrets: a memfd on fd 3 stays usable" \
    python3 -c 'import os, sys
fd = os.memfd_create("m", 0); os.write(fd, b"memfd-data\n"); os.lseek(fd, 0, 0)
os.dup2(fd, 3); os.execvp(sys.argv[1], sys.argv[1:])' "${S[@]}" -- sh -c 'cat <&3'
  expect_output_has memfd-data "the memfd was read"
else
  skip "python3: no memfd case"
fi

# ---- root: /proc/sys is read-only in its namespace, the fd's mount is not ----
if have root; then
  # The control writes the value that is there back: nothing changes.
  expect_status 0 "unconfined: fd 3 (read-only) on /proc/sys/kernel/domainname reopens writable" \
    bash -c 'exec 3</proc/sys/kernel/domainname; cat <&3 >/proc/self/fd/3'
  expect_status 126 "root --no-network: fd 3 on a /proc/sys file is refused" \
    bash -c 'exec 3</proc/sys/kernel/domainname; exec "$@"' x "$L" --no-network -- \
    sh -c 'cat <&3 >/proc/self/fd/3'
  names 3
  expect_status 0 "root --no-network: fd 3 on /proc/cpuinfo (not read-only in the view) stays" \
    bash -c 'exec 3</proc/cpuinfo; exec "$@"' x "$L" --no-network -- sh -c 'head -1 <&3'
else
  expect_status 0 "non-root --no-network (no private namespace): fd 3 on plain.txt" \
    bash -c 'exec 3<plain.txt; exec "$@"' x "$L" --no-network -- sh -c 'cat <&3'
fi
finish
