#!/usr/bin/env bash
# Writable roots are checked by what they are (issue 16): "/", the home and
# its ancestors are refused by any spelling and for every kind of root; a
# root reached through a symlink a sandboxed command could have planted is
# refused; TMPDIR and cache overrides must be directories of the caller's own.
# Each refusal is exit 126 with a reason, checked from outside the sandbox,
# next to the same route working unconfined or with a legitimate value.
. "$SBX_TESTLIB"

base=$(mktemp -d /var/tmp/sbx-roots.XXXXXX)   # outside /tmp, outside every root
chmod 755 "$base"
victim=$base/victim                           # what a planted link points at
mkdir "$victim"
trap 'rm -rf "$base"' EXIT
me=$(id -u)

# no_project NAME DIR CMD...: CMD (a launcher run from the home DIR, with a
# last argument that writes a probe in DIR) runs, as spec 004 wants, but
# the home is no project: the probe is refused and never appears.
no_project() {
  local name=$1 dir=$2
  shift 2
  expect_status 1 "$name" "$@"
  if [ ! -e "$dir/.sbx-roots-probe" ]; then pass "  ...and $dir was not written"; else
    fail "  ...but $dir was written"; rm -f "$dir/.sbx-roots-probe"; fi
}
probe_cmd="touch .sbx-roots-probe 2>/dev/null || exit 1"

refused() { # NAME CMD...: exit 126 with a reason on stderr
  local name=$1
  shift
  expect_status 126 "$name" "$@"
  grep -q "refus\|not an existing directory" "$_err" && pass "  ...and says why" \
    || { fail "  ...without a reason"; sed 's/^/    | /' "$_err" | head -3; }
}

# ---- 1. every kind of root is checked ----
expect_status 0 "legit: --scratch and --add-dir of our own work" \
  "$L" --sandbox --project "$base" --scratch "$base" --add-dir "$base" -- true
refused "--scratch / is refused" "$L" --sandbox --project "$base" --scratch / -- true
refused "--add-dir / is refused" "$L" --sandbox --project "$base" --add-dir / -- true
refused "--add-dir \$HOME is refused" "$L" --sandbox --project "$base" --add-dir "$HOME" -- true
refused "--add-dir \$HOME/ (trailing slash) is refused" "$L" --sandbox --project "$base" --add-dir "$HOME/" -- true
refused "--class media --output \$HOME is refused" "$L" --class media --output "$HOME" -- true
expect_status 0 "legit: --class media --output DIR" "$L" --class media --output "$victim" -- true
refused "TMPDIR=/ is refused" env TMPDIR=/ "$L" --sandbox --project "$base" -- true
refused "TMPDIR=\$HOME is refused" env TMPDIR="$HOME" "$L" --sandbox --project "$base" -- true
refused "TMPDIR naming no directory is refused" env TMPDIR="$base/missing" "$L" --sandbox --project "$base" -- true
expect_output_has "TMPDIR=" "  ...naming the variable"
mkdir "$base/scratch"
expect_status 0 "legit: TMPDIR=a directory of our own" \
  env TMPDIR="$base/scratch" "$L" --sandbox --project "$base" -- sh -c 'echo x > "$TMPDIR/f"'
[ -e "$base/scratch/f" ] && pass "  ...and it is writable" || fail "  ...but it was not written"
mkdir -p "$_scratch/tmpx"
expect_status 0 "legit: TMPDIR=/tmp/x" env TMPDIR="$_scratch/tmpx" "$L" --sandbox --project "$base" -- true

# Cache overrides of the build class and --writable-caches.
refused "--class build with GOCACHE=/etc is refused" \
  env GOCACHE=/etc "$L" --class build --project "$base" -- true
expect_output_has "GOCACHE=/etc" "  ...naming the variable"
mkdir -p "$HOME/.ssh" "$HOME/.config" "$HOME/.cache/go-build" 2>/dev/null
if [ -d "$HOME/.ssh" ] && [ -O "$HOME/.ssh" ]; then
  refused "--class build with PIP_CACHE_DIR=~/.ssh is refused" \
    env PIP_CACHE_DIR="$HOME/.ssh" "$L" --class build --project "$base" -- true
  refused "--writable-caches with XDG_CACHE_HOME=~/.config is refused" \
    env XDG_CACHE_HOME="$HOME/.config" "$L" --sandbox --writable-caches --project "$base" -- true
  expect_status 0 "legit: --class build with GOCACHE=~/.cache/go-build" \
    env GOCACHE="$HOME/.cache/go-build" "$L" --class build --project "$base" -- \
    sh -c "echo x > '$HOME/.cache/go-build/sbx-roots-$$' && rm '$HOME/.cache/go-build/sbx-roots-$$'"
else
  skip "the home is not ours to create ~/.ssh in"
fi

# ---- 2. a planted symlink in place of a root ----
# The sandbox may write /tmp: a first command swaps TMPDIR for a link, the
# next launch must not grant what the link points at.
tmpx=$_scratch/scratchdir
mkdir "$tmpx"
expect_status 0 "a confined command can swap its TMPDIR for a link" \
  env TMPDIR="$tmpx" "$L" --sandbox --project "$base" -- sh -c "rm -rf '$tmpx' && ln -s '$victim' '$tmpx'"
[ -L "$tmpx" ] && pass "  ...the link is there" || fail "  ...no link was planted"
expect_status 0 "unconfined, the route through the link reaches the victim" \
  sh -c "echo x > '$tmpx/through' && rm '$victim/through'"
refused "the next launch refuses the planted TMPDIR" \
  env TMPDIR="$tmpx" "$L" --sandbox --project "$base" -- sh -c 'echo x > "$TMPDIR/pwned"'
expect_output_has "symbolic link" "  ...saying a component is a link"
expect_output_has "$tmpx" "  ...naming it"
[ ! -e "$victim/pwned" ] && pass "  ...and nothing was written through it" || fail "the victim was written"

# The research class does not write /tmp, but /tmp is shared: a link there
# is refused all the same.
ln -s "$victim" "$_scratch/research-tmp"
refused "--class research: a TMPDIR through a link in /tmp is refused" \
  env TMPDIR="$_scratch/research-tmp" "$L" --class research -- sh -c 'echo x > "$TMPDIR/pwned"'
[ ! -e "$victim/pwned" ] && pass "  ...and nothing was written through it" || fail "the victim was written"

# A project under /tmp swapped for a link.
proj=$_scratch/proj
mkdir "$proj"
expect_status 0 "legit: a project under /tmp nobody swapped" \
  "$L" --sandbox --project "$proj" -- sh -c "echo x > '$proj/f'"
[ -e "$proj/f" ] && pass "  ...is writable" || fail "  ...was not written"
expect_status 0 "a confined command can swap its project under /tmp for a link" \
  "$L" --sandbox --project "$proj" --workdir "$proj" -- sh -c "cd / && rm -rf '$proj' && ln -s '$victim' '$proj'"
refused "the next launch refuses the swapped project" \
  "$L" --sandbox --project "$proj" --workdir "$proj" -- sh -c "echo x > '$proj/pwned'"
[ ! -e "$victim/pwned" ] && pass "  ...and nothing was written through it" || fail "the victim was written"

# A nested --add-dir swapped for a link (the project is outside /tmp).
nproj=$base/nproj
mkdir -p "$nproj/out"
expect_status 0 "a confined command can swap a nested --add-dir for a link" \
  "$L" --sandbox --project "$nproj" --workdir "$nproj" --add-dir "$nproj/out" -- \
  sh -c "rm -rf '$nproj/out' && ln -s '$victim' '$nproj/out'"
refused "the next launch refuses the swapped --add-dir" \
  "$L" --sandbox --project "$nproj" --workdir "$nproj" --add-dir "$nproj/out" -- \
  sh -c "echo x > '$nproj/out/pwned'"
[ ! -e "$victim/pwned" ] && pass "  ...and nothing was written through it" || fail "the victim was written"

# System links above every root are followed: /var/run -> /run.
if [ -L /var/run ] && [ -d /run ]; then
  expect_status 0 "legit: a root through the system's /var/run link" \
    "$L" --sandbox --project "$base" --add-dir /var/run -- true
fi

# ---- 3. spellings of / and the home ----
for spelling in /. /proc/self/root "/var/tmp/x/..//../.." //; do
  refused "--project $spelling is refused" "$L" --sandbox --project "$spelling" -- true
done
refused "--workdir /. is refused" "$L" --sandbox --workdir /. -- true
ln -s / "$_scratch/rootlink"
refused "a symlink to / is refused" "$L" --sandbox --project "$_scratch/rootlink" -- true
refused "--add-dir \$HOME/. is refused" "$L" --sandbox --project "$base" --add-dir "$HOME/." -- true
refused "--add-dir \$HOME/x/.. is refused" "$L" --sandbox --project "$base" --add-dir "$HOME/x/.." -- true
no_project "the home as the working directory: no project, it stays unwritable" "$HOME" \
  sh -c "cd '$HOME' && exec '$L' --sandbox -- sh -c '$probe_cmd'"
refused "the home as an explicit --workdir is refused" sh -c "cd '$HOME' && exec '$L' --sandbox --workdir '$HOME' -- true"
refused "a tool server started in the home is refused" sh -c "cd '$HOME' && exec '$L' --tool-server -- true"
expect_status 0 "legit: a tool server in its own directory" sh -c "cd '$base' && exec '$L' --tool-server -- true"

if have own_home; then
  ahome=$(getent passwd "$me" | cut -d: -f6)
  # The account's home stays a home whatever $HOME says: never a project.
  no_project "cd ~ && env -u HOME: the account's home is still no project" "$ahome" \
    sh -c "cd '$ahome' && exec env -u HOME '$L' --sandbox -- sh -c '$probe_cmd'"
  no_project "cd ~ && HOME=/nonexistent: still no project" "$ahome" \
    sh -c "cd '$ahome' && HOME=/nonexistent exec '$L' --sandbox -- sh -c '$probe_cmd'"
  no_project "cd ~ && HOME=/: still no project" "$ahome" \
    sh -c "cd '$ahome' && HOME=/ exec '$L' --sandbox -- sh -c '$probe_cmd'"
  no_project "cd ~ && HOME=relative: still no project" "$ahome" \
    sh -c "cd '$ahome' && HOME=rel exec '$L' --sandbox -- sh -c '$probe_cmd'"
  refused "cd ~ && HOME=/nonexistent --project ~: refused" \
    sh -c "cd '$ahome' && HOME=/nonexistent exec '$L' --sandbox --project '$ahome' -- true"
  # A project reached through the user's own link (~/code -> /data/code).
  case $ahome in /tmp/* | /var/tmp/*) skip "home_not_tmp: the account's home is in a shared temp dir" ;; *)
    mkdir -p "$base/data/code/proj"
    link=$ahome/.sbx-roots-code.$$
    ln -s "$base/data/code" "$link"
    expect_status 0 "legit: a project through the user's own link, git commit and make work" \
      "$L" --sandbox --project "$link/proj" --workdir "$link/proj" -- sh -c "cd '$link/proj' &&
        git init -q . && git -c user.name=t -c user.email=t@t commit -q --allow-empty -m t &&
        printf 'all:\n\techo built > out\n' > Makefile && make -s >/dev/null"
    [ -e "$base/data/code/proj/out" ] && pass "  ...and wrote the project" || fail "  ...no make output"
    rm -f "$link" ;;
  esac
else
  skip "own_home: the account's home of $(id -un) is missing or not ours to use"
fi

# --explain shows what each root resolved to.
expect_status 0 "--explain" "$L" --explain --sandbox --project "$base/." --add-dir "$base/nproj/../victim" -- true
expect_output_has "$base/. -> $base" "--explain shows the spelling and what it resolved to"
expect_output_has "$base/victim" "  ...for every root"

finish
