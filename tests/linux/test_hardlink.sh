#!/usr/bin/env bash
# The hard-link scan end to end through the launcher: refusal (exit 126) naming
# the file, allowlist, switches, and a folder the scan cannot list. The scan
# runs before any backend step, so refusals are checked even while the Linux
# backend is not built; runs that should proceed are checked for "not refused"
# and, once `$L -- true` works, for exit 0.
. "$SBX_TESTLIB"

backend_ok=0
"$L" --no-scan-hardlinks -- true >/dev/null 2>&1 && backend_ok=1

t=$_scratch/t
mkdir -p "$t/proj/src" "$t/outside" "$t/scratch"
echo secret >"$t/outside/rc"
ln "$t/outside/rc" "$t/proj/src/rc-copy"
run=("$L" --project "$t/proj" --workdir "$t/proj" --scratch "$t/scratch")

# not_refused NAME CMD...: the scan let CMD start (the backend may still be missing).
not_refused() {
  local name=$1 got=0
  shift
  "$@" >"$_out" 2>"$_err" || got=$?
  if grep -qE "hard-linked|cannot scan" "$_err"; then
    fail "$name: the scan refused"; sed 's/^/    | /' "$_err" | head -3
  elif [ "$backend_ok" = 1 ]; then
    if [ "$got" = 0 ]; then pass "$name (exit 0)"; else fail "$name: exit $got"; sed 's/^/    | /' "$_err" | head -3; fi
  else
    pass "$name (not refused by the scan)"
    skip "landlock: $name: running the command needs the Linux backend (exit $got)"
  fi
}

expect_status 126 "a class refuses an outside hard link" "${run[@]}" --class project -- true
expect_output_has "$t/proj/src/rc-copy" "the refusal names the file"
expect_output_has "hard-linked" "the refusal says why"
expect_status 126 "--scan-hardlinks refuses without a class" "${run[@]}" --confine-fs --scan-hardlinks -- true
expect_status 126 "the build class scans too" "${run[@]}" --class build -- true
expect_status 126 "the media class scans its output folder" "$L" --class media --output "$t/proj" --scratch "$t/scratch" --workdir "$t/scratch" -- true
expect_output_has "rc-copy" "media's refusal names the file"

not_refused "--allow-hardlink on the file lets it start" "${run[@]}" --class project --allow-hardlink "$t/proj/src/rc-copy" -- true
not_refused "--allow-hardlink on its folder lets it start" "${run[@]}" --class project --allow-hardlink "$t/proj/src" -- true
not_refused "--no-scan-hardlinks skips the scan" "${run[@]}" --class project --no-scan-hardlinks -- true
not_refused "without a class the scan is off" "${run[@]}" -- true
not_refused "research does not write (or scan) the project" "${run[@]}" --class research -- true

# Every name inside the roots: no refusal.
rm "$t/proj/src/rc-copy"
echo a >"$t/proj/src/a"
ln "$t/proj/src/a" "$t/proj/b"
ln "$t/proj/src/a" "$t/scratch/c"
not_refused "links whose every name is inside pass" "${run[@]}" --class project -- true

# A folder the scan cannot list is refused the same way. Root (or anyone with
# CAP_DAC_READ_SEARCH) lists it regardless, so that case proves nothing.
mkdir "$t/proj/locked"
chmod 000 "$t/proj/locked"
if ls "$t/proj/locked" >/dev/null 2>&1; then
  skip "dac_enforced: an unlistable folder: this user lists mode-000 folders anyway (root or CAP_DAC_READ_SEARCH)"
else
  expect_status 126 "an unlistable folder is refused" "${run[@]}" --class project -- true
  expect_output_has "cannot scan $t/proj/locked" "the refusal names the folder"
fi
chmod 755 "$t/proj/locked"
finish
