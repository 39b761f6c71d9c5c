#!/usr/bin/env bash
# Protected paths end to end through the launcher: spec 003's cases, .git
# readable but not writable, and the rename, symlink and hard-link routes.
# Every refusal is first shown succeeding unconfined.
. "$SBX_TESTLIB"
SECRET=sbx-secret-e2e-91c2

proj=$_scratch/proj
# Outside /tmp: the sandbox writes /tmp, so a home beneath it is refused.
home=$(mktemp -d /var/tmp/sbx-home.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -p "$proj"/{sub,conf,keys,.ssh} "$home/.ssh"
for p in .env sub/.ENV conf/.env.local keys/server.pem keys/ID_RSA .ssh/config; do
  echo "$SECRET" >"$proj/$p"
done
echo "$SECRET" >"$home/.ssh/id_ed25519"
echo "how env files work" >"$proj/env.md"
ln "$proj/keys/server.pem" "$proj/keys/copy"
(cd "$proj" && git init -q . && git config user.email t@t && git config user.name t &&
  git add env.md && git commit -qm init) || { echo "git setup failed"; exit 1; }
cd "$proj" || exit 1
export HOME=$home

# A build whose launcher cannot confine (a backend stub, or a kernel without
# seccomp/Landlock/user namespaces) fails closed; then there is nothing to observe.
require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets -- true
S=("$L" --sandbox --protect-secrets --project "$proj" --)

# no_secret NAME: the last command's output never held the secret.
no_secret() {
  if grep -qF "$SECRET" "$_out" "$_err"; then fail "$1: the secret reached the output"; else pass "$1: no secret in the output"; fi
}

for p in .env sub/.ENV conf/.env.local keys/server.pem keys/ID_RSA .ssh/config "$home/.ssh/id_ed25519" keys/copy; do
  expect_status 0 "unconfined: cat $p works" cat "$p"
  expect_status 1 "confined: cat $p is refused" "${S[@]}" cat "$p"
  no_secret "cat $p"
  expect_status 1 "confined: appending to $p is refused" "${S[@]}" sh -c "echo x >> '$p' || exit 1"
done
expect_status 0 "confined: env.md is readable" "${S[@]}" cat env.md
expect_output_has "how env files work" "env.md content came through"
expect_status 0 "confined: ordinary project writes work" "${S[@]}" sh -c 'echo hi > notes.txt && rm notes.txt'
expect_status 0 "confined: git status works" "${S[@]}" git status --porcelain
expect_status 0 "unconfined: git add works" sh -c 'echo n > n.txt && git add n.txt && git reset -q n.txt'
expect_status 128 "confined: git add is refused" "${S[@]}" git add n.txt
rm -f n.txt
expect_status 0 "unconfined: a hook could be written" sh -c 'echo x > .git/hooks/probe && rm .git/hooks/probe'
expect_status 1 "confined: .git/hooks/pre-commit cannot be created" "${S[@]}" sh -c 'echo evil > .git/hooks/pre-commit || exit 1'
[ ! -e .git/hooks/pre-commit ] && pass "no hook was left behind" || fail "a hook was created"
expect_status 1 "confined: renaming .env is refused" "${S[@]}" sh -c 'mv .env moved || exit 1'
expect_status 1 "confined: hard-linking .env is refused" "${S[@]}" sh -c 'ln .env linked || exit 1'
expect_status 1 "confined: a symlink to .env reads nothing" "${S[@]}" sh -c 'ln -s .env sym; cat sym; s=$?; rm -f sym; exit $s'
no_secret "symlink route"
expect_status 1 "confined: renaming the parent keeps the mask" "${S[@]}" sh -c 'mv conf c2 && { cat c2/.env.local; s=$?; mv c2 conf; exit $s; }'
no_secret "rename-the-parent route"
expect_status 0 "unconfined: another process's view reaches .env" sh -c "cat /proc/\$\$/root$proj/.env"
expect_status 1 "confined: the unmasked view of a process outside is refused" "${S[@]}" sh -c "cat /proc/\$PPID/root$proj/.env || exit 1"
no_secret "/proc/PID/root route"
expect_status 1 "confined: unmounting a mask is refused" "${S[@]}" sh -c 'umount .env 2>/dev/null || umount -l .env 2>/dev/null; cat .env || exit 1'
no_secret "umount route"
expect_status 0 "--self-test says what protection this machine gives" "$L" --self-test
expect_output_has "names created later are refused by the creation guard" "--self-test names the creation guard"
finish
