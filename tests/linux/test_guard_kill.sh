#!/usr/bin/env bash
# The command must not reach its creation guard with a signal (issue-18
# review, item 2). Killing the guard (kill -9 $PPID) used to end the run
# without end_run(): a setsid grandchild survived, unguarded and unreaped, and
# read a protected file created later; kill -STOP $PPID froze the launcher.
# The command's side is put in a nested Landlock domain scoped for signals:
# the guard, outside it, cannot be signalled; the command's own children can.
. "$SBX_TESTLIB"

proj=$_scratch/proj
home=$(mktemp -d /var/tmp/sbx-home.XXXXXX)
trap 'rm -rf "$home"' EXIT
mkdir -p "$proj" "$home"
export HOME=$home
cd "$proj" || exit 1
require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets --project "$proj" -- true
S=("$L" --sandbox --protect-secrets --project "$proj" --)

# The grandchild waits 2 s, then appends "alive" and the late secret to out.txt.
inner='setsid sh -c "exec 3>>$PWD/out.txt; sleep 2; echo alive >&3; cat $PWD/.env.late >&3" </dev/null >/dev/null 2>&1 & sleep 0.3; kill -9 $PPID'
# late WHAT: write .env.late, wait for the grandchild, report what it wrote.
late() {
  sleep 0.5
  echo "TOKEN=late-secret-$1" >.env.late
  sleep 3
}

# Control, no launcher: the parent (a throwaway sh) dies, the grandchild lives.
rm -f out.txt .env.late
sh -c 'sh -c "$0"' "$inner" >/dev/null 2>&1
late control
grep -q late-secret-control out.txt && pass "unconfined: the setsid grandchild read .env.late (the route works)" ||
  fail "the control did not work: $(cat out.txt 2>/dev/null)"
rm -f out.txt .env.late

"${S[@]}" sh -c "$inner" >"$_out" 2>"$_err"
echo "    launcher exit $?"
late guarded
if grep -q late-secret-guarded out.txt 2>/dev/null; then fail "guarded: a grandchild read .env.late after kill -9 \$PPID"
elif grep -q alive out.txt 2>/dev/null; then fail "guarded: a grandchild outlived the run"
else pass "guarded: nothing of the run wrote after it ended"; fi
left=$(pgrep -f "$proj/out.txt" || true)
if [ -n "$left" ]; then fail "processes of the run remain: $left"; kill -9 $left 2>/dev/null
else pass "no process of the run remains"; fi
rm -f out.txt .env.late

# Not a signal: the guard's own RLIMIT_CPU (prlimit needs only the same uid),
# then enough creating calls to use it up: the kernel kills the guard.
expect_status 0 "unconfined: prlimit lowers the parent's RLIMIT_CPU" \
  sh -c 'sh -c "prlimit --pid \$PPID --cpu=7:7 && grep \"Max cpu time\" /proc/\$PPID/limits"'
expect_output_has "7                    7" "the control changed the parent's limit"
if have python3; then
  rm -f out.txt .env.late
  burn='import os, time
t = time.time()
while time.time() - t < 25:
    try:
        os.close(os.open("x.txt", os.O_CREAT | os.O_WRONLY))
    except OSError:
        break'
  "${S[@]}" sh -c 'if prlimit --pid $PPID --cpu=1:1 2>/dev/null; then echo lowered >&2; else echo refused >&2; exit 0; fi
setsid sh -c "exec 3>>$PWD/out.txt; sleep 2; echo alive >&3; sleep 4; cat $PWD/.env.late >&3" </dev/null >/dev/null 2>&1 &
sleep 0.3; exec python3 -c "$0"' "$burn" >"$_out" 2>"$_err"
  echo "    launcher exit $?: $(head -1 "$_err")"
  grep -q refused "$_err" && pass "guarded: prlimit of the guard is refused" || fail "guarded: the guard's RLIMIT_CPU was lowered"
  sleep 1
  echo "TOKEN=late-secret-cpu" >.env.late
  sleep 7
  if grep -q late-secret-cpu out.txt 2>/dev/null; then fail "guarded: a grandchild read .env.late after the guard died of RLIMIT_CPU"
  elif grep -q alive out.txt 2>/dev/null; then fail "guarded: a grandchild outlived the run"
  else pass "guarded: nothing of the run wrote after it ended (RLIMIT_CPU)"; fi
  left=$(pgrep -f "$proj/out.txt" || true)
  [ -z "$left" ] || { fail "processes of the run remain: $left"; kill -9 $left 2>/dev/null; }
  rm -f out.txt .env.late x.txt
else
  skip "python3: no RLIMIT_CPU case"
fi

expect_status 0 "guarded: kill -9 \$PPID is refused" \
  timeout 20 "${S[@]}" sh -c 'if kill -9 $PPID 2>/dev/null; then exit 3; fi; echo refused'
expect_output_has refused "the guard survived kill -9"
expect_status 0 "guarded: kill -STOP \$PPID is refused and the run ends" \
  timeout 20 "${S[@]}" sh -c 'if kill -STOP $PPID 2>/dev/null; then exit 3; fi; echo refused'
# kill(-1): only once the guard is known out of reach (unconfined as root it
# would signal the whole machine).
expect_status 0 "guarded: kill -9 -1 reaches only the command's own processes" \
  timeout 20 "${S[@]}" sh -c 'kill -0 $PPID 2>/dev/null && exit 99; sleep 30 & kill -9 -1; wait; echo survived'
expect_output_has survived "the command itself and its guard survived kill -9 -1"
expect_status 0 "guarded: the command still signals its own children" \
  timeout 20 "${S[@]}" sh -c 'sleep 30 & kill -9 $! && wait $!; [ $? = 137 ]'
finish
