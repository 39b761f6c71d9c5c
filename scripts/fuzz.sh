#!/usr/bin/env bash
# Build the libFuzzer targets (preset `fuzz`: clang, ASan+UBSan) and run each
# for a short time from its seed corpus in fuzz/corpus/<target>/.
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]   (default: 12, all)
# New inputs go to a scratch corpus under build/fuzz/corpus (the checked-in
# seeds are never modified); a crash leaves its input in build/fuzz/artifacts
# and fails the script. docs/fuzzing.md explains longer campaigns.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-12}
shift || true
command -v clang >/dev/null || { echo "fuzz: clang is missing (scripts/deps.sh installs it)" >&2; exit 1; }
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j2 >/dev/null
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi
mkdir -p build/fuzz/artifacts
failed=0
for t in "${targets[@]}"; do
  work=$PWD/build/fuzz/corpus/$t
  mkdir -p "$work"
  log=build/fuzz/$t.log
  extra=()
  # The launcher's parser prints usage and help: silence the target's own
  # stdout/stderr (libFuzzer keeps a copy of stderr for its crash report).
  [ "$t" = fuzz_launcher_args ] && extra=(-close_fd_mask=3)
  if build/fuzz/fuzz/"$t" -max_total_time="$secs" -max_len=1024 -timeout=10 -rss_limit_mb=2048 "${extra[@]}" \
       -artifact_prefix="$PWD"/build/fuzz/artifacts/"$t"- -print_final_stats=1 \
       "$work" "$PWD"/fuzz/corpus/"$t" >"$log" 2>&1; then
    echo "fuzz: $t ok ($(grep -o 'Done [0-9]* runs' "$log" | head -1), ${secs} s)"
  else
    echo "fuzz: $t FAILED; log: $log" >&2
    grep -A15 -E 'invariant broken|ERROR: (AddressSanitizer|UndefinedBehavior|libFuzzer)|runtime error' "$log" | head -40 >&2 || tail -20 "$log" >&2
    failed=1
  fi
done
exit $failed
