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
 * already open. docs/protected-paths.md has the full list.
 *
 * The walk of the roots (pass 1) is what grows with the project: its result
 * is kept in the pre-flight index (src/scanindex.h) with every input it
 * read, and reused while they all hold (mask_index_*). Every input of pass
 * 1 must be reported to the index: each directory listed or found
 * unlistable, each symlink whose target was looked at. The rest of prepare
 * (home, git, the second pass, the working directory) runs every time. */
#define _GNU_SOURCE
#include "linux.h"
#include "landlock.h"
#include "scanindex.h"

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
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#  define PR_CAP_AMBIENT 47
#  define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

enum mask_how {
    MASK_NAME = -1,    /* no mount: a name the guard keeps in place (a symlink git follows) */
    MASK_READONLY = 0, /* bind onto itself, read-only: write-protected */
    MASK_DIR = 1,      /* empty read-only tmpfs, mode 000 */
    MASK_FILE = 2,     /* /dev/null bound read-only and nodev */
    /* No mount. A path of a writable repository's (SANDBOX_PROTECT_GIT)
     * that runs code and is missing: the creation guard refuses making it. */
    MASK_ABSENT = 3,
    /* No mount. A .git left writable (SANDBOX_PROTECT_GIT): its parts have
     * entries of their own; this one is for git_all and the guard, which
     * never lets it be moved away or replaced. */
    MASK_GITDIR = 4
};

/* Which of two entries for one path wins: a mask beats read-only, which
 * beats the entries that mount nothing. */
static int how_rank(int how)
{
    return how == MASK_ABSENT || how == MASK_GITDIR ? 0 : how + 1;
}

/* An entry that mounts something over its path. */
static int mounts(int how)
{
    return how == MASK_READONLY || how == MASK_DIR || how == MASK_FILE;
}

struct sbx_mask_entry {
    char *path;
    int how;            /* enum mask_how */
    int bare;           /* a git directory not named .git (a bare repository) */
    unsigned long keep; /* MS_* flags the kernel locks on this mount: keep them */
    int gone_ok;        /* a listed daemon socket: skipped when it is gone at apply */
    int endpoint;       /* a closed socket (listed or named), not a protected file */
    char *cover;        /* a session bus: its filtering proxy's socket (dbusproxy.c) */
    int cover_fd;       /* O_PATH descriptor of the proxy's checked socket, or -1 */
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
    int own_pts;             /* a devpts instance of the command's own */
    struct sbx_unix_list pins; /* folders on the way to the masked sockets (unixep.c) */
    size_t n_files, n_dirs, n_readonly;
};

/* Room for the working directory's path, re-entered after the masks. */
#define MASK_CWD_BUF (PATH_MAX + 1)

/* ---- probes ---- */

static long read_long(const char *path, long dflt)
{
    char buf[32];
    ssize_t got;
    int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
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
    for (i = 0; i < m->n; i++) {
        free(m->e[i].path);
        free(m->e[i].cover);
        if (m->e[i].cover_fd >= 0)
            close(m->e[i].cover_fd);
    }
    free(m->e);
    sbx_unix_list_free(&m->pins);
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
            if (how_rank(how) > how_rank(m->e[i].how))
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
    m->e[m->n].bare = 0;
    m->e[m->n].keep = 0;
    m->e[m->n].gone_ok = 0;
    m->e[m->n].endpoint = 0;
    m->e[m->n].cover = NULL;
    m->e[m->n].cover_fd = -1;
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
        if ((m->e[i].how == MASK_DIR || m->e[i].how == MASK_FILE) && beneath(path, m->e[i].path))
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
    size_t n_skipped;   /* links to a pseudo file system, above a root or a home */
    char skipped[160];
    struct sbx_index *ix; /* pass 1 of the roots: records its inputs, or NULL */
    const char *tree;     /* the tree pass 1 is walking, for ix */
    size_t n_other;     /* links to a directory of another owner */
    char other[160];
    /* Protected directories of home listed for hard links (issue 18): each
     * once by (dev, ino), however many spellings lead there, so no name is
     * counted twice; home_seen entries in all, at most HOME_LINK_ENTRIES. */
    struct stat *home_dirs;
    size_t n_home_dirs, cap_home_dirs, home_seen;
    char home_over[160]; /* the first directory left unlisted over the bound */
    /* Repositories whose index is read once every mask is known (the other
     * names of a secret are masked last): git dir and worktree, in pairs. */
    char **indexes;
    size_t n_indexes;
    int git_mode;       /* .git is SANDBOX_PROTECT_GIT: writable but its code parts */
};

#define LINK_DEPTH 4
#define LINK_TREES 64
#define LINK_ENTRIES 200000
#define HOME_LINK_ENTRIES 20000

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
    if (S_ISLNK(lst->st_mode))
        sbx_index_link(w->ix, path);
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
    const char *homes[2];
    size_t i, n = strlen(real);
    for (i = 0; i < sizeof pseudo / sizeof pseudo[0]; i++)
        if (beneath(real, pseudo[i]))
            return 1;
    for (i = 0; i < w->n_roots; i++)
        if (strncmp(w->roots[i], real, n) == 0 && (n == 1 || w->roots[i][n] == '/'))
            return 1;
    /* A home, or above one: home is scanned by its own rules (its top level
     * and the exact paths); walked whole through a link an earlier command
     * planted (ln -s ~), it would cost every later launch the user's whole
     * life, or refuse it (issue 18, round 3). */
    homes[0] = w->r->home_dir;
    homes[1] = w->r->home_alt;
    for (i = 0; i < 2; i++)
        if (homes[i] && homes[i][0] == '/' && strncmp(homes[i], real, n) == 0 &&
            (n == 1 || homes[i][n] == '/' || homes[i][n] == '\0'))
            return 1;
    return 0;
}

/* The operating system's trees (FHS), which hold packages and their state,
 * not a user's project files. */
static int system_tree(const char *real)
{
    static const char *const sys[] = {"/usr", "/etc", "/boot", "/bin", "/sbin", "/lib",
                                      "/lib32", "/lib64", "/libx32", "/var/lib", "/var/cache",
                                      "/var/log", "/snap", "/nix/store"};
    size_t i;
    for (i = 0; i < sizeof sys / sizeof sys[0]; i++)
        if (beneath(real, sys[i]))
            return 1;
    return 0;
}

/* A directory left unwalked because of its owner: its stamps (owner, mode,
 * ctime, which a chown changes) are kept as a tree of their own, checked at
 * every warm launch, so that a chown makes the index not apply. Then the
 * tree being walked is taken up again. */
static void index_owner(struct walk *w, const char *real)
{
    struct timespec before;
    struct stat st;
    if (!w->ix)
        return;
    sbx_index_clock(&before);
    sbx_index_tree(w->ix, real);
    if (stat(real, &st) == 0 && S_ISDIR(st.st_mode))
        sbx_index_dir(w->ix, real, -1, &st, &before);
    else
        sbx_index_spoil(w->ix);
    if (w->tree)
        sbx_index_tree(w->ix, w->tree);
    else
        sbx_index_spoil(w->ix);
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
    sbx_index_link(w->ix, path); /* what follows depends on where it leads */
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
    if (S_ISDIR(st.st_mode) && (st.st_uid != geteuid() || system_tree(real))) {
        /* A directory of another owner (/usr, /etc, /opt, another user's
         * home for a normal user), or a system tree (root owns those): no
         * file the user put there, and a link an earlier command planted to
         * it (ln -s /usr) would make every later launch walk it, or refuse
         * at the bound (issue 18, round 3). Not followed, said at launch. */
        if (!w->n_other++)
            snprintf(w->other, sizeof w->other, "%s -> %s", path, real);
        if (!system_tree(real))
            index_owner(w, real); /* its owner decided */
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

static int is_git_name(const char *name)
{
    return sbx_strncasecmp_ascii(name, ".git", 4) == 0 && name[4] == '\0';
}

/* A .git found in git mode: a file (a worktree's or submodule's pointer to
 * its git directory) or a symlink is read-only whole; a directory gets a
 * read-only bind on each part that exists and a guard refusal on each that
 * does not, so a command cannot add a hook the repository lacked. */
static int git_parts(struct walk *w, const char *git)
{
    char p[PATH_MAX + 32];
    struct stat st;
    size_t i;
    int rc;
    if (lstat(git, &st) != 0)
        return SANDBOX_OK;
    /* The .git and its parts are names in directories the walk lists (their
     * stamps hold them for the index); where a symlink leads is not. */
    if (S_ISLNK(st.st_mode))
        sbx_index_link(w->ix, git);
    if (!S_ISDIR(st.st_mode))
        return stat(git, &st) == 0 ? add_entry(w->m, git, MASK_READONLY) : SANDBOX_OK;
    rc = add_entry(w->m, git, MASK_GITDIR);
    for (i = 0; rc == SANDBOX_OK && i < sbx_n_git_code; i++) {
        if ((size_t)snprintf(p, sizeof p, "%s/%s", git, sbx_git_code[i]) >= sizeof p)
            return sbx_fail(w->err, SANDBOX_E_PATH, ENAMETOOLONG,
                            "protected paths: %s is too long to protect its hooks", git);
        if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
            sbx_index_link(w->ix, p);
        if (stat(p, &st) == 0)
            rc = add_entry(w->m, p, MASK_READONLY); /* a link: its target (git_links too) */
        else if (lstat(p, &st) != 0)
            rc = add_entry(w->m, p, MASK_ABSENT);
        /* else a dangling link: git_links refuses it (it could be made to
         * lead somewhere new) */
    }
    return rc;
}

static int walk_dir(struct walk *w, char *path, size_t len, size_t cap, int inherited)
{
    DIR *d;
    struct dirent *de;
    struct timespec before;
    int rc = SANDBOX_OK, git_marks = 0;

    sbx_index_clock(&before);
    d = opendir(path);
    if (!d) {
        struct stat st;
        if (errno == ENOENT || errno == ENOTDIR) {
            sbx_index_absent(w->ix, path);
            return SANDBOX_OK; /* vanished while we walked */
        }
        /* The command runs with our credentials and no capability: a
         * directory we cannot list and do not own stays closed to it too. An
         * own one it could chmod open, so the scan must see inside. */
        if (errno == EACCES && stat(path, &st) == 0 && st.st_uid != geteuid()) {
            /* Its mode and owner decide: a chmod changes its ctime. */
            sbx_index_dir(w->ix, path, -1, &st, &before);
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
    if (w->ix) {
        /* Stamped before it is listed: a change after this stat shows. */
        struct stat st;
        if (fstat(dirfd(d), &st) == 0)
            sbx_index_dir(w->ix, path, dirfd(d), &st, &before);
        else
            sbx_index_spoil(w->ix);
    }
    while (rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
        struct stat st;
        size_t nl = strlen(de->d_name);
        int k;
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        /* What git itself checks to call a directory a repository: HEAD,
         * objects/ and refs/ (setup.c is_git_directory). */
        if (w->pass == 1)
            git_marks |= strcmp(de->d_name, "HEAD") == 0 && de->d_type != DT_DIR ? 1
                         : strcmp(de->d_name, "objects") == 0 && de->d_type != DT_REG ? 2
                         : strcmp(de->d_name, "refs") == 0 && de->d_type != DT_REG ? 4 : 0;
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
            /* A .git in git mode: its parts, then a walk of it like any
             * directory (hard links of its objects are found). */
            if (w->git_mode && inherited < 0 && is_git_name(de->d_name))
                rc = git_parts(w, path);
            if (rc == SANDBOX_OK && (k >= 0 || inherited >= 0 || de->d_type == DT_UNKNOWN)) {
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
    /* A repository not named .git (a bare one: a local remote, a fixture)
     * runs hooks on a push into it and reads its own config: write-protected
     * like a .git (issue 18, round 3). One under a mask or a .git already is
     * covered. */
    if (rc == SANDBOX_OK && git_marks == 7 && inherited < 0 && len > 0) {
        const char *base = strrchr(path, '/');
        if (!base || sbx_strncasecmp_ascii(base, "/.git", 6) != 0) {
            rc = add_entry(w->m, path, MASK_READONLY);
            if (rc == SANDBOX_OK)
                w->m->e[w->m->n - 1].bare |= strcmp(w->m->e[w->m->n - 1].path, path) == 0;
        }
    }
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
 * .git gets read-only. Names outside the scan cannot be masked, and cannot
 * be found short of walking the whole file system: warn, naming the first
 * secret and how to find them (docs/protected-paths.md says why this is a
 * warning, not a refusal). */
static int resolve_links(struct walk *w)
{
    size_t i = 0, j, g, files = 0;
    unsigned long outside = 0;
    const char *first = NULL;
    int rc = SANDBOX_OK;
    if (w->n_links == 0)
        return SANDBOX_OK;
    qsort(w->links, w->n_links, sizeof *w->links, cmp_link);
    while (rc == SANDBOX_OK && i < w->n_links) {
        int kind = -1;
        nlink_t names = 0;
        size_t named = i;
        for (g = i; g < w->n_links && same_inode(&w->links[g], &w->links[i]); g++) {
            kind = stronger(kind, w->links[g].kind);
            if (w->links[g].kind > w->links[named].kind)
                named = g;
            /* Home and a root may list the same name: count it once. */
            names += g == i || strcmp(w->links[g].path, w->links[g - 1].path) != 0;
        }
        for (j = i; rc == SANDBOX_OK && kind >= 0 && j < g; j++) {
            if (w->links[j].kind == kind)
                continue;
            rc = add_entry(w->m, w->links[j].path,
                           kind == SANDBOX_PROTECT_ALL ? MASK_FILE : MASK_READONLY);
        }
        if (kind == SANDBOX_PROTECT_ALL && names < w->links[i].nlink) {
            if (!files++)
                first = w->links[named].path;
            outside += (unsigned long)(w->links[i].nlink - names);
        }
        i = g;
    }
    if (rc == SANDBOX_OK && files)
        sbx_warn(w->warning, w->warning_size,
                 "protected paths: %zu protected file%s (first: %s) ha%s %lu other name%s (hard "
                 "links) outside the scanned directories, which are NOT masked: the command can "
                 "read %s there; find them with find / -samefile %s, and remove them",
                 files, files == 1 ? "" : "s", first, files == 1 ? "s" : "ve", outside,
                 outside == 1 ? "" : "s", files == 1 ? "it" : "them", first);
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
    sbx_index_tree(w->ix, root);
    w->tree = root;
    k = sbx_protect_match(w->r->protect, w->r->n_protect, root, 0);
    /* A root that is itself protected (a project inside ~/.ssh) is masked whole. */
    rc = w->pass == 1 && k >= 0 && lstat(root, &st) == 0 ? record(w, root, &st, k, -1) : SANDBOX_OK;
    if (rc == SANDBOX_OK)
        rc = walk_dir(w, path, len, cap, k);
    free(path);
    return rc;
}

/* A protected directory of home (~/.ssh, ~/.config/gh): home is not walked,
 * so the files inside are listed here for their other names (issue 18): a
 * file with more than one link is remembered like a protected file of a
 * root, so that pass 2 masks its names in the scanned directories and
 * resolve_links warns about names outside them. Symlinks are not followed
 * (the mask hides them anyway); a directory is listed once, by identity.
 * Past HOME_LINK_ENTRIES entries in all, the rest is left unlisted, with a
 * warning: those files stay masked, only their other names go unlooked-for. */
static int home_links(struct walk *w, char *path, size_t len, size_t cap, int kind)
{
    struct dirent *de;
    struct stat st;
    size_t i;
    int rc = SANDBOX_OK;
    DIR *d;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return SANDBOX_OK;
    for (i = 0; i < w->n_home_dirs; i++)
        if (w->home_dirs[i].st_dev == st.st_dev && w->home_dirs[i].st_ino == st.st_ino)
            return SANDBOX_OK;
    if (w->n_home_dirs == w->cap_home_dirs) {
        size_t c = w->cap_home_dirs ? w->cap_home_dirs * 2 : 16;
        struct stat *g = realloc(w->home_dirs, c * sizeof *g);
        if (!g)
            return SANDBOX_E_NOMEM;
        w->home_dirs = g;
        w->cap_home_dirs = c;
    }
    w->home_dirs[w->n_home_dirs++] = st;
    d = opendir(path);
    if (!d)
        return SANDBOX_OK; /* masked whole; nothing inside can be listed to link from */
    while (rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (++w->home_seen > HOME_LINK_ENTRIES) {
            if (!w->home_over[0])
                snprintf(w->home_over, sizeof w->home_over, "%s", path);
            break;
        }
        if (len + 1 + nl + 1 > cap ||
            !(de->d_type == DT_REG || de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        path[len] = '/';
        memcpy(path + len + 1, de->d_name, nl + 1);
        if (S_ISREG(st.st_mode) && st.st_nlink > 1)
            rc = remember_link(w, &st, path, kind);
        else if (S_ISDIR(st.st_mode))
            rc = home_links(w, path, len + 1 + nl, cap, kind);
        path[len] = '\0';
    }
    closedir(d);
    return rc;
}

static int home_links_of(struct walk *w, const char *dir, int kind)
{
    size_t len = strlen(dir), cap = len + 4096;
    char *path;
    int rc;
    if (kind != SANDBOX_PROTECT_ALL)
        return SANDBOX_OK; /* read-write patterns only: other names of a write-protected
                            * home file are not looked for (docs/protected-paths.md) */
    if (!(path = malloc(cap)))
        return SANDBOX_E_NOMEM;
    memcpy(path, dir, len + 1);
    rc = home_links(w, path, len, cap, kind);
    free(path);
    return rc;
}

/* Pass 2 in home's top level: other names of protected files directly in
 * home (~/notes.txt for ~/.ssh/id_ed25519). Home is listed, not walked. */
static int home_top_links(struct walk *w, const char *home)
{
    struct dirent *de;
    struct stat st;
    char *p;
    int rc = SANDBOX_OK;
    DIR *d;
    if (!home || home[0] != '/' || !(d = opendir(home)))
        return SANDBOX_OK;
    while (rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
        if (!(de->d_type == DT_REG || de->d_type == DT_UNKNOWN) || !wanted(w, de->d_ino) ||
            sbx_protect_match_tail(w->r->protect, w->r->n_protect, de->d_name,
                                   strlen(de->d_name), 0) >= 0 ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_nlink < 2)
            continue;
        if (!(p = malloc(strlen(home) + strlen(de->d_name) + 2))) {
            rc = SANDBOX_E_NOMEM;
            break;
        }
        sprintf(p, "%s/%s", home, de->d_name);
        rc = remember_link(w, &st, p, -1);
        free(p);
    }
    closedir(d);
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
            if (lstat(p, &st) == 0) {
                rc = record(w, p, &st, k, -1);
                if (rc == SANDBOX_OK)
                    rc = home_links_of(w, p, k); /* a directory, or a link to one */
            }
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
        if (lstat(r->protect_home[i].pattern, &st) == 0) {
            rc = record(w, r->protect_home[i].pattern, &st, r->protect_home[i].kind, -1);
            if (rc == SANDBOX_OK)
                rc = home_links_of(w, r->protect_home[i].pattern, r->protect_home[i].kind);
        }
    if (rc == SANDBOX_OK && w->home_over[0])
        sbx_warn(w->warning, w->warning_size,
                 "protected paths: the protected directories in home hold more than %d entries; "
                 "files beyond them (from %s on) are masked, but their other names (hard "
                 "links) were not looked for", HOME_LINK_ENTRIES, w->home_over);
    return rc;
}

/* ---- what git runs from outside .git (issue 18) ---- */

/* The symlinks the kernel meets on the way to `path` (issue 18): git
 * resolves a hooks path, an included file or a gitdir pointer by name every
 * time it runs, and the read-only bind holds only the real target, so a
 * symlink on the way (core.hooksPath = .husky, .husky -> scripts/hooks)
 * that the command replaced would send the next git elsewhere. Each one
 * becomes a fixed name: the guard refuses moving it, renaming onto it, or
 * making it again once it is removed. Resolved as the kernel does, ".."
 * after the link, at most 40 links. */
static int git_fix_links(struct walk *w, const char *path)
{
    char rest[PATH_MAX], cur[PATH_MAX], name[PATH_MAX], target[PATH_MAX], next[PATH_MAX];
    size_t at = 0, cl;
    int hops = 0, rc = SANDBOX_OK;
    struct stat st;
    ssize_t n;
    if (path[0] != '/' || strlen(path) >= sizeof rest)
        return SANDBOX_OK;
    strcpy(rest, path);
    cur[0] = '\0'; /* "": the root */
    while (rc == SANDBOX_OK) {
        const char *c;
        while (rest[at] == '/')
            at++;
        if (!rest[at])
            break;
        c = rest + at;
        cl = strcspn(c, "/");
        at += cl;
        if (cl == 1 && c[0] == '.')
            continue;
        if (cl == 2 && c[0] == '.' && c[1] == '.') {
            char *slash = strrchr(cur, '/');
            if (slash)
                *slash = '\0';
            continue;
        }
        if ((size_t)snprintf(name, sizeof name, "%s/%.*s", cur, (int)cl, c) >= sizeof name ||
            lstat(name, &st) != 0)
            break; /* missing: git_protect says so */
        if (!S_ISLNK(st.st_mode)) {
            strcpy(cur, name);
            continue;
        }
        if (++hops > 40 || (rc = add_entry(w->m, name, MASK_NAME)) != SANDBOX_OK ||
            (n = readlink(name, target, sizeof target - 1)) <= 0)
            break;
        target[n] = '\0';
        /* The link's text, then what was left after it. */
        if ((size_t)snprintf(next, sizeof next, "%s%s", target, rest + at) >= sizeof next)
            break;
        if (target[0] == '/')
            cur[0] = '\0';
        strcpy(rest, next);
        at = 0;
    }
    return rc;
}

/* Write-protect `target` as part of the repository whose config names it;
 * one that does not exist could be created by the command and run by the
 * next git outside the sandbox: refuse. `what` says where it came from. */
static int git_protect(struct walk *w, const char *target, const char *what, const char *src)
{
    char *real = realpath(target, NULL);
    size_t i;
    int rc = git_fix_links(w, target);
    if (rc != SANDBOX_OK) {
        free(real);
        return rc;
    }
    if (!real)
        return sbx_fail(w->err, SANDBOX_E_REFUSED, errno,
                        "protected paths: %s names %s as %s, which does not exist, so the command "
                        "could create it and the next git would run it; create it, or remove "
                        "the setting", src, target, what);
    for (i = 0; i < w->m->n; i++)
        if (mounts(w->m->e[i].how) && beneath(real, w->m->e[i].path)) {
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

/* Keys whose value is a program git runs (git-config(1)): section, key
 * ("" for any key of the section). The config itself is read-only; a
 * program it names by a path in the work tree is not (core.fsmonitor =
 * ./fsmon.sh, rewritten, ran at the next unconfined git status). */
static const char *const program_keys[][2] = {
    {"core", "fsmonitor"}, {"core", "editor"},     {"core", "pager"},     {"core", "askpass"},
    {"core", "sshcommand"}, {"core", "gitproxy"},  {"sequence", "editor"}, {"diff", "external"},
    {"diff", "command"},   {"diff", "textconv"},   {"filter", "clean"},   {"filter", "smudge"},
    {"filter", "process"}, {"merge", "driver"},    {"gpg", "program"},
    {"gpg", "defaultkeycommand"}, {"credential", "helper"}, {"difftool", "cmd"},
    {"difftool", "path"},  {"mergetool", "cmd"},   {"mergetool", "path"}, {"man", "cmd"},
    {"man", "path"},       {"browser", "cmd"},     {"browser", "path"},
    {"sendemail", "sendmailcmd"}, {"pager", ""},   {"alias", ""},
};

static int program_key(const char *section, const char *key)
{
    size_t i;
    for (i = 0; i < sizeof program_keys / sizeof program_keys[0]; i++)
        if (sbx_strncasecmp_ascii(section, program_keys[i][0], 64) == 0 &&
            (!program_keys[i][1][0] || sbx_strncasecmp_ascii(key, program_keys[i][1], 64) == 0))
            return 1;
    return 0;
}

/* Is `path` somewhere the command could create it: in a writable root, or,
 * when the file system is not confined, below the nearest existing
 * directory the caller may write (a shared dotfile's /opt/homebrew/bin/...
 * is no reason to refuse a normal user)? */
static int creatable(const struct walk *w, const char *path)
{
    char dir[PATH_MAX], *slash;
    size_t i;
    for (i = 0; i < w->r->n_roots; i++)
        if (beneath(path, w->r->roots[i].path))
            return 1;
    if (w->r->filesystem != SANDBOX_FS_UNRESTRICTED ||
        (size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir)
        return w->r->filesystem == SANDBOX_FS_UNRESTRICTED;
    while ((slash = strrchr(dir, '/')) != NULL) {
        struct stat st;
        if (slash == dir) {
            dir[1] = '\0';
            return access(dir, W_OK) == 0;
        }
        *slash = '\0';
        if (stat(dir, &st) == 0)
            return access(dir, W_OK) == 0;
    }
    return 1;
}

/* The program a command-line value starts with, when it is named by a path
 * (a word with a '/'; a bare name is found in PATH, like every other command
 * the user runs): write-protected like a hook. One that is missing where the
 * command could create it refuses to start. Only the first word: what that
 * program runs in turn is the work tree's (docs/protected-paths.md). */
static int git_program(struct walk *w, const char *file, const char *worktree, const char *section,
                       const char *key, const char *val)
{
    char word[PATH_MAX], target[PATH_MAX + 64], what[160];
    size_t n = 0;
    int rc = SANDBOX_OK, alt;
    char quote = 0;
    while (*val == ' ' || *val == '\t')
        val++;
    if (sbx_strncasecmp_ascii(section, "alias", 6) == 0 && *val != '!')
        return SANDBOX_OK; /* a git subcommand, not a program */
    if (*val == '!')
        val++;
    while (*val == ' ' || *val == '\t')
        val++;
    if (*val == '"' || *val == '\'')
        quote = *val++;
    while (*val && n + 1 < sizeof word &&
           (quote ? *val != quote : (*val != ' ' && *val != '\t' && *val != ';' && *val != '|' &&
                                    *val != '&')))
        word[n++] = *val++;
    word[n] = '\0';
    if (!strchr(word, '/'))
        return SANDBOX_OK;
    snprintf(what, sizeof what, "the program of %s.%s", section, key);
    for (alt = 0; rc == SANDBOX_OK && alt < 2; alt++) {
        struct stat st;
        if (!git_path(w, worktree, word, alt, target, sizeof target))
            continue;
        if (stat(target, &st) == 0 || creatable(w, target))
            rc = git_protect(w, target, what, file);
        else
            rc = git_fix_links(w, target);
    }
    return rc;
}

/* core.hooksPath and [include]/[includeIf] path in one config file; an
 * included file is read the same way, `depth` levels down. */
static int git_config(struct walk *w, const char *file, const char *worktree, int depth)
{
    /* val zeroed once per file: the analyzer cannot see that cfg_value
     * always ends it with a NUL before git_program scans it. */
    char section[64] = "", key[64], val[PATH_MAX] = "", dir[PATH_MAX], *slash, *buf;
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
        else if (program_key(section, key))
            rc = git_program(w, file, worktree, section, key, val);
    }
    free(buf);
    return rc;
}

/* ---- what the git index tracks (issue 18) ---- */

/* A secret committed to the repository stays readable through git's object
 * store (`git show HEAD:.env`), which no mask covers and which git log and
 * git diff need. The index is what can be read cheaply: it lists every
 * tracked path, sorted, uncompressed, and a committed file stays in it until
 * it is removed. HEAD's trees and the history are compressed objects and are
 * not read (docs/protected-paths.md). */
struct tracked {
    const sbx_resolved *r;
    const char *const *alias; /* masked paths (relative) that carry no protected name */
    size_t n_alias;
    char dir[PATH_MAX + 1];   /* the directory of the last name, and its verdict */
    size_t dir_len;
    int dir_kind;
    size_t count;
    char first[256];
};

static unsigned long be32(const unsigned char *b)
{
    return (unsigned long)b[0] << 24 | (unsigned long)b[1] << 16 | (unsigned long)b[2] << 8 | b[3];
}

/* Is the tracked `name` (len bytes, relative to the worktree) protected?
 * Names come sorted, so a directory's verdict is reused for its files: the
 * cost is one match per name, as in the walk. */
static void tracked_name(struct tracked *t, const char *name, size_t len)
{
    const sbx_resolved *r = t->r;
    size_t dl = len, i;
    int hit = 0;
    while (dl > 0 && name[dl - 1] != '/')
        dl--;
    dl = dl ? dl - 1 : 0;
    if (dl != t->dir_len || memcmp(t->dir, name, dl) != 0) {
        memcpy(t->dir, name, dl);
        t->dir[dl] = '\0';
        t->dir_len = dl;
        t->dir_kind = dl ? sbx_protect_match(r->protect, r->n_protect, t->dir, 0) : -1;
    }
    hit = t->dir_kind == SANDBOX_PROTECT_ALL ||
          sbx_protect_match_tail(r->protect, r->n_protect, name, len, 0) == SANDBOX_PROTECT_ALL;
    for (i = 0; !hit && i < t->n_alias; i++) {
        size_t al = strlen(t->alias[i]);
        hit = al <= len && memcmp(name, t->alias[i], al) == 0 && (al == len || name[al] == '/');
    }
    if (hit && t->count++ == 0)
        snprintf(t->first, sizeof t->first, "%.*s", (int)len, name);
}

/* The size of an object id in this index: 20 (SHA-1) or 32 (SHA-256), told
 * by the first entry, whose flags hold its name's length; 0 when neither
 * reads. */
static size_t index_oid_size(const unsigned char *b, size_t size, unsigned long version)
{
    static const size_t sizes[] = {20, 32};
    size_t i;
    for (i = 0; i < 2; i++) {
        size_t flags_at = 12 + 40 + sizes[i], at = flags_at + 2, want;
        const unsigned char *nul;
        if (at + 2 > size)
            continue;
        want = ((size_t)b[flags_at] << 8 | b[flags_at + 1]) & 0xfff;
        if (version >= 3 && (b[flags_at] & 0x40))
            at += 2;
        if (version == 4 && (at >= size || b[at++] != 0)) /* nothing to strip before the first */
            continue;
        nul = at < size ? memchr(b + at, '\0', size - at) : NULL;
        if (nul && (want == 0xfff ? (size_t)(nul - (b + at)) >= want : (size_t)(nul - (b + at)) == want))
            return sizes[i];
    }
    return 0;
}

/* Read `git`/index (versions 2 to 4) and count its protected names. */
static void index_scan(struct tracked *t, const char *git)
{
    char path[PATH_MAX + 16], name[PATH_MAX + 1];
    const unsigned char *b;
    size_t size, off, i, n, oid, len = 0;
    unsigned long version;
    struct stat st;
    void *map;
    int fd;
    snprintf(path, sizeof path, "%s/index", git);
    fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    /* Mapped, not read: a 10,000-file index is near a megabyte, and copying
     * it into fresh heap pages was a large part of a launch (docs/bench). */
    if (fstat(fd, &st) != 0 || st.st_size < 12 || st.st_size > (1L << 30) ||
        (map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
        close(fd);
        return;
    }
    close(fd);
    size = (size_t)st.st_size;
    b = map;
    if (memcmp(b, "DIRC", 4) != 0 || (version = be32(b + 4)) < 2 || version > 4 ||
        (n = be32(b + 8)) == 0 || !(oid = index_oid_size(b, size, version))) {
        munmap(map, size);
        return;
    }
    for (off = 12, i = 0; i < n; i++) {
        size_t flags_at = off + 40 + oid, at = flags_at + 2, nl, strip = 0;
        const unsigned char *nul;
        if (at + 1 > size)
            break;
        if (version >= 3 && (b[flags_at] & 0x40))
            at += 2;
        if (version == 4) {
            /* A prefix-compressed name: git's varint of how many bytes of the
             * previous name to drop, then the rest. */
            unsigned c;
            if (at >= size)
                break;
            c = b[at++];
            strip = c & 127;
            while ((c & 128) && at < size && strip < PATH_MAX) {
                c = b[at++];
                strip = ((strip + 1) << 7) | (c & 127);
            }
            if (strip > len)
                break;
        }
        nul = at < size ? memchr(b + at, '\0', size - at) : NULL;
        if (!nul)
            break;
        nl = (size_t)(nul - (b + at));
        if (nl > PATH_MAX)
            break; /* git refuses such a name too */
        if (version == 4) {
            if (len - strip + nl > PATH_MAX)
                break;
            memcpy(name + len - strip, b + at, nl);
            len = len - strip + nl;
            name[len] = '\0';
            tracked_name(t, name, len);
            off = at + nl + 1;
        } else {
            tracked_name(t, (const char *)b + at, nl);
            off += (at - off + nl + 8) / 8 * 8;
        }
    }
    munmap(map, size);
}

/* The masked paths in `worktree` whose own name is not protected (other
 * names of a secret, directories masked whole), relative: NULL-free list in
 * *out (free it), or SANDBOX_E_NOMEM. */
static int tracked_aliases(const struct walk *w, const char *worktree, const char ***out, size_t *n)
{
    size_t i, wl = strlen(worktree);
    *n = 0;
    *out = malloc((w->m->n ? w->m->n : 1) * sizeof **out);
    if (!*out)
        return SANDBOX_E_NOMEM;
    for (i = 0; i < w->m->n; i++) {
        const char *p = w->m->e[i].path;
        if ((w->m->e[i].how == MASK_DIR || w->m->e[i].how == MASK_FILE) &&
            strncmp(p, worktree, wl) == 0 && p[wl] == '/' &&
            sbx_protect_match(w->r->protect, w->r->n_protect, p + wl + 1, 0) != SANDBOX_PROTECT_ALL)
            (*out)[(*n)++] = p + wl + 1;
    }
    return SANDBOX_OK;
}

static void git_index_warn(struct walk *w, const char *git, const char *worktree)
{
    struct tracked *t = calloc(1, sizeof *t);
    const char **alias = NULL;
    size_t n_alias = 0;
    if (!t || tracked_aliases(w, worktree, &alias, &n_alias) != SANDBOX_OK) {
        free(t);
        return; /* out of memory: only a warning is lost, the masks stand */
    }
    t->r = w->r;
    t->alias = alias;
    t->n_alias = n_alias;
    t->dir_len = (size_t)-1;
    index_scan(t, git);
    if (t->count)
        sbx_warn(w->warning, w->warning_size,
                 "protected paths: the git index of %s tracks %zu protected path%s (first: %s); "
                 "git show and git cat-file read committed copies from the object store, which "
                 "is not masked: remove them from the repository and rotate the secrets",
                 git, t->count, t->count == 1 ? "" : "s", t->first);
    free(alias);
    free(t);
}

static int git_index_later(struct walk *w, const char *git, const char *worktree)
{
    char **g = realloc(w->indexes, (w->n_indexes + 2) * sizeof *g);
    if (!g)
        return SANDBOX_E_NOMEM;
    w->indexes = g;
    if (!(g[w->n_indexes] = sbx_strdup(git)))
        return SANDBOX_E_NOMEM;
    if (!(g[w->n_indexes + 1] = sbx_strdup(worktree))) {
        free(g[w->n_indexes]);
        return SANDBOX_E_NOMEM;
    }
    w->n_indexes += 2;
    return SANDBOX_OK;
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

/* Config given in the environment (git 2.31+: GIT_CONFIG_COUNT, then
 * GIT_CONFIG_KEY_n and GIT_CONFIG_VALUE_n), which the user's next git reads
 * as the launcher does (issue 18, round 3): the same keys as in a file. */
static int git_env_config(struct walk *w, const char *worktree)
{
    const char *count = getenv("GIT_CONFIG_COUNT"), *key, *val, *dot, *last;
    char name[32], section[64], k[64];
    long n, i;
    int rc = SANDBOX_OK;
    if (!count || !*count)
        return SANDBOX_OK;
    n = strtol(count, NULL, 10);
    for (i = 0; rc == SANDBOX_OK && i < n && i < 1000; i++) {
        snprintf(name, sizeof name, "GIT_CONFIG_KEY_%ld", i);
        key = getenv(name);
        snprintf(name, sizeof name, "GIT_CONFIG_VALUE_%ld", i);
        val = getenv(name);
        if (!key || !val || !*val || !(dot = strchr(key, '.')) || !(last = strrchr(key, '.')))
            continue;
        snprintf(section, sizeof section, "%.*s", (int)(dot - key), key);
        snprintf(k, sizeof k, "%s", last + 1);
        if (dot == last && sbx_strncasecmp_ascii(section, "core", 5) == 0 &&
            sbx_strncasecmp_ascii(k, "hookspath", 10) == 0)
            rc = git_setting(w, "the environment (GIT_CONFIG_KEY_n)", worktree, worktree, 0, 1, val);
        else if (sbx_strncasecmp_ascii(k, "path", 5) == 0 &&
                 ((dot == last && sbx_strncasecmp_ascii(section, "include", 8) == 0) ||
                  (dot != last && sbx_strncasecmp_ascii(section, "includeif", 10) == 0)))
            rc = git_setting(w, "the environment (GIT_CONFIG_KEY_n)", worktree, worktree, 0, 0, val);
        else if (program_key(section, k))
            rc = git_program(w, "the environment (GIT_CONFIG_KEY_n)", worktree, section, k, val);
    }
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
    if (rc == SANDBOX_OK)
        rc = git_env_config(w, worktree);
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
static int git_outside(struct walk *w, const char *git, int is_file, int bare)
{
    static const char *const managers[] = {".husky", ".pre-commit-config.yaml", "lefthook.yml",
                                           "lefthook.yaml", ".lefthook.yml", "lefthook-local.yml"};
    char p[PATH_MAX + 64], worktree[PATH_MAX], gd[PATH_MAX], common[PATH_MAX];
    int rc = SANDBOX_OK;
    char *slash;
    struct stat st;
    size_t i;
    /* A bare repository runs its hooks, and resolves a relative hooks
     * path, in itself. */
    snprintf(worktree, sizeof worktree, "%s", git);
    slash = strrchr(worktree, '/');
    if (slash && !bare)
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
        rc = git_index_later(w, gd, worktree);
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
        if ((w->m->e[i].how != MASK_READONLY && w->m->e[i].how != MASK_GITDIR) || !base ||
            (!w->m->e[i].bare && sbx_strncasecmp_ascii(base, "/.git", 6) != 0) ||
            stat(path, &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
            continue;
        rc = git_outside(w, path, S_ISREG(st.st_mode), w->m->e[i].bare);
    }
    return rc;
}

/* The repository `dir` lies in, as git finds it (a .git directory or a
 * gitfile in it or an ancestor): its git directory and worktree, or 0. */
static int git_enclosing(const char *dir, char *git, size_t git_size, char *top, size_t top_size)
{
    char p[PATH_MAX + 8], *real = dir ? realpath(dir, NULL) : NULL, *slash;
    struct stat st;
    int found = 0;
    if (!real)
        return 0;
    snprintf(top, top_size, "%s", real);
    free(real);
    for (;;) {
        snprintf(p, sizeof p, "%s/.git", top);
        if (stat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                snprintf(git, git_size, "%s", p);
                found = 1;
            } else if (S_ISREG(st.st_mode)) {
                found = git_pointer(p, "gitdir: ", top, git, git_size);
            }
            break;
        }
        slash = strrchr(top, '/');
        if (!slash || slash == top)
            break;
        *slash = '\0';
    }
    return found;
}

void sbx_mask_explain_committed(const sbx_resolved *r, int json, sbx_buf *out)
{
    char git[2][PATH_MAX + 8], top[PATH_MAX];
    const char *dirs[2];
    struct tracked *t;
    int i, listed = 0, found[2] = {0, 0};
    if (!r->protected_paths_blocked)
        return;
    dirs[0] = r->project_root;
    dirs[1] = r->working_dir;
    if (json)
        sbx_buf_add(out, ",\"committed_protected\":[");
    for (i = 0; i < 2; i++) {
        found[i] = git_enclosing(dirs[i], git[i], sizeof git[i], top, sizeof top);
        if (!found[i] || (i == 1 && found[0] && strcmp(git[0], git[1]) == 0))
            continue;
        if (!(t = calloc(1, sizeof *t)))
            break;
        t->r = r;
        t->dir_len = (size_t)-1;
        index_scan(t, git[i]);
        if (t->count && json) {
            sbx_buf_add(out, listed++ ? ",{\"git_dir\":" : "{\"git_dir\":");
            sbx_buf_json_str(out, git[i]);
            sbx_buf_printf(out, ",\"count\":%zu,\"first\":", t->count);
            sbx_buf_json_str(out, t->first);
            sbx_buf_add(out, "}");
        } else if (t->count) {
            listed++;
            sbx_buf_printf(out,
                           "  committed: the git index of %s tracks %zu protected path%s (first: "
                           "%s); git show reads committed copies from the object store, which "
                           "is not masked: remove them from the repository and rotate them\n",
                           git[i], t->count, t->count == 1 ? "" : "s", t->first);
        }
        free(t);
    }
    if (json)
        sbx_buf_add(out, "]");
}

/* ---- pass 1 and the pre-flight index ---- */

/* The question pass 1 answers: the roots (real paths, in order, which of
 * them are walked), the patterns with their flags (git mode: the parts of a
 * writable .git; not below node_modules) and the homes (a link to one is
 * not followed). Its other inputs are the file system and who looks (the
 * index adds the ids and capabilities). Config and environment are read
 * after pass 1 only (git_all), at every launch. */
static void mask_index_key(const struct walk *w, struct sbx_bytes *k)
{
    size_t i;
    sbx_bytes_str(k, "protected-path walk 2");
    sbx_bytes_str(k, w->r->home_dir ? w->r->home_dir : "");
    sbx_bytes_str(k, w->r->home_alt ? w->r->home_alt : "");
    sbx_bytes_u64(k, w->n_roots);
    for (i = 0; i < w->n_roots; i++) {
        sbx_bytes_str(k, w->roots[i]);
        sbx_bytes_u64(k, (uint64_t)nested_root(w->roots, w->n_roots, i));
    }
    sbx_bytes_u64(k, w->r->n_protect);
    for (i = 0; i < w->r->n_protect; i++) {
        sbx_bytes_str(k, w->r->protect[i].pattern);
        sbx_bytes_u64(k, (uint64_t)w->r->protect[i].kind + 1);
        sbx_bytes_u64(k, (uint64_t)w->r->protect[i].flags);
    }
}

/* Everything pass 1 leaves behind, for the index. `wl`: the length of the
 * warning before it; what it appended is stored without the separator. */
static void mask_index_store(const struct walk *w, size_t wl)
{
    struct sbx_bytes *out = sbx_index_payload(w->ix);
    const char *delta = w->warning + wl;
    size_t i;
    if (!out)
        return;
    if (delta[0] == ';' && delta[1] == ' ')
        delta += 2;
    sbx_bytes_u64(out, w->n_seen);
    sbx_bytes_u64(out, w->n_followed);
    sbx_bytes_str(out, w->followed);
    sbx_bytes_u64(out, w->n_skipped);
    sbx_bytes_str(out, w->skipped);
    sbx_bytes_u64(out, w->n_other);
    sbx_bytes_str(out, w->other);
    sbx_bytes_str(out, delta);
    sbx_bytes_u64(out, w->m->n);
    for (i = 0; i < w->m->n; i++) {
        sbx_bytes_str(out, w->m->e[i].path);
        /* +1: MASK_NAME is -1 */
        sbx_bytes_u64(out, (uint64_t)((int64_t)w->m->e[i].how + 1));
        sbx_bytes_u64(out, (uint64_t)w->m->e[i].bare);
    }
    sbx_bytes_u64(out, w->n_links);
    for (i = 0; i < w->n_links; i++) {
        sbx_bytes_str(out, w->links[i].path);
        sbx_bytes_u64(out, (uint64_t)w->links[i].dev);
        sbx_bytes_u64(out, (uint64_t)w->links[i].ino);
        sbx_bytes_u64(out, (uint64_t)((int64_t)w->links[i].kind + 1));
    }
    sbx_bytes_u64(out, w->n_extra);
    for (i = 0; i < w->n_extra; i++) {
        sbx_bytes_str(out, w->extra[i]);
        sbx_bytes_u64(out, (uint64_t)w->extra_depth[i]);
    }
    sbx_index_commit(w->ix);
}

/* Pass 1's results from the index. The files with several links are
 * looked at again: their link counts (outside names, which change no
 * directory we list) only decide the warning. SANDBOX_E_INVALID: the stored
 * results do not read back; the caller scans instead. */
static int mask_index_load(struct walk *w, struct sbx_cursor *c)
{
    uint64_t n, i;
    const char *s;
    int rc = SANDBOX_OK;
    w->n_seen = (size_t)sbx_cursor_u64(c);
    w->n_followed = (size_t)sbx_cursor_u64(c);
    snprintf(w->followed, sizeof w->followed, "%s", sbx_cursor_str(c));
    w->n_skipped = (size_t)sbx_cursor_u64(c);
    snprintf(w->skipped, sizeof w->skipped, "%s", sbx_cursor_str(c));
    w->n_other = (size_t)sbx_cursor_u64(c);
    snprintf(w->other, sizeof w->other, "%s", sbx_cursor_str(c));
    s = sbx_cursor_str(c);
    if (!c->bad && s[0])
        sbx_warn(w->warning, w->warning_size, "%s", s);
    n = sbx_cursor_u64(c);
    for (i = 0; rc == SANDBOX_OK && !c->bad && i < n; i++) {
        uint64_t bare, stored;
        int how;
        s = sbx_cursor_str(c);
        stored = sbx_cursor_u64(c);
        how = stored <= MASK_GITDIR + 1 ? (int)stored - 1 : MASK_READONLY - 2;
        bare = sbx_cursor_u64(c);
        if (c->bad || !(how == MASK_NAME || how == MASK_READONLY || how == MASK_DIR ||
                        how == MASK_FILE || how == MASK_ABSENT || how == MASK_GITDIR) ||
            bare > 1)
            return SANDBOX_E_INVALID;
        /* Stored once each, in order: each one is the entry it appends. */
        rc = add_entry(w->m, s, how);
        if (rc == SANDBOX_OK && (w->m->e[w->m->n - 1].how != how ||
                                 strcmp(w->m->e[w->m->n - 1].path, s) != 0))
            return SANDBOX_E_INVALID;
        if (rc == SANDBOX_OK)
            w->m->e[w->m->n - 1].bare = (int)bare;
    }
    n = sbx_cursor_u64(c);
    for (i = 0; rc == SANDBOX_OK && !c->bad && i < n; i++) {
        struct stat st;
        uint64_t dev, ino, kind;
        s = sbx_cursor_str(c);
        dev = sbx_cursor_u64(c);
        ino = sbx_cursor_u64(c);
        kind = sbx_cursor_u64(c);
        if (c->bad || kind > 2 || lstat(s, &st) != 0 || (uint64_t)st.st_dev != dev ||
            (uint64_t)st.st_ino != ino)
            return SANDBOX_E_INVALID;
        rc = remember_link(w, &st, s, (int)kind - 1);
    }
    n = sbx_cursor_u64(c);
    if (!c->bad && n > LINK_TREES)
        return SANDBOX_E_INVALID;
    for (i = 0; rc == SANDBOX_OK && !c->bad && i < n; i++) {
        s = sbx_cursor_str(c);
        w->extra_depth[w->n_extra] = (int)sbx_cursor_u64(c);
        if (c->bad || !(w->extra[w->n_extra] = sbx_strdup(s)))
            return c->bad ? SANDBOX_E_INVALID : SANDBOX_E_NOMEM;
        w->n_extra++;
    }
    if (rc == SANDBOX_OK && c->bad)
        rc = SANDBOX_E_INVALID;
    return rc;
}

/* Undo a partial load: pass 1 starts again from nothing. */
static void mask_index_unload(struct walk *w, size_t wl)
{
    size_t i;
    for (i = 0; i < w->m->n; i++)
        free(w->m->e[i].path);
    w->m->n = 0;
    for (i = 0; i < w->n_links; i++)
        free(w->links[i].path);
    w->n_links = 0;
    for (i = 0; i < w->n_extra; i++)
        free(w->extra[i]);
    w->n_extra = 0;
    w->n_seen = w->n_followed = w->n_skipped = w->n_other = 0;
    w->followed[0] = w->skipped[0] = w->other[0] = '\0';
    w->warning[wl] = '\0';
}

/* With the file system unconfined (--no-network alone) the command could
 * write the pre-flight index that later launches trust: the index
 * directory is made (when missing) and mounted read-only for it. */
static int protect_index_dir(struct walk *w)
{
    char *dir = sbx_index_home(w->r), *real;
    int fd, rc = SANDBOX_OK;
    if (!dir)
        return SANDBOX_OK;
    fd = sbx_index_open_dir(dir);
    real = fd >= 0 ? realpath(dir, NULL) : NULL;
    if (fd >= 0)
        close(fd);
    free(dir);
    if (real)
        rc = add_entry(w->m, real, MASK_READONLY);
    free(real);
    return rc;
}

/* Pass 1: the roots, then the trees symlinks lead to (the list grows
 * while it is walked); or what the index kept of it. */
static int pass_one(struct walk *w)
{
    struct sbx_bytes key = {NULL, 0, 0, 0};
    struct sbx_cursor c;
    size_t i, wl = strlen(w->warning);
    int rc = SANDBOX_OK;

    mask_index_key(w, &key);
    w->ix = sbx_index_begin(w->r, SBX_INDEX_MASK, &key);
    sbx_bytes_free(&key);
    if (sbx_index_valid(w->ix, &c)) {
        rc = mask_index_load(w, &c);
        sbx_index_end(w->ix);
        w->ix = NULL;
        if (rc != SANDBOX_E_INVALID)
            return rc;
        mask_index_unload(w, wl); /* scan, and record nothing */
        rc = SANDBOX_OK;
    }
    for (i = 0; rc == SANDBOX_OK && i < w->n_roots; i++)
        if (!nested_root(w->roots, w->n_roots, i))
            rc = scan_root(w, w->roots[i]);
    if (rc == SANDBOX_OK && w->n_extra)
        w->max_seen = w->n_seen + LINK_ENTRIES;
    for (i = 0; rc == SANDBOX_OK && i < w->n_extra; i++) {
        w->depth = w->extra_depth[i];
        rc = scan_root(w, w->extra[i]);
    }
    w->depth = 0;
    if (rc == SANDBOX_OK)
        mask_index_store(w, wl);
    sbx_index_end(w->ix);
    w->ix = NULL;
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
        /* Every entry but the masks: read-only binds, names kept in place,
         * and a writable repository's missing code paths and .git itself. */
        if ((m->e[i].how == MASK_NAME || m->e[i].how == MASK_READONLY ||
             m->e[i].how == MASK_ABSENT || m->e[i].how == MASK_GITDIR) &&
            strncmp(f, path, len) == 0 && (f[len] == '\0' || f[len] == '/'))
            return 1;
    }
    return 0;
}

int sbx_mask_masks_under(const struct sbx_mask_plan *m, const char *path, size_t len)
{
    size_t i;
    if (!m)
        return 0;
    for (i = 0; i < m->n; i++) {
        const char *f = m->e[i].path;
        if ((m->e[i].how == MASK_FILE || m->e[i].how == MASK_DIR) && strncmp(f, path, len) == 0 &&
            (f[len] == '\0' || f[len] == '/'))
            return 1;
    }
    return 0;
}

int sbx_mask_known_dir(const struct sbx_mask_plan *m, const char *path, size_t len)
{
    size_t i, fl;
    if (!m)
        return 0;
    for (i = 0; i < m->n; i++) {
        if (m->e[i].how != MASK_READONLY && m->e[i].how != MASK_GITDIR)
            continue;
        fl = strlen(m->e[i].path);
        if (fl <= len && strncmp(m->e[i].path, path, fl) == 0 &&
            (path[fl] == '\0' || path[fl] == '/' || fl == 1))
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

/* The protected paths' part of prepare: pass 1 over the roots, the home,
 * git, pass 2 for other names of linked files, the working directory. */
static int protect_walk(const sbx_resolved *r, struct sbx_mask_plan *m, char *warning,
                        size_t warning_size, sandbox_error *err)
{
    struct walk w;
    const char **roots;
    char **real;
    size_t n_roots = 0, i;
    int rc = SANDBOX_OK;

    /* The scanned roots: the writable ones where a command works (not the
     * temp directories or /dev), else the project and working directory.
     * As many as there are: an unscanned root is an unprotected one. */
    roots = calloc(r->n_roots + 2, sizeof *roots);
    real = calloc(r->n_roots + 2, sizeof *real);
    if (!roots || !real) {
        free(roots);
        free(real);
        return SANDBOX_E_NOMEM;
    }
    for (i = 0; i < r->n_roots; i++)
        if (r->roots[i].kind == SBX_ROOT_PROJECT || r->roots[i].kind == SBX_ROOT_ADDED ||
            r->roots[i].kind == SBX_ROOT_WORKDIR)
            roots[n_roots++] = r->roots[i].path;
    /* No project (the working directory is the home, "/" or a store,
     * spec 004): nothing of it is writable, and walking it would walk the
     * user's whole life; its secrets at the home's top level are scanned
     * below like every launch's. */
    if (n_roots == 0 && !r->no_project) {
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
    for (i = 0; i < r->n_protect; i++)
        w.git_mode |= (r->protect[i].flags & SBX_PROTECT_F_GIT) != 0;
    if (!w.extra || !w.extra_depth)
        rc = SANDBOX_E_NOMEM;
    if (rc == SANDBOX_OK)
        rc = pass_one(&w);
    if (rc == SANDBOX_OK && w.n_followed)
        sbx_warn(warning, warning_size,
                 "protected paths: followed %zu symlink%s out of the scanned directories and "
                 "masked what they reach (first: %s)",
                 w.n_followed, w.n_followed == 1 ? "" : "s", w.followed);
    if (rc == SANDBOX_OK && w.n_skipped)
        sbx_warn(warning, warning_size,
                 "protected paths: did not follow %zu symlink%s to a pseudo file system or to a "
                 "directory above the scanned ones or a home (first: %s); what they reach beyond "
                 "the scanned directories and the home is not masked",
                 w.n_skipped, w.n_skipped == 1 ? "" : "s", w.skipped);
    if (rc == SANDBOX_OK && w.n_other)
        sbx_warn(warning, warning_size,
                 "protected paths: did not follow %zu symlink%s to a directory of another owner "
                 "or a system tree (first: %s); protected files there are not masked",
                 w.n_other, w.n_other == 1 ? "" : "s", w.other);
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
        if (rc == SANDBOX_OK)
            rc = home_top_links(&w, r->home_dir);
        if (rc == SANDBOX_OK)
            rc = home_top_links(&w, r->home_alt);
        free(w.wanted);
    }
    if (rc == SANDBOX_OK)
        rc = resolve_links(&w);
    for (i = 0; rc == SANDBOX_OK && i + 1 < w.n_indexes; i += 2)
        git_index_warn(&w, w.indexes[i], w.indexes[i + 1]);
    for (i = 0; i < w.n_indexes; i++)
        free(w.indexes[i]);
    free(w.indexes);
    if (rc == SANDBOX_OK && r->filesystem == SANDBOX_FS_UNRESTRICTED)
        rc = protect_index_dir(&w);
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
    free(w.home_dirs);
    return rc;
}

int sbx_mask_prepare(const sbx_resolved *r, struct sbx_mask_plan **out, int endpoints,
                     char *warning, size_t warning_size, sandbox_error *err)
{
    struct sbx_mask_plan *m;
    struct sbx_unix_list eps;
    size_t i;
    int rc = SANDBOX_OK;
    struct sbx_ll_ruleset_attr attr;

    *out = NULL;
    memset(&eps, 0, sizeof eps);
    rc = endpoints ? sbx_unix_endpoints(r, &eps, err) : SANDBOX_OK;
    if (rc != SANDBOX_OK)
        return rc;
    if (r->n_protect == 0 && eps.n == 0)
        return SANDBOX_OK;
    rc = sbx_mask_check(r, err);
    if (rc == SANDBOX_OK && eps.n > 0) {
        char detail[256];
        size_t k;
        /* Where no mask can be made (no Landlock, user namespaces refused
         * or restricted by AppArmor, as on Ubuntu 24.04 desktops), the
         * default list degrades like Landlock on an old kernel: run, and
         * say loudly which sockets stay open. A socket the host named with
         * --deny-unix is never left open: that request fails closed. */
        if (!sbx_mask_available(detail, sizeof detail)) {
            for (k = 0; k < eps.n && !eps.e[k].named; k++)
                ;
            if (k < eps.n) {
                rc = sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                              "the socket %s named with --deny-unix cannot be closed: %s; the "
                              "command was not run",
                              eps.e[k].real, detail);
            } else if (landlock_abi() >= 1) {
                /* (Without Landlock writes are not confined either, and the
                 * launcher says so in its one warning: nothing to add.) */
                sbx_warn(warning, warning_size,
                         "the privileged sockets are NOT closed (%s, %s%s): %s",
                         eps.e[0].real, eps.e[0].what, eps.n > 1 ? ", and others" : "", detail);
            }
            if (rc == SANDBOX_OK) {
                sbx_unix_list_free(&eps);
                memset(&eps, 0, sizeof eps);
                if (r->n_protect == 0)
                    return SANDBOX_OK;
            }
        }
    }
    /* Masks will be made: the session bus may go through a filtering
     * proxy instead of closing whole. */
    if (rc == SANDBOX_OK && eps.n > 0)
        sbx_unix_proxy_buses(r, &eps);
    if (rc != SANDBOX_OK) {
        sbx_unix_list_free(&eps);
        return rc;
    }

    m = calloc(1, sizeof *m);
    if (!m) {
        sbx_unix_list_free(&eps);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
    }
    m->ruleset_fd = -1;
    m->cap_last = (int)read_long("/proc/sys/kernel/cap_last_cap", 63);
    /* The command's own devpts comes with protected paths (other terminals
     * of the user hold what they typed); sockets alone keep the host's. */
    m->own_pts = r->n_protect > 0;
    /* Only the opener's own id can be mapped from inside the new namespace
     * (a wider map needs CAP_SETUID in the parent, which the process has just
     * left), and gid_map needs setgroups denied first. Root included. */
    m->deny_setgroups = 1;
    if (format_map(m->uid_map, sizeof m->uid_map, &m->uid_map_len, (unsigned long)geteuid()) ||
        format_map(m->gid_map, sizeof m->gid_map, &m->gid_map_len, (unsigned long)getegid())) {
        sbx_mask_free(m);
        sbx_unix_list_free(&eps);
        return sbx_fail(err, SANDBOX_E_SYSTEM, 0, "cannot format the id maps");
    }
    if (r->n_protect > 0)
        rc = protect_walk(r, m, warning, warning_size, err);
    /* Each privileged socket is covered by /dev/null like a protected file:
     * connect and sendto find a device there and fail (ECONNREFUSED); the
     * mount point cannot be renamed, unlinked or linked (unixep.c). */
    for (i = 0; rc == SANDBOX_OK && i < eps.n; i++) {
        size_t before = m->n;
        rc = add_entry(m, eps.e[i].real, MASK_FILE);
        /* A socket of the default list may go away before the spawn (a
         * daemon stopped, a plan reused an hour later): nothing answers at
         * its path then, and refusing every later run would help no one.
         * A protected path or a socket the host named stays fail-closed. */
        if (rc == SANDBOX_OK && m->n > before && !eps.e[i].named)
            m->e[m->n - 1].gone_ok = 1;
        /* A stand-in for the listed ones only, which are stream daemons; a
         * --deny-unix socket may be a datagram one, which a stream stand-in
         * would turn into a silent loss (logger retries as a stream: review
         * r72 F4): /dev/null, refused, as unsupervised. */
        if (rc == SANDBOX_OK && m->n > before && !eps.e[i].named)
            m->e[m->n - 1].endpoint = 1;
        /* A session bus served through its filtering proxy: the plan
         * takes the proxy's socket and descriptor. */
        if (rc == SANDBOX_OK && m->n > before && eps.e[i].cover) {
            m->e[m->n - 1].cover = eps.e[i].cover;
            m->e[m->n - 1].cover_fd = eps.e[i].cover_fd;
            eps.e[i].cover = NULL;
            eps.e[i].cover_fd = -1;
        }
    }
    /* The pins go with the plan: apply binds them after the masks. */
    m->pins.pin = eps.pin;
    m->pins.n_pin = eps.n_pin;
    eps.pin = NULL;
    eps.n_pin = 0;
    sbx_unix_list_free(&eps);
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
     * refuse mount changes; block devices are never made by a command.
     * Landlock denies REFER (moving or linking a file to another directory)
     * in every domain that does not grant it, handled or not: without a
     * grant on "/" every such rename failed with EXDEV (rustc's rmeta,
     * pip's and npm's installs; mv hides it by copying). The confining
     * domain decides REFER for the writable roots; this one grants it
     * everywhere. ABI 1 cannot grant it: reparenting stays refused there. */
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = SBX_LL_FS_MAKE_BLOCK | (landlock_abi() >= 2 ? SBX_LL_FS_REFER : 0);
    /* The ABI-1 size: every kernel with Landlock accepts it. */
    m->ruleset_fd = sbx_ll_create_ruleset(&attr, sizeof attr.handled_access_fs, 0);
    if (m->ruleset_fd >= 0 && (attr.handled_access_fs & SBX_LL_FS_REFER)) {
        struct sbx_ll_path_beneath_attr pb;
        int e = 0;
        pb.allowed_access = SBX_LL_FS_REFER;
        pb.parent_fd = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (pb.parent_fd < 0 ||
            sbx_ll_add_rule(m->ruleset_fd, SBX_LL_RULE_PATH_BENEATH, &pb, 0) != 0)
            e = errno;
        if (pb.parent_fd >= 0)
            close(pb.parent_fd);
        if (e != 0) {
            sbx_mask_free(m);
            return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                            "protected paths: cannot grant renames across directories in the "
                            "Landlock ruleset that locks the masks: %s", strerror(e));
        }
    }
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

const char *sbx_mask_entry(const struct sbx_mask_plan *m, size_t i, int *how, int *bare)
{
    if (!m || i >= m->n)
        return NULL;
    *how = m->e[i].how;
    *bare = m->e[i].bare;
    return m->e[i].path;
}

/* ---- apply: async-signal-safe from here on ---- */

static int write_file(const char *path, const char *data, size_t len)
{
    int fd = openat(AT_FDCWD, path, O_WRONLY | O_CLOEXEC), e = 0;
    if (fd < 0)
        return errno;
    if (write(fd, data, len) != (ssize_t)len)
        e = errno ? errno : EIO;
    close(fd);
    return e;
}

static int drop_caps(int cap_last, int keep_ptrace)
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
    /* A guard reads its callers' memory and takes their sockets, which a
     * caller that made itself non-dumpable (ssh-agent -a, gpg-agent) refuses
     * to the same uid without CAP_SYS_PTRACE in the caller's user namespace:
     * its creations failed with EPERM (review of 2 December, F4). The
     * supervisor keeps that one capability, in this namespace only, which
     * reaches no process outside it; the command's side drops it after the
     * fork, before anything of the command runs. */
    if (keep_ptrace)
        d[0].permitted = d[0].effective = 1u << CAP_SYS_PTRACE;
    if (syscall(SYS_capset, &h, d) != 0)
        return errno;
    return 0;
}

int sbx_mask_apply(const struct sbx_mask_plan *m, int nodev, int proc_ro, int keep_ptrace,
                   struct sbx_covers *cov, int *sys_errno)
{
    /* Whether the command could connect to each closed socket (by its order
     * among them), asked with its own credentials before the namespace,
     * whose capabilities pass any mode of the caller's own files. */
    unsigned char may[SBX_COVER_MAX];
    size_t i, k;
    int e, pass;
    *sys_errno = 0;
    if (!m)
        return 0;
    for (i = 0, k = 0; cov && i < m->n && k < SBX_COVER_MAX; i++)
        if (m->e[i].endpoint && m->e[i].how == MASK_FILE)
            may[k++] = faccessat(AT_FDCWD, m->e[i].path, W_OK, AT_EACCESS) == 0;
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
    k = 0;
    for (pass = MASK_READONLY; pass <= MASK_FILE; pass++) {
        for (i = 0; i < m->n; i++) {
            const struct sbx_mask_entry *x = &m->e[i];
            if (x->how != pass)
                continue;
            if (pass == MASK_READONLY) {
                /* Recursive: a plain bind of a tree with locked submounts is refused.
                 * nodev: root's step made every mount nodev, and a remount
                 * without it would clear that locked flag (EPERM); nothing
                 * under a protected path is a device anyone needs. */
                if (mount(x->path, x->path, NULL, MS_BIND | MS_REC, NULL) != 0 ||
                    mount(NULL, x->path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NODEV | x->keep,
                          NULL) != 0)
                    goto fail;
            } else if (pass == MASK_DIR) {
                if (mount("sbx-protected", x->path, "tmpfs",
                          MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=000,size=4k") != 0)
                    goto fail;
            } else {
                char src[48];
                int fd, reach = 0;
                if (x->endpoint && cov && k < SBX_COVER_MAX)
                    reach = may[k++]; /* in the order of the check above */
                fd = sbx_dbus_cover_open(x->cover, x->cover_fd, src, sizeof src);
                if (fd >= 0) {
                    /* A session bus: its filtering proxy's socket instead
                     * (a connect needs no write access to the mount). */
                    e = mount(src, x->path, NULL, MS_BIND, NULL);
                    close(fd);
                    if (e == 0)
                        continue;
                }
                /* A supervised run: the supervisor's stand-in, which records. */
                if (reach && sbx_unix_cover(cov, x->path, 1) == 0)
                    continue;
                /* nodev makes opening the device fail: nothing to read or write. */
                if (mount("/dev/null", x->path, NULL, MS_BIND, NULL) != 0) {
                    if (errno == ENOENT && x->gone_ok)
                        continue;
                    goto fail;
                }
                if (mount(NULL, x->path, NULL,
                          MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC |
                              m->null_keep,
                          NULL) != 0)
                    goto fail;
            }
        }
    }
    /* Folders above a masked socket in a writable root become mount points,
     * which no rename moves (review of issue 20, F4). After the masks (the
     * recursive bind carries them), before the nodev step (it covers the
     * copies too). */
    if (sbx_unix_pin_apply(&m->pins, &e) != 0)
        goto fail_e;
    /* Where root's namespace did not do it already (nodev != 0): devices
     * open only in /dev, so another mount of the host's /dev (a chroot's
     * bind) reaches no terminal and no disk. Before the devpts below,
     * which is a new mount and keeps its devices. */
    if (nodev && sbx_rootfs_nodev_but_dev(&e) != 0)
        goto fail_e;
    /* A devpts of the command's own over the host's: no other terminal of
     * the user (a tmux pane, another window) has a name here (rootfs.c). */
    if (m->own_pts && sbx_rootfs_private_pts(&e) != 0)
        goto fail_e;
    /* Root's blanket read-only step left /proc for this step's maps. */
    if (proc_ro && sbx_rootfs_proc_read_only(&e) != 0)
        goto fail_e;
    /* Without capabilities the command cannot unmount, remount or open by
     * file handle; no_new_privs (set before) keeps exec from regaining them. */
    if ((e = drop_caps(m->cap_last, keep_ptrace)) != 0)
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

/* Does `path` lie at or under an entry of the plan that changes it in the
 * command's view (a mask, a read-only bind)? Pure, async-signal-safe. */
static int fixed_or_masked(const struct sbx_mask_plan *m, const char *path)
{
    size_t i;
    for (i = 0; i < m->n; i++)
        if (mounts(m->e[i].how) && beneath(path, m->e[i].path))
            return 1;
    return 0;
}

/* "/proc/self/fd/N" without snprintf (async-signal-safe). */
static void fd_link(int fd, char out[32])
{
    char digits[12];
    size_t n = 0, i;
    static const char prefix[] = "/proc/self/fd/";
    unsigned v = (unsigned)fd;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof digits);
    memcpy(out, prefix, sizeof prefix - 1);
    for (i = 0; i < n; i++)
        out[sizeof prefix - 1 + i] = digits[n - 1 - i];
    out[sizeof prefix - 1 + n] = '\0';
}

/* Read-only in root's view only because it lies outside every tree the
 * namespace kept (a log the host hands over as stderr): not /sys, which is
 * read-only for a reason of its own in every mode. */
static int outside_kept(const struct sbx_keep_tree *keep, size_t n, const char *path)
{
    size_t i;
    if (n == 0 || beneath(path, "/sys"))
        return 0;
    for (i = 0; i < n; i++)
        if (beneath(path, keep[i].path))
            return 0;
    return 1;
}

/* In a chroot, a descriptor opened before the launcher's namespace (or
 * another namespace's) is spelled from that namespace's root: stdout to
 * /work/log of a chroot at /srv/root reads /srv/root/work/log once the
 * launcher has its own namespace, a name the view does not have, and every
 * root command with its output in a file exited 126 there (the fresh-root
 * run, scripts/test-fresh-root.sh). When the name does not reach this very
 * file, the longest ending of it that does (from a '/') is its name in the
 * view: path is shortened to it in place. When none does, path is left as
 * it is, and the check refuses as before. Only a name that reaches the
 * same inode is ever taken, so no file passes that the view does not show
 * under that name. */
static void in_view(char *path, const struct stat *st)
{
    struct stat view;
    char *p;
    /* Only a name the view does not have at all: one that reaches another
     * inode there is masked, or another file, and stays refused (review
     * r41 F3: a hard link at an ending of a masked .env's name let the
     * descriptor through, and /proc/self/fd/N wrote the secret). */
    if (stat(path, &view) == 0 || errno != ENOENT)
        return;
    for (p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/'))
        if (stat(p, &view) == 0 && view.st_dev == st->st_dev && view.st_ino == st->st_ino) {
            memmove(path, p, strlen(p) + 1);
            return;
        }
}

/* A regular file inherited open keeps the host's mount, not the command's
 * view: through /proc/self/fd/N it can be reopened, for writing too, on a
 * mount where no mask hides it and nothing is read-only (.git/config past
 * its read-only bind, .env under its mask, /proc/sys for root). So the file
 * must be one the view already shows, as writable: its name, opened in the
 * view, must reach the same inode, on a mount that is not read-only unless
 * the descriptor's own is. A hard link under another, unmasked name passes
 * only because that name shows it in the view anyway. A file with no name
 * left (nlink 0: a deleted temp file, a here-document, a memfd) is reached
 * by no path and passes; one whose opened name was removed but which keeps
 * another is refused (its other name may be masked). A name the command
 * cannot search for is judged by the plan alone; anything else that cannot
 * be resolved is refused: fail closed. */
static int fd_file_step(const struct sbx_mask_plan *m, const struct sbx_keep_tree *keep,
                        size_t n_keep, int fd, const struct stat *st)
{
    char link[32], path[PATH_MAX];
    struct stat view;
    struct statfs vfs, ffs;
    ssize_t n;

    fd_link(fd, link);
    n = readlink(link, path, sizeof path);
    if (n <= 0 || (size_t)n >= sizeof path)
        return SBX_STEP_FD_FILE;
    path[n] = '\0';
    if (path[0] != '/')
        return SBX_STEP_NONE; /* an anonymous inode ("anon_inode:[...]"): no path */
    in_view(path, st);
    if (stat(path, &view) != 0) {
        /* A directory on the way the command may not search (a log in
         * root's 0700 directory, passed to an unprivileged command): it
         * could not reach the name on the host either, and reopening checks
         * the file's own mode. Allowed unless the name lies under a mask or
         * a read-only bind of the plan (a mask's mode-000 tmpfs is EACCES
         * too). */
        if (errno == EACCES && !(m && fixed_or_masked(m, path)))
            return SBX_STEP_NONE;
        return SBX_STEP_FD_FILE; /* masked, hidden, or its name gone */
    }
    if (view.st_dev != st->st_dev || view.st_ino != st->st_ino)
        return SBX_STEP_FD_FILE; /* masked, or renamed: the view shows another */
    if (statfs(path, &vfs) != 0 || fstatfs(fd, &ffs) != 0)
        return SBX_STEP_FD_FILE;
    if ((vfs.f_flags & ST_RDONLY) && !(ffs.f_flags & ST_RDONLY) &&
        !(outside_kept(keep, n_keep, path) && !(m && fixed_or_masked(m, path))))
        return SBX_STEP_FD_FILE; /* read-only in the view (.git, /proc/sys) */
    return SBX_STEP_NONE;
}

/* Why fd must not reach the command, or SBX_STEP_NONE. Close-on-exec ones
 * never do (the spawn child marks all but stdio and the kept ones). Pipes,
 * sockets, ttys and other character devices are not judged: opened again by
 * path they reach no protected file. A block device opened for reading or
 * writing only is: /proc/self/fd/N reopens it on the host's /dev mount, which
 * the namespace's nodev does not cover, so a disk handed over write-only
 * would be read (review of issue 17, third round). */
static int fd_step(const struct sbx_mask_plan *m, const struct sbx_keep_tree *keep, size_t n_keep,
                   int fd)
{
    struct stat st;
    int fl = fcntl(fd, F_GETFD);

    if (fl < 0 || (fl & FD_CLOEXEC))
        return SBX_STEP_NONE;
    fl = fcntl(fd, F_GETFL);
    if (fl >= 0 && (fl & O_PATH))
        return SBX_STEP_FD_PATH; /* reopened through /proc/self/fd, any type */
    if (fstat(fd, &st) != 0)
        return SBX_STEP_NONE;
    if (S_ISDIR(st.st_mode))
        return SBX_STEP_FD_DIR; /* openat and /proc/self/fd/N/... below it */
    if (S_ISBLK(st.st_mode) && (fl < 0 || (fl & O_ACCMODE) != O_RDWR))
        return SBX_STEP_FD_DEV; /* read+write already: reopening gains nothing */
    if (S_ISREG(st.st_mode) && st.st_nlink > 0)
        return fd_file_step(m, keep, n_keep, fd, &st);
    return SBX_STEP_NONE;
}

struct fd_visit_ctx {
    const struct sbx_mask_plan *m;
    const struct sbx_keep_tree *keep;
    size_t n_keep;
    int fd;
};

static int fd_visit(int fd, void *ctx)
{
    struct fd_visit_ctx *c = ctx;
    int step = fd_step(c->m, c->keep, c->n_keep, fd);
    if (step != SBX_STEP_NONE)
        c->fd = fd;
    return step;
}

int sbx_fds_check(const struct sbx_mask_plan *m, const struct sbx_keep_tree *keep, size_t n_keep,
                  int *sys_errno)
{
    struct fd_visit_ctx c;
    int step;
    c.m = m;
    c.keep = keep;
    c.n_keep = n_keep;
    c.fd = 0;
    step = sbx_fd_each(0, fd_visit, &c);
    *sys_errno = c.fd;
    return step;
}
