/* Landlock on the running kernel: probe the ABI, then turn the portable plan
 * (landlock_rules.c) into a ruleset. Nothing here restricts the caller:
 * prepare only creates the ruleset and fills it; apply later enforces it with
 * one landlock_restrict_self call. Linux only. */
#define _GNU_SOURCE
#include "linux.h"
#include "landlock.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#  define SYS_openat2 437
#endif
#ifndef DEVPTS_SUPER_MAGIC
#  define DEVPTS_SUPER_MAGIC 0x1cd1
#endif
#ifndef TMPFS_MAGIC
#  define TMPFS_MAGIC 0x01021994
#endif

/* /sys/kernel/security/lsm: "lockdown,capability,landlock,bpf". Unreadable
 * (securityfs not mounted, as in most containers) counts as not listed. */
static int lsm_lists_landlock(void)
{
    char buf[512];
    const char *p;
    ssize_t n;
    int fd = openat(AT_FDCWD, "/sys/kernel/security/lsm", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    for (p = buf; (p = strstr(p, "landlock")) != NULL; p += 8)
        if ((p == buf || p[-1] == ',') && (p[8] == ',' || p[8] == 0 || p[8] == '\n'))
            return 1;
    return 0;
}

int sbx_landlock_abi(const char **why)
{
    int abi = sbx_ll_create_ruleset(NULL, 0, SBX_LL_CREATE_RULESET_VERSION);

    if (abi > 0) {
        *why = "";
        return abi;
    }
    switch (errno) {
    case ENOSYS:
        /* The kernel says it runs Landlock: an outer seccomp filter answers
         * ENOSYS to make the launcher run unconfined. */
        if (lsm_lists_landlock()) {
            *why = "the kernel lists landlock in /sys/kernel/security/lsm, so the ENOSYS comes "
                   "from an outer seccomp filter that hides it";
            return -ENOSYS;
        }
        *why = "Landlock is not supported by this kernel (needs Linux 5.13+ built with "
               "CONFIG_SECURITY_LANDLOCK and landlock in lsm=)";
        break;
    case EOPNOTSUPP:
        *why = "Landlock is disabled at boot (add landlock to the lsm= kernel parameter)";
        break;
    default:
        /* Landlock may well be there: a container's seccomp profile (EPERM)
         * or a failing kernel (ENOMEM) hides it, which is no reason to run
         * unconfined. */
        {
            int e = errno;
            *why = e == EPERM ? "landlock_create_ruleset was refused with EPERM (a container or "
                                "seccomp profile forbids it; allow landlock_create_ruleset, "
                                "landlock_add_rule and landlock_restrict_self)"
                              : "the Landlock ABI version cannot be read";
            return e > 0 ? -e : -EINVAL;
        }
    }
    return 0;
}

/* The prefix of the attribute struct this ABI knows: a kernel refuses
 * non-zero fields it does not know, and older ones a longer struct. */
static size_t ruleset_attr_size(int abi)
{
    if (abi >= 6)
        return sizeof(struct sbx_ll_ruleset_attr);
    if (abi >= 4)
        return offsetof(struct sbx_ll_ruleset_attr, scoped);
    return offsetof(struct sbx_ll_ruleset_attr, handled_access_net);
}

static const char *add_rule_hint(int e)
{
    switch (e) {
    case EINVAL:
        return " (rights not valid for this kind of file, or a filesystem Landlock cannot tag)";
    case ENOMSG:
        return " (empty set of rights)";
    case EBADFD:
        return " (not a ruleset, or the path was not opened with O_PATH)";
    default:
        return "";
    }
}

/* Open a writable root without following any symlink: resolution checked
 * its canonical path, which has none, so a link found now was planted since
 * (ELOOP). openat2 where the kernel has it (5.6+), else one O_NOFOLLOW open
 * per component. */
static int open_root(const char *path)
{
    struct open_how how;
    int fd, next;
    const char *c = path;
    char name[NAME_MAX + 1];

    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_NO_SYMLINKS;
    fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
        return fd;
    if (path[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    fd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    while (fd >= 0) {
        size_t n;
        while (*c == '/')
            c++;
        n = strcspn(c, "/");
        if (n == 0)
            return fd;
        if (n > NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, c, n);
        name[n] = '\0';
        c += n;
        next = openat(fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
        if (fd >= 0) {
            struct stat st;
            if (fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
                close(fd);
                errno = ELOOP;
                return -1;
            }
        }
    }
    return -1;
}

/* 1 when the opened root is "/" or (unless `shared`) a home or an ancestor:
 * the descriptor Landlock gets is what is checked, not its name. */
static int forbidden_root(const sbx_resolved *r, const struct stat *st, int shared)
{
    size_t i;
    for (i = 0; i < r->n_forbidden; i++)
        if (r->forbidden[i].dev == (unsigned long long)st->st_dev &&
            r->forbidden[i].ino == (unsigned long long)st->st_ino &&
            (r->forbidden[i].fs_root || !shared))
            return 1;
    return 0;
}

/* Open one rule's path and add it. A non-mandatory path that cannot be
 * opened is skipped with a warning; a device entry (`device`) silently, and
 * it is refused when it turns out to be a block device. Returns SANDBOX_OK
 * or an error. */
static int add_path(int ruleset_fd, const char *path, const char *label, uint64_t dir_rights,
                    uint64_t file_rights, int mandatory, int device, const sbx_resolved *root,
                    int shared, char *warning, size_t warning_size, sandbox_error *err)
{
    struct sbx_ll_path_beneath_attr attr;
    struct stat st;
    int fd, rc, e;

    /* O_PATH: a rule needs only the inode, and no read permission on it. */
    fd = root ? open_root(path) : openat(AT_FDCWD, path, O_PATH | O_CLOEXEC);
    if (fd < 0 && root && errno == ELOOP)
        return sbx_fail(err, SANDBOX_E_PATH, ELOOP,
                        "refusing root %s (%s): a component became a symbolic link "
                        "after it was checked (planted by a command still running?); nothing "
                        "was run",
                        path, label);
    if (fd < 0) {
        e = errno;
        if (mandatory)
            return sbx_fail(err, SANDBOX_E_PATH, e, "cannot open %s (%s) for a Landlock rule: %s",
                            path, label, strerror(e));
        if (device)
            return SANDBOX_OK; /* most machines lack most of the list: not news */
        /* Never widened to the parent: a missing root only means less access. */
        sbx_warn(warning, warning_size, "root %s (%s) skipped: %s", path, label, strerror(e));
        return SANDBOX_OK;
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        close(fd);
        return sbx_fail(err, SANDBOX_E_PATH, e, "cannot stat %s (%s): %s", path, label,
                        strerror(e));
    }
    if (root && forbidden_root(root, &st, shared)) {
        close(fd);
        return sbx_fail(err, SANDBOX_E_PATH, 0,
                        "refusing root %s (%s): it is now the file system root, your "
                        "home or one of its ancestors (it was replaced after it was checked); "
                        "nothing was run",
                        path, label);
    }
    if (device && S_ISBLK(st.st_mode)) {
        /* Root owns the disks: a write grant on one rewrites any file. */
        close(fd);
        sbx_warn(warning, warning_size, "%s (%s) skipped: a block device", path, label);
        return SANDBOX_OK;
    }
    memset(&attr, 0, sizeof attr);
    attr.parent_fd = fd;
    attr.allowed_access = S_ISDIR(st.st_mode) ? dir_rights : file_rights;
    if (attr.allowed_access == 0) {
        close(fd);
        if (mandatory)
            return sbx_fail(err, SANDBOX_E_PATH, 0, "%s (%s) is %s, which this rule cannot allow",
                            path, label, S_ISDIR(st.st_mode) ? "a directory" : "not a directory");
        sbx_warn(warning, warning_size, "root %s (%s) skipped: not a directory", path, label);
        return SANDBOX_OK;
    }
    rc = sbx_ll_add_rule(ruleset_fd, SBX_LL_RULE_PATH_BENEATH, &attr, 0);
    e = errno;
    close(fd);
    if (rc != 0)
        return sbx_fail(err, SANDBOX_E_SYSTEM, e, "cannot add the Landlock rule for %s (%s): %s%s",
                        path, label, strerror(e), add_rule_hint(e));
    return SANDBOX_OK;
}

/* Read-only mode (required): the terminals on fds 0-2 stay writable (and
 * /dev/tty with them), or shells and pagers break; a terminal whose name
 * cannot be found is an error, as every part of read-only mode is mandatory.
 * Confined mode (if named): only a terminal outside /dev/pts needs a rule of
 * its own (/dev/tty and /dev/pts are in the device list already), and one
 * that cannot be named is skipped: the open fds work regardless. */
static int add_terminals(int ruleset_fd, int mode, uint64_t rights, char *warning,
                         size_t warning_size, sandbox_error *err)
{
    char names[3][256];
    int fd, j, n = 0, rc, e, required = mode == SBX_LL_TERMINAL_REQUIRED;

    for (fd = 0; fd <= 2; fd++) {
        if (!isatty(fd))
            continue;
        e = ttyname_r(fd, names[n], sizeof names[n]);
        if (e != 0 && !required)
            continue;
        if (e != 0)
            return sbx_fail(err, SANDBOX_E_PATH, e,
                            "read-only mode: cannot name the terminal on fd %d: %s "
                            "(is /dev/pts mounted in this namespace?)",
                            fd, strerror(e));
        if (!required && strncmp(names[n], "/dev/pts/", 9) == 0)
            continue;
        for (j = 0; j < n && strcmp(names[j], names[n]) != 0; j++)
            ;
        if (j < n)
            continue;
        rc = add_path(ruleset_fd, names[n], "terminal", 0, rights, required, !required, NULL, 0,
                      warning, warning_size, err);
        if (rc != SANDBOX_OK)
            return rc;
        n++;
    }
    if (n == 0 || !required)
        return SANDBOX_OK;
    /* less and vim open /dev/tty to talk to the user past redirected stdio. */
    return add_path(ruleset_fd, "/dev/tty", "controlling terminal", 0, rights, 1, 0, NULL, 0,
                    warning, warning_size, err);
}

/* A rule whose path ends in '*': every character device in that directory
 * named the prefix and then digits only ("/dev/nvidia*": nvidia0, nvidia1). */
static int add_glob(int ruleset_fd, const struct sbx_landlock_rule *rule, char *warning,
                    size_t warning_size, sandbox_error *err)
{
    char dir[PATH_MAX], path[PATH_MAX];
    const char *slash = strrchr(rule->path, '/'), *prefix;
    size_t plen;
    struct dirent *de;
    DIR *d;
    int rc = SANDBOX_OK;

    if (!slash || (size_t)(slash - rule->path) >= sizeof dir)
        return SANDBOX_OK;
    memcpy(dir, rule->path, (size_t)(slash - rule->path));
    dir[slash - rule->path] = 0;
    prefix = slash + 1;
    plen = strlen(prefix) - 1; /* without the '*' */
    d = opendir(dir[0] ? dir : "/");
    if (!d)
        return SANDBOX_OK;
    while (rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
        const char *c = de->d_name + plen;
        if (strncmp(de->d_name, prefix, plen) != 0 || !*c)
            continue;
        while (*c >= '0' && *c <= '9')
            c++;
        if (*c || (de->d_type != DT_CHR && de->d_type != DT_UNKNOWN))
            continue;
        if (snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= (int)sizeof path)
            continue;
        /* add_path checks the node itself: a block device is refused there. */
        rc = add_path(ruleset_fd, path, rule->label, 0, rule->file_rights, 0, 1, NULL, 0,
                      warning, warning_size, err);
    }
    closedir(d);
    return rc;
}

/* A rule for the file `name` in the directory `dfd` (never following a link). */
static int add_at(int ruleset_fd, int dfd, const char *name, uint64_t rights)
{
    struct sbx_ll_path_beneath_attr attr;
    int fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc, e;
    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    memset(&attr, 0, sizeof attr);
    attr.parent_fd = fd;
    attr.allowed_access = rights;
    rc = sbx_ll_add_rule(ruleset_fd, SBX_LL_RULE_PATH_BENEATH, &attr, 0);
    e = errno;
    close(fd);
    return rc == 0 ? 0 : -e;
}

/* Deeper than this, a tree that is not wholly readable is left out. */
#define OTHERS_MAX_DEPTH 12

/* Root reads every file whatever its mode, so beneath an OS tree marked
 * `others` it gets only what every account may read: a list-only rule on
 * each directory that others may enter, and a rule for each file others
 * may read, never a directory whole, since a file created in it later
 * with mode 0600 (apt's auth.conf.d, a credentials drop-in) would then be
 * readable (review of issue 17). 0, or a negative errno on failure.
 * Symbolic links are skipped: the kernel judges where they lead. */
static int others_walk(int ruleset_fd, int dfd, int depth, uint64_t dir_rights,
                       uint64_t file_rights)
{
    struct dirent *de;
    char **ok = NULL;
    size_t n_ok = 0, cap = 0, i;
    int rc = 0, dup_fd = dup(dfd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;

    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        return -errno;
    }
    while (rc >= 0 && (de = readdir(d)) != NULL) {
        struct stat st;
        int child;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        /* Vanished, a link, or not for others: not granted. */
        if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !(st.st_mode & S_IROTH))
            continue;
        if (S_ISDIR(st.st_mode)) {
            /* Its own walk adds its own rules; never a rule for it whole. */
            if ((st.st_mode & S_IXOTH) && depth < OTHERS_MAX_DEPTH) {
                child = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (child >= 0) {
                    rc = others_walk(ruleset_fd, child, depth + 1, dir_rights, file_rights);
                    close(child);
                }
            }
            continue;
        }
        if (!S_ISREG(st.st_mode))
            continue;
        if (n_ok == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **g = realloc(ok, ncap * sizeof *g);
            if (!g) {
                rc = -ENOMEM;
                break;
            }
            ok = g;
            cap = ncap;
        }
        ok[n_ok] = sbx_strdup(de->d_name);
        if (!ok[n_ok]) {
            rc = -ENOMEM;
            break;
        }
        n_ok++;
    }
    if (rc >= 0) {
        /* Names may be listed (names are not contents); files need a rule. */
        rc = add_at(ruleset_fd, dfd, ".", dir_rights & SBX_LL_FS_READ_DIR);
        for (i = 0; rc >= 0 && i < n_ok; i++)
            rc = add_at(ruleset_fd, dfd, ok[i], file_rights);
    }
    for (i = 0; i < n_ok; i++)
        free(ok[i]);
    free(ok);
    closedir(d);
    return rc < 0 ? rc : 0;
}

/* An `others` rule: whole for an ordinary account (the kernel's own
 * permission checks keep what it may not read), walked for root and for
 * any account that holds a capability overriding read permission: the
 * confining modes keep cap_dac_override (docs/landlock.md), and an account
 * given it (ambient, a container's capability set) reads /etc/shadow as
 * root does (review of issue 28). */
static int add_others(int ruleset_fd, const struct sbx_landlock_rule *rule, char *warning,
                      size_t warning_size, sandbox_error *err)
{
    int fd, rc;
    if (geteuid() != 0 && !sbx_caps_held(SBX_CAP_BIT(1) /* dac_override */ |
                                         SBX_CAP_BIT(2) /* dac_read_search */))
        return add_path(ruleset_fd, rule->path, rule->label, rule->dir_rights, rule->file_rights,
                        0, 1, NULL, 0, warning, warning_size, err);
    fd = openat(AT_FDCWD, rule->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return SANDBOX_OK; /* an OS tree this machine lacks */
    rc = others_walk(ruleset_fd, fd, 0, rule->dir_rights, rule->file_rights);
    close(fd);
    if (rc < 0)
        return sbx_fail(err, rc == -ENOMEM ? SANDBOX_E_NOMEM : SANDBOX_E_SYSTEM, -rc,
                        "cannot list %s (%s) for root's read rules: %s", rule->path, rule->label,
                        strerror(-rc));
    return SANDBOX_OK;
}

int sbx_landlock_prepare(const sbx_resolved *r, int *ruleset_fd, uint32_t *restrict_flags,
                         char *warning, size_t warning_size, sandbox_error *err)
{
    struct sbx_landlock_plan plan;
    struct sbx_ll_ruleset_attr attr;
    const char *why = "", *gate = NULL;
    size_t i;
    int abi, fd, rc, e, gate_open = 0;

    *ruleset_fd = -1;
    *restrict_flags = 0;
    if (r->filesystem == SANDBOX_FS_UNRESTRICTED && r->network != SANDBOX_NETWORK_DENY)
        return SANDBOX_OK;
    abi = sbx_landlock_abi(&why);
    /* Fail closed: only ENOSYS and EOPNOTSUPP mean "no Landlock here". */
    if (abi < 0)
        return sbx_fail(err, SANDBOX_E_SYSTEM, -abi,
                        "cannot probe Landlock: %s: %s; the command was not run", strerror(-abi),
                        why);
    rc = sbx_landlock_plan_build(r, abi, why, &plan, warning, warning_size, err);
    if (rc != SANDBOX_OK)
        return rc;
    {
        /* Below ABI 6 abstract sockets stay open (docs/unix-endpoints.md).
         * Said at launch only when a bus the masks would close is abstract:
         * on every launch of an older kernel it would be noise. */
        const char *var = NULL;
        if (r->filesystem == SANDBOX_FS_CONFINED && abi > 0 && abi < 6 &&
            r->allow_abstract_unix != 1 && sbx_unix_dbus_abstract(&var))
            sbx_warn(warning, warning_size,
                     "%s names an abstract socket, which this kernel cannot close (Landlock ABI "
                     "%d; scoping needs ABI 6, Linux 6.12): that D-Bus bus stays reachable",
                     var, abi);
        else if (r->filesystem == SANDBOX_FS_CONFINED && abi >= 6 &&
                 r->allow_abstract_unix == 2 && sbx_unix_dbus_abstract(&var))
            sbx_warn(warning, warning_size,
                     "%s names an abstract socket, and DISPLAY names a local X display, so "
                     "abstract sockets are not scoped: that D-Bus bus stays reachable (start "
                     "without DISPLAY, or --drop-env DISPLAY, to close it)",
                     var);
    }
    if (!plan.handled.fs && !plan.handled.net && !plan.handled.scoped) {
        sbx_landlock_plan_free(&plan);
        return SANDBOX_OK; /* best effort degraded: the plan left the warning */
    }

    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = plan.handled.fs;
    attr.handled_access_net = plan.handled.net;
    attr.scoped = plan.handled.scoped;
    /* The ruleset fd comes back close-on-exec: the command never sees it. */
    fd = sbx_ll_create_ruleset(&attr, ruleset_attr_size(plan.abi), 0);
    if (fd < 0) {
        e = errno;
        sbx_landlock_plan_free(&plan);
        return sbx_fail(err, SANDBOX_E_SYSTEM, e, "cannot create the Landlock ruleset (ABI %d): %s%s",
                        abi, strerror(e),
                        e == EINVAL || e == E2BIG ? " (the kernel refused rights its ABI announced)"
                        : e == ENOSYS || e == EOPNOTSUPP ? " (Landlock vanished since the probe)"
                                                          : "");
    }
    for (i = 0; rc == SANDBOX_OK && i < plan.n_rules; i++) {
        const struct sbx_landlock_rule *rule = &plan.rules[i];
        size_t len = strlen(rule->path);
        if (rule->gate && rule->gate != gate) {
            /* Consecutive rules share a gate: one open decides for all. */
            int gfd = openat(AT_FDCWD, rule->gate, O_PATH | O_CLOEXEC);
            gate = rule->gate;
            gate_open = gfd >= 0;
            if (gfd >= 0)
                close(gfd);
        }
        if (rule->gate && !gate_open)
            continue;
        if (rule->device && len > 0 && rule->path[len - 1] == '*')
            rc = add_glob(fd, rule, warning, warning_size, err);
        else if (rule->others)
            rc = add_others(fd, rule, warning, warning_size, err);
        else
            /* An OS tree this machine lacks (/nix, /lib32) is not news. */
            rc = add_path(fd, rule->path, rule->label, rule->dir_rights, rule->file_rights,
                          rule->mandatory, rule->device || rule->system, rule->root ? r : NULL,
                          rule->root == 2, warning, warning_size, err);
    }
    if (rc == SANDBOX_OK && plan.terminal)
        rc = add_terminals(fd, plan.terminal,
                           /* READ_FILE is handled only where a class confines reads */
                           (sbx_landlock_terminal_rights(plan.abi) | SBX_LL_FS_READ_FILE) &
                               plan.handled.fs,
                           warning,
                           warning_size, err);
    sbx_landlock_plan_free(&plan);
    if (rc != SANDBOX_OK) {
        close(fd);
        return rc;
    }
    *ruleset_fd = fd;
    return SANDBOX_OK;
}

int sbx_landlock_grant_dev(int ruleset_fd, int what, uint64_t rights, int *sys_errno)
{
    struct sbx_ll_path_beneath_attr attr;
    struct statfs st;
    const char *path = what == SBX_DEV_GRANT_DEV ? "/dev" : "/dev/pts";
    long magic = what == SBX_DEV_GRANT_DEV ? (long)TMPFS_MAGIC : (long)DEVPTS_SUPER_MAGIC;
    int fd, rc;

    *sys_errno = 0;
    if (ruleset_fd < 0 || rights == 0 || what == SBX_DEV_GRANT_NONE)
        return 0;
    /* Opened after the mount, so the rule names what the namespace step
     * made. A rule made before the fork on the host's /dev/pts is never met
     * from a pty of a new instance: Landlock's walk up skips the mount
     * point it is mounted on ("hidden mount points"). Root's /dev holds
     * exactly the device list (its own nodes, dri, shm, mqueue, its devpts:
     * a walk from the devpts reaches the tmpfs root), and is read-only. */
    fd = openat(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *sys_errno = errno;
        return errno == ENOENT ? 0 : -1;
    }
    /* Not what the step mounts: nothing was made (no /dev, no devpts
     * there), and the rules made before the fork are the ones that apply. */
    if (fstatfs(fd, &st) != 0 || (long)st.f_type != magic) {
        close(fd);
        return 0;
    }
    memset(&attr, 0, sizeof attr);
    attr.parent_fd = fd;
    attr.allowed_access = rights;
    rc = sbx_ll_add_rule(ruleset_fd, SBX_LL_RULE_PATH_BENEATH, &attr, 0);
    *sys_errno = rc == 0 ? 0 : errno;
    close(fd);
    return rc == 0 ? 0 : -1;
}
