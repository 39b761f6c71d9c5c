#!/usr/bin/env bash
# The pre-flight index watcher (--index-watch, src/linux/scanwatch.c): with
# it running, warm launches are vouched for without a stat per directory,
# and every kind of change between two launches is still seen by the
# second: a new secret, a new directory, a rename into a protected name, a
# directory made unlistable, a symlink swapped in the tree or outside it, the
# project swapped for another, a mount inside it. It answers only its own
# user, runs once per user, cannot be replaced from inside a sandbox, and
# when it dies launches check stamps again.
. "$SBX_TESTLIB"
SECRET=sbx-secret-watch-0c7a

base=$(mktemp -d /var/tmp/sbx-watch.XXXXXX)
watcher=
cleanup() {
  [ -n "$watcher" ] && kill -TERM "$watcher" 2>/dev/null && wait "$watcher" 2>/dev/null
  mountpoint -q "$base/proj/mnt" 2>/dev/null && umount "$base/proj/mnt"
  chmod -R u+rwx "$base" 2>/dev/null
  rm -rf "$base"
}
trap cleanup EXIT
proj=$base/proj
out=$base/outside
mkdir -p "$proj"/{src,sub,mnt} "$base/scratch" "$base/home" "$out"/{plain,secrets}
echo "$SECRET" >"$proj/sub/.env"
echo "$SECRET" >"$out/secrets/.env"
echo plain >"$out/plain/readme"
echo notes >"$proj/notes.txt"
ln -s "$out/hop" "$proj/far"
ln -s plain "$out/hop"
export HOME=$base/home
cd "$proj" || exit 1
acct=$(getent passwd "$(id -u)" | cut -d: -f6)
if [ -n "$acct" ] && [ -d "$acct" ] && [ -O "$acct" ]; then IDX=$acct/.libsandbox; else IDX=$HOME/.libsandbox; fi

require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets -- true
S=("$L" --sandbox --protect-secrets --scan-hardlinks --project "$proj" --workdir "$proj"
   --scratch "$base/scratch")
no_secret() {
  if grep -qF "$SECRET" "$_out" "$_err"; then fail "$1: the secret reached the output"; else pass "$1: no secret in the output"; fi
}
settle() { sleep 0.05; }
# seen NAME FILE: readable unconfined, refused to the next launch.
seen() {
  expect_status 0 "unconfined: $2 is readable" cat "$2"
  expect_status 1 "$1" "${S[@]}" cat "$2"
  no_secret "$1"
}
# start: run the watcher; stop: end it and read how many launches it vouched for.
start() {
  "$L" --index-watch 2>"$base/watch.log" &
  watcher=$!
  for _ in $(seq 100); do [ -S "$IDX/watch.sock" ] && return 0; sleep 0.05; done
  fail "the watcher did not start: $(cat "$base/watch.log")"
  finish
}
stop() {
  kill -TERM "$watcher"
  wait "$watcher"
  watcher=
  vouched=$(sed -n 's/.*, \([0-9]*\) vouched for.*/\1/p' "$base/watch.log")
}

"${S[@]}" true >/dev/null 2>&1
settle
start
expect_status 126 "a second watcher for the same user is refused" "$L" --index-watch
expect_output_has "already runs" "the refusal says why"
# The first launch registers the indexes; the next ones are vouched for.
for i in 1 2 3; do "${S[@]}" true >/dev/null 2>&1; done
seen "vouched launch: .env is masked" "$proj/sub/.env"
no_secret "vouched launch"

# ---- each change is seen by the next launch ----
echo "$SECRET" >"$proj/sub/id_ed25519"
seen "a new secret is masked" "$proj/sub/id_ed25519"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
mkdir -p "$proj/new/deeper" && echo "$SECRET" >"$proj/new/deeper/.env"
seen "a secret in a new directory is masked" "$proj/new/deeper/.env"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
mv "$proj/notes.txt" "$proj/src/.env.local"
seen "a rename into a protected name is masked" "$proj/src/.env.local"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
expect_status 0 "unconfined: far/ leads to a plain folder" cat "$proj/far/readme"
ln -sfn secrets "$out/hop"
seen "a symlink swapped outside the project is seen" "$proj/far/.env"
no_secret "outside swap"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
ln -s "$out/secrets" "$proj/link"
seen "a new symlink to secrets is followed and masked" "$proj/link/.env"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
mkdir "$proj/locked" && echo "$SECRET" >"$proj/locked/.env"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
chmod 000 "$proj/locked"
if have dac_enforced; then
  expect_status 126 "a folder made unlistable refuses the next launch" "${S[@]}" true
else
  expect_status 1 "a folder made unlistable: still masked for root" "${S[@]}" cat "$proj/locked/.env"
fi
chmod 755 "$proj/locked"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
# The project itself swapped for another directory at the same path.
mv "$proj" "$base/proj.old" && mkdir -p "$proj/sub" "$proj/mnt" && echo "$SECRET" >"$proj/sub/.env.prod"
cd "$proj" || exit 1
seen "the project swapped for another: its secret is masked" "$proj/sub/.env.prod"
no_secret "swapped project"
settle; "${S[@]}" true >/dev/null 2>&1; "${S[@]}" true >/dev/null 2>&1
if have root; then
  # A mount changes no stamp and sends no event: mountinfo does.
  mount -t tmpfs sbx-watch "$proj/mnt" && echo "$SECRET" >"$proj/mnt/.env"
  seen "a mount inside the project is seen: its secret is masked" "$proj/mnt/.env"
  no_secret "mount"
  umount "$proj/mnt"
else
  skip "root: a mount inside the project: only root mounts here"
fi

# ---- the watcher cannot be replaced from inside, and is not needed ----
expect_status 1 "confined: the watcher's socket cannot be removed" "${S[@]}" sh -c "rm -f '$IDX/watch.sock' && exit 0 || exit 1"
[ -S "$IDX/watch.sock" ] && pass "the socket is still there" || fail "the socket was removed"
stop
[ -n "$vouched" ] && [ "$vouched" -ge 3 ] && pass "the watcher vouched for $vouched launches" ||
  fail "the watcher vouched for ${vouched:-no} launches: $(cat "$base/watch.log")"
# Killed: a stale socket; launches check stamps, a new watcher replaces it.
start
"${S[@]}" true >/dev/null 2>&1
kill -KILL "$watcher"; wait "$watcher" 2>/dev/null; watcher=
echo "$SECRET" >"$proj/sub/server.pem"
seen "with the watcher killed, a new secret is still masked" "$proj/sub/server.pem"
start
pass "a new watcher replaced the stale socket"
stop
finish
