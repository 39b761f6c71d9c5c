#!/usr/bin/env bash
# Run one of docs/examples in a scratch project and check it works:
#   run_example.sh INTERPRETER|- EXAMPLE
# Exits 77 when the interpreter is missing. The example must print the
# command's output and exit 0.
set -u
interp=$1 example=$2
if [ "$interp" != - ] && ! command -v "$interp" >/dev/null; then
  echo "skip: $interp: $interp is not installed [profile: no $interp]"; exit 77
fi
work=$(mktemp -d /tmp/sbx-example.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
if [ "$interp" = - ]; then out=$("$example" 2>&1); else out=$("$interp" "$example" "$SBX_LAUNCHER" 2>&1); fi
status=$?
echo "$out"
[ "$status" = 0 ] || { echo "FAIL: exit $status"; exit 1; }
case $out in *"hello from the sandbox"*) ;; *) echo "FAIL: the command's output is missing"; exit 1;; esac
echo "ok: $example"
