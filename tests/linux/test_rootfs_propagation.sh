#!/usr/bin/env bash
# Root's private mount namespace must not take in mounts the host makes later
# beneath /proc or /sys (review of issue 17, F3): as a slave of the host's, a
# binfmt_misc mount that arrived during the run (systemd mounts it on first
# access through an automount) was writable under --no-network, and a
# handler registered there ran a program outside the sandbox as root. The
# host is simulated by a mount namespace made rshared; its mount is made
# while the command waits, and the result is checked from outside. Since
# review r41 F2 the whole namespace is private: a proc and a devtmpfs the
# host mounts during the run (sysctls writable, devices opening) never
# arrive, in any root mode.
. "$SBX_TESTLIB"

have root || skip_all "root: root's mount namespace is made for root only"
have mountns || skip_all "mountns: the test simulates the host in a mount namespace"
grep -qw binfmt_misc /proc/filesystems ||
  skip_all "binfmt_misc: the kernel has no binfmt_misc file system"
[ -d /proc/sys/fs/binfmt_misc ] || skip_all "binfmt_misc: /proc/sys/fs/binfmt_misc is missing"

T=$_scratch/bf
mkdir -p "$T"
chmod 755 "$T"
cat >"$_scratch/inside.sh" <<'EOS'
T=$1 L=$2 MODE=$3
mount --make-rshared / || exit 2
(
  i=0; while [ ! -e "$T/started" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc && touch "$T/mounted"
) &
"$L" "$MODE" -- sh -c '
  T=$1; touch "$T/started"
  i=0; while [ ! -e "$T/mounted" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done
  ls /proc/sys/fs/binfmt_misc/ >/dev/null 2>&1
  if echo ":sbxprop:E::sbxprop::/bin/true:" > /proc/sys/fs/binfmt_misc/register 2>/dev/null;
  then echo REGISTERED; else echo refused; fi' - "$T"
wait
ls /proc/sys/fs/binfmt_misc/ 2>/dev/null | tr '\n' ' '
[ -e /proc/sys/fs/binfmt_misc/sbxprop ] && { echo -1 > /proc/sys/fs/binfmt_misc/sbxprop; echo LEFT; }
umount /proc/sys/fs/binfmt_misc 2>/dev/null
exit 0
EOS
for m in --no-network --confine-fs; do
  rm -f "$T/started" "$T/mounted"
  out=$(unshare -m --propagation unchanged bash "$_scratch/inside.sh" "$T" "$L" "$m" 2>&1)
  if [[ $out == *REGISTERED* ]] || [[ $out == *LEFT* ]]; then
    fail "$m: a binfmt_misc mount made by the host during the run was writable: $out"
  elif [[ $out == *refused* ]] && [ -e "$T/mounted" ]; then
    pass "$m: a binfmt_misc mount the host made during the run is not writable inside"
  else
    fail "$m: the simulation did not run: $out"
  fi
done
# Any mount the host makes during the run (review r41, F2): a proc (its
# sysctls: core_pattern runs a program outside) and a devtmpfs (its nodes
# open: block devices, even under --read-only) arrived with their own flags.
# Root's namespace takes in nothing now: the paths stay empty directories.
S=$SBX_PROBES/esc_surface
mkdir -p "$T/lateproc" "$T/latedev"
# A FIFO orders the two sides without the command writing (--read-only):
# the host's open for writing waits for the command's open for reading.
cat >"$_scratch/late.sh" <<'EOS'
T=$1 L=$2 S=$3; shift 3
mount --make-rshared / || exit 2
rm -f "$T/go"; mkfifo "$T/go" || exit 2
timeout 60 sh -c 'exec 3>"$1/go"
  mount -t proc proc "$1/lateproc" && mount -t devtmpfs devtmpfs "$1/latedev" && touch "$1/mounted"
  echo go >&3' - "$T" &
"$@" sh -c '
  T=$1 S=$2; read -r x <"$T/go"
  "$S" rewrite "$T/lateproc/sys/kernel/domainname" >/dev/null 2>&1 && echo SYSCTL-WRITTEN
  head -c 1 "$T/latedev/zero" >/dev/null 2>&1 && echo DEVICE-OPENED
  echo checked' - "$T" "$S"
wait
umount "$T/lateproc" "$T/latedev" 2>/dev/null
exit 0
EOS
for m in --no-network --confine-fs --read-only; do
  rm -f "$T/mounted"
  out=$(unshare -m --propagation unchanged bash "$_scratch/late.sh" "$T" "$L" "$S" "$L" "$m" -- 2>&1)
  if [[ $out == *SYSCTL-WRITTEN* ]] || [[ $out == *DEVICE-OPENED* ]]; then
    fail "$m: mounts the host made during the run were usable inside: $out"
  elif [[ $out == *checked* ]] && [ -e "$T/mounted" ]; then
    pass "$m: a proc and a devtmpfs the host mounted during the run did not arrive"
  else
    fail "$m: the simulation did not run: $out"
  fi
done
rm -f "$T/mounted"
out=$(unshare -m --propagation unchanged bash "$_scratch/late.sh" "$T" "$L" "$S" 2>&1)
[[ $out == *SYSCTL-WRITTEN*DEVICE-OPENED* ]] &&
  pass "unconfined, the late proc's sysctl is written and the late devtmpfs's zero opens" ||
  fail "unconfined, the late mounts were not usable (the check cannot fail): $out"

# The same registration works outside the sandbox (the check can fail).
rm -f "$T/started" "$T/mounted"
out=$(unshare -m --propagation unchanged bash -c '
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc || exit 2
  echo ":sbxprop:E::sbxprop::/bin/true:" > /proc/sys/fs/binfmt_misc/register && echo REGISTERED
  [ -e /proc/sys/fs/binfmt_misc/sbxprop ] && echo -1 > /proc/sys/fs/binfmt_misc/sbxprop
  umount /proc/sys/fs/binfmt_misc' 2>&1)
[[ $out == *REGISTERED* ]] && pass "unconfined, root registers a handler" ||
  fail "unconfined, the registration failed: $out"
finish
