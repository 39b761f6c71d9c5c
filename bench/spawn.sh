#!/usr/bin/env bash
# Measure sandbox_spawn against fork+execve and posix_spawn of /bin/true and
# write the result to docs/bench-spawn.md.
#   bench/spawn.sh [BUILD_DIR]      (default build/host; built if needed)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build/host}
[ -x "$build/bench_spawn" ] || { cmake -S "$src" -B "$build" >/dev/null && cmake --build "$build" -j2 --target bench_spawn >/dev/null; }
out=$src/docs/bench-spawn.md
{
  echo "# sandbox_spawn benchmark"
  echo
  echo "Produced by \`bench/spawn.sh\` on $(date -u +%Y-%m-%d), $(uname -srm), $(nproc) CPUs,"
  echo "libsandbox $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown). Each figure is the"
  echo "median of interleaved batch means of spawn + wait of \`/bin/true\`; the goal is"
  echo "sandbox_spawn ≤ 1.15× fork+execve."
  echo
  echo "## A small host (no heap to speak of)"
  echo
  "$build/bench_spawn" -n 30 -b 50
  echo
  echo "## A host with a 512 MiB heap"
  echo
  echo "fork copies the page tables of everything the host has mapped; the vfork-style"
  echo "child of sandbox_spawn (and posix_spawn) borrows them."
  echo
  "$build/bench_spawn" -n 15 -b 30 -m 512
} >"$out"
cat "$out"
