#!/usr/bin/env bash
# Hard-link scan throughput on a synthetic node_modules-like tree, against a
# bare `find` over the same tree in the same run.
#
#   bench/hardlink.sh [BUILD_DIR] [TREE_DIR] [FILES]
#
# BUILD_DIR (default build/pre) holds libsandbox.a. TREE_DIR (default
# /var/tmp/sbx-bench-tree) is created once and reused while its file count
# matches FILES (default 120000). Caches are warm for both tools (the tree was
# just created or walked); the script never drops the page cache, which would
# disturb whoever else uses the machine. Results: docs/bench-hardlink.md.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build/pre}
tree=${2:-/var/tmp/sbx-bench-tree}
want=${3:-120000}
runs=${RUNS:-7}

bin=$(mktemp -d /tmp/sbx-bench.XXXXXX)
trap 'rm -rf "$bin"' EXIT
cc -std=c11 -O2 -o "$bin/scan" "$here/bench/scan_hardlinks.c" -I"$here/include" \
   -DSANDBOX_STATIC "$build/libsandbox.a"

if [ "$(cat "$tree/.files" 2>/dev/null || echo 0)" != "$want" ]; then
  echo "building a tree of $want files in $tree ..." >&2
  rm -rf "$tree"
  # Packages of 40 files in nested lib/ and dist/ folders, a package.json and
  # a README each, some nested node_modules, a few symlinks (bin/), and 2% of
  # the files hard-linked between packages, as pnpm and npm dedupe do.
  python3 - "$tree" "$want" <<'PY'
import os, sys
root, want = sys.argv[1], int(sys.argv[2])
nm = os.path.join(root, "node_modules")
os.makedirs(os.path.join(nm, ".bin"))
made, pkg, linked = 0, 0, []
while made < want:
    base = os.path.join(nm, f"pkg-{pkg:05d}")
    if pkg % 10 == 9:  # a nested dependency
        base = os.path.join(nm, f"pkg-{pkg - 1:05d}", "node_modules", f"dep-{pkg:05d}")
    for sub in ("lib/util", "dist/esm", "dist/cjs"):
        os.makedirs(os.path.join(base, sub), exist_ok=True)
    for name in ("package.json", "README.md"):
        with open(os.path.join(base, name), "w") as f:
            f.write("{}\n")
    made += 2
    for i in range(38):
        if made >= want:
            break
        d = ("lib", "lib/util", "dist/esm", "dist/cjs")[i % 4]
        p = os.path.join(base, d, f"m{i:02d}.js")
        if i == 0 and linked and pkg % 50 == 0:
            os.link(linked[-1], p)  # a second name, inside the tree
        else:
            with open(p, "w") as f:
                f.write("module.exports = 1;\n")
            if i == 1:
                linked.append(p)
        made += 1
    os.symlink(os.path.join("..", os.path.basename(base), "package.json"),
               os.path.join(nm, ".bin", f"p{pkg:05d}"))
    pkg += 1
with open(os.path.join(root, ".files"), "w") as f:
    f.write(f"{want}\n")
PY
fi

# Warm both the same way, then time each $runs times; report the median.
find "$tree" >/dev/null
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
find_times=$(for _ in $(seq "$runs"); do
  s=$(date +%s.%N); find "$tree" -type f >/dev/null; e=$(date +%s.%N)
  echo "$e - $s" | bc -l
done | median)
# find with a link-count test has to stat every file, as the scan does.
findl_times=$(for _ in $(seq "$runs"); do
  s=$(date +%s.%N); find "$tree" -type f -links +1 >/dev/null; e=$(date +%s.%N)
  echo "$e - $s" | bc -l
done | median)
nfiles=$(find "$tree" -type f | wc -l)
ndirs=$(find "$tree" -type d | wc -l)
read -r files dirs best med outside < <("$bin/scan" "$tree" "$runs")

rate() { echo "$1 / $2" | bc -l | xargs printf '%.0f'; }
echo "tree:            $tree ($nfiles files, $ndirs directories by find)"
echo "scan walked:     $files files, $dirs directories, $outside refused"
printf 'find -type f:    %.3f s median of %d  -> %s files/s\n' "$find_times" "$runs" "$(rate "$nfiles" "$find_times")"
printf 'hard-link scan:  %.3f s median (best %.3f) -> %s files/s\n' "$med" "$best" "$(rate "$files" "$med")"
printf 'find -links +1:  %.3f s median of %d  -> %s files/s\n' "$findl_times" "$runs" "$(rate "$nfiles" "$findl_times")"
printf 'scan / find time ratio: %.2f (bare find), %.2f (find -links +1)\n' \
  "$(echo "$med / $find_times" | bc -l)" "$(echo "$med / $findl_times" | bc -l)"
echo "cpu: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -sr)"
