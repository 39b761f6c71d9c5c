#!/usr/bin/env bash
# Review 18c: copies of home credentials (~/.npmrc.bak, ~/.kube.bak/config),
# vim's and GNU's copy names, credential paths moved by the environment
# (absolute or relative to the working directory). Each read is first shown
# printing the token unconfined, then refused confined; creations are checked
# from outside.
. "$SBX_TESTLIB"
T=sbx-names-token-18c
# Outside /tmp: the sandbox writes /tmp, so a home beneath it is refused.
home=$(mktemp -d /var/tmp/sbx-names.XXXXXX)
trap 'rm -rf "$home"' EXIT
proj=$home/proj
mkdir -p "$home/.config/gcloud.bak" "$home/.kube.bak" "$home/.docker~" "$proj/kc" "$proj/dc" \
  "$home/xdg/gh" "$home/cargo" "$home/gpg"
for f in .npmrc.bak .pgpass~ .git-credentials.orig .my.cnf.old .config/gcloud.bak/creds \
  .kube.bak/config '.docker~/config.json' .npmrc.~1~ proj/.id_ed25519.swp proj/id_ed25519.~1~ \
  proj/kc/config proj/dc/config.json xdg/gh/hosts.yml cargo/credentials.toml gpg/key aws-creds; do
  echo "$T" >"$home/$f"
done
export HOME=$home
cd "$proj" || exit 1
require guard "--sandbox --protect-secrets" "$L" --sandbox --protect-secrets -- true
S=("$L" --sandbox --protect-secrets --project "$proj" --)

# leak NAME CMD...: CMD prints the token unconfined, and not confined.
leak() {
  local what=$1; shift
  if "$@" 2>/dev/null | grep -qF "$T"; then pass "unconfined: $what prints the token"; else fail "unconfined: $what does not print the token"; fi
  if "${S[@]}" "$@" 2>/dev/null | grep -qF "$T"; then fail "confined: $what leaks the token"; else pass "confined: $what is refused"; fi
}
for f in .npmrc.bak .pgpass~ .git-credentials.orig .my.cnf.old .config/gcloud.bak/creds \
  .kube.bak/config '.docker~/config.json' .npmrc.~1~ proj/.id_ed25519.swp proj/id_ed25519.~1~; do
  leak "cat ~/$f" cat "$home/$f"
done
export KUBECONFIG=kc/config DOCKER_CONFIG=dc
leak "relative KUBECONFIG and DOCKER_CONFIG" cat kc/config dc/config.json
unset KUBECONFIG DOCKER_CONFIG
export XDG_CONFIG_HOME=$home/xdg CARGO_HOME=$home/cargo GNUPGHOME=$home/gpg AWS_SHARED_CREDENTIALS_FILE=$home/aws-creds
leak "XDG_CONFIG_HOME/gh, CARGO_HOME, GNUPGHOME, AWS_SHARED_CREDENTIALS_FILE" \
  cat "$home/xdg/gh/hosts.yml" "$home/cargo/credentials.toml" "$home/gpg/key" "$home/aws-creds"
unset XDG_CONFIG_HOME CARGO_HOME GNUPGHOME AWS_SHARED_CREDENTIALS_FILE

# Round 3: the copies editors leave that round 2 missed (Emacs auto-save,
# nano's later copies, vim undo, Kate swap), and credential locations five
# more variables move.
mkdir -p "$home/ghc"
for f in 'proj/#server.key#' proj/id_ed25519.save.1 proj/.id_ed25519.un~ proj/.server.key.kate-swp \
  ghc/hosts.yml pgpass-moved sa.json netrc-moved tfrc-moved; do
  echo "$T" >"$home/$f"
done
for f in 'proj/#server.key#' proj/id_ed25519.save.1 proj/.id_ed25519.un~ proj/.server.key.kate-swp; do
  leak "cat ~/$f" cat "$home/$f"
done
export GH_CONFIG_DIR=$home/ghc PGPASSFILE=$home/pgpass-moved GOOGLE_APPLICATION_CREDENTIALS=$home/sa.json \
  NETRC=$home/netrc-moved TERRAFORM_CONFIG=$home/tfrc-moved
leak "GH_CONFIG_DIR, PGPASSFILE, GOOGLE_APPLICATION_CREDENTIALS, NETRC, TERRAFORM_CONFIG" \
  cat "$home/ghc/hosts.yml" "$home/pgpass-moved" "$home/sa.json" "$home/netrc-moved" "$home/tfrc-moved"
unset GH_CONFIG_DIR PGPASSFILE GOOGLE_APPLICATION_CREDENTIALS NETRC TERRAFORM_CONFIG
rm -f "$home/proj/#server.key#"
"${S[@]}" sh -c "echo $T > '$home/proj/#server.key#'" >/dev/null 2>&1
if [ -e "$home/proj/#server.key#" ]; then fail "confined: #server.key# was created"; else pass "confined: creating #server.key# is refused"; fi

# Creating a copy name of a home credential is refused (the guard), seen from outside.
rm -f "$home/.npmrc.save"
"${S[@]}" sh -c "echo $T > '$home/.npmrc.save'" >/dev/null 2>&1
if [ -e "$home/.npmrc.save" ]; then fail "confined: ~/.npmrc.save was created"; else pass "confined: creating ~/.npmrc.save is refused"; fi
if sh -c "echo $T > '$home/.npmrc.save'" && [ -e "$home/.npmrc.save" ]; then
  pass "unconfined: ~/.npmrc.save can be created"
else
  fail "unconfined: ~/.npmrc.save cannot be created"
fi
finish
