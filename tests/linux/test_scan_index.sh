#!/usr/bin/env bash
# The pre-flight index (src/scanindex.c) end to end: a second launch on an
# unchanged tree reuses what the first one's scans saw, and every kind of
# change between two launches is seen by the second, whoever made it: a new
# secret, a rename into a protected name, a new hard link from outside, a
# directory made unlistable, a symlink swapped (in the project, or outside
# on the way to where it leads), a hard link a sandboxed command made into a
# root the next launch lacks, a change whose directory mtime was put back.
# A sandboxed command can neither write the index nor turn a stale one into
# a pass (chmod, corruption), and no writable root may reach it.
. "$SBX_TESTLIB"
SECRET=sbx-secret-index-5e1f

# Outside /tmp: every confined launch may write /tmp, so a project there is
# one any launch could link out of, and its hard-link index is never reused
# while other launches with other roots have run (scanledger.c).
# Root's trees in a new folder of "/": the ledger of this boot is root's,
# shared with every earlier root launch, and one whose working directory was
# /var/tmp (a root reaching every tree there) rightly keeps the hard-link
# index from being trusted for the rest of the boot. Only "/" reaches a new
# folder of "/", and "/" is never a root.
if [ "$(id -u)" = 0 ]; then base=$(mktemp -d /sbx-index.XXXXXX); else base=$(mktemp -d /var/tmp/sbx-index.XXXXXX); fi
chmod 755 "$base"
trap 'chmod -R u+rwx "$base" 2>/dev/null; rm -rf "$base"' EXIT
proj=$base/proj
out=$base/outside
mkdir -p "$proj"/{src,sub,keys} "$base/scratch" "$base/home" "$out"/{plain,secrets,hop1,hop2}
echo "$SECRET" >"$proj/sub/.env"
echo "$SECRET" >"$out/secrets/.env"
echo "$SECRET" >"$out/hop2/id_rsa"
echo plain >"$out/plain/readme"
echo plain >"$out/hop1/readme"
echo notes >"$proj/notes.txt"
echo code >"$proj/src/main.c"
echo rc >"$out/rc"
ln -s "$out/plain" "$proj/link"
ln -s "$out/hop" "$proj/far"
ln -s hop1 "$out/hop"
export HOME=$base/home
cd "$proj" || exit 1

# The index directory: .libsandbox in the account's home, or in $HOME when
# the account has no home of its own (nobody).
acct=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -n "$acct" ] && [ -d "$acct" ] && [ -O "$acct" ]; then IDX=$acct/.libsandbox; else IDX=$HOME/.libsandbox; fi

require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets -- true
S=("$L" --sandbox --protect-secrets --scan-hardlinks --project "$proj" --workdir "$proj"
   --scratch "$base/scratch")

# This test's index files: the ones whose question names this project.
idx() { grep -lsF -- "$proj" "$IDX"/"$1"-*.idx 2>/dev/null | head -1; }
ino() { local f; f=$(idx "$1"); [ -n "$f" ] && stat -c %i "$f"; }
# launch NAME WANT CMD...: run CMD confined, want exit WANT; remember whether
# the index files were kept (reused) or rewritten.
launch() {
  local name=$1 want=$2 m0 l0
  shift 2
  m0=$(ino mask) l0=$(ino links)
  expect_status "$want" "$name" "${S[@]}" "$@"
  reused_mask=0 reused_links=0
  [ -n "$m0" ] && [ "$m0" = "$(ino mask)" ] && reused_mask=1
  [ -n "$l0" ] && [ "$l0" = "$(ino links)" ] && reused_links=1
}
no_secret() {
  if grep -qF "$SECRET" "$_out" "$_err"; then fail "$1: the secret reached the output"; else pass "$1: no secret in the output"; fi
}
# settle: let the coarse clock move past what was just changed, so the next
# scan does not find it "racy" and decline to store an index (legitimate,
# but then a launch after it would prove nothing).
settle() { sleep 0.05; }
# warm NAME: a launch on the unchanged tree reuses both indexes.
warm() {
  launch "$1: runs" 0 true
  if [ "$reused_mask" = 1 ] && [ "$reused_links" = 1 ]; then pass "$1: both indexes reused"
  else fail "$1: an index was rebuilt on an unchanged tree (mask $reused_mask, links $reused_links)"; fi
}

# ---- cold, then warm ----
expect_status 0 "unconfined: the secret is readable" cat sub/.env
launch "first launch: .env is masked" 1 cat sub/.env
no_secret "first launch"
[ -n "$(idx mask)" ] && pass "the protected-path index was written to $IDX" || fail "no protected-path index in $IDX"
[ -n "$(idx links)" ] && pass "the hard-link index was written" || fail "no hard-link index in $IDX"
settle
launch "second launch: .env is still masked" 1 cat sub/.env
no_secret "second launch"
[ "$reused_mask" = 1 ] && pass "the second launch reused the protected-path index" || fail "the protected-path index was rebuilt on an unchanged tree"
warm "third launch"
mode=$(stat -c %a "$IDX")
[ "$mode" = 700 ] && pass "the index directory is private (700)" || fail "the index directory is mode $mode"

# ---- every kind of change, each seen by the next launch ----
echo "$SECRET" >"$proj/sub/id_ed25519"
launch "a new secret in a listed directory is masked" 1 cat sub/id_ed25519
no_secret "new secret"
[ "$reused_mask" = 0 ] && pass "the change rebuilt the index" || fail "the index was reused after a change"
settle; warm "after the new secret"

mkdir -p "$proj/deep/er"
echo "$SECRET" >"$proj/deep/er/server.key"
launch "a secret in a new directory is masked" 1 cat deep/er/server.key
no_secret "new directory"
settle; warm "after the new directory"

mv "$proj/notes.txt" "$proj/src/.env.local"
launch "a rename into a protected name is masked" 1 cat src/.env.local
settle
mv "$proj/keys" "$proj/.ssh"
echo "$SECRET" >"$out/keyfile" && cp "$out/keyfile" "$proj/.ssh/config"
launch "a directory renamed into a protected name is masked" 1 cat .ssh/config
no_secret "renamed directory"
settle; warm "after the renames"

ln "$out/rc" "$proj/src/rc-copy"
launch "a new hard link from outside is refused" 126 true
expect_output_has "hard-linked" "the refusal says why"
rm "$proj/src/rc-copy"
settle; "${S[@]}" true >/dev/null 2>&1; settle; warm "after the link is gone"

# The symlink itself swapped: its directory changes.
ln -sfn "$out/secrets" "$proj/link"
launch "a swapped symlink's new target is masked" 1 cat link/.env
no_secret "swapped symlink"
settle; warm "after the swap"
# A link outside the project on the way swapped: no project directory
# changes, the index resolves such links again.
expect_status 0 "unconfined: far/ leads to a plain folder" cat far/readme
ln -sfn hop2 "$out/hop"
launch "a swap outside, on the way of a project link, is seen" 1 cat far/id_rsa
no_secret "swap outside"
[ "$reused_mask" = 0 ] && pass "the outside swap rebuilt the index" || fail "the index was reused after the outside swap"
settle; warm "after the outside swap"

# A directory made unlistable: its ctime changes.
mkdir "$proj/locked" && echo "$SECRET" >"$proj/locked/.env"
settle; launch "a listable folder with a secret" 1 cat locked/.env
settle; warm "before the chmod"
chmod 000 "$proj/locked"
if have dac_enforced; then
  launch "an own folder made unlistable refuses the next launch" 126 true
  expect_output_has "cannot scan" "the refusal names the scan"
else
  # Root lists it anyway: the answer stays, but the index must be checked.
  launch "a folder made unlistable: the next launch scans again" 0 true
  [ "$reused_mask" = 0 ] && [ "$reused_links" = 0 ] && pass "the chmod rebuilt both indexes" ||
    fail "an index was reused after the chmod (mask $reused_mask, links $reused_links)"
fi
chmod 755 "$proj/locked"
settle; "${S[@]}" true >/dev/null 2>&1; settle; warm "after the folder is listable again"

# Directory mtime put back after the change: ctime cannot be put back.
touch -d @1500000000 "$proj/src"
settle; "${S[@]}" true >/dev/null 2>&1; settle; warm "with an old mtime on src"
echo "$SECRET" >"$proj/src/.netrc"
touch -d @1500000000 "$proj/src"
launch "a secret whose directory mtime was reset is masked" 1 cat src/.netrc
no_secret "mtime reset"

# ---- a sandboxed command, one launch, trying to fool the next ----
settle; warm "before the attacks"
mfile=$(idx mask) lfile=$(idx links)
sum0=$(cat "$mfile" "$lfile" | md5sum)
expect_status 1 "confined: overwriting the index is refused" "${S[@]}" sh -c "echo x > '$mfile' || exit 1"
expect_status 1 "confined: a new file in the index directory is refused" "${S[@]}" sh -c "echo x > '$IDX/evil.idx' || exit 1"
expect_status 1 "confined: removing the index is refused" "${S[@]}" sh -c "rm -f '$mfile' && exit 0 || exit 1"
expect_status 1 "confined: linking the index into the project is refused" "${S[@]}" sh -c "ln '$mfile' x || exit 1"
expect_status 1 "confined: the ledger cannot be truncated" "${S[@]}" sh -c "truncate -s 0 '$IDX'/ledger-* || exit 1"
[ "$(cat "$mfile" "$lfile" | md5sum)" = "$sum0" ] && pass "the index is unchanged after the attempts" ||
  fail "a confined command changed the index"
# chmod is not checked by Landlock: a command may open the index to others;
# root's, outside the roots, is on a read-only mount.
if [ "$(id -u)" = 0 ]; then
  expect_status 1 "confined root: chmod of the index is refused (read-only mount)" "${S[@]}" \
    sh -c "chmod 666 '$mfile' || exit 1"
  expect_output_has "Read-only file system" "... with EROFS"
  chmod 666 "$mfile"; chmod 777 "$IDX"   # made from outside, for the checks below
else
  expect_status 0 "confined: chmod of the index succeeds (metadata is not confined)" "${S[@]}" \
    sh -c "chmod 666 '$mfile' && chmod 777 '$IDX'"
fi
echo "$SECRET" >"$proj/sub/.env.stage"
launch "after the chmod, a new secret is masked" 1 cat sub/.env.stage
[ "$(stat -c %a "$IDX")" = 700 ] && pass "the next launch made the directory private again" ||
  fail "the index directory stayed mode $(stat -c %a "$IDX")"
[ "$(stat -c %a "$(idx mask)")" = 600 ] && pass "the index was rewritten private" ||
  fail "the index stayed mode $(stat -c %a "$(idx mask)")"
# A launch without protection plants a secret and puts the directory's mtime
# back; the next protected one masks it (only ctime tells).
touch -d @1500000000 "$proj/sub"
settle; "${S[@]}" true >/dev/null 2>&1; settle
expect_status 0 "an unprotected launch writes a secret" "$L" --sandbox --project "$proj" --workdir "$proj" \
  --scratch "$base/scratch" sh -c "echo $SECRET > sub/.env.prod && touch -d @1500000000 sub"
launch "the next protected launch masks it" 1 cat sub/.env.prod
no_secret "planted secret"
# ---- a stale, corrupt or foreign index is never a pass ----
settle; "${S[@]}" true >/dev/null 2>&1; settle; warm "before the corruption"
mfile=$(idx mask)
echo "$SECRET" >"$proj/sub/.env.test"
head -c $(($(stat -c %s "$mfile") / 2)) "$mfile" >"$base/half" && cat "$base/half" >"$mfile"
launch "a truncated index: the new secret is masked" 1 cat sub/.env.test
no_secret "truncated index"
settle; mfile=$(idx mask)
printf 'X' | dd of="$mfile" bs=1 seek=200 conv=notrunc status=none
echo "$SECRET" >"$proj/sub/.env.dev"
launch "a damaged index: the new secret is masked" 1 cat sub/.env.dev
no_secret "damaged index"
if have root; then
  settle; "${S[@]}" true >/dev/null 2>&1; settle
  mfile=$(idx mask)
  chown 65534 "$mfile"
  launch "an index owned by someone else is not read" 1 cat sub/.env
  [ "$(stat -c %u "$(idx mask)")" = 0 ] && pass "it was replaced by our own" || fail "the foreign index stayed"
else
  skip "root: an index owned by another user: only root can give one away"
fi

# ---- no writable root may reach the index ----
expect_status 126 "--add-dir of the index directory is refused" "$L" --sandbox --project "$proj" \
  --workdir "$proj" --scratch "$base/scratch" --add-dir "$IDX" -- true
expect_output_has "index" "the refusal names the index"
expect_status 126 "a project at the index directory is refused" "$L" --sandbox --project "$IDX" --workdir "$IDX" -- true
# The index directory under another name: a bind mount of its home (seen
# only in a private mount namespace of this test). Paths differ, the
# directory is the same: the check must go by identity.
if have root && command -v unshare >/dev/null; then
  mkdir -p "$base/bindhome"
  bind=(unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' sh
        "$(dirname "$IDX")" "$base/bindhome")
  expect_status 126 "--add-dir of the index directory through a bind mount is refused" "${bind[@]}" \
    "$L" --sandbox --project "$proj" --workdir "$proj" --scratch "$base/scratch" \
    --add-dir "$base/bindhome/.libsandbox" -- sh -c "echo x > '$base/bindhome/.libsandbox/evil.idx'"
  expect_output_has "index" "the refusal names the index"
  [ ! -e "$IDX/evil.idx" ] && pass "nothing was written to the index directory" ||
    { fail "the command wrote the index directory through the bind mount"; rm -f "$IDX/evil.idx"; }
  mkdir -p "$IDX/sub"
  expect_status 126 "--add-dir of a folder inside it, through the bind mount, is refused" "${bind[@]}" \
    "$L" --sandbox --project "$proj" --workdir "$proj" --scratch "$base/scratch" \
    --add-dir "$base/bindhome/.libsandbox/sub" -- true
  rmdir "$IDX/sub"
  expect_status 0 "the same launch without that root runs" "${bind[@]}" \
    "$L" --sandbox --project "$proj" --workdir "$proj" --scratch "$base/scratch" -- true
else
  skip "root: a bind mount of the home needs root"
fi
# With the file system unconfined, protected paths still keep it read-only.
expect_status 1 "--no-network --protect-secrets: the index directory is read-only" \
  "$L" --no-network --protect-secrets --project "$proj" -- sh -c "echo x > '$IDX/evil' || exit 1"
[ ! -e "$IDX/evil" ] && pass "nothing was written there" || { fail "a file was written to the index directory"; rm -f "$IDX/evil"; }

# ---- last: a launch this boot with a root the others lack ----
# (From here on the hard-link index of this project is never reused this
# boot: that launch's leftovers could link again at any time.)
# A hard link made by a launch with a root the next launch lacks: it changes
# no project directory, only the file's link count (the ledger sees it).
mkdir -p "$base/other"
settle; warm "before the cross-root link"
# (Without protected paths: their mask's own Landlock layer refuses every
# link across directories, which would close this route by accident.)
if [ "$(id -u)" = 0 ]; then
  # Root's roots are mounts of their own: a link between two is EXDEV, so
  # the route the ledger watches is closed before it (rootfs.c).
  expect_status 1 "a root launch with another root cannot link a project file into it" \
    "$L" --sandbox --scan-hardlinks --project "$proj" --workdir "$proj" \
    --scratch "$base/scratch" --add-dir "$base/other" -- ln "$proj/src/main.c" "$base/other/main.c"
  expect_output_has "Invalid cross-device link" "... EXDEV"
  [ ! -e "$base/other/main.c" ] && pass "... no link was made" || fail "root linked across roots"
else
  expect_status 0 "a launch with another root links a project file into it" \
    "$L" --sandbox --scan-hardlinks --project "$proj" --workdir "$proj" \
    --scratch "$base/scratch" --add-dir "$base/other" -- ln "$proj/src/main.c" "$base/other/main.c"
  launch "the next launch, without that root, refuses the link" 126 true
  expect_output_has "main.c" "the refusal names the file"
fi
rm -f "$base/other/main.c"

# ---- switched off ----
fresh=$base/fresh
mkdir -p "$fresh" && echo "$SECRET" >"$fresh/.env"
expect_status 1 "--no-scan-index still masks" "$L" --sandbox --protect-secrets --scan-hardlinks --no-scan-index \
  --project "$fresh" --workdir "$fresh" --scratch "$base/scratch" -- cat "$fresh/.env"
if grep -lsF -- "$fresh" "$IDX"/*.idx >/dev/null 2>&1; then fail "--no-scan-index wrote an index"; else pass "--no-scan-index wrote no index"; fi
finish
