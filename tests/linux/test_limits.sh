#!/usr/bin/env bash
# Resource limits of a supervised run (issue 27), against the real kernel,
# as root and as nobody. Every limit is shown twice: the command refused
# or ended under the limit, and the same command succeeding without it.
# Which mechanism a limit gets depends on the machine: a cgroup v2 of the
# run's own (cgroup2: cgroup.kill; cgroup2_ctrl: memory and pids too), else
# rlimits; the checks follow --explain's word and skip, keyed, what the
# machine cannot give.
. "$SBX_TESTLIB"

have python3 || skip_all "python3: needed to read the JSON outcome"
PY=$(python3 -c 'import sys; print(sys.executable)')
require supervisor "--outcome-fd" "$L" --timeout 10 -- true

proj=$_scratch/proj
mkdir -p "$proj"
cd "$proj" || exit 1
export HOME=$_home
mark=$$

# run OUT ARGS...: the launcher with the outcome on descriptor 3 into OUT;
# sets $rc.
run() {
  local out=$1
  shift
  rc=0
  "$L" --outcome-fd 3 "$@" 3>"$out" >"$_out" 2>"$_err" || rc=$?
}

# check NAME OUT.json PYTHON-EXPR (o: the outcome): EXPR must be true.
check() {
  local v
  v=$("$PY" -c 'import json,sys; o = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
      "$2" "$3" 2>&1)
  if [ "$v" = True ]; then pass "$1"; else fail "$1: $3 is $v"; head -c 600 "$2"; echo; fi
}

# ---- usage: strict parsing, exit 2 ----
for bad in "--limit-memory 12X" "--limit-memory 0" "--limit-memory -5" "--limit-memory 1.5G" \
           "--limit-pids 0" "--limit-pids 64K" "--limit-cpu 1.5" "--limit-cpu 1s" \
           "--limit-file-size 1MB" "--limit-open-files 99999999999999999999" "--limit-bogus 3"; do
  # shellcheck disable=SC2086 # the flag and its value are two words
  expect_status 2 "usage error: $bad" "$L" $bad -- true
done
expect_status 2 "usage error: --limit-memory without a value" "$L" --limit-memory
expect_status 0 "--limit-memory=64M (the = form) is accepted" "$L" --limit-memory=64M -- true

# ---- explain says which mechanism each limit gets ----
"$L" --explain --json --limit-memory 256M --limit-cpu 5 --limit-file-size 1M \
  --limit-open-files 64 -- true >"$_out" 2>"$_err"
mem_mech=$("$PY" -c 'import json,sys; d = json.load(open(sys.argv[1]))
print({l["limit"]: l["mechanism"] for l in d["limits"]}["memory"])' "$_out" 2>&1)
cpu_mech=$("$PY" -c 'import json,sys; d = json.load(open(sys.argv[1]))
print({l["limit"]: l["mechanism"] for l in d["limits"]}["cpu"])' "$_out" 2>&1)
if [ "$cpu_mech" = rlimit ] && { [ "$mem_mech" = cgroup ] || [ "$mem_mech" = rlimit ]; }; then
  pass "--explain --json names the mechanisms (memory: $mem_mech, cpu: $cpu_mech)"
else
  fail "--explain --json: memory '$mem_mech', cpu '$cpu_mech'"
fi
if have cgroup2_ctrl; then
  [ "$mem_mech" = cgroup ] && pass "memory gets the run's cgroup here" ||
    fail "this machine has cgroup2_ctrl, explain says memory: $mem_mech"
else
  [ "$mem_mech" = rlimit ] && pass "memory falls back to RLIMIT_DATA without a delegated cgroup" ||
    fail "no cgroup2_ctrl here, explain says memory: $mem_mech"
fi
"$L" --self-test >"$_out" 2>"$_err"
expect_output_has "limits " "--self-test has a limits line"
if [ "$mem_mech" = rlimit ]; then
  # RLIMIT_DATA does not count shared memory or tmpfs: every place says so.
  nc="shared memory and tmpfs are not counted"
  expect_output_has "$nc" "--self-test: the memory fallback's gap"
  "$L" --explain --json --limit-memory 64M -- true >"$_out" 2>"$_err"
  expect_output_has "\"not_counted\":\"per-process private data only; $nc\"" \
    "--explain --json: the memory fallback's gap"
  "$L" --explain --limit-memory 64M -- true >"$_out" 2>"$_err"
  expect_output_has "$nc" "--explain: the memory fallback's gap"
  expect_status 0 "a run under the memory fallback" "$L" --sandbox --limit-memory 64M -- true
  [ "$(grep -c "warning: --limit-memory is RLIMIT_DATA.*$nc" "$_err")" = 1 ] &&
    pass "one warning line at launch: the memory fallback's gap" ||
    { fail "no single warning line for the memory fallback"; cat "$_err"; }
  "$L" --help >"$_out" 2>&1
  expect_output_has "shared memory and tmpfs are not" "--help: the memory fallback's gap"
fi

# ---- file size: SIGXFSZ for dd, EFBIG for a process that ignores it ----
run o.json --sandbox -- dd if=/dev/zero of="$proj/big" bs=1M count=10
[ "$rc" = 0 ] && [ "$(stat -c %s "$proj/big")" = 10485760 ] &&
  pass "control: without a limit the 10 MiB write completes" || fail "control: dd exit $rc"
rm -f "$proj/big"
run o.json --sandbox --limit-file-size 1M -- dd if=/dev/zero of="$proj/big" bs=1M count=10
[ "$rc" = $((128 + $(kill -l XFSZ))) ] && pass "--limit-file-size 1M: dd dies of SIGXFSZ" ||
  fail "--limit-file-size 1M: dd exit $rc"
[ "$(stat -c %s "$proj/big" 2>/dev/null)" = 1048576 ] && pass "the file stopped at 1 MiB" ||
  fail "the file is $(stat -c %s "$proj/big" 2>/dev/null) bytes"
check "the outcome says file-size" o.json 'o["limit"] == "file-size" and o["signal_name"] == "SIGXFSZ"'
rm -f "$proj/big"
efbig='import errno, os, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
f = open("big", "wb")
try:
    f.write(b"x" * (10 << 20)); f.flush(); print("wrote")
except OSError as e:
    print("EFBIG" if e.errno == errno.EFBIG else e)'
expect_status 0 "control: python writes 10 MiB without the limit" "$L" --sandbox -- "$PY" -c "$efbig"
expect_output_has wrote "control: the write went through"
expect_status 0 "python (SIGXFSZ ignored) under --limit-file-size 1M runs" \
  "$L" --sandbox --limit-file-size 1M -- "$PY" -c "$efbig"
expect_output_has EFBIG "its 10 MiB write fails with EFBIG"
rm -f big

# ---- CPU time: SIGXCPU for a busy loop; the timeout for the control ----
run o.json --sandbox --timeout 2 -- sh -c 'while :; do :; done'
check "control: without --limit-cpu the busy loop runs until the 2 s timeout" o.json \
  'o["timed_out"] and o["limit"] == "timeout"'
run o.json --sandbox --timeout 30 --limit-cpu 1 -- sh -c 'while :; do :; done'
check "--limit-cpu 1 ends the busy loop with SIGXCPU, reason cpu" o.json \
  'o["signal_name"] == "SIGXCPU" and o["limit"] == "cpu" and not o["timed_out"]'
# A descendant that catches SIGXCPU is killed one second later.
catch='import signal; signal.signal(signal.SIGXCPU, lambda *a: None)
while True: pass'
run o.json --sandbox --timeout 30 --limit-cpu 1 -- "$PY" -c "$catch"
check "a command that catches SIGXCPU is killed at the hard limit" o.json \
  'o["signal_name"] == "SIGKILL" and not o["timed_out"] and o["duration_seconds"] < 20'

# ---- open files ----
nofile='import os
fds = []
try:
    for i in range(200): fds.append(os.open("/dev/null", os.O_RDONLY))
    print("opened", len(fds))
except OSError as e: print("EMFILE at", len(fds))'
expect_status 0 "control: 200 descriptors open without the limit" "$L" --sandbox -- "$PY" -c "$nofile"
expect_output_has "opened 200" "control: all 200 opened"
expect_status 0 "--limit-open-files 64: the 200 opens stop" \
  "$L" --sandbox --limit-open-files 64 -- "$PY" -c "$nofile"
expect_output_has "EMFILE at" "--limit-open-files 64: EMFILE before 64 descriptors"
# A small limit is the command's, not the supervisor's: its handover
# (the listener) is made before the limit is set.
expect_status 0 "--limit-open-files 6: a shell still starts" \
  "$L" --sandbox --limit-open-files 6 -- sh -c 'exit 0'

# ---- inherited by every descendant, a setsid double fork's too ----
expect_status 0 "the limits reach a setsid grandchild" "$L" --sandbox --limit-open-files 64 \
  --limit-cpu 7 --limit-file-size 2M -- sh -c \
  "setsid sh -c 'echo \$(ulimit -Hn) \$(ulimit -Ht) \$(ulimit -Hf) >$proj/inherited' & wait"
[ "$(cat "$proj/inherited" 2>/dev/null)" = "64 8 4096" ] && pass "grandchild sees 64 8 4096" ||
  fail "grandchild's hard limits: '$(cat "$proj/inherited" 2>/dev/null)', wanted '64 8 4096'"

# ---- the command cannot raise them ----
# Control: unconfined, a holder of CAP_SYS_RESOURCE raises its own hard
# limit (nobody never can; this VM's root lacks the capability).
if have sys_resource; then
  expect_status 0 "control: CAP_SYS_RESOURCE raises a hard RLIMIT_NOFILE unconfined" \
    sh -c 'ulimit -n 1000 && ulimit -Hn 2000'
else
  skip "sys_resource: the control that raises a hard limit needs CAP_SYS_RESOURCE"
fi
for mode in "--no-network" "--sandbox" "--read-only"; do
  # shellcheck disable=SC2086 # $mode is one flag or none
  expect_status 0 "$mode: lowering a limit still works" \
    "$L" $mode --limit-open-files 64 -- sh -c 'ulimit -n 32'
  # shellcheck disable=SC2086
  expect_status 1 "$mode: ulimit -Hn above the limit is refused" \
    "$L" $mode --limit-open-files 64 -- sh -c 'ulimit -Hn 1000 2>/dev/null || exit 1'
  # shellcheck disable=SC2086
  expect_status 1 "$mode: prlimit64 raising the CPU limit is refused" \
    "$L" $mode --limit-cpu 5 -- "$PY" -c 'import resource, sys
try: resource.setrlimit(resource.RLIMIT_CPU, (100, 100))
except (OSError, ValueError): sys.exit(1)'
done

# ---- memory ----
alloc='x = b"x" * (1 << 30); print("allocated", len(x) >> 20, "MiB")'
expect_status 0 "control: python allocates and touches 1 GiB without the limit" \
  "$L" --sandbox -- "$PY" -c "$alloc"
run o.json --sandbox --limit-memory 256M -- "$PY" -c "$alloc"
if [ "$mem_mech" = cgroup ]; then
  check "--limit-memory 256M (cgroup): the OOM killer ends it, reason memory" o.json \
    'o["signal_name"] == "SIGKILL" and o["limit"] == "memory" and o["limit_certain"]'
else
  [ "$rc" != 0 ] && grep -q MemoryError "$_err" &&
    pass "--limit-memory 256M (RLIMIT_DATA): the allocation fails with MemoryError" ||
    fail "--limit-memory 256M (RLIMIT_DATA): exit $rc, $(tail -1 "$_err")"
  skip "cgroup2_ctrl: the memory reason from memory.events needs the run's own memory cgroup"
fi

# ---- processes ----
count() { ps -e --no-headers | wc -l; }
bomb='b() { b | b & }; b'
if have cgroup2_ctrl; then
  before=$(count)
  run o.json --sandbox --timeout 5 --limit-pids 64 -- bash -c "$bomb"
  check "fork bomb under --limit-pids 64: ended, reason pids" o.json \
    'o["limit"] == "pids" and o["limit_certain"]'
  sleep 1
  after=$(count)
  [ "$after" -le $((before + 10)) ] && pass "process count back ($before before, $after after)" ||
    fail "process count $before before, $after after"
else
  expect_status 126 "--limit-pids without a cgroup of the run's own fails closed" \
    "$L" --sandbox --limit-pids 64 -- true
  expect_output_has "RLIMIT_NPROC" "the reason says why there is no fallback"
  skip "cgroup2_ctrl: the fork bomb under pids.max needs the run's own pids cgroup"
fi

# ---- the run's cgroup (root here: the unified hierarchy without controllers) ----
if have cgroup2; then
  cg=$(_own_cgroup2)
  run o.json --sandbox --limit-memory 512M -- sh -c 'cat /proc/self/cgroup'
  rel=$(sed -n 's/^0:://p' "$_out")
  case $rel in
    */sandbox-run-*) pass "the command runs in a cgroup of its own ($rel)" ;;
    *) fail "the command's cgroup v2 is '$rel'" ;;
  esac
  [ -n "$rel" ] && [ ! -e "$cg/${rel##*/}" ] && pass "the run's cgroup is removed afterwards" ||
    fail "the run's cgroup ${rel##*/} is still there"
  # Nothing escapes it by double-forking: the supervisor's cgroup.kill.
  run o.json --sandbox --timeout 1 --limit-memory 512M -- sh -c \
    "setsid sh -c 'trap \"\" TERM; sleep 300.$mark' & sleep 300.$mark"
  sleep 0.5
  pgrep -f "sleep 300.$mark" >/dev/null && fail "a double-forked sleeper outlived the run" ||
    pass "a double-forked sleeper that ignores TERM is gone with the run"
  ls -d "$cg"/sandbox-run-* 2>/dev/null && fail "a run's cgroup was left behind" ||
    pass "no run's cgroup is left behind"
  # The command cannot move itself out where Landlock confines writes.
  expect_status 1 "--sandbox: the command cannot write its parent cgroup.procs" \
    "$L" --sandbox --limit-memory 512M -- sh -c "echo 0 > $cg/cgroup.procs 2>/dev/null || exit 1"
  # Nor with clone3(CLONE_INTO_CGROUP) and an O_PATH descriptor of an outer
  # cgroup, which no Landlock rule sees: the child reports its pid, the
  # host reads /proc/PID/cgroup while it lives.
  esc='import ctypes, os, struct, sys, time
cg = os.open(sys.argv[1], os.O_PATH | os.O_DIRECTORY)
args = struct.pack("11Q", 0x200000000, 0, 0, 0, 17, 0, 0, 0, 0, 0, cg)
buf = ctypes.create_string_buffer(args)
pid = ctypes.CDLL(None, use_errno=True).syscall(435, buf, len(args))
if pid < 0: print("clone3:", os.strerror(ctypes.get_errno())); sys.exit(3)
if pid == 0:
    os.write(1, b"child %d\n" % os.getpid()); time.sleep(2); os._exit(0)
os.waitpid(pid, 0)'
  # esc_from PIDFILE OUT CMD...: run CMD in the background; the host's view
  # of the escaping child's cgroup is in $seen.
  esc_from() {
    local out=$1
    shift
    "$@" >"$out" 2>&1 &
    local bg=$! i
    seen=
    for i in $(seq 1 40); do
      p=$(sed -n 's/^child //p' "$out")
      [ -n "$p" ] && { seen=$(sed -n 's/^0:://p' "/proc/$p/cgroup" 2>/dev/null); break; }
      sleep 0.1
    done
    wait "$bg"
  }
  mkdir -p "$cg/sbx-test-$mark"
  esc_from esc.out "$PY" -c "$esc" "$cg/sbx-test-$mark"
  case $seen in
    */sbx-test-$mark) pass "control: clone3(CLONE_INTO_CGROUP) moves a child unconfined" ;;
    *) fail "control: clone3(CLONE_INTO_CGROUP) left the child in '$seen'"; cat esc.out ;;
  esac
  rmdir "$cg/sbx-test-$mark"
  for m in --sandbox --no-network "--class build"; do
    # shellcheck disable=SC2086 # the mode may be two words
    esc_from esc.out "$L" $m --limit-memory 512M -- "$PY" -c "$esc" "$cg"
    case $seen in
      */sandbox-run-*) pass "$m: clone3(CLONE_INTO_CGROUP) stays in the run's cgroup" ;;
      "") grep -q "^clone3:" esc.out && pass "$m: clone3(CLONE_INTO_CGROUP) refused" ||
            { fail "$m: the escape gave nothing to check"; cat esc.out; } ;;
      *) fail "$m: clone3(CLONE_INTO_CGROUP) moved the command's child to '$seen'" ;;
    esac
  done
  rm -f esc.out
  # A launcher killed with SIGKILL leaves its empty cgroup: the next run
  # removes it; a live launcher's (this shell's pid) and a name not ours stay.
  mkdir "$cg/sandbox-run-2147483646-1" "$cg/sandbox-run-$$-1" "$cg/sandbox-runx-$mark"
  expect_status 0 "a run with a cgroup starts beside stale ones" \
    "$L" --sandbox --limit-memory 512M -- true
  [ ! -e "$cg/sandbox-run-2147483646-1" ] && pass "a dead launcher's empty cgroup is removed" ||
    fail "a dead launcher's empty cgroup sandbox-run-2147483646-1 is still there"
  [ -d "$cg/sandbox-run-$$-1" ] && [ -d "$cg/sandbox-runx-$mark" ] &&
    pass "a live launcher's cgroup and another name stay" ||
    fail "a live launcher's cgroup or another name was removed"
  rmdir "$cg/sandbox-run-2147483646-1" "$cg/sandbox-run-$$-1" "$cg/sandbox-runx-$mark" 2>/dev/null
else
  skip "cgroup2: the run's own cgroup needs a writable cgroup v2 (root, or a delegated subtree)"
fi

rm -f o.json
finish
