#!/usr/bin/env bash
# Escape class: io_uring, which opens files and creates sockets without the
# system calls the filter sees. io_uring_setup must fail with EPERM in every
# mode; unconfined it must work. Thin driver over tests/probes/uring.c.
. "$SBX_TESTLIB"
. "${1:?usage: test_uring.sh PATH/escape.sh}"
esc_need_probes uring
got=0
"$P/uring" setup >"$_out" 2>&1 || got=$?
[ "$got" = 0 ] || esc_skip_all "io_uring: io_uring does not work here unconfined: $(head -1 "$_out")"
pass "io_uring_setup works unconfined"
esc_modes --no-network --confine-fs --sandbox --read-only
for m in "${ESC_MODES[@]}"; do
  expect_status 1 "io_uring_setup is refused under $m" "$L" "$m" -- "$P/uring" setup
  expect_output_has "errno 1 " "io_uring_setup fails with EPERM under $m"
done
finish
