#!/usr/bin/env bash
# Escape class: core dumps. A process the network kill-switch kills with
# SIGSYS would dump core by default: a core file written into the project (a
# write the sandbox did not decide) or the process memory handed to a
# core_pattern pipe handler that runs outside the sandbox. The launcher sets
# RLIMIT_CORE to 0 before confinement, so even with `ulimit -c unlimited`
# outside, a SIGSYS kill leaves no core. Unconfined, the same death does leave
# one (proof that the check can fail), where core_pattern writes a file.
. "$SBX_TESTLIB"
. "${1:?usage: test_core.sh PATH/escape.sh}"
esc_need_probes esc_attrs
pattern=$(cat /proc/sys/kernel/core_pattern 2>/dev/null || echo "?")
mkdir -p "$_scratch/run"
cd "$_scratch/run" || exit 1
cores() { find "$_scratch/run" -maxdepth 1 -name 'core*' | wc -l; }

case $pattern in
  \|*|/*) skip "core_in_cwd: core_pattern '$pattern' does not write into the working directory: no unconfined proof" ;;
  *)
    got=0
    bash -c 'ulimit -c unlimited 2>/dev/null; exec "$@"' - "$P/esc_attrs" sigsys >/dev/null 2>&1 || got=$?
    if [ "$(cores)" -gt 0 ]; then
      pass "a SIGSYS death dumps core unconfined (exit $got)"
    elif ! have unsanitized; then
      skip "unsanitized: no core file unconfined (exit $got): the sanitizer runtime disables core dumps"
    else
      fail "no core file unconfined (exit $got) though core_pattern '$pattern' writes into the working directory"
    fi
    rm -f "$_scratch"/run/core* ;;
esac

esc_modes --no-network --sandbox --read-only
for m in "${ESC_MODES[@]}"; do
  expect_signal SYS "socket(AF_INET) is killed under $m" \
    bash -c 'ulimit -c unlimited 2>/dev/null; exec "$@"' - "$L" "$m" -- "$P/esc_attrs" inet
  if [ "$(cores)" = 0 ]; then pass "the SIGSYS kill under $m left no core file"; else
    fail "a core file was left under $m: $(ls "$_scratch"/run)"; rm -f "$_scratch"/run/core*; fi
done
finish
