#!/usr/bin/env bash
# The Linux network kill-switch (--no-network), against the real kernel: every
# route to an internet or other remote socket is closed, local IPC keeps
# working. Each refusal is also run unconfined, to show the probe can succeed.
. "$SBX_TESTLIB"

[ -x "$P/sock" ] || { echo "probes missing: $P"; exit 77; }
SIGSYS_STATUS=$((128 + $(kill -l SYS)))

# unconfined NAME CMD...: the probe must not die from SIGSYS without the
# sandbox (it succeeds, or fails with an errno, e.g. no CAP_NET_RAW as nobody).
unconfined() {
  local name=$1 got=0
  shift
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = "$SIGSYS_STATUS" ]; then
    fail "$name: dies from SIGSYS even unconfined"
  else
    pass "$name unconfined: $(head -c 120 "$_out" | tr '\n' ' ')(exit $got)"
  fi
}

# killed NAME CMD...: unconfined it lives; under --no-network it dies by SIGSYS.
killed() {
  local name=$1
  shift
  unconfined "$name" "$@"
  expect_signal SYS "$name dies under --no-network" "$L" --no-network -- "$@"
}

for fam in inet inet6; do
  for type in stream dgram; do
    killed "$fam $type socket" "$P/sock" $fam $type
  done
done
killed "inet raw ICMP socket" "$P/sock" inet raw 1
killed "inet6 raw ICMPv6 socket" "$P/sock" inet6 raw 58
killed "inet ICMP datagram (ping) socket" "$P/sock" inet dgram 1
# Every other family that can reach another machine, and families a future
# kernel may add: the allowlist refuses them all.
killed "vsock stream socket (a VM escape route)" "$P/sock" vsock stream
for fam in packet bluetooth can tipc rds xdp alg 64 1000; do
  killed "$fam socket" "$P/sock" $fam dgram
done

# The kernel reads only the low 32 bits of the domain.
killed "inet socket with junk in the upper 32 bits" "$P/sock" inet stream --junk
expect_status 0 "unix socket with junk in the upper 32 bits works" \
  "$L" --no-network -- "$P/sock" unix stream --junk

# The i386 ABI from a 64-bit process, and x32.
if [ "$(uname -m)" = x86_64 ]; then
  killed "i386 socket(AF_INET) via int 0x80" "$P/sock_compat" direct 2
  killed "i386 socket(AF_INET6) via int 0x80" "$P/sock_compat" direct 10
  expect_status 0 "i386 socket(AF_UNIX) via int 0x80 works" \
    "$L" --no-network -- "$P/sock_compat" direct 1
  killed "i386 socketcall(SYS_SOCKET, AF_INET)" "$P/sock_compat" socketcall 2
  # The family is in memory: socketcall(SYS_SOCKET) dies whatever it holds.
  killed "i386 socketcall(SYS_SOCKET, AF_UNIX)" "$P/sock_compat" socketcall 1
  killed "x32 socket(AF_INET)" "$P/sock_compat" x32 2
  grep -q created "$_out" 2>/dev/null || true
else
  skip "i386 and x32 probes: not an x86_64 machine"
fi

# io_uring: IORING_OP_SOCKET creates sockets without socket(2).
got=0
"$P/uring" socket >"$_out" 2>&1 || got=$?
if [ "$got" = 0 ]; then
  pass "io_uring IORING_OP_SOCKET creates an inet socket unconfined"
  expect_status 1 "io_uring_setup is refused under --no-network" "$L" --no-network -- "$P/uring" socket
  expect_output_has "io_uring_setup: errno 1 " "io_uring_setup fails with EPERM"
else
  skip "io_uring is unavailable here unconfined: $(cat "$_out")"
fi

# A thread's socket kills the whole process, not only the thread.
unconfined "inet socket from a second thread" "$P/sock_thread"
expect_output_has "survived" "the threaded probe survives unconfined"
expect_signal SYS "inet socket from a second thread kills the whole process" \
  "$L" --no-network -- "$P/sock_thread"
if grep -q survived "$_out"; then fail "the process survived its thread's socket"; else
  pass "no 'survived' line: the main thread died too"; fi

# Inherited by every descendant.
PY=$(command -v /usr/bin/python3 || command -v python3 || true)
if [ -n "$PY" ]; then
  expect_status 0 "python3 creates an inet socket unconfined" \
    sh -c "$PY -c 'import socket; socket.socket()'"
  expect_status "$SIGSYS_STATUS" "a grandchild's python3 socket() is killed by SIGSYS" \
    "$L" --no-network -- sh -c "$PY -c 'import socket; socket.socket()'"
else
  skip "python3 missing: grandchild test"
fi

# Local IPC keeps working.
expect_status 0 "AF_UNIX stream socket works" "$L" --no-network -- "$P/sock" unix stream
expect_status 0 "AF_UNIX datagram socket works" "$L" --no-network -- "$P/sock" unix dgram
expect_status 0 "socketpair works" "$L" --no-network -- "$P/sock" pair
expect_status 0 "netlink route socket works" "$L" --no-network -- "$P/sock" netlink raw 0
expect_status 0 "getent ahosts localhost works" "$L" --no-network -- getent ahosts localhost
expect_output_has "localhost" "getent resolved localhost"
if command -v ip >/dev/null; then
  expect_status 0 "ip -o addr works" "$L" --no-network -- ip -o addr
  expect_output_has " lo " "ip lists the loopback interface"
else
  skip "ip -o addr: iproute2 is not installed"
fi

# The EPERM switch: the call fails, the process lives.
expect_status 1 "--net-eperm: socket(AF_INET) fails instead of killing" \
  "$L" --no-network --net-eperm -- "$P/sock" inet stream
expect_output_has "errno 1 " "--net-eperm: the errno is EPERM"
expect_status 1 "--net-eperm: AF_PACKET fails with EPERM too" \
  "$L" --no-network --net-eperm -- "$P/sock" packet raw
expect_status 0 "--net-eperm: AF_UNIX still works" \
  "$L" --no-network --net-eperm -- "$P/sock" unix stream
if [ -n "$PY" ]; then
  expect_status 0 "--net-eperm: python survives an IPv6 probe at import time" \
    "$L" --no-network --net-eperm -- "$PY" -c '
import socket
try:
    socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
except PermissionError:
    print("no ipv6, carrying on")'
  expect_output_has "carrying on" "--net-eperm: python caught PermissionError"
fi

# What the library reports.
expect_status 0 "--self-test runs" "$L" --self-test --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["network"]["available"] in (1, True), d["network"]' "$_out"; then
  pass "--self-test: the network kill-switch is available"
else
  fail "--self-test does not report the kill-switch"; head -c 600 "$_out"
fi
expect_status 0 "--explain --no-network --json runs" "$L" --explain --json --no-network -- true
if python3 -c '
import json,sys
d=json.load(open(sys.argv[1]))["seccomp"]
assert d["program"]=="net", d
rules=[r for g in d["groups"] for r in g["rules"]]
assert any(r["syscall"]=="socket" and r["when"]=={"domain_not_in":["AF_UNIX","AF_NETLINK"]} for r in rules), rules
' "$_out"; then pass "--explain --json names the socket allowlist"; else
  fail "--explain --json lacks the socket allowlist"; head -c 800 "$_out"; fi
finish
