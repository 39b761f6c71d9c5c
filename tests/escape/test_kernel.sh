#!/usr/bin/env bash
# Escape class: kernel attack surface and calls whose flags live in memory.
# - bpf, perf_event_open, userfaultfd and personality fail with EPERM in
#   --read-only (each works unconfined where the machine allows it at all).
# - openat2 keeps its flags in memory where a filter cannot read them: in the
#   modes with filesystem rules it fails with ENOSYS, so libcs fall back to
#   openat, whose flags are in a register.
# - clone3 also keeps its flags in memory. Where user namespaces are refused
#   (--read-only, --no-user-namespaces: test_surfaces.sh) it fails with
#   ENOSYS, so glibc's threads and posix_spawn fall back to clone, whose flags
#   are in a register; elsewhere it stays allowed.
. "$SBX_TESTLIB"
. "${1:?usage: test_kernel.sh PATH/escape.sh}"
esc_need_probes esc_kernel

esc_modes --read-only
for k in bpf perf userfaultfd personality; do
  got=0
  "$P/esc_kernel" "$k" >"$_out" 2>&1 || got=$?
  if [ "$got" = 0 ]; then
    pass "$k works unconfined"
  elif ! have "kernel_$k"; then
    skip "kernel_$k: $k is refused unconfined already ($(head -1 "$_out")): only the confined EPERM is checked"
  fi
  for m in "${ESC_MODES[@]}"; do
    expect_refused EPERM "$k is refused under $m" "$L" "$m" -- "$P/esc_kernel" "$k"
  done
done

expect_status 0 "openat2 works unconfined" "$P/esc_kernel" openat2
expect_status 0 "clone3 works unconfined" "$P/esc_kernel" clone3
esc_modes --no-network --confine-fs --sandbox --read-only
for m in "${ESC_MODES[@]}"; do
  if [ "$m" = --no-network ]; then
    expect_status 0 "openat2 is allowed under $m (no path rule to bypass)" \
      "$L" "$m" -- "$P/esc_kernel" openat2
  else
    expect_refused ENOSYS "openat2 falls back under $m" "$L" "$m" -- "$P/esc_kernel" openat2
  fi
  if [ "$m" = --read-only ]; then
    expect_refused ENOSYS "clone3 falls back to clone under $m" "$L" "$m" -- "$P/esc_kernel" clone3
  else
    expect_status 0 "a plain clone3 works under $m" "$L" "$m" -- "$P/esc_kernel" clone3
  fi
done
finish
