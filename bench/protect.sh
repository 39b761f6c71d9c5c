#!/usr/bin/env bash
# Launch cost of protected paths on a project with 10,000 files, as a ratio to
# the same launch without protection, measured in the same run.
#   bench/protect.sh [BUILD_DIR] [ITERATIONS]
# Two measurements:
#   1. mechanism: fork + prepare (scan, match) + apply (namespace, mounts,
#      caps, Landlock) + exec /bin/true, against fork + exec /bin/true, via the
#      library internals (works before the launcher can confine);
#   2. launcher: sandbox-exec-launcher --sandbox [--protect-secrets] -- true,
#      only when the launcher can confine on this build.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$(cd "${1:-$src/build/sec}" && pwd)
iters=${2:-50}
work=$(mktemp -d /tmp/sbx-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# 10,000 files: 100 directories of 100, a git repository, and a few secrets
# (one .env per ten directories, keys, a .ssh folder) for the masks to cover.
proj=$work/proj
mkdir -p "$proj"
(
  cd "$proj"
  for d in $(seq -w 0 99); do
    mkdir "d$d"
    for f in $(seq -w 0 99); do : >"d$d/f$f.txt"; done
  done
  for d in $(seq -w 0 9 99); do echo s >"d$d/.env"; done
  echo k >d00/server.pem; echo k >d01/id_rsa; mkdir .ssh; echo c >.ssh/config
  git init -q . 
)
files=$(find "$proj" -type f | wc -l)
mkdir -p "$work/home/.ssh"
export HOME=$work/home

# Optimized, like a release build: the driver plus the core sources it needs
# (everything but the facade) and mask.c. Falls back to BUILD_DIR's library.
core=$(ls "$src"/src/*.c | grep -v '/sandbox\.c$')
if ! gcc -O2 -std=gnu11 -I"$src/src" -I"$src/include" "$here/protect_launch.c" $core \
    "$src/src/linux/mask.c" -o "$work/protect_launch" 2>"$work/cc.log"; then
  echo "(compiling the sources failed, using $build/libsandbox.a as built)"
  gcc -O2 -std=gnu11 -I"$src/src" -I"$src/include" "$here/protect_launch.c" \
    "$build/libsandbox.a" -o "$work/protect_launch"
fi

echo "project: $files files ($(uname -r), $(nproc) CPUs, $iters launches each, median/p10/p90 in µs)"
"$work/protect_launch" "$proj" 5 >/dev/null # warm the caches
res=$("$work/protect_launch" "$proj" "$iters")
plain=$(echo "$res" | sed -n 1p)
prot=$(echo "$res" | sed -n 2p)
echo "mechanism  $plain"
echo "mechanism  $prot"
awk -v a="$plain" -v b="$prot" 'BEGIN { split(a, x, " "); split(b, y, " ");
  printf "mechanism  ratio protect/plain (median): %.1fx, +%.1f ms per launch\n", y[2] / x[2], (y[2] - x[2]) / 1000 }'

L=$build/sandbox-exec-launcher
cd "$proj"
if "$L" --sandbox --protect-secrets -- true 2>/dev/null; then
  # Alternating pairs again; medians, in µs.
  : >"$work/a"; : >"$work/b"
  for _ in $(seq "$iters"); do
    s=$(date +%s%N); "$L" --sandbox -- true; e=$(date +%s%N); echo $(((e - s) / 1000)) >>"$work/a"
    s=$(date +%s%N); "$L" --sandbox --protect-secrets -- true; e=$(date +%s%N); echo $(((e - s) / 1000)) >>"$work/b"
  done
  med() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
  a=$(med "$work/a"); b=$(med "$work/b")
  echo "launcher   --sandbox: $a µs, --sandbox --protect-secrets: $b µs (median)"
  awk -v a="$a" -v b="$b" 'BEGIN { printf "launcher   ratio protect/plain (median): %.1fx, +%.1f ms per launch\n", b / a, (b - a) / 1000 }'
else
  echo "launcher   skipped: the launcher cannot confine on this build yet"
fi
