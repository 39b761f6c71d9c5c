#!/usr/bin/env bash
# The pre-flight index with the state the protected-path walk gained in issue
# 18 round 3 and issue 23: a bare repository (write-protected), another name
# of a home secret, a secret committed to the git index, a link to a
# directory of another owner, --git-writable. A warm launch (the index
# reused) must warn exactly as the cold one did and enforce the same: a
# write into the bare repository is refused on the warm launch, checked from
# outside, and succeeds unconfined. tests/linux/test_mask_index.c compares
# the plans themselves.
. "$SBX_TESTLIB"
SECRET=sbx-secret-index-kinds-8a2d

base=$(mktemp -d /var/tmp/sbx-index-kinds.XXXXXX)
trap 'rm -rf "$base"' EXIT
proj=$base/proj
mkdir -p "$proj/src" "$base/scratch" "$base/home/.ssh" "$base/other"
echo "$SECRET" >"$proj/.env"
echo "$SECRET" >"$base/home/.ssh/id_ed25519"
echo "$SECRET" >"$base/other/.env"
ln "$base/home/.ssh/id_ed25519" "$proj/src/notes.txt"
git init -q --bare "$proj/remote.git"
(cd "$proj" && git init -q . && git config user.email t@t && git config user.name t &&
 git add -f .env && git commit -qm s) || exit 1
# A directory of another owner: nobody's for root; a root-owned one for nobody.
if [ "$(id -u)" = 0 ]; then chown 65534:65534 "$base/other"; foreign=$base/other
else foreign=; for d in /srv /mnt /opt /media; do [ -d "$d" ] && [ ! -O "$d" ] && { foreign=$d; break; }; done; fi
[ -n "$foreign" ] && ln -s "$foreign" "$proj/otherlink"
export HOME=$base/home
cd "$proj" || exit 1

acct=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -n "$acct" ] && [ -d "$acct" ] && [ -O "$acct" ]; then IDX=$acct/.libsandbox; else IDX=$HOME/.libsandbox; fi
require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets -- true

newest() { ls -t $(grep -lsF -- "$proj" "$IDX"/mask-*.idx) 2>/dev/null | head -1; }
ino() { local f; f=$(newest); [ -n "$f" ] && stat -c %i "$f"; }

for mode in plain git-writable; do
  S=("$L" --sandbox --protect-secrets --project "$proj" --workdir "$proj" --scratch "$base/scratch")
  [ "$mode" = git-writable ] && S+=(--git-writable)
  sleep 0.05
  expect_status 0 "$mode: cold launch" "${S[@]}" true
  cold_err=$(cat "$_err"); i0=$(ino)
  [ -n "$i0" ] && pass "$mode: the cold launch wrote an index" || fail "$mode: no index written"
  grep -qF "tracks 1 protected path" "$_err" && pass "$mode: the committed secret is warned of" || fail "$mode: no committed-secret warning"
  grep -qF "another owner" "$_err" && pass "$mode: the link to another owner's directory is warned of" || fail "$mode: no other-owner warning"
  expect_status 0 "$mode: warm launch" "${S[@]}" true
  [ "$(ino)" = "$i0" ] && pass "$mode: the warm launch reused the index" || fail "$mode: the index was rebuilt on an unchanged tree"
  if [ "$(cat "$_err")" = "$cold_err" ]; then pass "$mode: warm warnings equal cold ones"
  else fail "$mode: warm warnings differ"; diff <(echo "$cold_err") "$_err" | head -8; fi
  # Enforcement on a warm launch, from outside.
  before=$(cat remote.git/config)
  expect_status 1 "$mode: warm: a write into the bare repository is refused" "${S[@]}" sh -c 'printf "[core]\n" >> remote.git/config || exit 1'
  [ "$(ino)" = "$i0" ] && pass "$mode: that launch was warm too" || fail "$mode: that launch rebuilt the index"
  [ "$(cat remote.git/config)" = "$before" ] && pass "$mode: the bare repository's config is unchanged" || fail "$mode: the bare repository was written"
  for f in src/notes.txt .env; do
    expect_status 1 "$mode: warm: $f is masked" "${S[@]}" cat "$f"
    grep -qF "$SECRET" "$_out" && fail "$mode: warm: $f reached the output" || pass "$mode: warm: $f not in the output"
  done
done
expect_status 0 "unconfined: the bare repository is writable" sh -c 'printf "[core]\n" >> remote.git/config || exit 1'
expect_status 0 "unconfined: the other name is readable" grep -q "$SECRET" src/notes.txt
finish
