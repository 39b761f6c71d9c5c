#!/usr/bin/env bash
# Toolchains under the network deny (issue 19): what the SIGSYS default
# (the contract) kills that a person may not expect, and --net-eperm as the
# way out. Each case is shown working unconfined, dying under --no-network
# with a certain record of the refused socket (from the grandchild where it
# is one), and working under --net-eperm. The name lookup runs against a
# known hosts file in a private mount namespace (with_hosts), never this
# machine's /etc. The docs that name these cases are checked at the end.
. "$SBX_TESTLIB"

have python3 || skip_all "python3: needed to read the JSON outcome"
# The interpreter itself, not a version manager's shim script around it.
PY=$(python3 -c 'import sys; print(sys.executable)')
require seccomp "--no-network" "$L" --no-network -- true

proj=$_scratch/proj
mkdir -p "$proj"
cd "$proj" || exit 1
export HOME=$_home

# recorded NAME OUT.json COMM FAMILIES: the outcome holds a certain socket
# record from COMM for one of FAMILIES ("AF_INET AF_INET6").
recorded() {
  local v
  v=$("$PY" - "$2" "$3" "$4" <<'PY' 2>&1
import json, sys
o = json.loads(open(sys.argv[1]).read())
fams = sys.argv[3].split()
print(any(r["certain"] and r["kind"] == "socket" and r["comm"].startswith(sys.argv[2])
          and r["family_name"] in fams for r in o["records"]))
PY
)
  [ "$v" = True ] && pass "$1" || { fail "$1: $v"; head -c 600 "$2"; echo; }
}

# getaddrinfo("localhost") where the hosts file lists 127.0.0.1 and ::1:
# glibc sorts the two answers by connecting a UDP probe socket to each.
two="127.0.0.1 localhost
::1 localhost ip6-localhost ip6-loopback"
if have getent && have mountns; then
  expect_status 0 "getaddrinfo(localhost), 127.0.0.1 and ::1: works unconfined" \
    with_hosts "$two" getent ahosts localhost
  expect_status "$((128 + $(kill -l SYS)))" \
    "getaddrinfo(localhost), 127.0.0.1 and ::1: killed under --no-network (the contract)" \
    with_hosts "$two" "$L" --no-network --outcome-fd 3 -- getent ahosts localhost 3>"$_scratch/gai.json"
  recorded "getaddrinfo(localhost): the UDP probe socket is recorded" "$_scratch/gai.json" getent \
    "AF_INET AF_INET6"
  expect_status 0 "getaddrinfo(localhost): works under --no-network --net-eperm" \
    with_hosts "$two" "$L" --no-network --net-eperm -- getent ahosts localhost
  expect_output_has "127.0.0.1" "getaddrinfo(localhost): --net-eperm still resolves"
elif ! have getent; then
  skip "getent: not installed, no name-lookup case"
else
  skip "mountns: no private mount namespace for a known /etc/hosts here"
fi

# pip --version: urllib3's IPv6 probe (a socket(AF_INET6) at import).
if have pip; then
  expect_status 0 "pip --version works unconfined" "$PY" -m pip --version
  expect_signal SYS "pip --version is killed under --no-network (the contract)" \
    "$L" --no-network --outcome-fd 3 -- "$PY" -m pip --version 3>"$_scratch/pip.json"
  recorded "pip --version: its IPv6 probe is recorded" "$_scratch/pip.json" python "AF_INET6 AF_INET"
  expect_status 0 "pip --version works under --no-network --net-eperm" \
    "$L" --no-network --net-eperm -- "$PY" -m pip --version
  expect_output_has "pip " "pip --version prints its version under --net-eperm"
else
  skip "pip: python3 -m pip does not work here even unconfined"
fi

# python3 -m venv: ensurepip runs pip in a child, whose probe dies; the top
# level only exits 1, and the record names the grandchild.
if have venv; then
  expect_status 0 "python3 -m venv works unconfined" "$PY" -m venv "$_scratch/v0"
  expect_status 1 "python3 -m venv fails under --no-network: its pip child is killed" \
    "$L" --no-network --outcome-fd 3 -- "$PY" -m venv "$proj/v1" 3>"$_scratch/venv.json"
  recorded "python3 -m venv: the child's IPv6 probe is recorded, though the top level exits 1" \
    "$_scratch/venv.json" python "AF_INET6 AF_INET"
  expect_status 0 "python3 -m venv works under --no-network --net-eperm" \
    "$L" --no-network --net-eperm -- "$PY" -m venv "$proj/v2"
  [ -x "$proj/v2/bin/pip" ] && pass "python3 -m venv: pip was installed under --net-eperm" ||
    fail "python3 -m venv: no pip in the environment"
else
  skip "venv: python3's venv and ensurepip are not installed"
fi

# The docs that must name these breakages and the way out.
expect_status 0 "--help" "$L" --help
for w in getaddrinfo pip venv --net-eperm; do
  grep -qF -- "$w" "$_out" && pass "--help names $w" || fail "--help does not name $w"
done
expect_status 0 "--self-test --json" "$L" --self-test --json
if "$PY" -c 'import json,sys; n=json.load(open(sys.argv[1]))["network_notes"]
sys.exit(not all(w in n for w in ("getaddrinfo", "pip", "venv", "--net-eperm")))' "$_out"; then
  pass "--self-test --json names the breakages and --net-eperm (network_notes)"
else fail "--self-test --json: network_notes lacks a case"; cat "$_out"; fi
for f in README.md docs/host-guide.md; do
  for w in getaddrinfo pip venv --net-eperm; do
    grep -qF -- "$w" "$SBX_SOURCE_DIR/$f" && pass "$f names $w" || fail "$f does not name $w"
  done
done

finish
