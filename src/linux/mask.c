/* Protected paths on Linux: masks in a private mount namespace.
 *
 * Landlock can only grant, so it cannot take a secret back out of a readable
 * or writable tree. Instead the command gets its own view of the filesystem:
 *   - every existing protected file is covered by a bind mount of /dev/null
 *     made read-only, nodev, nosuid, noexec: opening it fails (EACCES), and
 *     the mount point itself cannot be renamed, unlinked or linked (EBUSY,
 *     EXDEV), so no rename of a parent, symlink or hard link reaches the file
 *     underneath;
 *   - every existing protected directory is covered by an empty, read-only
 *     tmpfs with mode 000;
 *   - every write-protected path (.git) is bind-mounted onto itself read-only,
 *     so nothing beneath it, existing or new (hooks/pre-commit), is writable;
 *   - every other name of a protected inode found in the scan is masked too.
 * Prepare (here, before any fork) walks the roots and records the mounts;
 * apply (sbx_mask_apply) runs only async-signal-safe system calls:
 * unshare(user+mount) -> id maps -> mounts -> drop every capability -> a
 * Landlock domain that handles a filesystem right, because only such a domain
 * makes the kernel refuse mount, umount, move_mount and pivot_root to the
 * command (and its children, in any new namespace) and refuse reaching other
 * processes' mount views through /proc/PID/root.
 *
 * Not covered: protected files created after prepare (a new .env.local), paths
 * outside the scanned roots and home, and descriptors the command inherits
 * already open. docs/protected-paths.md has the full list. */
#define _GNU_SOURCE
#include "linux.h"
#include "landlock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#  define PR_CAP_AMBIENT 47
#  define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

enum mask_how {
    MASK_READONLY = 0, /* bind onto itself, read-only: write-protected */
    MASK_DIR = 1,      /* empty read-only tmpfs, mode 000 */
    MASK_FILE = 2      /* /dev/null bound read-only and nodev */
};

struct sbx_mask_entry {
    char *path;
    int how;            /* enum mask_how */
    unsigned long keep; /* MS_* flags the kernel locks on this mount: keep them */
};

struct sbx_mask_plan {
    struct sbx_mask_entry *e;
    size_t n, cap;
    char uid_map[48], gid_map[48];
    size_t uid_map_len, gid_map_len;
    int deny_setgroups;      /* required before writing gid_map */
    unsigned long null_keep; /* locked flags of /dev/null's mount */
    int ruleset_fd;          /* the minimal Landlock domain */
    int cap_last;            /* highest capability number of this kernel */
    size_t n_files, n_dirs, n_readonly;
};

/* Room for the working directory's path, re-entered after the masks. */
#define MASK_CWD_BUF (PATH_MAX + 1)

/* ---- probes ---- */

static long read_long(const char *path, long dflt)
{
    char buf[32];
    ssize_t got;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return dflt;
    got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0)
        return dflt;
    buf[got] = '\0';
    return strtol(buf, NULL, 10);
}

static int landlock_abi(void)
{
    int v = sbx_ll_create_ruleset(NULL, 0, SBX_LL_CREATE_RULESET_VERSION);
    return v < 0 ? 0 : v;
}

int sbx_mask_available(char *detail, size_t size)
{
    int root = geteuid() == 0;
    if (landlock_abi() < 1) {
        snprintf(detail, size,
                 "not available: protected paths need Landlock (Linux 5.13+, enabled in the "
                 "lsm= boot list) to forbid unmounting the masks; requests for them exit 126");
        return 0;
    }
    if (read_long("/proc/sys/user/max_user_namespaces", 1) == 0) {
        snprintf(detail, size, "not available: user namespaces are disabled "
                               "(user.max_user_namespaces = 0); requests for them exit 126");
        return 0;
    }
    if (!root && read_long("/proc/sys/kernel/unprivileged_userns_clone", 1) == 0) {
        snprintf(detail, size, "not available: unprivileged user namespaces are disabled "
                               "(kernel.unprivileged_userns_clone = 0); requests exit 126");
        return 0;
    }
    if (!root && read_long("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 0) == 1) {
        snprintf(detail, size, "not available: AppArmor restricts unprivileged user namespaces "
                               "(kernel.apparmor_restrict_unprivileged_userns = 1); requests exit 126");
        return 0;
    }
    snprintf(detail, size,
             "existing protected files and directories in the project, added directories, the "
             "working directory and home are masked in a private mount namespace, .git is "
             "mounted read-only; names created later are refused by the creation guard "
             "(a supervisor on a seccomp user-notification filter)");
    return 1;
}

/* ---- the plan ---- */

void sbx_mask_free(struct sbx_mask_plan *m)
{
    size_t i;
    if (!m)
        return;
    for (i = 0; i < m->n; i++)
        free(m->e[i].path);
    free(m->e);
    if (m->ruleset_fd >= 0)
        close(m->ruleset_fd);
    free(m);
}

/* The atime and nosuid/nodev/noexec flags a user namespace may not change on
 * a mount it did not create: a remount must repeat them or fail with EPERM. */
static unsigned long locked_flags(const char *path)
{
    struct statvfs sv;
    unsigned long f = 0;
    if (statvfs(path, &sv) != 0)
        return 0;
    if (sv.f_flag & ST_NOSUID)
        f |= MS_NOSUID;
    if (sv.f_flag & ST_NODEV)
        f |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC)
        f |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME)
        f |= MS_NOATIME;
    else if (!(sv.f_flag & ST_RELATIME))
        f |= MS_STRICTATIME;
    if (sv.f_flag & ST_NODIRATIME)
        f |= MS_NODIRATIME;
    return f;
}

static int add_entry(struct sbx_mask_plan *m, const char *path, int how)
{
    size_t i;
    for (i = 0; i < m->n; i++) {
        if (strcmp(m->e[i].path, path) == 0) {
            if (how > m->e[i].how)
                m->e[i].how = how; /* a mask beats read-only */
            return SANDBOX_OK;
        }
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        struct sbx_mask_entry *g = realloc(m->e, cap * sizeof *g);
        if (!g)
            return SANDBOX_E_NOMEM;
        m->e = g;
        m->cap = cap;
    }
    m->e[m->n].path = sbx_strdup(path);
    if (!m->e[m->n].path)
        return SANDBOX_E_NOMEM;
    m->e[m->n].how = how;
    m->e[m->n].keep = 0;
    m->n++;
    return SANDBOX_OK;
}

/* Is `path` the same as, or beneath, `root`? */
static int beneath(const char *path, const char *root)
{
    size_t n = strlen(root);
    if (n == 1 && root[0] == '/')
        return 1;
    return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* The masked entry (a file or directory mask, not read-only) that `path`
 * lies at or beneath, or NULL. Pure: also used between fork and exec. */
static const char *masked_at(const struct sbx_mask_plan *m, const char *path)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (m->e[i].how != MASK_READONLY && beneath(path, m->e[i].path))
            return m->e[i].path;
    return NULL;
}

/* A name of a regular file with more than one link. */
struct link_name {
    dev_t dev;
    ino_t ino;
    nlink_t nlink;
    int kind; /* -1, SANDBOX_PROTECT_WRITE or SANDBOX_PROTECT_ALL (inherited) */
    char *path;
};

struct walk {
    const sbx_resolved *r;
    struct sbx_mask_plan *m;
    struct link_name *links;
    size_t n_links, cap_links;
    char *warning;
    size_t warning_size;
    sandbox_error *err;
    size_t n_seen;
    int pass;          /* 1: protected names; 2: other names of their inodes */
    ino_t *wanted;     /* pass 2: inode numbers of protected multi-link files */
    size_t n_wanted;
    /* Trees outside the roots that a symlink in them leads to (issue 18):
     * scanned too, up to LINK_DEPTH links away and LINK_TREES trees. */
    const char *const *roots;
    size_t n_roots;
    char **extra;
    int *extra_depth;
    size_t n_extra;
    int depth;         /* links away from a root of the tree being walked */
    size_t max_seen;   /* entry budget of the followed trees (0: none) */
    size_t n_followed;
    char followed[160]; /* the first link followed, for the warning */
    size_t n_skipped;   /* links to a pseudo file system or above a root */
    char skipped[160];
};

#define LINK_DEPTH 4
#define LINK_TREES 64
#define LINK_ENTRIES 200000

static int cmp_ino(const void *a, const void *b)
{
    ino_t x = *(const ino_t *)a, y = *(const ino_t *)b;
    return x < y ? -1 : x > y;
}

/* Is this inode number one a protected file with several links has? (The
 * device is checked after the stat.) */
static int wanted(const struct walk *w, ino_t ino)
{
    return w->n_wanted && bsearch(&ino, w->wanted, w->n_wanted, sizeof ino, cmp_ino) != NULL;
}

static int stronger(int a, int b)
{
    if (a == SANDBOX_PROTECT_ALL || b == SANDBOX_PROTECT_ALL)
        return SANDBOX_PROTECT_ALL;
    return a == SANDBOX_PROTECT_WRITE || b == SANDBOX_PROTECT_WRITE ? SANDBOX_PROTECT_WRITE : -1;
}

static int remember_link(struct walk *w, const struct stat *st, const char *path, int kind)
{
    if (w->n_links == w->cap_links) {
        size_t cap = w->cap_links ? w->cap_links * 2 : 64;
        struct link_name *g = realloc(w->links, cap * sizeof *g);
        if (!g)
            return SANDBOX_E_NOMEM;
        w->links = g;
        w->cap_links = cap;
    }
    w->links[w->n_links].path = sbx_strdup(path);
    if (!w->links[w->n_links].path)
        return SANDBOX_E_NOMEM;
    w->links[w->n_links].dev = st->st_dev;
    w->links[w->n_links].ino = st->st_ino;
    w->links[w->n_links].nlink = st->st_nlink;
    w->links[w->n_links].kind = kind;
    w->n_links++;
    return SANDBOX_OK;
}

/* Record what protects `path` (its own match `k`, under `inherited`). */
static int record(struct walk *w, const char *path, const struct stat *lst, int k, int inherited)
{
    struct stat st;
    int eff = stronger(k, inherited), rc;
    if (S_ISREG(lst->st_mode) && lst->st_nlink > 1) {
        rc = remember_link(w, lst, path, eff);
        if (rc != SANDBOX_OK)
            return rc;
    }
    /* Covered already by the mask of a parent, or not protected at all. */
    if (k < 0 || inherited == SANDBOX_PROTECT_ALL || (k == SANDBOX_PROTECT_WRITE && inherited >= 0))
        return SANDBOX_OK;
    /* A protected name that is a symlink: mount follows it, so the target is
     * what gets covered; a dangling one has nothing to reveal. */
    if (stat(path, &st) != 0)
        return SANDBOX_OK;
    if (k == SANDBOX_PROTECT_WRITE)
        return add_entry(w->m, path, MASK_READONLY);
    return add_entry(w->m, path, S_ISDIR(st.st_mode) ? MASK_DIR : MASK_FILE);
}

/* Is `real` inside a root or a tree already queued? */
static int already_scanned(const struct walk *w, const char *real)
{
    size_t i;
    for (i = 0; i < w->n_roots; i++)
        if (beneath(real, w->roots[i]))
            return 1;
    for (i = 0; i < w->n_extra; i++)
        if (beneath(real, w->extra[i]))
            return 1;
    return 0;
}

static int pseudo_or_above(const struct walk *w, const char *real)
{
    static const char *const pseudo[] = {"/proc", "/sys", "/dev"};
    size_t i, n = strlen(real);
    for (i = 0; i < sizeof pseudo / sizeof pseudo[0]; i++)
        if (beneath(real, pseudo[i]))
            return 1;
    for (i = 0; i < w->n_roots; i++)
        if (strncmp(w->roots[i], real, n) == 0 && (n == 1 || w->roots[i][n] == '/'))
            return 1;
    return 0;
}

/* A symlink found in a scanned tree: the command reads through it (bazel-out,
 * node_modules links, monorepo links), so what it leads to outside the roots
 * is protected as if it were inside: a protected file there is masked by its
 * real path, a directory is queued as one more tree to scan. Links beyond
 * LINK_DEPTH hops or LINK_TREES trees refuse to start: an unscanned tree
 * would be an unprotected one. */
static int follow_link(struct walk *w, const char *path)
{
    struct stat st;
    char *real;
    int rc = SANDBOX_OK, k;
    if (stat(path, &st) != 0)
        return SANDBOX_OK; /* dangling: nothing to read; a creation is the guard's */
    if (!(real = realpath(path, NULL)))
        return sbx_fail(w->err, SANDBOX_E_PATH, errno,
                        "protected paths: %s leads somewhere that cannot be resolved (%s), so "
                        "protected files there could not be masked; remove the link or run "
                        "without protected paths", path, strerror(errno));
    if (already_scanned(w, real)) {
        free(real);
        return SANDBOX_OK;
    }
    /* A link to a pseudo file system (/proc, /sys, /dev) or to an ancestor
     * of a root (/, the home above the project): not followed. The first
     * holds no file of the user's; the second holds the roots, scanned
     * anyway, and the rest of the machine, which no scan can mask
     * (docs/protected-paths.md). Said at launch. */
    if (pseudo_or_above(w, real)) {
        if (!w->n_skipped++)
            snprintf(w->skipped, sizeof w->skipped, "%s -> %s", path, real);
        free(real);
        return SANDBOX_OK;
    }
    if (!w->n_followed++)
        snprintf(w->followed, sizeof w->followed, "%s -> %s", path, real);
    if (!S_ISDIR(st.st_mode)) {
        k = sbx_protect_match(w->r->protect, w->r->n_protect, real, 0);
        if (k >= 0)
            rc = record(w, real, &st, k, -1);
        free(real);
        return rc;
    }
    if (w->depth + 1 > LINK_DEPTH || w->n_extra >= LINK_TREES) {
        rc = sbx_fail(w->err, SANDBOX_E_REFUSED, 0,
                      "protected paths: %s leads to %s, %s; protected files there could not be "
                      "masked: remove the link or run without protected paths",
                      path, real, w->n_extra >= LINK_TREES
                                      ? "one tree more than the " "64 followed symlinked trees"
                                      : "more than 4 symlinks away from the project");
        free(real);
        return rc;
    }
    w->extra[w->n_extra] = real;
    w->extra_depth[w->n_extra] = w->depth + 1;
    w->n_extra++;
    return SANDBOX_OK;
}

static int walk_dir(struct walk *w, char *path, size_t len, size_t cap, int inherited)
{
    DIR *d;
    struct dirent *de;
    int rc = SANDBOX_OK;

    d = opendir(path);
    if (!d) {
        struct stat st;
        if (errno == ENOENT || errno == ENOTDIR)
            return SANDBOX_OK; /* vanished while we walked */
        /* The command runs with our credentials and no capability: a
         * directory we cannot list and do not own stays closed to it too. An
         * own one it could chmod open, so the scan must see inside. */
        if (errno == EACCES && stat(path, &st) == 0 && st.st_uid != geteuid()) {
            /* Searchable but not listable (0711 of another owner): a guessed
             * name inside opens (issue 18), and no wildcard or subdirectory
             * can be checked. Mask the whole directory. */
            if (inherited == SANDBOX_PROTECT_ALL || access(path, X_OK) != 0)
                return SANDBOX_OK;
            sbx_warn(w->warning, w->warning_size,
                     "protected paths: %s can be entered but not listed, so it is masked whole",
                     path);
            return add_entry(w->m, path, MASK_DIR);
        }
        return sbx_fail(w->err, SANDBOX_E_PATH, errno,
                        "cannot scan %s for protected paths: %s; fix its permissions or "
                        "run without protected paths",
                        path, strerror(errno));
    }
    while (rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
        struct stat st;
        size_t nl = strlen(de->d_name);
        int k;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (len + 1 + nl + 1 > cap) {
            rc = sbx_fail(w->err, SANDBOX_E_PATH, ENAMETOOLONG,
                          "a path under %s is too long to scan for protected paths", path);
            break;
        }
        path[len] = '/';
        memcpy(path + len + 1, de->d_name, nl + 1);
        if (++w->n_seen > w->max_seen && w->max_seen) {
            rc = sbx_fail(w->err, SANDBOX_E_REFUSED, 0,
                          "protected paths: the symlinks out of the project lead to more than %d "
                          "entries to scan (first: %s); remove the links or run without "
                          "protected paths", LINK_ENTRIES, w->followed);
            path[len] = '\0';
            break;
        }
        k = sbx_protect_match_tail(w->r->protect, w->r->n_protect, path, len + 1 + nl, 0);
        if (w->pass == 1) {
            /* Only what is protected, or whose type readdir did not say,
             * costs a stat; ordinary files are judged by name alone. */
            int is_dir = de->d_type == DT_DIR, is_link = de->d_type == DT_LNK;
            if (k >= 0 || inherited >= 0 || de->d_type == DT_UNKNOWN) {
                if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                    path[len] = '\0';
                    continue; /* vanished */
                }
                rc = record(w, path, &st, k, inherited);
                is_dir = S_ISDIR(st.st_mode);
                is_link = S_ISLNK(st.st_mode);
            }
            /* A link under a mask reveals nothing the mask does not hide. */
            if (rc == SANDBOX_OK && is_link && k != SANDBOX_PROTECT_ALL &&
                inherited != SANDBOX_PROTECT_ALL)
                rc = follow_link(w, path);
            /* Descend into masked directories too: their files' other names
             * (hard links) must be found. Never follow a symlink. */
            if (rc == SANDBOX_OK && is_dir)
                rc = walk_dir(w, path, len + 1 + nl, cap, stronger(k, inherited));
        } else {
            /* Second pass, only when a protected inode has several links:
             * find its other names among the ordinary files. */
            if (k < 0 && inherited < 0 && (de->d_type == DT_REG || de->d_type == DT_UNKNOWN) &&
                wanted(w, de->d_ino) &&
                fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISREG(st.st_mode) && st.st_nlink > 1)
                rc = remember_link(w, &st, path, -1);
            if (rc == SANDBOX_OK && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) &&
                (de->d_type == DT_DIR ||
                 (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))))
                rc = walk_dir(w, path, len + 1 + nl, cap, stronger(k, inherited));
        }
        path[len] = '\0';
    }
    closedir(d);
    return rc;
}

static int cmp_link(const void *a, const void *b)
{
    const struct link_name *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->ino != y->ino)
        return x->ino < y->ino ? -1 : 1;
    return strcmp(x->path, y->path);
}

static int same_inode(const struct link_name *x, const struct link_name *y)
{
    return x->dev == y->dev && x->ino == y->ino;
}

/* Every name of a protected inode gets its mask; every name of a file under
 * .git gets read-only. Names outside the scan cannot be masked: warn. */
static int resolve_links(struct walk *w)
{
    size_t i = 0, j, g;
    int rc = SANDBOX_OK;
    if (w->n_links == 0)
        return SANDBOX_OK;
    qsort(w->links, w->n_links, sizeof *w->links, cmp_link);
    while (rc == SANDBOX_OK && i < w->n_links) {
        int kind = -1;
        nlink_t names = 0;
        for (g = i; g < w->n_links && same_inode(&w->links[g], &w->links[i]); g++) {
            kind = stronger(kind, w->links[g].kind);
            /* Home and a root may list the same name: count it once. */
            names += g == i || strcmp(w->links[g].path, w->links[g - 1].path) != 0;
        }
        for (j = i; rc == SANDBOX_OK && kind >= 0 && j < g; j++) {
            if (w->links[j].kind == kind)
                continue;
            rc = add_entry(w->m, w->links[j].path,
                           kind == SANDBOX_PROTECT_ALL ? MASK_FILE : MASK_READONLY);
        }
        if (kind == SANDBOX_PROTECT_ALL && names < w->links[i].nlink)
            sbx_warn(w->warning, w->warning_size,
                     "%s has %lu hard links outside the scanned directories; those names are "
                     "not protected",
                     w->links[i].path, (unsigned long)(w->links[i].nlink - names));
        i = g;
    }
    return rc;
}

/* Walked as part of an enclosing root (or a duplicate listed earlier)? */
static int nested_root(const char *const *roots, size_t n, size_t i)
{
    size_t j;
    for (j = 0; j < n; j++)
        if (j != i && beneath(roots[i], roots[j]) && (strcmp(roots[i], roots[j]) != 0 || j < i))
            return 1;
    return 0;
}

static int scan_root(struct walk *w, const char *root)
{
    char *path;
    size_t len = strlen(root), cap = 4096 + len;
    struct stat st;
    int rc, k;
    path = malloc(cap);
    if (!path)
        return SANDBOX_E_NOMEM;
    memcpy(path, root, len + 1);
    if (len == 1)
        len = 0; /* "/" + "/name" */
    k = sbx_protect_match(w->r->protect, w->r->n_protect, root, 0);
    /* A root that is itself protected (a project inside ~/.ssh) is masked whole. */
    rc = w->pass == 1 && k >= 0 && lstat(root, &st) == 0 ? record(w, root, &st, k, -1) : SANDBOX_OK;
    if (rc == SANDBOX_OK)
        rc = walk_dir(w, path, len, cap, k);
    free(path);
    return rc;
}

/* Home: protected names directly in it, and the exact home paths. Home is
 * not walked: its depth is the user's whole life. */
static int scan_home_dir(struct walk *w, const char *home)
{
    const sbx_resolved *r = w->r;
    struct stat st;
    int rc = SANDBOX_OK;
    DIR *d;
    struct dirent *de;
    char *p;
    if (!home || home[0] != '/')
        return SANDBOX_OK;
    d = opendir(home);
    if (d) {
        while (rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
            int k;
            if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
                continue;
            k = sbx_protect_match_tail(r->protect, r->n_protect, de->d_name, strlen(de->d_name), 0);
            if (k < 0)
                continue;
            p = malloc(strlen(home) + strlen(de->d_name) + 2);
            if (!p) {
                rc = SANDBOX_E_NOMEM;
                break;
            }
            sprintf(p, "%s/%s", home, de->d_name);
            if (lstat(p, &st) == 0)
                rc = record(w, p, &st, k, -1);
            free(p);
        }
        closedir(d);
    }
    return rc;
}

/* Both homes (the account's and a different $HOME), then the exact paths. */
static int scan_home(struct walk *w)
{
    const sbx_resolved *r = w->r;
    struct stat st;
    size_t i;
    int rc = scan_home_dir(w, r->home_dir);
    if (rc == SANDBOX_OK)
        rc = scan_home_dir(w, r->home_alt);
    for (i = 0; rc == SANDBOX_OK && i < r->n_protect_home; i++)
        if (lstat(r->protect_home[i].pattern, &st) == 0)
            rc = record(w, r->protect_home[i].pattern, &st, r->protect_home[i].kind, -1);
    return rc;
}

/* ---- what git runs from outside .git (issue 18) ---- */

/* Write-protect `target` as part of the repository whose config names it;
 * one that does not exist could be created by the command and run by the
 * next git outside the sandbox: refuse. `what` says where it came from. */
static int git_protect(struct walk *w, const char *target, const char *what, const char *src)
{
    char *real = realpath(target, NULL);
    size_t i;
    int rc;
    if (!real)
        return sbx_fail(w->err, SANDBOX_E_REFUSED, errno,
                        "protected paths: %s names %s as %s, which does not exist, so the command "
                        "could create it and the next git would run it; create it, or remove "
                        "the setting", src, target, what);
    for (i = 0; i < w->m->n; i++)
        if (beneath(real, w->m->e[i].path)) {
            free(real);
            return SANDBOX_OK; /* inside .git (read-only) or a mask already */
        }
    rc = add_entry(w->m, real, MASK_READONLY);
    free(real);
    return rc;
}

/* `value` as a path: "~/" from home, relative ones from `base`. git expands
 * "~/" with $HOME, which may differ from the account's home: the caller
 * protects both (`alt` selects $HOME). */
static int git_path(const struct walk *w, const char *base, const char *value, int alt, char *out,
                    size_t size)
{
    const char *home = alt ? w->r->home_alt : w->r->home_dir;
    if (value[0] == '~' && value[1] == '/') {
        if (!home)
            return 0;
        snprintf(out, size, "%s/%s", home, value + 2);
    } else if (alt) {
        return 0;
    } else if (value[0] == '/') {
        snprintf(out, size, "%s", value);
    } else {
        snprintf(out, size, "%s/%s", base, value);
    }
    return 1;
}

/* A config file read as git reads it (config.c: get_value/parse_value):
 * sections `[name]`, `[name "sub"]`, `[name.sub]`, then keys on the same
 * line or the next ones; values with quotes, backslash escapes and line
 * continuations; `;`/`#` comments outside quotes. What this parser does not
 * understand git rejects too, but the scan fails closed with a reason rather
 * than guess which hooks the file names. */
struct gitcfg {
    const char *s, *end, *file;
    int line;
};

static int cfg_bad(struct walk *w, const struct gitcfg *c, const char *why)
{
    return sbx_fail(w->err, SANDBOX_E_REFUSED, 0,
                    "protected paths: cannot read the git config %s (line %d: %s), so the hooks "
                    "it names cannot be protected; fix the file or run without protected paths",
                    c->file, c->line, why);
}

static int cfg_peek(const struct gitcfg *c)
{
    return c->s < c->end ? (unsigned char)*c->s : -1;
}

static int cfg_get(struct gitcfg *c)
{
    int ch = cfg_peek(c);
    if (ch < 0)
        return -1;
    c->s++;
    if (ch == '\r' && cfg_peek(c) == '\n')
        ch = (unsigned char)*c->s++;
    if (ch == '\n')
        c->line++;
    return ch;
}

static int cfg_value(struct walk *w, struct gitcfg *c, char *out, size_t size)
{
    size_t n = 0, space = 0;
    int quote = 0, comment = 0, ch;
    for (;;) {
        ch = cfg_get(c);
        if (ch == '\n' || ch < 0) {
            if (quote)
                return cfg_bad(w, c, "an unterminated quote");
            break;
        }
        if (comment)
            continue;
        if ((ch == ' ' || ch == '\t') && !quote) {
            if (n)
                space++;
            continue;
        }
        if (!quote && (ch == ';' || ch == '#')) {
            comment = 1;
            continue;
        }
        for (; space; space--)
            if (n + 1 < size)
                out[n++] = ' ';
        if (ch == '\\') {
            ch = cfg_get(c);
            switch (ch) {
            case '\n':
                continue;
            case 't': ch = '\t'; break;
            case 'b': ch = '\b'; break;
            case 'n': ch = '\n'; break;
            case '\\': case '"': break;
            default:
                return cfg_bad(w, c, "a backslash escape git does not know");
            }
        } else if (ch == '"') {
            quote = !quote;
            continue;
        }
        if (n + 1 >= size)
            return cfg_bad(w, c, "a value too long");
        out[n++] = (char)ch;
    }
    out[n] = '\0';
    return SANDBOX_OK;
}

static int git_config(struct walk *w, const char *file, const char *worktree, int depth);

static int git_setting(struct walk *w, const char *file, const char *dir, const char *worktree,
                       int depth, int is_hooks, const char *val)
{
    char target[PATH_MAX + 64];
    int rc = SANDBOX_OK, alt;
    for (alt = 0; rc == SANDBOX_OK && alt < 2; alt++) {
        if (!git_path(w, is_hooks ? worktree : dir, val, alt, target, sizeof target))
            continue;
        if (is_hooks) {
            rc = git_protect(w, target, "core.hooksPath", file);
        } else {
            rc = git_protect(w, target, "an included config", file);
            if (rc == SANDBOX_OK && depth < 4)
                rc = git_config(w, target, worktree, depth + 1);
        }
    }
    return rc;
}

/* core.hooksPath and [include]/[includeIf] path in one config file; an
 * included file is read the same way, `depth` levels down. */
static int git_config(struct walk *w, const char *file, const char *worktree, int depth)
{
    char section[64] = "", key[64], val[PATH_MAX], dir[PATH_MAX], *slash, *buf;
    struct gitcfg c;
    struct stat st;
    size_t size;
    int rc = SANDBOX_OK, has_sub = 0, ch;
    FILE *f = fopen(file, "re");
    if (!f)
        return SANDBOX_OK;
    if (fstat(fileno(f), &st) != 0 || st.st_size > (1L << 22)) {
        fclose(f);
        c.file = file;
        c.line = 0;
        return cfg_bad(w, &c, "larger than 4 MiB");
    }
    buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        fclose(f);
        return SANDBOX_E_NOMEM;
    }
    size = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s", file);
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    c.s = buf;
    c.end = buf + size;
    c.file = file;
    c.line = 1;
    if (size >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
        c.s += 3;
    while (rc == SANDBOX_OK && (ch = cfg_get(&c)) >= 0) {
        size_t n = 0;
        if (ch == '\n' || ch == ' ' || ch == '\t' || ch == '\r')
            continue;
        if (ch == '#' || ch == ';') {
            while ((ch = cfg_get(&c)) >= 0 && ch != '\n')
                ;
            continue;
        }
        if (ch == '[') {
            has_sub = 0;
            while ((ch = cfg_get(&c)) >= 0 && ch != ']' && ch != ' ' && ch != '\t' && ch != '\n') {
                if (ch == '.')
                    has_sub = 1;
                else if (!has_sub && n + 1 < sizeof section)
                    section[n++] = (char)ch;
            }
            section[n] = '\0';
            if (ch == ' ' || ch == '\t') {
                while ((ch = cfg_get(&c)) == ' ' || ch == '\t')
                    ;
                if (ch != '"') {
                    rc = cfg_bad(w, &c, "a section header git does not know");
                    break;
                }
                has_sub = 1;
                while ((ch = cfg_get(&c)) >= 0 && ch != '"' && ch != '\n')
                    if (ch == '\\' && (ch = cfg_get(&c)) == '\n')
                        break;
                if (ch == '"')
                    ch = cfg_get(&c);
            }
            if (ch != ']') {
                rc = cfg_bad(w, &c, "a section header git does not know");
                break;
            }
            continue;
        }
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))) {
            rc = cfg_bad(w, &c, "a line git does not know");
            break;
        }
        do {
            if (n + 1 < sizeof key)
                key[n++] = (char)ch;
            ch = cfg_peek(&c);
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '-'))
                break;
            cfg_get(&c);
        } while (1);
        key[n] = '\0';
        while ((ch = cfg_peek(&c)) == ' ' || ch == '\t')
            cfg_get(&c);
        val[0] = '\0';
        if (ch == '=') {
            cfg_get(&c);
            rc = cfg_value(w, &c, val, sizeof val);
        } else if (ch < 0 || ch == '\n' || ch == '\r' || ch == '#' || ch == ';') {
            rc = cfg_value(w, &c, val, sizeof val); /* a boolean: rest is a comment */
            val[0] = '\0';
        } else {
            rc = cfg_bad(w, &c, "a key git does not know");
        }
        if (rc != SANDBOX_OK || !val[0])
            continue;
        if (!has_sub && sbx_strncasecmp_ascii(section, "core", 5) == 0 &&
            sbx_strncasecmp_ascii(key, "hookspath", 10) == 0)
            rc = git_setting(w, file, dir, worktree, depth, 1, val);
        else if (((!has_sub && sbx_strncasecmp_ascii(section, "include", 8) == 0) ||
                  (has_sub && sbx_strncasecmp_ascii(section, "includeif", 10) == 0)) &&
                 sbx_strncasecmp_ascii(key, "path", 5) == 0)
            rc = git_setting(w, file, dir, worktree, depth, 0, val);
    }
    free(buf);
    return rc;
}

static unsigned long be32(const unsigned char *b)
{
    return (unsigned long)b[0] << 24 | (unsigned long)b[1] << 16 | (unsigned long)b[2] << 8 | b[3];
}

static int cmp_name(const void *key, const void *elem)
{
    return strcmp((const char *)key, *(const char *const *)elem);
}

/* The first index name at or after `rel` (names are sorted bytewise). */
static size_t lower_bound(const char *const *names, size_t n, const char *rel)
{
    size_t lo = 0, hi = n, mid;
    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (cmp_name(rel, &names[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A secret committed to the repository stays readable through git's object
 * store (`git show HEAD:.env`), which no mask covers: warn when the index
 * tracks a path the scan masked (looked up in the sorted index, so a large
 * index costs a read, not a match per name). Index versions 2 and 3 (4
 * compresses names and is skipped), SHA-1 repositories. HEAD's tree is not
 * read. */
static void git_index_warn(struct walk *w, const char *git, const char *worktree)
{
    char p[PATH_MAX + 16], first[256] = "";
    unsigned char *buf = NULL;
    const char **names = NULL;
    size_t size = 0, off, count = 0, i, n_entries, n = 0, wl = strlen(worktree);
    struct stat st;
    unsigned long version;
    FILE *f;
    snprintf(p, sizeof p, "%s/index", git);
    f = fopen(p, "re");
    if (!f)
        return;
    if (fstat(fileno(f), &st) == 0 && st.st_size >= 12 && st.st_size < (1L << 30) &&
        (buf = malloc((size_t)st.st_size)) != NULL)
        size = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    if (!buf || size < 12 || memcmp(buf, "DIRC", 4) != 0 ||
        ((version = be32(buf + 4)) != 2 && version != 3) ||
        (n_entries = be32(buf + 8)) > size / 62 ||
        !(names = malloc((n_entries ? n_entries : 1) * sizeof *names))) {
        free(buf);
        return;
    }
    for (off = 12, i = 0; i < n_entries; i++) {
        size_t flags_at = off + 40 + 20, name_at = flags_at + 2, nl;
        const unsigned char *nul;
        if (name_at > size)
            break;
        if (version == 3 && (buf[flags_at] & 0x40))
            name_at += 2;
        nul = name_at < size ? memchr(buf + name_at, '\0', size - name_at) : NULL;
        if (!nul)
            break;
        nl = (size_t)(nul - (buf + name_at));
        names[n++] = (const char *)buf + name_at;
        off = (name_at - off + nl + 8) / 8 * 8 + off;
    }
    for (i = 0; i < w->m->n; i++) {
        const char *path = w->m->e[i].path, *rel;
        size_t k, rl;
        if (w->m->e[i].how == MASK_READONLY || strncmp(path, worktree, wl) != 0 || path[wl] != '/')
            continue;
        rel = path + wl + 1;
        rl = strlen(rel);
        k = lower_bound(names, n, rel);
        /* The file itself, or anything tracked beneath a masked directory. */
        if (k < n && strncmp(names[k], rel, rl) == 0 && (names[k][rl] == '\0' || names[k][rl] == '/') &&
            count++ == 0)
            snprintf(first, sizeof first, "%s", rel);
    }
    free(names);
    free(buf);
    if (count)
        sbx_warn(w->warning, w->warning_size,
                 "protected paths: the git index of %s tracks %zu protected path%s (first: %s); "
                 "git show and git cat-file read committed copies from the object store, which "
                 "is not masked: remove them from the repository", git, count,
                 count == 1 ? "" : "s", first);
}

/* Symlinks among the entries of `dir` (in .git: its top level, hooks,
 * info): git follows them, so their targets are write-protected too; a
 * dangling one could be made to lead somewhere new, so it refuses. */
static int git_links(struct walk *w, const char *dir, const char *what, const char *src)
{
    char p[PATH_MAX + 300];
    struct dirent *de;
    struct stat st;
    int rc = SANDBOX_OK;
    DIR *d = opendir(dir);
    while (d && rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
            rc = git_protect(w, p, what, src);
    }
    if (d)
        closedir(d);
    return rc;
}

/* The config files outside any repository that git reads for every one:
 * system, global and XDG (each home), and the environment's overrides. */
static int git_global(struct walk *w, const char *worktree)
{
    const char *home[2], *env;
    char p[PATH_MAX + 64];
    int rc = SANDBOX_OK, i;
    home[0] = w->r->home_dir;
    home[1] = w->r->home_alt;
    rc = git_config(w, "/etc/gitconfig", worktree, 0);
    if (rc == SANDBOX_OK && (env = getenv("GIT_CONFIG_SYSTEM")) != NULL && env[0] == '/')
        rc = git_config(w, env, worktree, 0);
    if (rc == SANDBOX_OK && (env = getenv("GIT_CONFIG_GLOBAL")) != NULL && env[0] == '/')
        rc = git_config(w, env, worktree, 0);
    if (rc == SANDBOX_OK && (env = getenv("XDG_CONFIG_HOME")) != NULL && env[0] == '/') {
        snprintf(p, sizeof p, "%s/git/config", env);
        rc = git_config(w, p, worktree, 0);
    }
    for (i = 0; rc == SANDBOX_OK && i < 2; i++) {
        if (!home[i] || home[i][0] != '/')
            continue;
        snprintf(p, sizeof p, "%s/.gitconfig", home[i]);
        rc = git_config(w, p, worktree, 0);
        if (rc == SANDBOX_OK) {
            snprintf(p, sizeof p, "%s/.config/git/config", home[i]);
            rc = git_config(w, p, worktree, 0);
        }
    }
    return rc;
}

/* `file` names a directory on its first line after `prefix` ("gitdir: ",
 * or nothing for commondir), relative to `base`: its real path in out. */
static int git_pointer(const char *file, const char *prefix, const char *base, char *out,
                       size_t size)
{
    char line[PATH_MAX + 16], joined[2 * PATH_MAX + 32], *v = line, *real;
    size_t pl = strlen(prefix), n;
    FILE *f = fopen(file, "re");
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return 0;
    }
    fclose(f);
    n = strcspn(line, "\r\n");
    line[n] = '\0';
    if (strncmp(line, prefix, pl) != 0)
        return 0;
    v += pl;
    if (v[0] == '/')
        snprintf(joined, sizeof joined, "%s", v);
    else
        snprintf(joined, sizeof joined, "%s/%s", base, v);
    real = realpath(joined, NULL);
    if (!real)
        return 0;
    snprintf(out, size, "%s", real);
    free(real);
    return 1;
}

/* A repository's hooks and config that live outside its read-only .git:
 * core.hooksPath (.husky), hooks that are symlinks, included config files,
 * the config files outside the repository. A .git that is a file (a linked
 * worktree, a submodule) leads to its gitdir and that one's common dir,
 * wherever they are: both are write-protected whole, like a .git. */
static int git_outside(struct walk *w, const char *git, int is_file)
{
    static const char *const managers[] = {".husky", ".pre-commit-config.yaml", "lefthook.yml",
                                           "lefthook.yaml", ".lefthook.yml", "lefthook-local.yml"};
    char p[PATH_MAX + 64], worktree[PATH_MAX], gd[PATH_MAX], common[PATH_MAX];
    int rc = SANDBOX_OK;
    char *slash;
    struct stat st;
    size_t i;
    snprintf(worktree, sizeof worktree, "%s", git);
    slash = strrchr(worktree, '/');
    if (slash)
        *slash = '\0';
    snprintf(gd, sizeof gd, "%s", git);
    if (is_file) {
        if (!git_pointer(git, "gitdir: ", worktree, gd, sizeof gd))
            return SANDBOX_OK; /* not a gitfile git follows either */
        rc = git_protect(w, gd, "its git directory", git);
    }
    snprintf(common, sizeof common, "%s", gd);
    snprintf(p, sizeof p, "%s/commondir", gd);
    if (rc == SANDBOX_OK && git_pointer(p, "", gd, common, sizeof common))
        rc = git_protect(w, common, "its common git directory", p);
    if (rc == SANDBOX_OK)
        rc = git_links(w, common, "a link in the git directory", common);
    snprintf(p, sizeof p, "%s/config", common);
    if (rc == SANDBOX_OK)
        rc = git_config(w, p, worktree, 0);
    snprintf(p, sizeof p, "%s/config.worktree", gd);
    if (rc == SANDBOX_OK)
        rc = git_config(w, p, worktree, 0);
    if (rc == SANDBOX_OK)
        rc = git_global(w, worktree);
    if (rc == SANDBOX_OK)
        git_index_warn(w, gd, worktree);
    snprintf(p, sizeof p, "%s/hooks", common);
    if (rc == SANDBOX_OK)
        rc = git_links(w, p, "a hook (a symlink)", common);
    snprintf(p, sizeof p, "%s/info", common);
    if (rc == SANDBOX_OK)
        rc = git_links(w, p, "a link in the git directory", common);
    /* Hook managers' files next to .git name the commands their hooks run:
     * write-protected when they exist (a missing one is not refused). */
    for (i = 0; rc == SANDBOX_OK && i < sizeof managers / sizeof managers[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", worktree, managers[i]);
        if (lstat(p, &st) == 0)
            rc = git_protect(w, p, "a hook manager's file", git);
    }
    return rc;
}

static int git_all(struct walk *w)
{
    size_t i, n = w->m->n;
    int rc = SANDBOX_OK;
    struct stat st;
    /* The .git entries of the scan; what git_outside adds is never one. */
    for (i = 0; rc == SANDBOX_OK && i < n; i++) {
        const char *path = w->m->e[i].path, *base = strrchr(path, '/');
        if (w->m->e[i].how != MASK_READONLY || !base || sbx_strncasecmp_ascii(base, "/.git", 6) != 0 ||
            stat(path, &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
            continue;
        rc = git_outside(w, path, S_ISREG(st.st_mode));
    }
    return rc;
}

static int format_map(char *buf, size_t size, size_t *len, unsigned long id)
{
    int n = snprintf(buf, size, "%lu %lu 1\n", id, id);
    if (n < 0 || (size_t)n >= size)
        return -1;
    *len = (size_t)n;
    return 0;
}

/* Is `path` (len bytes, a real path) a write-protected path or one of its
 * ancestors? A read-only bind protects an inode, while git finds hooks by
 * path: renaming an ancestor away and making a new one in its place would
 * put a writable tree where the next git looks (issue 18). The guard asks
 * this for every name it moves or creates. Async-signal-safe. */
int sbx_mask_fixed_under(const struct sbx_mask_plan *m, const char *path, size_t len)
{
    size_t i;
    if (!m)
        return 0;
    for (i = 0; i < m->n; i++) {
        const char *f = m->e[i].path;
        if (m->e[i].how == MASK_READONLY && strncmp(f, path, len) == 0 &&
            (f[len] == '\0' || f[len] == '/'))
            return 1;
    }
    return 0;
}

int sbx_mask_check(const sbx_resolved *r, sandbox_error *err)
{
    char detail[256];
    /* Asked-for protection that cannot be given refuses to run. */
    if (r->n_protect > 0 && !sbx_mask_available(detail, sizeof detail))
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0, "protected paths: %s", detail);
    return SANDBOX_OK;
}

int sbx_mask_prepare(const sbx_resolved *r, struct sbx_mask_plan **out, char *warning,
                     size_t warning_size, sandbox_error *err)
{
    struct sbx_mask_plan *m;
    struct walk w;
    const char **roots;
    char **real;
    size_t n_roots = 0, i;
    int rc = SANDBOX_OK;
    struct sbx_ll_ruleset_attr attr;

    *out = NULL;
    if (r->n_protect == 0)
        return SANDBOX_OK;
    rc = sbx_mask_check(r, err);
    if (rc != SANDBOX_OK)
        return rc;

    m = calloc(1, sizeof *m);
    if (!m)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
    m->ruleset_fd = -1;
    m->cap_last = (int)read_long("/proc/sys/kernel/cap_last_cap", 63);
    /* Only the opener's own id can be mapped from inside the new namespace
     * (a wider map needs CAP_SETUID in the parent, which the process has just
     * left), and gid_map needs setgroups denied first. Root included. */
    m->deny_setgroups = 1;
    if (format_map(m->uid_map, sizeof m->uid_map, &m->uid_map_len, (unsigned long)geteuid()) ||
        format_map(m->gid_map, sizeof m->gid_map, &m->gid_map_len, (unsigned long)getegid())) {
        sbx_mask_free(m);
        return sbx_fail(err, SANDBOX_E_SYSTEM, 0, "cannot format the id maps");
    }

    /* The scanned roots: the writable ones where a command works (not the
     * temp directories or /dev), else the project and working directory.
     * As many as there are: an unscanned root is an unprotected one. */
    roots = calloc(r->n_roots + 2, sizeof *roots);
    real = calloc(r->n_roots + 2, sizeof *real);
    if (!roots || !real) {
        free(roots);
        free(real);
        sbx_mask_free(m);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
    }
    for (i = 0; i < r->n_roots; i++)
        if (r->roots[i].kind == SBX_ROOT_PROJECT || r->roots[i].kind == SBX_ROOT_ADDED ||
            r->roots[i].kind == SBX_ROOT_WORKDIR)
            roots[n_roots++] = r->roots[i].path;
    if (n_roots == 0) {
        roots[n_roots++] = r->project_root;
        roots[n_roots++] = r->working_dir;
    }
    /* Every root by its real path: `--add-dir p/ext` with ext -> /outside,
     * or p/../outside, is a tree of its own, and the nesting test below
     * compares strings (issue 18). A root that cannot be resolved is
     * scanned as given (the scan reports what is wrong with it). */
    for (i = 0; i < n_roots; i++) {
        real[i] = realpath(roots[i], NULL);
        if (real[i])
            roots[i] = real[i];
    }

    memset(&w, 0, sizeof w);
    w.r = r;
    w.m = m;
    w.warning = warning;
    w.warning_size = warning_size;
    w.err = err;
    w.pass = 1;
    w.roots = roots;
    w.n_roots = n_roots;
    w.extra = calloc(LINK_TREES, sizeof *w.extra);
    w.extra_depth = calloc(LINK_TREES, sizeof *w.extra_depth);
    if (!w.extra || !w.extra_depth)
        rc = SANDBOX_E_NOMEM;
    for (i = 0; rc == SANDBOX_OK && i < n_roots; i++)
        if (!nested_root(roots, n_roots, i))
            rc = scan_root(&w, roots[i]);
    /* The trees symlinks lead to; the list grows while it is walked. */
    if (rc == SANDBOX_OK && w.n_extra)
        w.max_seen = w.n_seen + LINK_ENTRIES;
    for (i = 0; rc == SANDBOX_OK && i < w.n_extra; i++) {
        w.depth = w.extra_depth[i];
        rc = scan_root(&w, w.extra[i]);
    }
    w.depth = 0;
    if (rc == SANDBOX_OK && w.n_followed)
        sbx_warn(warning, warning_size,
                 "protected paths: followed %zu symlink%s out of the scanned directories and "
                 "masked what they reach (first: %s)",
                 w.n_followed, w.n_followed == 1 ? "" : "s", w.followed);
    if (rc == SANDBOX_OK && w.n_skipped)
        sbx_warn(warning, warning_size,
                 "protected paths: did not follow %zu symlink%s to a pseudo file system or to a "
                 "directory above the scanned ones (first: %s); what they reach beyond the "
                 "scanned directories and the home is not masked",
                 w.n_skipped, w.n_skipped == 1 ? "" : "s", w.skipped);
    if (rc == SANDBOX_OK)
        rc = scan_home(&w);
    if (rc == SANDBOX_OK)
        rc = git_all(&w);
    if (rc == SANDBOX_OK && w.n_links > 0) {
        w.wanted = malloc(w.n_links * sizeof *w.wanted);
        if (!w.wanted)
            rc = SANDBOX_E_NOMEM;
        for (i = 0; rc == SANDBOX_OK && i < w.n_links; i++)
            w.wanted[i] = w.links[i].ino;
        if (rc == SANDBOX_OK) {
            w.n_wanted = w.n_links;
            qsort(w.wanted, w.n_wanted, sizeof *w.wanted, cmp_ino);
        }
        w.pass = 2;
        w.max_seen = 0;
        for (i = 0; rc == SANDBOX_OK && i < n_roots; i++)
            if (!nested_root(roots, n_roots, i))
                rc = scan_root(&w, roots[i]);
        for (i = 0; rc == SANDBOX_OK && i < w.n_extra; i++)
            rc = scan_root(&w, w.extra[i]);
        free(w.wanted);
    }
    if (rc == SANDBOX_OK)
        rc = resolve_links(&w);
    for (i = 0; i < w.n_links; i++)
        free(w.links[i].path);
    free(w.links);
    /* A working directory at or under a mask predates the mount: the
     * command would read the secret through its cwd. Refuse it here with
     * a reason; apply re-enters the working directory for the rest. */
    if (rc == SANDBOX_OK && r->working_dir) {
        char *cwd = realpath(r->working_dir, NULL);
        const char *hit = cwd ? masked_at(m, cwd) : NULL;
        if (hit)
            rc = sbx_fail(err, SANDBOX_E_REFUSED, 0,
                          "protected paths: the working directory %s lies in the protected path "
                          "%s, which the command must not see; run it from another directory",
                          cwd, hit);
        free(cwd);
    }
    for (i = 0; i < n_roots; i++)
        free(real[i]);
    free(real);
    free(roots);
    for (i = 0; i < w.n_extra; i++)
        free(w.extra[i]);
    free(w.extra);
    free(w.extra_depth);
    if (rc != SANDBOX_OK) {
        sbx_mask_free(m);
        if (rc == SANDBOX_E_NOMEM)
            return sbx_fail(err, rc, ENOMEM, "out of memory while scanning for protected paths");
        return rc;
    }
    for (i = 0; i < m->n; i++) {
        m->e[i].keep = m->e[i].how == MASK_READONLY ? locked_flags(m->e[i].path) : 0;
        m->n_readonly += m->e[i].how == MASK_READONLY;
        m->n_dirs += m->e[i].how == MASK_DIR;
        m->n_files += m->e[i].how == MASK_FILE;
    }
    m->null_keep = locked_flags("/dev/null") & (MS_NOATIME | MS_STRICTATIME | MS_NODIRATIME);

    /* A domain that handles one filesystem right is all the kernel needs to
     * refuse mount changes; block devices are never made by a command. */
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = SBX_LL_FS_MAKE_BLOCK;
    /* The ABI-1 size: every kernel with Landlock accepts it. */
    m->ruleset_fd = sbx_ll_create_ruleset(&attr, sizeof attr.handled_access_fs, 0);
    if (m->ruleset_fd < 0) {
        int e = errno;
        sbx_mask_free(m);
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "protected paths: cannot create the Landlock ruleset that locks the "
                        "masks: %s", strerror(e));
    }
    *out = m;
    return SANDBOX_OK;
}

size_t sbx_mask_count(const struct sbx_mask_plan *m, size_t *files, size_t *dirs, size_t *readonly)
{
    if (files)
        *files = m ? m->n_files : 0;
    if (dirs)
        *dirs = m ? m->n_dirs : 0;
    if (readonly)
        *readonly = m ? m->n_readonly : 0;
    return m ? m->n : 0;
}

/* ---- apply: async-signal-safe from here on ---- */

static int write_file(const char *path, const char *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC), e = 0;
    if (fd < 0)
        return errno;
    if (write(fd, data, len) != (ssize_t)len)
        e = errno ? errno : EIO;
    close(fd);
    return e;
}

static int drop_caps(int cap_last)
{
    struct __user_cap_header_struct h;
    struct __user_cap_data_struct d[2];
    int c;
    /* Securebits and the bounding set first: both need CAP_SETPCAP, which the
     * capset below ends. NOROOT: an exec as uid 0 regains nothing. */
    if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                                     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED,
              0, 0, 0) != 0)
        return errno;
    for (c = 0; c <= cap_last; c++)
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno != EINVAL)
            return errno;
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return errno;
    memset(&h, 0, sizeof h);
    memset(d, 0, sizeof d);
    h.version = _LINUX_CAPABILITY_VERSION_3;
    h.pid = 0;
    if (syscall(SYS_capset, &h, d) != 0)
        return errno;
    return 0;
}

int sbx_mask_apply(const struct sbx_mask_plan *m, int *sys_errno)
{
    size_t i;
    int e, pass;
    *sys_errno = 0;
    if (!m)
        return 0;
    /* A user namespace gives the capabilities to mount, confined to the
     * command's own mount namespace; the host's view never changes. */
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        goto fail;
    if (m->deny_setgroups && (e = write_file("/proc/self/setgroups", "deny", 4)) != 0)
        goto fail_e;
    if ((e = write_file("/proc/self/uid_map", m->uid_map, m->uid_map_len)) != 0 ||
        (e = write_file("/proc/self/gid_map", m->gid_map, m->gid_map_len)) != 0)
        goto fail_e;
    /* Our mounts must never propagate back to the host's namespace. */
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
        goto fail;
    /* Read-only binds first: masks inside .git then sit on top of them. */
    for (pass = MASK_READONLY; pass <= MASK_FILE; pass++) {
        for (i = 0; i < m->n; i++) {
            const struct sbx_mask_entry *x = &m->e[i];
            if (x->how != pass)
                continue;
            if (pass == MASK_READONLY) {
                /* Recursive: a plain bind of a tree with locked submounts is refused. */
                if (mount(x->path, x->path, NULL, MS_BIND | MS_REC, NULL) != 0 ||
                    mount(NULL, x->path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | x->keep, NULL) != 0)
                    goto fail;
            } else if (pass == MASK_DIR) {
                if (mount("sbx-protected", x->path, "tmpfs",
                          MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000,size=4k") != 0)
                    goto fail;
            } else {
                /* nodev makes opening the device fail: nothing to read or write. */
                if (mount("/dev/null", x->path, NULL, MS_BIND, NULL) != 0 ||
                    mount(NULL, x->path, NULL,
                          MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC |
                              m->null_keep,
                          NULL) != 0)
                    goto fail;
            }
        }
    }
    /* Without capabilities the command cannot unmount, remount or open by
     * file handle; no_new_privs (set before) keeps exec from regaining them. */
    if ((e = drop_caps(m->cap_last)) != 0)
        goto fail_e;
    /* The working directory was entered before the mounts: through it the
     * command would see the tree beneath them (a cwd inside .git writes past
     * the read-only bind). Enter it again by path, now through the masks;
     * one at or under a mask is refused (prepare says why). */
    {
        char cwd[MASK_CWD_BUF];
        long n = syscall(SYS_getcwd, cwd, sizeof cwd);
        if (n <= 0 || cwd[0] != '/') {
            e = n < 0 ? errno : ENOENT; /* "(unreachable)": outside our root */
            goto fail_e;
        }
        if (masked_at(m, cwd)) {
            e = EACCES;
            goto fail_e;
        }
        if (chdir(cwd) != 0)
            goto fail;
    }
    /* Landlock forbids every later mount change, in any namespace the command
     * makes, and reaching un-masked views via /proc/PID/root of outsiders. */
    if (sbx_ll_restrict_self(m->ruleset_fd, 0) != 0)
        goto fail;
    return 0;
fail:
    e = errno;
fail_e:
    *sys_errno = e;
    return -1;
}

/* ---- inherited descriptors (issue 18) ---- */

/* Why fd must not reach the command, or SBX_STEP_NONE. Close-on-exec ones
 * never do (the spawn child marks all but stdio and the kept ones). */
static int fd_step(int fd)
{
    struct stat st;
    int fl = fcntl(fd, F_GETFD);

    if (fl < 0 || (fl & FD_CLOEXEC))
        return SBX_STEP_NONE;
    fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_PATH))
        return SBX_STEP_FD_PATH; /* reopened through /proc/self/fd, any type */
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
        return SBX_STEP_FD_DIR; /* openat and /proc/self/fd/N/... below it */
    return SBX_STEP_NONE;
}

static int fd_visit(int fd, void *ctx)
{
    int step = fd_step(fd);
    if (step != SBX_STEP_NONE)
        *(int *)ctx = fd;
    return step;
}

int sbx_fds_check(int *sys_errno)
{
    *sys_errno = 0;
    return sbx_fd_each(0, fd_visit, sys_errno);
}
