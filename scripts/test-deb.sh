#!/usr/bin/env bash
# The Debian packages, end to end, on this machine (root, Debian):
#   1. copy the working tree to a scratch directory outside it (dpkg-buildpackage
#      writes its .debs next to the source directory), make the orig tarball
#      and the source package, and build the binaries: dpkg-buildpackage -us -uc -b;
#   2. lintian on the source and binary packages: nothing it prints may be
#      left unexplained (each override in debian/ carries its reason);
#   3. apt-get install ./*.deb, then debian/tests/installed: the packaged
#      launcher's self-test and confined commands, and C hosts built with
#      pkg-config and with find_package(sandbox);
#   4. apt-get purge, then nothing may be left: no package, file or ld.so
#      cache entry.
# DEB_BUILD_OPTIONS is passed on (nocheck skips the unit tests in the build);
# SANDBOX_DEB_KEEP=1 keeps the scratch directory (logs, packages) afterwards.
# Refuses to run when one of the packages is already installed: the test
# would remove it.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(sandbox-exec-launcher libsandbox0 libsandbox-dev)
start=$SECONDS

die() { echo "test-deb: $*" >&2; exit 1; }
step() { echo "== $* ($((SECONDS - start)) s)"; }
[ "$(id -u)" = 0 ] || die "needs root (apt-get install and purge)"
[ -f /etc/debian_version ] || die "needs Debian (apt and dpkg)"
bash scripts/deps.sh debhelper dpkg-dev lintian
dpkg-checkbuilddeps || die "the build dependencies above are missing (debian/control)"
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^.[^n]'; then
    die "$p is already installed; this test installs and purges it: remove it first"
  fi
done

version=$(dpkg-parsechangelog -l debian/changelog -S Version)
upstream=${version%-*}
scratch=$(mktemp -d "${TMPDIR:-/var/tmp}/sbx-deb.XXXXXX")
installed=0
cleanup() {
  if [ "$installed" = 1 ]; then apt-get purge -y -qq "${packages[@]}" >/dev/null 2>&1 || true; fi
  if [ "${SANDBOX_DEB_KEEP:-0}" = 1 ]; then echo "test-deb: kept $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
src=$scratch/libsandbox-$upstream

step "copy the tree, source package (libsandbox $version)"
# The working tree as git sees it (tracked and new files, nothing ignored such
# as build/), or everything but build directories outside a git checkout.
mkdir "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  git ls-files -z -co --exclude-standard | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$src"
else
  tar --exclude=./build --exclude='./build-*' --exclude='./obj-*' -cf - . | tar -xf - -C "$src"
fi
tar -C "$scratch" --exclude="libsandbox-$upstream/debian" -cJf "$scratch/libsandbox_$upstream.orig.tar.xz" \
    "libsandbox-$upstream"
(cd "$scratch" && dpkg-source -b "libsandbox-$upstream" >"$scratch/source.log" 2>&1) ||
  { cat "$scratch/source.log"; die "dpkg-source -b failed"; }

step "dpkg-buildpackage -us -uc -b (log: $scratch/build.log while it runs)"
if ! (cd "$src" && nice -n 10 dpkg-buildpackage -us -uc -b -j"$(nproc)" >"$scratch/build.log" 2>&1); then
  tail -40 "$scratch/build.log"
  die "dpkg-buildpackage failed"
fi
grep -E '^(dpkg-gensymbols|dpkg-shlibdeps|dh_[a-z]+): warning' "$scratch/build.log" &&
  die "the package build warned (above)"
debs=()
for p in "${packages[@]}"; do debs+=("$scratch/${p}_${version}_$(dpkg --print-architecture).deb"); done
for d in "${debs[@]}"; do echo "    $(stat -c %s "$d") ${d##*/}"; done

step "lintian"
# Every tag at every level, overridden ones listed: the overrides in
# debian/*.lintian-overrides say why each is there. One tag cannot be
# overridden: the -dbgsym package of the launcher inherits Static-Built-Using,
# which bookworm's lintian does not know yet (Debian Policy 4.7.0 added it),
# and debhelper installs no override file into a -dbgsym package.
lintian --display-info --pedantic --display-experimental --show-overrides \
        "$scratch"/libsandbox_"$version".dsc "$scratch"/libsandbox_"$version"_*.changes \
        >"$scratch/lintian.log" 2>&1 || true
unexplained=$(grep -vE '^W: sandbox-exec-launcher-dbgsym: unknown-field Static-Built-Using$' \
              "$scratch/lintian.log" | grep -E '^[EWIPX]: ' || true)
grep -E '^[EWIPXO]: ' "$scratch/lintian.log" | sed 's/^/    /' || true
[ -z "$unexplained" ] || die "lintian tags without an override or a reason (above)"

step "apt-get install ./*.deb"
installed=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${debs[@]}" >"$scratch/apt.log" 2>&1 ||
  { cat "$scratch/apt.log"; die "apt-get install failed"; }

step "the installed packages (debian/tests/installed)"
# As autopkgtest would run it: from the source tree, with the test's own files.
(cd "$src" && bash debian/tests/installed) || die "debian/tests/installed failed"

step "apt-get purge: nothing may be left"
files=$(for d in "${debs[@]}"; do dpkg-deb -c "$d"; done | awk '$1 !~ /^d/ {print $6}' | sed 's/^\.//')
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${packages[@]}" >"$scratch/apt.log" 2>&1 ||
  { cat "$scratch/apt.log"; die "apt-get purge failed"; }
installed=0
left=0
for p in "${packages[@]}"; do
  if dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^.[^n]'; then
    echo "FAIL - $p is still known to dpkg: $(dpkg-query -W -f='${db:Status-Abbrev}' "$p")"; left=1
  fi
done
for f in $files; do
  if [ -e "$f" ] || [ -L "$f" ]; then echo "FAIL - $f is still there after the purge"; left=1; fi
done
if ldconfig -p | grep -q libsandbox; then echo "FAIL - the ld.so cache still lists libsandbox"; left=1; fi
[ "$left" = 0 ] || die "the purge left something behind"
echo "ok   - purged: no package, none of the $(wc -w <<<"$files") files, no ld.so cache entry"
echo "== Debian packages: all checks passed in $((SECONDS - start)) s"
