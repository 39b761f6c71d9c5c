#!/usr/bin/env bash
# Secrets in the environment (issue 23): --scrub-env removes the variables
# that hold credentials before the command starts, keeps the rest (PATH,
# TOKENIZERS_PARALLELISM, SSH_AUTH_SOCK), --keep-env keeps one, --drop-env
# removes one more; --explain lists the names and never a value. Off by
# default. Checked from outside: what the command printed of its environment.
. "$SBX_TESTLIB"

TOK=sbx-fake-token-5f0d1c
base=$(mktemp -d /var/tmp/sbx-env.XXXXXX)
chmod 755 "$base"
trap 'rm -rf "$base"' EXIT
mkdir -p "$base/proj"
cd "$base/proj" || exit 1
E=(env GITHUB_TOKEN=$TOK OPENAI_API_KEY=$TOK AWS_SECRET_ACCESS_KEY=$TOK AWS_ACCESS_KEY_ID=$TOK
   DB_PASSWORD=$TOK npm_config__authToken=$TOK PGPASSWORD=$TOK MY_SECRET=$TOK
   TOKENIZERS_PARALLELISM=false SSH_AUTH_SOCK=/run/agent.sock PASSWORD_STORE_DIR=/p KEEP_ME_TOKEN=$TOK)

require landlock "--sandbox" "$L" --sandbox --project "$base/proj" -- true

has() { if grep -q "^$1=" "$_out"; then pass "  ...$1 is kept"; else fail "  ...$1 was removed"; fi; }
gone() { if grep -q "^$1=" "$_out"; then fail "  ...$1 is still there"; else pass "  ...$1 is gone"; fi; }

expect_status 0 "unconfined: the command sees the fake token" "${E[@]}" env
has GITHUB_TOKEN
expect_status 0 "by default the environment is the host's" "${E[@]}" "$L" --sandbox -- env
has GITHUB_TOKEN
expect_status 0 "--scrub-env" "${E[@]}" "$L" --sandbox --scrub-env --keep-env KEEP_ME_TOKEN -- env
for v in GITHUB_TOKEN OPENAI_API_KEY AWS_SECRET_ACCESS_KEY AWS_ACCESS_KEY_ID DB_PASSWORD \
         npm_config__authToken PGPASSWORD MY_SECRET; do
  gone "$v"
done
for v in PATH TOKENIZERS_PARALLELISM SSH_AUTH_SOCK PASSWORD_STORE_DIR KEEP_ME_TOKEN; do
  has "$v"
done
grep -c "$TOK" "$_out" | grep -qx 1 && pass "  ...only the kept one still holds the token" ||
  fail "  ...the token shows up elsewhere"
expect_status 0 "--drop-env SSH_AUTH_SOCK removes the agent socket too" \
  "${E[@]}" "$L" --sandbox --scrub-env --drop-env SSH_AUTH_SOCK -- env
gone SSH_AUTH_SOCK
has PATH
expect_status 0 "--drop-env without --scrub-env removes just that" \
  "${E[@]}" "$L" --sandbox --drop-env GITHUB_TOKEN -- env
gone GITHUB_TOKEN
has OPENAI_API_KEY
expect_status 2 "--keep-env with '=' is a usage error" "$L" --sandbox --keep-env A=B -- true
expect_status 0 "--explain lists what would be removed" "${E[@]}" "$L" --explain --scrub-env -- true
expect_output_has "GITHUB_TOKEN" "  ...by name"
if grep -q "$TOK" "$_out" "$_err"; then fail "  ...and shows a value"; else pass "  ...and never a value"; fi
expect_status 0 "--explain --json too" "${E[@]}" "$L" --explain --json --scrub-env -- true
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["launch"]["env_removes"]; assert "GITHUB_TOKEN" in r and "PATH" not in r and "TOKENIZERS_PARALLELISM" not in r, r' "$_out" 2>"$_err"; then
  pass "  ...as launch.env_removes"; else fail "  ...env_removes is wrong"; sed 's/^/    | /' "$_err" | head -3; fi
# With protected paths the guard forks first; the child that execs is the
# one whose environment is scrubbed.
if have guard; then
  expect_status 0 "--scrub-env with --protect-secrets (the guard's child)" \
    "${E[@]}" "$L" --sandbox --protect-secrets --scrub-env -- env
  gone GITHUB_TOKEN
  has PATH
else
  skip "guard: --protect-secrets needs the creation guard"
fi
finish
