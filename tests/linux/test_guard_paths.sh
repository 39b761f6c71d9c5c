#!/usr/bin/env bash
# Code paths of the protected-path mask and the creation guard that a rule
# table cannot show, each with its control: a RENAME_EXCHANGE whose old name
# is protected, the host's death taking the guarded command with it,
# the mask's Landlock lock (no mount, even in a namespace of the command's
# own), the mask's scan of directories it cannot list (skipped when foreign,
# refused when the user's own), the guard never handing over one of its own
# /proc files (check_opened), and the guard acting only for a caller still
# waiting (NOTIF_ID_VALID). scripts/mutate.sh removes each of them.
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
# too. Where no mask is (the scan covers the project, the working directory
# and home; $x is none of them, in the writable /tmp) a protected name may
# exist; the exchange must not write into it, whichever side it is on. (In
# the working directory the mask would refuse it first, with EBUSY.)
x=$_scratch/exchange
mkdir -p "$x"
echo a >"$x/.env.swap"; echo b >"$x/plain"
expect_status 0 "unconfined: RENAME_EXCHANGE(.env.swap, plain) works" "$P/guard" exchange "$x/.env.swap" "$x/plain"
if [ "$(cat "$x/.env.swap")" = b ]; then pass "unconfined the contents were swapped"; else fail "no swap unconfined"; fi
"$P/guard" exchange "$x/.env.swap" "$x/plain" >/dev/null
expect_status 1 "guarded: RENAME_EXCHANGE with the protected name as the old one is refused" \
  "${G[@]}" "$P/guard" exchange "$x/.env.swap" "$x/plain"
expect_output_has "errno 13" "... with EACCES"
if [ "$(cat "$x/.env.swap")" = a ]; then pass "the protected name kept its contents"; else fail ".env.swap was replaced"; fi
expect_status 1 "guarded: RENAME_EXCHANGE with the protected name as the new one is refused" \
  "${G[@]}" "$P/guard" exchange "$x/plain" "$x/.env.swap"
expect_output_has "errno 13" "... with EACCES"
if [ "$(cat "$x/.env.swap")" = a ]; then pass "the protected name kept its contents"; else fail ".env.swap was replaced"; fi
rm -rf "$x"

# The host's death (the launcher, SIGKILLed) takes the guarded command with
# it: the supervisor that serves the guard ends the tree. (The supervisor's
# own death, PR_SET_PDEATHSIG in the command: test_supervised's sup_death.)
# Control: without the sandbox an orphan lives on.
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
if grep -q survived "$_scratch/guarded"; then fail "the guarded command outlived its launcher"
else pass "the guarded command died with its launcher (no 'survived')"; fi

# The unmasked view through /proc/PID/root of a process outside (same user)
# stays out of reach: the mask's user namespace (no capability over the
# outsider's) and every Landlock domain (the mask's lock, the guard's signal
# scope, --sandbox's own) each refuse it.
sleep 30 &
outsider=$!
expect_status 0 "unconfined: /proc/OUTSIDER/root shows the secret" cat "/proc/$outsider/root$proj/.env"
expect_output_has "$SECRET" "... the secret itself"
expect_status 1 "guarded: /proc/OUTSIDER/root of an outside process is refused" \
  "${G[@]}" cat "/proc/$outsider/root$proj/.env"
if grep -q "$SECRET" "$_out"; then fail "the secret was read through /proc/PID/root"; else
  pass "the secret stayed hidden"; fi
kill "$outsider" 2>/dev/null; wait "$outsider" 2>/dev/null

# The mask's Landlock domain refuses every mount change, in any namespace the
# command makes: in a user+mount namespace of its own the command would hold
# CAP_SYS_ADMIN. (The kernel's locked mounts already keep it from unmounting,
# moving or overlaying a mask there; the lock refuses the mount itself.)
# --no-network: no file-system domain of --sandbox's stands in for it, and
# the guard's own domain scopes signals only.
mkdir -p "$_scratch/mnt"
expect_status 0 "unconfined: a tmpfs mounted in a new user+mount namespace" "$P/esc_ns" unshare "$_scratch/mnt"
expect_status 1 "guarded --no-network: no mount in a user+mount namespace of the command's own" \
  "$L" --no-network --protect-secrets --project "$proj" -- "$P/esc_ns" unshare "$_scratch/mnt"
expect_output_has "mount --make-rprivate: refused EPERM" "... the first mount is refused (EPERM)"

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

# check_opened: the guard opens with its own credentials, where /proc/self and
# a command's symlink into /proc lead to the guard, so what it opened must
# never be one of its own /proc files or namespaces: through /proc/GUARD/mem
# the command would rewrite the guard, through its fdinfo, environ and
# namespaces read what only the guard may. Under --no-network no Landlock
# file-system domain stands in the way; under --sandbox reads are open too.
# Control: unconfined, the probe opens the same files of its parent.
files=("mem rw" "environ ro" "fdinfo/0 ro" "ns/mnt ro")
for f in "${files[@]}"; do
  read -r name acc <<<"$f"
  expect_status 0 "unconfined: O_CREAT|$acc open of the parent's /proc/PPID/$name" "$P/guard" parent-proc "$name" "$acc"
done
for m in --no-network --sandbox; do
  for f in "${files[@]}"; do
    read -r name acc <<<"$f"
    expect_status 1 "guarded $m: O_CREAT|$acc of the guard's own /proc/GUARD/$name is refused" \
      "$L" $m --protect-secrets --project "$proj" -- "$P/guard" parent-proc "$name" "$acc"
    # Root's confined /proc is read-only: a write open stops there first.
    if [ "$m" = --sandbox ] && [ "$acc" = rw ] && [ "$(id -u)" = 0 ]; then
      expect_output_has "errno 30" "... with EROFS (root's /proc is read-only)"
    else
      expect_output_has "errno 13" "... with EACCES"
    fi
  done
done
rm -f "$other"/.env* 2>/dev/null

# NOTIF_ID_VALID: the guard reads a call's paths from the caller's memory and
# acts only if the caller is still waiting for the answer after that. A
# caller that died meanwhile leaves its number free, and a process that
# reuses it would hand the guard its own memory, working directory and umask.
# Reuse cannot be forced here; the dead caller is: a probe holds the guard
# (ptrace, from outside) right after it read the paths of a symlink(2), the
# caller is killed, and the guard is let go. Nothing may be made. Control:
# held and let go with the caller alive, the link is made.
# child_of PID: the first process whose parent is PID.
child_of() {
  local s st f
  for s in /proc/[0-9]*/stat; do
    st=$(cat "$s" 2>/dev/null) || continue
    read -ra f <<<"${st##*) }"
    [ "${f[1]}" = "$1" ] && { s=${s#/proc/}; echo "${s%/stat}"; return 0; }
  done
  return 1
}
# held_symlink KILL NAME: symlink(2) of $idv/NAME under the guard, the guard
# held after its reads; with KILL=1 the caller is killed meanwhile. Prints
# the launcher's exit status.
held_symlink() {
  local kill=$1 name=$2 lpid spid cpid line st hpid hr hw got=0
  rm -f "$idv/go"
  (cd "$idv" && exec "$L" --no-network --protect-secrets --project "$proj" -- sh -c \
    'until [ -e go ]; do sleep 0.02; done; exec "$0" 64 symlink s:target "s:$1"' "$P/rawsys" "$idv/$name") \
    >"$_scratch/held.out" 2>&1 &
  lpid=$!
  # The guard is the run's supervisor, the launcher's child; the command is
  # the supervisor's child (docs/api.md, "Supervised runs"). Hold the
  # supervisor once the command has started.
  spid=
  for _ in $(seq 500); do
    spid=$(child_of "$lpid") && child_of "$spid" >/dev/null && break
    spid=; sleep 0.02
  done
  [ -n "$spid" ] || { echo "syshold: no supervisor under the launcher" >&2; kill -9 "$lpid" 2>/dev/null; echo none; return; }
  coproc HOLD { exec "$P/syshold" "$spid" process_vm_readv; }
  # Bash drops HOLD and HOLD_PID once the probe has ended: copies of them.
  hpid=$HOLD_PID
  exec {hr}<&"${HOLD[0]}" {hw}>&"${HOLD[1]}"
  read -r -t 60 line <&"$hr" || line="no answer"
  if [ "$line" != attached ]; then
    echo "syshold: $line" >&2; kill -9 "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null; echo none; return
  fi
  : >"$idv/go"
  read -r -t 60 line <&"$hr" || line="no answer"
  case $line in held*) ;; *)
    echo "syshold: $line" >&2; kill -9 "$lpid" 2>/dev/null; wait "$lpid" 2>/dev/null; echo none; return ;;
  esac
  if [ "$kill" = 1 ]; then
    cpid=$(child_of "$spid")
    kill -9 "$cpid"
    # Dead (a zombie: its parent, the guard, is held): the call is gone.
    for _ in $(seq 500); do
      st=$(cat "/proc/$cpid/stat" 2>/dev/null) || break
      st=${st##*) }; [ "${st%% *}" = Z ] && break; sleep 0.02
    done
  fi
  echo go >&"$hw"
  wait "$lpid" || got=$?
  wait "$hpid" 2>/dev/null || true
  exec {hr}<&- {hw}>&-
  echo "$got"
}
idv=$_scratch/idv
mkdir -p "$idv"
if ! have sys_ptrace; then
  skip "sys_ptrace: holding the guard (not dumpable) takes CAP_SYS_PTRACE; the root run checks NOTIF_ID_VALID"
else
  st=$(held_symlink 0 made)
  if [ "$st" = 0 ] && [ -L "$idv/made" ]; then
    pass "control: the guard held after its reads and let go makes the link (exit $st)"
  else
    fail "control: exit $st, the link is $([ -L "$idv/made" ] || echo "not ")there: $(head -3 "$_scratch/held.out")"
  fi
  st=$(held_symlink 1 victim)
  if [ "$st" = 137 ]; then pass "the caller was killed while the guard was held (exit $st)"
  else fail "the caller's end: exit $st, wanted 137 (SIGKILL)"; fi
  if [ -L "$idv/victim" ]; then fail "the guard made the link for a caller that was gone"
  else pass "nothing was made for a caller that was gone"; fi
fi
finish
