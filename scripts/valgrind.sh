#!/usr/bin/env bash
# valgrind memcheck over the unit tests and a few launcher runs that stay in
# the library (--explain for every target, --self-test, --version, usage
# errors). Any memory error or any definite/indirect leak fails the script.
# Uses the default preset's build (configured and built if needed), except for
# the launcher: the default one is linked statically, and valgrind has no
# suppressions for static glibc's start-up code, so a dynamic launcher is built
# for it in build/valgrind-launcher (same sources, same library).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind: missing (scripts/deps.sh installs it)" >&2; exit 1; }
[ -f build/default/CMakeCache.txt ] || cmake --preset default >/dev/null
cmake --build --preset default -j2 >/dev/null
b=build/default
cmake -S . -B build/valgrind-launcher -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSANDBOX_WERROR=ON \
      -DSANDBOX_TESTS=OFF -DSANDBOX_STATIC_LAUNCHER=OFF >/dev/null
cmake --build build/valgrind-launcher -j2 --target sandbox-exec-launcher >/dev/null
L=build/valgrind-launcher/sandbox-exec-launcher
mkdir -p build/valgrind
vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect
    --show-leak-kinds=definite,indirect --error-exitcode=99 --track-origins=yes)
failed=0 n=0
# run WANT_STATUS NAME CMD...: the command must exit with WANT_STATUS, and
# valgrind must report nothing (it would exit 99).
run() {
  local want=$1 name=$2 got=0
  shift 2
  n=$((n + 1))
  "${vg[@]}" --log-file=build/valgrind/"$name".log "$@" >/dev/null 2>build/valgrind/"$name".err || got=$?
  # "--PID--" lines are valgrind's own notes, e.g. that 3.19 does not know
  # seccomp(2) or the Landlock calls (it answers ENOSYS, which the library
  # handles as an older kernel). Anything else in the log is a finding.
  if [ "$got" = "$want" ] && ! grep -qv '^--[0-9]*--' build/valgrind/"$name".log; then
    echo "ok   - $name"
  else
    echo "FAIL - $name: exit $got (wanted $want)"
    sed 's/^/    | /' build/valgrind/"$name".log | head -40
    failed=$((failed + 1))
  fi
}
# The unit tests read the machine profile (tests/common/t_profile.h), as
# tests/with-profile.sh passes it under ctest.
SBX_HAVE=$(SBX_LAUNCHER=$b/sandbox-exec-launcher SBX_PROBES=$b/probes bash -c \
  '. tests/lib.sh; for k in $SBX_PROFILE_KEYS; do have "$k" && printf "%s " "$k"; done; rm -rf "$_scratch"')
export SBX_HAVE
for t in "$b"/tests/unit_test_*; do
  [ -x "$t" ] && run 0 "$(basename "$t")" "$t"
done
for target in linux macos windows; do
  for json in "" --json; do
    for mode in --sandbox --no-network --confine-fs --read-only; do
      want=0
      # Windows cannot enforce read-only: explain refuses it (exit 126), which
      # is an error path worth checking for leaks too.
      [ "$target$mode" = windows--read-only ] && want=126
      run "$want" "explain-$target${json}${mode}" "$L" --explain $json --target "$target" $mode \
        --project /tmp/p --add-dir /tmp/a --add-dir /var/b -- cmd 'arg with space' 'q"uote'
    done
  done
done
run 0 self-test "$L" --self-test
run 0 self-test-json "$L" --self-test --json
run 0 version "$L" --version
run 0 help "$L" --help
run 2 usage-unknown "$L" --bogus
run 2 usage-missing-value "$L" --project
run 2 usage-relative-dir "$L" --add-dir relative -- true
echo "valgrind: $((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
