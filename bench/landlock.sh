#!/usr/bin/env bash
# What Landlock costs on open-heavy work, bare vs confined, in the same
# hyperfine run so machine load hits both alike.
#
#   bench/landlock.sh [BUILD_DIR] [ROUNDS]     (default build/ll, 3 rounds)
#
# Workloads: `find` over a tree of 77,000 files, and 50,000 rounds of
# stat+open+close (bench/statloop.c). Variants:
#   bare                     the command alone (through the same runner)
#   confined                 the library's --confine-fs ruleset (the design)
#   confined+truncate        plus TRUNCATE handled (the design leaves it out)
#   confined+truncate+ioctl  plus IOCTL_DEV as well
#   launcher                 sandbox-exec-launcher --confine-fs, once it can
#                            apply the filesystem seccomp group (else skipped)
# The tree sits outside every writable root (the path walk's worst case).
# Results: ratios per round to stdout; raw JSON in $WORK/results.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/ll}
rounds=${2:-3}
WORK=${SBX_BENCH_DIR:-/var/tmp/sbx-bench-ll}
dirs=280 per=275 loops=50000
command -v hyperfine >/dev/null || { echo "hyperfine is required (apt-get install hyperfine)"; exit 1; }
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

bench_one() { # NAME CMD...: hyperfine every variant of CMD, print ratios
  local name=$1 json
  shift
  local cmd="$*"
  json=$WORK/results/$name.$round.json
  local extra=()
  [ "$launcher_ok" = 1 ] && extra=(-n launcher "$L --confine-fs --project $WORK/proj -- $cmd")
  hyperfine -N --warmup 3 --runs 15 --export-json "$json" \
    -n bare "$run none $WORK/proj -- $cmd" \
    -n confined "$run confined $WORK/proj -- $cmd" \
    -n confined+truncate "$run confined+truncate $WORK/proj -- $cmd" \
    -n confined+truncate+ioctl "$run confined+truncate+ioctl $WORK/proj -- $cmd" \
    "${extra[@]}" >/dev/null
  python3 - "$json" "$name" "$round" <<'PY'
import json, sys
res = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
bare = res["bare"]["mean"]
print("%-8s round %s  bare %.1f ms" % (sys.argv[2], sys.argv[3], bare * 1000), end="")
for k, r in res.items():
    if k != "bare":
        print("  %s %.3fx" % (k, r["mean"] / bare), end="")
print()
PY
}

echo "kernel $(uname -r), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
[ "$launcher_ok" = 1 ] || echo "launcher variant skipped: --confine-fs cannot run yet (needs the seccomp filter)"
for round in $(seq 1 "$rounds"); do
  bench_one find find "$WORK/tree" -type f
  bench_one statloop "$WORK/bin/statloop" "$WORK/tree" "$loops" "$per"
done
