#!/usr/bin/env bash
# --report and the "sandbox:" line of --explain. The live cases need the
# seccomp and Landlock backends; on a machine without them (tests/lib.sh's
# profile decides) they are skipped and the fail-closed refusal is checked.
. "$SBX_TESTLIB"

expect_status 0 "--help lists --report" "$L" --help
expect_output_has "--report" "--help mentions --report"

proj=$_scratch/proj
mkdir -p "$proj"
expect_status 0 "--explain ends with the sandbox line" "$L" --explain --project "$proj" --workdir "$proj" -- echo hi
if tail -n 1 "$_out" | grep -qE '^sandbox: (on: |off: |unavailable on this system\.)'; then
  pass "the last explain line is the one-line description"
else fail "no sandbox: line at the end of --explain"; tail -n 3 "$_out"; fi
expect_status 0 "--explain --json has a describe field" "$L" --explain --json --project "$proj" --workdir "$proj" -- echo hi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["describe"]' "$_out"; then
  pass "describe is a non-empty JSON string"
else fail "describe missing from --explain --json"; cat "$_out"; fi


if have seccomp; then
  expect_status 159 "--report: a socket under --no-network dies with SIGSYS (shell: 159)" \
    "$L" --report --no-network -- sh -c 'python3 -c "import socket; socket.socket()"'
  expect_output_has "blocked by the network sandbox" "--report names the network sandbox"
  expect_status 0 "--report: a command that succeeds exits 0 and says nothing" \
    "$L" --report --no-network -- true
  if [ -s "$_err" ]; then fail "--report printed on success"; cat "$_err"; else pass "--report is silent on success"; fi
  expect_status 3 "--report: the command's own status comes back" "$L" --report --no-network -- sh -c 'exit 3'
  expect_status $((128 + 15)) "--report: death by signal N exits 128+N" \
    "$L" --report --no-network -- sh -c 'kill -TERM $$'
else
  skip "seccomp: --report network cases: the network kill-switch is not available here"
fi

if have landlock && have seccomp; then
  rm -f /var/tmp/sbx-report-$$
  TMPDIR=/tmp expect_status 2 "--report: a write outside the roots fails" \
    "$L" --report --sandbox --project "$proj" --workdir "$proj" -- sh -c "echo x > /var/tmp/sbx-report-$$"
  expect_output_has "the filesystem sandbox probably refused a write outside $proj" \
    "--report names the filesystem sandbox and the project"
  [ -e /var/tmp/sbx-report-$$ ] && fail "the write outside the roots happened" || pass "nothing was written"
  rm -f /var/tmp/sbx-report-$$
else
  skip "landlock: --report filesystem case: Landlock (or seccomp) is not available here"
fi

if ! have seccomp; then
  # Fail closed under --report too: the sandbox error, no denial line, 126.
  expect_status 126 "--report fails closed when the sandbox cannot be applied" \
    "$L" --report --no-network -- sh -c 'echo ran'
  if grep -q '^ran$' "$_out"; then fail "the command ran unconfined"; else pass "the command did not run"; fi
fi

finish
