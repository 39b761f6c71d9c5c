#!/usr/bin/env bash
# The Linux network kill-switch (--no-network), against the real kernel: every
# route to an internet or other remote socket is closed, local IPC keeps
# working. Each refusal is also run unconfined, to show the probe can succeed.
. "$SBX_TESTLIB"

[ -x "$P/sock" ] || { echo "probes missing: $P"; exit 77; }
SIGSYS_STATUS=$((128 + $(kill -l SYS)))

# unconfined NAME CMD...: the probe must not die from SIGSYS without the
# sandbox (it may fail with an errno, e.g. an unknown family).
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

# killed KEY NAME CMD...: the control: unconfined the probe creates its socket
# (exit 0). Where it cannot on this machine (no such family in this kernel,
# no CAP_NET_RAW as nobody, no x32) the control is a skip naming KEY, never a
# pass; KEY "" means it must work everywhere. Under --no-network it dies by
# SIGSYS either way: the kill comes from the filter, before the kernel looks
# at the family.
killed() {
  local key=$1 name=$2 got=0
  shift 2
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = 0 ]; then
    pass "$name works unconfined"
  elif [ "$got" = "$SIGSYS_STATUS" ]; then
    fail "$name: dies from SIGSYS even unconfined"
  elif [ -n "$key" ]; then
    skip "$key: $name cannot be created unconfined here: $(head -c 100 "$_out" | tr '\n' ' ')(exit $got)"
  else
    fail "$name: unconfined the control fails (exit $got): $(head -c 100 "$_out")"
  fi
  expect_signal SYS "$name dies under --no-network" "$L" --no-network -- "$@"
}

for fam in inet inet6; do
  for type in stream dgram; do
    killed "" "$fam $type socket" "$P/sock" $fam $type
  done
done
killed sock_inet_raw_1 "inet raw ICMP socket" "$P/sock" inet raw 1
killed sock_inet6_raw_58 "inet6 raw ICMPv6 socket" "$P/sock" inet6 raw 58
killed sock_inet_dgram_1 "inet ICMP datagram (ping) socket" "$P/sock" inet dgram 1
# Every other family that can reach another machine, and families a future
# kernel may add: the allowlist refuses them all.
killed sock_vsock_stream "vsock stream socket (a VM escape route)" "$P/sock" vsock stream
for spec in "packet raw" "bluetooth raw" "can raw" "tipc dgram" "rds seqpacket" "xdp raw" "alg seqpacket"; do
  set -- $spec
  killed "sock_$1_$2" "$1 socket" "$P/sock" $1 $2
done
# Families no kernel has yet: unconfined the kernel itself answers
# EAFNOSUPPORT (the probe's exit 2), so the SIGSYS below is the filter's.
for fam in 64 1000; do
  expect_status 2 "family $fam: unconfined the kernel answers EAFNOSUPPORT" "$P/sock" $fam dgram
  expect_signal SYS "family $fam socket dies under --no-network" "$L" --no-network -- "$P/sock" $fam dgram
done

# The kernel reads only the low 32 bits of the domain.
killed "" "inet socket with junk in the upper 32 bits" "$P/sock" inet stream --junk
expect_status 0 "unix socket with junk in the upper 32 bits works" \
  "$L" --no-network -- "$P/sock" unix stream --junk

# The i386 ABI from a 64-bit process, and x32.
if [ "$(uname -m)" = x86_64 ]; then
  # Without IA32 emulation (CONFIG_IA32_EMULATION=n or ia32_emulation=0) the
  # CPU faults on int 0x80 before any syscall entry, so no filter ever sees
  # it (SIGSEGV, confined or not): nothing to refuse, and nothing to test.
  if have i386; then
    killed i386 "i386 socket(AF_INET) via int 0x80" "$P/sock_compat" direct 2
    killed i386 "i386 socket(AF_INET6) via int 0x80" "$P/sock_compat" direct 10
    expect_status 0 "i386 socket(AF_UNIX) via int 0x80 works" \
      "$L" --no-network -- "$P/sock_compat" direct 1
    killed i386 "i386 socketcall(SYS_SOCKET, AF_INET)" "$P/sock_compat" socketcall 2
    # The family is in memory: socketcall(SYS_SOCKET) dies whatever it holds.
    killed i386 "i386 socketcall(SYS_SOCKET, AF_UNIX)" "$P/sock_compat" socketcall 1
  else
    skip "i386: i386 int 0x80 probes: this kernel has no IA32 emulation (int 0x80 faults before any filter)"
  fi
  killed x32 "x32 socket(AF_INET)" "$P/sock_compat" x32 2
else
  skip "x86_64: i386 and x32 probes: not an x86_64 machine"
fi

# io_uring: IORING_OP_SOCKET creates sockets without socket(2).
got=0
"$P/uring" socket >"$_out" 2>&1 || got=$?
if [ "$got" = 0 ]; then
  pass "io_uring IORING_OP_SOCKET creates an inet socket unconfined"
  expect_status 1 "io_uring_setup is refused under --no-network" "$L" --no-network -- "$P/uring" socket
  expect_output_has "io_uring_setup: errno 1 " "io_uring_setup fails with EPERM"
else
  skip "io_uring_socket: io_uring is unavailable here unconfined: $(cat "$_out")"
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
  skip "python3: missing, no grandchild test"
fi

# Local IPC keeps working.
expect_status 0 "AF_UNIX stream socket works" "$L" --no-network -- "$P/sock" unix stream
expect_status 0 "AF_UNIX datagram socket works" "$L" --no-network -- "$P/sock" unix dgram
expect_status 0 "socketpair works" "$L" --no-network -- "$P/sock" pair
expect_status 0 "netlink route socket works" "$L" --no-network -- "$P/sock" netlink raw 0

# Name lookups of localhost, independent of this machine's /etc (a fresh
# debootstrap has no /etc/hosts at all; an installed Debian has two localhost
# lines): each run gets a private mount namespace whose /etc holds a known
# hosts file, "hosts: files" in nsswitch.conf and Debian's "multi on" in
# host.conf, the rest of /etc linked in (with_hosts, tests/lib.sh).
# The contract (docs/seccomp.md, "Name lookups"): with one address glibc's
# getaddrinfo creates no socket and works; with 127.0.0.1 and ::1 it sorts the
# answers by connecting a UDP probe socket per address (RFC 6724), and that
# AF_INET/AF_INET6 socket is killed by SIGSYS like any other; under
# --net-eperm the probe fails with EPERM and getaddrinfo carries on.
if have getent && have mountns; then
  one="127.0.0.1 localhost"
  two="127.0.0.1 localhost
::1 localhost ip6-localhost ip6-loopback"
  expect_status 0 "one localhost line: getent ahosts localhost works unconfined" \
    with_hosts "$one" getent ahosts localhost
  expect_output_has "127.0.0.1" "one localhost line: unconfined it resolves to 127.0.0.1"
  expect_status 0 "one localhost line: getent ahosts localhost works under --no-network" \
    with_hosts "$one" "$L" --no-network -- getent ahosts localhost
  expect_output_has "127.0.0.1" "one localhost line: confined it resolves to 127.0.0.1"
  expect_status 0 "127.0.0.1 and ::1: getent ahosts localhost works unconfined" \
    with_hosts "$two" getent ahosts localhost
  expect_output_has "::1" "127.0.0.1 and ::1: unconfined both answers come back"
  expect_status "$SIGSYS_STATUS" \
    "127.0.0.1 and ::1: getaddrinfo's UDP probe socket is killed under --no-network (documented)" \
    with_hosts "$two" "$L" --no-network -- getent ahosts localhost
  expect_status 0 "127.0.0.1 and ::1: getent ahosts localhost works under --no-network --net-eperm" \
    with_hosts "$two" "$L" --no-network --net-eperm -- getent ahosts localhost
  expect_output_has "127.0.0.1" "127.0.0.1 and ::1: --net-eperm still resolves"
elif ! have getent; then
  skip "getent: not installed, no name-lookup case"
else
  skip "mountns: no private mount namespace for a known /etc/hosts here"
fi
if command -v ip >/dev/null; then
  expect_status 0 "ip -o addr works" "$L" --no-network -- ip -o addr
  expect_output_has " lo " "ip lists the loopback interface"
else
  skip "ip: ip -o addr: iproute2 is not installed"
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
