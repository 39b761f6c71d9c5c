#!/usr/bin/env bash
# Escape class: the user's other terminals (issue 17, item 11). A pty of
# another terminal window or tmux pane, /dev/pts/N, is the user's own: a
# command that writes to it sets the clipboard (OSC 52), retitles the
# window or draws a fake prompt there, and one that reads it takes the
# keystrokes typed into it. The test opens such a pty here, outside the
# sandbox (python's os.openpty), runs the command, then reads the master:
# what arrived is checked from outside.
#
# Where the command has a private mount namespace (root in every confining
# mode; anyone with protected paths) it gets a devpts instance of its own:
# the other pty has no name there, and the ptys it opens itself (script,
# python's pty) are granted by a Landlock rule made on that instance.
# --read-only grants only the command's own terminal. What stays open, and
# is checked as the documented behaviour: --no-network alone (nothing is
# confined), and --confine-fs/--sandbox for a user without protected paths
# (no namespace to hold an instance; Landlock grants /dev/pts whole), and a
# class for that user too (it grants /dev/pts for reading as well).
. "$SBX_TESTLIB"
. "${1:?usage: test_ptys.sh PATH/escape.sh}"
have pty || esc_skip_all "pty: no pseudo-terminal or python3 here"
root=0
have root && root=1
# The system's python: a version manager's shim on PATH costs seconds a run.
py=python3
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
proj=$_scratch/proj
mkdir -p "$proj"
export HOME=$_home
cd "$proj" || exit 1

# other_pty CMD...: run CMD (stdin /dev/null) while a pty opened here is
# alive; "{pty}" in CMD is replaced by its name. Prints "received: X" with
# what arrived on its master, then CMD's output; exits with CMD's status.
# PRE (an array, empty unless set) is run around the python: a namespace,
# another user.
PRE=()
other_pty() {
  "${PRE[@]}" "$py" - "$@" >"$_out" 2>"$_err" <<'PY'
import os, select, subprocess, sys, termios, tty
master, slave = os.openpty()
tty.setraw(slave)
name = os.ttyname(slave)
argv = [a.replace("{pty}", name) for a in sys.argv[1:]]
r = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True)
# The kernel hands the pty's output to the master asynchronously: a marker
# written here, after the command ended, arrives after whatever it wrote.
os.write(slave, b"|END")
got = b""
while not got.endswith(b"|END") and select.select([master], [], [], 20)[0]:
    got += os.read(master, 4096)
print("received: %s" % got[:-4].decode(errors="replace"))
sys.stdout.write(r.stdout.decode(errors="replace") + r.stderr.decode(errors="replace"))
sys.exit(r.returncode)
PY
}
# Write a marker to the other pty, then open it for reading.
TRY=(sh -c 'printf SBX-OSC52-MARK >"$0"; exec 3<"$0" && echo opened-for-reading' '{pty}')

# reached NAME: the marker arrived on the other pty's master, and the pty
# could be opened for reading.
reached() {
  if grep -q "received: SBX-OSC52-MARK" "$_out" && grep -q opened-for-reading "$_out"; then pass "$1"; else
    fail "$1: the marker did not arrive, or the pty did not open for reading"
    sed 's/^/    | /' "$_out" "$_err" | head -4
  fi
}
# kept_out NAME: nothing arrived, and the pty could not be opened at all.
kept_out() {
  if grep -q "received: SBX-OSC52-MARK" "$_out"; then
    fail "$1: the marker reached the other terminal"
  elif grep -q opened-for-reading "$_out"; then
    fail "$1: the other terminal's pty was opened for reading"
  else
    pass "$1 ($(grep -v '^received' "$_out" | head -1))"
  fi
}

other_pty "${TRY[@]}" || :
reached "unconfined, a command writes to another terminal's pty and opens it for reading"

# A class confines reads as well: its /dev grants (read and write) must
# reach the command's own instance, and no other terminal.
esc_modes --no-network --confine-fs --sandbox --read-only --class=project
guard=0
if have guard; then guard=1; else
  skip "guard: protected paths (the non-root namespace) need a user namespace and the guard"
fi
for m in "${ESC_MODES[@]}"; do
  # Without protected paths: root's namespace, or read-only's terminal rule.
  other_pty "$L" "$m" -- "${TRY[@]}" || :
  if [ "$root" = 1 ]; then
    kept_out "$m as root: the other terminal's pty has no name"
  elif [ "$m" = --read-only ]; then
    if grep -q "received: SBX-OSC52-MARK" "$_out"; then fail "$m: the other terminal's pty was written"; else
      pass "$m: the other terminal's pty is not written (it can still be read: documented)"; fi
  elif [ "$m" = --no-network ]; then
    reached "$m confines no file: the other pty is reached (documented)"
  elif "$L" "$m" --explain -- true 2>/dev/null | grep -q '^  closed /'; then
    # A privileged socket present on this machine (a developer's docker,
    # a stale name) is masked in a namespace, whose nodev step leaves the
    # host's /dev/pts closed too: --explain says whether one is made.
    kept_out "$m as a user without protected paths, with a socket masked: the other pty is unreachable"
  else
    reached "$m as a user without protected paths: the other pty is still reached (documented: no namespace)"
  fi
  [ "$guard" = 1 ] || continue
  other_pty "$L" "$m" --protect-secrets -- "${TRY[@]}" || :
  kept_out "$m --protect-secrets: the other terminal's pty has no name"
done

# The command's own ptys: what it opens through /dev/ptmx works where ptys
# are granted (read-only grants none).
ownpty='import os, pty
m, s = os.openpty()
os.write(s, b"x")
assert os.read(m, 1) == b"x", "no byte through the pair"
open("/dev/null").read()
assert len(open("/dev/urandom", "rb").read(1)) == 1
pid, fd = pty.fork()
if pid == 0:
    os.execlp("true", "true")
assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
print("own pty ok")'
for m in "${ESC_MODES[@]}"; do
  [ "$m" = --read-only ] && continue
  for p in "" --protect-secrets; do
    [ -n "$p" ] && [ "$guard" = 0 ] && continue
    expect_status 0 "python's pty.openpty and pty.fork under $m $p" "$L" "$m" $p -- "$py" -c "$ownpty"
    expect_output_has "own pty ok" "... and a byte went through the pair ($m $p)"
    if have script; then
      expect_status 0 "script -qc CMD /dev/null under $m $p, CMD on a terminal of its own" \
        "$L" "$m" $p -- script -qc 'test -t 0 && stty size >/dev/null' /dev/null
    fi
  done
done

# Another mount of the host's /dev (arch-chroot, schroot and pbuilder bind
# it into a chroot): the other pty keeps its name there, /box/dev/pts/N, on
# the host's devpts. Every mount but the command's own /dev is nodev in its
# namespace, so it does not open, for reading or writing. The bind is made
# in a private mount namespace of each run (the host never sees it); making
# it needs root, so the root run checks nobody too, through setpriv.
box=$_home/box
mkdir -p "$box/dev" "$box/proj"
chown 65534:65534 "$box/proj" 2>/dev/null || :
TRYBOX=(sh -c 'n=$1; p=$0/dev/pts/${n#/dev/pts/}; printf SBX-OSC52-MARK >"$p"; exec 3<"$p" && echo opened-for-reading' "$box" '{pty}')
in_box() { unshare -m --propagation private sh -c 'mount --rbind /dev "$0/dev" && cd "$0/proj" && exec "$@"' "$box" "$@"; }
if [ "$root" = 1 ] && unshare -m true 2>/dev/null; then
  N=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
  PRE=(in_box)
  other_pty "${TRYBOX[@]}" || :
  reached "unconfined, root writes to another terminal's pty through a bind of /dev at $box/dev"
  for m in --confine-fs --sandbox --class=project; do
    other_pty "$L" "$m" -- "${TRYBOX[@]}" || :
    kept_out "$m as root: another terminal's pty through a bind of /dev elsewhere"
  done
  # nobody's own other terminal (the python that opens it runs as nobody):
  # only --protect-secrets gives nobody a namespace to make nodev.
  PRE=(in_box "${N[@]}")
  other_pty "${TRYBOX[@]}" || :
  reached "unconfined, nobody writes to its other terminal's pty through a bind of /dev at $box/dev"
  if [ "$guard" = 1 ]; then
    for m in --confine-fs --sandbox --class=project; do
      other_pty "$L" "$m" --protect-secrets -- "${TRYBOX[@]}" || :
      kept_out "$m --protect-secrets as nobody: its other terminal's pty through a bind of /dev elsewhere"
    done
    expect_status 0 "nobody's own ptys beside that bind (--sandbox --protect-secrets)" \
      in_box "${N[@]}" "$L" --sandbox --protect-secrets -- "$py" -c "$ownpty"
  fi
  expect_status 0 "root's own ptys beside that bind (--sandbox)" in_box "$L" --sandbox -- "$py" -c "$ownpty"
  PRE=()
else
  skip "root: binding /dev elsewhere needs a mount namespace of root's; the root run checks nobody through setpriv"
fi

# Root of a user namespace (a rootless container): mknod of a device is
# refused there, so root's /dev binds the host's nodes, and gid 5 (tty) is
# not mapped for the devpts. The namespace still gives the command its own
# devpts, and its ptys still work.
if [ "$root" = 1 ] && have userns; then
  for m in "${ESC_MODES[@]}"; do
    other_pty unshare -Urm "$L" "$m" -- "${TRY[@]}" || :
    kept_out "$m as root of a user namespace: the other terminal's pty has no name"
    [ "$m" = --read-only ] && continue
    expect_status 0 "$m as root of a user namespace: /dev/null, and script on a pty of its own" \
      unshare -Urm "$L" "$m" -- sh -c 'echo x >/dev/null && script -qc "test -t 0" /dev/null'
  done
elif [ "$root" = 1 ]; then
  skip "userns: no user namespace here to play a rootless container's root"
fi

# The command's own terminal: stty, /dev/tty, /dev/stderr reopened, and job
# control in an interactive shell, on a pty made its controlling terminal.
on_pty() {
  "$py" - "$@" >"$_out" 2>"$_err" </dev/null <<'PY'
import os, pty, sys
status = pty.spawn(sys.argv[1:])
sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
PY
}
own='stty size >/dev/null && echo via-tty >/dev/tty && echo via-stderr >/dev/stderr &&
  sh -ic "sleep 0.1 & fg >/dev/null; echo fg=\$?" 2>&1'
for m in "${ESC_MODES[@]}"; do
  for p in "" --protect-secrets; do
    [ -n "$p" ] && [ "$guard" = 0 ] && continue
    got=0
    on_pty "$L" "$m" $p -- sh -c "$own" || got=$?
    if [ "$got" = 0 ] && grep -q via-tty "$_out" && grep -q via-stderr "$_out" && grep -q "fg=0" "$_out" &&
       ! grep -qi "job control" "$_out"; then
      pass "the command's own terminal under $m $p: stty, /dev/tty, /dev/stderr, job control"
    else
      fail "the command's own terminal under $m $p: exit $got"; sed 's/^/    | /' "$_out" "$_err" | head -6
    fi
  done
done
finish
