#!/usr/bin/env bash
# After ctest: list every skip of the run with its reason, whole tests
# (ctest's "Not Run"/77) and single checks alike, from ctest's log. ctest
# counts a skipped test as passed ("100% tests passed"); this does not: a
# skip without the machine profile's "[profile: no KEY]" marker (tests/lib.sh
# prints it only for a capability this machine lacks) fails the run.
# Usage: scripts/skip-report.sh BUILD-DIR
set -euo pipefail
log=${1:?usage: skip-report.sh BUILD-DIR}/Testing/Temporary/LastTest.log
[ -f "$log" ] || { echo "skip-report: no ctest log at $log" >&2; exit 1; }
awk '
  /^[0-9]+\/[0-9]+ Testing: / { test = $3 }
  /^(skip -|skip:)/ {
    line = $0; n++
    if (line ~ /\[profile: no [a-z0-9_]+\]/) ok++; else { bad++; print "UNJUSTIFIED " test ": " line; next }
    print "  " test ": " line
  }
  END {
    printf "%d skips, %d justified by the machine profile, %d unjustified\n", n, ok, bad
    exit bad > 0
  }' "$log"
