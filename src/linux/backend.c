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
#include "../backend.h"

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
        if (can < 0)
            rc = can;
        else
            plan->rootfs = can;
    }
    if (rc == SANDBOX_OK)
        rc = sbx_mask_check(r, err);
    /* A socket core_pattern ("@path", "@@path", Linux 6.16+) ignores the
     * limit of 1 that stops pipe helpers, and a dumpable flag cleared before
     * exec is set again by the exec itself: the only sound answer is not to
     * run. The first byte is enough. */
    if (rc == SANDBOX_OK && plan->bpf) {
        char first = 0;
        int fd = open("/proc/sys/kernel/core_pattern", O_RDONLY | O_CLOEXEC);
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
    rc = sbx_linux_prepare_resolved(&r, plan, warning, warning_size, err);
    if (rc == SANDBOX_OK)
        rc = sbx_mask_prepare(&r, &plan->mask, warning, warning_size, err);
    sbx_resolved_free(&r);
    if (rc != SANDBOX_OK)
        sbx_linux_plan_release(plan);
    return rc;
}

static int load_filter(const struct sbx_bpf_insn *bpf, unsigned short len)
{
    struct sock_fprog prog;
    prog.len = len;
    /* struct sbx_bpf_insn has struct sock_filter's exact layout. */
    prog.filter = (struct sock_filter *)(void *)bpf;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int apply(const struct sbx_linux_plan *plan, int raw_fork, int *sys_errno)
{
    /* No core dumps: a SIGSYS kill must not leave a core file in the project
     * or hand the command's memory to a core_pattern pipe handler running
     * outside the sandbox. 1, not 0: the kernel skips pipe helpers only for
     * a limit of exactly 1, and a file core needs a page; hard too, and the
     * filters refuse setting RLIMIT_CORE, so the command cannot undo it. */
    const struct rlimit no_core = {1, 1};
    *sys_errno = 0;
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
    if (plan->rootfs && sbx_rootfs_apply(sys_errno) != 0)
        return SBX_STEP_ROOTFS;
    if (plan->mask && sbx_mask_apply(plan->mask, sys_errno) != 0)
        return SBX_STEP_MASK;
    /* A directory opened outside still reaches the host's mounts. */
    if (plan->rootfs || plan->mask) {
        int step = sbx_fds_check(sys_errno);
        if (step != SBX_STEP_NONE)
            return step;
    }
    /* The masks already emptied every set and locked the securebits; a second
     * drop would need the CAP_SETPCAP that is gone. */
    if (plan->drop_caps && !plan->mask) {
        int e = sbx_caps_drop(plan->drop_caps);
        if (e != 0) {
            *sys_errno = e;
            return SBX_STEP_CAPS;
        }
    }
    if (plan->ruleset_fd >= 0 &&
        syscall(SYS_landlock_restrict_self, plan->ruleset_fd, plan->landlock_flags) != 0) {
        *sys_errno = errno;
        return SBX_STEP_LANDLOCK;
    }
    /* Before the guard forks, so the guard holds it too: it never makes a
     * namespace, and its own fork is no CLONE_NEWUSER. */
    if (plan->userns_bpf && load_filter(plan->userns_bpf, plan->userns_bpf_len) != 0) {
        *sys_errno = errno;
        return SBX_STEP_SECCOMP;
    }
    /* The guard forks here: both sides are masked, capability-less and in
     * the Landlock domain; only the command's side gets the filters. */
    if (plan->guard)
        return sbx_guard_start(plan, raw_fork, sys_errno);
    if (plan->bpf && load_filter(plan->bpf, plan->bpf_len) != 0) {
        *sys_errno = errno;
        return SBX_STEP_SECCOMP;
    }
    return SBX_STEP_NONE;
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
                        "cannot make /proc/sys and /sys read-only and narrow /dev for a root "
                        "command: %s%s",
                        strerror(e),
                        e == EPERM ? " (a container or security policy refuses mount namespaces "
                                     "or the mount API; run the command as a normal user)"
                        : e == ENOSYS ? " (needs Linux 5.12+ for mount_setattr; run the command "
                                        "as a normal user)"
                                      : "");
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
                                      : "");
    case SBX_STEP_GUARD:
        return sbx_fail(err, e == EBUSY || e == EOPNOTSUPP ? SANDBOX_E_UNSUPPORTED : SANDBOX_E_SYSTEM,
                        e, "cannot start the creation guard for protected paths: %s%s",
                        e == EOPNOTSUPP ? "the kernel lacks SECCOMP_ADDFD_FLAG_SEND" : strerror(e),
                        e == EBUSY ? " (a seccomp listener is already in force: a sandbox with "
                                     "protected paths cannot run inside another one; run the "
                                     "inner command without protected paths)"
                        : e == EOPNOTSUPP ? " (needs Linux 5.14+; run without protected "
                                            "paths, or with --read-only)"
                        : e == EINVAL ? " (the kernel lacks seccomp user notification, Linux 5.0+)"
                        : e == ECHILD ? " (its child ended before it was ready)"
                                      : "");
    case SBX_STEP_FD_DIR:
    case SBX_STEP_FD_PATH:
        return sbx_fail(err, SANDBOX_E_REFUSED, 0,
                        "descriptor %d, inherited open, is %s: inside the sandbox's private "
                        "mount namespace it would still reach the host's mounts, where protected "
                        "paths are not masked and nothing is read-only; close it before the "
                        "launch (e.g. %d<&-; --close-fds closes all but 0-2) or pass a file",
                        e, step == SBX_STEP_FD_DIR ? "a directory" : "an O_PATH descriptor", e);
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
             "root loses kernel-administration capabilities and gets read-only /proc/sys and "
             "/sys (no core_pattern helper); loop and tun ioctls, the mount API and RLIMIT_CORE "
             "changes are refused; core dumps are stopped (RLIMIT_CORE 1/1) for file and '|' "
             "core_patterns, and a socket ('@') core_pattern, which ignores the limit, makes "
             "every mode exit 126");

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
                 "writable /dev narrowed to common devices; a root command sees no block "
                 "device at all (private mount namespace)");
    }
    {
        char disk[64];
        int n = sbx_rootfs_readable_disks(disk, sizeof disk);
        if (n > 0)
            sbx_warn(rep->filesystem.detail, sizeof rep->filesystem.detail,
                     "this non-root user can read %d block device%s (%s: the disk group?), "
                     "and so every file on them, in every mode",
                     n, n == 1 ? "" : "s", disk);
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
}

/* sbx_backend_plan_new, _plan_free, _spawn and _wait live in spawn.c. */
