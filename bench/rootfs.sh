#!/usr/bin/env bash
# Launch cost of root's private mount namespace (src/linux/rootfs.c): read-only
# /proc/sys and /sys and a narrowed /dev, made for every command that runs as
# root in a confining mode.
#   bench/rootfs.sh [BUILD_DIR] [ROUNDS]
# Same run, same machine: hyperfine (-N, no shell) over bare /bin/true and the
# launcher in each mode, as root (with the namespace) and as nobody (without),
# ROUNDS rounds; each command's median is divided by bare's median of the same
# round, and the median ratio over rounds is printed with its min-max. Then
# bench/rootfs_apply.c isolates the namespace itself: fork+apply of the same
# plan with and without it, interleaved pair by pair. Needs root and hyperfine.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$(cd "${1:-$src/build/default}" && pwd)
rounds=${2:-5}
L=$build/sandbox-exec-launcher
[ "$(id -u)" = 0 ] || { echo "rootfs.sh: run as root (the namespace is made for root only)"; exit 77; }
command -v hyperfine >/dev/null || { echo "rootfs.sh: hyperfine is needed (apt-get install hyperfine)"; exit 1; }
work=$(mktemp -d /tmp/sbx-bench-rootfs.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cp "$L" "$work/launcher"
chmod 755 "$work/launcher"
cd "$work"
N="setpriv --reuid=nobody --regid=nogroup --clear-groups"
cmds=(-n bare "/bin/true" -n "nobody setpriv" "$N /bin/true")
for m in --no-network --sandbox --read-only; do
  cmds+=(-n "root $m" "$work/launcher $m -- /bin/true")
  cmds+=(-n "nobody $m" "$N $work/launcher $m -- /bin/true")
done
for r in $(seq "$rounds"); do
  hyperfine -N --style none --warmup 20 --runs 200 --export-json "$work/r$r.json" "${cmds[@]}" \
    >/dev/null 2>"$work/hyperfine.log"
done
python3 "$here/benchlib.py" hyperfine-ratios "$work"/r*.json |
  awk -F'\t' 'BEGIN { print "| command | median ratio to bare | min-max over rounds | bare, ms |"; print "|---|---:|---:|---:|" }
              { printf "| %s | %s | %s-%s | %s |\n", $1, $2, $3, $4, $5 }'
echo
echo "$rounds rounds of 200 runs per command (hyperfine -N). As nobody the setpriv exec is part"
echo "of every launch: compare nobody's launcher rows with 'nobody setpriv'."
echo
lib=$build/libsandbox.a
[ -f "$lib" ] || lib=$src/build/default/libsandbox.a
cc -O2 -I"$src/include" -I"$src/src" -o "$work/rootfs_apply" "$here/rootfs_apply.c" "$lib"
(cd "$src" && "$work/rootfs_apply" -n 400)
# One step of it alone, the nodev over every mount (F1/F2 of issue 17's
# review), against bare fork+exec in the same run: it grows with the mounts.
cc -O2 -o "$work/nodev_step" "$here/nodev_step.c"
"$work/nodev_step" -n 500
