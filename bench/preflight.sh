#!/usr/bin/env bash
# Pre-flight at scale (issue 26): the protected-path scan and the hard-link
# scan on a 100k-file and a 1M-file project, cold (a full walk that writes
# the index) and warm (the index checked and reused), as ratios to
# `--sandbox` in the same run; "full" is every launch walking the tree, as
# before the index (--no-scan-index).
#   bench/preflight.sh [BUILD_DIR] [ROUNDS] [SIZES...]
#     SIZES: 100k (1,000 packages x 100 files), 1m (10,000 x 100); default both
#   SBX_BENCH_DIR   where the trees are made (default build/bench-data); each
#                   tree is removed when its size is done
# The trees are generated on the fly by bench/gentree.c (no shell per file)
# outside /tmp: every confined launch may write /tmp, so a tree there could
# never reuse its hard-link index (docs/protected-paths.md, "The ledger").
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$(cd "${1:-$src/build/default}" && pwd)
rounds=${2:-7}
shift $(($# > 2 ? 2 : $#))
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100k 1m)
L=$build/sandbox-exec-launcher
work=${SBX_BENCH_DIR:-$src/build/bench-data}/preflight
mkdir -p "$work"
work=$(cd "$work" && pwd)
gcc -O2 -o "$work/gentree" "$here/gentree.c"
home=$work/home
mkdir -p "$home"
export HOME=$home
# Where the launcher keeps its index: the account's home, else $HOME.
acct=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -n "$acct" ] && [ -d "$acct" ] && [ -O "$acct" ]; then IDX=$acct/.libsandbox; else IDX=$home/.libsandbox; fi
tree=
watcher=
cleanup() {
  # Under set -e a failing last command of an && list exits, here with 1:
  # the watcher is gone by now on a normal end.
  if [ -n "$watcher" ]; then kill -TERM "$watcher" 2>/dev/null || true; fi
  if [ -n "$tree" ] && [ -d "$tree" ]; then "$work/gentree" rm "$tree"; fi
}
trap cleanup EXIT

echo "launcher: $L ($(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $rounds rounds)"
for size in "${sizes[@]}"; do
  case $size in
    100k) packages=1000 ;;
    1m) packages=10000 ;;
    *) echo "preflight.sh: unknown size $size (100k or 1m)" >&2; exit 2 ;;
  esac
  tree=$work/tree-$size
  [ -d "$tree" ] && "$work/gentree" rm "$tree"
  t0=$(date +%s.%N)
  "$work/gentree" make "$tree" "$packages" 100
  t1=$(date +%s.%N)
  dirs=$(find "$tree" -type d | wc -l)
  files=$(find "$tree" -type f | wc -l)
  echo
  echo "## $size: $files files in $dirs directories (made in $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b - a}') s)"
  # The launch must succeed first: masks apply, nothing is refused.
  (cd "$tree" && "$L" --sandbox --protect-secrets --scan-hardlinks -- cat src/.env >/dev/null 2>&1) &&
    { echo "preflight.sh: src/.env was readable: the masks did not apply" >&2; exit 1; }
  (cd "$tree" && "$L" --sandbox --protect-secrets --scan-hardlinks -- /bin/true) ||
    { echo "preflight.sh: the launch failed" >&2; exit 1; }
  python3 "$here/preflight.py" "$L" "$tree" "$rounds" "$IDX"
  # The same warm launches with the index watcher running (--index-watch).
  "$L" --index-watch 2>"$work/watch.log" &
  watcher=$!
  for _ in $(seq 50); do [ -S "$IDX/watch.sock" ] && break; sleep 0.1; done
  python3 "$here/preflight.py" "$L" "$tree" "$rounds" "$IDX" watch | tail -n +2
  kill -TERM "$watcher"; wait "$watcher" || true
  watcher=
  sed 's/^/  /' "$work/watch.log"
  for f in "$IDX"/*.idx; do
    grep -qsF -- "$tree" "$f" && echo "index file $(basename "$f"): $(stat -c %s "$f") bytes"
  done
  "$work/gentree" rm "$tree"
  # This tree's index files go with it.
  for f in "$IDX"/*.idx; do grep -qsF -- "$tree" "$f" && rm -f "$f"; done
  tree=
done
