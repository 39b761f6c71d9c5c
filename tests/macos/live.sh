#!/usr/bin/env bash
# Live proof of the macOS backend, run by hand on a Mac (not part of ctest):
#
#   tests/macos/live.sh [path/to/sandbox-exec-launcher]
#
# Proves under the real kernel: a write in the project works, a write in the
# home directory is refused, curl is refused, AF_UNIX works, /tmp and TMPDIR
# are writable through either spelling, and --read-only refuses writes and
# unix sockets while reads, /dev/null and exec still work. Exits 77 elsewhere.
set -u
[ "$(uname -s)" = Darwin ] || { echo "skip: live.sh runs on macOS only"; exit 77; }
L=${1:-${SBX_LAUNCHER:-sandbox-exec-launcher}}
[ -x /usr/bin/sandbox-exec ] || { echo "FAIL - /usr/bin/sandbox-exec is missing"; exit 1; }

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $*"; }
bad() { failed=$((failed + 1)); echo "FAIL - $*"; }

# expect WANT NAME CMD...: WANT is 0 (must succeed) or x (must fail).
expect() {
  local want=$1 name=$2 got=0
  shift 2
  "$@" >"$out" 2>&1 || got=$?
  if { [ "$want" = 0 ] && [ "$got" = 0 ]; } || { [ "$want" = x ] && [ "$got" != 0 ]; }; then
    ok "$name (exit $got)"
  else
    bad "$name (exit $got)"; sed 's/^/    | /' "$out" | head -5
  fi
}

# The project lives in the home directory, so "home" is not writable by
# accident of sitting under /tmp.
proj=$(mktemp -d "$HOME/sbx-live.XXXXXX")
out=$(mktemp)
escape=$HOME/sbx-live-escape.$$
trap 'rm -rf "$proj" "$out" "$escape"' EXIT
cd "$proj" || exit 1
S=("$L" --sandbox --project "$proj" --workdir "$proj" --)
R=("$L" --read-only --project "$proj" --workdir "$proj" --)

# A unix socket round trip, in perl (always on macOS).
unix_roundtrip='use IO::Socket::UNIX; my $p = shift; unlink $p;
  my $s = IO::Socket::UNIX->new(Local => $p, Listen => 1) or die "bind: $!";
  my $c = IO::Socket::UNIX->new(Peer => $p) or die "connect: $!"; print "unix ok\n";'

expect 0 "--self-test runs" "$L" --self-test
grep -q 'seatbelt' "$out" && ok "self-test names seatbelt" || bad "self-test lacks seatbelt"

expect 0 "a write in the project works" "${S[@]}" sh -c "echo x > '$proj/inside'"
[ -f "$proj/inside" ] && ok "the project file exists" || bad "the project file is missing"
expect x "a write in the home directory is refused" "${S[@]}" sh -c "echo x > '$escape'"
[ ! -e "$escape" ] && ok "no file was left in home" || bad "a file escaped to $escape"
expect 0 "unconfined, the same home write works (the test can fail)" sh -c "echo x > '$escape'"
rm -f "$escape"
expect 0 "a write to /tmp works" "${S[@]}" sh -c "echo x > /tmp/sbx-live.$$ && rm /tmp/sbx-live.$$"
expect 0 "a write to /private/tmp works" "${S[@]}" sh -c "echo x > /private/tmp/sbx-live.$$ && rm /private/tmp/sbx-live.$$"
expect 0 "a write to \$TMPDIR works" "${S[@]}" sh -c 'f=$(mktemp) && echo x > "$f" && rm "$f"'
expect x "curl is refused" "${S[@]}" curl -sS -m 10 https://example.com
expect x "a DNS lookup is refused" "${S[@]}" perl -e 'gethostbyname("example.com") or exit 1'
expect 0 "AF_UNIX still works" "${S[@]}" perl -e "$unix_roundtrip" "$proj/s.sock"

expect 0 "read-only: reads work" "${R[@]}" cat /etc/hosts
expect 0 "read-only: programs run, /dev/null takes writes" "${R[@]}" sh -c 'ls / > /dev/null'
expect 0 "read-only: user lookups work" "${R[@]}" id -un
expect x "read-only: a write in the project is refused" "${R[@]}" sh -c "echo x > '$proj/ro'"
[ ! -e "$proj/ro" ] && ok "read-only left no file" || bad "read-only let a file be written"
expect x "read-only: deleting is refused" "${R[@]}" rm "$proj/inside"
expect x "read-only: chmod is refused" "${R[@]}" chmod 600 "$proj/inside"
expect x "read-only: /tmp is refused" "${R[@]}" sh -c "echo x > /tmp/sbx-live-ro.$$"
expect x "read-only: unix sockets are refused" "${R[@]}" perl -e "$unix_roundtrip" "/tmp/sbx-ro.$$.sock"
expect x "read-only: curl is refused" "${R[@]}" curl -sS -m 10 https://example.com
expect x "read-only: preference writes are refused" "${R[@]}" defaults write sbx.live.test k v

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
