#!/usr/bin/env bash
# libsandbox(3) renders without groff warnings, and every function and
# constant it names exists in the public header, so a rename cannot leave
# the page behind. (It is an overview: docs/api.md is the complete list.)
set -u
src=${SBX_SOURCE_DIR:?}
page=$src/docs/libsandbox.3
fail=0
command -v groff >/dev/null || { echo "skip: groff: groff is not installed [profile: no groff]"; exit 77; }
warnings=$(groff -man -ww -z "$page" 2>&1)
[ -z "$warnings" ] && echo "ok   - groff -man -ww: no warnings" || { echo "FAIL - groff warnings:"; echo "$warnings"; fail=1; }
# The CMake targets (sandbox::sandbox_shared) are not C names.
names=$(sed 's/sandbox::sandbox_[a-z]*//g' "$page" | grep -oE '\b(sandbox_[a-z0-9_]+|SANDBOX_[A-Z0-9_]+)\b' | sort -u)
[ -n "$names" ] || { echo "FAIL - the page names no function"; fail=1; }
for n in $names; do
  case $n in SANDBOX_E_) continue ;; esac # "the SANDBOX_E_* codes"
  if grep -qE "\b$n\b" "$src/include/sandbox.h"; then echo "ok   - $n is in sandbox.h"; else
    echo "FAIL - libsandbox.3 names $n, which include/sandbox.h does not have"; fail=1
  fi
done
exit $fail
