#!/usr/bin/env bash
# CI smoke benchmark: fails only on a gross regression, never on noise.
#
#   bench/smoke.sh [LAUNCHER]      (default build/default/sandbox-exec-launcher)
#
# Fails when, in each of 3 attempts, the median launch ratio
# (launcher --sandbox -- /bin/true ÷ bare /bin/true, interleaved batches)
# is above 3×, or the in-sandbox ratio (find and a stat+open+close loop over
# a 20,000-file tree, --sandbox ÷ bare, interleaved) is above 1.5×. The goals
# are 1.85× and 1.03× (docs/bench.md): the limits are generous on purpose, and
# one good attempt passes. Skips (exit 0) when the launcher cannot confine on
# this machine: the enforcement tests report that. About 10-30 s.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
L=$(realpath "${1:-$src/build/default/sandbox-exec-launcher}")
launch_limit=3.0
work_limit=1.5
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sbx-smoke.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/proj"
cd "$tmp/proj"
if ! "$L" --sandbox -- /bin/true 2>/dev/null; then
  echo "smoke: SKIP: $L cannot apply --sandbox here"
  exit 0
fi
cc -O2 -o "$tmp/launchtime" "$src/bench/launchtime.c"
cc -O2 -o "$tmp/statloop" "$src/bench/statloop.c"
python3 - "$tmp/tree" 80 250 <<'PY'
import os, sys
root, dirs, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for d in range(dirs):
    p = os.path.join(root, "d%03d" % d)
    os.makedirs(p)
    for f in range(per):
        open(os.path.join(p, "f%03d" % f), "w").close()
PY

over() { awk -v v="$1" -v l="$2" 'BEGIN{exit !(v > l)}'; }
failed=0

ok=0
for attempt in 1 2 3; do
  "$tmp/launchtime" -n 15 -b 20 -o "$tmp/launch.tsv" "bare=/bin/true" "launcher=$L --sandbox -- /bin/true"
  r=$(awk -F'\t' '$1=="launcher"{print $2}' "$tmp/launch.tsv")
  echo "smoke: launch ratio ${r}× (limit ${launch_limit}×, attempt $attempt)"
  if ! over "$r" "$launch_limit"; then ok=1; break; fi
done
[ "$ok" = 1 ] || { echo "smoke: FAIL: launch ratio above ${launch_limit}× in 3 attempts"; failed=1; }

for w in "find|find $tmp/tree -type f" "statloop|$tmp/statloop $tmp/tree 20000 250"; do
  IFS='|' read -r name cmd <<<"$w"
  ok=0
  for attempt in 1 2 3; do
    python3 "$src/bench/benchlib.py" interleave "$tmp/$name.json" 9 "bare=$cmd" \
      "sandbox=$L --sandbox -- $cmd"
    r=$(python3 "$src/bench/benchlib.py" interleave-ratios "$tmp/$name.json" |
        awk -F'\t' '$1=="sandbox"{print $2}')
    echo "smoke: in-sandbox $name ratio ${r}× (limit ${work_limit}×, attempt $attempt)"
    if ! over "$r" "$work_limit"; then ok=1; break; fi
  done
  [ "$ok" = 1 ] || { echo "smoke: FAIL: in-sandbox $name above ${work_limit}× in 3 attempts"; failed=1; }
done
[ "$failed" = 0 ] && echo "smoke: ok"
exit "$failed"
