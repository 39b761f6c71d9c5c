#!/usr/bin/env bash
# Hard links to home secrets under other names (issue 18, what round two left
# open). Home is not walked, so the files inside a protected home directory
# (~/.ssh, ~/.config/gh) were never looked at for other names: a link in the
# project or in home's top level was read, and one elsewhere in home went
# unwarned. Now those directories are listed: other names in the scanned
# directories and in home's top level are masked, and names beyond them are
# warned about at launch. Each case first reads the secret unconfined.
. "$SBX_TESTLIB"

# The project and the added directory sit on the home's file system: a hard
# link cannot cross file systems, and /tmp is often a tmpfs of its own (the
# fresh Debian root of scripts/test-fresh-root.sh has one), where every link
# below failed with EXDEV and the --add-dir check passed with nothing there.
proj=$_home/proj
added=$_home/added
home=$_home/home
mkdir -p "$proj/sub" "$home/.ssh" "$home/notes" "$home/.config/gh" "$added"
# hlink TARGET NAME: the route a check needs; failing to make it fails the test.
hlink() {
  ln "$1" "$2" || fail "setup: cannot hard-link $2 to $1, so the check after it would prove nothing"
}
export HOME=$home
unset XDG_CONFIG_HOME
cd "$proj" || exit 1
tok=link-secret-57
echo "$tok" >"$home/.ssh/id_ed25519"
echo "$tok" >"$home/.config/gh/hosts.yml"
require guard "--protect-secrets" "$L" --protect-secrets --project "$proj" -- true
S=("$L" --protect-secrets --project "$proj")

no_token() {
  if grep -q "$tok" "$_out"; then fail "$1: the secret was printed"; else pass "$1: no secret"; fi
}
reads() { # NAME FILE: the control, unconfined
  expect_status 0 "unconfined: $1 reads the secret" cat "$2"
  expect_output_has "$tok" "the control printed the secret ($1)"
}
warned() { # NAME
  if grep -q "NOT masked" "$_err" && grep -q "$home/.ssh/id_ed25519\|hosts.yml" "$_err"; then
    pass "$1: the launch warns, naming the secret"
  else fail "$1: no warning about the unmasked name"; sed 's/^/    | /' "$_err" | head -3; fi
}
quiet() { # NAME
  if grep -q "NOT masked" "$_err"; then fail "$1: a warning without an outside name"
    sed 's/^/    | /' "$_err" | head -3; else pass "$1: no warning"; fi
}

# ---- a link inside the project ----
hlink "$home/.ssh/id_ed25519" sub/inproj.txt
reads "a project link to ~/.ssh/id_ed25519" sub/inproj.txt
expect_status 1 "--protect-secrets: the project link is masked" "${S[@]}" cat sub/inproj.txt
no_token "project link"
quiet "every other name masked"
expect_status 1 "--sandbox --protect-secrets: the project link is masked" \
  "${S[@]}" --sandbox cat sub/inproj.txt
no_token "project link, --sandbox"
rm -f sub/inproj.txt

# ---- in an added directory, and in home's top level ----
hlink "$home/.ssh/id_ed25519" "$added/k.txt"
hlink "$home/.ssh/id_ed25519" "$home/topkey"
reads "an added directory's link" "$added/k.txt"
reads "a home top-level link" "$home/topkey"
expect_status 1 "--protect-secrets: links in --add-dir and in home's top level are masked" \
  "${S[@]}" --add-dir "$added" sh -c 'cat "$0"; cat "$1"' "$added/k.txt" "$home/topkey"
no_token "--add-dir and home top level"
rm -f "$added/k.txt" "$home/topkey"

# ---- an exact home path (~/.config/gh), also through a symlinked ~/.config ----
hlink "$home/.config/gh/hosts.yml" hosts-copy.yml
reads "a project link to ~/.config/gh/hosts.yml" hosts-copy.yml
expect_status 1 "--protect-secrets: the link to ~/.config/gh/hosts.yml is masked" "${S[@]}" cat hosts-copy.yml
no_token "gh link"
rm -f hosts-copy.yml

# ---- a link elsewhere in home: not found, so warned about ----
hlink "$home/.ssh/id_ed25519" "$home/notes/k"
expect_status 0 "--protect-secrets: ~/notes/k (outside every scanned directory) still runs" \
  "${S[@]}" true
warned "~/notes/k"
grep -q -- "-samefile" "$_err" && pass "the warning says how to find the names" ||
  fail "the warning does not say how to find the names"
rm -f "$home/notes/k"
# Two names, both inside ~/.ssh: nothing outside, nothing to warn about.
hlink "$home/.ssh/id_ed25519" "$home/.ssh/id_backup"
expect_status 0 "--protect-secrets: two names inside ~/.ssh" "${S[@]}" true
quiet "two names inside ~/.ssh"
rm -f "$home/.ssh/id_backup"

# ~/.config a symlink (a dotfile manager): gh's directory is reached by two
# spellings; counted twice, the outside name would hide.
mv "$home/.config" "$_home/dots-config"
ln -s "$_home/dots-config" "$home/.config"
hlink "$_home/dots-config/gh/hosts.yml" "$home/notes/h"
expect_status 0 "--protect-secrets: symlinked ~/.config, a link in ~/notes" "${S[@]}" true
warned "~/notes/h through a symlinked ~/.config"
hlink "$_home/dots-config/gh/hosts.yml" gh-in-proj.yml
expect_status 1 "--protect-secrets: symlinked ~/.config, a project link is masked" "${S[@]}" cat gh-in-proj.yml
no_token "project link through a symlinked ~/.config"
finish
