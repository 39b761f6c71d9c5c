#!/usr/bin/env bash
# The launcher's interface: help, version, usage errors, JSON, exit codes.
. "$SBX_TESTLIB"

expect_status 0 "--help exits 0" "$L" --help
expect_output_has "--no-network" "--help lists the flags"
expect_status 0 "--version exits 0" "$L" --version
expect_output_has "sandbox-exec-launcher 0." "--version prints the version"
expect_status 2 "an unknown flag is a usage error" "$L" --frobnicate -- true
expect_output_has "unknown option --frobnicate" "the usage error names the flag"
expect_status 2 "a missing command is a usage error" "$L" --sandbox
expect_status 2 "a missing --project value is a usage error" "$L" --project
expect_status 2 "a relative --add-dir is a usage error" "$L" --add-dir rel -- true
expect_status 2 "an unknown --target is a usage error" "$L" --explain --target plan9 -- true

expect_status 0 "--self-test exits 0" "$L" --self-test
expect_status 0 "--self-test --json exits 0" "$L" --self-test --json
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert "network" in d and "filesystem" in d and "read_only" in d' "$_out"; then
  pass "--self-test --json is valid JSON with every dimension"
else
  fail "--self-test --json is not valid JSON"; cat "$_out"
fi

expect_status 0 "--explain --json exits 0" "$L" --explain --json --project "$_scratch" -- echo hi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["argv"]==["echo","hi"], d["argv"]' "$_out"; then
  pass "--explain --json has the exact argv"
else
  fail "--explain --json argv is wrong"; cat "$_out"
fi

# Exit codes once the command runs under the default (--sandbox) policy.
expect_status 7 "the command's own exit status comes back" "$L" -- sh -c 'exit 7'
expect_status 127 "a missing command exits 127" "$L" -- /nonexistent/command
expect_status 127 "a command not on PATH exits 127" "$L" -- no-such-command-sbx
noexec=$_scratch/not-executable
echo 'echo should not run' >"$noexec"
chmod 644 "$noexec"
expect_status 126 "a non-executable file exits 126" "$L" -- "$noexec"
# execvp's rules, the same whichever C library the launcher was built with
# (musl's execvp does not fall back to the shell; the launcher does).
script=$_scratch/bin/no-shebang
mkdir -p "$_scratch/bin"
printf 'echo "ran as a script: $1"\n' >"$script"
chmod 755 "$script"
expect_status 0 "a script without #! runs with /bin/sh, given a path" "$L" -- "$script" arg1
expect_output_has "ran as a script: arg1" "the script got its argument"
expect_status 0 "a script without #! runs with /bin/sh, found on PATH" \
  env PATH="/nonexistent:$_scratch/bin:/usr/bin:/bin" "$L" -- no-shebang arg2
expect_output_has "ran as a script: arg2" "the PATH-found script got its argument"
cp "$noexec" "$_scratch/bin/not-exec-on-path"
expect_status 126 "a non-executable file found on PATH exits 126" \
  env PATH="$_scratch/bin:/usr/bin:/bin" "$L" -- not-exec-on-path
expect_status 0 "an empty PATH entry is the working directory" \
  sh -c 'cd "$1/bin" && PATH=":/usr/bin:/bin" exec "$0" --project "$1" -- no-shebang arg3' "$L" "$_scratch"
expect_output_has "ran as a script: arg3" "the script in the working directory ran"
expect_status 0 "an all-off policy cannot be asked for, --sandbox is the default" "$L" true
# Spec 004: the home directory and / are never a writable project: without
# --project the command then works in its scratch; an explicit one is refused.
h=$(mktemp -d /var/tmp/sbx-cli-home.XXXXXX) # outside /tmp, which a home must not be below
chmod 755 "$h"
expect_status 1 "from the home directory it runs, but the home is not writable" \
  env HOME="$h" sh -c 'cd "$HOME" && exec "$0" -- touch "$HOME/should-not-exist"' "$L"
[ -e "$h/should-not-exist" ] && fail "the command wrote in the home directory" || pass "nothing was written in the home directory"
expect_status 126 "an explicit --project ~ is refused, never made writable" \
  env HOME="$h" sh -c 'cd "$HOME" && exec "$0" --project "$HOME" -- true' "$L"
expect_output_has "refusing to make" "the refusal says why and how to fix it"
expect_status 0 "from / it runs in its scratch" env HOME="$h" sh -c 'cd / && exec "$0" -- true' "$L"
expect_status 1 "  ...and / is not writable" env HOME="$h" sh -c 'cd / && exec "$0" -- sh -c "touch /sbx-should-not-exist || exit 1"' "$L"
[ -e /sbx-should-not-exist ] && { fail "the command wrote in /"; rm -f /sbx-should-not-exist; } || pass "nothing was written in /"
rm -rf "$h"
expect_status 0 "network-only mode from the home directory writes nothing implicitly, so it runs" \
  env HOME="$_scratch" sh -c 'cd "$HOME" && exec "$0" --no-network -- true' "$L"
finish
