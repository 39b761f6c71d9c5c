#!/usr/bin/env bash
# Install to a temporary prefix, then build a tiny host against the installed
# header and library through pkg-config and through the CMake package, and run it.
set -eu
build=$1
here=$2
prefix=$(mktemp -d /tmp/sbx-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/$(gcc -dumpmachine)/pkgconfig"
pkg-config --exists sandbox || { echo "FAIL: pkg-config does not find sandbox"; exit 1; }
echo "pkg-config sandbox: $(pkg-config --modversion sandbox)"
cc -std=c11 -Wall -Werror -o "$prefix/host" "$here/host.c" $(pkg-config --cflags --libs sandbox) \
   -Wl,-rpath,"$(pkg-config --variable=libdir sandbox)"
"$prefix/host"
cc -std=c11 -Wall -Werror -o "$prefix/host-static" "$here/host.c" \
   $(pkg-config --cflags sandbox) -DSANDBOX_STATIC "$(pkg-config --variable=libdir sandbox)/libsandbox.a" \
   $(pkg-config --libs-only-l --static sandbox | sed 's/-lsandbox//')
"$prefix/host-static"
# The CMake package: find_package(sandbox VERSION EXACT), both targets.
cmake -S "$here/find_package" -B "$prefix/cmake-host" -DCMAKE_PREFIX_PATH="$prefix" \
      -DSBX_EXPECT_VERSION="$(pkg-config --modversion sandbox)" >/dev/null
cmake --build "$prefix/cmake-host" >/dev/null
"$prefix/cmake-host/host_shared"
"$prefix/cmake-host/host_static"
test -x "$prefix/bin/sandbox-exec-launcher" || { echo "FAIL: launcher not installed"; exit 1; }
"$prefix/bin/sandbox-exec-launcher" --version
test -f "$prefix/share/man/man1/sandbox-exec-launcher.1" || { echo "FAIL: man page not installed"; exit 1; }
test -f "$prefix/share/man/man3/libsandbox.3" || { echo "FAIL: libsandbox(3) not installed"; exit 1; }
test -f "$prefix/lib/cmake/sandbox/sandboxConfig.cmake" || test -f "$prefix/lib/$(gcc -dumpmachine)/cmake/sandbox/sandboxConfig.cmake" || { echo "FAIL: CMake package config missing"; exit 1; }
echo "1 passed, 0 failed"
