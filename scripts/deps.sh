#!/usr/bin/env bash
# Install the Debian 12 packages the build, the tests and the demo need, and
# only those that are missing (an up-to-date machine makes no network call).
# The last line: Debian's toolchains for the host packages of bindings/
# (scripts/test-bindings.sh); cargo brings Debian's rustc. No npm: node --test needs none.
# The line before it: a real session bus and a real X server for the local-endpoint tests
# (tests/linux/test_unix_endpoints.sh, test_unix_abstract.sh).
# Usage: scripts/deps.sh [extra-package...]
set -euo pipefail
packages=(build-essential cmake pkg-config libseccomp-dev libcmocka-dev musl-tools python3 git guile-3.0
          util-linux iproute2 procps libcap2-bin strace
          clang libclang-rt-14-dev clang-tidy cppcheck valgrind
          python3-setuptools python3-pip nodejs golang-go cargo
          dbus-daemon dbus-bin dbus-tests xdg-dbus-proxy xvfb x11-utils "$@")
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "deps: missing packages: ${missing[*]}; run as root or install them first" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
