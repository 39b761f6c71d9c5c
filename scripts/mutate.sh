#!/usr/bin/env bash
# Mutation testing: break the implementation one realistic way at a time and
# check that the test suite notices. Each mutation is one exact text
# replacement in one file (it must match exactly once, or the mutation is
# reported STALE: the code moved and the mutation needs updating). The tree
# is copied to a scratch directory and built once; per mutation the file is
# changed, rebuilt, the whole default-preset ctest run plus the skip report
# (a mutation that only turns tests into skips is caught there), and restored.
# Usage: scripts/mutate.sh [-k] [-t CTEST-REGEX] [NAME...]
#   -k  keep the scratch tree; -t run only matching tests (faster, less honest)
# Exit 0 when every mutation run was caught.
set -euo pipefail
cd "$(dirname "$0")/.."
keep=0 regex=
while getopts kt: o; do
  case $o in k) keep=1 ;; t) regex=$OPTARG ;; *) exit 3 ;; esac
done
shift $((OPTIND - 1))

# NAME|FILE|OLD|NEW  (OLD/NEW in python string syntax, \n allowed)
MUTATIONS=(
  'guard-rule-mknod|src/linux/seccomp_rules.c|    ALWAYS(CREATE, "mknod", SBX_SC_NOTIFY, "creates a name (mkfifo too)"),\n|'
  'guard-rule-link|src/linux/seccomp_rules.c|    ALWAYS(CREATE, "link", SBX_SC_NOTIFY, "creates a name"),\n|'
  'guard-rule-renameat|src/linux/seccomp_rules.c|    ALWAYS(CREATE, "renameat", SBX_SC_NOTIFY, "gives a file a new name"),\n|'
  'btrfs-snap-destroy-v1|src/linux/seccomp_rules.c|    MASKED(FS \| CREATE, "ioctl", 1, 0xffffffffu, SBX_BTRFS_IOC_SNAP_DESTROY, SBX_SC_EPERM,\n           "request is BTRFS_IOC_SNAP_DESTROY", "removes a subvolume Landlock never checks"),\n|'
  'i386-mq-timedreceive-time64|src/linux/seccomp_rules.c|    ALWAYS(RO, "mq_timedreceive_time64", SBX_SC_EPERM, "POSIX message queues, 32-bit ABI"),\n|'
  'mask-landlock-lock|src/linux/mask.c|    if (sbx_ll_restrict_self(m->ruleset_fd, 0) != 0)\n        goto fail;\n|'
  'mask-unreadable-foreign-dir|src/linux/mask.c|        if (errno == EACCES \&\& stat(path, \&st) == 0 \&\& st.st_uid != geteuid())\n            return SANDBOX_OK;\n|        (void)st;\n'
  'guard-exchange-old-name|src/linux/guard.c|(c.flags \& RENAME_EXCHANGE) ? CHECK_TREE : CHECK_NONE,|CHECK_NONE,'
  'guard-notif-id-valid|src/linux/guard.c|    if (ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, \&id) != 0)\n        goto out;\n    if (e)\n        goto answer;|    (void)id;\n    if (e)\n        goto answer;'
  'guard-check-opened|src/linux/guard.c|    if (!e \&\& !created \&\& (e = check_opened(fd)) != 0)\n        close(fd);|    if (!e \&\& !created \&\& (e = (check_opened(fd), 0)) != 0)\n        close(fd);'
  'guard-pdeathsig|src/linux/guard.c|    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 \|\| getppid() != parent)|    if (getppid() != parent)'
  'guard-available-says-no|src/linux/guard.c|    snprintf(detail, size, "seccomp user notification");\n    return 1;|    snprintf(detail, size, "seccomp user notification");\n    return 0;'
)

work=$(mktemp -d /tmp/sbx-mutate.XXXXXX)
chmod 755 "$work"   # the nobody twins read the build tree
[ "$keep" = 1 ] || trap 'rm -rf "$work"' EXIT
echo "mutate: copying the tree to $work"
git ls-files -z --cached --others --exclude-standard | tar -c --null -T - | tar -x -C "$work"
cd "$work"
cmake --preset default >/dev/null
echo "mutate: building the unmutated tree"
cmake --build --preset default -j2 >build.log 2>&1 || { tail -20 build.log; exit 1; }

# The unmutated tree must pass, or a failure would count as a catch.
echo "mutate: the suite on the unmutated tree"
ctest_args=(--preset default -j2)
[ -n "$regex" ] && ctest_args+=(-R "$regex")
if ! ctest "${ctest_args[@]}" >ctest-baseline.log 2>&1 ||
   ! bash scripts/skip-report.sh build/default >skips-baseline.log 2>&1; then
  echo "mutate: the unmutated tree fails; fix that first:"
  grep -E '^\s+[0-9]+ - ' ctest-baseline.log || true
  grep UNJUSTIFIED skips-baseline.log || true
  exit 1
fi

# apply FILE OLD NEW: replace OLD (exactly once) in FILE; 1 if it is not there once.
apply() {
  python3 - "$@" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
dec = lambda s: s.encode().decode("unicode_escape")
old, new = dec(old), dec(new)
text = open(path).read()
if text.count(old) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(old, new))
PY
}

results=()
status=0
for m in "${MUTATIONS[@]}"; do
  # Split on unescaped |; "\|" and "\&" stand for | and & inside the texts.
  IFS=$'\x1f' read -r name file old new < <(printf '%s\n' "$m" | sed 's/\\|/\x1e/g; s/|/\x1f/g; s/\x1e/|/g; s/\\&/\&/g')
  if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then continue; fi
  cp "$file" "$file.orig"
  if ! apply "$file" "$old" "$new"; then
    results+=("$name|STALE (the text to mutate is not in $file exactly once)")
    status=1
    rm "$file.orig"
    continue
  fi
  start=$SECONDS
  if ! cmake --build --preset default -j2 >"build-$name.log" 2>&1; then
    results+=("$name|caught by the build ($(grep -m1 error "build-$name.log" | cut -c1-80))")
  else
    got=0
    ctest "${ctest_args[@]}" >"ctest-$name.log" 2>&1 || got=$?
    failed=$(grep -E '^\s+[0-9]+ - ' "ctest-$name.log" | awk '{print $3}' | tr '\n' ' ')
    skips=0
    bash scripts/skip-report.sh build/default >"skips-$name.log" 2>&1 || skips=$?
    if [ "$got" != 0 ]; then
      results+=("$name|caught: ${failed:-ctest failed} ($((SECONDS - start)) s)")
    elif [ "$skips" != 0 ]; then
      results+=("$name|caught by the skip report: $(grep -c UNJUSTIFIED "skips-$name.log") unjustified skips")
    else
      results+=("$name|NOT CAUGHT: the suite passed with this mutation")
      status=1
    fi
  fi
  mv "$file.orig" "$file"
  echo "mutate: ${results[-1]}"
done
# Leave the build matching the unmutated tree.
cmake --build --preset default -j2 >/dev/null 2>&1 || true

echo
echo "| mutation | result |"
echo "| --- | --- |"
for r in "${results[@]}"; do echo "| ${r%%|*} | ${r#*|} |"; done
exit "$status"
