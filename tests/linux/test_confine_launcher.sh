#!/usr/bin/env bash
# --confine-fs end to end through the launcher: writes inside the roots work,
# writes and truncation outside are refused (truncation needs the seccomp
# filter), and the no-Landlock degrade is a warned no-op while --read-only
# fails closed. Skips (77) while the launcher cannot apply seccomp yet.
. "$SBX_TESTLIB"

require landlock "--confine-fs" "$L" --confine-fs -- true

base=$(mktemp -d /var/tmp/sbx-ll-launch.XXXXXX)   # outside every root, unlike /tmp
chmod 755 "$base"
proj=$base/proj out=$base/out
mkdir "$proj" "$out"
echo orig >"$out/existing"
trap 'rm -rf "$base"' EXIT

# Inside the roots.
expect_status 0 "create, mkdir and rename in the project" \
  "$L" --confine-fs --project "$proj" -- sh -c "cd '$proj' && echo x > f && mkdir d && mv f d/g"
expect_status 0 "write in \$TMPDIR and /tmp" \
  "$L" --confine-fs --project "$proj" -- sh -c 'echo x > "${TMPDIR:-/tmp}/sbx-ll-$$" && rm "${TMPDIR:-/tmp}/sbx-ll-$$" && echo y > /tmp/sbx-ll-$$ && rm /tmp/sbx-ll-$$'

# Outside: refused, and nothing left behind.
expect_status 2 "create outside is refused (sh: cannot create)" \
  "$L" --confine-fs --project "$proj" -- sh -c "echo x > '$out/new'"
[ ! -e "$out/new" ] && pass "nothing was created outside" || fail "$out/new exists"
expect_status 1 "rename outside into the project is refused" \
  "$L" --confine-fs --project "$proj" -- mv "$out/existing" "$proj/moved"
[ -e "$out/existing" ] && pass "the outside file stayed" || fail "$out/existing moved"

# btrfs subvolume ioctls make and remove names Landlock never checks: refused
# by seccomp before the file system sees them. Unconfined, a directory that is
# not on btrfs answers ENOTTY (or a btrfs one EEXIST/EPERM/...): anything but
# the filter's EPERM... which a non-btrfs file system never returns.
btrfs_ioctl='import fcntl, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
try:
    fcntl.ioctl(fd, 0x50009417, bytearray(4096), True)
except OSError as e:
    print("errno", e.errno)'
expect_status 0 "unconfined: BTRFS_IOC_SNAP_CREATE_V2 reaches the file system" \
  python3 -c "$btrfs_ioctl" "$out"
if grep -q "errno 1$" "$_out" && ! have btrfs_eperm_distinct; then
  skip "btrfs_eperm_distinct: the file system itself answers EPERM here: cannot tell the filter's refusal apart"
else
  pass "unconfined it is not EPERM ($(cat "$_out"))"
  expect_status 0 "--confine-fs: BTRFS_IOC_SNAP_CREATE_V2" \
    "$L" --confine-fs --project "$proj" -- python3 -c "$btrfs_ioctl" "$out"
  expect_output_has "errno 1" "--confine-fs refuses the btrfs snapshot ioctl with EPERM"
  expect_status 0 "--read-only: BTRFS_IOC_SUBVOL_CREATE_V2" \
    "$L" --read-only -- python3 -c "${btrfs_ioctl/0x50009417/0x50009418}" "$out"
  expect_output_has "errno 1" "--read-only refuses the btrfs subvolume ioctl with EPERM"
fi

# Truncation outside: Landlock leaves it to the seccomp filter in this mode.
py_trunc="import os,sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_TRUNC))"
expect_status 1 "O_RDONLY|O_TRUNC of an outside file is refused" \
  "$L" --confine-fs --project "$proj" -- /usr/bin/python3 -c "$py_trunc" "$out/existing"
py_truncate="import os,sys; os.truncate(sys.argv[1], 0)"
expect_status 1 "truncate(2) of an outside file is refused" \
  "$L" --confine-fs --project "$proj" -- /usr/bin/python3 -c "$py_truncate" "$out/existing"
[ "$(cat "$out/existing")" = orig ] && pass "the outside file kept its content" \
  || fail "the outside file was truncated"
expect_status 0 "truncate(2) of an outside file works unconfined" /usr/bin/python3 -c "$py_truncate" "$out/existing"

# The degrade, for real: an outer filter hides the Landlock syscalls.
if [ -x "$P/hide" ]; then
  expect_status 0 "without Landlock --confine-fs still runs the command" \
    "$P/hide" landlock -- "$L" --confine-fs --project "$proj" -- sh -c "echo ran > '$out/marker'"
  expect_output_has "writes are NOT confined" "and says so in one warning"
  [ "$(grep -c 'warning' "$_err")" = 1 ] && pass "exactly one warning line" \
    || fail "wanted one warning line"; 
  [ -e "$out/marker" ] && pass "the command ran (the documented no-op)" || fail "the command did not run"
  rm -f "$out/marker"
  expect_status 126 "without Landlock --read-only exits 126" \
    "$P/hide" landlock -- "$L" --read-only -- sh -c "echo ran > '$out/marker'"
  expect_output_has "Landlock ABI 6" "and names what is missing"
  [ ! -e "$out/marker" ] && pass "the read-only command did not run" || fail "the command ran"
  expect_status 126 "without seccomp --read-only exits 126" \
    "$P/hide" seccomp -- "$L" --read-only -- sh -c "echo ran > '$out/marker'"
  [ ! -e "$out/marker" ] && pass "the read-only command did not run" || fail "the command ran"
else
  fail "tests/probes/hide is not built (tests/CMakeLists.txt builds every probe)"
fi
finish
