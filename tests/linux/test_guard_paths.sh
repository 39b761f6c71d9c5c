#!/usr/bin/env bash
# Code paths of the protected-path mask and the creation guard that a rule
# table cannot show, each with its control: a RENAME_EXCHANGE whose old name
# is protected, the guard's death taking the command with it (PDEATHSIG),
# the mask's Landlock lock against /proc/PID/root of an outside process, and
# the mask's scan of directories it cannot list (skipped when foreign,
# refused when the user's own). scripts/mutate.sh removes each of them.
. "$SBX_TESTLIB"
require guard "--protect-secrets" "$L" --protect-secrets -- true
SECRET=sbx-guard-paths-5a1e

proj=$_scratch/proj other=$_scratch/other
mkdir -p "$proj" "$other"
echo "$SECRET" >"$proj/.env"
cd "$other" || exit 1
export HOME=$_home
G=("$L" --protect-secrets --project "$proj" --)

# RENAME_EXCHANGE gives both names new contents, so the old name is checked
# too. Outside the project (no mask there) a protected name may exist; the
# exchange must not write into it, whichever side it is on.
echo a >.env.swap; echo b >plain
expect_status 0 "unconfined: RENAME_EXCHANGE(.env.swap, plain) works" "$P/guard" exchange .env.swap plain
[ "$(cat .env.swap)" = b ] && pass "unconfined the contents were swapped" || fail "no swap unconfined"
"$P/guard" exchange .env.swap plain >/dev/null
expect_status 1 "guarded: RENAME_EXCHANGE with the protected name as the old one is refused" \
  "${G[@]}" "$P/guard" exchange .env.swap plain
expect_output_has "errno 13" "... with EACCES"
[ "$(cat .env.swap)" = a ] && pass "the protected name kept its contents" || fail ".env.swap was replaced"
expect_status 1 "guarded: RENAME_EXCHANGE with the protected name as the new one is refused" \
  "${G[@]}" "$P/guard" exchange plain .env.swap
rm -f .env.swap plain

# The guard's death takes the command with it (PR_SET_PDEATHSIG), so nothing
# runs on unguarded. Control: without the sandbox an orphan lives on.
sh -c 'sh -c "sleep 1; echo survived" & kill -9 $$' >"$_scratch/ctl" 2>&1 || true
sleep 1.5
grep -q survived "$_scratch/ctl" && pass "control: an orphaned child lives on after its parent's SIGKILL" \
  || fail "control: the orphan did not survive unconfined"
# The command itself cannot signal its guard (Landlock signal scope, issue
# 18): killed from outside, here.
"${G[@]}" sh -c 'sleep 1; echo survived' >"$_scratch/guarded" 2>&1 &
gpid=$!
sleep 0.3
kill -9 "$gpid"
wait "$gpid" 2>/dev/null
sleep 1.5
if grep -q survived "$_scratch/guarded"; then fail "the command outlived its guard"
else pass "the command died with its guard (no 'survived')"; fi

# The mask's Landlock domain forbids reaching the unmasked view through
# /proc/PID/root of a process outside (same user, so ptrace-read rules alone
# would allow it). Protect-only mode: the mask's domain is the only one.
sleep 30 &
outsider=$!
expect_status 0 "unconfined: /proc/OUTSIDER/root shows the secret" cat "/proc/$outsider/root$proj/.env"
expect_output_has "$SECRET" "... the secret itself"
expect_status 1 "guarded: /proc/OUTSIDER/root of an outside process is refused" \
  "${G[@]}" cat "/proc/$outsider/root$proj/.env"
if grep -q "$SECRET" "$_out"; then fail "the secret was read through /proc/PID/root"; else
  pass "the secret stayed hidden"; fi
kill "$outsider" 2>/dev/null; wait "$outsider" 2>/dev/null

# A directory the scan cannot list: the user's own must be refused (the
# command could chmod it open and read what is inside unmasked); a foreign
# one (root's, mode 000) stays closed to the command too and is skipped.
mkdir -p "$proj/own/deep"; echo "$SECRET" >"$proj/own/deep/.env"; chmod 000 "$proj/own"
if have dac_enforced; then
  expect_status 126 "an own unlistable directory in the project fails closed" "${G[@]}" true
  expect_output_has "cannot scan" "... naming the scan"
else
  skip "dac_enforced: root lists a mode-000 directory; the nobody run checks the refusal"
fi
chmod 755 "$proj/own"; rm -rf "$proj/own"
if have root && have setpriv; then
  pp=$_scratch/pp
  mkdir -p "$pp/foreign" "$_home/nhome"
  echo x >"$pp/foreign/.env"; chmod 000 "$pp/foreign"
  chown 65534 "$pp" "$_home/nhome"; chmod 755 "$_scratch"
  cp "$L" "$_scratch/launcher"; chmod 755 "$_scratch/launcher"
  expect_status 0 "a foreign unlistable directory in the project is skipped by the scan (as nobody)" \
    setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$_home/nhome" \
      "$_scratch/launcher" --protect-secrets --project "$pp" -- true
  chmod 755 "$pp/foreign"
else
  skip "root: making a directory foreign to the user needs root (the root run checks it)"
fi
finish
