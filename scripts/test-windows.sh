#!/usr/bin/env bash
# Cross-build libsandbox for Windows with mingw-w64 and run its tests under
# wine: the `windows` configure, build and test presets. Installs the Debian
# packages gcc-mingw-w64-x86-64, wine64 and wine when they are missing.
#
# Wine runs in a throw-away prefix, headless: no X display, no Mono/Gecko
# install dialogs, first-run prefix creation bounded by a timeout.
# Usage: scripts/test-windows.sh [extra ctest arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v x86_64-w64-mingw32-gcc >/dev/null || need+=(gcc-mingw-w64-x86-64)
# wineboot comes with the wine package: wine64 alone (its loader in
# /usr/lib/wine) cannot make a prefix.
if ! command -v wineboot >/dev/null || { ! command -v wine >/dev/null && ! [ -x /usr/lib/wine/wine64 ]; }; then
  need+=(wine64 wine)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "test-windows: installing ${need[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

start=$(date +%s)
WINEPREFIX=$(mktemp -d "${TMPDIR:-/tmp}/sbx-wine.XXXXXX")
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" WINEARCH=win64
unset DISPLAY WAYLAND_DISPLAY
cleanup() {
  # Stop only the wineserver of our own prefix, then drop the prefix.
  wineserver -k >/dev/null 2>&1 || true
  rm -rf "$WINEPREFIX"
}
trap cleanup EXIT

# Create the prefix up front, bounded: a first run that hangs must not hang CI.
if ! timeout 180 wineboot --init >/dev/null 2>&1; then
  echo "test-windows: wineboot --init failed or timed out (prefix $WINEPREFIX)" >&2
  exit 1
fi

cmake --preset windows --fresh >/dev/null
cmake --build --preset windows
ctest --preset windows "$@"
echo "test-windows: done in $(( $(date +%s) - start ))s"
