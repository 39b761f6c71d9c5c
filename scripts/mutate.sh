#!/usr/bin/env bash
# Mutation testing: break the implementation one realistic way at a time and
# check that the test suite notices. Each mutation is one exact text
# replacement in one file (it must match exactly once, or the mutation is
# reported STALE: the code moved and the mutation needs updating). The tree
# is copied to a scratch directory and built once; per mutation the file is
# changed, rebuilt, the whole default-preset ctest run plus the skip report
# (a mutation that only turns tests into skips is caught there), and restored.
# A catch must be for the mutation's reason. On a loaded machine a test also
# fails from load (ctest's "Timeout", a watchdog alarm, a throughput floor),
# so every test that failed runs again alone with a generous limit and counts
# only if it fails again. Each catch is listed with the first failed check of
# each failing test, so a reader can see why it failed.
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
  'guard-copy-openat2|src/linux/seccomp_rules.c|    ALWAYS(FS \| CREATE, "openat2", SBX_SC_ENOSYS,|    ALWAYS(FS, "openat2", SBX_SC_ENOSYS,'
  'i386-mq-timedreceive-time64|src/linux/seccomp_rules.c|    ALWAYS(RO, "mq_timedreceive_time64", SBX_SC_EPERM, "POSIX message queues, 32-bit ABI"),\n|'
  'mask-landlock-lock|src/linux/mask.c|    if (sbx_ll_restrict_self(m->ruleset_fd, 0) != 0)\n        goto fail;\n|'
  'mask-unreadable-foreign-dir|src/linux/mask.c|        if (errno == EACCES \&\& stat(path, \&st) == 0 \&\& st.st_uid != geteuid()) {|        if (errno == EACCES \&\& stat(path, \&st) == 0 \&\& st.st_uid != geteuid() \&\& 0) {'
  'guard-exchange-old-name|src/linux/guard.c|((c.flags \& RENAME_EXCHANGE) ? CHECK_TREE : CHECK_NONE) \| CHECK_MOVE,|CHECK_NONE \| CHECK_MOVE,'
  'guard-notif-id-valid|src/linux/guard.c|    if (!sbx_sup_valid(s, n->id))\n        goto out;\n    if (e)\n        goto answer;|    if (e)\n        goto answer;'
  'guard-check-opened|src/linux/guard.c|    if (!e \&\& !created \&\& (e = check_opened(q, fd)) != 0)\n        close(fd);|    if (!e \&\& !created \&\& (e = (check_opened(q, fd), 0)) != 0)\n        close(fd);'
  'guard-pdeathsig|src/linux/supervisor.c|    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 \|\| getppid() != parent)|    if (getppid() != parent)'
  'guard-available-says-no|src/linux/guard.c|    snprintf(detail, size, "seccomp user notification, Landlock signal scoping");\n    return 1;|    snprintf(detail, size, "seccomp user notification, Landlock signal scoping");\n    return 0;'
  'sup-signal-scope|src/linux/supervisor.c|    attr.scoped = SBX_LL_SCOPE_SIGNAL;|    attr.scoped = 0;'
  'sup-procs-group|src/linux/seccomp_rules.c|    [SBX_SC_V_NET_CONFINED_SUP] = {"net-confined-supervised", NET \| FS \| TTY \| KERNEL \| PROCS, 0,|    [SBX_SC_V_NET_CONFINED_SUP] = {"net-confined-supervised", NET \| FS \| TTY \| KERNEL, 0,'
  'sup-leftovers-kept|src/linux/supervisor.c|    if (s->opts->keep_background)\n        s->phase = SBX_SUP_DRAINING;|    if (1)\n        s->phase = SBX_SUP_DRAINING;'
  'sup-timeout-ignored|src/linux/supervisor.c|        s->flags \|= SBX_RUN_TIMED_OUT;\n        s->deadline.tv_sec = 0;\n        end_tree(s);|        s->flags \|= SBX_RUN_TIMED_OUT;\n        s->deadline.tv_sec = 0;'
  'sup-host-death|src/linux/supervisor.c|    if (prctl(PR_SET_PDEATHSIG, SIGALRM, 0, 0, 0) != 0)|    if (0)'
  'refusal-always-eperm|src/linux/refusal.c|        s->plan->deny_action == SANDBOX_DENY_EPERM) {|        1) {'
  'refusal-uncaught-lives|src/linux/refusal.c|    } else {\n        kill_waiting(w);\n        record(s, w, SBX_ACT_SIGKILL);\n        release(s, w);\n    }\n    sbx_sup_respond(s, n->id, 0, EPERM);|    } else {\n        record(s, w, SBX_ACT_SIGKILL);\n        release(s, w);\n    }\n    sbx_sup_respond(s, n->id, 0, EPERM);'
  'refusal-resethand-killed|src/linux/refusal.c|(w->had_handler \&\& !(ti->sig_ignored \& sigsys_bit))|(0 \&\& w->had_handler)'
  'refusal-no-defer|src/linux/refusal.c|        w->state = SBX_WAIT_DEFER;\n        s->room_short = 1;\n        return;\n    }|    }'
  'refusal-no-room|src/linux/refusal.c|    return ok;|    (void)ok;\n    return 1;'
  'refusal-wait-status-ignored|src/linux/refusal.c|    return st >= 0 \&\& WIFSIGNALED(st) \&\& WTERMSIG(st) == SIGSYS ? SBX_ACT_SIGSYS : SBX_ACT_ENDED;|    (void)st;\n    return SBX_ACT_SIGSYS;'
  'records-drop-uncounted|src/linux/records.c|        if (a->dropped < UINT32_MAX)\n            a->dropped++;\n        return;|        return;'
  'describe-status-certain|src/describe.c|            return copy_out(buf, size, net_sigsys_hedged);|            return copy_out(buf, size, ((void)net_sigsys_hedged, "blocked by the network sandbox: SIGSYS."));'
  'rootfs-harden-skipped|src/linux/rootfs.c|    if (harden_mounts(keep, n_keep, sys_errno) != 0)|    if (0 \&\& harden_mounts(keep, n_keep, sys_errno) != 0)'
  'rootfs-own-devices-noop|src/linux/rootfs.c|    if (sbx_fd_each(0, reopen_mem_device, \&e) != 0) {|    if (0 \&\& sbx_fd_each(0, reopen_mem_device, \&e) != 0) {'
  'rootfs-proc-ro-skipped|src/linux/rootfs.c|    if (syscall(SYS_mount_setattr, AT_FDCWD, "/proc", AT_RECURSIVE, ro, sizeof ro) == 0)|    if (1 \|\| syscall(SYS_mount_setattr, AT_FDCWD, "/proc", AT_RECURSIVE, ro, sizeof ro) == 0)'
  'rootfs-slave|src/linux/rootfs.c|    if (mount(NULL, "/", NULL, MS_REC \| MS_PRIVATE, NULL) != 0) {|    if (mount(NULL, "/", NULL, MS_REC \| MS_SLAVE, NULL) != 0) {'
  'rootfs-check-skips-proc-sys|src/linux/rootfs.c|    if (!apply) {\n        if (!found[0])|    if (!apply) {\n        if ((strncmp(f[4], "/proc", 5) == 0 \&\& (f[4][5] == '\''/'\'' \|\| !f[4][5])) \|\|\n            (strncmp(f[4], "/sys", 4) == 0 \&\& (f[4][4] == '\''/'\'' \|\| !f[4][4])))\n            return 0;\n        if (!found[0])'
  'rootfs-check-proc-paths-skipped|src/linux/rootfs.c|        if (lstat(proc_needs_ro[i], \&st) == 0 \&\& !read_only_mount(proc_needs_ro[i]))|        if (0 \&\& lstat(proc_needs_ro[i], \&st) == 0 \&\& !read_only_mount(proc_needs_ro[i]))'
  'rootfs-hidden-setattr|src/linux/rootfs.c|    } else if ((st.stx_mask \& STATX_MNT_ID) \&\& *end == '\''\\0'\'' \&\& st.stx_mnt_id != want) {|    } else if (0 \&\& (st.stx_mask \& STATX_MNT_ID) \&\& *end == '\''\\0'\'' \&\& st.stx_mnt_id != want) {'
  'rootfs-long-line-refused|src/linux/rootfs.c|            if (!skip \&\& (rc = scan_line(start, 0, apply, found, found_size, ids, \&hit,|            if (!skip \&\& (rc = -1 + 0 * scan_line(start, 0, apply, found, found_size, ids, \&hit,'
  'rootfs-check-skips-hidden|src/linux/rootfs.c|    if (!apply) {\n        if (!found[0])|    if (!apply) {\n        unsigned long long at;\n        if (mount_id_of(AT_FDCWD, f[4], \&at) == 0 ? at != id : errno == ENOENT)\n            return 0;\n        if (!found[0])'
  'rootfs-scan-skips-proc|src/linux/rootfs.c|    if (f[4][0] != '\''/'\'' \|\|\n|    if (f[4][0] != '\''/'\'' \|\| (apply \&\& strncmp(f[4], "/proc/", 6) == 0) \|\|\n'
  'rootfs-stacked-proc-exempt|src/linux/rootfs.c| \&\& strcmp(type, "proc") == 0 \&\& id == ids->proc_id) \|\|| \&\& strcmp(type, "proc") == 0) \|\|'
  'rootfs-gone-not-rechecked|src/linux/rootfs.c|    if (ids.gone) {|    if (0 \&\& ids.gone) {'
  'rootfs-mismatch-covered|src/linux/rootfs.c|        rc = 1;\n    } else {\n        rc = (int)syscall(SYS_mount_setattr|        rc = 0;\n    } else {\n        rc = (int)syscall(SYS_mount_setattr'
  'rootfs-unreached-ignored|src/linux/rootfs.c|        if (again.gone \&\& unreached_read_only(again.proc_id, sys_errno) != 0)|        if (again.gone \&\& 0 \&\& unreached_read_only(again.proc_id, sys_errno) != 0)'
  'rootfs-restore-kernel|src/linux/rootfs.c|    return mi_writable(line, end) \&\& (!mi_kernel(line, end) \|\| mi_proc_root(line, end, proc_id));|    return mi_writable(line, end);'
  'rootfs-restore-refuse-off|src/linux/rootfs.c|    if (rc == 0 \&\& m.n) {|    if (0 \&\& rc == 0 \&\& m.n) {'
  'rootfs-restore-hidden-stacked-only|src/linux/rootfs.c|    return yl < zl \&\& (yl == 1 ? y[0] == '"'"'/'"'"' : memcmp(y, z, yl) == 0 \&\& z[yl] == '"'"'/'"'"');|    return 0;'
  'rootfs-restore-eacces-missed|src/linux/rootfs.c|        return errno == EACCES \&\& mi_foreign_fuse(l, e) ? 0 : 1;|        return errno == EACCES \&\& mi_foreign_fuse(l, e) \&\& 0 ? 0 : 1;'
  'rootfs-restore-eacces-any|src/linux/rootfs.c|        return errno == EACCES \&\& mi_foreign_fuse(l, e) ? 0 : 1;|        return errno == EACCES \&\& (mi_foreign_fuse(l, e) \|\| 1) ? 0 : 1;'
  'rootfs-restore-statx-sync|src/linux/rootfs.c|hang the launch here (review r49 H1). */\n    if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH \| AT_NO_AUTOMOUNT \| AT_STATX_DONT_SYNC,\n                STATX_MNT_ID, \&st) != 0) {|hang the launch here (review r49 H1). */\n    if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH \| AT_NO_AUTOMOUNT,\n                STATX_MNT_ID \| STATX_BASIC_STATS, \&st) != 0) {'
  'rootfs-unreached-sweep-off|src/linux/rootfs.c|    r = unreached_kernel_mounts(ids.proc_id, sys_errno);|    r = 1 + 0 * unreached_kernel_mounts(ids.proc_id, sys_errno);'
  'rootfs-unreached-sweep-root-only|src/linux/rootfs.c|            up = sm_u64(sm, SBX_SM_MNT_PARENT);\n        }|            up = sm_u64(sm, SBX_SM_MNT_PARENT);\n            if (up != root)\n                break;\n        }'
  'supervisor-subreaper-unset|src/linux/supervisor.c|        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {|        0) {'
  'guard-ptrace-not-kept|src/linux/backend.c|        sbx_mask_apply(plan->mask, !plan->rootfs, ro, plan->sup \&\& plan->guard, sys_errno) != 0)|        sbx_mask_apply(plan->mask, !plan->rootfs, ro, 0, sys_errno) != 0)'
  'guard-ptrace-always-effective|src/linux/guard.c|    d[0].effective = on ? d[0].effective \| bit : d[0].effective \& ~bit;|    d[0].effective \|= bit;'
  'supervisor-failrun-no-treekill|src/linux/supervisor.c|        kill_all(s->child);\n        _exit(126);|        if (s->child > 0)\n            kill(s->child, SIGKILL);\n        if (0)\n            kill_all(s->child);\n        _exit(126);'
  'supervisor-failrun-after-exit-126|src/linux/supervisor.c|    if (!s->child_done) {\n        kill_all(s->child);|    if (1) {\n        kill_all(s->child);'
  'launcher-orphans-kept|launcher/supervised.c|        end_orphans(\&own);\n|        if (0)\n            end_orphans(\&own);\n'
  'spawn-supervisor-death-unsaid|src/linux/spawn.c|        d->flags = SBX_RUN_SUP_FAILED;\n        d->sup_fail = SBX_SUP_FAIL_DIED;|        d->flags = 0;\n        d->sup_fail = SBX_SUP_FAIL_DIED;'
  'supervisor-failure-silent|src/linux/supervisor.c|        a->flags \|= s->flags \| SBX_RUN_SUP_FAILED;|        (void)a;'
  'rootfs-nosa-fds-skipped|src/linux/backend.c|    if (plan->root_nosa) {\n        int which, kind = sbx_rootfs_nosa_check(\&which);|    if (0 \&\& plan->root_nosa) {\n        int which, kind = sbx_rootfs_nosa_check(\&which);'
  'rootfs-mountinfo-absent-ok|src/linux/rootfs.c|    if (fd < 0)\n        return fail(sys_errno);\n    if (fstatfs(fd, \&fs)|    if (fd < 0)\n        return 0;\n    if (fstatfs(fd, \&fs)'
  'rootfs-mountinfo-any-fs|src/linux/rootfs.c|    if (fstatfs(fd, \&fs) != 0 \|\| fs.f_type != PROC_SUPER_MAGIC) {|    if (fstatfs(fd, \&fs) != 0) {'
  'rootfs-table-not-own|src/linux/rootfs.c|            if (rc == 0 \&\& ids->seen != (1u << ids->n) - 1) {|            if (0 \&\& rc == 0 \&\& ids->seen != (1u << ids->n) - 1) {'
  'rootfs-nosa-dirs-allowed|src/linux/rootfs.c|    else if ((fm >= 0 \&\& (fm \& O_PATH)) \|\| (fstat(fd, \&st) == 0 \&\& S_ISDIR(st.st_mode)))|    else if (0 \&\& ((fm >= 0 \&\& (fm \& O_PATH)) \|\| (fstat(fd, \&st) == 0 \&\& S_ISDIR(st.st_mode))))'
  'rootfs-nosa-cwd-unlisted|src/linux/rootfs.c|        if (mount_id_of(AT_FDCWD, dirs[i], \&ids.id[ids.n]) == 0)|        if (0 \&\& mount_id_of(AT_FDCWD, dirs[i], \&ids.id[ids.n]) == 0)'
  'guard-project-lock-unopened|src/linux/guardlock.c|    return dir ? open(dir, O_RDONLY \| O_DIRECTORY \| O_CLOEXEC) : -1;|    return dir ? -1 : -1;'
  'guard-backlog-unused|src/linux/guardwork.c|        if (s->n_backlog >= SBX_GUARD_BACKLOG)\n            return EAGAIN;|        return EAGAIN;'
  'guard-dead-worker-unanswered|src/linux/guardwork.c|            sbx_sup_respond(s, w->id, -1, EAGAIN);\n|'
  'guard-worker-installs|src/linux/guard.c|        if (!e \&\& s->guard_worker > 0) {|        if (!e \&\& s->guard_worker > 0 \&\& 0) {'
  'guard-handover-unanswered|src/linux/guardwork.c|        a.flags = SECCOMP_ADDFD_FLAG_SEND;|        a.flags = 0;'
  'guard-handover-refused-eagain|src/linux/guard.c|            if (sbx_work_hand(s, q->id, fd, (c.flags \& O_CLOEXEC) != 0) == 0) {|            if (sbx_work_hand(s, q->id, fd, (c.flags \& O_CLOEXEC) != 0) == 0 \|\| 1) {'
  'launch-toomanyrefs-silent|src/linux/supervisor.c|        m.step = own_step(plan);\n        m.err = errno;\n        msg.msg_control = NULL;|        _exit(126);\n        msg.msg_control = NULL;'
  'guard-worker-addfd-send|src/linux/guard.c|            a.flags = s->guard_worker > 0 ? 0 : SECCOMP_ADDFD_FLAG_SEND;|            a.flags = SECCOMP_ADDFD_FLAG_SEND;'
  'supervisor-reaped-pid-reused|src/linux/supervisor.c|    if (sbx_tree_reap(s->child_done ? 0 : s->child, \&status, \&s->cpu_ms, none)) {|    if (sbx_tree_reap(s->child, \&status, \&s->cpu_ms, none)) {'
  'standin-access-unchecked|src/linux/mask.c|            may[k++] = faccessat(AT_FDCWD, m->e[i].path, W_OK, AT_EACCESS) == 0;|            may[k++] = 1;'
  'standin-no-drain|src/linux/supervisor.c|        for (round = 0; round < 4 \&\& covers_accept(s, k) == 64; round++)|        for (round = 0; 0 \&\& round < 4 \&\& covers_accept(s, k) == 64; round++)'
  'standin-root-none|src/linux/unixep.c|        if (cov \&\& !l->e[i].named \&\& sbx_unix_cover(cov, l->e[i].real,|        if (0 \&\& cov \&\& !l->e[i].named \&\& sbx_unix_cover(cov, l->e[i].real,'
  'standin-verify-skipped|src/linux/unixep.c|    if (ok)\n        ok = mount(a.sun_path, target, NULL, MS_BIND, NULL) == 0;|    ok = mount(name, target, NULL, MS_BIND, NULL) == 0;'
  'standin-tree-unchecked|src/linux/supervisor.c|            sbx_tree_has(cred.pid) == 0) {|            0) {'
  'standin-enclosing-ignored|src/linux/unixep.c|    if (enclosing_standin(w.real))\n        goto out;|    if (0 \&\& enclosing_standin(w.real))\n        goto out;'
  'launcher-alloc-no-reuse|launcher/alloc.c|    if (free_list[c]) {|    if (0 \&\& free_list[c]) {'
  'launcher-alloc-dropped|CMakeLists.txt|                        ${PROJECT_SOURCE_DIR}/launcher/alloc.c)|)'
  'unixep-quick-off|src/linux/unixep.c|    if (!strict \&\& path \&\& path[0] == '\''/'\'' \&\& quick_absent(path))|    if (0 \&\& !strict \&\& path \&\& path[0] == '\''/'\'' \&\& quick_absent(path))'
  'unixep-quick-follows|src/linux/unixep.c|    how.resolve = RESOLVE_NO_SYMLINKS;\n    fd = (int)syscall(SYS_openat2, AT_FDCWD, path, \&how, sizeof how);|    how.resolve = 0;\n    fd = (int)syscall(SYS_openat2, AT_FDCWD, path, \&how, sizeof how);'
  'launcher-alloc-double-free|launcher/alloc.c|    if (h->state != IN_USE \|\| (h->c != BIG \&\& h->c >= N_CLASS))\n        abort();|'
  'launcher-alloc-big-step|launcher/alloc.c|        size_t want = n > have + have / 2 ? n : have + have / 2;|        size_t want = n;'
  'guard-caller-unwatched|src/linux/guardwork.c|    w->caller_fd = caller_pidfd(s, tid);|    w->caller_fd = 0 * caller_pidfd(s, tid);'
  'cover-name-unchecked|src/linux/unixep.c|             now.st_dev == st.st_dev \&\& now.st_ino == st.st_ino \&\& unlink(name) == 0;|             unlink(name) == 0;'
  'nested-proxy-unrecognised|src/linux/unixep.c|        else if (ends_tag_hex(root, deleted ? del : end, "/libsandbox/dbus-", \&hex) \&\&|        else if (0 \&\&'
  'nested-proxy-for-named|src/linux/unixep.c|        if (!named \&\& what == session_bus)\n            goto out;|        goto out;'
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

ctest_args=(--preset default -j2)
[ -n "$regex" ] && ctest_args+=(-R "$regex")

# first_fail LOG: "test|its first failed check" for each failed test of a
# ctest LastTest.log (bash tests print "FAIL - ...", cmocka "ERROR:" or "[   LINE   ]").
first_fail() {
  awk '
    /^[0-9]+\/[0-9]+ Testing: / { test = $3; first = ""; next }
    /^(FAIL - |ERROR: |\[  ERROR   \] |\[   LINE   \] |\[  FAILED  \] [a-z])/ && first == "" { first = $0 }
    /^Test Failed\./ { print test "|" (first == "" ? "no failed check printed" : first) }
  ' "$1"
}

# run_suite TAG: ctest and the skip report once. Every test that failed
# there runs again alone, with room (--timeout 1800): on two shared cores a
# test also fails from load (a timeout, a watchdog alarm, a throughput
# floor), which says nothing about the mutation. A failure counts only if
# it comes back alone. Sets caught ("test (first failed check); ..."),
# flaky (failed in the suite, not alone) and skipbad (unjustified skips).
run_suite() {
  local tag=$1 t why
  local -a failed=()
  caught='' flaky='' skipbad=0
  ctest "${ctest_args[@]}" >"ctest-$tag.log" 2>&1 || true
  bash scripts/skip-report.sh build/default >"skips-$tag.log" 2>&1 ||
    skipbad=$(grep -c UNJUSTIFIED "skips-$tag.log" || true)
  mapfile -t failed < <(grep -E '^\s+[0-9]+ - ' "ctest-$tag.log" | awk '{print $3}')
  : >"fails-$tag.txt"
  for t in "${failed[@]}"; do
    why=$(grep -E "^\s+[0-9]+ - ${t//./\\.} " "ctest-$tag.log" | awk '{print $NF}')
    if ctest --preset default --timeout 1800 -R "^${t//./\\.}\$" >"ctest-$tag-$t.log" 2>&1; then
      flaky+="$t $why in the suite, passed alone; "
    elif grep -q '(Timeout)' "ctest-$tag-$t.log"; then
      flaky+="$t $why in the suite, timed out alone too; "
    else
      first_fail build/default/Testing/Temporary/LastTest.log >>"fails-$tag.txt"
    fi
  done
  caught=$(awk -F'|' '{ printf "%s%s (%s)", (NR > 1 ? "; " : ""), $1, substr($2, 1, 150) }' "fails-$tag.txt")
}

# The unmutated tree must pass, or a failure would count as a catch.
echo "mutate: the suite on the unmutated tree"
run_suite baseline
[ -n "$flaky" ] && echo "mutate: baseline, not counted: $flaky"
if [ -n "$caught" ] || [ "$skipbad" != 0 ] || [[ $flaky == *"alone too"* ]]; then
  echo "mutate: the unmutated tree fails; fix that first:"
  [ -n "$caught" ] && echo "  $caught"
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
    # A mutation that does not compile shows nothing about the tests.
    results+=("$name|DOES NOT BUILD, fix the mutation: $(grep -m1 error "build-$name.log" | cut -c1-100)")
    status=1
  else
    run_suite "$name"
    note=${flaky:+ [not counted: $flaky]}
    if [ -n "$caught" ]; then
      results+=("$name|caught ($((SECONDS - start)) s): $caught$note")
    elif [ "$skipbad" != 0 ]; then
      results+=("$name|caught by the skip report: $skipbad unjustified skips$note")
    else
      results+=("$name|NOT CAUGHT: the suite passed with this mutation$note")
      status=1
    fi
  fi
  # Restore with a new mtime: mv keeps the copy's old one, older than the
  # mutated build's objects, and make would keep the mutation built into every
  # later run (the likely cause of the false test_rule_table catches).
  mv "$file.orig" "$file"
  touch "$file"
  echo "mutate: ${results[-1]}"
done
# Leave the build matching the unmutated tree.
cmake --build --preset default -j2 >/dev/null 2>&1 || true

echo
echo "| mutation | result |"
echo "| --- | --- |"
for r in "${results[@]}"; do echo "| ${r%%|*} | ${r#*|} |"; done
exit "$status"
