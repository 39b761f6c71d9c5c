#!/usr/bin/env bash
# Escape class: terminal input injection. TIOCSTI pushes bytes into the
# terminal's input queue, and the user's shell runs them after the sandboxed
# command exits; TIOCLINUX's selection paste does the same on a console. Both
# are refused with EPERM by a masked ioctl rule in every mode. The probe runs
# on a fresh pseudo-terminal made its controlling terminal (python3's pty),
# as an interactive agent shell would be.
#
# The launcher does not call setsid(): that would break job control in
# interactive shells, and a root command keeping CAP_SYS_ADMIN could still
# inject through an inherited terminal descriptor. The seccomp rule is the
# layer that closes this (docs/hardening.md).
. "$SBX_TESTLIB"
. "${1:?usage: test_tty.sh PATH/escape.sh}"
esc_need_probes esc_tty
have pty || esc_skip_all "pty: no pseudo-terminal or python3 here (needed for a pseudo-terminal)"

# on_pty CMD...: run CMD as the session leader of a new pseudo-terminal; its
# output to $_out, its exit status (128+N for a signal) returned.
on_pty() {
  python3 - "$@" >"$_out" 2>"$_err" </dev/null <<'PY'
import os, pty, sys
status = pty.spawn(sys.argv[1:])
sys.exit(128 + os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
PY
}
pty_status() {
  local want=$1 what=$2 name=$3 got=0
  shift 3
  on_pty "$@" || got=$?
  if [ "$got" = "$want" ] && grep -q -- "$what" "$_out"; then pass "$name"; else
    fail "$name: exit $got, wanted $want with '$what'"; sed 's/^/    | /' "$_out" "$_err" | head -5
  fi
}

got=0
on_pty "$P/esc_tty" sti || got=$?
if [ "$got" = 0 ]; then
  pass "TIOCSTI injects input unconfined"
elif [ "$got" = 2 ]; then
  esc_skip_all "pty: no pseudo-terminal here: $(head -1 "$_out")"
else
  skip "tiocsti: TIOCSTI is already refused unconfined ($(tr -d '\r' <"$_out" | head -1)): dev.tty.legacy_tiocsti=0?"
fi
got=0
on_pty "$P/esc_tty" devtty || got=$?
if [ "$got" = 0 ]; then pass "TIOCSTI through /dev/tty injects input unconfined"; else
  skip "tiocsti: TIOCSTI through /dev/tty fails unconfined: $(tr -d '\r' <"$_out" | head -1)"; fi
got=0
on_pty "$P/esc_tty" linux || got=$?
# On a pty the kernel answers TIOCLINUX itself (not a console); the point is
# that this answer is not the filter's EPERM.
if grep -q "refused EPERM" "$_out"; then
  fail "TIOCLINUX unconfined already gives EPERM: cannot tell the filter's verdict apart"
else
  pass "TIOCLINUX reaches the kernel unconfined ($(tr -d '\r' <"$_out" | head -1))"
fi

esc_modes --no-network --confine-fs --sandbox --read-only
for m in "${ESC_MODES[@]}"; do
  pty_status 1 "TIOCSTI: refused EPERM" "TIOCSTI is refused with EPERM under $m" "$L" "$m" -- "$P/esc_tty" sti
  pty_status 1 "TIOCSTI on /dev/tty: refused EPERM" \
    "TIOCSTI through a new /dev/tty descriptor is refused with EPERM under $m" \
    "$L" "$m" -- "$P/esc_tty" devtty
  pty_status 1 "TIOCLINUX: refused EPERM" "TIOCLINUX is refused with EPERM under $m" "$L" "$m" -- "$P/esc_tty" linux
done
finish
