#!/usr/bin/env bash
# Root's private mount namespace in a plain chroot (issue 17): when the root
# directory is not a mount point, "/" names no mount whose propagation can be
# changed, and the mount that holds the chroot (shared, as "/" is on systemd
# hosts) would carry every mount the launcher makes back outside. The
# launcher used to refuse (126) every root command there; now it makes the
# namespace's mounts slaves from the namespace's own root and comes back.
#
# A small root of our own (the static launcher, one probe and its libraries,
# a /dev of six nodes and a block device, proc and sysfs), entered with
# chroot(2) inside a private mount namespace of the test, whose bind of the
# box is made shared: a mount that escaped the launcher's namespace would
# show up in the test's mount table. Checked: the routes are open unconfined
# in the chroot, closed confined, and no mount appears outside.
. "$SBX_TESTLIB"
have root || skip_all "root: chroot(2) and the root's private namespace are root's"
have mountns || skip_all "mountns: the test builds its chroot in a private mount namespace"
for t in chroot ldd unshare; do
  command -v "$t" >/dev/null || { fail "$t is missing (util-linux/libc-bin provide it)"; finish; }
done
S=$P/esc_surface
[ -x "$S" ] || { fail "probe esc_surface is not built"; finish; }

box=$_scratch/box
C=$box/root
mkdir -p "$C"/{proc,sys,dev/pts,work,etc,root}
cp "$L" "$C/launcher"
cp "$S" "$C/esc_surface"
# The probe's libraries at their own paths (ASan's too, in that preset).
for lib in $(ldd "$S" | grep -o '/[^ ]*'); do
  mkdir -p "$C$(dirname "$lib")"
  cp -L "$lib" "$C$lib"
done
echo 'root:x:0:0:root:/root:/bin/sh' >"$C/etc/passwd"
for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r name major minor <<<"$n"
  mknod -m 666 "$C/dev/$name" c "$major" "$minor"
done
# A block device node (loop0): its open reaches the driver unconfined.
mknod -m 600 "$C/dev/sbxblk" b 7 0
# The same device made outside /dev, in the chroot's project, before the
# launch: every mount but the command's own /dev is nodev (issue 17).
mknod -m 600 "$C/work/sbxblk" b 7 0

# What runs in the test's namespace: the box bound onto itself and made
# shared (its own peer group, private to this namespace), proc and sysfs in
# the chroot; then each check prints "NAME: STATUS: OUTPUT" for the driver.
cat >"$_scratch/inside.sh" <<'EOF'
box=$1 C=$1/root
mount --bind "$box" "$box" && mount --make-shared "$box" &&
  mount -t proc proc "$C/proc" && mount -t sysfs sysfs "$C/sys" || { echo "setup failed"; exit 2; }
run() {
  local name=$1 out got=0
  shift
  # Descriptors the test inherited (ctest's, the shell's) name files outside
  # the chroot, which the launcher refuses to pass in (issue 18: inherited
  # files): close every one above 2, as a host running in a chroot would.
  out=$(for f in /proc/$BASHPID/fd/*; do n=${f##*/}
          [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null; done
        chroot "$C" "$@" 2>&1) || got=$?
  printf '%s\t%s\t%s\n' "$name" "$got" "$(printf '%s' "$out" | grep -v 'skipped' | tr '\n' ' ')"
}
# run_to NAME FILE CMD...: the same, CMD's stdout a file FILE opened outside
# the chroot, as a host's log; what it holds afterwards is the output.
run_to() {
  local name=$1 file=$2 got=0
  shift 2
  (for f in /proc/$BASHPID/fd/*; do n=${f##*/}
     [ "$n" -gt 2 ] 2>/dev/null && eval "exec $n>&-" 2>/dev/null; done
   exec chroot "$C" "$@" >"$file" 2>&1) || got=$?
  printf '%s\t%s\t%s\n' "$name" "$got" "$(grep -v 'skipped' "$file" | tr '\n' ' ')"
}
mounts() { grep -c " $box" /proc/self/mountinfo; }
echo "mounts-before	$(mounts)"
run unconfined-core /esc_surface rewrite /proc/sys/kernel/core_pattern
run unconfined-blk /esc_surface blkread /dev/sbxblk
run unconfined-blkwork /esc_surface blkread /work/sbxblk
for m in --no-network --confine-fs --sandbox; do
  run "core $m" /launcher --project /work --workdir /work "$m" -- /esc_surface rewrite /proc/sys/kernel/core_pattern
  run "blk $m" /launcher --project /work --workdir /work "$m" -- /esc_surface blkread /dev/sbxblk
  run "blkwork $m" /launcher --project /work --workdir /work "$m" -- /esc_surface blkread /work/sbxblk
  run "sys $m" /launcher --project /work --workdir /work "$m" -- /esc_surface rofs /sys
  run "zero $m" /launcher --project /work --workdir /work "$m" -- /esc_surface rewrite /dev/zero
  # Inherited, the log's descriptor names the file from outside the chroot
  # (the kernel spells it from the old namespace's root once the launcher
  # has its own): it was "one it cannot find under the name it was opened
  # by" and every root command with its output in a file exited 126 in a
  # chroot (the fresh-root run of scripts/test-fresh-root.sh). A file that
  # lies outside the chroot is still refused.
  run_to "log $m" "$C/work/log" /launcher --project /work --workdir /work "$m" -- /esc_surface rofs /sys
  run_to "outside $m" "$box/outside.log" /launcher --project /work --workdir /work "$m" -- /esc_surface rofs /sys
done
echo "mounts-after	$(mounts)"
grep " $box" /proc/self/mountinfo | awk '{ print "mount\t" $5 }'
# A second proc stacked on the chroot's /proc (a setup script run twice):
# the lower one no path reaches (review r48 C1: refused in --no-network).
mount -t proc proc "$C/proc" || echo "stacked-setup	2	failed"
for m in --no-network --sandbox; do
  run "stacked-core $m" /launcher --project /work --workdir /work "$m" -- /esc_surface rewrite /proc/sys/kernel/core_pattern
  run "stacked-work $m" /launcher --project /work --workdir /work "$m" -- /esc_surface rofs /work
done
EOF
unshare -m --propagation private bash "$_scratch/inside.sh" "$box" >"$_scratch/results" 2>"$_err" ||
  { fail "the chroot could not be set up: $(head -3 "$_scratch/results" "$_err")"; finish; }

# result NAME WANT-STATUS WANT-TEXT DESCRIPTION
result() {
  local line got out
  line=$(grep -P "^\Q$1\E\t" "$_scratch/results" | head -1)
  got=$(printf '%s' "$line" | cut -f2)
  out=$(printf '%s' "$line" | cut -f3)
  if [ "$got" = "$2" ] && [[ $out == *"$3"* ]]; then pass "$4 (exit $got: ${out:0:60})"; else
    fail "$4: exit ${got:-none}, wanted $2 with '$3': $out"
  fi
}
result unconfined-core 0 "write back: ok" "in the chroot, root rewrites kernel.core_pattern unconfined"
result unconfined-blk 0 "read: ok" "in the chroot, root opens a block device unconfined"
result unconfined-blkwork 0 "read: ok" "in the chroot, root opens a block node mknod'd in /work unconfined"
for m in --no-network --confine-fs --sandbox; do
  result "core $m" 1 "refused EROFS" "chroot, $m: kernel.core_pattern is read-only"
  result "blk $m" 1 "refused ENOENT" "chroot, $m: no block device in /dev"
  result "blkwork $m" 1 "refused EACCES" "chroot, $m: the node mknod'd in /work does not open (nodev)"
  result "sys $m" 0 "ro" "chroot, $m: /sys is read-only"
  result "zero $m" 0 "write back: ok" "chroot, $m: /dev/zero is still written"
  [ "$m" = --no-network ] && continue # no namespace of root's: nothing checked
  result "log $m" 0 "ro" "chroot, $m: output to a file in the chroot's project, handed over as stdout"
  result "outside $m" 126 "descriptor 1" "chroot, $m: a file outside the chroot handed over is refused"
done
# Two procs stacked on the chroot's /proc. The command runs in a clone of
# the chroot's root (review r52 C2), whose root mount is in its table: the
# lower proc is made read-only with the mount above it, and --no-network
# runs (it was refused: the mount that held the chroot was not in the
# table, so the covered proc could not be reached from inside).
result "stacked-core --no-network" 1 "refused EROFS" \
  "chroot, two procs stacked on /proc, --no-network: kernel.core_pattern is read-only"
result "stacked-core --sandbox" 1 "refused EROFS" "chroot, two procs stacked on /proc, --sandbox: kernel.core_pattern is read-only"
result "stacked-work --sandbox" 0 "rw" "chroot, two procs stacked on /proc, --sandbox: runs, and the project stays writable"
before=$(grep -P '^mounts-before\t' "$_scratch/results" | cut -f2)
after=$(grep -P '^mounts-after\t' "$_scratch/results" | cut -f2)
if [ -n "$before" ] && [ "$before" = "$after" ]; then
  pass "no mount of the launcher's reached the chroot's shared mount outside ($after mounts)"
else
  fail "mounts under the box went from ${before:-?} to ${after:-?}: the launcher's mounts propagated out"
  grep -P '^mount\t' "$_scratch/results" | sed 's/^/    | /'
fi
finish
