/* The creation guard (docs/protected-paths.md): protected names that do not
 * exist at launch must not be created either.
 *
 * The masks cover what the scan found. A new `.env.production` is refused by a
 * second seccomp program (SBX_SC_V_CREATE_NOTIFY, stacked on the main one)
 * that stops every call creating a name in the kernel and notifies a
 * supervisor: this process. The supervisor reads the name from the command's
 * memory, refuses a protected last component with EACCES and otherwise
 * performs the call itself, with its own copy of the path, and hands the
 * result (or the new descriptor, SECCOMP_IOCTL_NOTIF_ADDFD) back. It never
 * lets the call continue after the check: another thread of the command
 * could rewrite the path between the supervisor's read and the kernel's.
 *
 * Process model: the caller has applied no_new_privs, the masks, the
 * capability drop and Landlock; then it forks. The child loads both seccomp
 * programs, sends the listener to the parent and goes on to exec the
 * command. The parent, inside the same mount namespace and Landlock domain
 * and with the same credentials (so it can never create what the command
 * could not), becomes the supervisor: an ancestor of the command (ptrace
 * checks, Yama), not dumpable (the command cannot ptrace it or read its
 * memory), holding no other descriptor. It exits with the command's status,
 * or dies of the command's signal.
 *
 * Everything after the fork is async-signal-safe: sandbox_spawn runs this in
 * a child of a multi-threaded host. Raw system calls, stack buffers, no
 * malloc or stdio. */
#define _GNU_SOURCE
#include "linux.h"
#include "landlock.h"
#include "seccomp_rules.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#  define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#  define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#  define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#  define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#  define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SYS_close_range
#  define SYS_close_range 436
#endif
#ifndef SYS_renameat2
#  define SYS_renameat2 316
#endif
#ifndef RENAME_EXCHANGE
#  define RENAME_EXCHANGE (1 << 1)
#endif

#if defined(__x86_64__) && !defined(__ILP32__)
#  define GUARD_HOST_FAMILY SBX_SC_X86_64
#elif defined(__aarch64__) && !defined(__ILP32__)
#  define GUARD_HOST_FAMILY SBX_SC_AARCH64
#endif

/* Room for a path read from the command (PATH_MAX with its NUL) plus the
 * longer /proc/TID prefix it may be rewritten to. */
#define PATH_BUF (PATH_MAX + 32)
#define MAX_SYMLINK_HOPS 40 /* the kernel's limit: ELOOP beyond */

struct sbx_guard {
    struct sbx_protect *protect; /* read-write and write patterns, as resolved */
    size_t n_protect;
    struct sbx_protect *home; /* r->protect_home */
    size_t n_home;
    char *home_dir; /* the account's home, real path */
    char *home_alt; /* a different $HOME, real path, or NULL */
};

/* ---- the plan (before any fork: may allocate) ---- */

static struct sbx_protect *copy_list(const struct sbx_protect *src, size_t n, int *oom)
{
    struct sbx_protect *out;
    size_t i;
    if (n == 0)
        return NULL;
    out = calloc(n, sizeof *out);
    if (!out) {
        *oom = 1;
        return NULL;
    }
    for (i = 0; i < n; i++) {
        out[i] = src[i];
        out[i].pattern = sbx_strdup(src[i].pattern);
        if (!out[i].pattern)
            *oom = 1;
    }
    return out;
}

void sbx_guard_free(struct sbx_guard *g)
{
    if (!g)
        return;
    sbx_protect_free(g->protect, g->n_protect);
    sbx_protect_free(g->home, g->n_home);
    free(g->home_dir);
    free(g->home_alt);
    free(g);
}

int sbx_guard_available(char *detail, size_t size)
{
#ifdef GUARD_HOST_FAMILY
    struct utsname u;
    unsigned int action = SECCOMP_RET_USER_NOTIF;
    long major = 0, minor = 0;
    char *end;

    memset(&u, 0, sizeof u);
    if (uname(&u) == 0) {
        major = strtol(u.release, &end, 10);
        if (*end == '.')
            minor = strtol(end + 1, NULL, 10);
    }
    if (major < 5 || (major == 5 && minor < 14)) {
        snprintf(detail, size,
                 "the creation guard needs Linux 5.14+ (seccomp user notification with "
                 "SECCOMP_ADDFD_FLAG_SEND); this kernel is %s",
                 u.release);
        return 0;
    }
    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
        snprintf(detail, size,
                 "the creation guard needs seccomp user notification, which this kernel "
                 "refuses (%s)",
                 strerror(errno));
        return 0;
    }
    {
        /* Without signal scoping the command could kill its guard. */
        const char *why = "";
        int abi = sbx_landlock_abi(&why);
        if (abi < 6) {
            if (abi < 0)
                snprintf(detail, size,
                         "the creation guard needs Landlock ABI 6 (Linux 6.12+) so that the "
                         "command cannot signal it; %s",
                         why);
            else
                snprintf(detail, size,
                         "the creation guard needs Landlock ABI 6 (Linux 6.12+) so that the "
                         "command cannot signal it; this kernel has ABI %d",
                         abi);
            return 0;
        }
    }
    snprintf(detail, size, "seccomp user notification, Landlock signal scoping");
    return 1;
#else
    snprintf(detail, size, "no creation-guard program is built for this CPU architecture");
    return 0;
#endif
}

/* realpath allocates: fine here, before any fork. A home that does not
 * exist cannot hold new names; it is kept as given. */
static char *real_home(const char *home, int *oom)
{
    char *h;
    if (!home)
        return NULL;
    h = realpath(home, NULL);
    if (!h && errno == ENOMEM)
        *oom = 1;
    if (!h && !*oom && !(h = sbx_strdup(home)))
        *oom = 1;
    return h;
}

int sbx_guard_prepare(const sbx_resolved *r, struct sbx_linux_plan *plan, sandbox_error *err)
{
    const struct sbx_sc_program *p = NULL;
    struct sbx_guard *g;
    char detail[256];
    int oom = 0;

    plan->guard = NULL;
    plan->guard_bpf = NULL;
    plan->guard_bpf_len = 0;
    if (!sbx_sc_guard_wanted(r))
        return SANDBOX_OK;
    if (!sbx_guard_available(detail, sizeof detail))
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "protected paths: %s; new protected names could not be refused (use "
                        "--read-only, or run without protected paths)",
                        detail);
#ifdef GUARD_HOST_FAMILY
    p = sbx_sc_find(GUARD_HOST_FAMILY, SBX_SC_V_CREATE_NOTIFY);
#endif
    if (!p)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "protected paths: no creation-guard program is built for this CPU "
                        "architecture (only x86_64 and aarch64)");
    g = calloc(1, sizeof *g);
    if (!g)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
    g->protect = copy_list(r->protect, r->n_protect, &oom);
    g->n_protect = g->protect ? r->n_protect : 0;
    g->home = copy_list(r->protect_home, r->n_protect_home, &oom);
    g->n_home = g->home ? r->n_protect_home : 0;
    /* The guard matches the real path of the directory a name is created
     * in, so home must be real too: through a symlinked /home the ~/
     * patterns would never match (review). Both homes (issue 18). */
    g->home_dir = real_home(r->home_dir, &oom);
    g->home_alt = real_home(r->home_alt, &oom);
    if (oom) {
        sbx_guard_free(g);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
    }
    plan->guard = g;
    plan->guard_bpf = p->insns;
    plan->guard_bpf_len = p->len;
    return SANDBOX_OK;
}

/* ---- small async-signal-safe helpers ---- */

/* v in decimal at buf, NUL-terminated (snprintf is not async-signal-safe).
 * Returns the number of digits; buf needs room for 21. */
static size_t put_dec(char *buf, unsigned long v)
{
    char digits[24];
    size_t k = 0, i = 0;
    do
        digits[k++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (k > 0)
        buf[i++] = digits[--k];
    buf[i] = '\0';
    return i;
}

/* "/proc/" + n + tail into buf (size >= 64 + strlen(tail)). */
static void proc_path(char *buf, long n, const char *tail)
{
    strcpy(buf, "/proc/");
    strcpy(buf + 6 + put_dec(buf + 6, n < 0 ? 0 : (unsigned long)n), tail);
}

/* "/proc/self/fd/N" */
static void fd_path(char *buf, int fd)
{
    strcpy(buf, "/proc/self/fd/");
    put_dec(buf + 14, (unsigned)fd);
}

static void fwd_set(sigset_t *s)
{
    sigemptyset(s);
    sigaddset(s, SIGTERM);
    sigaddset(s, SIGINT);
    sigaddset(s, SIGHUP);
    sigaddset(s, SIGQUIT);
    sigaddset(s, SIGUSR1);
    sigaddset(s, SIGUSR2);
    sigaddset(s, SIGCHLD);
}

static void close_all_but(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a, fd;
    if (lo > 0 && syscall(SYS_close_range, 0U, (unsigned)lo - 1, 0U) != 0)
        for (fd = 0; fd < lo; fd++)
            close(fd);
    if (hi > lo + 1)
        syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0U);
    syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U);
}

/* ---- serving one notification ---- */

enum guard_layout {
    L_OPEN,      /* path, flags, mode */
    L_CREAT,     /* path, mode */
    L_OPENAT,    /* dirfd, path, flags, mode */
    L_MKDIR,     /* path, mode */
    L_MKDIRAT,   /* dirfd, path, mode */
    L_MKNOD,     /* path, mode, dev */
    L_MKNODAT,   /* dirfd, path, mode, dev */
    L_SYMLINK,   /* target, path */
    L_SYMLINKAT, /* target, dirfd, path */
    L_LINK,      /* old, path */
    L_LINKAT,    /* olddirfd, old, dirfd, path, flags */
    L_RENAME,    /* old, path */
    L_RENAMEAT,  /* olddirfd, old, dirfd, path */
    L_RENAMEAT2  /* olddirfd, old, dirfd, path, flags */
};

/* cppcheck reads this file without the architecture macros that select
 * the tables below. */
struct guard_nr {
    int nr;     /* cppcheck-suppress unusedStructMember */
    int layout; /* cppcheck-suppress unusedStructMember */
};

#if defined(__x86_64__)
static const struct guard_nr native_nrs[] = {
    {2, L_OPEN},      {85, L_CREAT},      {257, L_OPENAT}, {83, L_MKDIR},     {258, L_MKDIRAT},
    {133, L_MKNOD},   {259, L_MKNODAT},   {88, L_SYMLINK}, {266, L_SYMLINKAT}, {86, L_LINK},
    {265, L_LINKAT},  {82, L_RENAME},     {264, L_RENAMEAT}, {316, L_RENAMEAT2},
};
static const struct guard_nr compat_nrs[] = { /* i386 */
    {5, L_OPEN},      {8, L_CREAT},       {295, L_OPENAT}, {39, L_MKDIR},     {296, L_MKDIRAT},
    {14, L_MKNOD},    {297, L_MKNODAT},   {83, L_SYMLINK}, {304, L_SYMLINKAT}, {9, L_LINK},
    {303, L_LINKAT},  {38, L_RENAME},     {302, L_RENAMEAT}, {353, L_RENAMEAT2},
};
#  define GUARD_AUDIT_NATIVE AUDIT_ARCH_X86_64
#  define GUARD_AUDIT_COMPAT AUDIT_ARCH_I386
#elif defined(__aarch64__)
static const struct guard_nr native_nrs[] = {
    {56, L_OPENAT},   {34, L_MKDIRAT},    {33, L_MKNODAT}, {36, L_SYMLINKAT}, {37, L_LINKAT},
    {38, L_RENAMEAT}, {276, L_RENAMEAT2},
};
static const struct guard_nr compat_nrs[] = { /* arm (EABI) */
    {5, L_OPEN},      {8, L_CREAT},       {322, L_OPENAT}, {39, L_MKDIR},     {323, L_MKDIRAT},
    {14, L_MKNOD},    {324, L_MKNODAT},   {83, L_SYMLINK}, {331, L_SYMLINKAT}, {9, L_LINK},
    {330, L_LINKAT},  {38, L_RENAME},     {329, L_RENAMEAT}, {382, L_RENAMEAT2},
};
#  define GUARD_AUDIT_NATIVE AUDIT_ARCH_AARCH64
#  define GUARD_AUDIT_COMPAT AUDIT_ARCH_ARM
#endif

enum guard_op { OP_OPEN, OP_MKDIR, OP_MKNOD, OP_SYMLINK, OP_LINK, OP_RENAME };

/* One call, decoded. Integer arguments are read as the kernel reads them (32
 * bits); pointers keep 32 bits on the compat ABI. */
struct guard_call {
    int op;
    int dirfd, olddirfd;
    uint64_t path, old; /* addresses in the command */
    int has_old;
    int flags;
    mode_t mode;
    unsigned dev;
};

static int decode(const struct seccomp_data *d, struct guard_call *c)
{
#ifdef GUARD_AUDIT_NATIVE
    const struct guard_nr *t;
    size_t n, i;
    int compat, layout = -1;
    uint64_t a[6];

    if (d->arch == GUARD_AUDIT_NATIVE) {
        t = native_nrs;
        n = sizeof native_nrs / sizeof native_nrs[0];
        compat = 0;
    } else if (d->arch == GUARD_AUDIT_COMPAT) {
        t = compat_nrs;
        n = sizeof compat_nrs / sizeof compat_nrs[0];
        compat = 1;
    } else {
        return 0;
    }
    for (i = 0; i < n; i++)
        if (t[i].nr == d->nr)
            layout = t[i].layout;
    if (layout < 0)
        return 0;
    for (i = 0; i < 6; i++)
        a[i] = compat ? (uint32_t)d->args[i] : d->args[i];
#  define INT(x) ((int)(uint32_t)(x))
    memset(c, 0, sizeof *c);
    c->dirfd = c->olddirfd = AT_FDCWD;
    switch (layout) {
    case L_OPEN:
        c->op = OP_OPEN; c->path = a[0]; c->flags = INT(a[1]); c->mode = (mode_t)(a[2] & 07777);
        break;
    case L_CREAT:
        c->op = OP_OPEN; c->path = a[0]; c->flags = O_CREAT | O_WRONLY | O_TRUNC;
        c->mode = (mode_t)(a[1] & 07777);
        break;
    case L_OPENAT:
        c->op = OP_OPEN; c->dirfd = INT(a[0]); c->path = a[1]; c->flags = INT(a[2]);
        c->mode = (mode_t)(a[3] & 07777);
        break;
    case L_MKDIR:
        c->op = OP_MKDIR; c->path = a[0]; c->mode = (mode_t)(a[1] & 07777);
        break;
    case L_MKDIRAT:
        c->op = OP_MKDIR; c->dirfd = INT(a[0]); c->path = a[1]; c->mode = (mode_t)(a[2] & 07777);
        break;
    case L_MKNOD:
        c->op = OP_MKNOD; c->path = a[0]; c->mode = (mode_t)(uint16_t)a[1];
        c->dev = (unsigned)a[2];
        break;
    case L_MKNODAT:
        c->op = OP_MKNOD; c->dirfd = INT(a[0]); c->path = a[1]; c->mode = (mode_t)(uint16_t)a[2];
        c->dev = (unsigned)a[3];
        break;
    case L_SYMLINK:
        c->op = OP_SYMLINK; c->old = a[0]; c->has_old = 1; c->path = a[1];
        break;
    case L_SYMLINKAT:
        c->op = OP_SYMLINK; c->old = a[0]; c->has_old = 1; c->dirfd = INT(a[1]); c->path = a[2];
        break;
    case L_LINK:
        c->op = OP_LINK; c->old = a[0]; c->has_old = 1; c->path = a[1];
        break;
    case L_LINKAT:
        c->op = OP_LINK; c->olddirfd = INT(a[0]); c->old = a[1]; c->has_old = 1;
        c->dirfd = INT(a[2]); c->path = a[3]; c->flags = INT(a[4]);
        break;
    case L_RENAME:
        c->op = OP_RENAME; c->old = a[0]; c->has_old = 1; c->path = a[1];
        break;
    case L_RENAMEAT:
    case L_RENAMEAT2:
        c->op = OP_RENAME; c->olddirfd = INT(a[0]); c->old = a[1]; c->has_old = 1;
        c->dirfd = INT(a[2]); c->path = a[3];
        c->flags = layout == L_RENAMEAT2 ? INT(a[4]) : 0;
        break;
    }
#  undef INT
    return 1;
#else
    (void)d;
    (void)c;
    return 0;
#endif
}

/* Read a NUL-terminated path from the command's memory, a page at a time
 * (a string may end just before an unmapped page). 0 or an errno. */
static int read_path(pid_t tid, uint64_t addr, char *buf)
{
    size_t got = 0, chunk;
    ssize_t n;
    struct iovec local, remote;
    const size_t page = 4096;

    if (addr == 0)
        return EFAULT;
    while (got < PATH_MAX) {
        chunk = page - (size_t)((addr + got) % page);
        if (chunk > PATH_MAX - got)
            chunk = PATH_MAX - got;
        local.iov_base = buf + got;
        local.iov_len = chunk;
        {
            /* An address in the command, never dereferenced here. */
            uintptr_t at = (uintptr_t)(addr + got);
            memcpy(&remote.iov_base, &at, sizeof at);
        }
        remote.iov_len = chunk;
        n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
        if (n < 0)
            return errno == EFAULT || errno == EINVAL ? EFAULT : errno;
        if (n == 0)
            return EFAULT;
        if (memchr(buf + got, '\0', (size_t)n))
            return 0;
        got += (size_t)n;
    }
    return ENAMETOOLONG;
}

/* /proc/self and /proc/thread-self mean the command, not the guard, and so
 * do /dev/stdin, /dev/stdout, /dev/stderr and /dev/fd (links to /proc/self
 * that `echo x > /dev/stderr` opens with O_CREAT). Other links into
 * /proc/self resolve to the guard; what they open is checked by
 * check_opened. */
static void rewrite_self(char *path, pid_t tid)
{
    static const struct {
        const char *from;
        const char *to;
        int exact;
    } map[] = {
        {"/proc/self", "", 0},        {"/proc/thread-self", "", 0}, {"/dev/fd", "/fd", 0},
        {"/dev/stdin", "/fd/0", 1},   {"/dev/stdout", "/fd/1", 1},  {"/dev/stderr", "/fd/2", 1},
    };
    char head[64];
    size_t i, pl, hl, rest;
    for (i = 0; i < sizeof map / sizeof map[0]; i++) {
        pl = strlen(map[i].from);
        if (strncmp(path, map[i].from, pl) != 0 ||
            (path[pl] != '\0' && (map[i].exact || path[pl] != '/')))
            continue;
        proc_path(head, tid, map[i].to);
        hl = strlen(head);
        rest = strlen(path + pl);
        if (hl + rest >= PATH_BUF)
            return;
        memmove(path + hl, path + pl, rest + 1);
        memcpy(path, head, hl);
        return;
    }
}

/* A descriptor for the command's dirfd: its working directory, or the file
 * its descriptor N refers to (a directory, for a relative path to resolve). */
static int open_base(pid_t tid, int dirfd, int *out)
{
    char p[96];
    int fd;
    if (dirfd == AT_FDCWD) {
        proc_path(p, tid, "/cwd");
        fd = openat(AT_FDCWD, p, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return errno;
    } else {
        if (dirfd < 0)
            return EBADF;
        proc_path(p, tid, "/fd/");
        put_dec(p + strlen(p), (unsigned)dirfd);
        fd = openat(AT_FDCWD, p, O_PATH | O_CLOEXEC);
        if (fd < 0)
            return errno == ENOENT ? EBADF : errno;
    }
    *out = fd;
    return 0;
}

static int read_umask(pid_t tid, mode_t *um)
{
    char p[64], buf[512];
    const char *s;
    ssize_t n;
    int fd;
    mode_t v = 0;

    proc_path(p, tid, "/status");
    fd = openat(AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return n < 0 ? errno : EIO;
    buf[n] = '\0';
    s = strstr(buf, "\nUmask:\t");
    if (!s)
        return EIO;
    for (s += 8; *s >= '0' && *s <= '7'; s++)
        v = (mode_t)(v * 8 + (mode_t)(*s - '0'));
    *um = v & 0777;
    return 0;
}

/* Does the path the kernel gives for `dirfd` lead, from the guard's own
 * root, to that very directory (device, inode and mount)? A directory on a
 * detached mount (open_tree, fsmount in a nested namespace) or outside the
 * guard's root reads as "/" or some other path, and the name would be
 * matched at the wrong place (issue 18): such a directory is refused. 0,
 * EACCES, or ENOENT for a directory that was removed. */
/* The mount id of a descriptor of the guard's, from /proc/self/fdinfo (no
 * statx in every C library this builds with). 0 when unknown. */
static unsigned long mount_id(int fd)
{
    char p[48], buf[256];
    const char *s;
    unsigned long v = 0;
    ssize_t n;
    int f;
    strcpy(p, "/proc/self/fdinfo/");
    put_dec(p + 18, (unsigned)fd);
    f = openat(AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
    if (f < 0)
        return 0;
    n = read(f, buf, sizeof buf - 1);
    close(f);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    s = strstr(buf, "mnt_id:");
    if (!s)
        return 0;
    for (s += 7; *s == ' ' || *s == '\t'; s++)
        ;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (unsigned long)(*s - '0');
    return v;
}

static int same_place(int dirfd, const char *path)
{
    struct stat a, b;
    unsigned long ma, mb;
    int fd, e = 0;
    if (path[0] != '/')
        return EACCES; /* "anon_inode:", an unreachable directory */
    fd = openat(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? ENOENT : EACCES;
    ma = mount_id(dirfd);
    mb = mount_id(fd);
    if (fstat(dirfd, &a) != 0 || fstat(fd, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino || ma == 0 || ma != mb)
        e = EACCES;
    close(fd);
    return e;
}

/* CHECK_NAME: a protected name is refused; CHECK_TREE: also a name under
 * which a pattern of several components would match; CHECK_MOVE (a flag):
 * the name is moved away (a rename's source, either side of an exchange). */
enum { CHECK_NONE, CHECK_NAME, CHECK_TREE, CHECK_MOVE = 4 };

/* The write-protected paths of this run (sbx_guard_start), for the checks
 * below. */
static const struct sbx_mask_plan *guard_mask;

/* Is creating `name` (name_len bytes, no '/') inside the directory `dirfd`
 * refused? 0: allowed; EACCES: protected; another errno: cannot tell. */
static int check_name(const struct sbx_guard *g, int dirfd, const char *name, size_t name_len,
                      int check)
{
    char link[32], full[2 * PATH_MAX + 2], one[NAME_MAX + 1];
    ssize_t n;
    int e, tree = (check & 3) == CHECK_TREE;
    struct stat st;

    fd_path(link, dirfd);
    n = readlink(link, full, PATH_MAX);
    if (n < 0)
        return errno;
    if (n >= PATH_MAX)
        return ENAMETOOLONG;
    full[n] = '\0';
    if ((e = same_place(dirfd, full)) != 0)
        return e;
    if (!(n == 1 && full[0] == '/'))
        full[n++] = '/';
    memcpy(full + n, name, name_len);
    n += (ssize_t)name_len;
    full[n] = '\0';
    /* A write-protected path (a .git, a hooks path) or its ancestor: never
     * moved away, and never made while it is missing, so nothing but the
     * read-only original stands where the next git looks (issue 18). */
    if (sbx_mask_fixed_under(guard_mask, full, (size_t)n)) {
        if (check & CHECK_MOVE)
            return EACCES;
        if (name_len > NAME_MAX)
            return ENAMETOOLONG;
        memcpy(one, name, name_len);
        one[name_len] = '\0';
        if (fstatat(dirfd, one, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? EACCES : errno;
    }
    if (!(check & 3))
        return 0;
    if (sbx_protect_refuses_create(g->protect, g->n_protect, g->home, g->n_home, g->home_dir,
                                   full, (size_t)n) ||
        (g->home_alt && sbx_protect_refuses_create(g->protect, g->n_protect, g->home, g->n_home,
                                                   g->home_alt, full, (size_t)n)))
        return EACCES;
    /* A name that may hold a tree (a renamed directory, a symlink) must not
     * be a leading part of a pattern of several components either. */
    if (tree && (sbx_protect_refuses_ancestor(g->protect, g->n_protect, g->home_dir, full,
                                              (size_t)n) ||
                 (g->home_alt && sbx_protect_refuses_ancestor(g->protect, g->n_protect,
                                                              g->home_alt, full, (size_t)n))))
        return EACCES;
    return 0;
}

/* Split `path` (resolved from `base`) into its parent, opened here, and its
 * last component, which *last points at (trailing slashes kept, since they
 * mean something to the kernel). With `check` (CHECK_NAME), refuse a
 * protected name; CHECK_TREE also a name under which a pattern of several
 * components would match.
 * *pfd is `base` itself when the path has no directory part, else a new
 * descriptor (*owned = 1). */
static int resolve_parent(const struct sbx_guard *g, int base, char *path, int check, int *pfd,
                          int *owned, char **last)
{
    size_t end = strlen(path), start;
    char save;
    int fd;

    *pfd = base;
    *owned = 0;
    *last = path;
    if (end == 0)
        return ENOENT;
    while (end > 0 && path[end - 1] == '/')
        end--;
    if (end == 0)
        return 0; /* "/": no name to create; the kernel answers */
    start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    if (start > 0) {
        save = path[start];
        path[start] = '\0';
        fd = openat(base, path, O_PATH | O_DIRECTORY | O_CLOEXEC);
        path[start] = save;
        if (fd < 0)
            return errno;
        *pfd = fd;
        *owned = 1;
    }
    *last = path + start;
    return check ? check_name(g, *pfd, path + start, end - start, check) : 0;
}

#ifndef PROC_SUPER_MAGIC
#  define PROC_SUPER_MAGIC 0x9fa0
#endif
#define GUARD_ANON_INODE_FS_MAGIC 0x09041934
#define GUARD_NSFS_MAGIC 0x6e736673
#define GUARD_PIDFS_MAGIC 0x50494446

/* The descriptor the guard is about to hand over must never be one of the
 * guard's own: through /proc/<guard>/mem or /proc/<guard>/fd/N (the
 * listener!) the command would own the guard. The guard may open its own
 * /proc entries (a process always may), so what was opened is checked:
 * no anonymous inode, namespace or pidfd, and no /proc file under the
 * guard's pid. 0 or EACCES. */
static int check_opened(int fd)
{
    struct statfs sf;
    struct stat st;
    char link[32], where[PATH_MAX], me[24];
    ssize_t n;
    size_t ml, i, start;
    unsigned long pid = (unsigned long)getpid();

    if (fstat(fd, &st) != 0 || fstatfs(fd, &sf) != 0)
        return EACCES;
    if ((st.st_mode & S_IFMT) == 0 || sf.f_type == GUARD_ANON_INODE_FS_MAGIC ||
        sf.f_type == GUARD_NSFS_MAGIC || sf.f_type == GUARD_PIDFS_MAGIC)
        return EACCES;
    if (sf.f_type != PROC_SUPER_MAGIC)
        return 0;
    fd_path(link, fd);
    n = readlink(link, where, sizeof where - 1);
    if (n <= 0)
        return EACCES;
    where[n] = '\0';
    ml = put_dec(me, pid);
    for (i = 0; i < (size_t)n;) {
        while (i < (size_t)n && where[i] == '/')
            i++;
        start = i;
        while (i < (size_t)n && where[i] != '/')
            i++;
        if (i - start == ml && memcmp(where + start, me, ml) == 0)
            return EACCES;
    }
    return 0;
}

struct guard_req {
    const struct sbx_guard *g;
    int lfd;
    int sfd;     /* the guard's signalfd */
    pid_t child; /* the command */
    pid_t tid;
    uint64_t id;
};

static void finish(int status) __attribute__((noreturn));

/* The ppid field of /proc/PID/stat ("pid (comm) state ppid ..."; comm may
 * hold ')' and spaces, so from the last ')'). -1 when unreadable. */
static long stat_ppid(const char *pid)
{
    char p[64], buf[512];
    const char *s;
    ssize_t n;
    long v = 0;
    int fd;
    if (strlen(pid) > 32)
        return -1;
    strcpy(p, "/proc/");
    strcpy(p + 6, pid);
    strcat(p, "/stat");
    fd = openat(AT_FDCWD, p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    s = strrchr(buf, ')');
    if (!s || s[1] != ' ' || !s[2] || s[3] != ' ')
        return -1;
    for (s += 4; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (*s - '0');
    return v;
}

/* SIGKILL every child of the guard; the number sent. A subreaper's children
 * are the command's leftovers and their orphans. getdents64, not opendir:
 * no malloc after the fork. */
static int kill_children(void)
{
    char buf[4096];
    long n, off, me = (long)getpid();
    int fd = openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), sent = 0;
    if (fd < 0)
        return 0;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (off = 0; off < n;) {
            struct {
                uint64_t ino;       /* cppcheck-suppress unusedStructMember */
                int64_t off;        /* cppcheck-suppress unusedStructMember */
                unsigned short reclen;
                unsigned char type; /* cppcheck-suppress unusedStructMember */
                char name[];
            } *de = (void *)(buf + off);
            const char *c = de->name;
            while (*c >= '0' && *c <= '9')
                c++;
            if (c != de->name && !*c && stat_ppid(de->name) == me) {
                long pid = 0;
                for (c = de->name; *c; c++)
                    pid = pid * 10 + (*c - '0');
                if (kill((pid_t)pid, SIGKILL) == 0)
                    sent++;
            }
            off += de->reclen;
        }
    }
    close(fd);
    return sent;
}

/* The command has ended: nothing it started may go on without the guard
 * (a setsid child reading a .env created later, issue 18). As a child
 * subreaper the guard inherits every orphan, so killing its children until
 * none is left ends the whole tree; then it ends as the command did. */
static void end_run(int status) __attribute__((noreturn));
static void end_run(int status)
{
    int st;
    pid_t got;
    for (;;) {
        /* No child left (the common case): no descendant is left either,
         * since orphans come to the subreaper. Only then is /proc read. */
        while ((got = waitpid(-1, &st, WNOHANG)) > 0)
            ;
        if (got < 0 && errno == ECHILD)
            break;
        if (!kill_children())
            (void)poll(NULL, 0, 1); /* a child between exit and reaping */
    }
    finish(status);
}

/* One signal read from the signalfd: the command's end is the guard's end;
 * anything else sent to the guard itself is passed on to the command. */
static void on_signal(const struct guard_req *q)
{
    struct signalfd_siginfo si;
    pid_t got;
    int status;
    if (read(q->sfd, &si, sizeof si) != (ssize_t)sizeof si)
        return;
    if ((int)si.ssi_signo == SIGCHLD) {
        while ((got = waitpid(-1, &status, WNOHANG)) > 0)
            if (got == q->child)
                end_run(status);
        return;
    }
    /* A terminal's signals (^C, ^\, hangup) reach the command's process
     * group directly: only signals sent to the guard itself are passed on. */
    if (si.ssi_code == SI_KERNEL)
        return;
    kill(q->child, (int)si.ssi_signo);
}

/* An open that finds an existing FIFO would block until the other end
 * opens, and the guard serves one call at a time: a command that exits
 * meanwhile would leave its guard (and whoever waits for it) hanging
 * (review). So a FIFO is opened without blocking; for writing, the guard
 * retries until a reader comes, watching its signals (the command's exit
 * ends the guard) and the caller's notification (gone: give up). A FIFO
 * opened for reading does not wait for a writer first (the difference is
 * documented). Anything else: the plain openat. */
static int open_existing(const struct guard_req *q, int dirfd, const char *name, int flags,
                         mode_t mode)
{
    struct stat st;
    struct pollfd pf;
    uint64_t id = q->id;
    int fd, fl;

    if ((flags & O_ACCMODE) == O_RDWR || (flags & (O_NONBLOCK | O_PATH)) ||
        fstatat(dirfd, name, &st, (flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0) != 0 ||
        !S_ISFIFO(st.st_mode))
        return openat(dirfd, name, flags, mode);
    for (;;) {
        fd = openat(dirfd, name, flags | O_NONBLOCK, mode);
        if (fd >= 0) {
            fl = fcntl(fd, F_GETFL);
            if (fl >= 0)
                (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
            return fd;
        }
        if (errno != ENXIO)
            return -1;
        if (ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) {
            errno = EINTR;
            return -1;
        }
        pf.fd = q->sfd;
        pf.events = POLLIN;
        pf.revents = 0;
        if (poll(&pf, 1, 20) > 0)
            on_signal(q);
    }
}

/* The command's umask, read once per call and only when the call really
 * creates something (most O_CREAT opens of a build find the file there), then
 * set as the guard's own. Read after the first validity check, so checked
 * again. 0 or an errno. */
static int ensure_umask(const struct guard_req *q, int *have)
{
    mode_t um = 022;
    uint64_t id = q->id;
    int e;
    if (*have)
        return 0;
    e = read_umask(q->tid, &um);
    if (e)
        return e;
    if (ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
        return ESRCH;
    umask(um);
    *have = 1;
    return 0;
}

/* fs.protected_symlinks, as the kernel applies it when following a
 * symlink: in a sticky world-writable directory, only a link owned by the
 * follower or by the directory's owner is followed. The guard follows
 * dangling links itself, so it applies the rule itself (review). 0 or
 * EACCES. */
/* The guard lives in the masks' user namespace, where every owner outside
 * its one mapping shows as the overflow uid: such an owner is unknown, never
 * the guard's own and never equal to another. A guard that runs as the
 * overflow uid itself (nobody) cannot tell its own files from unknown ones
 * and takes every owner as known: the kernel's own checks still apply to
 * every link it follows and every file it opens with O_CREAT. */
#define GUARD_OVERFLOW_UID 65534

static int known_owner(uid_t u)
{
    return u != GUARD_OVERFLOW_UID || geteuid() == GUARD_OVERFLOW_UID;
}

static int owner_is_me(uid_t u)
{
    return known_owner(u) && u == geteuid();
}

static int may_follow(int dirfd, const char *name)
{
    struct stat dir, link;
    if (fstat(dirfd, &dir) != 0 || fstatat(dirfd, name, &link, AT_SYMLINK_NOFOLLOW) != 0)
        return EACCES;
    if ((dir.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
        return 0;
    if (owner_is_me(link.st_uid) || (known_owner(link.st_uid) && link.st_uid == dir.st_uid))
        return 0;
    return EACCES;
}

/* fs.protected_regular and protected_fifos (level 1), as the kernel applies
 * them to an O_CREAT open that finds an existing file: in a sticky
 * world-writable directory, a regular file or FIFO owned by someone else
 * than the opener and the directory's owner is refused. The guard finds
 * existing files with an open without O_CREAT, which skips that check, so
 * it applies it to what it opened (review). Stricter than the kernel where
 * owners are unknown here (see known_owner). 0 or EACCES. */
static int may_open_in_sticky(int fd)
{
    struct stat st, dir;
    char link[32], where[PATH_MAX];
    ssize_t n;
    if (fstat(fd, &st) != 0)
        return EACCES;
    if (!(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) || owner_is_me(st.st_uid))
        return 0;
    fd_path(link, fd);
    n = readlink(link, where, sizeof where - 1);
    if (n <= 0)
        return EACCES;
    while (n > 1 && where[n - 1] != '/')
        n--;
    where[n > 1 ? n - 1 : 1] = '\0';
    if (stat(where, &dir) != 0)
        return EACCES;
    if ((dir.st_mode & (S_ISVTX | S_IWOTH)) != (S_ISVTX | S_IWOTH))
        return 0;
    return known_owner(st.st_uid) && st.st_uid == dir.st_uid ? 0 : EACCES;
}

/* open/openat/creat. The name the kernel would create is the last component
 * after following a dangling symlink there, so the guard follows such links
 * itself and only ever creates with O_EXCL (which never follows one). */
static int do_open(const struct guard_req *q, int base, char *path, char *spare, int flags,
                   mode_t mode, int *have_umask, int *out)
{
    const struct sbx_guard *g = q->g;
    int created = 0;
    int pfd = -1, owned = 0, base_owned = 0, hops = 0, tries = 0, fd = -1, e = 0;
    char *last, *tmp;
    ssize_t n;
    struct stat st;

    flags |= O_CLOEXEC | O_NOCTTY; /* ours; the command's O_CLOEXEC goes to ADDFD */
    /* Linux 6.4+ refuses O_CREAT|O_DIRECTORY with EINVAL. Older kernels
     * follow a dangling symlink, create its target as a file and only then
     * fail with ENOTDIR: the guard answers as the newer kernels do, so no
     * unchecked target is ever created (review). */
    if ((flags & (O_CREAT | O_DIRECTORY)) == (O_CREAT | O_DIRECTORY))
        return EINVAL;
    for (;;) {
        e = resolve_parent(g, base, path, CHECK_NAME, &pfd, &owned, &last);
        if (e)
            break;
        if (!(flags & O_CREAT) || (flags & (O_EXCL | O_NOFOLLOW | O_PATH))) {
            /* No symlink is followed to a new name: one call does it. */
            if ((flags & O_CREAT) && (e = ensure_umask(q, have_umask)) != 0)
                break;
            fd = (flags & O_EXCL) ? openat(pfd, last, flags, mode)
                                  : open_existing(q, pfd, last, flags, mode);
            e = fd < 0 ? errno : 0;
            created = fd >= 0 && (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
            break;
        }
        fd = open_existing(q, pfd, last, flags & ~O_CREAT, mode);
        if (fd >= 0) {
            /* open(dir, O_CREAT|O_RDONLY) is EISDIR; without O_CREAT it opens. */
            if ((flags & O_ACCMODE) == O_RDONLY && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
                e = EISDIR;
            else
                e = may_open_in_sticky(fd);
            if (e) {
                close(fd);
                fd = -1;
            }
            break;
        }
        if (errno != ENOENT) {
            e = errno;
            break;
        }
        if ((e = ensure_umask(q, have_umask)) != 0)
            break;
        fd = openat(pfd, last, flags | O_EXCL, mode);
        if (fd >= 0 || errno != EEXIST) {
            e = fd < 0 ? errno : 0;
            created = fd >= 0;
            break;
        }
        /* EEXIST after ENOENT: a dangling symlink, or a name that appeared. */
        n = readlinkat(pfd, last, spare, PATH_MAX);
        if (n >= PATH_MAX) {
            e = ENAMETOOLONG;
            break;
        }
        if (n < 0) {
            if (++tries < 8) {
                if (owned)
                    close(pfd);
                continue;
            }
            e = EEXIST;
            break;
        }
        if (++hops > MAX_SYMLINK_HOPS) {
            e = ELOOP;
            break;
        }
        if ((e = may_follow(pfd, last)) != 0)
            break;
        spare[n] = '\0';
        /* Resolve the link's target from the link's directory. */
        if (owned) {
            if (base_owned)
                close(base);
            base = pfd;
            base_owned = 1;
            owned = 0;
        }
        tmp = path;
        path = spare;
        spare = tmp;
    }
    if (owned)
        close(pfd);
    if (base_owned)
        close(base);
    /* A file this call created is a new regular file in a checked directory;
     * anything else was found and must be checked. */
    if (!e && !created && (e = check_opened(fd)) != 0)
        close(fd);
    if (e)
        return e;
    *out = fd;
    return 0;
}

static void respond(const struct guard_req *q, long long val, int err)
{
    struct seccomp_notif_resp resp;
    memset(&resp, 0, sizeof resp);
    resp.id = q->id;
    resp.val = val;
    resp.error = err ? -err : 0;
    resp.flags = 0;
    /* ENOENT: the command was killed meanwhile; nothing to answer. */
    (void)ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

static void handle(const struct guard_req *q, const struct seccomp_data *d)
{
    char path[PATH_BUF], old[PATH_BUF], spare[PATH_BUF];
    struct guard_call c;
    int e = 0, base = AT_FDCWD, obase = AT_FDCWD, pfd = -1, opfd = -1, owned = 0, oowned = 0;
    int fd = -1, needs_umask;
    char *last, *olast;
    mode_t um = 022;
    long rc = 0;
    uint64_t id = q->id;

    if (!decode(d, &c)) {
        respond(q, 0, ENOSYS);
        return;
    }
    e = read_path(q->tid, c.path, path);
    if (!e && c.has_old)
        e = read_path(q->tid, c.old, old);
    if (!e) {
        rewrite_self(path, q->tid);
        if (c.has_old && c.op != OP_SYMLINK)
            rewrite_self(old, q->tid);
    }
    if (!e && path[0] != '/')
        e = open_base(q->tid, c.dirfd, &base);
    if (!e && c.has_old && c.op != OP_SYMLINK &&
        (old[0] != '/' || (c.op == OP_LINK && (c.flags & AT_EMPTY_PATH) && !old[0])))
        e = open_base(q->tid, c.olddirfd, &obase);
    needs_umask = c.op == OP_MKDIR || c.op == OP_MKNOD;
    if (!e && needs_umask)
        e = read_umask(q->tid, &um);
    /* Everything above was read from the task that is still waiting for this
     * answer (not from a task that reused its number) only if the id is still
     * valid now. */
    if (ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0)
        goto out;
    if (e)
        goto answer;
    if (needs_umask)
        umask(um);
    switch (c.op) {
    case OP_OPEN:
        e = do_open(q, base, path, spare, c.flags, c.mode, &needs_umask, &fd);
        if (!e) {
            struct seccomp_notif_addfd a;
            memset(&a, 0, sizeof a);
            a.id = q->id;
            a.flags = SECCOMP_ADDFD_FLAG_SEND;
            a.srcfd = (uint32_t)fd;
            a.newfd = 0;
            a.newfd_flags = (c.flags & O_CLOEXEC) ? O_CLOEXEC : 0;
            /* Installs the descriptor (the lowest free number, under the
             * command's own limits) and answers with it, atomically. */
            rc = ioctl(q->lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
            e = rc < 0 && errno != ENOENT && errno != EINPROGRESS ? errno : 0;
            close(fd);
            if (rc >= 0 || !e)
                goto out;
        }
        break;
    case OP_MKDIR:
        e = resolve_parent(q->g, base, path, CHECK_NAME, &pfd, &owned, &last);
        if (!e && mkdirat(pfd, last, c.mode) != 0)
            e = errno;
        break;
    case OP_MKNOD:
        e = resolve_parent(q->g, base, path, CHECK_NAME, &pfd, &owned, &last);
        /* The raw call: the dev argument is the kernel's 32-bit encoding. */
        if (!e && syscall(SYS_mknodat, pfd, last, c.mode, c.dev) != 0)
            e = errno;
        break;
    case OP_SYMLINK:
        e = resolve_parent(q->g, base, path, CHECK_TREE, &pfd, &owned, &last);
        if (!e && symlinkat(old, pfd, last) != 0)
            e = errno;
        break;
    case OP_LINK:
        e = resolve_parent(q->g, base, path, CHECK_NAME, &pfd, &owned, &last);
        if (!e && linkat(obase, old, pfd, last, c.flags) != 0)
            e = errno;
        break;
    case OP_RENAME:
        /* RENAME_EXCHANGE gives both names new contents: check both. */
        /* Whatever the source is now (a directory could replace a file
         * before the call), the new name is checked as one that may hold a
         * tree. */
        e = resolve_parent(q->g, obase, old,
                           ((c.flags & RENAME_EXCHANGE) ? CHECK_TREE : CHECK_NONE) | CHECK_MOVE,
                           &opfd, &oowned, &olast);
        if (!e)
            e = resolve_parent(q->g, base, path,
                               CHECK_TREE | ((c.flags & RENAME_EXCHANGE) ? CHECK_MOVE : 0), &pfd,
                               &owned, &last);
        if (!e && syscall(SYS_renameat2, opfd, olast, pfd, last, (unsigned)c.flags) != 0)
            e = errno;
        break;
    }
answer:
    respond(q, 0, e);
out:
    if (owned)
        close(pfd);
    if (oowned)
        close(opfd);
    if (base >= 0)
        close(base);
    if (obase >= 0)
        close(obase);
}

/* ---- the supervisor ---- */

static void finish(int status)
{
    struct sigaction sa;
    sigset_t one;
    int sig;
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    /* Die of the same signal, so whoever waits sees the command's status.
     * Core dumps are off (RLIMIT_CORE 0), as they were for the command. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(sig, &sa, NULL);
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    kill(getpid(), sig);
    _exit(128 + sig);
}

__attribute__((noreturn)) static void supervise(const struct sbx_guard *g, int lfd, pid_t child)
{
    struct seccomp_notif_sizes sizes;
    struct pollfd pf[2];
    struct sigaction sa;
    sigset_t set;
    union {
        struct seccomp_notif n;
        char pad[1024]; /* cppcheck-suppress unusedStructMember ; the kernel's size may grow */
    } req;
    struct guard_req q;
    size_t notif_size = sizeof req.n;
    int sfd, status, i, np;
    pid_t got;

    /* Handlers of the host must never run here. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (i = 1; i < NSIG; i++)
        if (i != SIGKILL && i != SIGSTOP)
            sigaction(i, &sa, NULL);
    fwd_set(&set);
    sigprocmask(SIG_SETMASK, &set, NULL);
    sfd = signalfd(-1, &set, SFD_CLOEXEC);
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); /* orphans stay descendants (Yama) */
    if (sfd < 0) {
        kill(child, SIGKILL);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR)
            ;
        _exit(126);
    }
    close_all_but(lfd, sfd);
    /* 0-2 stay taken by the root directory, opened O_PATH: a symlink of the
     * command's into /proc/self/fd/0..2, which the guard resolves as its
     * own, then fails with EISDIR instead of quietly writing elsewhere. */
    for (i = 0; i < 3; i++)
        if (openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC) < 0)
            break;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0 &&
        sizes.seccomp_notif <= sizeof req)
        notif_size = sizes.seccomp_notif > notif_size ? sizes.seccomp_notif : notif_size;
    q.g = g;
    q.lfd = lfd;
    q.sfd = sfd;
    q.child = child;
    /* Linux 6.6+: the command and the guard hand over on the same CPU, as
     * a call and its return; older kernels refuse the flag and keep the
     * ordinary wake-ups. */
    (void)ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, (unsigned long long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
    /* Resetting SIGCHLD to its default (ignore) above dropped one that was
     * already pending: a command that ended this early is reaped here. */
    while ((got = waitpid(-1, &status, WNOHANG)) > 0)
        if (got == child)
            end_run(status);

    for (;;) {
        pf[0].fd = sfd;
        pf[0].events = POLLIN;
        pf[0].revents = 0;
        np = 1;
        if (lfd >= 0) {
            pf[1].fd = lfd;
            pf[1].events = POLLIN;
            pf[1].revents = 0;
            np = 2;
        }
        if (poll(pf, (nfds_t)np, -1) < 0) {
            if (errno == EINTR)
                continue;
            kill(child, SIGKILL);
            while (waitpid(child, &status, 0) < 0 && errno == EINTR)
                ;
            _exit(126);
        }
        if (np == 2 && (pf[1].revents & POLLIN)) {
            memset(&req, 0, notif_size);
            if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
                q.tid = (pid_t)req.n.pid;
                q.id = req.n.id;
                handle(&q, &req.n.data);
            }
        } else if (np == 2 && (pf[1].revents & (POLLHUP | POLLERR | POLLNVAL))) {
            /* No task uses the filter any more: only the reaping is left. */
            close(lfd);
            lfd = -1;
        }
        if (pf[0].revents & POLLIN)
            on_signal(&q);
    }
}

struct guard_msg {
    int step;
    int err;
};

static int load(const struct sbx_bpf_insn *bpf, unsigned short len, unsigned long flags)
{
    struct sock_fprog prog;
    prog.len = len;
    prog.filter = (struct sock_filter *)(void *)bpf;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* A nested Landlock domain that handles no access but scopes signals: the
 * guard, outside it, can no longer be killed or stopped by the command
 * (kill -9 $PPID ended the run without end_run, leaving setsid grandchildren
 * alive and unguarded; SIGSTOP froze the launcher; issue 18), while the
 * command still signals its own processes. Before the filters, which refuse
 * landlock_restrict_self; sbx_guard_available requires ABI 6. */
static int scope_signals(void)
{
    struct sbx_ll_ruleset_attr attr;
    int fd, rc, e;

    memset(&attr, 0, sizeof attr);
    attr.scoped = SBX_LL_SCOPE_SIGNAL;
    fd = sbx_ll_create_ruleset(&attr, sizeof attr, 0);
    if (fd < 0)
        return -1;
    rc = sbx_ll_restrict_self(fd, 0);
    e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The command's side: load both programs, hand the listener over. Returns
 * only on success; on failure tells the parent and exits. */
static void child_side(const struct sbx_linux_plan *plan, int sock, pid_t parent,
                       const sigset_t *old)
{
    struct guard_msg m = {SBX_STEP_NONE, 0};
    struct seccomp_notif_addfd probe;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    struct msghdr msg;
    struct iovec iov;
    struct cmsghdr *h;
    int lfd = -1;

    /* The guard's death must not leave the command running unguarded; its
     * death before this line is seen by getppid. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
        _exit(126);
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* the parent is not; the guard must read us */
    if (scope_signals() != 0) {
        m.step = SBX_STEP_GUARD;
        m.err = errno;
    }
    if (m.step == SBX_STEP_NONE && plan->bpf && load(plan->bpf, plan->bpf_len, 0) != 0) {
        m.step = SBX_STEP_SECCOMP;
        m.err = errno;
    }
    if (m.step == SBX_STEP_NONE) {
        /* Killable-only waits once the guard has the notification (5.19+):
         * a signal then cannot restart a call the guard already performed. */
        lfd = load(plan->guard_bpf, plan->guard_bpf_len,
                   SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
        if (lfd < 0 && errno == EINVAL)
            lfd = load(plan->guard_bpf, plan->guard_bpf_len, SECCOMP_FILTER_FLAG_NEW_LISTENER);
        if (lfd < 0) {
            m.step = SBX_STEP_GUARD;
            m.err = errno;
        }
    }
    if (m.step == SBX_STEP_NONE) {
        /* SECCOMP_ADDFD_FLAG_SEND (5.14) is what makes an O_CREAT open
         * answerable: an unknown id gives ENOENT where the flag is known. */
        memset(&probe, 0, sizeof probe);
        probe.id = 0;
        probe.flags = SECCOMP_ADDFD_FLAG_SEND;
        probe.srcfd = (uint32_t)lfd;
        if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &probe) == 0 || errno != ENOENT) {
            m.step = SBX_STEP_GUARD;
            m.err = EOPNOTSUPP;
        }
    }
    memset(&msg, 0, sizeof msg);
    iov.iov_base = &m;
    iov.iov_len = sizeof m;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    if (m.step == SBX_STEP_NONE) {
        memset(&cm, 0, sizeof cm);
        msg.msg_control = cm.buf;
        msg.msg_controllen = sizeof cm.buf;
        h = CMSG_FIRSTHDR(&msg);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &lfd, sizeof lfd);
    }
    while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
        if (errno != EINTR)
            _exit(126);
    if (m.step != SBX_STEP_NONE)
        _exit(126);
    /* The command must never hold the listener: with it, it could answer
     * its own notifications. */
    close(lfd);
    close(sock);
    sigprocmask(SIG_SETMASK, old, NULL);
}

int sbx_guard_start(const struct sbx_linux_plan *plan, int raw_fork, int *sys_errno)
{
    struct guard_msg m;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    struct msghdr msg;
    struct iovec iov;
    struct cmsghdr *h;
    sigset_t fwd, old;
    pid_t parent = getpid(), pid;
    ssize_t n;
    int sv[2], lfd = -1, status, e, dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);

    *sys_errno = 0;
    guard_mask = plan->mask;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        *sys_errno = errno;
        return SBX_STEP_GUARD;
    }
    fwd_set(&fwd);
    sigprocmask(SIG_BLOCK, &fwd, &old);
    /* Not dumpable from before the command exists: it can never ptrace the
     * guard or read its memory, though it has the same uid. The child
     * undoes this for itself. A guard that stayed dumpable could be
     * ptraced by the command: that is a failure, not a warning. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        *sys_errno = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(sv[0]);
        close(sv[1]);
        return SBX_STEP_GUARD;
    }
    /* In a child of a multi-threaded host (sandbox_spawn) the raw call: no
     * atfork handler may run. */
    pid = raw_fork ? (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : fork();
    if (pid == 0) {
        close(sv[0]);
        child_side(plan, sv[1], parent, &old);
        return SBX_STEP_NONE;
    }
    e = errno;
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        sigprocmask(SIG_SETMASK, &old, NULL);
        prctl(PR_SET_DUMPABLE, dumpable > 0 ? dumpable : 0, 0, 0, 0);
        *sys_errno = e;
        return SBX_STEP_GUARD;
    }
    memset(&msg, 0, sizeof msg);
    memset(&cm, 0, sizeof cm);
    memset(&m, 0, sizeof m);
    iov.iov_base = &m;
    iov.iov_len = sizeof m;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cm.buf;
    msg.msg_controllen = sizeof cm.buf;
    do
        n = recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    e = errno;
    close(sv[0]);
    h = n == (ssize_t)sizeof m ? CMSG_FIRSTHDR(&msg) : NULL;
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
        h->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&lfd, CMSG_DATA(h), sizeof lfd);
    if (m.step == SBX_STEP_NONE && lfd >= 0 && n == (ssize_t)sizeof m)
        supervise(plan->guard, lfd, pid);
    /* The child failed (and exits 126): nothing ran. */
    if (lfd >= 0)
        close(lfd);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigprocmask(SIG_SETMASK, &old, NULL);
    prctl(PR_SET_DUMPABLE, dumpable > 0 ? dumpable : 0, 0, 0, 0);
    if (n == (ssize_t)sizeof m && m.step != SBX_STEP_NONE) {
        *sys_errno = m.err;
        return m.step;
    }
    *sys_errno = n < 0 ? e : ECHILD;
    return SBX_STEP_GUARD;
}
