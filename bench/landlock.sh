#!/usr/bin/env bash
# What Landlock costs on open-heavy work, bare vs confined, measured in the
# same interleaved run so machine load hits every variant alike.
#
#   bench/landlock.sh [BUILD_DIR] [ROUNDS]     (default build/ll, 3 rounds)
#   SBX_BENCH_RUNS=N  iterations per round (default 21)
# For a hyperfine view of one workload (absolute times; sequential, so more
# sensitive to load changes):
#   hyperfine -N -n bare "$WORK/bin/landlock_run none $WORK/proj -- find $WORK/tree" \
#     -n confined "$WORK/bin/landlock_run confined $WORK/proj -- find $WORK/tree"
#
# Workloads: `find` over a tree of 77,000 files, and 50,000 rounds of
# stat+open+close (bench/statloop.c). Variants:
#   bare (none)              the command alone (through the same runner)
#   confined                 the library's --confine-fs ruleset (the design)
#   confined+truncate        plus TRUNCATE handled (the design leaves it out)
#   confined+truncate+ioctl  plus IOCTL_DEV as well
#   launcher                 sandbox-exec-launcher --confine-fs, once it can
#                            apply the filesystem seccomp group (else skipped)
#   launcher-ro              sandbox-exec-launcher --read-only (the same gate)
#   launcher-ro-before       SBX_BENCH_BEFORE=PATH: another launcher binary
#                            (say, an older build) under --read-only, to compare
#                            two versions in the same interleaved run
# The tree sits outside every writable root (the path walk's worst case).
# Results: ratios per round to stdout; raw JSON in $WORK/results.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/ll}
rounds=${2:-3}
runs=${SBX_BENCH_RUNS:-21}
WORK=${SBX_BENCH_DIR:-/var/tmp/sbx-bench-ll}
dirs=280 per=275 loops=50000
[ -f "$build/libsandbox.a" ] || { echo "build the library first: $build/libsandbox.a"; exit 1; }

mkdir -p "$WORK/bin" "$WORK/proj" "$WORK/results"
cc -O2 -I"$here/../include" -I"$here/../src" -o "$WORK/bin/landlock_run" "$here/landlock_run.c" "$build/libsandbox.a"
cc -O2 -o "$WORK/bin/statloop" "$here/statloop.c"
if [ ! -f "$WORK/tree/.complete" ]; then
  rm -rf "$WORK/tree"
  python3 - "$WORK/tree" "$dirs" "$per" <<'PY'
import os, sys
root, dirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(dirs):
    p = os.path.join(root, "d%03d" % d)
    os.makedirs(p)
    for f in range(per):
        open(os.path.join(p, "f%03d" % f), "w").close()
open(os.path.join(root, ".complete"), "w").close()
PY
fi
run=$WORK/bin/landlock_run
L=$build/sandbox-exec-launcher
launcher_ok=0
"$L" --confine-fs --project "$WORK/proj" -- true 2>/dev/null && launcher_ok=1

# Ratios come from interleaved runs: each iteration runs every variant once,
# in a shuffled order, so load from other work spreads over all of them; the
# medians of wall time and of CPU time (user+sys of the child) are compared.
# CPU time is the steadier number on a shared machine.
bench_one() { # NAME CMD...
  local name=$1
  shift
  python3 - "$name" "$round" "$runs" "$WORK/results/$name.$round.json" "$run" "$WORK/proj" \
      "$launcher_ok" "$L" "${SBX_BENCH_BEFORE:-}" "$@" <<'PY'
import json, os, random, resource, statistics, subprocess, sys, time
name, rnd, runs, out, run, proj, launcher_ok, launcher, before = sys.argv[1:10]
cmd = sys.argv[10:]
variants = {v: [run, v, proj, "--"] + cmd for v in
            ("none", "confined", "confined+truncate", "confined+truncate+ioctl")}
if launcher_ok == "1":
    variants["launcher"] = [launcher, "--confine-fs", "--project", proj, "--"] + cmd
    variants["launcher-ro"] = [launcher, "--read-only", "--project", proj, "--"] + cmd
if launcher_ok == "1" and before:
    variants["launcher-ro-before"] = [before, "--read-only", "--project", proj, "--"] + cmd
wall = {v: [] for v in variants}
cpu = {v: [] for v in variants}
def once(argv):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return t1 - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
for v in variants:  # warm-up
    once(variants[v])
for _ in range(int(runs)):
    order = list(variants)
    random.shuffle(order)
    for v in order:
        w, c = once(variants[v])
        wall[v].append(w)
        cpu[v].append(c)
med = {v: (statistics.median(wall[v]), statistics.median(cpu[v])) for v in variants}
json.dump({"wall": wall, "cpu": cpu}, open(out, "w"))
bw, bc = med["none"]
line = "%-8s round %s  bare %.1f ms wall, %.1f ms cpu |" % (name, rnd, bw * 1e3, bc * 1e3)
for v in variants:
    if v != "none":
        line += "  %s %.3fx wall %.3fx cpu" % (v, med[v][0] / bw, med[v][1] / bc)
print(line, flush=True)
PY
}

echo "kernel $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$launcher_ok" = 1 ] || echo "launcher variant skipped: --confine-fs cannot run yet (needs the seccomp filter)"
for round in $(seq 1 "$rounds"); do
  bench_one find find "$WORK/tree" -type f
  bench_one statloop "$WORK/bin/statloop" "$WORK/tree" "$loops" "$per"
done
