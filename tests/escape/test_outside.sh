#!/usr/bin/env bash
# Escape class: taking over a process outside the sandbox. ptrace,
# process_vm_writev and pidfd_getfd against a process of the same user that
# started before the launcher must fail with EPERM in every mode (the Landlock
# domain walls them off; --no-network creates one for that reason). Signals to
# it are refused in --read-only (Landlock signal scoping) and allowed in the
# other modes, which do not promise to stop them.
. "$SBX_TESTLIB"
. "${1:?usage: test_outside.sh PATH/escape.sh}"
esc_need_probes esc_outside

"$P/esc_outside" target >"$_scratch/target" 2>&1 &
tpid=$!
trap 'kill $tpid 2>/dev/null' EXIT
# A slow start (a loaded CI machine) is waited for, up to 60 s; a target
# that dies or never reports is a failure, never a reason to skip the class.
for _ in $(seq 600); do
  [ -s "$_scratch/target" ] && break
  kill -0 "$tpid" 2>/dev/null || break
  sleep 0.1
done
read -r pid addr <"$_scratch/target" ||
  { fail "the target process did not start: $(cat "$_scratch/target")"; finish; }

# Unconfined, each of them works: what the sandbox takes away is real.
for op in ptrace "vmwrite $pid $addr" getfd kill; do
  set -- $op
  expect_status 0 "$1 of an outside process works unconfined" "$P/esc_outside" "$1" "$pid" ${3:+"$3"}
done

esc_modes --no-network --confine-fs --sandbox --read-only
for m in "${ESC_MODES[@]}"; do
  expect_refused EPERM "ptrace attach to an outside process under $m" \
    "$L" "$m" -- "$P/esc_outside" ptrace "$pid"
  expect_refused EPERM "process_vm_writev into an outside process under $m" \
    "$L" "$m" -- "$P/esc_outside" vmwrite "$pid" "$addr"
  expect_refused EPERM "pidfd_getfd from an outside process under $m" \
    "$L" "$m" -- "$P/esc_outside" getfd "$pid"
  if [ "$m" = --read-only ]; then
    expect_refused EPERM "a signal to an outside process under $m" \
      "$L" "$m" -- "$P/esc_outside" kill "$pid"
  else
    expect_status 0 "a signal to an outside process is not scoped under $m (documented)" \
      "$L" "$m" -- "$P/esc_outside" kill "$pid"
  fi
done
kill "$tpid" 2>/dev/null
finish
