# Shared helpers for the bash tests. Source it, call the checks, end with
# `finish`, which prints "N passed, N failed" and sets the exit status.
# Environment (set by ctest): SBX_LAUNCHER, SBX_PROBES, SBX_SOURCE_DIR.
set -u
L=${SBX_LAUNCHER:?SBX_LAUNCHER is not set}
P=${SBX_PROBES:-}
_pass=0
_fail=0
_skip=0

pass() { _pass=$((_pass + 1)); echo "ok   - $*"; }
fail() { _fail=$((_fail + 1)); echo "FAIL - $*"; }
skip() { _skip=$((_skip + 1)); echo "skip - $*"; }

# expect_status WANT NAME CMD...: run CMD, compare its exit status.
expect_status() {
  local want=$1 name=$2 got=0
  shift 2
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = "$want" ]; then pass "$name (exit $got)"; else
    fail "$name: exit $got, wanted $want"; sed 's/^/    | /' "$_err" | head -5
  fi
}

# expect_signal SIG NAME CMD...: CMD must die from signal SIG (e.g. SYS).
# A shell reports death by signal N as 128+N.
expect_signal() {
  local sig=$1 name=$2 got=0 num
  shift 2
  num=$(kill -l "$sig")
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = $((128 + num)) ]; then pass "$name (killed by SIG$sig)"; else
    fail "$name: exit $got, wanted death by SIG$sig ($((128 + num)))"; sed 's/^/    | /' "$_err" | head -5
  fi
}

# expect_output_has TEXT NAME: the last command's stdout+stderr contains TEXT.
expect_output_has() {
  if grep -qF -- "$1" "$_out" "$_err"; then pass "$2"; else
    fail "$2: output lacks '$1'"; sed 's/^/    | /' "$_out" "$_err" | head -8
  fi
}

finish() {
  echo "${_pass} passed, ${_fail} failed, ${_skip} skipped"
  rm -rf "$_scratch"
  [ "$_fail" = 0 ]
  exit $?
}

_scratch=$(mktemp -d /tmp/sbx-test.XXXXXX)
_out=$_scratch/.out
_err=$_scratch/.err
