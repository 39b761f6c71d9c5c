#!/usr/bin/env bash
# Escape class: other ABIs and junk register bits to reach socket().
# i386 `int $0x80` socket and socketcall, x32, and junk in the upper half of
# socket()'s domain, under every mode that denies the network. Thin driver over
# the seccomp probes (tests/probes/sock.c, sock_compat.c); test_net.sh has the
# per-family detail. Each probe is first run unconfined to prove it works.
. "$SBX_TESTLIB"
. "${1:?usage: test_x.sh PATH/escape.sh}"
esc_need_probes sock sock_compat
esc_modes --no-network --sandbox --read-only

# case ABI NAME PROBE ARGS...: unconfined it must create the socket (exit 0;
# 2 means the ABI is missing: a skip only if the profile lacks ABI too);
# confined it must die by SIGSYS.
case_() {
  local abi=$1 name=$2 got=0 m
  shift 2
  "$@" >"$_out" 2>&1 || got=$?
  # Where the profile (which asks the kernel directly) lacks the ABI, any
  # failure of the probe is that: 2 when the ABI answers ENOSYS (x32 off), a
  # fault when int 0x80 has no IA32 emulation, before any syscall entry a
  # filter could see (139, or ASan's report of it: 1 or 134 by its options).
  if [ "$got" != 0 ] && [ -n "$abi" ] && ! have "$abi"; then
    skip "$abi: $name: ABI unavailable here ($(head -1 "$_out"))"; return; fi
  if [ "$got" != 0 ]; then fail "$name: unconfined the probe did not work (exit $got)"; return; fi
  pass "$name works unconfined"
  for m in "${ESC_MODES[@]}"; do
    expect_signal SYS "$name is killed under $m" "$L" "$m" -- "$@"
  done
}
case_ i386 "i386 int \$0x80 socket(AF_INET)" "$P/sock_compat" direct 2
case_ i386 "i386 socketcall(SYS_SOCKET, AF_INET)" "$P/sock_compat" socketcall 2
case_ x32 "x32 socket(AF_INET)" "$P/sock_compat" x32 2
case_ "" "socket(AF_INET) with junk in the upper 32 bits" "$P/sock" inet stream --junk
finish
