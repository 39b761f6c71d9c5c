#!/usr/bin/env bash
# Git hooks planted from inside the sandbox (issue 18, second review): each
# case tries to leave a hook that a later UNCONFINED git runs, and the check
# is made from outside: an unconfined `git commit` must not run it. Every case
# first shows, unconfined, that the route would work (the control).
. "$SBX_TESTLIB"

proj=$_scratch/proj
home=$_home/home
mkdir -p "$proj" "$home"
cd "$proj" || exit 1
export HOME=$home
unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_DIR GIT_WORK_TREE
export GIT_CONFIG_NOSYSTEM=1
git config --global user.email t@example.invalid
git config --global user.name t
if ! "$L" --sandbox --protect-secrets -- true >"$_out" 2>"$_err"; then
  skip_all "guard: the launcher cannot confine with protected paths here: $(head -1 "$_err")"
fi
S=("$L" --sandbox --protect-secrets --project "$proj" --)
mark=$_scratch/pwned

# runs_hook REPO: an unconfined commit in REPO runs a planted hook.
runs_hook() {
  rm -f "$mark"
  git -C "$1" commit -q --allow-empty -m probe >/dev/null 2>&1 || true
  [ -e "$mark" ]
}
# attack NAME REPO SCRIPT [SUB [UNDO]]: SCRIPT (sh, in REPO) plants a hook;
# it must work unconfined on a copy, and fail under the sandbox (checked from
# outside by a commit in REPO/SUB). UNDO removes what the control planted
# outside the copy.
attack() {
  local name=$1 repo=$2 script=$3 sub=${4:-.} undo=${5:-true} copy=$_scratch/copy got=0
  rm -rf "$copy"; cp -a "$repo" "$copy"
  (cd "$copy" && MARK=$mark sh -c "$script") >/dev/null 2>&1 || true
  if runs_hook "$copy/$sub"; then pass "control: $name plants a hook unconfined"
  else fail "control: $name plants no hook even unconfined (the case proves nothing)"; fi
  rm -rf "$copy"; sh -c "$undo"
  (cd "$repo" && MARK=$mark "${S[@]}" sh -c "$script") >"$_out" 2>"$_err" || got=$?
  if runs_hook "$repo/$sub"; then fail "$name: a hook planted in the sandbox ran outside (exit $got)"
    sed 's/^/    | /' "$_err" | head -5
  else pass "$name: no hook planted (exit $got)"; fi
}
HOOK='printf "#!/bin/sh\ntouch \"$MARK\"\n"'

# ---- 4. the config parser: a key on the [section] line ----
r=$proj/r4
git init -q "$r"; mkdir -p "$r/.husky"; touch "$r/.husky/.keep"
printf '[core] hooksPath = .husky\n' >>"$r/.git/config"
[ "$(git -C "$r" config core.hooksPath)" = .husky ] && pass "4. git reads the one-line [core] hooksPath" \
  || fail "4. git does not read the one-line form (the case proves nothing)"
attack "4. [core] hooksPath on the section line" "$r" "$HOOK > .husky/pre-commit; chmod +x .husky/pre-commit"
rm -rf "$r"

# quoted value with a comment after it
r=$proj/r4b
git init -q "$r"; mkdir -p "$r/my hooks"
printf '[core]\n\thooksPath = "my hooks" ; the hooks\n' >>"$r/.git/config"
[ "$(git -C "$r" config core.hooksPath)" = "my hooks" ] && pass "4. git reads the quoted hooksPath" \
  || fail "4. git does not read the quoted hooksPath"
attack "4. quoted hooksPath with a comment" "$r" "$HOOK > 'my hooks/pre-commit'; chmod +x 'my hooks/pre-commit'"
rm -rf "$r"

# a benign comment is no refusal
r=$proj/r4c
git init -q "$r"; mkdir -p "$r/.husky"
printf '[core]\n\thooksPath = .husky # comment\n' >>"$r/.git/config"
expect_status 0 "4. hooksPath = .husky # comment starts" "${S[@]}" true
attack "4. hooksPath with a # comment" "$r" "$HOOK > .husky/pre-commit; chmod +x .husky/pre-commit"
rm -rf "$r"

# ---- 1. renaming a writable parent of a read-only bind ----
r=$proj/r1a
git init -q "$r"; mkdir -p "$r/tools/hooks"; touch "$r/tools/hooks/.keep"
git -C "$r" config core.hooksPath tools/hooks
attack "1. mv tools away, a new tools/hooks" "$r" \
  "mv tools tools.bak; mkdir -p tools/hooks; $HOOK > tools/hooks/pre-commit; chmod +x tools/hooks/pre-commit"
rm -rf "$r"

r=$proj/r1b
git init -q "$r"; mkdir -p "$r/scripts"; printf '#!/bin/sh\ntrue\n' >"$r/scripts/pre-commit"
chmod +x "$r/scripts/pre-commit"; ln -s ../../scripts/pre-commit "$r/.git/hooks/pre-commit"
attack "1. mv scripts away under a symlinked hook" "$r" \
  "mv scripts scripts.bak; mkdir scripts; $HOOK > scripts/pre-commit; chmod +x scripts/pre-commit"
rm -rf "$r"

r=$proj/r1c
mkdir -p "$r/libs"; git init -q "$r/libs/dep"
attack "1. mv libs away, a copy of the nested repo with a hook" "$r" \
  "mv libs libs.bak; mkdir libs; cp -a libs.bak/dep libs/dep; $HOOK > libs/dep/.git/hooks/pre-commit; chmod +x libs/dep/.git/hooks/pre-commit; rm -rf libs.bak" libs/dep
rm -rf "$r"
expect_status 0 "1. ordinary renames still work" "${S[@]}" sh -c "mkdir -p '$proj/m/a' && mv '$proj/m/a' '$proj/m/b'"

# ---- 3. config outside the repository's own .git/config ----
r=$proj/r3a
git init -q "$r"; mkdir -p "$r/.githooks"; touch "$r/.githooks/.keep"
git config --global core.hooksPath .githooks
attack "3. a relative core.hooksPath in ~/.gitconfig" "$r" "$HOOK > .githooks/pre-commit; chmod +x .githooks/pre-commit"
git config --global --unset core.hooksPath
rm -rf "$r"

# round 3: config in the environment (git 2.31+), read by the user's next git too
r=$proj/r3e
git init -q "$r"; mkdir -p "$r/hk"; touch "$r/hk/.keep"
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=hk
attack "3. core.hooksPath in GIT_CONFIG_KEY_0/VALUE_0" "$r" "$HOOK > hk/pre-commit; chmod +x hk/pre-commit"
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
rm -rf "$r"

# a linked worktree whose main repository is outside the project (and in a
# writable directory nobody scans)
main=$(mktemp -d /tmp/sbx-wt.XXXXXX)/main
git init -q "$main"; git -C "$main" commit -q --allow-empty -m init
git -C "$main" worktree add -q "$proj/wt" -b wt 2>/dev/null
attack "3. a hook in the common git dir of a linked worktree" "$proj/wt" \
  'D=$(git rev-parse --git-common-dir); printf "#!/bin/sh\ntouch \"$MARK\"\n" > "$D/hooks/pre-commit"; chmod +x "$D/hooks/pre-commit"' . "rm -f '$main/.git/hooks/pre-commit'"
mkdir -p "$main/.hk"; touch "$main/.hk/.keep"
git -C "$main" config core.hooksPath "$main/.hk"
attack "3. core.hooksPath of the main repository of a worktree" "$proj/wt" \
  "$HOOK > '$main/.hk/pre-commit'; chmod +x '$main/.hk/pre-commit'" . "rm -f '$main/.hk/pre-commit'"
git -C "$main" worktree remove --force "$proj/wt"; rm -rf "${main%/main}"

# ---- 2. symlinks inside .git ----
r=$proj/r2a
git init -q "$r"; mkdir -p "$r/githooks"; touch "$r/githooks/.keep"
rm -rf "$r/.git/hooks"; ln -s ../githooks "$r/.git/hooks"
attack "2. .git/hooks is a symlink" "$r" "$HOOK > githooks/pre-commit; chmod +x githooks/pre-commit"
rm -rf "$r"

r=$proj/r2b
git init -q "$r"; mkdir -p "$r/hk"; touch "$r/hk/.keep"
mv "$r/.git/config" "$r/repo.gitconfig"; ln -s ../repo.gitconfig "$r/.git/config"
attack "2. .git/config is a symlink" "$r" \
  "printf '[core]\\n\\thooksPath = hk\\n' >> repo.gitconfig; $HOOK > hk/pre-commit; chmod +x hk/pre-commit"
rm -rf "$r"

# ---- 5. every root is scanned, however many ----
args=()
for i in $(seq 1 70); do mkdir -p "$_scratch/a$i"; args+=(--add-dir "$_scratch/a$i"); done
echo sbx-a70-secret-9c1 >"$_scratch/a70/.env"
got=0
"$L" --sandbox --protect-secrets --project "$proj" "${args[@]}" -- cat "$_scratch/a70/.env" >"$_out" 2>"$_err" || got=$?
if grep -q sbx-a70-secret-9c1 "$_out"; then fail "5. the 70th --add-dir's .env was read"
else pass "5. the 70th --add-dir's .env stays hidden (exit $got)"; fi

# ---- 7. hook managers' files next to .git ----
r=$proj/r7
git init -q "$r"; mkdir -p "$r/.husky/_"
printf '#!/bin/sh\ntrue\n' >"$r/.husky/_/pre-commit"; chmod +x "$r/.husky/_/pre-commit"
git -C "$r" config core.hooksPath .husky/_
printf 'repos: []\n' >"$r/.pre-commit-config.yaml"; printf 'pre-commit: {}\n' >"$r/lefthook.yml"
attack "7. rewrite husky's .husky/_/pre-commit" "$r" "$HOOK > .husky/_/pre-commit"
git -C "$r" config --unset core.hooksPath
for f in .pre-commit-config.yaml lefthook.yml; do
  expect_status 1 "7. $f cannot be written" "${S[@]}" sh -c "cd '$r' && { echo x >> $f; } 2>/dev/null || exit 1"
done
rm -rf "$r"

# ---- 8. (round 3) a symlink on the way git resolves a path ----
# The read-only bind holds the real target; the link itself lies in the
# writable work tree, and git follows it by name every time.
r=$proj/r8a
git init -q "$r"; mkdir -p "$r/scripts/hooks"; touch "$r/scripts/hooks/.keep"
ln -s scripts/hooks "$r/.husky"; git -C "$r" config core.hooksPath .husky
attack "8. core.hooksPath is a symlink: replace it" "$r" \
  "rm .husky; mkdir evil; $HOOK > evil/pre-commit; chmod +x evil/pre-commit; ln -s evil .husky"
attack "8. core.hooksPath is a symlink: rename another link onto it" "$r" \
  "mkdir evil; $HOOK > evil/pre-commit; chmod +x evil/pre-commit; ln -s evil tmp; mv -T tmp .husky"
attack "8. core.hooksPath is a symlink: move it away, a directory in its place" "$r" \
  "mv .husky old; mkdir .husky; $HOOK > .husky/pre-commit; chmod +x .husky/pre-commit"
rm -rf "$r"

r=$proj/r8b
git init -q "$r"; mkdir -p "$r/real/hooks"; touch "$r/real/hooks/.keep"
ln -s real "$r/tools"; git -C "$r" config core.hooksPath tools/hooks
attack "8. a symlinked parent of core.hooksPath (tools -> real): replace tools" "$r" \
  "rm tools; mkdir -p evil/hooks; $HOOK > evil/hooks/pre-commit; chmod +x evil/hooks/pre-commit; ln -s evil tools"
rm -rf "$r"

r=$proj/r8c
git init -q "$r"; mkdir -p "$r/conf" "$r/hk"; touch "$r/hk/.keep"
printf '[user]\n\tname = t\n' >"$r/conf/local.cfg"; ln -s conf/local.cfg "$r/.gitconfig.local"
git -C "$r" config include.path ../.gitconfig.local
attack "8. an [include] path that is a symlink: point it at a new config" "$r" \
  "printf '[core]\\n\\thooksPath = hk\\n' > evil.cfg; $HOOK > hk/pre-commit; chmod +x hk/pre-commit; ln -sf evil.cfg .gitconfig.local"
rm -rf "$r"

# ---- 9. (round 3) a program the config names by a path in the work tree ----
r=$proj/r9
git init -q "$r"; printf '#!/bin/sh\nexit 0\n' >"$r/fsmon.sh"; chmod +x "$r/fsmon.sh"
git -C "$r" config core.fsmonitor ./fsmon.sh
attack "9. core.fsmonitor = ./fsmon.sh: rewrite the script" "$r" \
  'printf "#!/bin/sh\ntouch \"$MARK\"\nexit 0\n" > fsmon.sh'
git -C "$r" config --unset core.fsmonitor
git -C "$r" config diff.x.textconv ./missing-conv.sh
expect_status 126 "9. a textconv program missing in the work tree refuses to start" \
  sh -c 'cd "$1" && shift && exec "$@"' x "$r" "${S[@]}" true
expect_output_has "diff.textconv" "9. ... naming the setting"
# File system not confined: a missing program refuses only where the user could
# create it (root can make /nonexistent-p18; nobody cannot, and a shared
# dotfile naming /opt/homebrew/bin/... must not refuse a normal user).
git -C "$r" config diff.x.textconv /nonexistent-p18/conv.sh
if [ "$(id -u)" = 0 ]; then want=126; else want=0; fi
expect_status $want "9. file system not confined (--no-network), a missing program outside the project: exit $want as uid $(id -u)" \
  sh -c 'cd "$1" && shift && exec "$@"' x "$r" "$L" --no-network --protect-secrets --project "$proj" -- true
git -C "$r" config --unset diff.x.textconv
git -C "$r" config core.pager "less -R"
git -C "$r" config alias.st status
expect_status 0 "9. programs found in PATH and plain aliases start as before" \
  sh -c 'cd "$1" && shift && exec "$@"' x "$r" "${S[@]}" true
rm -rf "$r"

# ---- 10. (round 3) a bare repository in the project: a local remote ----
r=$proj/r10
mkdir -p "$r"; git init -q --bare "$r/remote.git"; git init -q "$r/work"
git -C "$r/work" commit -q --allow-empty -m init
git -C "$r/work" remote add origin ../remote.git
git -C "$r/work" push -q origin HEAD:main 2>/dev/null
# pushes REPO: an unconfined push from REPO/work runs a planted receive hook.
pushes() {
  rm -f "$mark"
  git -C "$1/work" commit -q --allow-empty -m probe >/dev/null 2>&1
  git -C "$1/work" push -q origin HEAD:main >/dev/null 2>&1 || true
  [ -e "$mark" ]
}
plant='printf "#!/bin/sh\ntouch \"$MARK\"\n" > remote.git/hooks/post-receive; chmod +x remote.git/hooks/post-receive'
rm -rf "$_scratch/copy"; cp -a "$r" "$_scratch/copy"
(cd "$_scratch/copy" && MARK=$mark sh -c "$plant") >/dev/null 2>&1
if pushes "$_scratch/copy"; then pass "control: 10. a post-receive hook planted in a bare repository runs on push"
else fail "control: 10. the planted receive hook did not run (the case proves nothing)"; fi
rm -rf "$_scratch/copy"
(cd "$r" && MARK=$mark "$L" --sandbox --protect-secrets --project "$r" -- sh -c "$plant") >"$_out" 2>"$_err" || true
if pushes "$r"; then fail "10. a hook planted in the bare repository ran on an unconfined push"
else pass "10. no hook planted in the bare repository"; fi
rm -rf "$r"

# ---- 6. a link to / or /proc is not a denial of service ----
ln -s / "$proj/rootlink"; ln -s /proc "$proj/proclink"
echo sbx-env-6-secret >"$proj/.env"
expect_status 0 "6. a link to / and to /proc do not refuse the launch" "${S[@]}" true
expect_output_has "did not follow" "6. ... and the launch says which link it did not follow"
got=0; "${S[@]}" cat "$proj/.env" >"$_out" 2>"$_err" || got=$?
grep -q sbx-env-6-secret "$_out" && fail "6. .env was read next to a link to /" || pass "6. .env stays masked (exit $got)"
rm -f "$proj/rootlink" "$proj/proclink" "$proj/.env"
# Round 3: the same denial of service through a system tree or the home,
# which are not ancestors of the project (every later launch walked all of
# /usr, 180,000 entries, or all of the home, or refused past 200,000).
ln -s /usr "$proj/usrlink"; ln -s "$HOME" "$proj/homelink"
expect_status 0 "6. links to /usr and to the home do not refuse the launch" "${S[@]}" true
if grep -q "followed [0-9]* symlink.*-> /usr" "$_err" || grep -q "followed [0-9]* symlink.*homelink" "$_err"; then
  fail "6. /usr or the home was walked through a planted link"; sed 's/^/    | /' "$_err" | head -3
else pass "6. neither /usr nor the home is walked through a planted link"; fi
expect_output_has "did not follow" "6. ... and the launch says so"
rm -f "$proj/usrlink" "$proj/homelink"

finish
