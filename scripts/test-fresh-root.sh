#!/usr/bin/env bash
# The suite on a freshly installed Debian 12: debootstrap a minimal bookworm
# root from Debian's packages (nothing installed by hand; scripts/deps.sh
# inside installs what the build and the tests need), copy the source tree
# in, and run the tests twice in that root:
#   pivot_root  a private mount namespace whose root is the new tree: user
#               namespaces stay available, as on an installed machine;
#   chroot      the same tree entered with chroot(2): the kernel refuses
#               user namespaces there, so the protected-path tests must skip
#               (naming the capability) and the fail-closed refusals run.
# Each run ends with the skip report (scripts/skip-report.sh), which names
# every skip and fails on any the machine profile does not justify.
# Usage (root): scripts/test-fresh-root.sh [--full] [--keep] [ROOT-DIR]
#   default  the default preset's build and ctest: what CI runs (minutes)
#   --full   scripts/test.sh itself (both presets, lint, valgrind, fuzz, wine)
#   ROOT-DIR where the root lives; reused when already bootstrapped
#            (default: build-fresh-root/bookworm in the source tree)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
full=0 keep=0 root=
for a in "$@"; do
  case $a in
    --full) full=1 ;;
    --keep) keep=1 ;;
    -*) echo "usage: $0 [--full] [--keep] [ROOT-DIR]" >&2; exit 3 ;;
    *) root=$a ;;
  esac
done
root=${root:-$src/build-fresh-root/bookworm}
[ "$(id -u)" = 0 ] || { echo "test-fresh-root: needs root (debootstrap, mounts, chroot)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "test-fresh-root: debootstrap is not installed" >&2; exit 1; }
mirror=${SANDBOX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
start=$SECONDS

if [ ! -e "$root/.sbx-bootstrapped" ]; then
  echo "== debootstrap bookworm (minbase) into $root from $mirror"
  rm -rf "$root"
  mkdir -p "$root"
  debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 ||
    { tail -20 "$root.debootstrap.log"; exit 1; }
  touch "$root/.sbx-bootstrapped"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"   # apt inside needs a resolver

echo "== copy the source tree into $root/src"
rm -rf "$root/src"
mkdir -p "$root/src"
git ls-files -z --cached --others --exclude-standard | tar -c --null -T - | tar -x -C "$root/src"

# What runs inside, as root of the fresh system, with a clean environment.
if [ "$full" = 1 ]; then
  inner='bash scripts/test.sh'
else
  inner='bash scripts/deps.sh && rm -rf build/default && cmake --preset default >/dev/null &&
    { cmake --build --preset default -j"$(nproc)" >/tmp/build.log 2>&1 || { tail -30 /tmp/build.log; false; }; } &&
    ctest --preset default -j2'
fi
inner="cd /src && { $inner; } ; s=\$?; bash scripts/skip-report.sh build/default || s=1; exit \$s"
envs=(env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
      TERM=dumb LANG=C.UTF-8 SANDBOX_SKIP_FRESH_ROOT=1)

# The mounts both entries need, made inside a private mount namespace so
# nothing is left on the host: /proc, the host's /dev, a fresh /tmp and /dev/shm.
mounts='mount -t proc proc "$R/proc" && mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev" &&
  mount -t tmpfs -o mode=1777 tmpfs "$R/tmp" && mount -t sysfs sysfs "$R/sys"'

status=0
results=()
run_entry() {
  local how=$1 got=0 t=$SECONDS
  echo "== $how: the suite in the fresh root"
  case $how in
    pivot_root)
      R=$root unshare -m --propagation private bash -c 'mount --bind "$R" "$R" && '"$mounts"' &&
        cd "$R" && mkdir -p .old-root && pivot_root . .old-root &&
        umount -l /.old-root && cd / && exec "$@"' - "${envs[@]}" bash -c "$inner" || got=$?
      ;;
    chroot)
      # The root bound onto itself, as sbuild-style chroots are: a root
      # command's private namespace must make "/" a slave mount, which fails
      # (and the launcher then refuses, 126) where "/" is no mount point.
      R=$root unshare -m --propagation private bash -c 'mount --bind "$R" "$R" && '"$mounts"' && exec chroot "$R" "$@"' - \
        "${envs[@]}" bash -c "$inner" || got=$?
      ;;
  esac
  results+=("$how: $([ "$got" = 0 ] && echo passed || echo "FAILED (exit $got)") in $((SECONDS - t)) s")
  [ "$got" = 0 ] || status=1
}
run_entry pivot_root
run_entry chroot
[ "$keep" = 1 ] || rm -rf "$root/src"

echo "== fresh Debian 12 root ($([ "$full" = 1 ] && echo "scripts/test.sh" || echo "default preset: build + ctest + skip report")):"
for r in "${results[@]}"; do echo "   $r"; done
echo "   total $((SECONDS - start)) s"
exit "$status"
