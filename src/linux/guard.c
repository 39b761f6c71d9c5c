/* The creation guard (docs/protected-paths.md): protected names that do not
 * exist at launch must not be created either; a module of the supervised
 * run (supervisor.h).
 *
 * The masks cover what the scan found. A new `.env.production` is refused by
 * the listener's seccomp program (create-notify, stacked on the main one),
 * which stops every call creating a name in the kernel and notifies the
 * supervisor. This module reads the name from the command's memory, refuses
 * a protected last component with EACCES (and records it) and otherwise
 * performs the call itself, with its own copy of the path, and hands the
 * result (or the new descriptor, SECCOMP_IOCTL_NOTIF_ADDFD) back. It never
 * lets the call continue after the check: another thread of the command
 * could rewrite the path between the supervisor's read and the kernel's.
 *
 * The supervisor runs inside the same mount namespace and Landlock domain as
 * the command, with the same credentials, so it can never create what the
 * command could not (supervisor.c says how it is protected from the
 * command). Everything after the fork is async-signal-safe: raw system
 * calls, stack buffers, no malloc or stdio. */
#define _GNU_SOURCE
#include "supervisor.h"
#include "landlock.h"
#include "seccomp_rules.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef SECCOMP_ADDFD_FLAG_SEND
#  define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SYS_renameat2
#  define SYS_renameat2 316
#endif
#ifndef RENAME_EXCHANGE
#  define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef SYS_pidfd_open
#  define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#  define SYS_pidfd_getfd 438
#endif
#ifndef PIDFD_THREAD
#  define PIDFD_THREAD 0x80 /* O_EXCL: a pidfd for one thread (Linux 6.9+) */
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
    /* The repository rule (issues 18, 23): with .git write-protected, no
     * directory may become a repository that a later git, run outside the
     * sandbox, would find. On where a name is made: */
    int repo_rule;
    struct guard_root *roots; /* every writable root, real path */
    size_t n_roots;
    int lock_fd; /* the user's guards' shared lock (guardlock.c), or -1 */
    int proj_fd; /* the project's root, read-only: every user's guards' lock, or -1 */
};

/* A writable root as the repository rule sees it. Below a temp or cache
 * root ("loose") only the root itself is guarded: tests, pip, cargo and go
 * build throwaway repositories there, and a later git run in a new folder
 * of /tmp walks up to /tmp itself, never into the command's own folders.
 * Everywhere else (the project, added and output directories, the working
 * directory, and what an unconfined file system reaches) it holds fully. */
struct guard_root {
    char *path;
    size_t len;
    int loose;
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
    if (g->roots) {
        size_t i;
        for (i = 0; i < g->n_roots; i++)
            free(g->roots[i].path);
        free(g->roots);
    }
    free(g->home_dir);
    free(g->home_alt);
    if (g->lock_fd >= 0)
        close(g->lock_fd);
    if (g->proj_fd >= 0)
        close(g->proj_fd);
    free(g);
}

int sbx_guard_lock_fd(const struct sbx_guard *g)
{
    return g ? g->lock_fd : -1;
}

int sbx_guard_project_fd(const struct sbx_guard *g)
{
    return g ? g->proj_fd : -1;
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

/* realpath allocates: fine here, before any fork. A home or root that does
 * not exist cannot hold new names; it is kept as given. */
static char *real_or_given(const char *home, int *oom)
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

/* The roots for the repository rule, by real path (the guard matches the
 * real path of the directory a name is made in). Only when .git is
 * write-protected: --unprotect .git gives the repository to the command. */
static void copy_roots(const sbx_resolved *r, struct sbx_guard *g, int *oom)
{
    size_t i;
    int k;
    for (i = 0; i < r->n_protect; i++)
        if (sbx_protect_create_ok(&r->protect[i]) || (r->protect[i].flags & SBX_PROTECT_F_GIT))
            g->repo_rule = 1;
    if (!g->repo_rule || r->n_roots == 0)
        return;
    g->roots = calloc(r->n_roots, sizeof *g->roots);
    if (!g->roots) {
        *oom = 1;
        return;
    }
    for (i = 0; i < r->n_roots; i++) {
        struct guard_root *gr = &g->roots[g->n_roots];
        gr->path = real_or_given(r->roots[i].path, oom);
        if (!gr->path)
            return;
        gr->len = strlen(gr->path);
        k = r->roots[i].kind;
        gr->loose = k == SBX_ROOT_TEMP || k == SBX_ROOT_SYSTEM_TEMP || k == SBX_ROOT_CACHE ||
                    k == SBX_ROOT_PACKAGE || k == SBX_ROOT_USER_CACHE;
        g->n_roots++;
    }
}

int sbx_guard_prepare(const sbx_resolved *r, struct sbx_linux_plan *plan, sandbox_error *err)
{
    struct sbx_guard *g;
    char detail[256];
    int oom = 0;

    plan->guard = NULL;
    if (!sbx_sc_guard_wanted(r))
        return SANDBOX_OK;
    if (!sbx_guard_available(detail, sizeof detail))
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "protected paths: %s; new protected names could not be refused (use "
                        "--read-only, or run without protected paths)",
                        detail);
    g = calloc(1, sizeof *g);
    if (!g)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
    g->lock_fd = -1;
    g->proj_fd = -1;
    g->protect = copy_list(r->protect, r->n_protect, &oom);
    g->n_protect = g->protect ? r->n_protect : 0;
    g->home = copy_list(r->protect_home, r->n_protect_home, &oom);
    g->n_home = g->home ? r->n_protect_home : 0;
    /* The guard matches the real path of the directory a name is created
     * in, so home must be real too: through a symlinked /home the ~/
     * patterns would never match (review). Both homes (issue 18). */
    g->home_dir = real_or_given(r->home_dir, &oom);
    g->home_alt = real_or_given(r->home_alt, &oom);
    copy_roots(r, g, &oom);
    g->lock_fd = sbx_guard_lock_open(r);
    g->proj_fd = sbx_guard_project_open(r);
    if (oom) {
        sbx_guard_free(g);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
    }
    plan->guard = g;
    return SANDBOX_OK;
}

/* ---- serving one creation call ---- */

/* "/proc/self/fd/N" */
static void fd_path(char *buf, int fd)
{
    strcpy(buf, "/proc/self/fd/");
    sbx_put_dec(buf + 14, (unsigned)fd);
}

/* CAP_SYS_PTRACE, which a guarded supervisor keeps permitted in the masks'
 * user namespace (mask.c) for a caller that made itself non-dumpable: in
 * effect only around the reads of the caller's memory and the taking of
 * its socket, never while the guard opens, creates or binds for it (review
 * r59 F1: an open of /proc/<a non-dumpable sibling>/mem with O_CREAT, which
 * the guard performed, read the sibling's memory as root). Nothing where
 * the capability was not kept (capget says so). */
void sbx_guard_ptrace_cap(int on)
{
    struct __user_cap_header_struct h;
    struct __user_cap_data_struct d[2];
    const uint32_t bit = 1u << CAP_SYS_PTRACE;
    memset(&h, 0, sizeof h);
    h.version = _LINUX_CAPABILITY_VERSION_3;
    /* Lowering never fails in practice; if it did, the guard must not go
     * on to act for the command with the capability in effect: it ends
     * (the run then ends as a sandbox failure). */
    if (syscall(SYS_capget, &h, d) != 0) {
        if (!on)
            _exit(126);
        return;
    }
    if (!(d[0].permitted & bit) || ((d[0].effective & bit) != 0) == (on != 0))
        return;
    d[0].effective = on ? d[0].effective | bit : d[0].effective & ~bit;
    if (syscall(SYS_capset, &h, d) != 0 && !on)
        _exit(126);
}

/* Read a NUL-terminated path from the command's memory, a page at a time
 * (a string may end just before an unmapped page). 0 or an errno. */
static int read_path(pid_t tid, uint64_t addr, char *buf)
{
    size_t got = 0, chunk;
    ssize_t n;
    struct iovec local, remote;
    const size_t page = 4096;
    int e;

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
        sbx_guard_ptrace_cap(1);
        n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
        e = errno;
        sbx_guard_ptrace_cap(0);
        if (n < 0)
            return e == EFAULT || e == EINVAL ? EFAULT : e;
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
        sbx_proc_path(head, tid, map[i].to);
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
    int fd, e;
    if (dirfd != AT_FDCWD && dirfd < 0)
        return EBADF;
    /* The caller's own links, by a path the guard made from its tid: with
     * the capability a non-dumpable caller asks for (sbx_guard_ptrace_cap),
     * as O_PATH; a path the command gave is never opened with it. */
    if (dirfd == AT_FDCWD) {
        sbx_proc_path(p, tid, "/cwd");
    } else {
        sbx_proc_path(p, tid, "/fd/");
        sbx_put_dec(p + strlen(p), (unsigned)dirfd);
    }
    sbx_guard_ptrace_cap(1);
    fd = openat(AT_FDCWD, p, O_PATH | (dirfd == AT_FDCWD ? O_DIRECTORY : 0) | O_CLOEXEC);
    e = errno;
    sbx_guard_ptrace_cap(0);
    if (fd < 0)
        return dirfd != AT_FDCWD && e == ENOENT ? EBADF : e;
    *out = fd;
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
    strcpy(p, "/proc/self/fdinfo/");
    sbx_put_dec(p + 18, (unsigned)fd);
    if (sbx_read_small(p, buf, sizeof buf) <= 0)
        return 0;
    s = strstr(buf, "mnt_id:");
    if (!s)
        return 0;
    for (s += 7; *s == ' ' || *s == '\t'; s++)
        ;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (unsigned long)(*s - '0');
    return v;
}

/* Not an errno: the directory cannot be reached by its name from the guard
 * (no search permission on the way): refused with EACCES, recorded as no
 * protected name. From same_place through check_name only. */
#define GUARD_UNSEEN (-3)

/* Short of descriptors or memory: the guard's own state, which says
 * nothing about the name (review r35 F3: answered EACCES, a supervisor
 * kept short by threads asleep in their SIGSYS handler recorded every new
 * name in the project as a protected one). */
static int guard_short(int e)
{
    return e == EMFILE || e == ENFILE || e == ENOMEM;
}

static int same_place(int dirfd, const char *path)
{
    struct stat a, b;
    unsigned long ma, mb;
    int fd, e = 0;
    if (path[0] != '/')
        return EACCES; /* "anon_inode:", an unreachable directory */
    fd = openat(AT_FDCWD, path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || guard_short(errno))
            return errno;
        /* Not searchable by that path (the command made an ancestor of its
         * working directory mode 000, review r40 F2): the guard cannot see
         * the place, so nothing is made, but no protection refused it. */
        return errno == EACCES || errno == EPERM ? GUARD_UNSEEN : EACCES;
    }
    errno = 0;
    ma = mount_id(dirfd);
    mb = ma ? mount_id(fd) : 0;
    if (!mb && guard_short(errno))
        e = errno; /* fdinfo could not be read: cannot tell, refused unrecorded */
    else if (fstat(dirfd, &a) != 0 || fstat(fd, &b) != 0 || a.st_dev != b.st_dev ||
             a.st_ino != b.st_ino || ma == 0 || ma != mb)
        e = EACCES;
    close(fd);
    return e;
}

/* CHECK_NAME: a protected name is refused; CHECK_TREE: also a name under
 * which a pattern of several components would match; CHECK_MOVE (a flag):
 * the name is moved away (a rename's source, either side of an exchange). */
enum { CHECK_NONE, CHECK_NAME, CHECK_TREE, CHECK_MOVE = 4 };

/* Not an errno: the name may be used as it is, but the guard's own call
 * must create nothing (mkdir, link, symlink and mknod answer EEXIST, an
 * open goes without O_CREAT). From check_repo through check_name and
 * resolve_parent, after every other check passed. */
#define GUARD_NOCREATE (-1)
/* Not an errno either: the open may wait in the kernel and a worker
 * (guardwork.c) finishes and answers it; the supervisor answers nothing. */
#define GUARD_DEFER (-2)

/* One creation call being served. */
struct guard_req {
    struct sbx_sup *s;
    const struct sbx_guard *g;
    const struct sbx_mask_plan *mask; /* this run's write-protected paths */
    pid_t tid;
    uint64_t id;
    char *refused; /* PATH_BUF: the path a protection refused, for the record */
};

/* EACCES, remembering `path` for the record: a refusal of the guard's own,
 * never one the kernel gave the guard (Landlock's EACCES is not recorded). */
static int refuse(const struct guard_req *q, const char *path, size_t len)
{
    if (len < PATH_BUF) {
        memcpy(q->refused, path, len);
        q->refused[len] = '\0';
    }
    return EACCES;
}

/* ---- the repository rule (issues 18, 23) ----
 * git calls a directory a repository when it holds a `.git` (a directory, or
 * a file saying `gitdir: PATH`), or when it is one itself: a valid HEAD plus
 * objects/ and refs/, or HEAD plus a commondir naming where those are
 * (setup.c, is_git_directory). A `git status` run later, outside the
 * sandbox, in or below such a directory takes its config and hooks
 * (core.fsmonitor runs on status). The scan made every repository it found
 * read-only; this keeps a new one from appearing, in a directory the rule
 * holds in (struct guard_root): a `.git` is never made, nor a HEAD, which
 * every repository needs (objects and refs could be sockets, whose bind the
 * guard never sees); of objects, refs and commondir, the one completing the
 * set is refused too, for a HEAD that was there at launch. */

enum { REPO_GIT = 1, REPO_HEAD = 2, REPO_OBJECTS = 4, REPO_REFS = 8, REPO_COMMONDIR = 16 };

static const struct {
    const char *name;
    int bit;
} repo_parts[] = {{".git", REPO_GIT},
                  {"HEAD", REPO_HEAD},
                  {"objects", REPO_OBJECTS},
                  {"refs", REPO_REFS},
                  {"commondir", REPO_COMMONDIR}};

/* Which part `name` is. Case-insensitively: on a case-folding directory git's
 * own lookup of HEAD finds `head` (check_repo asks which). */
static int repo_part(const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < sizeof repo_parts / sizeof repo_parts[0]; i++)
        if (strlen(repo_parts[i].name) == len &&
            sbx_strncasecmp_ascii(repo_parts[i].name, name, len) == 0)
            return repo_parts[i].bit;
    return 0;
}

#ifndef FS_CASEFOLD_FL
#  define FS_CASEFOLD_FL 0x40000000
#endif
/* Is `dirfd` (O_PATH) a case-folding directory? When it cannot be told: yes,
 * so a `head` there is refused (a rare name; the safe answer). */
static int casefolded(int dirfd)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), flags = 0, r;
    if (fd < 0)
        return 1;
    r = ioctl(fd, FS_IOC_GETFLAGS, &flags);
    close(fd);
    return r != 0 || (flags & FS_CASEFOLD_FL) != 0;
}

/* Does the rule hold for names made in `dir` (dlen bytes, a real path)?
 * Everywhere but strictly below a loose root, unless a full root holds it
 * (a project inside /tmp is a project), it is a root itself, or it is an
 * ancestor of a full root: a later git in the project walks up through
 * every one of them, so /tmp/X of a project /tmp/X/proj is guarded as the
 * project is (review g23 G2). */
static int repo_guarded(const struct sbx_guard *g, const char *dir, size_t dlen)
{
    size_t i;
    int loose = 0;
    for (i = 0; i < g->n_roots; i++) {
        const struct guard_root *gr = &g->roots[i];
        if (!gr->loose && dlen < gr->len && strncmp(gr->path, dir, dlen) == 0 &&
            (gr->path[dlen] == '/' || dlen == 1))
            return 1;
    }
    for (i = 0; i < g->n_roots; i++) {
        const struct guard_root *gr = &g->roots[i];
        if (dlen < gr->len || strncmp(gr->path, dir, gr->len) != 0 ||
            (dlen > gr->len && dir[gr->len] != '/' && gr->len > 1))
            continue;
        if (!gr->loose || dlen == gr->len)
            return 1; /* a full root, or any root's own top (TMPDIR below /tmp) */
        loose = 1;
    }
    return !loose;
}

/* Were the names inside the directory `dir` (a real path) all made under
 * the rule? As repo_guarded, except that a loose root's own top does not
 * count: what lies in TMPDIR was made where the rule does not hold. */
static int moved_tree_guarded(const struct sbx_guard *g, const char *dir, size_t dlen)
{
    size_t i;
    int loose = 0;
    for (i = 0; i < g->n_roots; i++) {
        const struct guard_root *gr = &g->roots[i];
        if (dlen < gr->len || strncmp(gr->path, dir, gr->len) != 0 ||
            (dlen > gr->len && dir[gr->len] != '/' && gr->len > 1))
            continue;
        if (!gr->loose)
            return 1;
        loose = 1;
    }
    return !loose;
}

/* The repository rule for `name` made in `dirfd`, whose real path is
 * full[0..dlen) (full[0..n) with the name). 0, EACCES, or GUARD_NOCREATE
 * (below). */
static int check_repo(const struct guard_req *q, int dirfd, const char *full, size_t dlen,
                      size_t n, size_t name_len, int check)
{
    const struct sbx_guard *g = q->g;
    const char *name = full + n - name_len;
    char one[NAME_MAX + 1];
    struct stat st;
    size_t i;
    int part = repo_part(name, name_len), have, refused = 0;

    if (!g->repo_rule || !part || !repo_guarded(g, full, dlen))
        return 0;
    memcpy(one, name, name_len);
    one[name_len] = '\0';
    if (part == REPO_GIT) {
        refused = 1;
    } else if (sbx_mask_known_dir(q->mask, full, dlen)) {
        /* In a repository the scan found (a --git-writable .git, where git
         * renames HEAD.lock over HEAD and makes logs/HEAD and
         * refs/remotes/origin/HEAD) or a read-only bind: the mount decides. */
        return 0;
    } else if (part == REPO_HEAD) {
        refused = memcmp(name, "HEAD", 4) == 0 || casefolded(dirfd);
    } else {
        /* Present in any form counts, a dangling link too: its target could
         * be made later under a name the rule does not know. */
        have = part;
        for (i = 1; i < sizeof repo_parts / sizeof repo_parts[0]; i++)
            if (fstatat(dirfd, repo_parts[i].name, &st, AT_SYMLINK_NOFOLLOW) == 0)
                have |= repo_parts[i].bit;
        refused = (have & REPO_HEAD) && ((have & REPO_COMMONDIR) ||
                                         (have & (REPO_OBJECTS | REPO_REFS)) ==
                                             (REPO_OBJECTS | REPO_REFS));
    }
    if (!refused)
        return 0;
    /* A name that exists now is not made by mkdir, link or an open, but
     * "exists now" is one look: a socket bound there (bind is not guarded)
     * and unlinked while the guard acts would let the guard's own call make
     * the name (review g23 G1). So an existing name is never exempt: the
     * call goes on only in a form that creates nothing (GUARD_NOCREATE).
     * A rename replaces what is there: always refused. */
    if (!(check & CHECK_MOVE) && fstatat(dirfd, one, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        (void)refuse(q, full, n); /* recorded only if the call ends refused */
        return GUARD_NOCREATE;
    }
    return refuse(q, full, n);
}

/* ---- a directory moved out of node_modules (issue 23, F4) ----
 * Editor and agent configuration names may be made beneath node_modules
 * (SBX_PROTECT_F_NOT_IN_DEPS): packages ship them and nothing reads them
 * there. A directory renamed from there to a place outside every
 * node_modules would bring a `.claude/` or `.vscode/` it holds into the
 * project, so its tree is walked and the rename refused when a name in it
 * would be refused at its new place. Consistent: every name the command
 * makes goes through this guard, one call at a time, so nothing is added to
 * the tree between the walk and the rename. Bounded: past DEPS_WALK_MAX
 * entries or DEPS_WALK_DEPTH levels the answer is EXDEV, and mv, cp and
 * shutil.move copy the tree name by name through the guard instead. */
#define DEPS_WALK_MAX 20000
#define DEPS_WALK_DEPTH 24

struct deps_walk {
    const struct guard_req *q;
    char *path; /* PATH_MAX: the new path of the entry being looked at */
    size_t seen;
};

static int deps_refused(const struct deps_walk *w, size_t len)
{
    const struct sbx_guard *g = w->q->g;
    return sbx_protect_refuses_create(g->protect, g->n_protect, g->home, g->n_home, g->home_dir,
                                      w->path, len) ||
           (g->home_alt && sbx_protect_refuses_create(g->protect, g->n_protect, g->home,
                                                      g->n_home, g->home_alt, w->path, len));
}

/* Walk the directory `dirfd` (closed here), whose new path is
 * w->path[0..len). 0, EACCES (w->q->refused says which) or EXDEV. */
static int deps_walk_dir(struct deps_walk *w, int dirfd, size_t len, int depth)
{
    char buf[1024];
    long n, off;
    int e = 0, sub;
    struct stat st;

    while (!e && (n = syscall(SYS_getdents64, dirfd, buf, sizeof buf)) > 0) {
        for (off = 0; !e && off < n;) {
            /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
            unsigned short reclen;
            unsigned char type = (unsigned char)buf[off + 18];
            const char *name = buf + off + 19;
            size_t nl = strlen(name);
            memcpy(&reclen, buf + off + 16, sizeof reclen);
            off += reclen;
            if ((nl == 1 && name[0] == '.') || (nl == 2 && name[0] == '.' && name[1] == '.'))
                continue;
            if (++w->seen > DEPS_WALK_MAX || len + 1 + nl >= PATH_MAX) {
                e = EXDEV;
                break;
            }
            w->path[len] = '/';
            memcpy(w->path + len + 1, name, nl + 1);
            if (deps_refused(w, len + 1 + nl)) {
                e = refuse(w->q, w->path, len + 1 + nl);
                break;
            }
            if (type == DT_UNKNOWN)
                type = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)
                           ? DT_DIR
                           : DT_REG;
            if (type != DT_DIR)
                continue; /* a link is not followed: only its own name moves */
            if (depth >= DEPS_WALK_DEPTH) {
                e = EXDEV;
                break;
            }
            sub = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) {
                e = EXDEV; /* cannot be looked into: copied instead */
                break;
            }
            e = deps_walk_dir(w, sub, len + 1 + nl, depth + 1);
        }
    }
    if (!e && n < 0)
        e = EXDEV;
    close(dirfd);
    return e;
}

/* A directory `a` (its real path, alen bytes, inside `from_dir` as `from`)
 * moved to to_path[0..tlen): refused if it leaves every node_modules and a
 * name in it would be refused there. 0, EACCES or EXDEV. */
static int deps_dir_moved(const struct guard_req *q, int from_dir, const char *from,
                          const char *a, size_t alen, const char *to_path, size_t tlen)
{
    char path[PATH_MAX];
    struct deps_walk w;
    size_t i;
    int fd, any = 0;
    for (i = 0; i < q->g->n_protect; i++)
        any |= (q->g->protect[i].flags & SBX_PROTECT_F_NOT_IN_DEPS) != 0;
    if (!any || !sbx_protect_in_deps(a, alen) || sbx_protect_in_deps(to_path, tlen))
        return 0;
    if (tlen >= sizeof path)
        return EXDEV;
    fd = openat(from_dir, from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return EXDEV;
    memcpy(path, to_path, tlen);
    path[tlen] = '\0';
    w.q = q;
    w.path = path;
    w.seen = 0;
    return deps_walk_dir(&w, fd, tlen, 0);
}

/* A directory renamed: what it carries must not become, at its new place,
 * what the guard refuses to make there.
 * - The repository rule: from below a loose root into a guarded place it
 *   could carry a repository built where the rule does not hold, at any
 *   depth. EXDEV, as between two file systems: mv, shutil.move and cp fall
 *   back to copying, name by name, through this guard.
 * - Out of node_modules: deps_dir_moved.
 * 0, EACCES or EXDEV. */
static int dir_moved(const struct guard_req *q, int from_dir, const char *from, int to_dir,
                     const char *to)
{
    const struct sbx_guard *g = q->g;
    char link[32], a[PATH_MAX], b[PATH_MAX];
    ssize_t na, nb;
    size_t fl = strlen(from), tl = strlen(to), alen, blen;
    struct stat st;
    int e;
    if (fstatat(from_dir, from, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    fd_path(link, from_dir);
    na = readlink(link, a, sizeof a);
    fd_path(link, to_dir);
    nb = readlink(link, b, sizeof b);
    if (na <= 0 || nb <= 0 || (size_t)na + 1 + fl >= sizeof a || (size_t)nb + 1 + tl >= sizeof b)
        return EXDEV;
    /* Judged by the moved directory itself, not its parent: a directory at
     * the top of TMPDIR (whose own top is guarded) holds names made under
     * no rule. Before the masks' Landlock layer granted REFER, every such
     * move was EXDEV there anyway; now this is what refuses it. */
    a[na] = '/';
    memcpy(a + na + 1, from, fl + 1);
    alen = (size_t)na + 1 + fl;
    blen = (size_t)nb;
    if (g->repo_rule) {
        /* A directory inside a writable .git (--git-writable) was made
         * where the repository rule defers to the mount: a repository built
         * there must not come out into the project (review F1). */
        if (sbx_mask_known_dir(q->mask, a, alen) && !sbx_mask_known_dir(q->mask, b, blen))
            return EXDEV;
        if (!moved_tree_guarded(g, a, alen) && repo_guarded(g, b, blen))
            return EXDEV;
    }
    /* The new path, for the walk: b + "/" + to (trailing slashes off). */
    while (tl > 0 && to[tl - 1] == '/')
        tl--;
    if (!(nb == 1 && b[0] == '/'))
        b[nb++] = '/';
    memcpy(b + nb, to, tl);
    b[(size_t)nb + tl] = '\0';
    e = deps_dir_moved(q, from_dir, from, a, alen, b, (size_t)nb + tl);
    return e;
}

/* Is creating `name` (name_len bytes, no '/') inside the directory `dirfd`
 * refused? 0: allowed; EACCES: protected (q->refused says where);
 * GUARD_NOCREATE: allowed only if nothing is created; another errno: cannot
 * tell. */
static int check_name(const struct guard_req *q, int dirfd, const char *name, size_t name_len,
                      int check)
{
    const struct sbx_guard *g = q->g;
    char link[32], full[2 * PATH_MAX + 2], one[NAME_MAX + 1];
    ssize_t n;
    size_t dlen;
    int e, nocreate, tree = (check & 3) == CHECK_TREE;
    struct stat st;

    fd_path(link, dirfd);
    n = readlink(link, full, PATH_MAX);
    if (n < 0)
        return errno;
    if (n >= PATH_MAX)
        return ENAMETOOLONG;
    full[n] = '\0';
    if ((e = same_place(dirfd, full)) != 0)
        return e == GUARD_UNSEEN ? EACCES : e == EACCES ? refuse(q, full, (size_t)n) : e;
    dlen = (size_t)n;
    if (!(n == 1 && full[0] == '/'))
        full[n++] = '/';
    memcpy(full + n, name, name_len);
    n += (ssize_t)name_len;
    full[n] = '\0';
    /* A write-protected path (a .git, a hooks path) or its ancestor: never
     * moved away, and never made while it is missing, so nothing but the
     * read-only original stands where the next git looks (issue 18). */
    /* A directory holding masked secrets moves nowhere: the mask goes with
     * it, but the files would then lie outside the scanned roots (in /tmp)
     * for the next launch to read (review of the REFER grant, F2). */
    if ((check & CHECK_MOVE) && sbx_mask_masks_under(q->mask, full, (size_t)n))
        return refuse(q, full, (size_t)n);
    if (sbx_mask_fixed_under(q->mask, full, (size_t)n)) {
        if (check & CHECK_MOVE)
            return refuse(q, full, (size_t)n);
        if (name_len > NAME_MAX)
            return ENAMETOOLONG;
        memcpy(one, name, name_len);
        one[name_len] = '\0';
        if (fstatat(dirfd, one, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? refuse(q, full, (size_t)n) : errno;
    }
    if (!(check & 3))
        return 0;
    if ((nocreate = check_repo(q, dirfd, full, dlen, (size_t)n, name_len, check)) > 0)
        return nocreate;
    if (sbx_protect_refuses_create(g->protect, g->n_protect, g->home, g->n_home, g->home_dir,
                                   full, (size_t)n) ||
        (g->home_alt && sbx_protect_refuses_create(g->protect, g->n_protect, g->home, g->n_home,
                                                   g->home_alt, full, (size_t)n)))
        return refuse(q, full, (size_t)n);
    /* A name that may hold a tree (a renamed directory, a symlink) must not
     * be a leading part of a pattern of several components either. */
    if (tree && (sbx_protect_refuses_ancestor(g->protect, g->n_protect, g->home_dir, full,
                                              (size_t)n) ||
                 (g->home_alt && sbx_protect_refuses_ancestor(g->protect, g->n_protect,
                                                              g->home_alt, full, (size_t)n))))
        return refuse(q, full, (size_t)n);
    return nocreate;
}

/* Split `path` (resolved from `base`) into its parent, opened here, and its
 * last component, which *last points at (trailing slashes kept, since they
 * mean something to the kernel). With `check` (CHECK_NAME), refuse a
 * protected name; CHECK_TREE also a name under which a pattern of several
 * components would match.
 * *pfd is `base` itself when the path has no directory part, else a new
 * descriptor (*owned = 1). Returns check_name's answer (GUARD_NOCREATE
 * included), or an errno. */
static int resolve_parent(const struct guard_req *q, int base, char *path, int check, int *pfd,
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
    return check ? check_name(q, *pfd, path + start, end - start, check) : 0;
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
static int check_opened(const struct guard_req *q, int fd)
{
    struct statfs sf;
    struct stat st;
    char link[32], where[PATH_MAX], me[24];
    ssize_t n;
    size_t ml, i, start;
    char sup[24];
    size_t sl = 0;
    unsigned long pid = (unsigned long)getpid();

    if (fstat(fd, &st) != 0 || fstatfs(fd, &sf) != 0)
        return EACCES;
    if ((st.st_mode & S_IFMT) == 0 || sf.f_type == GUARD_ANON_INODE_FS_MAGIC ||
        sf.f_type == GUARD_NSFS_MAGIC || sf.f_type == GUARD_PIDFS_MAGIC)
        return EACCES;
    /* The guards' lock file, reached through /proc/<guard>/fd/N: a regular
     * file the guard holds open for writing, which the command could then
     * lock (test_guard: nobody's run opened it before this check). */
    if (q->s->glock_fd >= 0) {
        struct stat lk;
        if (fstat(q->s->glock_fd, &lk) != 0 || (lk.st_dev == st.st_dev && lk.st_ino == st.st_ino))
            return EACCES;
    }
    if (sf.f_type != PROC_SUPER_MAGIC)
        return 0;
    fd_path(link, fd);
    n = readlink(link, where, sizeof where - 1);
    if (n <= 0)
        return EACCES;
    where[n] = '\0';
    ml = sbx_put_dec(me, pid);
    /* A worker guards its supervisor's files as its own. */
    if (q->s->guard_worker)
        sl = sbx_put_dec(sup, (unsigned long)getppid());
    for (i = 0; i < (size_t)n;) {
        while (i < (size_t)n && where[i] == '/')
            i++;
        start = i;
        while (i < (size_t)n && where[i] != '/')
            i++;
        if ((i - start == ml && memcmp(where + start, me, ml) == 0) ||
            (sl && i - start == sl && memcmp(where + start, sup, sl) == 0))
            return EACCES;
    }
    return 0;
}

/* Devices whose open never waits: the memory devices (null, zero, full,
 * random, urandom...), /dev/tty and /dev/ptmx, and pseudo-terminal peers
 * (majors 136-143). Every other device (a serial line waits for its
 * carrier, a sound device while busy) is opened by a worker. */
static int quick_device(dev_t rdev)
{
    unsigned ma = major(rdev), mi = minor(rdev);
    return ma == 1 || (ma == 5 && (mi == 0 || mi == 2)) || (ma >= 136 && ma <= 143);
}

/* Open an existing `name` in `dirfd` for the command, without ever letting
 * the supervisor's loop wait in the kernel (review of issue 19, F3/F6): an
 * open that may wait is finished by a worker (guardwork.c), as the kernel
 * would do it, while the loop goes on serving the run's other calls, its
 * signals, its timeout and the host's death. Which opens wait:
 * - a FIFO for reading, or for writing while it has no reader (O_RDWR and
 *   O_NONBLOCK never wait). A reading open cannot be tried without
 *   waiting: with O_NONBLOCK it succeeds before any writer, where the
 *   kernel's would wait for one, so it always goes to a worker;
 * - a file another process holds a lease on (F_SETLEASE): tried with
 *   O_NONBLOCK, which starts the lease break and answers EWOULDBLOCK;
 * - a device other than quick_device's.
 * Everything else is tried with O_NONBLOCK and opened at once; that flag is
 * taken off the descriptor again unless the command asked for it.
 * 0 with *out, an errno, or GUARD_DEFER: a worker answers the call. In the
 * worker the call returns the descriptor as the kernel's open would. */
static int may_open_in_sticky(int fd);

static int open_existing(const struct guard_req *q, int dirfd, const char *name, int flags,
                         mode_t mode, int *out)
{
    struct stat st;
    int fd, fl, e, wait = 0;

    if (flags & (O_NONBLOCK | O_PATH)) {
        /* O_PATH opens nothing; O_NONBLOCK is the command's and never waits
         * (a lease's EWOULDBLOCK is its answer too). */
        fd = openat(dirfd, name, flags, mode);
        if (fd < 0)
            return errno;
        *out = fd;
        return 0;
    }
    if (fstatat(dirfd, name, &st, (flags & O_NOFOLLOW) ? AT_SYMLINK_NOFOLLOW : 0) == 0) {
        if (S_ISFIFO(st.st_mode))
            wait = (flags & O_ACCMODE) == O_RDONLY ? 1 : (flags & O_ACCMODE) == O_WRONLY ? 2 : 0;
        else if ((S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) && !quick_device(st.st_rdev))
            wait = 1;
    }
    /* Swapped for a FIFO or a device after the look: opened without
     * waiting, as the command's own race made it. */
    if (wait != 1) {
        fd = openat(dirfd, name, flags | O_NONBLOCK, mode);
        if (fd >= 0) {
            fl = fcntl(fd, F_GETFL);
            if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
                e = errno;
                close(fd);
                return e;
            }
            *out = fd;
            return 0;
        }
        /* ENXIO: a FIFO without a reader; EWOULDBLOCK: a lease, whose
         * break has begun (its holder is signalled). */
        if (!(errno == EWOULDBLOCK || (errno == ENXIO && wait == 2)))
            return errno;
    }
    e = sbx_work_start(q->s, q->id, q->tid);
    if (e == 1)
        return GUARD_DEFER;
    if (e)
        return e;
    /* The worker: the call as the kernel makes it, waiting. Never with
     * O_CREAT: names are made by the supervisor alone, one call at a time
     * (the checks of a rename rely on it). A name gone meanwhile answers
     * ENOENT. Its signals are blocked: it waits until the other end, the
     * lease's end, or a SIGKILL from the supervisor. */
    fd = openat(dirfd, name, flags & ~O_CREAT, mode);
    if (fd < 0)
        return errno;
    /* With O_CREAT the kernel applies protected_fifos/regular to what it
     * finds; without it, the worker must. */
    if ((flags & O_CREAT) && (e = may_open_in_sticky(fd)) != 0) {
        close(fd);
        return e;
    }
    *out = fd;
    return 0;
}

/* The command's umask, read once per call and only when the call really
 * creates something (most O_CREAT opens of a build find the file there), then
 * set as the guard's own. Read after the first validity check, so checked
 * again. 0 or an errno. */
static int read_umask(pid_t tid, mode_t *um)
{
    struct sbx_task_info ti;
    int e = sbx_task_info(tid, &ti);
    if (e)
        return e;
    if (!ti.has_umask)
        return EIO;
    *um = (mode_t)ti.umask;
    return 0;
}

static int ensure_umask(const struct guard_req *q, int *have)
{
    mode_t um = 022;
    int e;
    if (*have)
        return 0;
    e = read_umask(q->tid, &um);
    if (e)
        return e;
    if (!sbx_sup_valid(q->s, q->id))
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

/* An O_CREAT open of a repository name that existed when checked
 * (GUARD_NOCREATE): opened as it is, never created, so a name unlinked
 * since is refused rather than made by the guard (review g23 G1). O_EXCL
 * answers EEXIST as the kernel would; a dangling symlink is not followed to
 * a new name (refused). 0 or an errno; q->refused is kept only for EACCES
 * of the rule's own. */
static int open_nocreate(const struct guard_req *q, int pfd, const char *last, int flags,
                         mode_t mode, int *out)
{
    struct stat st;
    int fd = -1, e = 0;
    if (flags & O_EXCL)
        return EEXIST;
    e = open_existing(q, pfd, last, flags & ~O_CREAT, mode, &fd);
    if (e == GUARD_DEFER)
        return e;
    if (e) {
        if (e == ENOENT)
            return EACCES; /* gone since the check, or a dangling link */
        q->refused[0] = '\0';
        return e;
    }
    /* open(dir, O_CREAT|O_RDONLY) is EISDIR; without O_CREAT it opens. */
    if ((flags & O_ACCMODE) == O_RDONLY && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        e = EISDIR;
    else
        e = may_open_in_sticky(fd);
    if (e) {
        q->refused[0] = '\0';
        close(fd);
        return e;
    }
    q->refused[0] = '\0';
    *out = fd;
    return 0;
}

/* Take the guards' lock before a name is made, dropping the parent found
 * without it: the caller checks it again from the start, holding it. */
static int relock(const struct guard_req *q, int *pfd, int *owned)
{
    if (*owned)
        close(*pfd);
    *owned = 0;
    *pfd = -1;
    return sbx_guard_lock_take(q->s);
}

/* open/openat/creat. The name the kernel would create is the last component
 * after following a dangling symlink there, so the guard follows such links
 * itself and only ever creates with O_EXCL (which never follows one). */
static int do_open(const struct guard_req *q, int base, char *path, char *spare, int flags,
                   mode_t mode, int *have_umask, int *out)
{
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
        e = resolve_parent(q, base, path, CHECK_NAME, &pfd, &owned, &last);
        if (e == GUARD_NOCREATE && (flags & O_CREAT)) {
            e = open_nocreate(q, pfd, last, flags, mode, &fd);
            break;
        }
        if (e == GUARD_NOCREATE)
            e = 0;
        if (e)
            break;
        if (!(flags & O_CREAT) || (flags & (O_EXCL | O_NOFOLLOW | O_PATH))) {
            /* A name may be made: checked again under the guards' lock. */
            if ((flags & O_CREAT) && sbx_guard_lock_any(q->s) && !q->s->glock_held) {
                if ((e = relock(q, &pfd, &owned)) != 0)
                    break;
                continue;
            }
            /* No symlink is followed to a new name: one call does it. */
            if ((flags & O_CREAT) && (e = ensure_umask(q, have_umask)) != 0)
                break;
            if (flags & O_EXCL) {
                fd = openat(pfd, last, flags, mode);
                e = fd < 0 ? errno : 0;
            } else {
                e = open_existing(q, pfd, last, flags, mode, &fd);
            }
            created = !e && (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
            break;
        }
        e = open_existing(q, pfd, last, flags & ~O_CREAT, mode, &fd);
        if (!e) {
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
        /* A worker never creates: the name it was to open is gone. */
        if (e != ENOENT || q->s->guard_worker)
            break;
        /* About to make the name: checked again under the guards' lock. */
        if (sbx_guard_lock_any(q->s) && !q->s->glock_held) {
            if ((e = relock(q, &pfd, &owned)) != 0)
                break;
            continue;
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
    if (!e && !created && (e = check_opened(q, fd)) != 0)
        close(fd);
    if (e)
        return e;
    *out = fd;
    return 0;
}

/* ---- bind (issue 18, F3) ----
 * bind() of an AF_UNIX socket to a path makes a name like mknod(S_IFSOCK):
 * sockets named `objects` and `refs` beside a HEAD made a repository git
 * accepts, and a socket could be named `.env.x`. The guard serves every
 * bind: it reads the address (and, for i386 socketcall, the arguments) from
 * the command, takes the command's socket with pidfd_getfd, and binds it
 * itself. A path name is checked and made as mknod's is; anything else
 * (another family, an abstract name, autobind) is bound as given, from the
 * guard's copy: the socket is shared, so the command sees the result. */

#define GUARD_SOCKADDR_MAX 128 /* sizeof(struct sockaddr_storage): EINVAL above */
#define GUARD_SUN_PATH 108     /* sizeof sun_path */

/* Read exactly `len` bytes of the command's memory. 0 or an errno. */
static int read_mem(pid_t tid, uint64_t addr, void *buf, size_t len)
{
    struct iovec local, remote;
    uintptr_t at = (uintptr_t)addr;
    ssize_t n;
    int e;
    local.iov_base = buf;
    local.iov_len = len;
    memcpy(&remote.iov_base, &at, sizeof at); /* never dereferenced here */
    remote.iov_len = len;
    sbx_guard_ptrace_cap(1);
    n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
    e = errno;
    sbx_guard_ptrace_cap(0);
    if (n < 0)
        return e == EFAULT || e == EINVAL ? EFAULT : e;
    return (size_t)n == len ? 0 : EFAULT;
}

/* A copy of the calling thread's descriptor `fd` (its own table: a thread
 * made without CLONE_FILES has one). Before Linux 6.9 there are no thread
 * pidfds and the process's table is used. The caller checks
 * sbx_sup_valid afterwards: the pidfd then pinned the waiting thread. */
static int take_fd(pid_t tid, int fd, int *out)
{
    struct sbx_task_info ti;
    int pfd, e, got;
    pfd = (int)syscall(SYS_pidfd_open, (long)tid, PIDFD_THREAD);
    if (pfd < 0 && errno == EINVAL) {
        if ((e = sbx_task_info(tid, &ti)) != 0)
            return e;
        pfd = (int)syscall(SYS_pidfd_open, ti.tgid, 0);
    }
    if (pfd < 0)
        return errno;
    sbx_guard_ptrace_cap(1);
    got = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
    e = got < 0 ? errno : 0;
    sbx_guard_ptrace_cap(0);
    close(pfd);
    if (e)
        return e;
    *out = got;
    return 0;
}

/* bind(sock, "last") in the directory pfd. sun_path holds 108 bytes, so no
 * /proc/self/fd/N prefix: the guard moves its own working directory there
 * for the one call and back (it is single-threaded, and no other call of
 * its uses its working directory). 0 or an errno. */
static int bind_at(int sock, int pfd, const char *last)
{
    struct {
        unsigned short family;
        char path[GUARD_SUN_PATH];
    } su;
    size_t l = strlen(last);
    int here, e = 0;
    /* All 108 bytes may be the name, without a NUL, as the kernel allows. */
    if (l > sizeof su.path)
        return ENAMETOOLONG;
    su.family = AF_UNIX;
    memcpy(su.path, last, l < sizeof su.path ? l + 1 : l);
    here = openat(AT_FDCWD, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (here < 0)
        return errno;
    if ((pfd >= 0 && fchdir(pfd) != 0) ||
        bind(sock, (const struct sockaddr *)&su,
             (socklen_t)(sizeof su.family + (l < sizeof su.path ? l + 1 : l))) != 0)
        e = errno;
    /* Cannot fail for a directory held open; were it to, later calls all
     * resolve from descriptors or absolute paths anyway. */
    (void)fchdir(here);
    close(here);
    return e;
}

#define GUARD_AF_NETLINK 16
/* A bind that makes no name, as given. One difference the guard must undo:
 * a netlink socket bound with port 0 gets its binder's pid as port id when
 * that is free, and programs may expect their own; so the command's process
 * id is asked for first, then the kernel's choice, as the kernel does. */
static int bind_unnamed(const struct guard_req *q, int sock, int domain, unsigned char *sa,
                        int len)
{
    struct sbx_task_info ti;
    uint32_t port;
    unsigned short family = 0;
    if (len >= 2)
        memcpy(&family, sa, sizeof family);
    if (domain == GUARD_AF_NETLINK && len >= 12 && family == GUARD_AF_NETLINK) {
        memcpy(&port, sa + 4, sizeof port);
        if (port == 0 && sbx_task_info(q->tid, &ti) == 0 && ti.tgid > 0) {
            port = (uint32_t)ti.tgid;
            memcpy(sa + 4, &port, sizeof port);
            if (bind(sock, (const struct sockaddr *)sa, (socklen_t)len) == 0)
                return 0;
            port = 0;
            memcpy(sa + 4, &port, sizeof port);
        }
    }
    return bind(sock, (const struct sockaddr *)sa, (socklen_t)len) != 0 ? errno : 0;
}

static void serve_bind(const struct guard_req *q, const struct sbx_notif *n)
{
    const struct sbx_syscall *c = n->call;
    unsigned char sa[GUARD_SOCKADDR_MAX];
    char path[PATH_BUF], given[GUARD_SUN_PATH + 1];
    uint32_t mux[3];
    uint64_t addr = c->path;
    int fd = c->sockfd, len = c->addrlen, sock = -1, base = AT_FDCWD, pfd = -1, owned = 0;
    int e = 0, named = 0;
    unsigned short family = 0;
    mode_t um = 022;
    char *last;
    socklen_t dl = sizeof(int);
    int domain = 0;

    memset(sa, 0, sizeof sa);

    if (c->mux && (e = read_mem(q->tid, c->path, mux, sizeof mux)) == 0) {
        fd = (int)mux[0];
        addr = mux[1];
        len = (int)mux[2];
    }
    if (!e)
        e = take_fd(q->tid, fd, &sock);
    if (!e && (len < 0 || len > GUARD_SOCKADDR_MAX))
        e = EINVAL;
    if (!e && len > 0)
        e = read_mem(q->tid, addr, sa, (size_t)len);
    if (!e && len >= 2)
        memcpy(&family, sa, sizeof family);
    if (!e && getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &dl) != 0)
        domain = -1; /* not a socket: bound as given, ENOTSOCK */
    if (!e && family == AF_UNIX && domain == AF_UNIX && len > 2 + GUARD_SUN_PATH)
        e = EINVAL; /* longer than a sockaddr_un: the kernel's answer */
    /* A path name: an AF_UNIX socket and address, longer than the family,
     * not abstract (a NUL first). It ends at its first NUL or at the
     * address's end. Any other bind makes no name. */
    if (!e && family == AF_UNIX && domain == AF_UNIX && len > 2 && sa[2] != '\0') {
        size_t pl = (size_t)len - 2;
        const unsigned char *z = memchr(sa + 2, '\0', pl);
        if (z)
            pl = (size_t)(z - (sa + 2));
        memcpy(path, sa + 2, pl);
        path[pl] = '\0';
        memcpy(given, path, pl + 1);
        named = 1;
        rewrite_self(path, q->tid);
        if (path[0] != '/')
            e = open_base(q->tid, AT_FDCWD, &base);
        if (!e)
            e = read_umask(q->tid, &um);
    }
    /* All of it came from the waiting thread only if it still waits. */
    if (!sbx_sup_valid(q->s, q->id))
        goto out;
    if (e)
        goto answer;
    if (!named) {
        /* Nothing is named: bound as given, from the guard's copy (never
         * let through: the command could change the address meanwhile). */
        e = bind_unnamed(q, sock, domain, sa, len);
        goto answer;
    }
    umask(um); /* the socket file's mode is the command's umask's */
    e = sbx_guard_lock_take(q->s);
    if (!e)
        e = resolve_parent(q, base, path, CHECK_NAME, &pfd, &owned, &last);
    if (e == GUARD_NOCREATE)
        e = EADDRINUSE; /* there already: the kernel's answer, nothing made */
    /* Bound under the name as the command spelled it, which getsockname()
     * and its peers then report (multiprocessing.Manager publishes it):
     * from the command's working directory for a relative name. Creations
     * and renames of one run pass the guard one at a time, so that
     * spelling still reaches the parent just checked. A /proc/self name
     * would mean the guard's own: bound from the checked parent instead. */
    if (!e && strcmp(path, given) == 0)
        e = bind_at(sock, given[0] == '/' ? -1 : base, given);
    else if (!e)
        e = bind_at(sock, pfd, last);
answer:
    if (e == EACCES && q->refused[0])
        sbx_sup_record(q->s, n, SBX_REC_PROTECTED, SBX_ACT_EACCES, q->refused, NULL);
    sbx_sup_respond(q->s, q->id, 0, e);
out:
    sbx_guard_lock_drop(q->s);
    if (owned)
        close(pfd);
    if (base >= 0)
        close(base);
    if (sock >= 0)
        close(sock);
}

void sbx_guard_serve(struct sbx_sup *s, const struct sbx_notif *n)
{
    char path[PATH_BUF], old[PATH_BUF], spare[PATH_BUF], refused[PATH_BUF];
    const struct sbx_syscall c = *n->call;
    struct guard_req req;
    const struct guard_req *q = &req;
    int e = 0, base = AT_FDCWD, obase = AT_FDCWD, pfd = -1, opfd = -1, owned = 0, oowned = 0;
    int fd = -1, needs_umask;
    char *last, *olast;
    mode_t um = 022;
    long rc = 0;

    req.s = s;
    req.g = s->plan->guard;
    req.mask = s->plan->mask;
    req.tid = n->tid;
    req.id = n->id;
    req.refused = refused;
    refused[0] = '\0';
    if (!req.g) { /* a creation call without the guard: the filters never send one */
        sbx_sup_respond(s, n->id, 0, ENOSYS);
        return;
    }
    if (c.op == SBX_OP_BIND) {
        serve_bind(&req, n);
        return;
    }
    e = read_path(q->tid, c.path, path);
    if (!e && c.has_old)
        e = read_path(q->tid, c.old, old);
    if (!e) {
        rewrite_self(path, q->tid);
        if (c.has_old && c.op != SBX_OP_SYMLINK)
            rewrite_self(old, q->tid);
    }
    if (!e && path[0] != '/')
        e = open_base(q->tid, c.dirfd, &base);
    if (!e && c.has_old && c.op != SBX_OP_SYMLINK &&
        (old[0] != '/' || (c.op == SBX_OP_LINK && (c.flags & AT_EMPTY_PATH) && !old[0])))
        e = open_base(q->tid, c.olddirfd, &obase);
    needs_umask = c.op == SBX_OP_MKDIR || c.op == SBX_OP_MKNOD;
    if (!e && needs_umask)
        e = read_umask(q->tid, &um);
    /* Everything above was read from the task that is still waiting for this
     * answer (not from a task that reused its number) only if the id is still
     * valid now. */
    if (!sbx_sup_valid(s, n->id))
        goto out;
    if (e)
        goto answer;
    if (needs_umask)
        umask(um);
    /* From the first check to the call made: no other run's guard changes
     * a folder meanwhile (guardlock.c). An open takes it only once it is
     * about to make a name (do_open): most find their file there. */
    if (c.op != SBX_OP_OPEN && (e = sbx_guard_lock_take(s)) != 0)
        goto answer;
    switch (c.op) {
    case SBX_OP_OPEN:
        e = do_open(q, base, path, spare, c.flags, (mode_t)c.mode, &needs_umask, &fd);
        if (e == GUARD_DEFER)
            goto out; /* a worker answers: the loop goes on */
        sbx_work_answering(s); /* in a worker: never killed from here on */
        if (!e && s->guard_worker > 0) {
            /* A worker does not install: the supervisor does, with one
             * call (sbx_work_drain). Installing here and then answering left, in a
             * worker killed from outside in between (a process of the same
             * user), a descriptor in the command whose open failed EAGAIN
             * (review r62 F1); SEND here marked the call answered before
             * the caller had the descriptor, so the open returned 0 with
             * nothing installed (r61 F1). Killed before the descriptor is
             * handed, the sweep answers EAGAIN; after, the supervisor has
             * it. */
            if (sbx_work_hand(s, q->id, fd, (c.flags & O_CLOEXEC) != 0) == 0) {
                close(fd);
                goto out;
            }
            /* The handover refused (ETOOMANYREFS: the user's descriptors
             * in flight over unix sockets, a count any process of the user
             * can fill, passed this process's limit; review r63 F1): the
             * open is made, its other end woken, so it is not answered as
             * failed. The worker installs, then answers with the number,
             * as before the handover: only a kill from outside between
             * the two leaves the descriptor unannounced. */
        }
        if (!e) {
            struct seccomp_notif_addfd a;
            memset(&a, 0, sizeof a);
            a.id = q->id;
            /* Installs the descriptor (the lowest free number, under the
             * command's own limits) and answers with it, atomically (SEND:
             * the supervisor); a worker whose handover was refused
             * installs, then answers (SEND from a worker killed from
             * outside midway made the open return 0 with nothing there). */
            a.flags = s->guard_worker > 0 ? 0 : SECCOMP_ADDFD_FLAG_SEND;
            a.srcfd = (uint32_t)fd;
            a.newfd = 0;
            a.newfd_flags = (c.flags & O_CLOEXEC) ? O_CLOEXEC : 0;
            rc = ioctl(s->lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a);
            e = rc < 0 && errno != ENOENT && errno != EINPROGRESS ? errno : 0;
            close(fd);
            if (rc >= 0 && s->guard_worker > 0)
                sbx_sup_respond(s, q->id, rc, 0);
            if (rc >= 0 || !e)
                goto out;
        }
        break;
    /* GUARD_NOCREATE: the name was there when checked, so these calls
     * fail as the kernel's would, with EEXIST, and the guard makes nothing:
     * were it to make the call, a name unlinked meanwhile would be made. */
    case SBX_OP_MKDIR:
        e = resolve_parent(q, base, path, CHECK_NAME, &pfd, &owned, &last);
        if (!e && mkdirat(pfd, last, (mode_t)c.mode) != 0)
            e = errno;
        break;
    case SBX_OP_MKNOD:
        e = resolve_parent(q, base, path, CHECK_NAME, &pfd, &owned, &last);
        /* The raw call: the dev argument is the kernel's 32-bit encoding. */
        if (!e && syscall(SYS_mknodat, pfd, last, c.mode, c.dev) != 0)
            e = errno;
        break;
    case SBX_OP_SYMLINK:
        e = resolve_parent(q, base, path, CHECK_TREE, &pfd, &owned, &last);
        if (!e && symlinkat(old, pfd, last) != 0)
            e = errno;
        break;
    case SBX_OP_LINK:
        e = resolve_parent(q, base, path, CHECK_NAME, &pfd, &owned, &last);
        if (!e && linkat(obase, old, pfd, last, c.flags) != 0)
            e = errno;
        break;
    case SBX_OP_RENAME:
        /* RENAME_EXCHANGE gives both names new contents: check both. */
        /* Whatever the source is now (a directory could replace a file
         * before the call), the new name is checked as one that may hold a
         * tree. */
        e = resolve_parent(q, obase, old,
                           ((c.flags & RENAME_EXCHANGE) ? CHECK_TREE : CHECK_NONE) | CHECK_MOVE,
                           &opfd, &oowned, &olast);
        /* The new name is moved away too when it exists: a rename onto a
         * write-protected path or a symlink git follows replaces it. */
        if (!e)
            e = resolve_parent(q, base, path, CHECK_TREE | CHECK_MOVE, &pfd, &owned, &last);
        if (!e)
            e = dir_moved(q, opfd, olast, pfd, last);
        if (!e && (c.flags & RENAME_EXCHANGE))
            e = dir_moved(q, pfd, last, opfd, olast);
        if (!e && syscall(SYS_renameat2, opfd, olast, pfd, last, (unsigned)c.flags) != 0)
            e = errno;
        break;
    default:
        e = ENOSYS;
        break;
    }
    if (e == GUARD_NOCREATE) /* only the calls above that create a name */
        e = EEXIST;
answer:
    /* A refusal of the guard's own is recorded before the answer: once
     * answered, the caller may exit and its name be gone. */
    /* Not from a worker: the records are the supervisor's to write, one
     * at a time. */
    if (e == EACCES && refused[0] && !s->guard_worker)
        sbx_sup_record(s, n, SBX_REC_PROTECTED, SBX_ACT_EACCES, refused, NULL);
    sbx_sup_respond(s, n->id, 0, e);
out:
    sbx_guard_lock_drop(s);
    /* A worker has answered its one call (or its caller is gone). */
    if (s->guard_worker)
        _exit(0);
    if (owned)
        close(pfd);
    if (oowned)
        close(opfd);
    if (base >= 0)
        close(base);
    if (obase >= 0)
        close(obase);
}

