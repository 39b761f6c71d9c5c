#!/usr/bin/env bash
# `--explain --target macos` on any host: the JSON carries the profile, the
# -D parameters and the exact sandbox-exec argv, and a hostile project path
# changes only a -D value, never the profile.
. "$SBX_TESTLIB"

# A python3 this user can run (as nobody, a PATH entry under /root is not).
PY=
for c in python3 /usr/bin/python3; do
  if "$c" -c pass 2>/dev/null; then PY=$c; break; fi
done

export TMPDIR=/var/folders/xy/zz/T
proj=/Users/me/proj

expect_status 0 "--explain --target macos (text) exits 0" \
  "$L" --explain --target macos --project "$proj" --workdir "$proj" -- echo hi
expect_output_has "target:      macos" "the text names the target"
expect_output_has '"/tmp" -> "/private/tmp"' "the text shows /tmp's canonical form"
expect_output_has "(deny default)" "the text shows the profile"
expect_output_has "mach services allowed:" "the text lists the Mach services"
expect_output_has "  com.apple.system.opendirectoryd.libinfo" "user lookups are listed"

if [ -z "$PY" ]; then
  skip "python3: python3 is not runnable here; JSON checks skipped"
  finish
fi

# check NAME PYTHON-ASSERTIONS: run assertions on the JSON in $_out as `d`.
check() {
  local name=$1 code=$2
  if "$PY" -c "
import json, sys
d = json.load(open(sys.argv[1]))
$code
" "$_out" 2>"$_scratch/.py"; then pass "$name"; else
    fail "$name"; sed 's/^/    | /' "$_scratch/.py" | tail -5
  fi
}

expect_status 0 "--explain --json --target macos --sandbox exits 0" \
  "$L" --explain --json --target macos --sandbox --project "$proj" --workdir "$proj" -- echo hi
check "the JSON names the target and mechanism" '
assert d["target"] == "macos" and d["mechanism"] == "seatbelt", d'
check "argv is sandbox-exec -p PROFILE -D K=V... -- CMD" '
a = d["argv"]
assert a[0] == "/usr/bin/sandbox-exec" and a[1] == "-p" and a[2] == d["profile"], a[:3]
params = d["params"]
i = 3
for k, v in params.items():
    assert a[i] == "-D" and a[i + 1] == k + "=" + v, (i, a[i:i + 2])
    i += 2
assert a[i:] == ["--", "echo", "hi"], a[i:]'
check "every root is allowed by literal and canonical path, once each" '
vals = list(d["params"].values())
assert len(vals) == len(set(vals)), vals
for want in ["/Users/me/proj", "/var/folders/xy/zz/T", "/private/var/folders/xy/zz/T",
             "/tmp", "/private/tmp", "/dev"]:
    assert want in vals, (want, vals)
for k in d["params"]:
    assert "(subpath (param \"%s\"))" % k in d["profile"], k'
check "network deny spares AF_UNIX and confines writes" '
p = d["profile"]
assert "(deny default)" in p and "(allow default)" not in p
assert "(allow network* (local unix-socket) (remote unix-socket))" in p
assert "(allow network*)" not in p and "(remote ip" not in p
assert "(allow file-write*\n  (subpath" in p'
check "the JSON lists the Mach services, none of them a keychain or DNS service" '
m = d["mach_services"]
assert "com.apple.system.opendirectoryd.libinfo" in m and "com.apple.logd" in m, m
for s in m:
    assert "(global-name \"%s\")" % s in d["profile"], s
    assert "Security" not in s and "securityd" not in s and "dnssd" not in s, s
assert d["profile_kind"] == "deny-default"'

expect_status 0 "--explain --json --target macos --read-only exits 0" \
  "$L" --explain --json --target macos --read-only --project "$proj" --workdir "$proj" -- ls
check "read-only is the fixed deny-default profile with no params" '
p = d["profile"]
assert d["params"] == {} and d["filesystem"] == "read-only", d["params"]
assert "(deny default)" in p and "(allow default)" not in p
assert "unix-socket" not in p and "(allow file-write*" not in p
assert d["argv"] == ["/usr/bin/sandbox-exec", "-p", p, "--", "ls"], d["argv"]'

expect_status 0 "--explain --json --target macos --no-network exits 0" \
  "$L" --explain --json --target macos --no-network --project "$proj" --workdir "$proj" -- true
check "--no-network alone leaves writes alone" '
assert "(allow file-write* file-link file-clone)" in d["profile"] and d["params"] == {}'

expect_status 0 "--explain --json --target macos --class offline exits 0" \
  "$L" --explain --json --target macos --class offline --project "$proj" --workdir "$proj" -- true
check "a class refuses every unix socket when it has no network" '
p = d["profile"]
assert "(deny default)" in p and "(allow network" not in p, p
assert "com.apple.dnssd.service" not in d["mach_services"]'
expect_status 0 "--explain --json --target macos --class build --internet-only exits 0" \
  "$L" --explain --json --target macos --class build --internet-only --project "$proj" \
  --workdir "$proj" -- true
check "with the internet a class allows only the resolver's unix socket" '
p = d["profile"]
assert "(local unix-socket)" not in p, p
assert "(allow network-outbound\n  (remote unix-socket (path-literal \"/var/run/mDNSResponder\"))" in p
assert "com.apple.dnssd.service" in d["mach_services"]'
expect_status 0 "--explain --target macos --class offline (text) exits 0" \
  "$L" --explain --target macos --class offline --project "$proj" --workdir "$proj" -- true
expect_output_has "unix sockets refused too" "the text says the class refuses unix sockets"

# A hostile project path: quotes, parentheses, a newline, a backslash, a
# semicolon, a regex-literal opener and a byte that is not UTF-8.
bad=$(printf '/Users/me/x"))(allow default)\n;#"\\\xff')
expect_status 0 "a plain project path explains" \
  "$L" --explain --json --target macos --sandbox --project /Users/me/plain --workdir "$proj" -- echo hi
cp "$_out" "$_scratch/plain.json"
expect_status 0 "a hostile project path still explains" \
  "$L" --explain --json --target macos --sandbox --project "$bad" --workdir "$proj" -- echo hi
check "the profile is byte-identical to the plain one" '
plain = json.load(open(sys.argv[1].rsplit("/", 1)[0] + "/plain.json"))
assert d["profile"] == plain["profile"]
assert len(d["argv"]) == len(plain["argv"])
assert [a for a in d["argv"] if not a.startswith("WRITABLE_ROOT_0=")] == \
       [a for a in plain["argv"] if not a.startswith("WRITABLE_ROOT_0=")]
v = d["params"]["WRITABLE_ROOT_0"]
assert v.startswith("/Users/me/x\"))(allow default)\n;#\"\\"), repr(v)'

finish
