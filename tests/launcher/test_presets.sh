#!/usr/bin/env bash
# The preset flags: classes, tool server, caches, output, internet-only, and
# what --explain shows for them. Nothing here needs a working backend.
. "$SBX_TESTLIB"

expect_status 0 "--help exits 0" "$L" --help
for f in --class --tool-server --writable-caches --internet-only --scan-hardlinks --allow-hardlink --output --scratch; do
  expect_output_has "$f" "--help lists $f"
done
expect_status 2 "an unknown class is a usage error" "$L" --class tourism -- true
expect_output_has "research" "the usage error lists the classes"
expect_status 2 "media without --output is a usage error" "$L" --class media -- true
expect_status 2 "a relative --output is a usage error" "$L" --class media --output out -- true
expect_status 2 "--internet-only with --no-network is a usage error" "$L" --internet-only --no-network -- true
expect_status 2 "--internet-only with offline is a usage error" "$L" --internet-only --class offline -- true
expect_status 2 "--read-only takes no class" "$L" --read-only --class build -- true
expect_status 2 "--tool-server with another class is a usage error" "$L" --tool-server --class build -- true
expect_status 2 "a relative --allow-hardlink is a usage error" "$L" --allow-hardlink rel -- true

# The home outside /tmp: the sandbox writes /tmp, so a home beneath it is refused.
h=$(mktemp -d /var/tmp/sbx-presets-home.XXXXXX)
trap 'rm -rf "$h"' EXIT
mkdir -p "$h/.npm" "$h/.cargo/registry" "$h/.cache" "$_scratch/p" "$_scratch/s" "$_scratch/o"
p=$_scratch/p s=$_scratch/s o=$_scratch/o

# explain_json NAME PYTHON-CHECK FLAGS...: --explain --json, then a check on d.
explain_json() {
  local name=$1 check=$2
  shift 2
  if HOME=$h "$L" --explain --json --project "$p" --workdir "$p" --scratch "$s" "$@" -- true >"$_out" 2>"$_err" &&
     python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=[(x['kind'],x['path']) for x in d['writable_roots']]; $check" "$_out" 2>>"$_err"; then
    pass "$name"
  else
    fail "$name"; sed 's/^/    | /' "$_out" "$_err" | head -12
  fi
}

explain_json "project: project, workdir, scratch, /tmp, /dev; no network by default" \
  "assert r==[('project','$p'),('temp','$s'),('system-temp','/tmp'),('dev','/dev')], r; assert d['network']=='deny'" \
  --class project
explain_json "research writes its scratch only" \
  "assert r==[('temp','$s'),('dev','/dev')], r" --class research
explain_json "build adds the package caches that exist (a missing one only to create first)" \
  "assert ('pkg-cache','$h/.npm') in r and ('pkg-cache','$h/.cargo/registry') in r, r; assert all(x in d['launch']['creates'] for k,x in r if 'gradle' in x), r" \
  --class build
explain_json "offline has no network even with --confine-fs" \
  "assert d['network']=='deny'" --class offline --confine-fs
explain_json "a network grant (--confine-fs) opens it for project" \
  "assert d['network']=='allow'" --class project --confine-fs
explain_json "media writes its output and scratch, never network" \
  "assert r==[('output','$o'),('temp','$s'),('dev','/dev')], r; assert d['network']=='deny'" \
  --class media --output "$o" --confine-fs
explain_json "tool server: its working directory, network allowed" \
  "assert ('workdir','$p') in r and ('project','$p') not in r, r; assert d['network']=='allow'" \
  --tool-server
explain_json "--writable-caches adds ~/.cache" \
  "assert ('cache','$h/.cache') in r, r" --writable-caches
explain_json "--internet-only resolves to internet-only" \
  "assert d['network']=='internet-only'" --internet-only --confine-fs

# Other targets get the same classes, resolved for them.
expect_status 0 "--explain --target macos --class build" env HOME=/Users/u "$L" --explain --target macos --class build --project "$p" --workdir "$p" -- true
expect_output_has "/Users/u/Library/Caches/pip" "macOS build writes pip's cache under ~/Library/Caches"
expect_output_has "/Users/u/.cargo/registry" "macOS build writes cargo's registry"
expect_status 0 "--explain --target macos --writable-caches" env HOME=/Users/u "$L" --explain --target macos --writable-caches --project "$p" -- true
expect_output_has '"/Users/u/Library/Caches"' "macOS caches are ~/Library/Caches"
expect_status 0 "--explain --target windows --class build" env USERPROFILE='C:\Users\u' LOCALAPPDATA='C:\Users\u\AppData\Local' TEMP='C:\Users\u\AppData\Local\Temp' "$L" --explain --target windows --class build --project 'C:\p' --workdir 'C:\p' -- true
expect_output_has 'npm-cache' "Windows build writes %LOCALAPPDATA%\\npm-cache"

if [ "$(uname -s)" != Darwin ]; then
  expect_status 126 "--internet-only fails closed here" "$L" --internet-only -- true
  expect_output_has "not enforced" "the refusal says it is not enforced here"
  expect_output_has "internet-only" "the refusal names the setting"
  expect_status 0 "--self-test" "$L" --self-test
  expect_output_has "fails closed" "--self-test says internet-only fails closed"
fi
finish
