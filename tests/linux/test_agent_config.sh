#!/usr/bin/env bash
# Editor and agent configuration under --protect-secrets (issue 23): readable,
# not writable, and not creatable when missing (.vscode, .idea, .mcp.json,
# .claude, .codex, .cursor, .gemini, .devcontainer), not beneath
# node_modules; .github/workflows stays writable; --protect-write,
# --unprotect; and --git-writable: git add and git commit work while what
# makes git run code stays read-only. Every refusal is first shown working
# unconfined, and checked from outside by what is on disk.
. "$SBX_TESTLIB"

base=$(mktemp -d /var/tmp/sbx-agent.XXXXXX)
chmod 755 "$base"
trap 'cd /; rm -rf "$base"' EXIT
export HOME=$base/home
p=$base/proj
mkdir -p "$HOME" "$p/.vscode" "$p/.claude" "$p/.github/workflows"
echo '{"a":1}' >"$p/.vscode/settings.json"
echo '{"hooks":{}}' >"$p/.claude/settings.json"
(cd "$p" && git init -q . && git config user.email t@t && git config user.name t &&
  echo one >a.txt && git add a.txt && git commit -qm one) || { echo "git setup failed"; exit 1; }
cd "$p" || exit 1

require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets -- true
S=("$L" --sandbox --protect-secrets --project "$p")

# probe NAME CMD: CMD (a shell line) works unconfined in a copy of the
# project, and is refused confined (exit 1), leaving nothing behind.
probe() {
  local name=$1 cmd=$2 c=$base/copy
  rm -rf "$c"
  cp -a "$p" "$c"
  expect_status 0 "unconfined: $name" sh -c "cd '$c' && { $cmd; }"
  rm -rf "$c"
  expect_status 1 "--protect-secrets: $name is refused" "${S[@]}" -- sh -c "{ $cmd; } 2>/dev/null || exit 1"
}

expect_status 0 "the settings stay readable" "${S[@]}" -- cat .vscode/settings.json .claude/settings.json
expect_output_has '"a":1' "  ...their content came through"
probe "rewriting .vscode/settings.json" 'echo "{}" > .vscode/settings.json'
grep -q '"a":1' .vscode/settings.json && pass "  ...the file is unchanged" || fail "  ...it changed"
probe "adding .vscode/tasks.json" 'echo "{}" > .vscode/tasks.json'
[ ! -e .vscode/tasks.json ] && pass "  ...no tasks.json appeared" || fail "  ...tasks.json appeared"
probe "rewriting .claude/settings.json (hooks)" 'echo "{\"hooks\":1}" >> .claude/settings.json'
probe "removing .claude" 'rm -rf .claude'
[ -f .claude/settings.json ] && pass "  ...it is still there" || fail "  ...it was removed"
for n in .mcp.json .idea .codex .cursor .gemini .devcontainer .devcontainer.json app.code-workspace; do
  probe "creating $n" "mkdir '$n' || echo '{}' > '$n'"
  [ ! -e "$n" ] && pass "  ...no $n appeared" || { fail "  ...$n appeared"; rm -rf "$n"; }
done
probe "renaming a folder into .vscode's place" 'rm -rf .vscode && mkdir v && mv v .vscode'
probe "a symlink named .mcp.json" 'ln -s /tmp/x .mcp.json'
[ ! -L .mcp.json ] && pass "  ...no link appeared" || { fail "  ...a link appeared"; rm -f .mcp.json; }
probe "creating .vscode in a subfolder" 'mkdir -p sub && mkdir sub/.vscode'
[ ! -e sub/.vscode ] && pass "  ...no sub/.vscode" || fail "  ...sub/.vscode appeared"
rm -rf sub

expect_status 0 "packages' own .vscode under node_modules can be written" "${S[@]}" -- \
  sh -c 'mkdir -p node_modules/pkg/.vscode && echo x > node_modules/pkg/.vscode/settings.json && echo "{}" > node_modules/pkg/.mcp.json'
[ -f node_modules/pkg/.vscode/settings.json ] && pass "  ...it was written" || fail "  ...it was not"
expect_status 0 "  ...and a later launch scans them without a mask" "${S[@]}" -- \
  sh -c 'echo y >> node_modules/pkg/.vscode/settings.json'
rm -rf node_modules
# A package's folder moved out of node_modules brings what it holds into the
# project, where those names are refused (issue 23, F4).
probe "a package holding .claude/ renamed out of node_modules" \
  'mkdir -p node_modules/pkg/.claude && echo "{\"hooks\":1}" > node_modules/pkg/.claude/settings.json && mv node_modules/pkg sub'
[ ! -e sub ] && pass "  ...no sub/.claude" || { fail "  ...sub appeared"; rm -rf sub; }
rm -rf node_modules
probe "node_modules itself renamed, a package's .vscode deep inside" \
  'mkdir -p node_modules/a/b/c/.vscode && mv node_modules nm'
[ ! -e nm ] && pass "  ...no nm/a/b/c/.vscode" || { fail "  ...nm appeared"; rm -rf nm; }
rm -rf node_modules
probe "a package holding .mcp.json renamed out of node_modules by python" \
  'mkdir -p node_modules/p2 && echo "{}" > node_modules/p2/.mcp.json && python3 -c "import os; os.rename(\"node_modules/p2\", \"p2\")"'
rm -rf node_modules p2
XCHG='import ctypes, os
nr = {"x86_64": 316, "aarch64": 276}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)
if libc.syscall(nr, -100, b"node_modules/p3", -100, b"sub3", 2) != 0:
    raise SystemExit(os.strerror(ctypes.get_errno()))'
probe "a package holding .cursor/ swapped out of node_modules (RENAME_EXCHANGE)" \
  "mkdir -p node_modules/p3/.cursor sub3 && python3 -c '$XCHG'"
[ ! -e sub3/.cursor ] && pass "  ...no sub3/.cursor" || fail "  ...sub3/.cursor appeared"
rm -rf node_modules sub3
expect_status 0 "packages still move inside node_modules, and out when they hold no such name" "${S[@]}" -- \
  sh -c 'mkdir -p node_modules/pkg/.vscode node_modules/plain/lib node_modules/nest/node_modules/x/.idea &&
    mv node_modules/pkg node_modules/pkg2 && mv node_modules/plain lib && mv node_modules/nest nest &&
    test -d node_modules/pkg2/.vscode && test -d lib/lib && test -d nest/node_modules/x/.idea'
rm -rf node_modules lib nest
expect_status 0 ".github/workflows stays writable (code review's job)" "${S[@]}" -- \
  sh -c 'echo "on: push" > .github/workflows/ci.yml'
[ -f .github/workflows/ci.yml ] && pass "  ...the workflow was written" || fail "  ...it was not"

# The host adjusts the set.
expect_status 0 "--unprotect .vscode makes it writable again" "$L" --sandbox --protect-secrets --unprotect .vscode \
  --project "$p" -- sh -c 'echo "{\"b\":2}" > .vscode/settings.json'
grep -q '"b":2' .vscode/settings.json && pass "  ...and it was written" || fail "  ...it was not written"
expect_status 2 "--unprotect of a pattern that is not protected is a usage error" \
  "$L" --sandbox --protect-secrets --unprotect .nothing -- true
expect_status 0 "unconfined: creating notes/ works" sh -c 'mkdir notes && rmdir notes'
expect_status 1 "--protect-write notes: creating it is refused" \
  "$L" --sandbox --protect-write notes --project "$p" -- sh -c 'mkdir notes 2>/dev/null || exit 1'
[ ! -e notes ] && pass "  ...no notes/ appeared" || fail "  ...notes/ appeared"
mkdir notes
echo a >notes/n.txt
expect_status 1 "  ...and writing into an existing one is refused" \
  "$L" --sandbox --protect-write notes --project "$p" -- sh -c 'echo b >> notes/n.txt 2>/dev/null || exit 1'
expect_status 0 "  ...while it stays readable" "$L" --sandbox --protect-write notes --project "$p" -- cat notes/n.txt
rm -rf notes

# ---- .git: read-only by default, writable but for its code with --git-writable ----
echo two >b.txt
expect_status 128 "--protect-secrets: git add is refused" "${S[@]}" -- git add b.txt
G=("$L" --sandbox --protect-secrets --git-writable --project "$p")
expect_status 0 "--git-writable: git add and git commit work" "${G[@]}" -- \
  sh -c 'git add b.txt && git commit -qm two'
[ "$(git log --oneline | wc -l)" = 2 ] && pass "  ...the commit is there" || fail "  ...no commit"
# gprobe NAME CMD: works unconfined in a copy, refused with --git-writable.
gprobe() {
  local name=$1 cmd=$2 c=$base/copy
  rm -rf "$c"
  cp -a "$p" "$c"
  expect_status 0 "unconfined: $name" sh -c "cd '$c' && { $cmd; }"
  rm -rf "$c"
  expect_status 1 "--git-writable: $name is refused" "${G[@]}" -- sh -c "{ $cmd; } 2>/dev/null || exit 1"
}
gprobe "a pre-commit hook" 'printf "#!/bin/sh\ntouch /tmp/pwned\n" > .git/hooks/pre-commit'
[ ! -e .git/hooks/pre-commit ] && pass "  ...no hook appeared" || fail "  ...a hook appeared"
gprobe "core.fsmonitor in .git/config" 'git config core.fsmonitor "touch /tmp/pwned"'
grep -q fsmonitor .git/config && fail "  ...the config changed" || pass "  ...the config is unchanged"
gprobe "an alias in .git/config (rename over it)" 'cp .git/config c && echo "[alias] st = !touch /tmp/pwned" >> c && mv c .git/config'
gprobe "a .git/commondir pointing elsewhere" 'echo /tmp > .git/commondir'
[ ! -e .git/commondir ] && pass "  ...no commondir appeared" || fail "  ...a commondir appeared"
gprobe "a .git/config.worktree" 'echo "[core] fsmonitor = x" > .git/config.worktree'
gprobe "info/attributes" 'echo "* filter=x" > .git/info/attributes'
gprobe "a submodule's hooks in .git/modules" 'mkdir -p .git/modules/s/hooks'
gprobe "moving .git away to put another in its place" 'mv .git .git.old && mkdir .git'
[ -d .git/hooks ] && [ ! -e .git.old ] && pass "  ...the repository is where it was" || fail "  ...it was moved"
gprobe "moving hooks away" 'mv .git/hooks .git/h'
expect_status 0 "--git-writable: git status, log and branch work" "${G[@]}" -- \
  sh -c 'git status --porcelain >/dev/null && git log --oneline >/dev/null && git branch b2 && git branch -D b2 >/dev/null'
# A worktree's .git file points git at its git directory: read-only whole.
mkdir -p "$base/wt"
git worktree add -q "$base/wt/w" 2>/dev/null || git worktree add "$base/wt/w" >/dev/null 2>&1
if [ -f "$base/wt/w/.git" ]; then
  expect_status 0 "unconfined: a worktree's .git file can be rewritten" \
    sh -c "cp '$base/wt/w/.git' '$base/g' && echo 'gitdir: /tmp' > '$base/wt/w/.git' && cp '$base/g' '$base/wt/w/.git'"
  expect_status 1 "--git-writable: a worktree's .git file is read-only" \
    "$L" --sandbox --protect-secrets --git-writable --project "$base/wt/w" -- \
    sh -c "cd '$base/wt/w' && echo 'gitdir: /tmp' > .git 2>/dev/null || exit 1"
  grep -q "gitdir: $p" "$base/wt/w/.git" && pass "  ...it still points at the repository" || fail "  ...it was rewritten"
else
  fail "git worktree add did not make a worktree"
fi
finish
