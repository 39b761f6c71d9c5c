#!/usr/bin/env bash
# Local daemons as deputies (issue 20): under --sandbox (and --confine-fs,
# and a class) the sockets of daemons that act outside the sandbox are
# closed: listeners started here at the container engines' and systemd's
# well-known paths (rootless ones under a runtime directory of the test's,
# Docker Desktop's under the test's home, and as root the system paths that
# are free), a real dbus-daemon on a session bus, and a deputy that hands
# its caller a connected TCP socket over SCM_RIGHTS. Each is reached
# unconfined first (the check can fail), refused confined, reopened by
# --allow-unix alone, and an ordinary socket (an agent's) stays open.
# Checked from outside: what the command printed of its connects.
#
# As root the listeners sit at the system's own paths (/run/docker.sock...):
# over a tmpfs /run in a mount namespace of this test's own, so no test
# running at the same time meets them. A nobody's --sandbox there needed
# masks for them, and exited 126 where user namespaces are refused (the
# fresh root's chroot run: test_unix_endpoints.nobody and
# test_unix_abstract.nobody failed beside this test).
if [ "$(id -u)" = 0 ] && [ -z "${SBX_PRIVATE_RUN:-}" ] && unshare -m true 2>/dev/null; then
  exec env SBX_PRIVATE_RUN=1 unshare -m --propagation private \
    sh -c 'mount -t tmpfs -o mode=755 sbx-run /run && exec bash "$0"' "$0"
fi
. "$SBX_TESTLIB"

have python3 || { skip "python3: the listeners are Python"; finish; }
base=$(mktemp -d /var/tmp/sbx-unix.XXXXXX)
chmod 755 "$base"
mkdir -p "$base/proj" "$base/home" "$base/rt" "$base/agent"
RT=$base/rt
H=$base/home
pids=()
made=()
cleanup() {
  local p f
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  for f in "${made[@]}"; do rm -f "$f"; done
  rm -rf "$base"
}
trap cleanup EXIT
cd "$base/proj" || exit 1
require landlock "--sandbox" "$L" --sandbox -- true

# A listener that answers "hi" to every connection, or, with "deputy", sends
# its caller a TCP socket connected to a loopback listener (SCM_RIGHTS).
cat >"$base/proj/listen.py" <<'EOF'
import os, socket, sys, array, threading
path, mode = sys.argv[1], sys.argv[2]
os.makedirs(os.path.dirname(path), exist_ok=True)
s = socket.socket(socket.AF_UNIX); s.bind(path); os.chmod(path, 0o666); s.listen(64)
tcp = None
if mode == "deputy":
    tcp = socket.socket(); tcp.bind(("127.0.0.1", 0)); tcp.listen(64)
    def serve_tcp():
        while True:
            c, _ = tcp.accept(); c.sendall(b"tcp-reached\n"); c.close()
    threading.Thread(target=serve_tcp, daemon=True).start()
open(path + ".ready", "w").close()
while True:
    c, _ = s.accept()
    if tcp:
        t = socket.create_connection(tcp.getsockname())
        c.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [t.fileno()]))])
        t.close()
    else:
        c.sendall(b"hi\n")
    c.close()
EOF
# The client: "PATH: answer" or "PATH: refused (errno)"; with "fd", it reads
# the passed socket and what the TCP listener says through it.
cat >"$base/proj/client.py" <<'EOF'
import socket, sys, array
for path in sys.argv[1:]:
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(path)
        msg, anc, _, _ = c.recvmsg(16, socket.CMSG_LEN(4))
        if anc:
            fd = array.array("i", anc[0][2][:4])[0]
            t = socket.socket(fileno=fd)
            print(path + ": passed " + t.recv(64).decode().strip())
        else:
            print(path + ": " + msg.decode().strip())
    except OSError as e:
        print(path + ": refused (%s)" % e.strerror)
EOF
start() { # start PATH MODE: a listener, recorded for cleanup
  python3 "$base/proj/listen.py" "$1" "$2" &
  pids+=($!)
  made+=("$1" "$1.ready")
  for _ in $(seq 100); do [ -e "$1.ready" ] && return 0; sleep 0.05; done
  fail "listener at $1 did not start"
}
ENV=(env HOME="$H" XDG_RUNTIME_DIR="$RT")

# The privileged ones, per the default list (src/linux/unixep.c).
priv=("$RT/docker.sock" "$RT/podman/podman.sock" "$RT/buildkit/buildkitd.sock"
      "$RT/systemd/private" "$H/.docker/run/docker.sock")
[ "$(id -u)" = 0 ] && for p in /run/docker.sock /run/containerd/containerd.sock /run/systemd/private \
                                /run/buildkit/buildkitd.sock /run/podman/podman.sock; do
  [ -e "$p" ] || [ -L "$p" ] || priv+=("$p")
done
for p in "${priv[@]}"; do start "$p" plain; done
agent=$base/agent/agent.sock
start "$agent" plain
deputy=$RT/containerd-rootless/containerd.sock
start "$deputy" deputy
chmod -R a+rX "$base"

run_client() { "${ENV[@]}" "$@" python3 "$base/proj/client.py" "${priv[@]}" "$agent" "$deputy"; }
answered() { grep -qxF "$1: hi" "$_out"; }
refused() { grep -qxF "$1: refused (Connection refused)" "$_out"; }

expect_status 0 "unconfined: every listener answers" run_client
for p in "${priv[@]}" "$agent"; do
  answered "$p" && pass "  ...$p answers unconfined" || fail "  ...$p did not answer unconfined"
done
grep -qxF "$deputy: passed tcp-reached" "$_out" && pass "  ...the deputy hands over a TCP socket" ||
  fail "  ...the deputy did not hand over its socket"
# A non-root command's masks live in a user namespace; root's in its own.
if [ "$(id -u)" != 0 ] && lacks userns "--sandbox with listed sockets present (their masks)" \
  "${ENV[@]}" "$L" --sandbox -- true; then
  finish
fi

for mode in --sandbox --confine-fs "--class build"; do
  # shellcheck disable=SC2086
  expect_status 0 "$mode" run_client "$L" $mode --
  for p in "${priv[@]}"; do
    refused "$p" && pass "  ...$p refused" || { fail "  ...$p not refused"; sed 's/^/    | /' "$_out"; }
  done
  answered "$agent" && pass "  ...an agent's socket stays open" || fail "  ...the agent's socket was closed"
  refused "$deputy" && pass "  ...the deputy is refused: no TCP socket handed over" ||
    fail "  ...the deputy was reached"
done

expect_status 0 "--allow-unix reopens exactly the one named" \
  run_client "$L" --sandbox --allow-unix "$RT/systemd/private" --
for p in "${priv[@]}"; do
  if [ "$p" = "$RT/systemd/private" ]; then
    answered "$p" && pass "  ...$p answers" || fail "  ...$p still refused"
  else
    refused "$p" && pass "  ...$p still refused" || fail "  ...$p reopened too"
  fi
done
# A supervised run (issue 20's records): each closed socket is a stand-in
# of the supervisor's, which accepts, records who and which name, and closes
# at once, never reading or sending. The command still never reaches the
# daemon (an empty answer instead of ECONNREFUSED); the allowed socket and
# the agent's answer and are no record. Checked from the outcome the host
# reads, and from /tmp, where the stand-ins are bound for a moment.
closed() { grep -qxF "$1: " "$_out"; }
recs() { /usr/bin/python3 -c '
import json, sys
print(" ".join("%s:%d" % (r["path"], r["count"]) for r in json.load(open(sys.argv[1]))["records"]
               if r["kind"] == "closed_endpoint"))' "$base/out.json"; }
covers_before=$(find /tmp /dev/shm -maxdepth 1 -type s -name '.sbx-cover-*' 2>/dev/null | sort)
expect_status 0 "supervised: each closed socket ends at once, and is a record with its name" \
  run_client "$L" --sandbox --allow-unix "$RT/systemd/private" --outcome-fd 3 -- 3>"$base/out.json"
for p in "${priv[@]}" "$deputy"; do
  [ "$p" = "$RT/systemd/private" ] && continue
  closed "$p" && pass "  ...$p closed unanswered" || fail "  ...$p: $(grep -F "$p:" "$_out")"
done
answered "$RT/systemd/private" && answered "$agent" && pass "  ...the allowed and the agent's answer" ||
  fail "  ...$(cat "$_out")"
want=$(printf '%s\n' "${priv[@]}" "$deputy" | grep -vxF "$RT/systemd/private" | sort | tr '\n' ' ')
if /usr/bin/python3 -c '
import json, sys
o = json.load(open(sys.argv[1]))
recs = [r for r in o["records"] if r["kind"] == "closed_endpoint"]
got = " ".join(sorted(r["path"] for r in recs)) + " "
ok = got == sys.argv[2] and all(r["syscall"] == "connect" and r["action"] == "CLOSED"
                               and r["family_name"] == "AF_UNIX" and r["comm"] == "python3"
                               and r["count"] == 1 and r["pid"] > 1 for r in recs)
ok = ok and "tried to connect to" in o["summary"]
sys.exit(0 if ok else 1)' "$base/out.json" "$want"; then
  pass "  ...one record per closed socket, none for the allowed or the agent's"
else fail "  ...records differ: $(cat "$base/out.json")"; fi
covers() { find /tmp /dev/shm -maxdepth 1 -type s -name '.sbx-cover-*' 2>/dev/null | sort; }
left=$(comm -13 <(printf '%s\n' "$covers_before") <(covers))
[ -z "$left" ] && pass "  ...no stand-in's name left in /tmp or /dev/shm" || fail "  ...left: $left"
# A relative name and a link the command planted: the record names the
# socket (the mask's own name, what --allow-unix takes), never the link; a
# protected file, masked too, is no closed socket and no record; a process
# that connects and exits at once is recorded all the same.
ln -s "$RT/docker.sock" "$base/proj/dock"
echo "TOKEN=1" >"$base/proj/.env"
cat >"$base/proj/quick.py" <<'EOF'
import os, socket, sys
for path in sys.argv[1:]:
    try: socket.socket(socket.AF_UNIX).connect(path); print(path + ": connected")
    except OSError as e: print(path + ": refused (%s)" % e.strerror)
sys.stdout.flush(); os._exit(0)
EOF
# (Protected paths need the masks' user namespace, root's too: where that is
# refused, as in a chroot, the protected file's part is skipped.)
pargs=()
pfile=()
if have guard; then
  pargs=(--protect-secrets)
  pfile=("$base/proj/.env")
else
  skip "guard: a protected file as no closed socket needs protected paths (a user namespace)"
fi
expect_status 0 "supervised: a relative name and a link are recorded as the socket's name" \
  env -C "$RT" "${ENV[@]}" "$L" --sandbox "${pargs[@]}" --outcome-fd 3 -- \
  python3 "$base/proj/quick.py" docker.sock "$base/proj/dock" "${pfile[@]}" 3>"$base/out.json"
[ "${#pfile[@]}" = 0 ] ||
  expect_output_has "$base/proj/.env: refused (Connection refused)" "  ...the protected file refused"
[ "$(recs)" = "$RT/docker.sock:2" ] && pass "  ...one record, the socket's name, count 2" ||
  fail "  ...records: '$(recs)'"
rm -f "$base/proj/.env" "$base/proj/dock"
# The stand-ins are the supervisor's alone: the command holds no listening
# socket (with one it could take the connects meant for the record); and a
# flood of connects is recorded to the last and ends with the command.
cat >"$base/proj/flood.py" <<'EOF'
import os, socket, sys
n = 0
for fd in map(int, os.listdir("/proc/self/fd")):
    try:
        s = socket.socket(fileno=os.dup(fd))
        n += s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
    except OSError: pass
print("listening:", n)
for _ in range(int(sys.argv[2])):
    socket.socket(socket.AF_UNIX).connect(sys.argv[1])
print("done")
EOF
expect_status 0 "supervised: the command holds no stand-in; 2000 connects are 2000 records" \
  timeout 60 "${ENV[@]}" "$L" --sandbox --outcome-fd 3 -- python3 "$base/proj/flood.py" "$RT/docker.sock" 2000 \
  3>"$base/out.json"
expect_output_has "listening: 0" "  ...no listening socket in the command"
[ "$(recs)" = "$RT/docker.sock:2000" ] && pass "  ...2000 recorded" || fail "  ...records: '$(recs)'"
# Only where the caller could connect to the socket itself: one it may not
# (mode 000; root's DAC capabilities pass it) stays refused, no record.
shut=$RT/buildkit/buildkitd.sock
chmod 000 "$shut"
expect_status 0 "supervised: a socket the caller may not connect to stays refused" \
  "${ENV[@]}" "$L" --sandbox --outcome-fd 3 -- python3 "$base/proj/quick.py" "$shut" 3>"$base/out.json"
if [ "$(id -u)" = 0 ]; then
  [ "$(recs)" = "$shut:1" ] && pass "  ...root passes the mode: recorded" || fail "  ...records: '$(recs)'"
else
  expect_output_has "$shut: refused (Connection refused)" "  ...refused"
  [ -z "$(recs)" ] && pass "  ...no record" || fail "  ...records: '$(recs)'"
fi
chmod 666 "$shut"
# Review r73b F4: root's stand-in takes the closed socket's own mode and
# owner, not the fresh name's 0700: a command that drops to another account
# still connects (and is recorded) where the socket's mode lets it.
if [ "$(id -u)" = 0 ] && have setpriv && [ -x /usr/bin/python3 ]; then
  expect_status 0 "supervised, root: a command dropped to nobody meets the socket's own mode" \
    "${ENV[@]}" "$L" --sandbox --outcome-fd 3 -- setpriv --reuid=nobody --regid=nogroup --clear-groups \
    /usr/bin/python3 "$base/proj/quick.py" "$RT/docker.sock" 3>"$base/out.json"
  expect_output_has "$RT/docker.sock: connected" "  ...connected to the stand-in"
  [ "$(recs)" = "$RT/docker.sock:1" ] && pass "  ...recorded" || fail "  ...records: '$(recs)'"
fi
# Review r72 F4: a socket named with --deny-unix may be a datagram one, and
# a stream stand-in made logger's retry as a stream "succeed" into nothing.
# Named sockets keep /dev/null: both the datagram and the stream retry are
# refused, and nothing is recorded.
cat >"$base/proj/dgram.py" <<'EOF'
import os, socket, sys
path = sys.argv[1]
if sys.argv[2] == "serve":
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(path); os.chmod(path, 0o666)
    open(path + ".ready", "w").close()
    while True: s.recv(64)
for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
    c = socket.socket(socket.AF_UNIX, kind)
    try:
        if kind == socket.SOCK_DGRAM: c.sendto(b"x", path)
        else: c.connect(path); c.send(b"x")
        print(kind.name, "sent")
    except OSError as e: print(kind.name, "refused", e.errno)
EOF
python3 "$base/proj/dgram.py" "$base/agent/log.sock" serve &
pids+=($!)
made+=("$base/agent/log.sock" "$base/agent/log.sock.ready")
for _ in $(seq 100); do [ -e "$base/agent/log.sock.ready" ] && break; sleep 0.05; done
expect_status 0 "unconfined: a datagram reaches the named socket" \
  python3 "$base/proj/dgram.py" "$base/agent/log.sock" send
expect_output_has "SOCK_DGRAM sent" "  ...sent"
expect_status 0 "supervised: a named datagram socket is refused, its stream retry too, unrecorded" \
  "${ENV[@]}" "$L" --sandbox --deny-unix "$base/agent/log.sock" --outcome-fd 3 -- \
  python3 "$base/proj/dgram.py" "$base/agent/log.sock" send 3>"$base/out.json"
grep -qx "SOCK_DGRAM refused 111" "$_out" && grep -qx "SOCK_STREAM refused 111" "$_out" &&
  pass "  ...both refused" || fail "  ...$(tr '\n' ';' <"$_out")"
[ -z "$(recs)" ] && pass "  ...no record" || fail "  ...records: '$(recs)'"
# Review r72 F2: a launcher nested in a supervised run finds the enclosing
# run's stand-in at the closed name. It cannot mount over it (no mounts in a
# Landlock domain) and must not fail for it: it is closed already, and the
# enclosing run records the inner command's connect.
expect_status 0 "nested in a supervised run: the inner launch runs, the socket still closed" \
  "${ENV[@]}" "$L" --sandbox --outcome-fd 3 -- "$L" --sandbox -- python3 "$base/proj/client.py" "$RT/docker.sock" \
  3>"$base/out.json"
closed "$RT/docker.sock" && pass "  ...closed unanswered" || fail "  ...$(cat "$_out")"
[ "$(recs)" = "$RT/docker.sock:1" ] && pass "  ...recorded by the enclosing run" || fail "  ...records: '$(recs)'"
# What the enclosing run left open cannot be closed from inside it (no
# mounts there): refused, saying why.
expect_status 126 "nested: --deny-unix of a socket the enclosing run left open is refused" \
  "${ENV[@]}" "$L" --sandbox -- "$L" --sandbox --deny-unix "$agent" -- true
# (Where user namespaces are refused the launcher says that first.)
why="inside another sandbox no mask can be made"
have userns || why="user namespaces are refused here"
grep -q "$why" "$_err" && pass "  ...saying why" || fail "  ...$(cat "$_err")"
# At the run's end the supervisor takes what is still queued: a burst of
# connects (more than one round's 64) from a process that exits at once,
# the supervisor stopped meanwhile (SIGSTOP from outside, so the connects
# wait in the backlog), is recorded to the last.
cat >"$base/proj/burst.py" <<'EOF'
import socket, sys
n = 0
keep = []
for _ in range(200):
    c = socket.socket(socket.AF_UNIX); c.setblocking(False)
    try: c.connect(sys.argv[1]); n += 1; keep.append(c)
    except OSError: break
open("burst.out", "w").write("%d\n" % n)
EOF
rm -f "$base/proj/go" "$base/proj/burst.out" "$base/proj/cmd.pid"
"${ENV[@]}" "$L" --sandbox --outcome-fd 3 -- sh -c \
  'echo $$ >cmd.pid; while [ ! -e go ]; do sleep 0.05; done; exec python3 burst.py "$0"' "$RT/docker.sock" \
  3>"$base/out.json" &
run=$!
for _ in $(seq 200); do [ -s "$base/proj/cmd.pid" ] && break; sleep 0.05; done
# The supervisor is the command's parent (the launcher is its host).
sup=$(awk '{print $4}' "/proc/$(cat "$base/proj/cmd.pid")/stat")
kill -STOP "$sup"
touch "$base/proj/go"
for _ in $(seq 200); do [ -s "$base/proj/burst.out" ] && break; sleep 0.05; done
sleep 0.3
kill -CONT "$sup"
wait "$run"
n=$(cat "$base/proj/burst.out" 2>/dev/null)
[ "${n:-0}" -gt 64 ] && [ "${n:-0}" -le 66 ] && [ "$(recs)" = "$RT/docker.sock:$n" ] &&
  pass "a burst of $n queued connects, the process gone at once: all recorded" ||
  fail "a burst of '${n:-?}' queued connects: records '$(recs)'"
# Review r72b F3: a process outside the run reaches the stand-in through
# /proc/PID/root of the command; it is no refusal of the run's: no record.
# The command lasts until the outside process has connected (a fixed
# sleep was a race on a loaded run), 60 s at most.
rm -f "$base/proj/cmd.pid" "$base/proj/outside.done"
"${ENV[@]}" "$L" --sandbox --outcome-fd 3 -- sh -c \
  'echo $$ >cmd.pid; i=0; while [ ! -e outside.done ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done' \
  3>"$base/out.json" &
run=$!
for _ in $(seq 1200); do [ -s "$base/proj/cmd.pid" ] && break; sleep 0.05; done
# The outside process stays alive until the run has ended: a peer that is
# already gone when the supervisor reads its credentials is recorded on
# purpose (a quick command of the run's own must not slip by), so an outside
# process that exits at once would be recorded on a loaded machine (a CI
# run saw it).
rm -f "$base/outside.out"
python3 -c 'import socket, sys, time
try: socket.socket(socket.AF_UNIX).connect(sys.argv[1]); r = "connected"
except OSError as e: r = "refused (%s)" % e.strerror
open(sys.argv[2], "w").write(sys.argv[1] + ": " + r + "\n"); time.sleep(60)' \
  "/proc/$(cat "$base/proj/cmd.pid")/root$RT/docker.sock" "$base/outside.out" &
opid=$!
for _ in $(seq 1200); do [ -s "$base/outside.out" ] && break; sleep 0.05; done
touch "$base/proj/outside.done"
wait "$run"
kill "$opid" 2>/dev/null; wait "$opid" 2>/dev/null
outside=$(cat "$base/outside.out" 2>/dev/null)
case $outside in
  *": connected") [ -z "$(recs)" ] && pass "an outside process at the stand-in (through /proc/PID/root) makes no record" ||
                   fail "an outside process's connect was recorded: '$(recs)'" ;;
  *) fail "an outside process could not reach the stand-in through /proc/PID/root: $outside" ;;
esac
# Review r72 F1: a process of the same account swaps a stand-in's fresh
# name in /tmp, between its bind and its mount, for a link to the closed
# socket itself (another sandboxed command can: /tmp is writable to it).
# The launch pins the inode and proves it its listener's own before the
# mount, so a swap only costs the record. Both on one CPU and the launch
# niced: the swap then won every run before.
# Swapped late (name_swap attrib: just before the launch unlinks the
# fresh name, the name it took removed at once), the mount showed the
# probe's name, which a nested launcher did not take for a stand-in: it
# exited 126 (CI's nobody run, its root twin's probe beside it). A stand-in
# now goes only by its own name, else /dev/null: a nested launch runs.
if have taskset; then
  for when in bind attrib; do
    late=(); [ "$when" = attrib ] && late=(attrib)
    taskset -c 0 "$SBX_PROBES/name_swap" "$RT/docker.sock" 60 "${late[@]}" >"$base/swap.out" &
    swp=$!
    for _ in $(seq 100); do grep -q watching "$base/swap.out" && break; sleep 0.05; done
    hits=0 nested=0
    for _ in 1 2 3 4 5 6 7 8; do
      "${ENV[@]}" taskset -c 0 nice -n 10 "$L" --sandbox --outcome-fd 3 -- sh -c \
        '"$0" --sandbox -- true; echo "nested: $?"; exec python3 "$1" "$2"' \
        "$L" "$base/proj/client.py" "$RT/docker.sock" 3>/dev/null >"$base/swap.run" 2>&1 || :
      grep -qxF "$RT/docker.sock: hi" "$base/swap.run" && hits=$((hits + 1))
      grep -qxF "nested: 0" "$base/swap.run" || { nested=$((nested + 1)); sed 's/^/    | /' "$base/swap.run"; }
    done
    kill "$swp" 2>/dev/null; wait "$swp" 2>/dev/null
    [ "$hits" = 0 ] && pass "a stand-in's name swapped at its $when: the daemon was never reached (8 runs)" ||
      fail "a stand-in's name swapped at its $when: the daemon answered in $hits of 8 runs"
    [ "$nested" = 0 ] && pass "  ...and a launcher nested in each run ran" ||
      fail "  ...a launcher nested in the run failed in $nested of 8 runs"
  done
  rm -f /tmp/sbx-swap-*
else
  skip "taskset: the stand-in's name swap pins both sides to one CPU"
fi
# Without a supervisor nothing accepts: /dev/null covers it, refused.
expect_status 0 "unsupervised: the same socket is refused, not accepted" \
  "${ENV[@]}" "$L" --sandbox -- python3 "$base/proj/quick.py" "$RT/docker.sock"
expect_output_has "$RT/docker.sock: refused (Connection refused)" "  ...refused"
# Through a link to the socket: the name is resolved before comparing.
ln -s "$H/.docker/run/docker.sock" "$base/link.sock"
expect_status 0 "--allow-unix through a link names the socket it reaches" \
  run_client "$L" --sandbox --allow-unix "$base/link.sock" --
answered "$H/.docker/run/docker.sock" && pass "  ...Docker Desktop's socket answers" ||
  fail "  ...still refused"
expect_status 0 "--deny-unix closes an agent's socket too" \
  run_client "$L" --sandbox --deny-unix "$agent" --
refused "$agent" && pass "  ...refused" || fail "  ...not refused"
expect_status 2 "--allow-unix needs an absolute path" "$L" --sandbox --allow-unix rel -- true

# Root's namespace covers the sockets itself: root keeps the DAC power the
# sandbox leaves it (writing another account's file in the project), which
# the masks' user namespace would take away.
if [ "$(id -u)" = 0 ]; then
  echo old >"$base/proj/theirs"; chown 65534:65534 "$base/proj/theirs"; chmod 644 "$base/proj/theirs"
  expect_status 0 "root, with sockets closed, still writes another account's file in the project" \
    "${ENV[@]}" "$L" --sandbox -- sh -c "echo new > '$base/proj/theirs'"
  grep -qx new "$base/proj/theirs" && pass "  ...written" || fail "  ...not written"
fi

# A datagram to a closed socket fails too (sendto's address is resolved
# by the kernel at the call, like connect's).
cat >"$base/proj/dgram.py" <<'EOF'
import socket, sys
d = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
try:
    d.sendto(b"x", sys.argv[1]); print("sent")
except OSError as e:
    print("refused (%s)" % e.strerror)
EOF
python3 -c 'import socket,sys,os; s=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM); s.bind(sys.argv[1]); os.chmod(sys.argv[1],0o666); open(sys.argv[1]+".ready","w").close(); import time; time.sleep(600)' \
  "$RT/systemd/notify-test" &
pids+=($!)
made+=("$RT/systemd/notify-test" "$RT/systemd/notify-test.ready")
for _ in $(seq 100); do [ -e "$RT/systemd/notify-test.ready" ] && break; sleep 0.05; done
expect_status 0 "unconfined: a datagram reaches a socket" python3 "$base/proj/dgram.py" "$RT/systemd/notify-test"
grep -qx sent "$_out" && pass "  ...sent" || fail "  ...not sent"
expect_status 0 "--deny-unix on a datagram socket: sendto refused" \
  "${ENV[@]}" "$L" --sandbox --deny-unix "$RT/systemd/notify-test" -- python3 "$base/proj/dgram.py" "$RT/systemd/notify-test"
grep -qx "refused (Connection refused)" "$_out" && pass "  ...refused" || fail "  ...$(cat "$_out")"

# A real session bus: dbus-daemon on $RT/bus. Without a filtering proxy the
# bus is closed whole (its services include org.freedesktop.systemd1, which
# runs commands outside: systemd-run --user); --allow-unix reopens it.
if command -v dbus-daemon >/dev/null && command -v dbus-send >/dev/null; then
  dbus-daemon --session --address="unix:path=$RT/bus" --nofork --nopidfile 2>/dev/null &
  pids+=($!)
  made+=("$RT/bus")
  for _ in $(seq 100); do [ -S "$RT/bus" ] && break; sleep 0.05; done
  chmod 666 "$RT/bus" 2>/dev/null
  DB=(env HOME="$H" XDG_RUNTIME_DIR="$RT" DBUS_SESSION_BUS_ADDRESS="unix:path=$RT/bus")
  ask=(dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus
       org.freedesktop.DBus.ListNames)
  expect_status 0 "unconfined: the session bus answers" "${DB[@]}" "${ask[@]}"
  expect_status 1 "--sandbox: the session bus is closed" "${DB[@]}" "$L" --sandbox -- "${ask[@]}"
  expect_output_has "Connection refused" "  ...connect refused"
  expect_status 0 "--allow-unix reopens the bus" "${DB[@]}" "$L" --sandbox --allow-unix "$RT/bus" -- "${ask[@]}"
else
  fail "dbus-daemon or dbus-send missing (apt-get install dbus-daemon dbus-bin)"
fi

# Every unix:path= entry of a D-Bus address counts: a client tries them in
# turn, so a stale first path must not leave a live second one open (review
# of issue 20, U3). The live one is at a path no default entry names.
start "$base/live-bus" plain
addr="unix:path=$base/stale-bus;unix:path=$base/live-bus"
expect_status 0 "unconfined: the second path of a D-Bus address answers" \
  env DBUS_SESSION_BUS_ADDRESS="$addr" python3 "$base/proj/client.py" "$base/live-bus"
grep -qxF "$base/live-bus: hi" "$_out" && pass "  ...answered" || fail "  ...$(cat "$_out")"
expect_status 0 "--sandbox: the second path of a D-Bus address is closed too" \
  env DBUS_SESSION_BUS_ADDRESS="$addr" "$L" --sandbox -- python3 "$base/proj/client.py" "$base/live-bus"
grep -qxF "$base/live-bus: refused (Connection refused)" "$_out" && pass "  ...refused" ||
  fail "  ...$(cat "$_out")"

if [ "$(id -u)" = 0 ]; then
  # Root's DAC capabilities open another user's 0700 runtime directory: its
  # user manager and rootless engines are closed as well (review, U1).
  other=/run/user/4242
  if [ ! -e "$other" ]; then
    mkmade=; [ -d /run/user ] || mkmade=1
    mkdir -p "$other"
    start "$other/systemd/private" plain
    chmod 700 "$other"
    expect_status 0 "unconfined: root reaches $other/systemd/private" \
      "${ENV[@]}" python3 "$base/proj/client.py" "$other/systemd/private"
    grep -qxF "$other/systemd/private: hi" "$_out" && pass "  ...answered" || fail "  ...$(cat "$_out")"
    expect_status 0 "--sandbox: root does not reach another user's manager" \
      "${ENV[@]}" "$L" --sandbox -- python3 "$base/proj/client.py" "$other/systemd/private"
    grep -qxF "$other/systemd/private: refused (Connection refused)" "$_out" && pass "  ...refused" ||
      fail "  ...$(cat "$_out")"
    kill "${pids[-1]}" 2>/dev/null
    rm -rf "$other"
    [ -n "$mkmade" ] && rmdir /run/user 2>/dev/null
  fi
  # Where no mask can be made (user namespaces off, here one mount
  # namespace's view of max_user_namespaces = 0), nobody's default list
  # degrades with a loud warning, as writes do without Landlock; a socket
  # the host named with --deny-unix fails closed.
  echo 0 >"$base/zero"
  chmod 644 "$base/zero"
  nouserns() {
    unshare -m sh -c 'mount --bind "$0" /proc/sys/user/max_user_namespaces && exec "$@"' "$base/zero" \
      setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"
  }
  expect_status 0 "without user namespaces, nobody's --sandbox runs" \
    nouserns "${ENV[@]}" "$L" --sandbox -- python3 "$base/proj/client.py" "$RT/docker.sock"
  expect_output_has "privileged sockets are NOT closed" "  ...and says the sockets stay open"
  expect_status 126 "without user namespaces, --deny-unix fails closed" \
    nouserns "${ENV[@]}" "$L" --sandbox --deny-unix "$agent" -- true
  expect_output_has "named with --deny-unix cannot be closed" "  ...and says why"
fi

# A runtime directory reached oddly (review r74): the quick lookup that
# skips absent names must not skip one the full walk would close. A link
# whose target ends in "/" (the kernel: ENOTDIR; the walk: the socket), and
# a /proc/PID/root magic link into another mount namespace, where the
# kernel finds nothing while the walk follows the link's text to the
# socket. The socket is reached unconfined first through its real name.
odd=$base/odd
mkdir -p "$odd/rt1" "$odd/rt2"
start "$odd/real/d.sock" plain
ln -s "$odd/real/d.sock/" "$odd/rt1/docker.sock"
chmod -R a+rX "$odd"
expect_status 0 "unconfined: the odd runtime directories' socket answers" \
  python3 "$base/proj/client.py" "$odd/real/d.sock"
answered "$odd/real/d.sock" && pass "  ...answers" || fail "  ...$(cat "$_out")"
expect_status 0 "--sandbox, the runtime directory's docker.sock a link to the socket with a trailing /" \
  env HOME="$H" XDG_RUNTIME_DIR="$odd/rt1" "$L" --sandbox -- python3 "$base/proj/client.py" "$odd/real/d.sock"
refused "$odd/real/d.sock" && pass "  ...refused" || fail "  ...reached: $(cat "$_out")"
start "$odd/rt2/docker.sock" plain
if [ "$(id -u)" = 0 ]; then ns=(unshare -m); else ns=(unshare -Urm); fi
if "${ns[@]}" true 2>/dev/null; then
  "${ns[@]}" sh -c 'mount -t tmpfs none "$0" && exec sleep 300' "$odd/rt2" &
  nsp=$!
  pids+=("$nsp")
  for _ in $(seq 100); do
    [ "$(readlink "/proc/$nsp/exe" 2>/dev/null)" = "$(readlink -f "$(command -v sleep)")" ] && break
    sleep 0.05
  done
  # The walk reads the link's text: "/" where the other namespace shares
  # this root. In a chroot it reads as the host's path to the chroot, which
  # the walk cannot follow either (the launcher before the quick lookup
  # left the socket open there too), and no user namespace is allowed.
  if [ "$(readlink "/proc/$nsp/root")" != / ]; then
    skip "userns: /proc/PID/root of another mount namespace reads as $(readlink "/proc/$nsp/root") here (a chroot)"
  else
  expect_status 0 "--sandbox, the runtime directory a /proc/PID/root link into another mount namespace" \
    env HOME="$H" XDG_RUNTIME_DIR="/proc/$nsp/root$odd/rt2" "$L" --sandbox -- \
    python3 "$base/proj/client.py" "$odd/rt2/docker.sock"
  refused "$odd/rt2/docker.sock" && pass "  ...refused" || fail "  ...reached: $(cat "$_out")"
  fi
else
  skip "userns: no mount namespace of the test's own to hide the socket in"
fi

# --explain names what is closed on this machine, and what stays open.
expect_status 0 "--explain lists the closed sockets" "${ENV[@]}" "$L" --explain --sandbox -- true
expect_output_has "closed $RT/systemd/private" "  ...the user manager's private socket"
expect_output_has "ssh-agent and gpg-agent" "  ...and says the agents stay open"
finish
