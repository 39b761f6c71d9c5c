#!/usr/bin/env bash
# The project the session means (spec 004, issue 23): without --project it is
# the git root above the working directory, so a command from sub/dir writes
# the repository; the home, /, ~/Library and a package store are never a
# project: the command then writes only its scratch (TMPDIR points there),
# while an explicit --project ~ is still refused; a working directory outside
# the project is not writable. Every write refused here is first shown
# working unconfined; the attacks on the git-root search come after.
. "$SBX_TESTLIB"

base=$(mktemp -d /var/tmp/sbx-proj.XXXXXX) # outside /tmp: a home below /tmp is refused
chmod 755 "$base"
trap 'cd /; rm -rf "$base"' EXIT
h=$base/home
repo=$h/code/repo
mkdir -p "$repo/sub/dir" "$h/.cache/thing" "$h/.local/share/pnpm/store/v3" "$h/Library/Stuff" "$base/scratch"
chmod 700 "$base/scratch"
(cd "$repo" && git init -q .) || { echo "git init failed"; exit 1; }
export HOME=$h

require landlock "--sandbox" "$L" --sandbox --project "$repo" -- true

# written FILE / unwritten FILE: checked from outside.
written() { if [ -e "$1" ]; then pass "  ...$1 was written"; rm -f "$1"; else fail "  ...$1 was not written"; fi; }
unwritten() { if [ ! -e "$1" ]; then pass "  ...$1 was not written"; else fail "  ...but $1 was written"; rm -f "$1"; fi; }

# ---- a cd below keeps the same project ----
cd "$repo/sub/dir"
expect_status 0 "from sub/dir of a repository: the repository root is writable" \
  "$L" --sandbox -- sh -c "echo x > '$repo/top.txt'"
written "$repo/top.txt"
expect_status 0 "  ...and so is the working directory" "$L" --sandbox -- sh -c "echo x > here.txt"
written "$repo/sub/dir/here.txt"
expect_status 1 "  ...but not the folder above the repository" \
  "$L" --sandbox -- sh -c "echo x > '$h/code/above.txt' || exit 1"
unwritten "$h/code/above.txt"
expect_status 0 "--explain names the git root" "$L" --explain --sandbox -- true
expect_output_has "project: $repo, the git root above the working directory" "  ...as the project"
expect_status 0 "--class build from sub/dir: the same project" \
  "$L" --class build -- sh -c "echo x > '$repo/b.txt'"
written "$repo/b.txt"
# A nested repository below is a project of its own.
mkdir -p "$repo/sub/inner/src"
(cd "$repo/sub/inner" && git init -q .)
cd "$repo/sub/inner/src"
expect_status 1 "from a nested repository: its root, not the outer one" \
  "$L" --sandbox -- sh -c "echo x > '$repo/outer.txt' || exit 1"
unwritten "$repo/outer.txt"
expect_status 0 "  ...while the inner root is writable" "$L" --sandbox -- sh -c "echo x > '$repo/sub/inner/i.txt'"
written "$repo/sub/inner/i.txt"

# ---- a cd elsewhere never makes that folder writable ----
mkdir -p "$base/elsewhere"
cd "$base/elsewhere"
expect_status 0 "unconfined: the other folder is writable" sh -c "echo x > f.txt"
written "$base/elsewhere/f.txt"
expect_status 1 "--project REPO from another folder: that folder is not writable" \
  "$L" --sandbox --project "$repo" -- sh -c "echo x > f.txt || exit 1"
unwritten "$base/elsewhere/f.txt"
expect_status 0 "  ...the project still is" "$L" --sandbox --project "$repo" -- sh -c "echo x > '$repo/p.txt'"
written "$repo/p.txt"
expect_status 0 "  ...and --explain says why the folder is not" "$L" --explain --sandbox --project "$repo" -- true
expect_output_has "lies outside the project" "  ...in a note"
expect_status 0 "  ...--workdir grants it explicitly" \
  "$L" --sandbox --project "$repo" --workdir "$base/elsewhere" -- sh -c "echo x > f.txt"
written "$base/elsewhere/f.txt"

# ---- never a project: the command works in its scratch ----
for d in "$h" "$h/.cache/thing" "$h/.local/share/pnpm/store/v3" "$h/Library/Stuff"; do
  cd "$d"
  expect_status 0 "unconfined: $d is writable" sh -c "echo x > f.txt"
  written "$d/f.txt"
  expect_status 0 "from $d: the command runs (no refusal)" \
    "$L" --sandbox --scratch "$base/scratch" -- sh -c "echo x > f.txt 2>/dev/null; echo \"\$TMPDIR\" > \"\$TMPDIR/t\""
  unwritten "$d/f.txt"
  if [ "$(cat "$base/scratch/t" 2>/dev/null)" = "$base/scratch" ]; then
    pass "  ...it works in its scratch, TMPDIR points there"; else fail "  ...TMPDIR is not the scratch"; fi
  rm -f "$base/scratch/t"
  expect_status 0 "  ...--explain says there is no project" "$L" --explain --sandbox --scratch "$base/scratch" -- true
  expect_output_has "project: none: $d" "  ...naming the folder"
  expect_output_has "no project (" "  ...and the Sandbox line says so"
done
# ---- under a class, which confines reads too (issue 28) ----
# The git root is read as well as written, from sub/dir; the home as the
# working directory is neither read nor refused: the command has its scratch.
echo repo-readme >"$repo/README"
echo home-notes >"$h/notes.txt"
cd "$repo/sub/dir"
expect_status 0 "--class project from sub/dir: the git root's files are readable" \
  "$L" --class project -- sh -c "grep -q repo-readme '$repo/README'"
cd "$h"
expect_status 0 "unconfined: the home's notes are readable" cat "$h/notes.txt"
expect_status 0 "--class build from the home: the command runs in its scratch" \
  "$L" --class build --scratch "$base/scratch" -- sh -c 'echo x > "$TMPDIR/c"'
written "$base/scratch/c"
expect_status 1 "  ...and the home is not read" \
  "$L" --class build --scratch "$base/scratch" -- sh -c "cat '$h/notes.txt' || exit 1"
expect_status 0 "  ...--explain says so" "$L" --explain --class build --scratch "$base/scratch" -- true
expect_output_has "reads only the system, toolchains and those directories" "  ...in the Sandbox line"
expect_status 0 "--class build --project REPO from the home: runs, writes the project" \
  "$L" --class build --project "$repo" --scratch "$base/scratch" -- sh -c "echo x > '$repo/c2.txt'"
written "$repo/c2.txt"
expect_status 1 "  ...and the home, its working directory, is not read" \
  "$L" --class build --project "$repo" --scratch "$base/scratch" -- sh -c "cat '$h/notes.txt' || exit 1"
rm -f "$h/notes.txt" "$repo/README"
cd "$h"
expect_status 0 "from the home without --scratch: TMPDIR is /tmp, the scratch" \
  env -u TMPDIR "$L" --sandbox -- sh -c 'test "$TMPDIR" = /tmp'
# With protected paths: the home is not walked (it is no root), its secrets
# stay masked all the same.
mkdir -p "$h/.ssh"
echo sbx-home-key >"$h/.ssh/id_ed25519"
mkdir "$h/locked"
chmod 000 "$h/locked" # the scan of a root would fail on it: the home is not walked
if have guard; then
  expect_status 0 "unconfined: the key is readable" cat "$h/.ssh/id_ed25519"
  expect_status 1 "from the home with --protect-secrets: the key is not" \
    "$L" --sandbox --protect-secrets --scratch "$base/scratch" -- sh -c "cat '$h/.ssh/id_ed25519' || exit 1"
  if grep -q sbx-home-key "$_out"; then fail "  ...the key was read"; else pass "  ...nothing of it came out"; fi
else
  skip "guard: protected paths need the creation guard"
fi
chmod 755 "$h/locked"
rmdir "$h/locked"
expect_status 126 "an explicit --project ~ is still refused" "$L" --sandbox --project "$h" -- true
expect_output_has "refusing" "  ...with a reason"
expect_status 126 "an explicit --workdir ~ is still refused" "$L" --sandbox --workdir "$h" -- true
cd /
expect_status 0 "from /: the command runs in its scratch" \
  "$L" --sandbox --scratch "$base/scratch" -- sh -c 'echo x > "$TMPDIR/r"'
written "$base/scratch/r"

# ---- attacks on the git-root search ----
# A .git planted above the working directory by another user (CVE-2022-24765's
# shape): not the caller's repository, so no project above the folder.
mkdir -p "$base/shared/work/sub"
cd "$base/shared/work/sub"
if have root; then
  mkdir "$base/shared/.git"
  chown 65534:65534 "$base/shared/.git"
  expect_status 1 "a .git above, owned by another user, is no git root" \
    "$L" --sandbox -- sh -c "echo x > '$base/shared/planted.txt' || exit 1"
  unwritten "$base/shared/planted.txt"
  expect_status 0 "  ...the working directory is the project" "$L" --sandbox -- sh -c "echo x > w.txt"
  written "$base/shared/work/sub/w.txt"
  rm -rf "$base/shared/.git"
else
  skip "root: a .git of another owner is made by root only"
fi
# A .git that is a symlink (to a repository elsewhere) is no git root either.
mkdir -p "$base/real-repo"
(cd "$base/real-repo" && git init -q .)
ln -s "$base/real-repo/.git" "$base/shared/.git"
expect_status 1 "a .git that is a symlink is no git root" \
  "$L" --sandbox -- sh -c "echo x > '$base/shared/linked.txt' || exit 1"
unwritten "$base/shared/linked.txt"
rm -f "$base/shared/.git"
# A home kept in git (~/.git): the search stops below the home, so a folder
# in it is its own project, never the home.
(cd "$h" && git init -q .)
mkdir -p "$h/notes/x"
cd "$h/notes/x"
expect_status 1 "~/.git does not make the home the project" \
  "$L" --sandbox -- sh -c "echo x > '$h/.bashrc' || exit 1"
unwritten "$h/.bashrc"
expect_status 0 "  ...the working directory is" "$L" --sandbox -- sh -c "echo x > n.txt"
written "$h/notes/x/n.txt"
rm -rf "$h/.git"
# The search never reaches a shared temp directory: a folder in /tmp with no
# repository of its own is its own project, whatever /tmp holds.
t=$(mktemp -d /tmp/sbx-proj.XXXXXX)
mkdir -p "$t/a/b"
cd "$t/a/b"
expect_status 0 "a folder in /tmp: its own project" "$L" --explain --sandbox -- true
expect_output_has "project root: $t/a/b" "  ...the working directory"
cd /
rm -rf "$t"
finish
