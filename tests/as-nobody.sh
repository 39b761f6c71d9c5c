#!/usr/bin/env bash
# Run one test as the unprivileged user nobody. The build tree may sit where
# nobody cannot read it, so the test and what it uses are copied to a fresh
# world-readable directory first. Exits 77 (skip) unless run as root.
set -eu
[ "$(id -u)" = 0 ] || { echo "skip: root: as-nobody: not root, nothing to switch from [profile: no root]"; exit 77; }
command -v setpriv >/dev/null || { echo "skip: setpriv: as-nobody: setpriv missing (util-linux) [profile: no setpriv]"; exit 77; }
# Outside /tmp: the sandbox writes /tmp, so a home beneath it is refused.
work=$(mktemp -d /var/tmp/sbx-nobody.XXXXXX)
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
mkdir -p "$work/home" "$work/run"
chown 65534:65534 "$work/home" "$work/run"
cp "$SBX_LAUNCHER" "$work/sandbox-exec-launcher"
[ -d "$SBX_PROBES" ] && cp -r "$SBX_PROBES" "$work/probes"
cp "$SBX_TESTLIB" "$work/lib.sh"
args=()
for a in "$@"; do
  if [ -f "$a" ] && [ "${a#/}" != "$a" ] && [ "${a#/usr/}" = "$a" ] && [ "${a#/bin/}" = "$a" ]; then
    cp "$a" "$work/$(basename "$a")"
    args+=("$work/$(basename "$a")")
  else
    args+=("$a")
  fi
done
chmod -R a+rX "$work"
cd "$work/run"
status=0
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
  env HOME="$work/home" PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin SBX_LAUNCHER="$work/sandbox-exec-launcher" SBX_PROBES="$work/probes" \
      SBX_TESTLIB="$work/lib.sh" SBX_AS_NOBODY=1 TMPDIR=/tmp "${args[@]}" || status=$?
exit "$status"
