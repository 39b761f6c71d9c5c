#!/usr/bin/env bash
# Root's private mount namespace must not take in mounts the host makes later
# beneath /proc or /sys (review of issue 17, F3): as a slave of the host's, a
# binfmt_misc mount that arrived during the run (systemd mounts it on first
# access through an automount) was writable under --no-network, and a
# handler registered there ran a program outside the sandbox as root. The
# host is simulated by a mount namespace made rshared; its mount is made
# while the command waits, and the result is checked from outside.
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
