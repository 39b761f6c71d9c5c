#!/usr/bin/env bash
# Every function the public header exports has a section in docs/api.md.
set -u
src=${SBX_SOURCE_DIR:?}
fail=0
for f in $(grep -oE 'SANDBOX_API [^(]*\(' "$src/include/sandbox.h" | grep -oE 'sandbox_[a-z0-9_]+\($' | tr -d '(' | sort -u); do
  if grep -qE "^###.*\`$f\`" "$src/docs/api.md"; then echo "ok   - $f"; else echo "FAIL - docs/api.md has no section for $f"; fail=1; fi
done
exit $fail
