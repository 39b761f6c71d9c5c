#!/usr/bin/env bash
# Escape class: setuid binaries and core dumps.
# - no_new_privs is set in every mode, so a setuid (or file-capability)
#   binary run inside gains nothing: the kernel ignores the bit.
# - Core dumps are off (RLIMIT_CORE 0, soft and hard) in every mode, so the
#   command cannot raise them again.
# Unconfined, the setuid bit is honoured (checked as root with a copy of the
# probe owned by nobody: running it changes the effective uid) and
# NoNewPrivs is 0.
. "$SBX_TESTLIB"
. "${1:?usage: test_privs.sh PATH/escape.sh}"
esc_need_probes esc_attrs

"$P/esc_attrs" show >"$_out" 2>&1
if grep -q "nnp=0" "$_out"; then pass "no_new_privs is off unconfined"; else
  fail "no_new_privs is already on unconfined: $(cat "$_out")"; fi

esc_modes --no-network --confine-fs --sandbox --read-only
for m in "${ESC_MODES[@]}"; do
  expect_status 0 "the probe runs under $m" bash -c "ulimit -c unlimited; exec \"\$@\"" - \
    "$L" "$m" -- "$P/esc_attrs" show
  expect_output_has "nnp=1" "no_new_privs is set under $m"
  expect_output_has "core=1/1" "core dumps are off (1 stops pipe helpers too), hard limit too, under $m"
done

# setuid: root makes a copy of the probe owned by nobody with the setuid bit.
if [ "$(id -u)" = 0 ]; then
  cp "$P/esc_attrs" "$_scratch/suid"
  chown 65534:65534 "$_scratch/suid"
  chmod 4755 "$_scratch/suid"
  got=0
  "$_scratch/suid" show >"$_out" 2>&1 || got=$?
  if grep -q "euid=65534" "$_out"; then
    pass "the setuid bit is honoured unconfined (euid becomes 65534)"
    for m in "${ESC_MODES[@]}"; do
      expect_status 0 "the setuid probe runs under $m" "$L" "$m" -- "$_scratch/suid" show
      expect_output_has "euid=0 " "the setuid bit is ignored under $m (no_new_privs)"
    done
  elif grep -q Sanitizer "$_out"; then
    if have unsanitized; then fail "a sanitizer message, yet the profile sees none: $(head -1 "$_out")"; fi
    skip "unsanitized: the probe is built with a sanitizer, which cannot run setuid (asan preset)"
  else
    skip "setuid: setuid bits are not honoured here unconfined (nosuid mount?): $(cat "$_out")"
  fi
else
  skip "root: setuid check needs root to make a setuid file (no_new_privs is checked above)"
fi
finish
