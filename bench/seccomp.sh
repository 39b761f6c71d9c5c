#!/usr/bin/env bash
# Cost of the seccomp network filter (--no-network), measured with hyperfine.
#   bench/seccomp.sh [BUILD_DIR] [REPEATS]
# 1. A syscall-heavy workload under the filter vs bare, as a ratio from one
#    hyperfine run (commands interleaved by repeating the pair REPEATS times).
# 2. The cost of applying the filter at launch: launcher --no-network -- true
#    vs bare true (the launcher's own exec is included: that is what hosts pay).
# Results go to stdout and bench/results/ (JSON from hyperfine).
set -eu
build=${1:-build/sc}
repeats=${2:-3}
L=$build/sandbox-exec-launcher
command -v hyperfine >/dev/null || { echo "hyperfine is not installed"; exit 1; }
[ -x "$L" ] || { echo "no launcher at $L (build first)"; exit 1; }
"$L" --no-network -- true || { echo "the filter cannot be applied here"; exit 1; }
out=$(dirname "$0")/results
mkdir -p "$out"

# 2 x 500k single-byte read+write: about a million syscalls, all of which the
# kernel's action cache answers (read and write never depend on arguments).
dd_cmd="dd if=/dev/zero of=/dev/null bs=1 count=500000 status=none"
# A realistic mix: openat + fstat + read + getdents64 over a few thousand files.
find_cmd="tar -cf /dev/null /usr/include"
loop=$out/syscall_loop
cc -O2 -o "$loop" "$(dirname "$0")/syscall_loop.c"
# The same exec wrapper on both sides: the ratio is the filter alone.
W=$out/sc_wrap
src=$(cd "$(dirname "$0")/.." && pwd)
cc -O2 -o "$W" "$(dirname "$0")/sc_wrap.c" -I"$src/src" -I"$src/include" "$build/libsandbox.a"

ratio() { # JSON -> "filtered/bare - 1" of means and medians, in percent
  python3 - "$1" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
bare, filt = r[0], r[1]
print("  bare %.4fs (median %.4fs, stddev %.4f), filtered %.4fs (median %.4fs, stddev %.4f)"
      % (bare["mean"], bare["median"], bare["stddev"], filt["mean"], filt["median"], filt["stddev"]))
print("  overhead: mean %+.2f%%, median %+.2f%%"
      % ((filt["mean"] / bare["mean"] - 1) * 100, (filt["median"] / bare["median"] - 1) * 100))
PY
}

for i in $(seq 1 "$repeats"); do
  echo "== round $i: syscall-heavy dd (1M syscalls)"
  hyperfine -N --warmup 2 --runs 21 --export-json "$out/dd-$i.json" \
    "$W none -- $dd_cmd" "$W net -- $dd_cmd" >/dev/null
  ratio "$out/dd-$i.json"
  echo "== round $i: ns per getppid(): bare / one-instruction filter / our --no-network filter"
  b=0; t=0; f=0
  for k in 1 2 3 4 5; do
    b=$(python3 -c "print($b + $("$loop"))"); t=$(python3 -c "print($t + $("$loop" trivial))")
    f=$(python3 -c "print($f + $("$L" --no-network -- "$loop"))")
  done
  python3 -c "print('  %.1f / %.1f / %.1f ns (mean of 5 interleaved runs)' % ($b/5, $t/5, $f/5))"
  echo "== round $i: tar over /usr/include"
  hyperfine -N --warmup 2 --runs 21 --export-json "$out/find-$i.json" \
    "$W none -- $find_cmd" "$W net -- $find_cmd" >/dev/null
  ratio "$out/find-$i.json"
  echo "== round $i: tar over /usr/include, read-only program (the largest) vs none"
  hyperfine -N --warmup 2 --runs 21 --export-json "$out/find-ro-$i.json" \
    "$W none -- $find_cmd" "$W read-only -- $find_cmd" >/dev/null
  ratio "$out/find-ro-$i.json"
  echo "== round $i: launch cost (true)"
  hyperfine -N --warmup 20 --runs 300 --export-json "$out/launch-$i.json" \
    "/bin/true" "$L --no-network -- /bin/true" >/dev/null
  python3 - "$out/launch-$i.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
print("  /bin/true %.3f ms, launcher --no-network -- /bin/true %.3f ms (median %.3f vs %.3f): +%.3f ms"
      % (r[0]["mean"] * 1e3, r[1]["mean"] * 1e3, r[0]["median"] * 1e3, r[1]["median"] * 1e3,
         (r[1]["median"] - r[0]["median"]) * 1e3))
PY
done
