#!/usr/bin/env bash
# What a class's read rules cost inside the sandbox (issue 28): the same work
# bare, under --sandbox (the write-only Landlock domain) and under
# --class project (reads handled too, so every open for reading makes
# Landlock walk the path), in one interleaved run.
#
#   bench/reads.sh [BUILD_DIR] [ROUNDS]      (default build/default, 3 rounds)
#   SBX_BENCH_RUNS=N  iterations per round (default 11)
#
# Workloads, all inside the project (where a class reads): `find` over a tree
# of 77,000 files (four walks), 50,000 rounds of stat+open+close over it
# (bench/statloop.c), and `git status --porcelain` in a repository of 30,000
# files. Variants (the launcher each time, --no-scan-hardlinks so the
# per-launch scan of the tree does not hide the per-open cost):
#   bare        the command alone
#   sandbox     --sandbox: no network, writes confined, reads open
#   class       --class project: the same plus read rules (the OS trees, the
#               toolchains of the home, the project)
# Reported: per round, the median wall and CPU (user+sys of the children)
# of each variant divided by bare's, and class's divided by sandbox's (the
# goal: within 2%).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../build/default}" && pwd)
rounds=${2:-3}
runs=${SBX_BENCH_RUNS:-11}
WORK=${SBX_BENCH_DIR:-/var/tmp/sbx-bench-reads}
dirs=280 per=275 loops=50000 gitfiles=30000
L=$build/sandbox-exec-launcher
[ -x "$L" ] || { echo "build the launcher first: $L"; exit 1; }

mkdir -p "$WORK/bin" "$WORK/proj" "$WORK/results"
cc -O2 -o "$WORK/bin/statloop" "$here/statloop.c"
if [ ! -f "$WORK/proj/tree/.complete" ]; then
  rm -rf "$WORK/proj/tree"
  python3 - "$WORK/proj/tree" "$dirs" "$per" <<'PY'
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
if [ ! -f "$WORK/proj/repo/.complete" ]; then
  rm -rf "$WORK/proj/repo"
  mkdir -p "$WORK/proj/repo"
  python3 - "$WORK/proj/repo" "$gitfiles" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(root, "m%02d" % (i % 60), "s%02d" % (i % 17))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%05d.txt" % i), "w") as f:
        f.write("line %d\n" % i)
PY
  (cd "$WORK/proj/repo" && git init -q . && git add -A && git -c user.name=b -c user.email=b@b \
     commit -qm one && touch .complete)
fi
cp "$WORK/bin/statloop" "$WORK/proj/statloop"

bench_one() { # NAME DIR CMD...
  local name=$1 dir=$2
  shift 2
  (cd "$dir" && python3 - "$name" "$round" "$runs" "$WORK/results/$name.$round.json" "$L" \
      "$WORK/proj" "$@" <<'PY'
import json, os, random, resource, statistics, subprocess, sys, time
name, rnd, runs, out, launcher, proj = sys.argv[1:7]
cmd = sys.argv[7:]
common = ["--project", proj, "--workdir", os.getcwd(), "--no-scan-hardlinks"]
variants = {
    "bare": cmd,
    "sandbox": [launcher, "--sandbox"] + common + ["--"] + cmd,
    "class": [launcher, "--class", "project"] + common + ["--"] + cmd,
}
env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
wall = {v: [] for v in variants}
cpu = {v: [] for v in variants}
def once(argv):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=env)
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
bw, bc = med["bare"]
sw, sc = med["sandbox"]
cw, cc = med["class"]
print("%-10s round %s  bare %6.1f ms wall | sandbox %.3fx wall %.3fx cpu | class %.3fx wall "
      "%.3fx cpu | class/sandbox %.3fx wall %.3fx cpu"
      % (name, rnd, bw * 1e3, sw / bw, sc / bc, cw / bw, cc / bc, cw / sw, cc / sc), flush=True)
PY
  )
}

echo "kernel $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
t=$WORK/proj/tree
for round in $(seq 1 "$rounds"); do
  bench_one find "$WORK/proj" find "$t" "$t" "$t" "$t" -type f
  bench_one statloop "$WORK/proj" "$WORK/proj/statloop" "$t" "$loops" "$per"
  bench_one git-status "$WORK/proj/repo" git status --porcelain
done
