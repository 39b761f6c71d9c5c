#!/usr/bin/env bash
# Git hooks planted from inside the sandbox (issue 18, second review): each
# case tries to leave a hook that a later UNCONFINED git runs, and the check
# is made from outside: an unconfined `git commit` must not run it. Every case
# first shows, unconfined, that the route would work (the control).
. "$SBX_TESTLIB"

proj=$_scratch/proj
home=$_scratch/home
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
# attack NAME REPO SCRIPT [SUB]: SCRIPT (sh, in REPO) plants a hook; it must
# work unconfined on a copy, and fail under the sandbox (checked from outside
# by a commit in REPO/SUB).
attack() {
  local name=$1 repo=$2 script=$3 sub=${4:-.} copy=$_scratch/copy got=0
  rm -rf "$copy"; cp -a "$repo" "$copy"
  (cd "$copy" && MARK=$mark sh -c "$script") >/dev/null 2>&1 || true
  if runs_hook "$copy/$sub"; then pass "control: $name plants a hook unconfined"
  else fail "control: $name plants no hook even unconfined (the case proves nothing)"; fi
  rm -rf "$copy"
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

# ---- 5. every root is scanned, however many ----
args=()
for i in $(seq 1 70); do mkdir -p "$_scratch/a$i"; args+=(--add-dir "$_scratch/a$i"); done
echo sbx-a70-secret-9c1 >"$_scratch/a70/.env"
got=0
"$L" --sandbox --protect-secrets --project "$proj" "${args[@]}" -- cat "$_scratch/a70/.env" >"$_out" 2>"$_err" || got=$?
if grep -q sbx-a70-secret-9c1 "$_out"; then fail "5. the 70th --add-dir's .env was read"
else pass "5. the 70th --add-dir's .env stays hidden (exit $got)"; fi

finish
