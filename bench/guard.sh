#!/usr/bin/env bash
# Cost of the creation guard: every call that creates a name makes a round
# trip through the guard process. Same run, interleaved, medians in ms.
#   bench/guard.sh [BUILD_DIR] [ROUNDS]
# Two workloads, each under --sandbox and under --sandbox --protect-secrets
# (which adds the masks and the guard):
#   1. create 10,000 empty files in the project (one python process);
#   2. git add + commit of 1,000 files in a fresh repository made outside
#      (guarded with --git-writable: the .git is read-only otherwise, and a
#      new repository in the project is refused, docs/protected-paths.md);
#   3. rewrite 10,000 existing files (open "w": the guard finds each and opens
#      it without waiting, O_NONBLOCK taken off after, docs/protected-paths.md).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$(dirname "$here")
build=$(cd "${1:-$src/build/default}" && pwd)
rounds=${2:-5}
L=$build/sandbox-exec-launcher
# SBX_BENCH_DIR=/dev/shm measures on tmpfs, where creating a file is cheap and
# the round trip shows; on a slow disk the creation itself hides it.
work=$(mktemp -d "${SBX_BENCH_DIR:-/tmp}/sbx-bench-guard.XXXXXX")
trap 'rm -rf "$work"' EXIT
proj=$work/proj
mkdir -p "$proj/src"
for i in $(seq 1000); do echo "$i" >"$proj/src/f$i.txt"; done
cd "$proj"
export HOME=$work/home
mkdir -p "$HOME"
"$L" --sandbox --protect-secrets -- true || { echo "the launcher cannot guard here"; exit 77; }

now() { date +%s%N; }
# run_ms CMD...: wall time of CMD in ms
run_ms() { local t0 t1; t0=$(now); "$@" >/dev/null 2>&1 || echo "failed: $*" >&2; t1=$(now); echo $(((t1 - t0) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

create='import os
os.mkdir("c")
for i in range(10000):
    open("c/f%d.txt" % i, "w").close()'
rewrite='import os
for i in range(10000):
    open("c/f%d.txt" % i, "w").close()'
commit='cd g && git add -A && git commit -qm bench'
# fresh: a new repository holding a copy of src, made outside the sandbox.
fresh() { rm -rf g && git init -q g && git -C g config user.email b@b && git -C g config user.name b &&
  cp -r src g/; }

: >"$work/c0"; : >"$work/c1"; : >"$work/g0"; : >"$work/g1"; : >"$work/w0"; : >"$work/w1"
for r in $(seq "$rounds"); do
  rm -rf c g; run_ms "$L" --sandbox --project "$proj" -- python3 -c "$create" >>"$work/c0"
  rm -rf c g; run_ms "$L" --sandbox --protect-secrets --project "$proj" -- python3 -c "$create" >>"$work/c1"
  run_ms "$L" --sandbox --project "$proj" -- python3 -c "$rewrite" >>"$work/w0"
  run_ms "$L" --sandbox --protect-secrets --project "$proj" -- python3 -c "$rewrite" >>"$work/w1"
  rm -rf c; fresh; run_ms "$L" --sandbox --project "$proj" -- sh -c "$commit" >>"$work/g0"
  rm -rf c; fresh; run_ms "$L" --sandbox --protect-secrets --git-writable --project "$proj" -- sh -c "$commit" >>"$work/g1"
done
rm -rf c g
c0=$(median <"$work/c0"); c1=$(median <"$work/c1"); g0=$(median <"$work/g0"); g1=$(median <"$work/g1")
w0=$(median <"$work/w0"); w1=$(median <"$work/w1")
echo "($(uname -r), $(nproc) CPUs, $rounds rounds, medians)"
awk -v a="$c0" -v b="$c1" 'BEGIN { printf "create 10,000 files:   %d ms plain, %d ms guarded: %.2fx, %.1f us per file\n", a, b, b / a, (b - a) * 1000 / 10000 }'
awk -v a="$w0" -v b="$w1" 'BEGIN { printf "rewrite 10,000 files:  %d ms plain, %d ms guarded: %.2fx, %.1f us per file\n", a, b, b / a, (b - a) * 1000 / 10000 }'
awk -v a="$g0" -v b="$g1" 'BEGIN { printf "git commit 1,000 files: %d ms plain, %d ms guarded: %.2fx\n", a, b, b / a }'
