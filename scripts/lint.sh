#!/usr/bin/env bash
# Static analysis of the library (src/) and the launcher (launcher/): clang-tidy
# with .clang-tidy and cppcheck with .cppcheck-suppressions, both driven by the
# compile_commands.json of the default preset. Any finding fails the script.
# Files built only for another platform (the macOS, Windows and stub backends)
# are outside this host's compile database and are not analyzed here.
set -euo pipefail
cd "$(dirname "$0")/.."
for tool in clang-tidy cppcheck python3; do
  command -v "$tool" >/dev/null || { echo "lint: $tool is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
[ -f build/default/compile_commands.json ] || cmake --preset default >/dev/null
# Generated sources (if any) must exist before clang-tidy reads the database.
cmake --build --preset default --target sandbox_objects -j2 >/dev/null
mkdir -p build/lint
python3 - <<'PY'
import json, os
root = os.getcwd()
cc = json.load(open("build/default/compile_commands.json"))
keep = [e for e in cc
        if os.path.relpath(e["file"], root).split(os.sep)[0] in ("src", "launcher")]
json.dump(keep, open("build/lint/compile_commands.json", "w"), indent=1)
open("build/lint/files", "w").write("\n".join(sorted({e["file"] for e in keep})) + "\n")
PY
status=0
echo "lint: clang-tidy on $(wc -l <build/lint/files) files"
if ! xargs -P2 -n4 clang-tidy -p build/lint --quiet <build/lint/files >build/lint/clang-tidy.log 2>&1; then
  grep -E -A4 '(warning|error):' build/lint/clang-tidy.log >&2 || cat build/lint/clang-tidy.log >&2
  echo "lint: clang-tidy found problems (full log: build/lint/clang-tidy.log)" >&2
  status=1
fi
echo "lint: cppcheck"
if ! cppcheck --project=build/lint/compile_commands.json --std=c11 -q -j2 --inline-suppr \
     --enable=warning,style,performance,portability --suppressions-list=.cppcheck-suppressions \
     --error-exitcode=1 --template='{file}:{line}: {severity}: {message} [{id}]' \
     2>build/lint/cppcheck.log; then
  cat build/lint/cppcheck.log >&2
  echo "lint: cppcheck found problems" >&2
  status=1
fi
[ "$status" = 0 ] && echo "lint: clean"
exit $status
