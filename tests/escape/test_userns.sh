#!/usr/bin/env bash
# Escape class: a new user namespace gives a process every capability inside
# it, enough to mount a tmpfs over a directory and get around path rules. A
# process in a Landlock filesystem domain cannot change the mount topology at
# all, whatever namespace it is in: the mount fails with EPERM in every mode
# that confines the filesystem. Tried with unshare() and with clone3(), whose
# flags are in memory where seccomp cannot read them (nothing here depends on
# seccomp seeing them). --no-network alone confines no path, so a mount there
# gains nothing and is not tested.
. "$SBX_TESTLIB"
. "${1:?usage: test_userns.sh PATH/escape.sh}"
esc_need_probes esc_ns
mkdir -p "$_scratch/mnt"

got=0
"$P/esc_ns" unshare "$_scratch/mnt" >"$_out" 2>&1 || got=$?
case $got in
  0) pass "unshare(USER|NS) + mount works unconfined" ;;
  *) esc_skip_all "userns: user namespace + mount fails unconfined (exit $got): $(head -1 "$_out")" ;;
esac
expect_status 0 "clone3(USER|NS) + mount works unconfined" "$P/esc_ns" clone3 "$_scratch/mnt"

esc_modes --confine-fs --sandbox --read-only
for m in "${ESC_MODES[@]}"; do
  for how in unshare clone3; do
    got=0
    "$L" "$m" -- "$P/esc_ns" "$how" "$_scratch/mnt" >"$_out" 2>"$_err" || got=$?
    # The namespace itself may be allowed; the mount is what must fail.
    # read-only refuses the namespace itself: EPERM, or ENOSYS for clone3.
    if [ "$got" = 1 ] && grep -Eq "^(mount .*|unshare.*|clone3.*): refused (EPERM|ENOSYS)" "$_out"; then
      pass "$how(USER|NS) then mount is refused under $m: $(head -1 "$_out")"
    else
      fail "$how(USER|NS) then mount under $m: exit $got, wanted an EPERM refusal"
      sed 's/^/    | /' "$_out" "$_err" | head -5
    fi
  done
done
finish
