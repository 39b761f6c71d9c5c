#!/usr/bin/env bash
# The four host packages of bindings/ (issue 24), each tested against the real
# launcher with Debian's own toolchain (/usr/bin: CI has no pyenv or rustup),
# as root and, where the test binary is cheap to move, as nobody.
# Usage: scripts/test-bindings.sh [LAUNCHER]   (default build/default/sandbox-exec-launcher)
# A toolchain that is not installed is a keyed skip (tests/lib.sh), never a pass.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
src=$PWD
# Debian's toolchains only: a pyenv python or a rustup cargo earlier in PATH
# is not what CI or a Debian user has.
export PATH=/usr/bin:/bin:/usr/sbin:/sbin
export RUSTC=/usr/bin/rustc GOFLAGS=-mod=mod GOPROXY=off PYTHONDONTWRITEBYTECODE=1
SBX_LAUNCHER=$(realpath "${1:-build/default/sandbox-exec-launcher}") || exit 1
export SBX_LAUNCHER SANDBOX_EXEC_LAUNCHER=$SBX_LAUNCHER
. tests/lib.sh
unset SBX_AS_NOBODY

# What nobody runs lives in a fresh world-readable directory outside /tmp.
work=$(mktemp -d /var/tmp/sbx-bindings.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/home" "$work/run"
chown 65534:65534 "$work/home" 2>/dev/null
cp "$SBX_LAUNCHER" "$work/sandbox-exec-launcher"
log=$work/log

# step NAME CMD...: run CMD, time it, pass or fail with the end of its output.
step() {
  local name=$1 t0=$SECONDS got=0
  shift
  "$@" >"$log" 2>&1 || got=$?
  if [ "$got" = 0 ]; then pass "$name ($((SECONDS - t0)) s)"; else
    fail "$name: exit $got"; tail -25 "$log" | sed 's/^/    | /'
  fi
}

nobody_ok() { [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; }
# as_nobody CMD...: CMD as nobody, with the copied launcher.
as_nobody() {
  chmod -R a+rX "$work"
  (cd "$work/run" && setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
    env -i HOME="$work/home" PATH="$PATH" TMPDIR=/tmp PYTHONDONTWRITEBYTECODE=1 \
        SANDBOX_EXEC_LAUNCHER="$work/sandbox-exec-launcher" "$@")
}
# nobody NAME CMD...: the step as nobody, or the keyed skip where it cannot be.
nobody() {
  local name=$1
  shift
  if nobody_ok; then step "$name, as nobody" as_nobody "$@"
  elif ! have root; then skip "root: $name as nobody needs root to switch from"
  else skip "setpriv: $name as nobody needs setpriv"; fi
}

echo "== Python (/usr/bin/python3)"
if have python3; then
  cp -r bindings/python "$work/python"
  step "python: unittest" sh -c 'cd bindings/python && python3 -m unittest -v'
  # The pyproject builds with Debian's setuptools (no index, no isolation).
  step "python: pip install (Debian's setuptools, offline)" \
    python3 -m pip install -q --root-user-action=ignore --no-build-isolation --no-deps --no-index \
      --target "$work/pyinst" "$work/python"
  step "python: the installed package imports" \
    env PYTHONPATH="$work/pyinst" python3 -c 'import libsandbox, sys; sys.exit(libsandbox.__file__.find("pyinst") < 0)'
  nobody "python: unittest" sh -c 'cd ../python && python3 -m unittest'
else
  skip "python3: bindings/python needs Debian's python3"
fi

echo "== Node (/usr/bin/node)"
if have node; then
  cp -r bindings/node "$work/node"
  step "node: node --test" sh -c 'cd bindings/node && node --test test/libsandbox.test.js'
  # The package resolves by name (package.json exports) as an installed one would.
  mkdir -p "$work/nm/node_modules" && ln -s "$src/bindings/node" "$work/nm/node_modules/libsandbox"
  step "node: import 'libsandbox' by name" sh -c "cd '$work/nm' && node --input-type=module -e \"import { run, explain } from 'libsandbox'; if (typeof run !== 'function' || typeof explain !== 'function') process.exit(1)\""
  nobody "node: node --test" sh -c 'cd ../node && node --test test/libsandbox.test.js'
else
  skip "node: bindings/node needs Debian's nodejs"
fi

echo "== Go (/usr/bin/go)"
if have go; then
  step "go: vet and build" sh -c 'cd bindings/go && go vet ./... && go build ./...'
  step "go: go test" sh -c 'cd bindings/go && go test -count=1 ./...'
  step "go: test binary" sh -c "cd bindings/go && go test -c -o '$work/go.test' ."
  nobody "go: tests" ../go.test -test.count=1
else
  skip "go: bindings/go needs Debian's golang-go"
fi

echo "== Rust (/usr/bin/cargo, /usr/bin/rustc)"
if have cargo; then
  step "rust: cargo build --offline" sh -c 'cd bindings/rust && cargo build --offline'
  step "rust: cargo test --offline" sh -c 'cd bindings/rust && cargo test --offline'
  bin=$(cd bindings/rust && cargo test --offline --no-run 2>&1 | sed -n 's/.*Executable tests\/real.rs (\(.*\))/\1/p')
  if [ -n "$bin" ] && cp "bindings/rust/$bin" "$work/rust.test"; then
    nobody "rust: tests" ../rust.test
  else
    fail "rust: the test binary was not found"
  fi
else
  skip "cargo: bindings/rust needs Debian's cargo and rustc"
fi
finish
