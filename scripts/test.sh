#!/usr/bin/env bash
# The whole test suite, from a fresh Debian 12 machine: install what is
# missing, build with warnings as errors, run every test (unit, real-kernel
# enforcement as root and as nobody, escape classes, install), then again
# under ASan+UBSan; static analysis, valgrind memcheck and a short fuzz run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
start=$SECONDS

echo "== build and test (default preset: RelWithDebInfo, -Werror)"
cmake --preset default >/dev/null
cmake --build --preset default -j"$(nproc)"
ctest --preset default -j2

echo "== benchmark smoke: fails only on a gross regression (docs/bench.md has the real numbers)"
bash bench/smoke.sh build/default/sandbox-exec-launcher

echo "== build and test under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake --preset asan >/dev/null
cmake --build --preset asan -j"$(nproc)"
ctest --preset asan -j2 -LE install

echo "== static analysis: clang-tidy and cppcheck on src/ and launcher/"
bash scripts/lint.sh

echo "== valgrind memcheck: unit tests and library-only launcher runs, no leaks"
bash scripts/valgrind.sh

echo "== short fuzz run (libFuzzer, ${SANDBOX_FUZZ_SECONDS:-12} s per target; docs/fuzzing.md)"
bash scripts/fuzz.sh "${SANDBOX_FUZZ_SECONDS:-12}"

if [ -x scripts/test-windows.sh ] && [ "${SANDBOX_SKIP_WINDOWS:-0}" != 1 ]; then
  echo "== Windows backend: cross-compiled with mingw-w64, tested under wine"
  bash scripts/test-windows.sh
fi
echo "== all tests passed in $((SECONDS - start)) s"
