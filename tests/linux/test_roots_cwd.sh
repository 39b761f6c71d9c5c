#!/usr/bin/env bash
# Writable roots the host did not spell (issue 16, second review): the
# default working directory and project, an env TMPDIR inside a home, and a
# mount below a root. Each refusal is exit 126, checked from outside the
# sandbox by what was or was not written, next to the setup that must work.
. "$SBX_TESTLIB"

base=$(mktemp -d /var/tmp/sbx-cwd.XXXXXX)   # outside /tmp (a root) and every home
chmod 755 "$base"
victim=$base/victim
mkdir "$victim" "$base/nproj"
t=$(mktemp -d /tmp/sbx-cwd.XXXXXX)
trap 'cd /; rm -rf "$base" "$t"' EXIT

refused() { # NAME CMD...: exit 126 with a reason on stderr
  local name=$1
  shift
  expect_status 126 "$name" "$@"
  grep -q "refus" "$_err" && pass "  ...and says why" \
    || { fail "  ...without a reason"; sed 's/^/    | /' "$_err" | head -3; }
}
unwritten() { # FILE
  if [ ! -e "$1" ]; then pass "  ...and $1 was not written"; else fail "  ...but $1 was written"; rm -f "$1"; fi
}
written() { # FILE
  if [ -e "$1" ]; then pass "  ...and $1 was written"; rm -f "$1"; else fail "  ...but $1 was not written"; fi
}

# The victim really is writable unconfined: a refusal below is the sandbox's.
sh -c "echo T > '$victim/e0'"
written "$victim/e0"

# ---- 1. the default working directory reached through a planted link ----
p=$t/p
mkdir "$p"
(cd "$p" && expect_status 0 "launch 1 (default project $p) swaps it for a link to the victim" \
  "$L" --sandbox -- sh -c "cd / && rm -rf '$p' && ln -s '$victim' '$p'")
[ -L "$p" ] && pass "  ...the link is planted" || fail "  ...no link was planted"
cd "$p"
refused "launch 2 from cd $p (PWD names the link) is refused" \
  "$L" --sandbox -- sh -c "echo T > '$victim/e4'"
unwritten "$victim/e4"
cd /
rm -f "$p"
mkdir "$p"
(cd "$p" && expect_status 0 "legit: the default project, a real directory in /tmp, is writable" \
  "$L" --sandbox -- sh -c "echo x > '$p/f'")
written "$p/f"

th=$base/home                     # a home of the test's own, outside /tmp
mkdir -p "$th/.ssh" "$th/proj/sub"
chmod 700 "$th/.ssh"
expect_status 0 "launch 1 (--project ~/proj) plants ~/proj/keys -> ~/.ssh" \
  env HOME="$th" "$L" --sandbox --project "$th/proj" --workdir "$th/proj" -- ln -s "$th/.ssh" "$th/proj/keys"
cd "$th/proj/keys"
refused "launch 2 from cd ~/proj/keys (default workdir through the link) is refused" \
  env HOME="$th" "$L" --sandbox --project "$th/proj" -- sh -c "echo K >> '$th/.ssh/authorized_keys'"
unwritten "$th/.ssh/authorized_keys"
# Without a usable PWD the link cannot be seen: getcwd gives ~/.ssh, outside
# the project, and a working directory outside the project is never made
# writable (issue 23: a cd elsewhere widens nothing), so it runs, unwritten.
expect_status 1 "...and without a usable PWD (getcwd gives ~/.ssh, outside the project): not writable" \
  env -u PWD HOME="$th" "$L" --sandbox --project "$th/proj" -- sh -c "echo K >> '$th/.ssh/authorized_keys' || exit 1"
unwritten "$th/.ssh/authorized_keys"
expect_status 1 "...and with a stale PWD naming the project: not writable" \
  env PWD="$th/proj" HOME="$th" "$L" --sandbox --project "$th/proj" -- sh -c "echo K >> '$th/.ssh/authorized_keys' || exit 1"
unwritten "$th/.ssh/authorized_keys"
cd "$th/proj/sub"
expect_status 0 "legit: cd ~/proj/sub with --project ~/proj writes the workdir" \
  env HOME="$th" "$L" --sandbox --project "$th/proj" -- sh -c "echo x > '$th/proj/sub/f'"
written "$th/proj/sub/f"
expect_status 0 "legit: ...also without PWD" \
  env -u PWD HOME="$th" "$L" --sandbox --project "$th/proj" -- sh -c "echo x > '$th/proj/sub/f'"
written "$th/proj/sub/f"
cd "$base/nproj"

# ---- 2. an env TMPDIR inside a home stays in its cache or tmp locations ----
mkdir -p "$th/.config" "$th/.local/tmp" "$th/.cache/tmp" "$th/tmp" "$th/notes"
chmod 700 "$th/.config" "$th/.local/tmp" "$th/.cache/tmp" "$th/tmp" "$th/notes"
refused "TMPDIR=~/.ssh is refused" \
  env HOME="$th" TMPDIR="$th/.ssh" "$L" --sandbox --project "$base/nproj" -- \
  sh -c "echo K >> '$th/.ssh/authorized_keys'"
unwritten "$th/.ssh/authorized_keys"
for d in .config .local/tmp notes; do
  refused "TMPDIR=~/$d is refused" \
    env HOME="$th" TMPDIR="$th/$d" "$L" --sandbox --project "$base/nproj" -- sh -c "echo x > '$th/$d/f'"
  unwritten "$th/$d/f"
done
for d in .cache/tmp tmp; do
  expect_status 0 "legit: TMPDIR=~/$d is writable" \
    env HOME="$th" TMPDIR="$th/$d" "$L" --sandbox --project "$base/nproj" -- sh -c "echo x > '$th/$d/f'"
  written "$th/$d/f"
done

# ---- 3. a bind of / mounted below a root (Landlock's beneath crosses mounts) ----
if ! have root; then
  skip "root: mounting a bind of / below the project needs root (nobody cannot mount)"
elif ! have mountns; then
  skip "mountns: no private mount namespace to bind / in"
else
  mp=$base/nproj/rootfs
  mkdir "$mp"
  inns() { # CMD...: in a private mount namespace with MOUNT (a mount command) done at $mp
    MP=$mp NPROJ=$base/nproj unshare -m --propagation private sh -c \
      "$MOUNT \"\$MP\" && cd \"\$NPROJ\" && exec \"\$@\"" sh "$@"
  }
  MOUNT="mount --rbind /"
  refused "a bind of / under the project is refused" \
    inns "$L" --sandbox --project "$base/nproj" -- sh -c "echo T > '$mp$victim/e5'"
  unwritten "$victim/e5"
  expect_status 0 "unconfined, the bind reaches the victim" inns sh -c "echo T > '$mp$victim/e5'"
  written "$victim/e5"
  MOUNT="mount -t tmpfs sbx-cwd"
  expect_status 0 "legit: a tmpfs under the project is writable" \
    inns "$L" --sandbox --project "$base/nproj" -- sh -c "echo x > '$mp/f' && cat '$mp/f'"
fi

finish
