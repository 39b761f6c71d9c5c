#!/usr/bin/env bash
# Build the launcher and confine a few real commands on this machine, showing
# what the kernel allowed and what it refused.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset default >/dev/null
cmake --build --preset default -j"$(nproc)" --target sandbox-exec-launcher >/dev/null
L=$PWD/build/default/sandbox-exec-launcher

proj=$(mktemp -d /tmp/sbx-demo-project.XXXXXX)
outside=$(mktemp -d /var/tmp/sbx-demo-outside.XXXXXX)
trap 'rm -rf "$proj" "$outside"' EXIT
cd "$proj"

run() { # run DESCRIPTION COMMAND...: show a command and what became of it
  local what=$1 status=0
  shift
  printf '\n$ %s\n' "$what"
  "$@" || status=$?
  if [ "$status" -eq 0 ]; then echo "  -> allowed (exit 0)"
  elif [ "$status" -gt 128 ]; then echo "  -> refused: killed by signal $((status - 128)) ($(kill -l $((status - 128)) 2>/dev/null || echo ?))"
  else echo "  -> refused (exit $status)"; fi
}

echo "== What this machine enforces"
"$L" --self-test

echo
echo "== The default sandbox (--sandbox): writes only in the project and temp dirs, no network"
echo "   project: $proj"
run "echo hello > notes.txt  (inside the project)" "$L" -- sh -c 'echo hello > notes.txt && cat notes.txt'
run "git init && git commit  (inside the project)" "$L" -- sh -c 'git init -q . && git -c user.name=demo -c user.email=demo@example.invalid commit -q --allow-empty -m first && git log --oneline'
run "echo pwned > $outside/stolen.txt  (outside every writable root)" "$L" -- sh -c "echo pwned > '$outside/stolen.txt'"
run "python3: open an internet socket" "$L" -- python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM); print("socket created")'
run "python3: open a local AF_UNIX socket" "$L" -- python3 -c 'import socket; socket.socket(socket.AF_UNIX); print("unix socket ok")'
[ -e "$outside/stolen.txt" ] && echo "!! the outside file exists: confinement failed" || echo "   (checked from outside: $outside/stolen.txt was never created)"

echo
echo "== Read-only mode (--read-only): reads and exec only"
run "ls and cat  (reading)" "$L" --read-only -- sh -c 'ls >/dev/null && cat notes.txt'
run "touch new-file" "$L" --read-only -- touch new-file
run "chmod 600 notes.txt" "$L" --read-only -- chmod 600 notes.txt

echo
echo "== Protected secrets (--protect-secrets): unreadable and unwritable even inside the project"
echo "API_KEY=demo-secret-value" >.env
run "cat .env  (an existing secret)" "$L" --protect-secrets -- cat .env
run "echo X > .env.production  (a new secret file, refused by the creation guard)" \
  "$L" --protect-secrets -- sh -c 'echo X > .env.production'
run "echo ok > readme.txt  (ordinary writes still work)" "$L" --protect-secrets -- sh -c 'echo ok > readme.txt'
[ -e .env.production ] && echo "!! .env.production exists: the guard failed" || echo "   (checked from outside: .env.production was never created)"

echo
echo "== What --explain prints instead of running (no side effects)"
"$L" --explain --sandbox -- make test | sed 's/^/   /'
