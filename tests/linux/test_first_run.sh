#!/usr/bin/env bash
# First-run caches (issue 23): on a fresh home, where no cache exists yet,
# `--class build` makes the missing caches before it confines, so go build,
# npm install, pip and cargo succeed; the home itself stays unwritable, and
# nothing but the caches' directories is made. Each tool is first shown
# failing without the cache (the command that cannot create it), from
# outside the sandbox. Keyed skips when a toolchain is missing.
. "$SBX_TESTLIB"

base=$(mktemp -d /var/tmp/sbx-first.XXXXXX) # outside /tmp: a home below /tmp is refused
chmod 755 "$base"
trap 'chmod -R u+w "$base" 2>/dev/null; rm -rf "$base"' EXIT
TP=/usr/bin:/bin # the Debian toolchains, not a user's rustup or pyenv

mkdir -p "$base/h0" "$base/p0"
require landlock "--class build" env PATH=$TP HOME="$base/h0" "$L" --class build --project "$base/p0" -- true

# fresh NAME: an empty home of mode 0755, like a new account's.
fresh() {
  rm -rf "${base:?}/$1"
  mkdir -p "$base/$1"
  chmod 755 "$base/$1"
  echo "$base/$1"
}

# only_caches HOME: nothing but directories was made in the home, and every
# one of them is a cache or a parent of one. The pre-flight index
# (~/.libsandbox, issue 26) is the launcher's own: for an account without a
# home of its own (nobody) it lives in $HOME, this fake home.
only_caches() {
  local h=$1 extra
  extra=$(cd "$h" && find . -mindepth 1 \( -type f -o -type l \) -print | grep -v -e '^./.cache/' \
    -e '^./.npm/' -e '^./go/pkg/mod/' -e '^./.cargo/registry/' -e '^./.cargo/git/' \
    -e '^./.libsandbox/' | head -3)
  if [ -z "$extra" ]; then pass "  ...and only cache contents were written in the home"; else
    fail "  ...but the home got: $extra"; fi
}

# ---- go build: GOCACHE (~/.cache/go-build) ----
if ! have go; then
  skip "go: go build on a fresh home needs the Debian golang package"
else
  g=$base/goproj
  mkdir -p "$g"
  printf 'module example.com/hello\n\ngo 1.18\n' >"$g/go.mod"
  printf 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from go") }\n' >"$g/main.go"
  h=$(fresh home-go)
  # Without the cache the tool fails: the home is not writable in the sandbox.
  expect_status 1 "control: go build fails when its cache cannot be made (--add-dir, no class)" \
    env PATH=$TP HOME="$h" "$L" --confine-fs --project "$g" -- sh -c "cd '$g' && go build -o hello . || exit 1"
  [ ! -e "$h/.cache" ] && pass "  ...and no cache appeared" || fail "  ...but $h/.cache appeared"
  expect_status 0 "--class build: go build on a fresh home" \
    env PATH=$TP HOME="$h" "$L" --class build --project "$g" -- sh -c "cd '$g' && go build -o hello ."
  [ -d "$h/.cache/go-build" ] && pass "  ...~/.cache/go-build was created" || fail "  ...no ~/.cache/go-build"
  [ -n "$(ls "$h/.cache/go-build")" ] && pass "  ...and filled by go" || fail "  ...but it is empty"
  expect_status 0 "  ...and the program runs" "$g/hello"
  expect_output_has "hello from go" "  ...and prints its line"
  only_caches "$h"
  expect_status 1 "  ...the home itself stays unwritable" \
    env PATH=$TP HOME="$h" "$L" --class build --project "$g" -- sh -c "echo x > '$h/.profile' || exit 1"
fi

# ---- npm install of a local tarball: ~/.npm ----
if ! have npm; then
  skip "npm: npm install on a fresh home needs the Debian npm package"
else
  src=$base/src/mylib
  mkdir -p "$src" "$base/npmproj"
  echo '{"name":"mylib","version":"1.0.0","main":"index.js"}' >"$src/package.json"
  echo 'module.exports = 42;' >"$src/index.js"
  (cd "$base/src" && env HOME="$base/src" npm pack ./mylib >/dev/null 2>&1)
  echo '{"name":"np","version":"1.0.0"}' >"$base/npmproj/package.json"
  chmod -R a+rX "$base/src"
  npm_run() { # HOME CLASS-ARGS...
    local h=$1
    shift
    # The tarball lies outside the project: a class reads it only when named
    # (issue 28's read roots).
    env PATH=$TP HOME="$h" npm_config_update_notifier=false "$L" "$@" --project "$base/npmproj" \
      $([ "$1" = --class ] && echo --add-read "$base/src") -- \
      sh -c "cd '$base/npmproj' && npm install --offline --no-audit --no-fund '$base/src/mylib-1.0.0.tgz' || exit 1"
  }
  h=$(fresh home-npm)
  expect_status 1 "control: npm install fails without its cache (no class)" npm_run "$h" --confine-fs
  h=$(fresh home-npm)
  expect_status 0 "--class build: npm install of a local tarball on a fresh home" npm_run "$h" --class build
  [ -d "$base/npmproj/node_modules/mylib" ] && pass "  ...the package is installed" || fail "  ...no node_modules/mylib"
  [ -d "$h/.npm/_cacache" ] && pass "  ...~/.npm was created and filled" || fail "  ...no ~/.npm/_cacache"
  only_caches "$h"
fi

# ---- pip: its wheel cache, ~/.cache/pip ----
if ! have python3 || ! /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
  skip "python3: pip on a fresh home needs python3-pip"
else
  pp=$base/pyproj
  mkdir -p "$pp/pkg/mypkg"
  printf 'from setuptools import setup\nsetup(name="mypkg", version="1.0", packages=["mypkg"])\n' >"$pp/pkg/setup.py"
  echo 'X = 1' >"$pp/pkg/mypkg/__init__.py"
  h=$(fresh home-pip)
  # pip looks for a keyring and the network even offline: EPERM, not SIGSYS.
  expect_status 0 "--class build: pip builds a local package on a fresh home" \
    env PATH=$TP HOME="$h" "$L" --class build --net-eperm --project "$pp" -- sh -c \
    "cd '$pp' && /usr/bin/python3 -m pip wheel --no-deps --no-index --no-build-isolation ./pkg -w dist"
  ls "$pp"/dist/mypkg-1.0-*.whl >/dev/null 2>&1 && pass "  ...the wheel was built" || fail "  ...no wheel"
  [ -d "$h/.cache/pip" ] && pass "  ...~/.cache/pip was created" || fail "  ...no ~/.cache/pip"
  expect_status 0 "  ...and pip may write it inside the sandbox" \
    env PATH=$TP HOME="$h" "$L" --class build --project "$pp" -- sh -c "echo x > '$h/.cache/pip/probe'"
  only_caches "$h"
fi

# ---- cargo, offline, with a vendored dependency: ~/.cargo/registry, git ----
if ! have cargo || [ ! -x /usr/bin/cargo ]; then
  skip "cargo: cargo on a fresh home needs the Debian cargo package"
else
  c=$base/rsproj
  mkdir -p "$c/src" "$c/vendor/dep/src" "$c/.cargo"
  printf '[package]\nname = "dep"\nversion = "0.1.0"\nedition = "2021"\n' >"$c/vendor/dep/Cargo.toml"
  echo 'pub fn f() -> i32 { 7 }' >"$c/vendor/dep/src/lib.rs"
  echo '{"files":{},"package":null}' >"$c/vendor/dep/.cargo-checksum.json"
  printf '[package]\nname = "hello"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\ndep = "0.1"\n' >"$c/Cargo.toml"
  echo 'fn main() { println!("cargo says {}", dep::f()); }' >"$c/src/main.rs"
  printf '[source.crates-io]\nreplace-with = "vendored"\n[source.vendored]\ndirectory = "vendor"\n' >"$c/.cargo/config.toml"
  h=$(fresh home-cargo)
  expect_status 0 "--class build: cargo build --offline on a fresh home" \
    env PATH=$TP HOME="$h" "$L" --class build --project "$c" -- sh -c "cd '$c' && cargo build --offline -q"
  expect_status 0 "  ...and the program runs" "$c/target/debug/hello"
  expect_output_has "cargo says 7" "  ...with its dependency"
  [ -d "$h/.cargo/registry" ] && pass "  ...~/.cargo/registry was created" || fail "  ...no ~/.cargo/registry"
  [ ! -e "$h/.cargo/bin" ] && [ ! -e "$h/.cargo/config.toml" ] && pass "  ...but nothing else of ~/.cargo" ||
    fail "  ...and more of ~/.cargo"
  expect_status 1 "  ...~/.cargo itself stays unwritable (bin is on PATH)" \
    env PATH=$TP HOME="$h" "$L" --class build --project "$c" -- sh -c "mkdir '$h/.cargo/bin' || exit 1"
fi

# ---- what is never created ----
h=$(fresh home-attack)
mkdir -p "$h/.cache"
# A link an earlier --writable-caches launch could have planted in ~/.cache:
# the cache behind it is neither made nor granted, nor is its target.
ln -s "$base/victim-dir" "$h/.cache/go-build"
expect_status 0 "a cache behind a planted link: the launch runs" \
  env PATH=$TP HOME="$h" "$L" --class build --project "$base/goproj" -- true
[ ! -e "$base/victim-dir" ] && pass "  ...and nothing was made where the link points" ||
  fail "  ...but $base/victim-dir was created"
expect_status 0 "  ...--explain says why it is not created" \
  env PATH=$TP HOME="$h" "$L" --explain --class build --project "$base/goproj" -- true
expect_output_has "go-build is missing and is not created" "  ...naming the cache"
rm -f "$h/.cache/go-build"
# An override outside the home is never created.
expect_status 0 "GOCACHE outside the home: not created" \
  env PATH=$TP HOME="$h" GOCACHE="$base/elsewhere/gocache" "$L" --class build --project "$base/goproj" -- true
[ ! -e "$base/elsewhere" ] && pass "  ...nothing was made" || fail "  ...but $base/elsewhere was created"
# A home that is not the caller's (root with HOME of another user): nothing is
# made in it.
if have root; then
  h=$(fresh home-other)
  chown 65534:65534 "$h"
  expect_status 0 "root with HOME of another user: the launch runs" \
    env PATH=$TP HOME="$h" "$L" --class build --project "$base/goproj" -- true
  [ -z "$(ls -A "$h")" ] && pass "  ...and nothing was created in that home" || fail "  ...but $(ls -A "$h") appeared"
else
  skip "root: a home of another user is made by root only"
fi
# --explain creates nothing; it lists what a launch would create.
h=$(fresh home-explain)
expect_status 0 "--explain on a fresh home" env PATH=$TP HOME="$h" "$L" --explain --class build --project "$base/goproj" -- true
if have go; then expect_output_has "creates at launch: $h/.cache/go-build" "  ...lists the go build cache"; fi
[ -z "$(ls -A "$h")" ] && pass "  ...and creates nothing" || fail "  ...but it created $(ls -A "$h")"
finish
