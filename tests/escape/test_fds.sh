#!/usr/bin/env bash
# Escape class: descriptors inherited from outside. Landlock and seccomp check
# operations, not descriptors already open: a writable descriptor to a file
# the sandbox would refuse, or a socket made before the launcher started,
# stays usable inside. This test shows both (the risk is real), and that
# --close-fds closes them while keeping stdio and --keep-fd descriptors.
. "$SBX_TESTLIB"
. "${1:?usage: test_fds.sh PATH/escape.sh}"
esc_need_probes esc_fd
outside=$_scratch/outside.txt
: >"$outside"

esc_modes --read-only --sandbox --no-network
for m in "${ESC_MODES[@]}"; do
  # A file descriptor opened for writing outside the launcher: fd 7.
  if [ "$m" = --read-only ]; then
    expect_status 1 "opening the file for writing is refused under $m" \
      "$L" "$m" -- bash -c "echo x >>'$outside'"
  fi
  expect_status 0 "an inherited writable fd is usable under $m without --close-fds (the risk)" \
    bash -c 'exec 7>>"$0"; exec "$@"' "$outside" "$L" "$m" -- "$P/esc_fd" write 7
  expect_refused EBADF "--close-fds closes the inherited fd under $m" \
    bash -c 'exec 7>>"$0"; exec "$@"' "$outside" "$L" "$m" --close-fds -- "$P/esc_fd" write 7
  expect_status 0 "--keep-fd 7 keeps it under $m" \
    bash -c 'exec 7>>"$0"; exec "$@"' "$outside" "$L" "$m" --keep-fd 7 -- "$P/esc_fd" write 7
  expect_refused EBADF "--keep-fd 7 still closes fd 8 under $m" \
    bash -c 'exec 7>>"$0" 8>>"$0"; exec "$@"' "$outside" "$L" "$m" --keep-fd 7 -- "$P/esc_fd" write 8
  expect_output_has "write: refused EBADF" "stdout stays open with --close-fds under $m"
done

# An inet socket created before the launcher, under a mode that denies the
# network: without --close-fds it still sends to a local listener. UDP, because
# with Landlock ABI 4+ a TCP connect() is also walled off by Landlock's
# connect_tcp right; datagrams have no such second wall.
have python3 || { skip "python3: missing, no socket case"; finish; }
python3 - "$_scratch/port" "$_scratch/received" <<'PY' &
import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
s.settimeout(600)  # killed at the end; a loaded machine can take long between modes
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
try:
    while True:
        data = s.recv(64)
        with open(sys.argv[2], "ab") as f:
            f.write(data)
except OSError:
    pass
PY
lpid=$!
trap 'kill $lpid 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$_scratch/port" ] && break; sleep 0.1; done
port=$(cat "$_scratch/port")
# with_socket ARGS...: exec ARGS with an unconnected UDP socket as fd 9.
with_socket() {
  python3 -c 'import os, socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
os.dup2(s.fileno(), 9)
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}
for m in "${ESC_MODES[@]}"; do
  [ "$m" = --sandbox ] && continue
  rm -f "$_scratch/received"
  expect_status 0 "an inherited inet socket sends under $m without --close-fds (the risk)" \
    with_socket "$L" "$m" -- "$P/esc_fd" connect 9 "$port"
  for _ in $(seq 100); do [ -s "$_scratch/received" ] && break; sleep 0.1; done
  if grep -q escaped "$_scratch/received" 2>/dev/null; then
    pass "the datagram left the sandbox under $m"
  else
    fail "the listener received nothing under $m"
  fi
  expect_refused EBADF "--close-fds closes the inherited socket under $m" \
    with_socket "$L" "$m" --close-fds -- "$P/esc_fd" connect 9 "$port"
done
kill "$lpid" 2>/dev/null
finish
