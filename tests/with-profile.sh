#!/usr/bin/env bash
# Run a C test (cmocka) with the machine profile: the keys this machine has
# go to the test in SBX_HAVE (tests/common/t_profile.h), and every skip the
# test reports must carry the "[profile: no KEY]" marker that its helpers
# print only for a capability the profile lacks. A cmocka skip or an exit 77
# without it fails the run: a bare skip() can hide a regression.
# Usage: with-profile.sh TEST-BINARY [ARG...]
. "$SBX_TESTLIB"
keys=
for k in $SBX_PROFILE_KEYS; do have "$k" && keys+="$k "; done
export SBX_HAVE="$keys"
log=$_scratch/log
got=0
"$@" >"$log" 2>&1 || got=$?
cat "$log"
skipped=$(grep '^\[  SKIPPED \]' "$log" | grep -vc 'test(s)' || true)
# cmocka lists each skipped test twice (as it runs and in the summary).
skipped=$(( (skipped + 1) / 2 ))
marked=$(grep -c '\[profile: no [a-z0-9_]*\]' "$log" || true)
status=$got
if [ "$skipped" -gt "$marked" ]; then
  echo "FAIL - $skipped cmocka skip(s), only $marked with a capability the profile lacks (use T_SKIP_UNLESS)"
  status=1
fi
if [ "$got" = 77 ] && [ "$marked" = 0 ]; then
  echo "FAIL - the test skipped itself (77) without a capability the profile lacks (use t_require)"
  status=1
fi
grep -o 'skip: .*\[profile: no [a-z0-9_]*\]' "$log" | sed 's/^/  skipped: /' || true
rm -rf "$_scratch"
exit "$status"
