#!/usr/bin/env bash
# `--explain --json --protect-secrets` for the macOS and Windows targets on
# any host: the JSON parses, and the rules that make an approved `cat .env`
# fail are in it (Seatbelt deny rules; Windows deny ACEs for a .env that
# exists in the project, shown as SDDL).
. "$SBX_TESTLIB"

PY=
for c in python3 /usr/bin/python3; do
  if "$c" -c pass 2>/dev/null; then PY=$c; break; fi
done

proj=$_scratch/proj
mkdir -p "$proj/conf" "$proj/.git/hooks" "$proj/keys"
: >"$proj/.env"
: >"$proj/conf/.env.local"
: >"$proj/keys/server.pem"
: >"$proj/env.md"
: >"$proj/.git/config"

cd "$proj" || exit 1
expect_status 0 "--explain --json --target macos --protect-secrets exits 0" \
  env HOME=/Users/me "$L" --explain --json --target macos --protect-secrets -- cat .env
cp "$_out" "$_scratch/macos.json"
expect_status 0 "--explain --json --target windows --protect-secrets exits 0" \
  "$L" --explain --json --target windows --protect-secrets -- cat .env
cp "$_out" "$_scratch/windows.json"
expect_status 0 "--explain --target windows --protect-secrets (text) exits 0" \
  "$L" --explain --target windows --protect-secrets -- cat .env
expect_output_has "deny ACEs for the container SID" "the text lists the deny ACEs"
expect_output_has "(D;;0x1f01ff;;;<container-sid>)" "the text shows them as SDDL"
expect_status 0 "--explain --target macos --protect-secrets (text) exits 0" \
  env HOME=/Users/me "$L" --explain --target macos --protect-secrets -- cat .env
expect_output_has '(deny file-read* file-write* file-link file-clone (regex #"/[.][eE][nN][vV](~|[.]([bB][aA][kK]|[oO][rR][iI][gG]|[oO][lL][dD]|[sS][aA][vV][eE]([.][0-9][0-9]*)?|[sS][wW][pP]|[sS][wW][oO]|[bB][aA][cC][kK][uU][pP]|~[0-9][0-9]*~))*(/|$)"))' \
  "the text shows the .env rule"

if [ -z "$PY" ]; then
  skip "python3 is not runnable here; JSON checks skipped"
  finish
fi

# check NAME FILE PYTHON-ASSERTIONS: assertions on the JSON in FILE as `d`.
check() {
  local name=$1 file=$2 code=$3
  if "$PY" -c "
import json, sys
d = json.load(open(sys.argv[1]))
proj = sys.argv[2]
$code
" "$file" "$proj" 2>"$_scratch/.py"; then pass "$name"; else
    fail "$name"; sed 's/^/    | /' "$_scratch/.py" | tail -5
  fi
}

check "macOS: the secrets are denied for read and write, .git for write" "$_scratch/macos.json" '
p = d["profile"]
for rule in [
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][eE][nN][vV](~|[.]([bB][aA][kK]|[oO][rR][iI][gG]|[oO][lL][dD]|[sS][aA][vV][eE]([.][0-9][0-9]*)?|[sS][wW][pP]|[sS][wW][oO]|[bB][aA][cC][kK][uU][pP]|~[0-9][0-9]*~))*(/|$)\"))",
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][eE][nN][vV][.][^/]*(~|[.]([bB][aA][kK]|[oO][rR][iI][gG]|[oO][lL][dD]|[sS][aA][vV][eE]([.][0-9][0-9]*)?|[sS][wW][pP]|[sS][wW][oO]|[bB][aA][cC][kK][uU][pP]|~[0-9][0-9]*~))*(/|$)\"))",
    "(deny file-read* file-write* file-link file-clone (regex #\"/[^/]*[.][pP][eE][mM](~|[.]([bB][aA][kK]|[oO][rR][iI][gG]|[oO][lL][dD]|[sS][aA][vV][eE]([.][0-9][0-9]*)?|[sS][wW][pP]|[sS][wW][oO]|[bB][aA][cC][kK][uU][pP]|~[0-9][0-9]*~))*(/|$)\"))",
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][sS][sS][hH](~|[.]([bB][aA][kK]|[oO][rR][iI][gG]|[oO][lL][dD]|[sS][aA][vV][eE]([.][0-9][0-9]*)?|[sS][wW][pP]|[sS][wW][oO]|[bB][aA][cC][kK][uU][pP]|~[0-9][0-9]*~))*(/|$)\"))",
    "(deny file-write* file-link file-clone (regex #\"/[.][gG][iI][tT](~|[.]([bB][aA][kK]|[oO][rR][iI][gG]|[oO][lL][dD]|[sS][aA][vV][eE]([.][0-9][0-9]*)?|[sS][wW][pP]|[sS][wW][oO]|[bB][aA][cC][kK][uU][pP]|~[0-9][0-9]*~))*(/|$)\"))",
    "(deny file-write-unlink",
]:
    assert rule in p, rule
# The denials come after every allowance: last match wins in SBPL.
assert p.rindex("(allow ") < p.index("(deny file-read* file-write* file-link file-clone (regex"), "order"'
check "macOS: home paths travel as -D values, never as profile text" "$_scratch/macos.json" '
params = d["params"]
assert params.get("PROTECTED_0") == "/Users/me/.npmrc", params
assert "/Users/me/.config" in params.values(), params
assert "/Users/me" not in d["profile"]
# HOME_N is referenced only when the home cannot be case-folded (non-ASCII);
# an ASCII home is in the profile as a bracketed regex instead.
for k in params:
    assert k.startswith("HOME_") or "(param \"%s\")" % k in d["profile"], k
assert "[uU][sS][eE][rR][sS]/[mM][eE]/" in d["profile"]
pp = d["protected_paths"]
assert pp["blocked"] is True and pp["mechanism"] == "seatbelt", pp
assert {"pattern": ".git", "denies": "write"} in pp["patterns"], pp["patterns"]
assert d["argv"][-2:] == ["cat", ".env"], d["argv"]'

check "Windows: the existing secrets get deny ACEs, .git a write deny" "$_scratch/windows.json" '
den = {x["path"]: x for x in d["denies"]}
env = den[proj + "/.env"]
assert env["kind"] == "read-write" and env["sddl"] == "(D;;0x1f01ff;;;<container-sid>)", env
assert den[proj + "/conf/.env.local"]["kind"] == "read-write"
assert den[proj + "/keys/server.pem"]["kind"] == "read-write"
git = den[proj + "/.git"]
assert git["kind"] == "write" and git["sddl"] == "(D;OICI;0xd0156;;;<container-sid>)", git
assert proj + "/env.md" not in den and proj + "/.git/config" not in den
for parent in [proj, proj + "/conf", proj + "/keys"]:
    assert den[parent]["sddl"] == "(D;;0x10000;;;<container-sid>)", den.get(parent)
assert d["appcontainer"] is True
pp = d["protected_paths"]
assert pp["blocked"] is True and pp["mechanism"] == "appcontainer+deny-aces", pp
assert "after launch" in pp["not_covered"], pp'

finish
