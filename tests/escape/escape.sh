# Helpers for the escape tests (tests/escape/test_*.sh), sourced after lib.sh.
# ctest passes this file's path as the test's first argument, so as-nobody.sh
# copies it along with the test.

# Skip the whole test (exit 77) with "KEY: reason"; see skip_all in lib.sh.
esc_skip_all() { skip_all "$@"; }

# esc_need_probes NAME...: the probes must have been built.
esc_need_probes() {
  local p
  for p in "$@"; do
    [ -x "$P/$p" ] || { fail "probe $p is not built (tests/CMakeLists.txt builds every probe)"; finish; }
  done
}

# esc_mode_needs MODE: the profile key a mode needs (docs/landlock.md).
esc_mode_needs() {
  case $1 in
    --no-network) echo seccomp ;;
    --confine-fs|--sandbox|--class=*) echo landlock ;;
    --read-only) echo landlock6 ;;
    *) echo "unknown-mode" ;;
  esac
}

# esc_modes MODE...: keep in ESC_MODES the modes this test runs. A mode the
# machine profile says cannot be had here must fail closed (126, with the
# launcher's reason) and is skipped; a mode the profile says can be had and
# the launcher refuses is a failure, never a silently dropped mode.
esc_modes() {
  local m key got
  ESC_MODES=()
  for m in "$@"; do
    key=$(esc_mode_needs "$m")
    got=0
    "$L" "$m" -- true >/dev/null 2>"$_err" || got=$?
    if have "$key"; then
      if [ "$got" = 0 ]; then ESC_MODES+=("$m"); else
        fail "$m cannot be applied (exit $got) though this machine has $key: $(head -1 "$_err")"
      fi
    elif [ "$got" = 126 ]; then
      pass "$m fails closed where the machine lacks $key (126)"
      skip "$key: $m cannot be applied here: $(head -1 "$_err")"
    elif [ "$got" = 0 ] && [ "$key" = landlock ] && [ -s "$_err" ]; then
      # README: without Landlock the file-system modes run with a warning.
      pass "$m runs with a warning where the machine lacks Landlock: $(head -1 "$_err")"
      skip "$key: $m does not confine the file system here"
    else
      fail "$m without $key: exit $got, wanted a fail-closed 126 (or Landlock's warning)"
    fi
  done
  [ ${#ESC_MODES[@]} -gt 0 ] || skip_all "$key: no mode this test concerns can be applied here"
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
