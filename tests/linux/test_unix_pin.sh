#!/usr/bin/env bash
# A daemon socket moved away between two runs (review of issue 20, F4). The
# mask covers a listed socket's own name; a folder above it in a writable
# root, or a symlink on the host's name for it, could be renamed or replaced
# by one run, so that the next run found nothing at the listed name, masked
# nothing, and reached the daemon at its new one. Now every folder between
# such a socket and the root it lies in is a mount point in the run (rename:
# EBUSY), and a listed or allowed name looked up through a symlink or ".."
# a command could replace refuses the launch. Each route runs twice: the
# first run tries the move, the second tries the daemon; checked from outside
# (the tree after run 1, and what the client printed). Unconfined controls
# show every route works without the sandbox.
. "$SBX_TESTLIB"

have python3 || { skip "python3: the listeners are Python"; finish; }
require landlock "--sandbox" "$L" --sandbox -- true
base=$_scratch/pin
P=$base/proj
RT=$base/rt
mkdir -p "$P/run" "$P/a/b" "$RT/podman" "$base/dbus/sub" "$base/other"
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
}
trap cleanup EXIT
cd "$P" || exit 1

cat >"$base/listen.py" <<'EOF'
import os, socket, sys
path = sys.argv[1]
s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(64)
open(path + ".ready", "w").close()
while True:
    c, _ = s.accept(); c.sendall(b"hi\n"); c.close()
EOF
# "PATH: hi" when a daemon answers, "PATH: refused (...)" when not.
cat >"$base/client.py" <<'EOF'
import socket, sys
for path in sys.argv[1:]:
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(path); print(path + ": " + c.recv(16).decode().strip())
    except OSError as e:
        print(path + ": refused (%s)" % e.strerror)
EOF
# renameat2(RENAME_EXCHANGE): "exchanged" or the error.
cat >"$base/exchange.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
r = libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2)
print("exchanged" if r == 0 else "exchange: " + os.strerror(ctypes.get_errno()))
EOF
start() {
  python3 "$base/listen.py" "$1" &
  pids+=($!)
  for _ in $(seq 100); do [ -e "$1.ready" ] && return 0; sleep 0.05; done
  fail "listener at $1 did not start"
}
start "$P/run/d.sock"
start "$P/a/b/d.sock"
start "$RT/podman/podman.sock"
start "$base/dbus/sub/bus"
start "$base/other/d.sock"
client() { python3 "$base/client.py" "$@"; }
answered() { grep -qxF "$1: hi" "$_out"; }
SB=(env XDG_RUNTIME_DIR="$RT" "$L" --sandbox --project "$P")
# A non-root command's masks live in a user namespace; root's in its own.
if [ "$(id -u)" != 0 ] && lacks userns "--sandbox --deny-unix (the socket's mask)" \
  "${SB[@]}" --deny-unix "$P/run/d.sock" -- true; then
  finish
fi

expect_status 0 "unconfined: every daemon answers" client "$P/run/d.sock" "$P/a/b/d.sock" \
  "$RT/podman/podman.sock" "$base/dbus/sub/bus" "$base/other/d.sock"
n=$(grep -c ': hi$' "$_out")
[ "$n" = 5 ] && pass "  ...all five" || { fail "  ...$n of 5"; sed 's/^/    | /' "$_out"; }

# move_route NAME FROM TO SOCK-AFTER FLAGS...: run 1 renames FROM to TO under
# the flags; from outside FROM must still be there; run 2 (same flags) must
# not reach the daemon at SOCK-AFTER, the name it would have after the move.
move_route() {
  local name=$1 from=$2 to=$3 after=$4
  shift 4
  expect_status 0 "$name: run 1 (the move)" "${SB[@]}" "$@" -- sh -c "mv '$from' '$to' 2>&1; true"
  if [ -e "$from" ] && [ ! -e "$to" ]; then
    pass "  ...$from was not moved"
    grep -qE "${WANT_ERR:-busy}" "$_out" && pass "  ...refused: ${WANT_ERR:-busy}" || fail "  ...$(cat "$_out")"
  else
    fail "  ...$from was moved to $to"
  fi
  expect_status 0 "$name: run 2 (the daemon)" "${SB[@]}" "$@" -- python3 "$base/client.py" "$after"
  answered "$after" && fail "  ...the daemon answered at $after" || pass "  ...not reached"
  # Put the tree back for the next route when run 1 moved it.
  [ -e "$to" ] && [ ! -e "$from" ] && mv "$to" "$from"
  return 0
}

# The reproduction: --deny-unix proj/run/d.sock, then mv proj/run proj/run2.
move_route "the socket's folder" "$P/run" "$P/run2" "$P/run2/d.sock" --deny-unix "$P/run/d.sock"
# A folder two levels up, and the project itself (/tmp is a writable root too).
move_route "a folder two levels up" "$P/a" "$P/a2" "$P/a2/b/d.sock" --deny-unix "$P/a/b/d.sock"
move_route "the project folder itself" "$P" "$P-moved" "$P-moved/run/d.sock" --deny-unix "$P/run/d.sock"
# With protected paths the sockets share the masks' namespace (and root's
# nests one in its own): the same refusal (nobody's creation guard refuses a
# folder holding a mask first, EACCES).
if ! lacks userns "--protect-secrets (its masks)" "${SB[@]}" --protect-secrets -- true; then
  WANT_ERR="busy|Permission denied" move_route "the socket's folder, with --protect-secrets" "$P/run" "$P/run2" "$P/run2/d.sock" \
    --protect-secrets --deny-unix "$P/run/d.sock"
fi
# A read-only folder of the command's own: chmod is no Landlock right, so it
# is pinned as a writable one.
chmod 555 "$P/a"
expect_status 0 "a read-only folder the command owns: run 1 (chmod, then the move)" \
  "${SB[@]}" --deny-unix "$P/a/b/d.sock" -- sh -c "chmod u+w '$P/a'; mv '$P/a/b' '$P/a/b2' 2>&1; true"
if [ -d "$P/a/b" ] && [ ! -e "$P/a/b2" ]; then pass "  ...not moved"; else
  fail "  ...moved"
  expect_status 0 "  ...run 2" "${SB[@]}" --deny-unix "$P/a/b/d.sock" -- python3 "$base/client.py" "$P/a/b2/d.sock"
  answered "$P/a/b2/d.sock" && fail "  ...the daemon answered at its new name" || pass "  ...not reached"
  mv "$P/a/b2" "$P/a/b"
fi
chmod 755 "$P/a"
# A folder of the command's own made unsearchable (review r33, F3): chmod is
# no Landlock right, so run 1 can `chmod 0` the socket's folder; the next
# launch's lookup then failed with EACCES, read as "no daemon there", masked
# nothing, and its command restored the mode and reached the daemon. A lookup
# that a folder of one's own cuts short now refuses the launch (126). Root
# searches any folder: its run 2 masks the socket as before.
expect_status 0 "an unsearchable folder of the command's own: run 1 (chmod 0)" \
  "${SB[@]}" -- chmod 0 "$RT/podman"
chmod_got=$(stat -c %a "$RT/podman")
[ "$chmod_got" = 0 ] && pass "  ...made mode 0 (chmod is the command's right)" || fail "  ...mode $chmod_got"
expect_status 0 "  ...unconfined, the owner restores it and reaches the daemon" \
  sh -c "chmod 755 '$RT/podman' && chmod 0 '$RT/podman' && chmod 755 '$RT/podman' && python3 '$base/client.py' '$RT/podman/podman.sock'; chmod 0 '$RT/podman'"
answered "$RT/podman/podman.sock" && pass "  ...it answers" || fail "  ...$(cat "$_out")"
want=0; [ "$(id -u)" != 0 ] && want=126
expect_status "$want" "  ...run 2 $([ "$want" = 0 ] && echo "(root: masked anyway)" || echo "refuses the launch")" \
  "${SB[@]}" -- sh -c "chmod 755 '$RT/podman'; python3 '$base/client.py' '$RT/podman/podman.sock'"
answered "$RT/podman/podman.sock" && fail "  ...podman answered" || pass "  ...podman not reached"
[ "$want" = 126 ] && expect_output_has "without search permission" "  ...and says why"
# Review r74b: --explain said nothing of the refusal; it must say it.
if [ "$want" = 126 ]; then
  expect_status 0 "  ...--explain" "${SB[@]}" --explain -- true
  expect_output_has "the launch is REFUSED (exit 126): the socket path" "  ...--explain says the launch is refused, and why"
fi
chmod 755 "$RT/podman"
# The default list: a runtime directory inside /tmp (a container's), its
# podman folder and the runtime directory itself.
move_route "the default list's runtime folder" "$RT/podman" "$RT/podman2" "$RT/podman2/podman.sock"
move_route "the runtime directory" "$RT" "$RT-2" "$RT-2/podman/podman.sock"
# A D-Bus bus in a subfolder of /tmp, the project elsewhere.
DB=(env DBUS_SESSION_BUS_ADDRESS="unix:path=$base/dbus/sub/bus")
SBD=("${SB[@]}")
SB=("${DB[@]}" "${SBD[@]}")
move_route "a D-Bus bus's subfolder of /tmp" "$base/dbus/sub" "$base/dbus/sub2" "$base/dbus/sub2/bus"
SB=("${SBD[@]}")

expect_status 0 "--explain names the pinned folders" "${SB[@]}" --explain --deny-unix "$P/a/b/d.sock" -- true
expect_output_has "pinned $P/a/b (" "  ...the socket's folder"
expect_output_has "pinned $P (" "  ...and the project"

# RENAME_EXCHANGE with an empty folder: the same refusal.
mkdir -p "$P/empty"
expect_status 0 "renameat2(RENAME_EXCHANGE) of the socket's folder" \
  "${SB[@]}" --deny-unix "$P/run/d.sock" -- python3 "$base/exchange.py" "$P/run" "$P/empty"
expect_output_has "exchange: Device or resource busy" "  ...EBUSY"
[ -S "$P/run/d.sock" ] && pass "  ...the socket is where it was" || fail "  ...moved"

# The working directory inside the pinned folder: a relative connect meets
# the mask, a rename of ".." is refused.
# (The launcher starts there: the directory is entered before the mounts.)
expect_status 0 "from a working directory in the socket's folder" \
  sh -c 'cd "$1" && shift && exec "$@"' sh "$P/run" "${SB[@]}" --deny-unix "$P/run/d.sock" -- \
  sh -c "python3 '$base/client.py' d.sock; mv ../run ../run3 2>&1; true"
grep -qxF "d.sock: refused (Connection refused)" "$_out" && pass "  ...d.sock refused" || fail "  ...$(cat "$_out")"
[ -d "$P/run" ] && [ ! -e "$P/run3" ] && pass "  ...not moved" || { fail "  ...moved"; mv "$P/run3" "$P/run"; }

# A hard link made inside: the masked name links across mounts (EXDEV).
expect_status 0 "a hard link to the masked socket, made inside" \
  "${SB[@]}" --deny-unix "$P/run/d.sock" -- sh -c "ln '$P/run/d.sock' '$P/x.sock' 2>&1; true"
[ ! -e "$P/x.sock" ] && pass "  ...not made" || { fail "  ...made"; rm -f "$P/x.sock"; }
# One made outside refuses the launch (a mask covers one name).
ln "$base/other/d.sock" "$P/other-link.sock"
expect_status 126 "a listed socket with a second name refuses the launch" \
  "${SB[@]}" --deny-unix "$base/other/d.sock" -- true
expect_output_has "has another name" "  ...and says why"
rm -f "$P/other-link.sock"

# A symlink on the host's name, in the project: run 1 could point it away
# (here it points at an empty folder, then the client tries the real name).
ln -s "$base/other" "$P/link"
expect_status 126 "--deny-unix through a symlink a command could replace" \
  "${SB[@]}" --deny-unix "$P/link/d.sock" -- true
expect_output_has "looked up through $P/link" "  ...names the symlink"
ln -sfn "$P/empty" "$P/link"
expect_status 126 "  ...also once it points at nothing" "${SB[@]}" --deny-unix "$P/link/d.sock" -- \
  python3 "$base/client.py" "$base/other/d.sock"
answered "$base/other/d.sock" && fail "  ...the daemon answered" || pass "  ...the daemon was not reached"
expect_status 126 "--deny-unix through '..' past a folder a command could rename" \
  "${SB[@]}" --deny-unix "$P/empty/../run/d.sock" -- true
expect_output_has "looked up through $P/empty" "  ...names the folder"
SB=("${DB[@]}" "${SBD[@]}")
ln -s "$base/dbus/sub" "$P/buslink"
DB=(env DBUS_SESSION_BUS_ADDRESS="unix:path=$P/buslink/bus")
expect_status 126 "a D-Bus address through a symlink in a writable root" "${DB[@]}" "${SBD[@]}" -- true
SB=("${SBD[@]}")
# --allow-unix names the user's own socket; run 1 replaces it with a symlink
# to a listed one: run 2 must not reopen that one.
start "$P/mine.sock"
expect_status 0 "--allow-unix: run 1 replaces the allowed socket by a symlink" \
  "${SB[@]}" --allow-unix "$P/mine.sock" -- sh -c "rm -f '$P/mine.sock' && ln -s '$RT/podman/podman.sock' '$P/mine.sock'"
[ -L "$P/mine.sock" ] && pass "  ...replaced (it is the command's own file)" || fail "  ...not replaced"
expect_status 126 "--allow-unix: run 2 refuses, not reopening the listed socket" \
  "${SB[@]}" --allow-unix "$P/mine.sock" -- python3 "$base/client.py" "$RT/podman/podman.sock"
answered "$RT/podman/podman.sock" && fail "  ...podman answered" || pass "  ...podman not reached"
expect_output_has "allow-unix path reaches" "  ...and says why"
rm -f "$P/mine.sock"

# What must keep working. A stopped daemon leaves nothing to close: a run
# with an empty runtime folder and no socket of the list runs, and its
# folders are not pinned (nothing to pin them for).
mkdir -p "$base/rt2/podman"
expect_status 0 "a stopped daemon does not fail an ordinary run" \
  env XDG_RUNTIME_DIR="$base/rt2" "$L" --sandbox --project "$P" -- \
  sh -c "mv '$base/rt2/podman' '$base/rt2/podman-old' && echo moved"
expect_output_has "moved" "  ...and its empty folder moves as any other"
# Ordinary work in and around a pinned folder.
expect_status 0 "work in a pinned folder: write, rename inside, remove" \
  "${SB[@]}" --deny-unix "$P/run/d.sock" -- \
  sh -c "echo x > '$P/run/f' && mv '$P/run/f' '$P/run/g' && rm '$P/run/g' && mkdir '$P/run/t' && rmdir '$P/run/t' && git init -q '$P/repo' && echo done"
expect_output_has "done" "  ...all of it"
rm -rf "$P/repo"
finish
