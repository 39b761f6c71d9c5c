#!/usr/bin/env bash
# The version is written once, in include/sandbox.h (SANDBOX_VERSION_MAJOR,
# _MINOR, _PATCH). Everything built from it and every copy that cannot be
# built from it must say the same: the compiled SANDBOX_VERSION_STRING,
# sandbox_version() of the shared and the static library, CMake's project
# version, the SONAME and file name, the pkg-config file, the CMake package,
# the launcher's --version and --self-test --json, debian/changelog's upstream
# version, CHANGELOG.md's newest release heading, and the man pages if they
# name a version.
# Usage: test_version.sh BUILD-DIR SOURCE-DIR LAUNCHER
set -u
build=$1 src=$2 launcher=$3
fail=0 checks=0
scratch=$(mktemp -d /tmp/sbx-version.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

# agree PLACE GOT WANT
agree() {
  checks=$((checks + 1))
  if [ "$2" = "$3" ]; then echo "ok   - $1: $2"; else
    echo "FAIL - $1 says '$2', include/sandbox.h says $3 (the version lives in the header:" \
         "bump it there, then add a debian/changelog entry and a CHANGELOG.md section)"
    fail=$((fail + 1))
  fi
}
# same PLACE VALUE: VALUE must be the header's version.
same() { agree "$1" "$2" "$v"; }

h=$src/include/sandbox.h
part() { sed -n "s/^#define SANDBOX_VERSION_$1 \+\([0-9]\+\)$/\1/p" "$h"; }
v="$(part MAJOR).$(part MINOR).$(part PATCH)"
if ! [[ $v =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "FAIL - include/sandbox.h: no SANDBOX_VERSION_MAJOR/MINOR/PATCH lines (got '$v')"
  exit 1
fi
echo "include/sandbox.h: $v"

# The header's string, and sandbox_version() as each library returns it.
cat >"$scratch/v.c" <<'EOF'
#include <sandbox.h>
#include <stdio.h>
int main(void)
{
    printf("%s %s\n", SANDBOX_VERSION_STRING, sandbox_version());
    return 0;
}
EOF
so=$(ls "$build"/libsandbox.so.*.*.* 2>/dev/null | head -1)
if cc -std=c11 -I"$src/include" -o "$scratch/v-shared" "$scratch/v.c" -L"$build" -lsandbox &&
   cc -std=c11 -I"$src/include" -DSANDBOX_STATIC -o "$scratch/v-static" "$scratch/v.c" "$build/libsandbox.a"; then
  read -r str shared < <(LD_LIBRARY_PATH=$build "$scratch/v-shared")
  read -r _ static < <("$scratch/v-static")
  same "SANDBOX_VERSION_STRING" "$str"
  same "sandbox_version() of libsandbox.so" "$shared"
  same "sandbox_version() of libsandbox.a" "$static"
else
  echo "FAIL - could not build a program against $build"; fail=$((fail + 1))
fi

same "CMake project version" "$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")"
same "shared library file name" "${so##*/libsandbox.so.}"
agree "SONAME" "$(readelf -d "$so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" \
  "libsandbox.so.$(part MAJOR)"
same "pkg-config file" "$(sed -n 's/^Version: //p' "$build/sandbox.pc")"
same "CMake package version" \
  "$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/sandboxConfigVersion.cmake")"
same "sandbox-exec-launcher --version" "$("$launcher" --version | sed -n 's/^sandbox-exec-launcher //p')"
same "sandbox-exec-launcher --self-test --json" \
  "$("$launcher" --self-test --json | sed -n 's/^{"version":"\([^"]*\)".*/\1/p')"

# debian/changelog: the newest entry's upstream version (before the last -).
deb=$(sed -n '1s/^libsandbox (\([^)]*\)).*/\1/p' "$src/debian/changelog")
same "debian/changelog (${deb:-no entry})" "${deb%-*}"
same "CHANGELOG.md's newest release" \
  "$(sed -n 's/^## \[\([0-9][0-9.]*\)\].*/\1/p' "$src/CHANGELOG.md" | head -1)"

# The host packages of bindings/ (issue 24) are released with the launcher.
same "bindings/python/pyproject.toml" "$(sed -n 's/^version = "\(.*\)"$/\1/p' "$src/bindings/python/pyproject.toml")"
same "bindings/node/package.json" "$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$src/bindings/node/package.json")"
same "bindings/rust/Cargo.toml" "$(sed -n 's/^version = "\(.*\)"$/\1/p' "$src/bindings/rust/Cargo.toml")"

# The man pages carry no version (one copy fewer to forget); if one is added
# back, it must agree.
for page in "$src"/docs/sandbox-exec-launcher.1 "$src"/docs/libsandbox.3; do
  th=$(sed -n 's/^\.TH .*"libsandbox \([0-9][0-9.]*\)".*/\1/p' "$page")
  [ -z "$th" ] || same "${page#"$src"/} .TH" "$th"
done

echo "$checks checks, $fail failed"
exit $fail
