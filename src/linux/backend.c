/* Linux backend: prepare a plan, then apply it with a handful of syscalls.
 *
 * The order of apply is deliberate:
 *   1. no_new_privs: required for unprivileged Landlock and seccomp, and makes
 *      setuid/file-capability binaries powerless for everything run inside;
 *   1b. protected paths (mask.c): namespace + masks need capabilities that the
 *      later steps take away, so they come right after no_new_privs;
 *   2. capabilities (every confining mode): dropped before anything can exec,
 *      and before Landlock and seccomp, which need none of them;
 *   3. Landlock: restrict_self needs no syscall the filter could refuse later;
 *   4. seccomp last: once loaded, nothing else has to be allowed through it.
 * Before all of them, core dumps are switched off (soft and hard limit 0).
 */
#define _GNU_SOURCE
#include "linux.h"
#include "landlock.h"
#include "supervisor.h"
#include "reslimits.h"
#include "../backend.h"
#include "../scanindex.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The start's listener handover refused by the kernel's count of
 * descriptors in flight (supervisor.c, review r63). */
#define TOOMANYREFS_WHY                                                                            \
    " (the kernel would not pass the run's listener: this user's descriptors in flight "           \
    "over unix sockets exceed the open-file limit (the run's --limit-open-files, else the "        \
    "soft limit); a process of this user holds them unreceived, possibly a command of "            \
    "another run: end it, or raise that limit)"

#ifndef SYS_landlock_restrict_self
#  define SYS_landlock_restrict_self 446
#endif

void sbx_linux_plan_release(struct sbx_linux_plan *plan)
{
    if (plan->ruleset_fd >= 0)
        close(plan->ruleset_fd);
    plan->ruleset_fd = -1;
    sbx_mask_free(plan->mask);
    plan->mask = NULL;
    sbx_guard_free(plan->guard);
    plan->guard = NULL;
    sbx_unix_list_free(&plan->unix_eps);
    sbx_rootfs_keep_free(plan->keep, plan->n_keep);
    plan->keep = NULL;
    plan->n_keep = 0;
}

int sbx_linux_prepare_resolved(const sbx_resolved *r, struct sbx_linux_plan *plan, char *warning,
                               size_t warning_size, sandbox_error *err)
{
    int rc;

    memset(plan, 0, sizeof *plan);
    plan->ruleset_fd = -1;
    /* The filter is chosen first: it is the part that must never degrade. */
    rc = sbx_seccomp_select(r, &plan->bpf, &plan->bpf_len, err);
    if (rc == SANDBOX_OK)
        rc = sbx_seccomp_select_userns(r, &plan->userns_bpf, &plan->userns_bpf_len, err);
    if (rc == SANDBOX_OK)
        rc = sbx_landlock_prepare(r, &plan->ruleset_fd, &plan->landlock_flags, warning,
                                  warning_size, err);
    /* Root keeps DAC power but not kernel administration (docs/landlock.md). */
    plan->drop_caps = sbx_caps_drop_mask(r->filesystem, r->network);
    /* uid 0 keeps what only checks the uid: /proc/sys, /sys, the disks. */
    if (rc == SANDBOX_OK && sbx_rootfs_wanted(plan->drop_caps)) {
        int can = sbx_rootfs_check(warning, warning_size, err);
        /* A refusal is a SANDBOX_E_* code, positive: before, it was taken
         * for "can", and the namespace was tried anyway (and failed with a
         * reason that named the wrong cause). */
        if (can == 0 || can == 1) {
            plan->rootfs = can;
            plan->root_nosa = !can;
        } else
            rc = can;
    }
    /* Root owns the system's files: what Landlock leaves it (chmod, chown,
     * times, extended attributes) is refused by read-only mounts outside
     * the roots, which keep their flags. Where Landlock is missing the
     * mode is a warned no-op (writes are not confined either), not this. */
    if (rc == SANDBOX_OK && plan->rootfs && plan->ruleset_fd >= 0)
        rc = sbx_rootfs_keep_plan(r, &plan->keep, &plan->n_keep, err);
    if (rc == SANDBOX_OK)
        rc = sbx_mask_check(r, err);
    /* A macvtap/ipvtap node sends and receives Ethernet frames by plain
     * write and read: no socket for the network rules to refuse, no ioctl,
     * and Landlock does not restrict reads. Root's own /dev holds none; any
     * other caller that can open one gets the network, so do not run. */
    if (rc == SANDBOX_OK && r->network == SANDBOX_NETWORK_DENY && !plan->rootfs) {
        char tap[64];
        int n = sbx_rootfs_openable_taps(tap, sizeof tap);
        if (n > 0)
            rc = sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                          "%s%s can be opened by this user: a macvtap or ipvtap device sends and "
                          "receives raw network frames through read and write, which no network "
                          "rule can refuse; take the access away (chown root:root %s; chmod 600 "
                          "%s) or delete the link (ip link del ...), then run again; the command "
                          "was not run",
                          tap, n > 1 ? " (and others)" : "", tap, tap);
    }
    /* Root's namespace and the masks give the command a devpts instance of
     * its own (no other terminal of the user is reachable), and root a /dev
     * of nodes of its own: apply grants them once they exist, as the
     * device list grants the host's. Read-only mode binds the host's nodes
     * instead (its rules, made here, name null, zero, full and tty) and
     * grants no pty. */
    if (rc == SANDBOX_OK && plan->rootfs && r->filesystem == SANDBOX_FS_READ_ONLY)
        plan->rootfs = SBX_ROOTFS_BIND_NODES;
    if (rc == SANDBOX_OK && r->filesystem == SANDBOX_FS_CONFINED && plan->ruleset_fd >= 0 &&
        (plan->rootfs || r->n_protect > 0)) {
        plan->dev_grant = plan->rootfs ? SBX_DEV_GRANT_DEV : SBX_DEV_GRANT_PTS;
        plan->dev_rights = SBX_LL_FS_WRITE_FILE;
        /* A class handles reads too (landlock_rules.c adds them whenever the
         * ruleset exists): the new /dev and devpts get what the device list
         * gives the host's, or /dev/null and the command's own ptys stop
         * opening. Nothing else is there to read: no other terminal. */
        if (r->reads_confined)
            plan->dev_rights |= SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR;
    }
    /* A socket core_pattern ("@path", "@@path", Linux 6.16+) ignores the
     * limit of 1 that stops pipe helpers, and a dumpable flag cleared before
     * exec is set again by the exec itself: the only sound answer is not to
     * run. The first byte is enough. */
    if (rc == SANDBOX_OK && plan->bpf) {
        char first = 0;
        int fd = openat(AT_FDCWD, "/proc/sys/kernel/core_pattern", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (read(fd, &first, 1) != 1)
                first = 0;
            close(fd);
        }
        if (first == '@')
            rc = sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                          "kernel.core_pattern names a coredump socket ('@'), which the kernel "
                          "serves whatever RLIMIT_CORE is: a crash would hand the command's "
                          "memory to the socket's server outside the sandbox; set a file or "
                          "'|' pattern (sysctl kernel.core_pattern=core), then run again; the "
                          "command was not run");
    }
    if (rc == SANDBOX_OK && plan->bpf) {
        struct rlimit core;
        /* Apply cannot raise a hard limit of 0 to the 1 that stops pipe helpers. */
        if (getrlimit(RLIMIT_CORE, &core) == 0 && core.rlim_max == 0)
            sbx_warn(warning, warning_size,
                     "the hard core-size limit is 0, which core_pattern pipe helpers ignore: "
                     "a crash can still hand the command's memory to one; run with ulimit -Hc 1");
    }
    /* Names created later: the guard, or a refusal to run without it. */
    if (rc == SANDBOX_OK)
        rc = sbx_guard_prepare(r, plan, err);
    /* What a supervised run loads instead (static programs: free to pick). */
    if (rc == SANDBOX_OK)
        rc = sbx_seccomp_select_supervised(r, plan->guard != NULL, plan, err);
    if (rc != SANDBOX_OK)
        sbx_linux_plan_release(plan);
    return rc;
}

int sbx_linux_prepare(const sandbox_policy *policy, struct sbx_linux_plan *plan, char *warning,
                      size_t warning_size, sandbox_error *err)
{
    sbx_resolved r;
    int rc;

    memset(plan, 0, sizeof *plan);
    plan->ruleset_fd = -1;
    rc = sbx_resolve(policy, SANDBOX_TARGET_LINUX, &r, err);
    if (rc != SANDBOX_OK)
        return rc;
    /* Before the command can run: its roots go into the ledger the
     * hard-link index consults, and none may reach the index itself. */
    rc = sbx_ledger_note(&r, warning, warning_size, err);
    /* The two pre-flight scans share what their index checks stat'ed. */
    r.index_memo = sbx_index_memo_new();
    if (rc == SANDBOX_OK && sbx_hardlink_wanted(policy))
        rc = sbx_hardlink_preflight(&r, policy, err);
    if (rc == SANDBOX_OK)
        rc = sbx_linux_prepare_resolved(&r, plan, warning, warning_size, err);
    /* Root's namespace covers the privileged sockets itself: the masks'
     * user namespace would take root's DAC capabilities with it. Listed
     * here for this one run only: a spawn lists them for each command
     * (spawn.c), and a plan's list would go unused (a walk of every listed
     * path, name by name, at every launch). */
    if (rc == SANDBOX_OK && plan->rootfs) {
        rc = sbx_unix_endpoints(&r, &plan->unix_eps, err);
        if (rc == SANDBOX_OK)
            sbx_unix_proxy_buses(&r, &plan->unix_eps);
    }
    if (rc == SANDBOX_OK)
        rc = sbx_mask_prepare(&r, &plan->mask, !plan->rootfs, warning, warning_size, err);
    sbx_index_memo_free(r.index_memo);
    r.index_memo = NULL;
    sbx_resolved_free(&r);
    if (rc != SANDBOX_OK)
        sbx_linux_plan_release(plan);
    return rc;
}

int sbx_linux_plan_for_command(const sbx_resolved *r, struct sbx_linux_plan *run,
                               sandbox_error *err)
{
    char again[512];
    int fd = -1, rc;
    uint32_t flags = 0;

    run->own_ruleset = 0;
    if (!run->dev_grant)
        return SANDBOX_OK;
    /* The same rules, made again: apply adds one for this command's /dev,
     * and a rule added to the shared ruleset would stay there for every
     * later command (growing it, and each domain copied from it). Its
     * warnings were given when the plan was made: not twice. */
    again[0] = 0;
    rc = sbx_landlock_prepare(r, &fd, &flags, again, sizeof again, err);
    if (rc != SANDBOX_OK)
        return rc;
    if (fd < 0)
        return sbx_fail(err, SANDBOX_E_SYSTEM, 0,
                        "the Landlock ruleset could not be made again for this command");
    run->ruleset_fd = fd;
    run->landlock_flags = flags;
    run->own_ruleset = 1;
    return SANDBOX_OK;
}

void sbx_linux_plan_for_command_done(struct sbx_linux_plan *run)
{
    if (run->own_ruleset && run->ruleset_fd >= 0)
        close(run->ruleset_fd);
    run->own_ruleset = 0;
}

static int load_filter(const struct sbx_bpf_insn *bpf, unsigned short len)
{
    struct sock_fprog prog;
    prog.len = len;
    /* struct sbx_bpf_insn has struct sock_filter's exact layout. */
    prog.filter = (struct sock_filter *)(void *)bpf;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int apply_steps(const struct sbx_linux_plan *plan, int raw_fork, struct sbx_covers *cov,
                       int *sys_errno)
{
    /* No core dumps: a SIGSYS kill must not leave a core file in the project
     * or hand the command's memory to a core_pattern pipe handler running
     * outside the sandbox. 1, not 0: the kernel skips pipe helpers only for
     * a limit of exactly 1, and a file core needs a page; hard too, and the
     * filters refuse setting RLIMIT_CORE, so the command cannot undo it. */
    const struct rlimit no_core = {1, 1};
    int ro;
    *sys_errno = 0;
    /* An all-off policy, supervised for its lifecycle only: nothing to apply. */
    if (plan->unconfined)
        return plan->sup ? sbx_sup_start(plan, plan->sup, NULL, raw_fork, sys_errno) : SBX_STEP_NONE;
    if (setrlimit(RLIMIT_CORE, &no_core) != 0) {
        struct rlimit now;
        /* Inside another sandbox (which refuses the call) or under a hard
         * limit of 0 (prepare warned about it): what is there may do. */
        *sys_errno = errno;
        if (getrlimit(RLIMIT_CORE, &now) != 0 || now.rlim_max > 1 || now.rlim_cur > 1)
            return SBX_STEP_CORE;
        *sys_errno = 0;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        *sys_errno = errno;
        return SBX_STEP_NO_NEW_PRIVS;
    }
    /* Root's namespace needs CAP_SYS_ADMIN (dropped next); the masks' user
     * namespace, if any, nests inside it and inherits its read-only mounts. */
    /* Without a namespace nothing can be made read-only: refused instead. */
    if (plan->root_nosa) {
        int which, kind = sbx_rootfs_nosa_check(&which);
        if (kind) {
            *sys_errno = which;
            return kind == 1   ? SBX_STEP_FD_KERNEL
                   : kind == 2 ? SBX_STEP_NOSA_DIR
                   : kind == 3 ? SBX_STEP_NOSA_FOREIGN
                               : SBX_STEP_KERNEL_MOUNTS;
        }
    }
    if (plan->rootfs) {
        int r = sbx_rootfs_apply(plan->rootfs == SBX_ROOTFS_BIND_NODES, plan->keep, plan->n_keep,
                                 sys_errno);
        if (r != 0)
            return r == -2 ? SBX_STEP_KERNEL_MOUNTS : SBX_STEP_ROOTFS;
    }
    /* In root's namespace, before the capability drop that locks them. */
    if (plan->rootfs && sbx_unix_mask_apply(&plan->unix_eps, plan->sup ? cov : NULL, sys_errno) != 0)
        return SBX_STEP_ROOTFS;
    /* Root's step made every mount but its /dev nodev already, and its
     * /dev binds nodes the masks' step must not take devices from. */
    /* keep is root's namespace's: never acted on without it (these steps
     * would change the host's own /proc and descriptors). */
    ro = plan->rootfs && plan->n_keep > 0;
    if (plan->mask &&
        sbx_mask_apply(plan->mask, !plan->rootfs, ro, plan->sup && plan->guard,
                       plan->sup ? cov : NULL, sys_errno) != 0)
        return SBX_STEP_MASK;
    /* Without masks, /proc is made read-only here, while CAP_SYS_ADMIN is
     * still held; the masks' step does it after writing its maps. */
    if (!plan->mask && ro && sbx_rootfs_proc_read_only(sys_errno) != 0)
        return SBX_STEP_ROOTFS;
    /* A directory opened outside still reaches the host's mounts. */
    if (plan->rootfs || plan->mask) {
        int step = sbx_fds_check(plan->mask, plan->keep, ro ? plan->n_keep : 0, sys_errno);
        if (step != SBX_STEP_NONE)
            return step;
    }
    /* So does a /dev/null handed over as stdin: root gets its own. */
    if (ro && sbx_rootfs_own_devices(sys_errno) != 0)
        return SBX_STEP_ROOTFS;
    /* The masks already emptied every set and locked the securebits; a second
     * drop would need the CAP_SETPCAP that is gone. */
    if (plan->drop_caps && !plan->mask) {
        int e = sbx_caps_drop(plan->drop_caps);
        if (e != 0) {
            *sys_errno = e;
            return SBX_STEP_CAPS;
        }
    }
    /* After the mounts, which made the instance; on this command's own
     * ruleset (a shared plan gets a copy: sbx_linux_plan_for_command). */
    if (plan->dev_grant &&
        sbx_landlock_grant_dev(plan->ruleset_fd, plan->dev_grant, plan->dev_rights, sys_errno) != 0)
        return SBX_STEP_LANDLOCK;
    if (plan->ruleset_fd >= 0 &&
        syscall(SYS_landlock_restrict_self, plan->ruleset_fd, plan->landlock_flags) != 0) {
        *sys_errno = errno;
        return SBX_STEP_LANDLOCK;
    }
    /* Before the supervisor forks, so it holds it too: it never makes a
     * namespace, and its own fork is no CLONE_NEWUSER. */
    if (plan->userns_bpf && load_filter(plan->userns_bpf, plan->userns_bpf_len) != 0) {
        *sys_errno = errno;
        return SBX_STEP_SECCOMP;
    }
    /* A supervised run forks here: both sides are masked, capability-less
     * and in the Landlock domain; only the command's side gets the filters.
     * The guard exists only in a supervised run: without a supervisor
     * nothing would refuse new protected names, so that is an error. */
    if (plan->sup)
        return sbx_sup_start(plan, plan->sup, cov, raw_fork, sys_errno);
    if (plan->guard) {
        *sys_errno = EINVAL;
        return SBX_STEP_GUARD;
    }
    if (plan->bpf && load_filter(plan->bpf, plan->bpf_len) != 0) {
        *sys_errno = errno;
        return SBX_STEP_SECCOMP;
    }
    return SBX_STEP_NONE;
}

/* The steps, and the stand-ins they made closed again where they failed
 * (the command's side closes its copies; the supervisor keeps them). */
static int apply(const struct sbx_linux_plan *plan, int raw_fork, int *sys_errno)
{
    struct sbx_covers cov;
    int step, i;
    cov.n = 0;
    step = apply_steps(plan, raw_fork, &cov, sys_errno);
    if (step != SBX_STEP_NONE)
        for (i = 0; i < cov.n; i++)
            close(cov.fd[i]);
    return step;
}

int sbx_linux_apply(const struct sbx_linux_plan *plan, int *sys_errno)
{
    return apply(plan, 0, sys_errno);
}

int sbx_linux_apply_spawned(const struct sbx_linux_plan *plan, int *sys_errno)
{
    return apply(plan, 1, sys_errno);
}

int sbx_linux_step_error(int step, int e, sandbox_error *err)
{
    switch (step) {
    case SBX_STEP_NO_NEW_PRIVS:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e, "cannot set no_new_privs: %s", strerror(e));
    case SBX_STEP_CAPS:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "cannot drop capabilities: %s", strerror(e));
    case SBX_STEP_LANDLOCK:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "cannot enforce the Landlock ruleset: %s%s", strerror(e),
                        e == EPERM ? " (no_new_privs or CAP_SYS_ADMIN is required; inside a "
                                     "sandbox with protected paths, its creation guard refuses "
                                     "every further Landlock domain: run this one outside it)"
                        : e == E2BIG ? " (too many nested Landlock domains: at most 16)"
                                     : "");
    case SBX_STEP_ROOTFS:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "cannot make /proc/sys, /sys and the mounts outside the writable roots "
                        "read-only and narrow /dev for a root command: %s%s",
                        strerror(e),
                        e == EPERM ? " (a container or security policy refuses mount namespaces "
                                     "or the mount API, or CAP_SYS_CHROOT is missing in a chroot; "
                                     "run the command as a normal user)"
                        : e == ENOSYS ? " (the mount API it needs, open_tree and move_mount "
                                        "from Linux 5.2 and mount_setattr from 5.12, is missing "
                                        "from this kernel, or an outer seccomp filter refuses it, "
                                        "as a container's profile may: allow those calls, or run "
                                        "the command as a normal user)"
                        : e == ENOENT ? " (the working directory is gone, outside the root, or "
                                        "not in the command's own /dev: start it elsewhere)"
                        : e == ENOTDIR ? " (a chroot into a plain directory with none of proc, "
                                         "dev or sys to step out through, so its mount cannot be "
                                         "made nodev: create one of them in it, or run the "
                                         "command as a normal user)"
                                       : "");
    case SBX_STEP_KERNEL_MOUNTS:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "cannot make a kernel file system mounted outside /proc and /sys (a second "
                        "proc, sysfs, cgroup or debugfs; /proc/self/mountinfo lists them) "
                        "read-only for a root command: %s%s",
                        strerror(e),
                        e == ENAMETOOLONG ? " (its mount point is longer than PATH_MAX, so it "
                                            "cannot be named: unmount it, or run the command as a "
                                            "normal user)"
                        : e == ESTALE ? " (no path reached it, nor any mount above it, while "
                                        "the launcher made it read-only: a process is renaming "
                                        "the directories above it; stop it, or unmount the file "
                                        "system)"
                        : e == ENOLINK
                            ? " (one is mounted writable where /proc/self/mountinfo does not list "
                              "it: a folder above it was moved out of its parent mount's root, as "
                              "out of a bound project or a container's directory rootfs, by a "
                              "rename through another mount of the same file system; move it "
                              "back, or unmount it)"
                        : e == EAGAIN
                            ? " (it is covered by a later mount, so the mount above it was made "
                              "read-only with everything beneath it; a writable mount beneath "
                              "that one could not be made writable again: in sixteen reads of the "
                              "mount table its path never led to it, as a process kept renaming "
                              "the directories above it; the command would have found it "
                              "read-only: stop that process, or unmount the covered file system)"
                        : e == ENXIO
                            ? " (it is covered by a later mount inside this chroot, and the mount "
                              "that holds the chroot is not in its mount table, so it cannot be "
                              "made read-only from here: unmount the covered one, bind the "
                              "chroot's directory onto itself before entering it, or run the "
                              "command as a normal user)"
                        : e == ENOENT || e == EMEDIUMTYPE || e == EXDEV
                            ? " (/proc/self/mountinfo cannot be read, or is not a proc file "
                              "system's, or not this process's, so they cannot be found: mount "
                              "this pid namespace's proc on /proc, or run the command as a "
                              "normal user)"
                                          : " (unmount it, or run the command as a normal user)");
    case SBX_STEP_FD_KERNEL:
        if (e < 0)
            return sbx_fail(err, SANDBOX_E_REFUSED, 0,
                            "running as root without CAP_SYS_ADMIN, and the %s is on a writable "
                            "mount of a kernel file system (proc, sysfs, cgroup) that no mount "
                            "table lists as such (covered or detached): through relative names "
                            "the command could change the kernel's settings; start it elsewhere",
                            e == -1 ? "working directory" : "root directory");
        return sbx_fail(err, SANDBOX_E_REFUSED, 0,
                        "running as root without CAP_SYS_ADMIN, and descriptor %d, inherited "
                        "open, is on a writable mount of a kernel file system (proc, sysfs, "
                        "cgroup): through /proc/self/fd/%d the command could reopen it for "
                        "writing and change the kernel's settings; close it before the launch "
                        "(e.g. %d<&-)",
                        e, e, e);
    case SBX_STEP_NOSA_DIR:
        return sbx_fail(err, SANDBOX_E_REFUSED, 0,
                        "running as root without CAP_SYS_ADMIN, and descriptor %d, inherited "
                        "open, is a directory or an O_PATH descriptor: without a mount "
                        "namespace of its own the sandbox cannot tell which mounts it reaches "
                        "(another namespace's writable proc); close it before the launch (e.g. "
                        "%d<&-; --close-fds closes all but 0-2)",
                        e, e);
    case SBX_STEP_NOSA_FOREIGN:
        return sbx_fail(err, SANDBOX_E_REFUSED, e,
                        "running as root without CAP_SYS_ADMIN, and the working directory or "
                        "the root is on a mount that this mount namespace's table does not list "
                        "(another namespace's, entered through /proc/PID/root or setns; a "
                        "chroot into a directory that is no mount point), or the "
                        "table cannot be read (%s): relative names could reach mounts the "
                        "sandbox cannot check; start the command from a directory of this "
                        "namespace",
                        strerror(e));
    case SBX_STEP_CORE:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e, "cannot switch core dumps off: %s",
                        strerror(e));
    case SBX_STEP_SECCOMP:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e, "cannot load the seccomp filter: %s%s",
                        strerror(e),
                        e == EINVAL ? " (the kernel lacks seccomp filters or KILL_PROCESS; "
                                      "needs Linux 4.14+ with CONFIG_SECCOMP_FILTER)"
                        : e == ENOMEM ? " (too many stacked seccomp filters)"
                                      : "");
    case SBX_STEP_MASK:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "cannot hide the protected paths: %s%s", strerror(e),
                        e == EPERM || e == ENOSPC
                            ? " (user namespaces are refused here: a container or security "
                              "policy forbids them; run without protected paths or allow them)"
                        : e == EINVAL ? " (the process has several threads, or a mount "
                                        "point changed since the scan)"
                        : e == ENOENT ? " (a protected path vanished since the scan)"
                        : e == EACCES || e == EROFS
                            ? " (inside another sandbox no mask can be made: a protected path, a "
                              "--deny-unix socket, or a daemon's socket that the enclosing "
                              "sandbox left open (allowed there, or there only since it started) "
                              "needs one here; run the command without them, or from outside)"
                                      : "");
    case SBX_STEP_LIMITS:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "cannot apply the run's resource limits: %s%s", strerror(e),
                        e == EACCES || e == EPERM || e == ENOENT
                            ? " (joining the run's cgroup was refused: run where the caller "
                              "may write its own cgroup, or without --limit-memory/--limit-pids)"
                            : "");
    case SBX_STEP_SUPERVISOR:
        return sbx_fail(err, e == EBUSY ? SANDBOX_E_UNSUPPORTED : SANDBOX_E_SYSTEM, e,
                        "cannot start the supervisor of the run: %s%s",
                        e == ETOOMANYREFS ? "ETOOMANYREFS" : strerror(e),
                        e == EINVAL ? " (the kernel lacks seccomp user notification, Linux 5.0+)"
                        : e == ECHILD ? " (its child ended before it was ready)"
                        : e == ETOOMANYREFS ? TOOMANYREFS_WHY
                                            : "");
    case SBX_STEP_GUARD:
        return sbx_fail(err, e == EBUSY || e == EOPNOTSUPP ? SANDBOX_E_UNSUPPORTED : SANDBOX_E_SYSTEM,
                        e, "cannot start the creation guard for protected paths: %s%s",
                        e == EOPNOTSUPP    ? "the kernel lacks SECCOMP_ADDFD_FLAG_SEND"
                        : e == ETOOMANYREFS ? "ETOOMANYREFS"
                                            : strerror(e),
                        e == EBUSY ? " (a seccomp listener is already in force: a sandbox with "
                                     "protected paths cannot run inside another supervised "
                                     "sandbox; run the inner command without protected paths)"
                        : e == EOPNOTSUPP ? " (needs Linux 5.14+; run without protected "
                                            "paths, or with --read-only)"
                        : e == EINVAL ? " (the kernel lacks seccomp user notification, Linux 5.0+)"
                        : e == ECHILD ? " (its child ended before it was ready)"
                        : e == ETOOMANYREFS ? TOOMANYREFS_WHY
                                            : "");
    case SBX_STEP_FD_DIR:
    case SBX_STEP_FD_PATH:
        return sbx_fail(err, SANDBOX_E_REFUSED, 0,
                        "descriptor %d, inherited open, is %s: inside the sandbox's private "
                        "mount namespace it would still reach the host's mounts, where protected "
                        "paths are not masked and nothing is read-only; close it before the "
                        "launch (e.g. %d<&-; --close-fds closes all but 0-2) or pass a file",
                        e, step == SBX_STEP_FD_DIR ? "a directory" : "an O_PATH descriptor", e);
    case SBX_STEP_FD_DEV:
        return sbx_fail(err, SANDBOX_E_REFUSED, 0,
                        "descriptor %d, inherited open, is a block device (a disk) opened for "
                        "reading or writing only: through /proc/self/fd/%d the command could "
                        "open it again with the other access on the host's /dev; close it "
                        "before the launch (e.g. %d<&-; --close-fds closes all but 0-2) or "
                        "open it read-write if the command is meant to have both",
                        e, e, e);
    case SBX_STEP_FD_FILE:
        return sbx_fail(err, SANDBOX_E_REFUSED, 0,
                        "descriptor %d, inherited open, is a file that the sandbox masks or makes "
                        "read-only (a protected path, .git, or /proc/sys for root), or one it "
                        "cannot find under the name it was opened by: through /proc/self/fd/%d "
                        "the command could read it or reopen it for writing on the host's mount; "
                        "close it or redirect it elsewhere before the launch (e.g. %d<&-)",
                        e, e, e);
    default:
        return sbx_fail(err, SANDBOX_E_SYSTEM, e, "sandbox step %d failed: %s", step,
                        strerror(e));
    }
}

int sbx_backend_enforce(const sandbox_policy *policy, const char *const argv[],
                        sandbox_result *result)
{
    struct sbx_linux_plan plan;
    int rc, step, e;

    (void)argv;
    /* The creation guard is a process that outlives this call: only a
     * supervised run (sandbox_spawn, the launcher) can have one. Refused
     * before anything is scanned or applied. */
    if (sandbox_policy_needs_supervisor(policy))
        return sbx_fail(&result->error, SANDBOX_E_INVALID, 0,
                        "protected paths need the creation guard, a supervisor process that "
                        "stays while the command runs: sandbox_enforce cannot give one (the "
                        "library never forks the caller into a watcher); start the command "
                        "with sandbox_spawn, or through sandbox-exec-launcher");
    rc = sbx_linux_prepare(policy, &plan, result->warning, sizeof result->warning,
                           &result->error);
    if (rc != SANDBOX_OK)
        return rc;
    step = sbx_linux_apply(&plan, &e);
    sbx_linux_plan_release(&plan);
    if (step != SBX_STEP_NONE)
        return sbx_linux_step_error(step, e, &result->error);
    result->enforcement = SANDBOX_SELF_APPLIED;
    return SANDBOX_OK;
}

int sbx_backend_network_available(void)
{
    char detail[8];
    return sbx_seccomp_available(detail, sizeof detail);
}

int sbx_backend_fs_available(void)
{
    const char *why;
    return sbx_landlock_abi(&why) > 0;
}

/* The rights each ABI adds, for the self-test's "missing" list. */
static const char *const landlock_abi_gains[] = {
    NULL,
    NULL,
    "rename and link across directories (REFER, ABI 2)",
    "truncate (TRUNCATE, ABI 3)",
    "TCP bind/connect rules (ABI 4)",
    "device ioctls (IOCTL_DEV, ABI 5)",
    "signal and abstract unix socket scoping (ABI 6)",
    "audit logging controls (ABI 7)",
};

void sbx_backend_self_test(sandbox_report *rep)
{
    const char *why = "";
    char sdetail[256];
    int abi, seccomp_ok, i, nabi;

    strcpy(rep->platform, "linux");
    seccomp_ok = sbx_seccomp_available(sdetail, sizeof sdetail);
    rep->network.available = seccomp_ok;
    strcpy(rep->network.mechanism, "seccomp-bpf");
    snprintf(rep->network.detail, sizeof rep->network.detail, "%s", sdetail);
    /* Said here too: without it root could rebuild a network through a tun device. */
    sbx_warn(rep->network.detail, sizeof rep->network.detail,
             "loop and tun ioctls and the mount API refused; no core dumps (RLIMIT_CORE 1/1; "
             "an '@' core_pattern makes every mode exit 126)");
    {
        char tap[64];
        int n = geteuid() == 0 ? 0 : sbx_rootfs_openable_taps(tap, sizeof tap);
        if (n > 0)
            sbx_warn(rep->network.detail, sizeof rep->network.detail,
                     "this user can open %s%s (macvtap/ipvtap: raw frames by read/write), so "
                     "the network-deny modes exit 126",
                     tap, n > 1 ? " and more" : "");
    }

    abi = sbx_landlock_abi(&why);
    rep->landlock_abi = abi < 0 ? 0 : abi;
    strcpy(rep->filesystem.mechanism, "landlock");
    rep->filesystem.available = abi > 0;
    if (abi < 0) {
        snprintf(rep->filesystem.detail, sizeof rep->filesystem.detail,
                 "%s; every confining mode exits 126 rather than run unconfined", why);
    } else if (abi == 0) {
        snprintf(rep->filesystem.detail, sizeof rep->filesystem.detail,
                 "%s; --confine-fs runs commands unconfined with a warning", why);
    } else {
        nabi = (int)(sizeof landlock_abi_gains / sizeof landlock_abi_gains[0]) - 1;
        snprintf(rep->filesystem.detail, sizeof rep->filesystem.detail, "Landlock ABI %d", abi);
        for (i = abi + 1; i <= nabi; i++)
            sbx_warn(rep->filesystem.detail, sizeof rep->filesystem.detail, "lacks %s",
                     landlock_abi_gains[i]);
        sbx_warn(rep->filesystem.detail, sizeof rep->filesystem.detail,
                 "writable /dev narrowed to common devices");
    }
    /* What root gets, and what a user outside root's namespace keeps. */
    sbx_warn(rep->filesystem.detail, sizeof rep->filesystem.detail,
             "root: no kernel-administration capabilities, read-only /proc/sys and /sys, a /dev "
             "of its own and every other mount nodev (no disk, no other terminal)");
    if (geteuid() != 0) {
        char disk[64];
        int n = sbx_rootfs_readable_disks(disk, sizeof disk);
        sbx_warn(rep->filesystem.detail, sizeof rep->filesystem.detail,
                 "others: the user's other ptys stay reachable unless paths are protected; the "
                 "disk group still reads raw disks");
        if (n > 0)
            sbx_warn(rep->filesystem.detail, sizeof rep->filesystem.detail,
                     "this user reads %d (%s)", n, disk);
    }

    strcpy(rep->read_only.mechanism, "landlock+seccomp");
    rep->read_only.available = abi >= 6 && seccomp_ok;
    if (rep->read_only.available)
        snprintf(rep->read_only.detail, sizeof rep->read_only.detail,
                 "kernel-enforced (Landlock ABI %d, seccomp, no capabilities, no new user "
                 "namespaces)", abi);
    else
        snprintf(rep->read_only.detail, sizeof rep->read_only.detail,
                 "not kernel-enforced here (needs Landlock ABI 6, Linux 6.12+, and seccomp; "
                 "this kernel has ABI %d%s): hosts must keep their own read-only allowlists",
                 abi, seccomp_ok ? "" : ", no usable seccomp");

    strcpy(rep->internet_only.mechanism, "none");
    strcpy(rep->internet_only.detail, "internet-only network is not enforced on Linux yet");
    strcpy(rep->supervised.mechanism, "seccomp-notify+landlock-scope+pidfd");
    rep->supervised.available =
        sbx_supervisor_available(rep->supervised.detail, sizeof rep->supervised.detail) != 0;
    rep->limits.available = rep->supervised.available;
    strcpy(rep->limits.mechanism,
           sbx_limits_self_test(rep->limits.detail, sizeof rep->limits.detail)
               ? "cgroup2+rlimit"
               : "rlimit");
    /* The contract kills; these are what it kills that a person may not
     * expect (tests/linux/test_toolchains.sh shows each one). */
    snprintf(rep->network_notes, sizeof rep->network_notes,
             "under --no-network's SIGSYS default, toolchains that probe the network die: "
             "getaddrinfo(\"localhost\") where /etc/hosts lists both 127.0.0.1 and ::1 "
             "(Debian's default; glibc sorts the answers with UDP probe sockets), and "
             "pip --version and python3 -m venv (urllib3's IPv6 probe); --net-eperm makes "
             "socket() fail with EPERM instead, and they carry on; a supervised run "
             "(--report, --outcome-fd) records each refused socket either way");
    strcpy(rep->protected_paths.mechanism, "mount-namespace+landlock+seccomp-notify");
    rep->protected_paths.available =
        sbx_mask_available(rep->protected_paths.detail, sizeof rep->protected_paths.detail);
    if (rep->protected_paths.available) {
        char gdetail[192];
        if (!sbx_guard_available(gdetail, sizeof gdetail)) {
            rep->protected_paths.available = 0;
            snprintf(rep->protected_paths.detail, sizeof rep->protected_paths.detail,
                     "not available: %s; requests for them exit 126 (except with --read-only, "
                     "which creates nothing)",
                     gdetail);
        }
    }
    /* Issue 20: which local deputies a confined command cannot reach here. */
    strcpy(rep->unix_endpoints.mechanism, "landlock-scope+mount-namespace");
    {
        char mwhy[256] = "";
        /* Root masks in its own namespace; others need the masks' one. Both
         * rely on a Landlock domain to keep the masks mounted. */
        int masks_ok = abi > 0 && (geteuid() == 0 || sbx_mask_available(mwhy, sizeof mwhy));
        rep->unix_endpoints.available = sbx_unix_self_test(
            abi, masks_ok,
            abi <= 0 ? "no Landlock" : "no user namespace for the masks (see protected_paths)",
            rep->unix_endpoints.detail, sizeof rep->unix_endpoints.detail);
    }
}

/* sbx_backend_plan_new, _plan_free, _spawn and _wait live in spawn.c. */
