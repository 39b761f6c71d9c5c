#!/usr/bin/env bash
# Root in --confine-fs, --no-network and --sandbox: no raw disk, no tun, no
# netlink reconfiguration, no kernel-administration capability, while the
# everyday devices, the terminal and git/make in the project keep working.
# Each refusal is also shown succeeding unconfined. As nobody: the same
# everyday work, and the capability drop is a harmless no-op.
. "$SBX_TESTLIB"

require landlock "--sandbox" "$L" --sandbox -- true

base=$(mktemp -d /var/tmp/sbx-rootcaps.XXXXXX)   # outside every root, unlike /tmp
chmod 755 "$base"
proj=$base/proj
mkdir "$proj"
loopdev=
cleanup() {
  [ -n "$loopdev" ] && losetup -d "$loopdev" 2>/dev/null
  ip link del sbxdummy0 2>/dev/null
  ip addr del 192.0.2.123/32 dev lo 2>/dev/null
  rm -rf "$base"
}
trap cleanup EXIT
export HOME=$base GIT_CONFIG_NOSYSTEM=1
root=0; [ "$(id -u)" = 0 ] && root=1

py_open_w="import os,sys; os.close(os.open(sys.argv[1], os.O_WRONLY))"
py_open_rw="import os,sys; os.close(os.open(sys.argv[1], os.O_RDWR))"
# TUNSETIFF (0x400454ca) with IFF_TUN|IFF_NO_PI; the interface goes with the fd.
py_tun="import os,fcntl,struct; fd=os.open('/dev/net/tun', os.O_RDWR); \
fcntl.ioctl(fd, 0x400454ca, struct.pack('16sH', b'sbxtun0', 0x1001))"

# ---- everyday work, as root and as nobody ----
for mode in --confine-fs --sandbox; do
  S=("$L" "$mode" --project "$proj" --workdir "$proj")
  expect_status 0 "$mode: /dev/null, /dev/zero, /dev/full, /dev/urandom are writable" \
    "${S[@]}" -- sh -c ': > /dev/null; echo x >> /dev/zero; echo x > /dev/urandom; if echo x 2>/dev/null >/dev/full; then exit 1; fi'
  if have shm; then
    expect_status 0 "$mode: /dev/shm takes a file" \
      "${S[@]}" -- sh -c "echo x > /dev/shm/sbx-rc-\$\$ && rm /dev/shm/sbx-rc-\$\$"
    expect_status 0 "$mode: POSIX shared memory and semaphores work" \
      "${S[@]}" -- /usr/bin/python3 -c "
from multiprocessing import shared_memory, Lock
m = shared_memory.SharedMemory(create=True, size=16); m.close(); m.unlink(); Lock()"
  else
    skip "shm: $mode: /dev/shm is not a writable tmpfs here, no shared-memory case"
  fi
  expect_status 0 "$mode: > /dev/stdout reaches a pipe" \
    sh -c "$(printf '%q ' "${S[@]}") -- sh -c 'echo via-stdout > /dev/stdout' | grep -q via-stdout"
  expect_status 0 "$mode: > /dev/stdout reaches a file in the project" \
    sh -c "$(printf '%q ' "${S[@]}") -- sh -c 'echo into-file > /dev/stdout' > '$proj/stdout.txt' && grep -q into-file '$proj/stdout.txt'"
  if command -v script >/dev/null; then
    # The pty reopened through /dev/stdout, not by $(tty): root's /dev/pts is
    # an instance of its own, where the inherited pty has no name.
    expect_status 0 "$mode: the pty, /dev/tty and a new pty from /dev/ptmx work" \
      script -qec "$(printf '%q ' "${S[@]}") -- sh -c 'echo pty-ok > /dev/tty && echo x > /dev/stdout && python3 -c \"import pty,os; m,s=pty.openpty(); os.write(s,b\\\"x\\\")\"'" /dev/null
    expect_output_has "pty-ok" "$mode: the terminal received the output"
  else
    skip "script: $mode: script(1) is missing, no pty to test with"
  fi
  expect_status 2 "$mode: writing a /dev node outside the list is refused (sh: cannot create)" \
    "${S[@]}" -- sh -c 'echo x > /dev/loop-control'
done

# git and a make-like build in the project, under the full sandbox.
S=("$L" --sandbox --project "$proj" --workdir "$proj")
expect_status 0 "--sandbox: git init, add and commit in the project" \
  "${S[@]}" -- sh -c "cd '$proj' && git init -q && echo a > f && git add f && git -c user.name=t -c user.email=t@example.invalid commit -qm first && git log --oneline | grep -q first"
if command -v make >/dev/null; then
  printf 'out/a.txt: f\n\tmkdir -p out && cp f out/a.txt && chmod 640 out/a.txt\n' >"$proj/Makefile"
  expect_status 0 "--sandbox: make builds into the project" \
    "${S[@]}" -- sh -c "cd '$proj' && make -s && test -f out/a.txt"
fi

# ---- capabilities ----
# Outside read-only mode the launcher takes the dropped capabilities out of the
# effective, permitted, inheritable and ambient sets and leaves the bounding
# set as it was: no_new_privs, not the bounding set, keeps them from coming
# back at exec (the kernel caps the permitted set after exec at the one before
# it). The file-capability and setuid binaries below are the proof; read-only
# mode still empties the bounding set (test_readonly_launcher.sh).
# The kept set as the contract states it: the names in docs/landlock.md's
# "Kept" table, numbered by the kernel's <linux/capability.h>; not a mask
# copied from caps_rules.c.
keep=0 n_kept=0
for c in $(awk '/^Kept \(/ {f = 1} /^Dropped:/ {f = 0} f && /^\| `CAP_/ {print $2, $3}' \
             "$SBX_SOURCE_DIR/docs/landlock.md" | grep -o 'CAP_[A-Z_]*'); do
  num=$(awk -v c="$c" '$1 == "#define" && $2 == c {print $3}' /usr/include/linux/capability.h)
  [ -n "$num" ] || { fail "docs/landlock.md keeps $c, unknown to <linux/capability.h>"; continue; }
  keep=$((keep | (1 << num))) n_kept=$((n_kept + 1))
done
[ "$n_kept" -ge 10 ] && pass "the contract keeps $n_kept capabilities (mask $(printf %x "$keep"))" \
  || fail "only $n_kept kept capabilities read from docs/landlock.md"
probe=$(((1 << 12) | (1 << 21)))   # net_admin, sys_admin: dropped, and what the binaries below ask for
cap() { echo $((0x$(awk -v f="$1:" '$1 == f {print $2}' "${2:-$_out}"))); }
status_euid() { awk '$1 == "Uid:" {print $3}' "$_out"; }
host_bnd=$(cap CapBnd /proc/self/status)
host_eff=$(cap CapEff /proc/self/status)
# none_dropped NAME: the last output's CapEff, CapPrm, CapInh and CapAmb hold
# nothing outside the kept set.
none_dropped() {
  local eff prm inh amb
  eff=$(cap CapEff) prm=$(cap CapPrm) inh=$(cap CapInh) amb=$(cap CapAmb)
  if [ $(((eff | prm | inh | amb) & ~keep)) = 0 ]; then
    pass "$1 (CapEff $(printf %x "$eff"), CapPrm $(printf %x "$prm"), CapInh $(printf %x "$inh"), CapAmb $(printf %x "$amb"))"
  else
    fail "$1: CapEff $(printf %x "$eff") CapPrm $(printf %x "$prm") CapInh $(printf %x "$inh") CapAmb $(printf %x "$amb")"
  fi
}
for mode in --confine-fs --no-network --sandbox; do
  # The launcher's exec of cat is itself an exec as uid 0, whose rule would
  # hand cat every capability in the bounding set.
  expect_status 0 "$mode: /proc/self/status is readable" "$L" "$mode" -- cat /proc/self/status
  none_dropped "$mode: CapEff/CapPrm/CapInh/CapAmb hold nothing outside the kept set"
  nnp=$(awk '$1 == "NoNewPrivs:" {print $2}' "$_out")
  [ "$nnp" = 1 ] && pass "$mode: no_new_privs is set, the wall against regaining at exec" \
    || fail "$mode: NoNewPrivs is '$nnp'"
  # Left as it was; or, for a user other than root whose run got a namespace
  # of its own (a listed daemon socket present at launch is masked there),
  # emptied: nothing to regain either way (CI's ASan run met the second).
  bnd=$(cap CapBnd)
  if [ "$bnd" = "$host_bnd" ] || { [ "$root" != 1 ] && [ "$bnd" = 0 ]; }; then
    pass "$mode: CapBnd is left as it was, or empty ($(printf %x "$bnd"))"
  else
    fail "$mode: CapBnd changed: $(printf %x "$host_bnd") -> $(printf %x "$bnd")"
  fi
  if [ "$root" = 1 ]; then
    eff=$(cap CapEff)
    [ $((eff & keep)) = $((keep & host_eff)) ] \
      && pass "$mode: root keeps chown, dac_override, fowner, setuid... ($(printf %x "$eff"))" \
      || fail "$mode: kept capabilities went missing: $(printf %x "$eff")"
    # A second exec as uid 0, further down the command's own process tree.
    expect_status 0 "$mode: sh then cat, both exec'd as root" \
      "$L" "$mode" -- sh -c 'cat /proc/self/status; true'
    none_dropped "$mode: a later exec as root regains nothing"
  fi
done
if [ "$root" = 1 ]; then
  expect_status 0 "unconfined root has sys_admin and net_admin (the proof it can fail)" cat /proc/self/status
  eff=$(cap CapEff)
  [ $((eff & probe)) = "$probe" ] && pass "unconfined CapEff $(printf %x "$eff")" \
    || fail "unconfined root lacks sys_admin/net_admin: $(printf %x "$eff")"
fi
# What follows shows that leaving the bounding set alone is safe. It means
# something only while that set still allows net_admin and sys_admin.
if [ "$root" = 1 ] && [ $((host_bnd & probe)) != "$probe" ]; then
  skip "bounding_admin: the bounding set here lacks net_admin or sys_admin already: nothing to regain"
elif [ "$root" = 1 ]; then
  SP=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  # A copy of cat with file capabilities for two dropped ones (+ep).
  if command -v setcap >/dev/null && cp /bin/cat "$proj/capcat" \
      && setcap cap_net_admin,cap_sys_admin+ep "$proj/capcat" 2>"$_err"; then
    # The controls, which the sandboxed runs below must differ from: without
    # no_new_privs the kernel grants the file capabilities, even to nobody.
    expect_status 0 "unconfined root runs the cap_net_admin,cap_sys_admin+ep binary" "$proj/capcat" /proc/self/status
    eff=$(cap CapEff)
    [ $((eff & probe)) = "$probe" ] && pass "unconfined root: it holds net_admin and sys_admin ($(printf %x "$eff"))" \
      || fail "unconfined root: the file-capability binary lacks them: $(printf %x "$eff")"
    expect_status 0 "unconfined nobody runs it" "${SP[@]}" "$proj/capcat" /proc/self/status
    eff=$(cap CapEff)
    [ "$(status_euid)" = 65534 ] && [ $((eff & probe)) = "$probe" ] \
      && pass "unconfined nobody gains net_admin and sys_admin from the file (the control: $(printf %x "$eff"))" \
      || fail "unconfined nobody: the file capabilities gave $(printf %x "$eff") (not honoured here?)"
    for mode in --confine-fs --no-network --sandbox; do
      R=("$L" "$mode" --project "$proj" --workdir "$proj")
      expect_status 0 "$mode: root runs the same binary" "${R[@]}" -- "$proj/capcat" /proc/self/status
      none_dropped "$mode: root regains neither net_admin nor sys_admin from it"
      [ $(($(cap CapBnd) & probe)) = "$probe" ] \
        && pass "$mode: although the bounding set still allows both: no_new_privs stopped them" \
        || fail "$mode: CapBnd $(printf %x "$(cap CapBnd)") lacks net_admin or sys_admin"
    done
    expect_status 0 "--sandbox: root drops to nobody and runs it" \
      "${S[@]}" -- "${SP[@]}" "$proj/capcat" /proc/self/status
    eff=$(cap CapEff) prm=$(cap CapPrm)
    [ $(((eff | prm) & probe)) = 0 ] \
      && pass "--sandbox: nobody gains nothing from the file (CapPrm $(printf %x "$prm"))" \
      || fail "--sandbox: nobody gained $(printf %x "$prm") from the file capabilities"
  else
    skip "setcap: setcap unavailable or refused here: $(head -1 "$_err")"
  fi
  # A setuid-root copy of cat: exec'd by nobody it would make euid 0 with every
  # capability in the bounding set; no_new_privs keeps the set-id bit from acting.
  if cp /bin/cat "$proj/suidcat" && chmod 4755 "$proj/suidcat"; then
    expect_status 0 "unconfined nobody runs the setuid-root binary" "${SP[@]}" "$proj/suidcat" /proc/self/status
    eff=$(cap CapEff)
    [ "$(status_euid)" = 0 ] && [ $((eff & probe)) = "$probe" ] \
      && pass "unconfined nobody becomes euid 0 with sys_admin (the control: $(printf %x "$eff"))" \
      || fail "unconfined nobody: euid $(status_euid), CapEff $(printf %x "$eff") (setuid not honoured here?)"
    expect_status 0 "--sandbox: root runs it" "${S[@]}" -- "$proj/suidcat" /proc/self/status
    none_dropped "--sandbox: root regains nothing through it"
    expect_status 0 "--sandbox: root drops to nobody and runs it" \
      "${S[@]}" -- "${SP[@]}" "$proj/suidcat" /proc/self/status
    eff=$(cap CapEff) prm=$(cap CapPrm)
    [ "$(status_euid)" = 65534 ] && [ $((eff | prm)) = 0 ] \
      && pass "--sandbox: nobody stays euid 65534 with no capability" \
      || fail "--sandbox: nobody got euid $(status_euid), CapPrm $(printf %x "$prm")"
  else
    skip "setuid: cannot make a setuid copy of cat here"
  fi
  got=0; "${S[@]}" -- setpriv --inh-caps=+net_admin --ambient-caps=+net_admin true >"$_out" 2>"$_err" || got=$?
  [ "$got" != 0 ] && grep -q "Operation not permitted" "$_err" \
    && pass "--sandbox: setpriv cannot raise net_admin into the ambient set (exit $got, EPERM)" \
    || fail "--sandbox: setpriv raised net_admin (exit $got)"
  expect_status 0 "unconfined setpriv can (the proof it can fail)" \
    setpriv --inh-caps=+net_admin --ambient-caps=+net_admin true
fi

# ---- root only: the disk, tun and netlink ----
if [ "$root" = 0 ]; then
  skip "root: loop device, tun and netlink refusals need root (the root run proves them)"
  finish
fi

img=$base/disk.img
truncate -s 1M "$img"
if loopdev=$(losetup -f --show "$img" 2>"$_err"); then
  for mode in --confine-fs --sandbox; do
    expect_status 1 "$mode: root cannot open $loopdev for writing" \
      "$L" "$mode" --project "$proj" -- /usr/bin/python3 -c "$py_open_w" "$loopdev"
  done
  expect_status 0 "unconfined root opens $loopdev for writing" /usr/bin/python3 -c "$py_open_w" "$loopdev"
  losetup -d "$loopdev"; loopdev=
else
  skip "loop: no loop device here: $(cat "$_err")"
fi

# The device list on a fake /dev in a private mount namespace: NVIDIA nodes
# are found by name, and a block device where a listed device should be is
# never granted (the loop device's numbers reused under friendly names).
fake="mount -t tmpfs -o mode=755 sbxdev /dev && mknod -m 666 /dev/null c 1 3 &&
  mknod -m 666 /dev/nvidiactl c 1 3 && mknod -m 666 /dev/nvidia0 c 1 3 &&
  mknod -m 666 /dev/nvidia12 c 1 5 && mknod -m 660 /dev/nvidia7 b 7 0 &&
  mknod -m 660 /dev/kvm b 7 0 && mknod -m 666 /dev/nvidiafoo c 1 3 && exec \"\$@\""
if unshare -m --propagation private sh -c "$fake" sh true 2>"$_err"; then
  expect_status 0 "fake /dev: nvidia0, nvidia12 and nvidiactl are writable" \
    unshare -m --propagation private sh -c "$fake" sh "$L" --confine-fs -- \
    sh -c 'echo x > /dev/nvidia0 && echo x > /dev/nvidia12 && echo x > /dev/nvidiactl'
  for node in nvidia7 kvm nvidiafoo; do
    expect_status 2 "fake /dev: /dev/$node (block device or unlisted name) is refused" \
      unshare -m --propagation private sh -c "$fake" sh "$L" --confine-fs -- sh -c "echo x > /dev/$node"
  done
  expect_status 0 "fake /dev: unconfined, the block-device /dev/kvm opens for writing" \
    unshare -m --propagation private sh -c "$fake" sh /usr/bin/python3 -c "$py_open_w" /dev/kvm
else
  skip "mountns: no private mount namespace here: $(head -1 "$_err")"
fi

if [ -c /dev/net/tun ]; then
  # Root's /dev has no tun node at all; TUNSETIFF itself is refused by
  # number as well (tests/escape/test_surfaces.sh, on an inherited fd).
  expect_status 1 "--confine-fs: root cannot open /dev/net/tun O_RDWR" \
    "$L" --confine-fs -- /usr/bin/python3 -c "$py_open_rw" /dev/net/tun
  expect_output_has "No such file or directory" "--confine-fs: root's /dev has no tun node"
  expect_status 1 "--no-network: TUNSETIFF is refused" "$L" --no-network -- /usr/bin/python3 -c "$py_tun"
  expect_output_has "No such file or directory" "--no-network: root's /dev has no tun node"
  expect_status 0 "unconfined root opens /dev/net/tun and TUNSETIFF works" /usr/bin/python3 -c "$py_tun"
else
  skip "tun: /dev/net/tun is absent on this machine"
fi

if ip link add sbxdummy0 type dummy 2>"$_err"; then
  ip link del sbxdummy0
  pass "unconfined root can add a dummy link"
  expect_status 2 "--no-network: ip link add sbxdummy0 type dummy is refused" \
    "$L" --no-network -- ip link add sbxdummy0 type dummy
  expect_output_has "Operation not permitted" "--no-network: with EPERM"
  ip link show sbxdummy0 >/dev/null 2>&1 && fail "sbxdummy0 exists" || pass "no sbxdummy0 was left"
else
  skip "dummy_link: no dummy link driver here: $(head -1 "$_err")"
fi
# Always available: an address on lo is a netlink change that needs cap_net_admin.
expect_status 2 "--no-network: ip addr add on lo is refused" \
  "$L" --no-network -- ip addr add 192.0.2.123/32 dev lo
expect_output_has "Operation not permitted" "--no-network: with EPERM"
expect_status 0 "unconfined root adds the address" ip addr add 192.0.2.123/32 dev lo
expect_status 0 "and removes it" ip addr del 192.0.2.123/32 dev lo
finish
