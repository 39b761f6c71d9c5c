#!/usr/bin/env bash
# The man page renders without groff warnings and documents every flag the
# launcher's --help lists (and no flag the launcher does not know).
set -u
src=${SBX_SOURCE_DIR:?} L=${SBX_LAUNCHER:?}
page=$src/docs/sandbox-exec-launcher.1
fail=0
command -v groff >/dev/null || { echo "skip: groff: groff is not installed [profile: no groff]"; exit 77; }
warnings=$(groff -man -ww -z "$page" 2>&1)
[ -z "$warnings" ] && echo "ok   - groff -man -ww: no warnings" || { echo "FAIL - groff warnings:"; echo "$warnings"; fail=1; }
rendered=$(groff -man -Tascii "$page" 2>/dev/null | col -b)
flags=$("$L" --help | grep -oE -- '--[a-z][a-z-]*' | sort -u)
for f in $flags; do
  if grep -qF -- "$f" <<<"$rendered"; then echo "ok   - man page documents $f"; else echo "FAIL - man page lacks $f"; fail=1; fi
done
for f in $(grep -oE -- '--[a-z][a-z-]*' <<<"$rendered" | sort -u); do
  # every option the page names must be one the launcher accepts
  if ! grep -qxF -- "$f" <<<"$flags"; then
    case $f in --name) continue;; esac
    echo "FAIL - man page names $f, which --help does not list"; fail=1
  fi
done
exit $fail
