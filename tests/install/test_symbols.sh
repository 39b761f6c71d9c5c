#!/usr/bin/env bash
# The shared library's ABI is exactly the public header: libsandbox.so
# exports every SANDBOX_API function of include/sandbox.h and nothing else
# (hidden visibility holds), and debian/libsandbox0.symbols pins the same
# list, so a symbol added or removed is noticed here, before the Debian
# package build (dpkg-gensymbols -c4) refuses it.
# Usage: test_symbols.sh BUILD-DIR SOURCE-DIR
set -u
build=$1 src=$2
fail=0
so=$(ls "$build"/libsandbox.so.*.*.* 2>/dev/null | head -1)
[ -n "$so" ] || { echo "FAIL - no libsandbox.so.X.Y.Z in $build"; exit 1; }
command -v nm >/dev/null || { echo "FAIL - nm (binutils) is not installed"; exit 1; }

exported=$(nm -D --defined-only "$so" | awk '{print $3}' | LC_ALL=C sort)
declared=$(grep -oE 'SANDBOX_API [^(]*\(' "$src/include/sandbox.h" | grep -oE 'sandbox_[a-z0-9_]+\($' |
           tr -d '(' | LC_ALL=C sort -u)
pinned=$(sed -n 's/^ \([a-z0-9_]*\)@Base .*/\1/p' "$src/debian/libsandbox0.symbols" | LC_ALL=C sort)
echo "$(wc -w <<<"$exported") exported, $(wc -w <<<"$declared") declared, $(wc -w <<<"$pinned") pinned"

# compare WHAT A-NAME A B-NAME B: each name in one list and not the other.
compare() {
  local d
  d=$(LC_ALL=C comm -3 <(echo "$3") <(echo "$5"))
  if [ -z "$d" ]; then echo "ok   - $1: $2 and $4 agree"; return; fi
  fail=1
  while IFS= read -r line; do
    case $line in
      $'\t'*) echo "FAIL - $1: ${line#$'\t'} is in $4, not in $2" ;;
      *) echo "FAIL - $1: $line is in $2, not in $4" ;;
    esac
  done <<<"$d"
}
compare "visibility" "libsandbox.so's exports" "$exported" "include/sandbox.h's SANDBOX_API" "$declared"
compare "Debian symbols" "libsandbox.so's exports" "$exported" "debian/libsandbox0.symbols" "$pinned"
if [ "$fail" != 0 ]; then
  echo "  A new public function goes into debian/libsandbox0.symbols as"
  echo "  ' NAME@Base X.Y.Z' (X.Y.Z: the first version that has it); a removed one"
  echo "  breaks the ABI: bump SANDBOX_VERSION_MAJOR (the SONAME) instead."
fi
exit $fail
