# Helpers for the escape tests (tests/escape/test_*.sh), sourced after lib.sh.
# ctest passes this file's path as the test's first argument, so as-nobody.sh
# copies it along with the test.

# Skip the whole test (exit 77) with a reason.
esc_skip_all() {
  echo "skip: $*"
  rm -rf "$_scratch"
  exit 77
}

# esc_need_probes NAME...: the probes must have been built.
esc_need_probes() {
  local p
  for p in "$@"; do
    [ -x "$P/$p" ] || esc_skip_all "probe $p is not built here"
  done
}

# esc_modes MODE...: keep in ESC_MODES the modes the launcher can apply on
# this machine. A mode it cannot apply fails closed (126) and is skipped with
# the launcher's reason; with none left the test is skipped.
esc_modes() {
  local m
  ESC_MODES=()
  for m in "$@"; do
    if "$L" "$m" -- true >/dev/null 2>"$_err"; then
      ESC_MODES+=("$m")
    else
      skip "$m cannot be applied here: $(head -1 "$_err")"
    fi
  done
  [ ${#ESC_MODES[@]} -gt 0 ] || esc_skip_all "no mode this test concerns can be applied here"
}

# expect_refused ERRNO NAME CMD...: CMD must exit 1 with "refused ERRNO".
expect_refused() {
  local want=$1 name=$2 got=0
  shift 2
  "$@" >"$_out" 2>"$_err" || got=$?
  if [ "$got" = 1 ] && grep -q "refused $want" "$_out"; then pass "$name ($want)"; else
    fail "$name: exit $got, wanted refusal with $want"; sed 's/^/    | /' "$_out" "$_err" | head -5
  fi
}
