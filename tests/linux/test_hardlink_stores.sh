#!/usr/bin/env bash
# The hard-link scan and package stores (spec 004, issue 23): in the build
# class a file whose every other name is in the pnpm store (a real directory
# with pnpm's v<N> layout, never a protected one) does not refuse the run;
# each name counts once, so a file with a name anywhere else still refuses.
# A local `git clone` (hard-linked object files) passes where .git is
# read-only; elsewhere the refusal says what to pass. And --report names a
# link that appeared while the command ran. The scan runs before anything
# is applied, so these need no kernel feature.
. "$SBX_TESTLIB"

base=$(mktemp -d /var/tmp/sbx-stores.XXXXXX)
chmod 755 "$base"
trap 'rm -rf "$base"' EXIT
export HOME=$base/home
store=$HOME/.local/share/pnpm/store
p=$base/proj
mkdir -p "$store/v3/files/ab" "$p/node_modules/.pnpm/lodash@4/node_modules/lodash" "$base/outside"
echo "module.exports = 1" >"$store/v3/files/ab/cdef-index.js"
ln "$store/v3/files/ab/cdef-index.js" "$p/node_modules/.pnpm/lodash@4/node_modules/lodash/index.js"
B=("$L" --class build --project "$p" --workdir "$p")

refused() { # NAME CMD...
  local name=$1
  shift
  expect_status 126 "$name" "$@"
  expect_output_has "hard-linked" "  ...the scan refused"
}

expect_status 0 "--class build: a file linked from the pnpm store passes" "${B[@]}" -- true
refused "--class project: the same link refuses (the store is no root of it)" \
  "$L" --class project --project "$p" --workdir "$p" -- true
expect_output_has "pnpm hard-links packages" "  ...and names pnpm's way out"

# Each name counts once: a second project sharing the file is a name elsewhere.
mkdir -p "$base/proj2/node_modules/.pnpm/lodash@4/node_modules/lodash"
ln "$store/v3/files/ab/cdef-index.js" "$base/proj2/node_modules/.pnpm/lodash@4/node_modules/lodash/index.js"
refused "a store file another project shares still refuses" "${B[@]}" -- true
rm -rf "$base/proj2"
expect_status 0 "  ...and passes again once it is not shared" "${B[@]}" -- true

# An outside link still refuses in the build class.
echo secret >"$base/outside/rc"
ln "$base/outside/rc" "$p/rc-copy"
refused "an outside link next to the store's still refuses" "${B[@]}" -- true
expect_output_has "$p/rc-copy" "  ...naming it"
rm "$p/rc-copy"

# A "store" planted to make outside links pass: the attacker's file has its
# other name in a directory that only looks like a store.
mv "$store" "$base/real-store"
# ...a symlink to a store is no store,
ln -s "$base/real-store" "$store"
expect_status 126 "a store that is a symlink is neither counted nor granted" "${B[@]}" -- true
expect_output_has "refusing" "  ...refused with a reason"
rm "$store"
# ...a store without pnpm's v<N> layout is not,
mkdir -p "$store/files/ab"
ln "$base/real-store/v3/files/ab/cdef-index.js" "$store/files/ab/x"
refused "a store without the v<N> layout is not counted" "${B[@]}" -- true
rm -rf "$store"
mv "$base/real-store" "$store"
# ...a store in a protected place is not (a pattern the host protects): the
# scan runs before the masks, and counts nothing there.
refused "a store inside a protected path is not counted" \
  "$L" --class build --protect "~/.local/share/pnpm" --project "$p" --workdir "$p" -- true
# ...and one moved into a folder of keys is no cache at all.
mkdir -p "$HOME/.ssh/pnpm"
mv "$store" "$HOME/.ssh/pnpm/store"
expect_status 126 "PNPM_HOME inside ~/.ssh: neither counted nor granted" \
  env PNPM_HOME="$HOME/.ssh/pnpm" "${B[@]}" -- true
expect_output_has "refusing" "  ...refused with a reason"
mv "$HOME/.ssh/pnpm/store" "$store"
expect_status 0 "PNPM_HOME moves the store, and it is still counted" \
  env PNPM_HOME="$HOME/.local/share/pnpm" "${B[@]}" -- true

# ---- a local git clone ----
if have git; then
  o=$base/origin
  mkdir -p "$o"
  (cd "$o" && git init -q . && git config user.email t@t && git config user.name t &&
    echo a >a && git add a && git commit -qm a && git gc -q) || fail "origin setup"
  rm -rf "$p"
  git clone -q "$o" "$p" || fail "git clone"
  n=$(find "$p/.git/objects" -type f -links +1 | wc -l)
  [ "$n" -gt 0 ] && pass "the clone shares $n object files with its origin" || fail "the clone has no hard links"
  refused "without protected paths the clone's links refuse (.git is writable)" "$L" --class project --project "$p" --workdir "$p" -- true
  expect_output_has "--no-hardlinks" "  ...and say what to pass"
  if have guard; then
    expect_status 0 "with --protect-secrets (.git read-only) the clone passes" \
      "$L" --class project --protect-secrets --project "$p" --workdir "$p" -- true
    expect_status 126 "with --git-writable it refuses again" \
      "$L" --class project --protect-secrets --git-writable --project "$p" --workdir "$p" -- true
    # The origin named in .git/config must hold the other names.
    (cd "$p" && git config remote.origin.url "$base/outside")
    expect_status 126 "an origin that does not hold the other names: refused" \
      "$L" --class project --protect-secrets --project "$p" --workdir "$p" -- true
    (cd "$p" && git config remote.origin.url "$o")
  else
    skip "guard: a read-only .git needs the protected-path mask"
  fi
  rm -rf "$p"
  git clone -q --no-hardlinks "$o" "$p"
  expect_status 0 "a clone with --no-hardlinks passes as it is" "$L" --class project --project "$p" --workdir "$p" -- true
else
  skip "git: the local-clone cases need git"
fi

# ---- a link that appears while the command runs: --report names it ----
mkdir -p "$p"
echo secret2 >"$base/outside/late"
if "$L" --class project --project "$p" --workdir "$p" -- true >/dev/null 2>&1; then
  ( sleep 1; ln "$base/outside/late" "$p/late-copy" ) &
  expect_status 0 "--report: the command runs while a link appears" \
    "$L" --report --class project --project "$p" --workdir "$p" -- sleep 3
  wait
  expect_output_has "while the command ran" "  ...and it is reported at exit"
  expect_output_has "$p/late-copy" "  ...by name"
  refused "  ...and the next launch refuses" "$L" --class project --project "$p" --workdir "$p" -- true
  rm -f "$p/late-copy"
else
  skip "landlock: the command must start for a link to appear while it runs"
fi
finish
