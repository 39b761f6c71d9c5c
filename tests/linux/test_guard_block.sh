#!/usr/bin/env bash
# A guarded open that waits in the kernel must never stall the creation guard
# (review of issue 19, F3/F6). The guard performs O_CREAT opens itself; one of
# a file the command holds a write lease on waited out the lease-break time
# (45 s) inside the supervisor's loop, so `--timeout 2` ended after ~92 s and
# the command outlived a SIGKILLed launcher by ~88 s; a FIFO writer opened in
# the background held every other creation of the run until a reader came,
# which the command could then never start. Each case is run unconfined too:
# the guarded run must give the kernel's answers, only no later.
. "$SBX_TESTLIB"

proj=$_scratch/proj
mkdir -p "$proj"
export HOME=$_home
cd "$proj" || exit 1
require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets --project "$proj" -- true
S=("$L" --sandbox --protect-secrets --project "$proj")

now() { date +%s%N; }
# since T0: milliseconds from T0 to now
since() { echo $((($(now) - $1) / 1000000)); }

# ---- F6: the FIFO writer started first, a file made, then the reader ----
fifo='rm -f p log; mkfifo p; (echo data > p) & sleep 0.3; echo start > log; cat < p; wait; cat log; echo finished'
sh -c "$fifo" >"$_scratch/u.out" 2>&1
echo "    unconfined: $(tr '\n' ' ' <"$_scratch/u.out")"
t0=$(now); got=0
"${S[@]}" --timeout 20 -- sh -c "$fifo" >"$_scratch/c.out" 2>&1 || got=$?
ms=$(since "$t0")
if [ "$got" = 0 ] && cmp -s "$_scratch/u.out" "$_scratch/c.out" && [ "$ms" -lt 10000 ]; then
  pass "FIFO writer, a file made, then the reader: same output as unconfined in $ms ms"
else
  fail "FIFO writer, a file made, then the reader: exit $got after $ms ms, output: $(tr '\n' ' ' <"$_scratch/c.out")"
fi

if have python3; then
  # A reader opened with O_CREAT waits for its writer, as the kernel's does:
  # opened at once, it would read end-of-file before the writer came.
  rd='rm -f p log; mkfifo p; python3 -c "import os; fd = os.open(\"p\", os.O_RDONLY | os.O_CREAT); print(\"read\", os.read(fd, 100))" & sleep 0.5; echo start > log; echo data > p; wait; echo finished'
  sh -c "$rd" >"$_scratch/u.out" 2>&1
  echo "    unconfined: $(tr '\n' ' ' <"$_scratch/u.out")"
  got=0
  "${S[@]}" --timeout 20 -- sh -c "$rd" >"$_scratch/c.out" 2>&1 || got=$?
  if [ "$got" = 0 ] && cmp -s "$_scratch/u.out" "$_scratch/c.out"; then
    pass "a FIFO reader opened with O_CREAT waits for its writer: $(head -1 "$_scratch/c.out")"
  else
    fail "a FIFO reader opened with O_CREAT: exit $got, output: $(tr '\n' ' ' <"$_scratch/c.out")"
  fi

  # O_NONBLOCK keeps its meaning where the command asks for it, and never
  # stays on a descriptor where it did not.
  nb='import errno, os
for f in ("p", "f"):
    try: os.unlink(f)
    except OSError: pass
os.mkfifo("p")
try:
    os.open("p", os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK); print("writer opened")
except OSError as e:
    print("writer", errno.errorcode[e.errno])
r = os.open("p", os.O_RDONLY | os.O_CREAT | os.O_NONBLOCK); print("reader blocking", os.get_blocking(r))
w = os.open("p", os.O_WRONLY | os.O_CREAT); print("writer blocking", os.get_blocking(w))
f = os.open("f", os.O_WRONLY | os.O_CREAT); print("file blocking", os.get_blocking(f))
f = os.open("f", os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK); print("file asked", os.get_blocking(f))'
  python3 -c "$nb" >"$_scratch/u.out" 2>&1
  got=0
  "${S[@]}" --timeout 20 -- python3 -c "$nb" >"$_scratch/c.out" 2>&1 || got=$?
  if [ "$got" = 0 ] && cmp -s "$_scratch/u.out" "$_scratch/c.out" && grep -q "writer ENXIO" "$_scratch/c.out"; then
    pass "O_NONBLOCK as the kernel: $(tr '\n' ';' <"$_scratch/c.out")"
  else
    fail "O_NONBLOCK: exit $got, unconfined '$(tr '\n' ';' <"$_scratch/u.out")', guarded '$(tr '\n' ';' <"$_scratch/c.out")'"
  fi
else
  skip "python3: the O_CREAT reader, O_NONBLOCK and lease cases"
fi

# A writer whose caller is killed while it waits: the kernel never opened
# it, so a later reader waits (and is timed out); a guard that finished
# the open anyway would hand that reader end-of-file at once.
# The reader starts 0.5 s after: a guard that never gives the open up is
# caught all the same, and how soon it does is the next check's (right
# after the kill, it was a race with the supervisor's wake on a loaded run).
ko='rm -f p; mkfifo p; timeout -s KILL 1 sh -c "echo x > p"; sleep 0.5; timeout 2 cat p; echo "reader $?"'
sh -c "$ko" >"$_scratch/u.out" 2>&1
got=0
"${S[@]}" --timeout 20 -- sh -c "$ko" >"$_scratch/c.out" 2>&1 || got=$?
if [ "$got" = 0 ] && cmp -s "$_scratch/u.out" "$_scratch/c.out" && grep -q "reader 124" "$_scratch/c.out"; then
  pass "a killed FIFO writer never opened, as unconfined ($(tail -1 "$_scratch/c.out"))"
else
  fail "a killed FIFO writer: exit $got, unconfined '$(tr '\n' ';' <"$_scratch/u.out")', guarded '$(tr '\n' ';' <"$_scratch/c.out")'"
fi

# The same, timed closer: a reader opened 10 ms after the killed writer's
# parent has reaped it, without blocking. Unconfined there is no writer:
# end of file. A guard worker still in the writer's open would count as one
# (EAGAIN: a writer with nothing written). Before, the worker was killed at
# the supervisor's next tick (up to 50 ms); now the caller's pidfd wakes it
# at once. The writer is killed 320 ms after its open, off the tick's 50 ms
# beat. Twenty rounds, up to six late wakes tolerated (a loaded machine):
# the tick alone gives a phantom in nearly every round.
if have python3; then
  kw='import errno, os, signal, time
try: os.unlink("q")
except OSError: pass
os.mkfifo("q")
seen = []
for _ in range(20):
    pid = os.fork()
    if pid == 0:
        os.open("q", os.O_WRONLY | os.O_CREAT)
        os._exit(0)
    time.sleep(0.32)
    os.kill(pid, signal.SIGKILL); os.waitpid(pid, 0)
    time.sleep(0.01)
    r = os.open("q", os.O_RDONLY | os.O_NONBLOCK)
    try: seen.append("eof" if os.read(r, 1) == b"" else "data")
    except BlockingIOError: seen.append("phantom")
    os.close(r)
print(" ".join(seen), "phantoms", seen.count("phantom"))'
  u=$(python3 -c "$kw" 2>&1); got=0
  c=$("${S[@]}" --timeout 30 -- python3 -c "$kw" 2>&1) || got=$?
  case "$u|$got|$c" in
    *"phantoms 0|0|"*"phantoms "[0-6]) pass "a killed FIFO writer's worker is gone when the reader comes 10 ms later ($c)" ;;
    *) fail "a killed FIFO writer's worker outlived it: unconfined '$u', guarded exit $got '$c'" ;;
  esac
fi

# A writer that never finds a reader ends with the run's timeout.
t0=$(now); got=0
"${S[@]}" --timeout 2 -- sh -c 'rm -f p; mkfifo p; echo x > p' >/dev/null 2>&1 || got=$?
ms=$(since "$t0")
[ "$ms" -lt 6000 ] && pass "a FIFO writer without a reader ends at --timeout 2 ($ms ms, exit $got)" ||
  fail "a FIFO writer without a reader outlived --timeout 2: $ms ms"

# ---- F5: more guarded opens waiting at once than the guard has workers ----
# 70 writers open their FIFO with O_CREAT (guarded) before any reader: each
# waits, as the kernel's open does. Past the guard's 64 workers the 65th got
# EAGAIN, which a blocking open never returns; now it waits in the kernel
# until a worker frees. The readers (unguarded, O_NONBLOCK) come after 1.5 s.
if have python3; then
  cat >"$_scratch/fifos.py" <<'EOF'
import os, select, sys, time
n = int(sys.argv[1])
for i in range(n):
    try: os.unlink("q%d" % i)
    except OSError: pass
    os.mkfifo("q%d" % i)
kids = []
for i in range(n):
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open("q%d" % i, os.O_WRONLY | os.O_CREAT, 0o644)
            os.write(fd, b"x")
            os._exit(0)
        except OSError as e:
            os._exit(100 + e.errno % 100)
    kids.append(pid)
time.sleep(1.5)
fds = [os.open("q%d" % i, os.O_RDONLY | os.O_NONBLOCK) for i in range(n)]
got, left, end = 0, set(fds), time.time() + 20
while left and time.time() < end:
    r, _, _ = select.select(list(left), [], [], 0.5)
    for fd in r:
        if os.read(fd, 1) == b"x":
            got += 1
            left.discard(fd)
bad = {}
for pid in kids:
    if left:
        try: os.kill(pid, 9)
        except OSError: pass
    c = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if c:
        bad[c] = bad.get(c, 0) + 1
print("read=%d failed=%s" % (got, sorted(bad.items())))
EOF
  expect_status 0 "unconfined: 70 FIFO writers opened before their readers" python3 "$_scratch/fifos.py" 70
  expect_output_has "read=70 failed=[]" "  ...every writer waited, then wrote"
  expect_status 0 "70 guarded FIFO writers waiting at once (64 workers)" \
    "${S[@]}" --timeout 60 -- python3 "$_scratch/fifos.py" 70
  expect_output_has "read=70 failed=[]" "  ...every writer waited, then wrote (no EAGAIN)"
  # Review r75 F1: the callers' pidfds are a speed-up only; under a low
  # descriptor limit they took the numbers later workers needed, and
  # guarded FIFO opens failed EMFILE (124 here) where the kernel's waited.
  expect_status 0 "unconfined: 64 FIFO writers under a limit of 100 descriptors" \
    sh -c 'ulimit -n 100 && ulimit -Hn 100 && exec python3 "$0" 64' "$_scratch/fifos.py"
  expect_output_has "read=64 failed=[]" "  ...every writer waited, then wrote"
  expect_status 0 "64 guarded FIFO writers under a limit of 100 descriptors" \
    sh -c 'ulimit -n 100 && ulimit -Hn 100 && exec "$@"' sh "${S[@]}" --timeout 60 -- python3 "$_scratch/fifos.py" 64
  expect_output_has "read=64 failed=[]" "  ...every writer waited, then wrote (no EMFILE)"
fi

# ---- r36 F1: a refused call while every worker is busy ----
# 64 FIFO writers hold the guard's 64 workers; a thread then calls
# socket(AF_INET) and is sent a signal whose handler has no SA_RESTART. The
# loop took no call while the workers were busy, so the socket call waited
# unreceived and the signal returned it EINTR: the thread lived on, the run
# exited 1 with no record. Now calls are received and kept (a backlog): the
# socket call dies of SIGSYS and is recorded.
if have probes && [ -x "$P/sigsys_fate" ]; then
  expect_status 1 "unconfined: with 64 FIFO writers waiting, the interrupted socket call is made" \
    "$P/sigsys_fate" busy 64
  expect_output_has "errno 0, the process lives" "  ...the socket was made"
  # busy_case N TIMEOUT NAME [ENDED]: N writers (the call made once ENDED of
  # them have ended), the interrupted socket call dies of SIGSYS and is the
  # run's one record.
  busy_case() {
    expect_signal SYS "$3: the interrupted socket call still dies of SIGSYS" \
      "${S[@]}" --timeout "$2" --outcome-fd 3 -- "$P/sigsys_fate" busy "$1" ${4:-} 3>"$_scratch/busy$1.json"
    if /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
a={(r["kind"],r["action"]):r["count"] for r in d["records"]}
sys.exit(0 if a=={("socket","SIGSYS"):1} else 1)' "$_scratch/busy$1.json" 2>/dev/null; then
      pass "  ...and is recorded socket SIGSYS"
    else
      fail "  ...records: $(cat "$_scratch/busy$1.json" 2>/dev/null)"
    fi
  }
  busy_case 64 60 "64 guard workers busy"
  # Past the backlog too (64 workers + 1,024 kept + 12 answered EAGAIN):
  # the loop stopped receiving there, and the same call came back EINTR,
  # unrecorded (review r38 F1). It never stops receiving now. The 12
  # writers answered EAGAIN past it end first: the call is made after that,
  # not after a pause a loaded runner can outlast (CI of 2 December).
  busy_case 1100 90 "1,100 FIFO writers waiting" 12
  # Review r39 F4: with the backlog full, every further open that needs a
  # worker made the supervisor ask the kernel about all 1,024 waiting calls
  # (purging the dead ones): 200 such opens in a row took 11.6-20.4 s here,
  # the command's other calls waiting behind. A purge that frees nothing
  # now pauses the next for 250 ms: the same 200 take about 0.1 s.
  out=$("${S[@]}" --timeout 120 -- "$P/sigsys_fate" busy-past 1088 200 2>&1) && got=0 || got=$?
  ms=$(printf '%s\n' "$out" | sed -n 's/.* EAGAIN in \([0-9]*\) ms$/\1/p')
  if [ "$got" = 0 ] && [ -n "$ms" ] && [ "$ms" -lt 3000 ]; then
    pass "200 opens past a full backlog: $out"
  else
    fail "200 opens past a full backlog: exit $got, $out (wanted all EAGAIN within 3 s)"
  fi
  # Review r35 F3: threads asleep in their SIGSYS handler each hold one of
  # the supervisor's descriptors; under `ulimit -n 40` the guard then could
  # not open what it checks a new name with, answered EACCES and recorded
  # each of 40 plain names in the project as a protected one (33 threads
  # and more here). Now such a creation fails with the shortage (EMFILE),
  # recorded as nothing.
  expect_status 0 "unconfined: 40 names made while 40 threads call socket()" \
    "$P/sigsys_fate" hog-create 40
  # Review r40 F2: the same class without a shortage. The command makes an
  # ancestor of its working directory mode 000: the kernel still makes names
  # there (the directory is held), but the guard reopens it by its path,
  # could not, and recorded each new name as a protected one. It still
  # refuses (it cannot check the place), now recorded as nothing.
  mkdir -p "$proj/anc/a/b"
  anc="cd '$proj/anc/a/b' && chmod 000 '$proj/anc/a'; echo hi > f-\$0; r=\$?; chmod 755 '$proj/anc/a'; exit \$r"
  expect_status 0 "unconfined: a name made below an ancestor made mode 000" sh -c "$anc" ctl
  "${S[@]}" --outcome-fd 3 -- sh -c "$anc" g 3>"$_scratch/anc.json" >/dev/null 2>&1
  if /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(1 if any(r["kind"] == "protected_name" for r in d["records"]) else 0)' "$_scratch/anc.json"; then
    pass "  ...guarded: no protected name recorded for it"
  else
    fail "  ...guarded: recorded as a protected name: $(head -c 400 "$_scratch/anc.json")"
  fi
  for n in 40 70; do
    out=$(timeout 120 sh -c 'ulimit -n 40 && exec "$@"' - "${S[@]}" --outcome-fd 3 -- \
      "$P/sigsys_fate" hog-create "$n" 3>"$_scratch/hc$n.json" 2>&1) && got=0 || got=$?
    if [ "$got" = 0 ] && /usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
sys.exit(1 if any(r["kind"] == "protected_name" for r in d["records"]) else 0)' "$_scratch/hc$n.json"; then
      pass "$n threads asleep in their handler, ulimit -n 40: no name refused or recorded as protected ($out)"
    else
      fail "$n threads asleep, ulimit -n 40: exit $got, $out, records: $(head -c 600 "$_scratch/hc$n.json")"
    fi
  done
else
  fail "probe sigsys_fate is not built"
fi

# ---- F3: leases ----
if have python3; then
  cat >"$_scratch/lease.py" <<'EOF'
# lease.py hold|release: take a write lease on `leased`, then a child opens it
# with O_CREAT (guarded). hold: SIGIO and SIGTERM ignored, the lease kept
# until the kernel's lease-break time; release: let go when asked (SIGIO).
import fcntl, os, signal, sys, time
F_SETLEASE = 1024
mode = sys.argv[1]
try: os.unlink("leased")
except OSError: pass
fd = os.open("leased", os.O_WRONLY | os.O_CREAT, 0o644)
def release(*a):
    # SIGIO can come twice (1 run in ~40 under load, unconfined too): the
    # second F_UNLCK finds no lease and fails EAGAIN, which is no error here.
    try: fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)
    except BlockingIOError: pass
if mode == "release":
    signal.signal(signal.SIGIO, release)
else:
    signal.signal(signal.SIGIO, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
fcntl.fcntl(fd, F_SETLEASE, fcntl.F_WRLCK)
print("lease taken", flush=True)
pid = os.fork()
if pid == 0:
    os.open("leased", os.O_WRONLY | os.O_CREAT)
    print("opened", flush=True)
    os._exit(0)
if mode == "release":
    os.waitpid(pid, 0)
    print("done", flush=True)
else:
    time.sleep(120)
EOF
  # Both runs are held to the same fixed text (the control, unconfined, shows
  # the route works here); comparing one run's output with the other's made
  # a CI failure whose control output was never shown.
  printf 'lease taken\nopened\ndone\n' >"$_scratch/want.out"
  python3 "$_scratch/lease.py" release >"$_scratch/u.out" 2>&1
  if ! cmp -s "$_scratch/want.out" "$_scratch/u.out"; then
    fail "the control (unconfined) did not take and release its lease: $(tr '\n' ';' <"$_scratch/u.out")"
  fi
  t0=$(now); got=0
  "${S[@]}" --timeout 20 -- python3 "$_scratch/lease.py" release >"$_scratch/c.out" 2>&1 || got=$?
  ms=$(since "$t0")
  if [ "$got" = 0 ] && cmp -s "$_scratch/want.out" "$_scratch/c.out" && [ "$ms" -lt 20000 ]; then
    pass "a lease broken on request lets the guarded open through, as unconfined ($ms ms)"
  else
    fail "a lease broken on request: exit $got after $ms ms, output $(tr '\n' ';' <"$_scratch/c.out"), unconfined $(tr '\n' ';' <"$_scratch/u.out")"
  fi

  # The holder keeps its lease: the timeout ends the run within its grace
  # (2 s, for the holder ignores SIGTERM), never the 45 s lease break.
  # 6 s, not 2: python must have taken its lease before the timeout for the
  # check to mean anything, and says so (on a machine loaded with builds and
  # tests its start took more than 3 s).
  t0=$(now); got=0
  "${S[@]}" --timeout 6 --outcome-fd 3 -- python3 "$_scratch/lease.py" hold \
    >"$_scratch/c.out" 2>&1 3>"$_scratch/t.json" || got=$?
  ms=$(since "$t0")
  if ! grep -q "lease taken" "$_scratch/c.out"; then
    fail "a lease held against the guard: the holder had not taken its lease at the timeout ($ms ms): $(cat "$_scratch/c.out")"
  elif [ "$ms" -lt 14000 ] && grep -q '"timed_out":true' "$_scratch/t.json"; then
    pass "a lease held against the guard: --timeout 6 ends the run in $ms ms (exit $got)"
  else
    fail "a lease held against the guard: --timeout 6 ended the run after $ms ms (exit $got; $(grep -o '"timed_out":[a-z]*' "$_scratch/t.json"))"
  fi

  # The host dies (SIGKILL to the launcher) while the guard's open waits:
  # nothing of the run is left within a few seconds.
  cp "$_scratch/lease.py" "$_scratch/leasehost.py"
  "${S[@]}" -- python3 "$_scratch/leasehost.py" hold >"$_scratch/h.out" 2>&1 &
  lp=$!
  # Killed once the child's open waits on the lease (the holder has said
  # so, and its SIGTERM is ignored by then).
  for _ in $(seq 200); do grep -q "lease taken" "$_scratch/h.out" && break; sleep 0.1; done
  sleep 1
  grep -q "lease taken" "$_scratch/h.out" || fail "the lease holder never started: $(cat "$_scratch/h.out")"
  kill -9 "$lp"; wait "$lp" 2>/dev/null
  t0=$(now)
  while pgrep -f "$_scratch/leasehost.py" >/dev/null && [ "$(since "$t0")" -lt 30000 ]; do sleep 0.2; done
  ms=$(since "$t0")
  left=$(pgrep -f "$_scratch/leasehost.py" || true)
  if [ -z "$left" ] && [ "$ms" -lt 8000 ]; then
    pass "the launcher SIGKILLed during a lease break: nothing of the run left after $ms ms"
  else
    fail "the launcher SIGKILLed during a lease break: the command lived $ms ms on${left:+ (still: $left)}"
    [ -n "$left" ] && kill -9 $left 2>/dev/null
  fi
fi
# ---- r58 F4: a worker that dies without answering ----
# A guard worker whose own start fails (its parent-death prctl refused,
# here by root's strace on the supervisor: only new workers are traced, and
# each one's first prctl is that one) exited 126 and left the command's FIFO
# open unanswered until --timeout. Its call is now answered EAGAIN at once.
if ! have root; then
  skip "root: a worker that dies unanswering is aimed at by root's strace on the supervisor"
elif ! have strace; then
  skip "strace: a worker that dies unanswering is aimed at by strace (apt-get install strace)"
else
  wf='rm -f wp wout; mkfifo wp; sleep 1; echo x > wp && echo opened > wout || echo refused > wout'
  t0=$(now)
  "${S[@]}" --timeout 8 -- sh -c "$wf" >"$_scratch/w.out" 2>&1 &
  lp=$!
  sp=
  for _ in $(seq 100); do
    sp=$(pgrep -P "$lp" | head -1)
    [ -n "$sp" ] && pgrep -P "$sp" >/dev/null && break
    sleep 0.05
  done
  strace -f -p "$sp" -o "$_scratch/w.log" -e trace=prctl -e inject=prctl:error=EINVAL:when=1 2>/dev/null &
  stp=$!
  wait "$lp"
  ms=$(since "$t0")
  kill "$stp" 2>/dev/null; wait "$stp" 2>/dev/null
  if ! grep -q 'PR_SET_PDEATHSIG.*INJECTED' "$_scratch/w.log"; then
    fail "a worker's failed start: the injection missed the worker: $(head -c 300 "$_scratch/w.log")"
  elif [ "$(cat wout 2>/dev/null)" = refused ] && [ "$ms" -lt 6000 ]; then
    pass "a worker that died unanswering: the FIFO open was answered, refused, in $ms ms ($(grep -o 'Resource temporarily unavailable' "$_scratch/w.out" | head -1))"
  else
    fail "a worker that died unanswering: after $ms ms the open got '$(cat wout 2>/dev/null)'; $(head -c 300 "$_scratch/w.out")"
  fi
  rm -f wp wout
fi
# ---- r61 F1: a worker killed from outside while it answers ----
# A process of the same user outside the run SIGKILLs every guard worker
# every 20 ms while the command opens FIFOs whose readers come 0-4 ms later.
# A worker answered with ADDFD|SEND, which marks the call answered before
# the caller has the descriptor: killed in between, the open returned 0
# (the command's stdin) with nothing installed (5 and 7 of 300 opens with
# a 10 ms killer, 2 of 250 with this one). Each open
# must now give the FIFO or fail (EAGAIN when its worker was killed).
if have python3; then
  cat >"$_scratch/fifoopens.py" <<'EOF2'
import os, sys, time, errno, stat, random
n, bad, kinds = int(sys.argv[1]), [], {}
for i in range(n):
    try: os.unlink("rq")
    except OSError: pass
    os.mkfifo("rq", 0o600)
    r = os.fork()
    if r == 0:
        time.sleep(random.random() * 0.004)
        try: os.close(os.open("rq", os.O_RDONLY))
        except OSError: pass
        os._exit(0)
    try:
        fd = os.open("rq", os.O_WRONLY | os.O_CREAT, 0o600)
        try: ok = stat.S_ISFIFO(os.fstat(fd).st_mode)
        except OSError: ok = False
        k = "fifo" if ok else "bogus"
        if not ok: bad.append(fd)
        else: os.close(fd)
    except OSError as e:
        k = errno.errorcode[e.errno]
    kinds[k] = kinds.get(k, 0) + 1
    os.kill(r, 9); os.waitpid(r, 0)
print("opens:", sorted(kinds.items()), "bogus descriptors:", bad[:5])
sys.exit(1 if bad else 0)
EOF2
  cat >"$_scratch/killworkers.py" <<'EOF2'
import os, sys, time
sup, cmd, killed = sys.argv[1], sys.argv[2], 0
while os.path.exists("/proc/" + sup):
    try: kids = open("/proc/%s/task/%s/children" % (sup, sup)).read().split()
    except OSError: break
    for k in kids:
        if k != cmd:
            try: os.kill(int(k), 9); killed += 1
            except OSError: pass
    time.sleep(float(sys.argv[3]))
print("workers killed:", killed)
EOF2
  "${S[@]}" --timeout 120 -- /usr/bin/python3 "$_scratch/fifoopens.py" 400 >"$_scratch/fo.out" 2>&1 &
  lp=$!
  sp= cp=
  for _ in $(seq 100); do
    sp=$(pgrep -P "$lp" | head -1)
    [ -n "$sp" ] && cp=$(pgrep -P "$sp" -f fifoopens.py | head -1) && [ -n "$cp" ] && break
    sleep 0.05
  done
  /usr/bin/python3 "$_scratch/killworkers.py" "$sp" "$cp" 0.02 >"$_scratch/kw.out" 2>&1 &
  kp=$!
  got=0; wait "$lp" || got=$?
  wait "$kp" 2>/dev/null
  # Some opens must have been answered with the FIFO (the window is only
  # reached by an answer; how many depends on the load), none with another
  # descriptor. Before the fix, 2 of 250 such opens got one here.
  nfifo=$(grep -o "('fifo', [0-9]*)" "$_scratch/fo.out" | grep -o '[0-9]*' || echo 0)
  if [ "$got" = 0 ] && [ "${nfifo:-0}" -ge 1 ]; then
    pass "workers killed from outside while answering: every open gave the FIFO or failed ($(tr '\n' ' ' <"$_scratch/fo.out")$(cat "$_scratch/kw.out"))"
  else
    fail "workers killed from outside while answering: exit $got: $(tr '\n' ' ' <"$_scratch/fo.out")$(cat "$_scratch/kw.out")"
  fi
fi
# ---- r62 F1: a worker killed between installing a descriptor and answering ----
# A worker installed the open's descriptor (ADDFD without SEND), then
# answered with its number: killed from outside in between, its call was
# answered EAGAIN by the sweep and the descriptor stayed in the command,
# one it never learnt of. Root's strace on the supervisor stretches that
# moment (every ioctl of the supervisor and its workers returns 200 ms
# late) while a killer ends every worker it finds stopped there (its
# reader comes 1.5 s after the open, so the worker is the one that waits
# for it). Each failed open must leave the command's table as it was.
if ! have root; then
  skip "root: a worker killed while it answers is aimed at by root's strace on the supervisor"
elif ! have strace; then
  skip "strace: a worker killed while it answers is aimed at by strace (apt-get install strace)"
elif have python3; then
  cat >"$_scratch/fifostray.py" <<'EOF2'
import os, sys, time, errno
n, kinds, strays = int(sys.argv[1]), {}, []
for _ in range(400):
    if os.path.exists("go"): break
    time.sleep(0.05)
for i in range(n):
    try: os.unlink("rq")
    except OSError: pass
    os.mkfifo("rq", 0o600)
    r = os.fork()
    if r == 0:
        time.sleep(1.5)
        try: os.close(os.open("rq", os.O_RDONLY))
        except OSError: pass
        os._exit(0)
    before = set(os.listdir("/proc/self/fd"))
    try:
        os.close(os.open("rq", os.O_WRONLY | os.O_CREAT, 0o600)); k = "fifo"
    except OSError as e:
        k = errno.errorcode[e.errno]
        strays += sorted(set(os.listdir("/proc/self/fd")) - before)
    kinds[k] = kinds.get(k, 0) + 1
    os.kill(r, 9); os.waitpid(r, 0)
print("opens:", sorted(kinds.items()), "stray descriptors:", strays)
sys.exit(1 if strays else 0)
EOF2
  rm -f go
  cat >"$_scratch/killstopped.py" <<'EOF2'
import os, sys, time
sup, cmd, killed = sys.argv[1], sys.argv[2], 0
while os.path.exists("/proc/" + sup):
    try: kids = open("/proc/%s/task/%s/children" % (sup, sup)).read().split()
    except OSError: break
    for k in kids:
        try: st = open("/proc/%s/stat" % k).read().rsplit(")", 1)[1].split()[0]
        except OSError: continue
        if k != cmd and st == "t":
            try: os.kill(int(k), 9); killed += 1
            except OSError: pass
    time.sleep(0.02)
print("workers killed:", killed)
EOF2
  "${S[@]}" --timeout 120 -- /usr/bin/python3 "$_scratch/fifostray.py" 6 >"$_scratch/fs.out" 2>&1 &
  lp=$!
  sp= cp=
  for _ in $(seq 100); do
    sp=$(pgrep -P "$lp" | head -1)
    [ -n "$sp" ] && cp=$(pgrep -P "$sp" -f fifostray.py | head -1) && [ -n "$cp" ] && break
    sleep 0.05
  done
  strace -f -p "$sp" -o "$_scratch/fs.log" -e trace=ioctl -e inject=ioctl:delay_exit=200000 2>/dev/null &
  stp=$!
  sleep 0.5
  /usr/bin/python3 "$_scratch/killstopped.py" "$sp" "$cp" >"$_scratch/kw.out" 2>&1 &
  kp=$!
  touch go
  got=0; wait "$lp" || got=$?
  wait "$kp" 2>/dev/null
  kill "$stp" 2>/dev/null; wait "$stp" 2>/dev/null
  rm -f go rq
  # Every open that failed must have left no descriptor: before the fix,
  # 6 of 6 did. (Now the install is the supervisor's, so the killer finds
  # few workers stopped, if any.)
  if [ "$got" = 0 ] && grep -q "opens:" "$_scratch/fs.out"; then
    pass "workers killed while answering left no descriptor in the command ($(tr '\n' ' ' <"$_scratch/fs.out")$(cat "$_scratch/kw.out"))"
  else
    fail "workers killed while answering: exit $got: $(tr '\n' ' ' <"$_scratch/fs.out")$(cat "$_scratch/kw.out")"
  fi
fi
# ---- r63 F1: the handover refused, the open already made ----
# The worker hands its descriptor over with SCM_RIGHTS, which the kernel
# refuses (ETOOMANYREFS) once the user's descriptors in flight over unix
# sockets pass the sender's open-file limit: a count of the whole user,
# which the command (or another run) can fill. The FIFO's reader had been
# woken by then, yet the writer's open was answered EAGAIN and its data
# lost. Here the command holds 4,500 in flight; the supervisor's limit is
# 4,160 (the launcher's soft limit 1,024, raised by the supervisor). The
# count being the user's, the checks run as a uid of their own: other
# tests of this user running beside them would meet it.
if ! have root; then
  skip "root: the descriptors-in-flight checks run as a uid of their own (the count is the whole user's)"
elif ! have nofile_hard; then
  skip "nofile_hard: the descriptors-in-flight checks need an open-file hard limit of 5,000 or more (here $(ulimit -Hn))"
elif have python3; then
  ifd=$(mktemp -d /tmp/sbx-inflight.XXXXXX)
  chmod 755 "$ifd"
  mkdir "$ifd/proj"
  chown 64999:64999 "$ifd/proj"
  U=(setpriv --reuid=64999 --regid=64999 --clear-groups env HOME=/nonexistent)
  UL=("${U[@]}" "$L" --sandbox --protect-secrets --project "$ifd/proj")
  cat >"$ifd/inflight.py" <<'EOF2'
import os, sys, socket, array, resource, subprocess, time
hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
fd, keep, sent = os.open("/dev/null", os.O_RDONLY), [], 0
while sent < 4500:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); keep.append((a, b))
    for _ in range(40):
        if sent < 4500:
            a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd] * 250))]); sent += 250
print("in flight:", sent, flush=True)
if sys.argv[1] == "fifo":
    subprocess.run(["/bin/sh", "-c", "rm -f ip && mkfifo ip && { (echo hello > ip; echo writer-exit=$?) & sleep 0.3; echo reader-got=$(cat ip); wait; }"])
else:
    open(sys.argv[2], "w").close()
    time.sleep(20)
EOF2
  got=0
  (cd "$ifd/proj" && ulimit -Sn 1024 && "${UL[@]}" --timeout 30 -- /usr/bin/python3 "$ifd/inflight.py" fifo) >"$_scratch/if.out" 2>&1 || got=$?
  if [ "$got" = 0 ] && grep -q 'in flight: 4500' "$_scratch/if.out" && grep -q 'reader-got=hello' "$_scratch/if.out" &&
    grep -q 'writer-exit=0' "$_scratch/if.out"; then
    pass "4,500 descriptors in flight: a guarded FIFO open still gives the FIFO ($(tr '\n' ' ' <"$_scratch/if.out"))"
  else
    fail "4,500 descriptors in flight: exit $got: $(tr '\n' ' ' <"$_scratch/if.out")"
  fi
  # The same count at the start: the listener's handover refused. The
  # launch fails closed (126, nothing run) and says why; it said "its
  # child ended before it was ready". The holder is outside any sandbox.
  "${U[@]}" /usr/bin/python3 "$ifd/inflight.py" hold "$ifd/proj/held" >/dev/null &
  hp=$!
  for _ in $(seq 100); do [ -f "$ifd/proj/held" ] && break; sleep 0.05; done
  got=0
  (cd "$ifd/proj" && ulimit -Sn 1024 && "${UL[@]}" --timeout 30 -- sh -c 'echo ran > ran') >"$_scratch/tm.out" 2>&1 || got=$?
  kill "$hp" 2>/dev/null; wait "$hp" 2>/dev/null
  if [ "$got" = 126 ] && [ ! -f "$ifd/proj/ran" ] && grep -q 'ETOOMANYREFS' "$_scratch/tm.out"; then
    pass "the listener's handover refused at the start: 126, nothing ran, and why ($(head -c 160 "$_scratch/tm.out"))"
  else
    fail "the listener's handover refused at the start: exit $got, ran: $([ -f "$ifd/proj/ran" ] && echo yes || echo no): $(tr '\n' ' ' <"$_scratch/tm.out")"
  fi
  rm -rf "$ifd"
fi
finish
