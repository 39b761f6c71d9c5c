#!/usr/bin/env bash
# Root's metadata changes outside the writable roots (review r34, issue 17).
# Landlock covers file contents and directory entries, not chmod, chown,
# times or extended attributes, and root owns the system's files: under
# --sandbox, `chmod 0666` or `chown nobody` of a file outside the roots used
# to succeed. Root's namespace now makes every mount read-only but the
# writable roots (and /dev, /proc), which keep the flags they had. Each
# route is shown succeeding unconfined and refused confined, with the file
# checked from outside; inside the roots the same calls keep working; a
# read-only mount under the project stays read-only, a device node in the
# project does not open (nodev), and no mount reaches the host's table.
. "$SBX_TESTLIB"
have root || skip_all "root: only uid 0 owns the files outside the roots; other users keep the documented gap for their own files"
require landlock "--sandbox" "$L" --sandbox -- true
have bounding_admin || skip_all "bounding_admin: root's namespace needs CAP_SYS_ADMIN"
have python3 || skip_all "python3: the xattr and raw-call routes are python"
PY=/usr/bin/python3

base=$(mktemp -d /var/tmp/sbx-meta.XXXXXX)   # outside every root, unlike /tmp
chmod 755 "$base"
proj=$base/proj
add=$base/added
mkdir -p "$proj/sub" "$add"
trap 'umount "$base/run" 2>/dev/null; rm -rf "$base"' EXIT
export HOME=$base
S=("$L" --sandbox --project "$proj" --add-dir "$add" --workdir "$proj")

out=$base/outside
fresh() { rm -f "$out"; echo secret >"$out"; chmod 600 "$out"; touch -d 2020-02-02 "$out"; }
state() {
  echo "$(stat -c '%a %U %Y' "$1") xattrs=$($PY -c 'import os,sys; print(len([a for a in os.listxattr(sys.argv[1]) if a.startswith("user.")]))' "$1")"
}

declare -A ROUTE=(
  [chmod]="chmod 0666 \$F"
  [chown]="chown nobody \$F"
  [utimes]="touch -d 2001-01-01 \$F"
  [xattr]="$PY -c 'import os,sys; os.setxattr(sys.argv[1], \"user.sbx\", b\"1\")' \$F"
  [chmod_raw]="$PY -c 'import os,sys; os.chmod(sys.argv[1], 0o4777)' \$F"
)
xattr_ok=1
have user_xattr || xattr_ok=0

for r in chmod chown utimes xattr chmod_raw; do
  if [ "$r" = xattr ] && [ $xattr_ok = 0 ]; then
    skip "user_xattr: no user extended attributes on this file system, the xattr route is not tried"
    continue
  fi
  cmd=${ROUTE[$r]}
  # Unconfined: the call changes the file.
  fresh; before=$(state "$out")
  F=$out sh -c "F=$out; $cmd" >/dev/null 2>&1
  after=$(state "$out")
  if [ "$before" != "$after" ]; then pass "$r outside the roots works unconfined ($before -> $after)"
  else fail "$r outside the roots: unconfined changed nothing ($before), the route is broken"; fi
  # Confined: refused, and the file is as it was, seen from outside.
  fresh; before=$(state "$out")
  expect_status 1 "$r outside the roots is refused under --sandbox" \
    "${S[@]}" -- sh -c "F=$out; $cmd || exit 1"
  expect_output_has "Read-only file system" "... with EROFS"
  after=$(state "$out")
  if [ "$before" = "$after" ]; then pass "... and the file is unchanged outside ($after)"
  else fail "$r: the file changed under --sandbox ($before -> $after)"; fi
done

# /proc's entries are the kernel's one copy: a chmod there is the host's
# (review r37 F1). A mode it already has, so the host sees no change even
# unconfined; the call's success is the route.
pz=/proc/zoneinfo
if [ -e $pz ]; then
  m=$(stat -c %a $pz)
  expect_status 0 "unconfined, root may chmod $pz (to the mode it has, $m)" chmod "$m" $pz
  for extra in "" --protect-secrets; do
    [ -n "$extra" ] && lacks userns "chmod of $pz under --sandbox $extra (its masks)" \
      "${S[@]}" $extra -- true && continue
    expect_status 1 "chmod of $pz is refused under --sandbox ${extra:-without masks}" \
      "${S[@]}" $extra -- sh -c "chmod $m $pz || exit 1"
    expect_output_has "Read-only file system" "... with EROFS"
  done
else
  fail "$pz is missing: no /proc entry to try"
fi

# Another mount than the one holding the roots: a tmpfs of the test's.
mkdir -p "$base/run"
if mount -t tmpfs -o size=64k sbx-meta "$base/run" 2>/dev/null; then
  echo x >"$base/run/f"; chmod 600 "$base/run/f"
  expect_status 1 "chmod on another mount (a tmpfs) is refused too" \
    "${S[@]}" -- chmod 0666 "$base/run/f"
  [ "$(stat -c %a "$base/run/f")" = 600 ] && pass "... still 600 outside" || fail "the tmpfs file's mode changed"
  umount "$base/run"
else
  fail "cannot mount a tmpfs as root for the second-mount case"
fi

# Inside the roots: the same calls work, seen from outside.
for d in "$proj/sub" "$add" "$proj"; do
  f=$d/mine; echo x >"$f"; chmod 600 "$f"
  expect_status 0 "chmod, chown, touch -d in ${d#"$base"/} work" \
    "${S[@]}" -- sh -c "chmod 0755 '$f' && chown nobody '$f' && touch -d 2001-01-01 '$f'"
  [ "$(stat -c '%a %U' "$f")" = "755 nobody" ] && pass "... and show outside" ||
    fail "${d#"$base"/}: $(stat -c '%a %U' "$f") outside, wanted 755 nobody"
done
cd "$proj" || exit 1
expect_status 0 "a relative path from the working directory works (entered again)" \
  "${S[@]}" -- sh -c 'echo y > rel && chmod 0700 rel'
cd / || exit 1
[ "$(stat -c %a "$proj/rel" 2>/dev/null)" = 700 ] && pass "... rel is 0700 outside" || fail "rel was not made 0700"
tmpd=$(mktemp -d /tmp/sbx-meta.XXXXXX)
expect_status 0 "the temp directory keeps working (mkdir, chmod in /tmp)" \
  "${S[@]}" -- sh -c "mkdir '$tmpd/d' && chmod 0700 '$tmpd/d' && touch '$tmpd/d/f'"
rm -rf "$tmpd"
if have shm; then
  expect_status 0 "/dev/shm keeps working" "${S[@]}" -- sh -c 'echo x > /dev/shm/sbx-meta-$$ && rm /dev/shm/sbx-meta-$$'
else
  skip "shm: /dev/shm is not a writable tmpfs here"
fi

# The kept trees are still nodev: a device node made in the project.
mknod -m 666 "$proj/nulldev" c 1 3
expect_status 0 "unconfined, a null device node in the project opens" sh -c "echo x > '$proj/nulldev'"
expect_status 2 "confined, it does not (the project's mount is nodev)" "${S[@]}" -- sh -c "echo x > '$proj/nulldev'"
rm -f "$proj/nulldev"

# A read-only mount under the project stays read-only (the copy keeps its
# flags), and a read-write one stays writable; in the test's own namespace.
if have mountns; then
  mkdir -p "$proj/ro" "$proj/rw"
  expect_status 0 "a read-only bind under the project stays read-only, a tmpfs stays writable" \
    unshare -m --propagation private sh -c "
      mount --bind -o ro '$proj/ro' '$proj/ro' && mount -t tmpfs -o size=64k sbx '$proj/rw' || exit 9
      $(printf '%q ' "${S[@]}") -- sh -c 'touch $proj/rw/ok || exit 3; if touch $proj/ro/no 2>/dev/null; then exit 4; fi; chmod 0700 $proj/ro 2>/dev/null && exit 5; exit 0'"
else
  skip "mountns: no private mount namespace for the read-only submount case"
fi

# A file outside the roots handed over open (stderr to a log) is read-only
# in the view only because of this step: it still runs, and the log fills.
expect_status 0 "stderr appended to a log outside the roots still runs" \
  sh -c "$(printf '%q ' "${S[@]}") -- sh -c 'echo to-the-log >&2' 2>>'$base/log'"
grep -q to-the-log "$base/log" && pass "... and the log has the line" || fail "the log outside the roots is empty"

# A memory device handed over (stdin from /dev/null) named the host's node
# on a writable mount: root's fchmod through it changed the host's
# /dev/null for every user (review r37 F2). A node of the test's own with
# /dev/null's numbers stands in for it; the unconfined control changes it.
mknod -m 666 "$base/cnull" c 1 3
expect_status 0 "unconfined, fchmod of a /dev/null handed over as stdin works" \
  sh -c "$PY -c 'import os; os.fchmod(0, 0o600)' <'$base/cnull'"
[ "$(stat -c %a "$base/cnull")" = 600 ] && pass "... the node is 600 outside" || fail "the control did not change the node"
chmod 666 "$base/cnull"
expect_status 0 "confined, stdin from it still reads end-of-file" \
  sh -c "$(printf '%q ' "${S[@]}") -- $PY -c 'import os,sys; sys.exit(0 if sys.stdin.read() == \"\" else 3)' <'$base/cnull'"
expect_status 1 "confined, fchmod through stdin is refused" \
  sh -c "$(printf '%q ' "${S[@]}") -- $PY -c 'import os; os.fchmod(0, 0o600)' <'$base/cnull'"
expect_status 0 "confined, chmod and chown through /proc/self/fd/1 change nothing outside" \
  sh -c "$(printf '%q ' "${S[@]}") -- sh -c 'echo gone; chmod 600 /proc/self/fd/1; chown nobody /proc/self/fd/1; exit 0' >'$base/cnull'"
[ "$(stat -c '%a %U' "$base/cnull")" = "666 root" ] && pass "... the node is still 666 root outside" ||
  fail "the node changed under --sandbox: $(stat -c '%a %U' "$base/cnull")"

# Nothing of the launcher's namespace shows in the host's mount table, and
# the host's own / and /proc keep their flags (a read-only step taken
# outside the namespace would make them read-only for everyone).
n0=$(wc -l </proc/self/mountinfo)
f0=$(findmnt -no OPTIONS /proc; findmnt -no OPTIONS /)
"${S[@]}" -- true
"${S[@]}" --protect-secrets -- true
n1=$(wc -l </proc/self/mountinfo)
f1=$(findmnt -no OPTIONS /proc; findmnt -no OPTIONS /)
[ "$f0" = "$f1" ] && pass "the host's / and /proc keep their flags" || fail "the host's flags changed: $f0 -> $f1"
[ "$n0" = "$n1" ] && ! grep -q "$base" /proc/self/mountinfo && pass "the host's mount table is unchanged ($n1 lines)" ||
  fail "the host's mount table changed: $n0 -> $n1 lines"

# Unconfined modes and --no-network alone are not narrowed this way.
fresh
expect_status 0 "--no-network alone (writes not confined) still lets root chmod" \
  "$L" --no-network -- chmod 0640 "$out"
[ "$(stat -c %a "$out")" = 640 ] && pass "... 640 outside" || fail "--no-network: mode not changed"
finish
