/* The hard-link scan: refuse to start when a writable root holds a name of a
 * file that also has a name outside every writable root.
 *
 * Why: Landlock and Seatbelt judge the path a process opens, not the inode.
 * If ~/.bashrc has a second name inside the project, a confined command may
 * write ~/.bashrc through it. A file with st_nlink names of which fewer than
 * st_nlink were found inside the scanned roots has a name elsewhere.
 *
 * Speed: the walk is relative to directory descriptors (openat, fdopendir,
 * fstatat: no path is resolved twice), trusts d_type so only regular files are
 * stat'ed, and only files with st_nlink > 1 enter the hash table, keyed by
 * (st_dev, st_ino). Directories are remembered by (st_dev, st_ino) too, so a
 * root nested in another (or reached twice through a bind mount) is listed
 * once and no name is counted twice: a double count could hide an outside
 * name. Portable POSIX; Windows gets a stub. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* d_type and DT_* (glibc, musl) */
#define _DARWIN_C_SOURCE /* the same on macOS */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32

int sbx_hardlink_scan(const sbx_resolved *r, const sandbox_policy *policy,
                      sandbox_scan_report *report)
{
    (void)r;
    (void)policy;
    return sbx_fail(&report->error, SANDBOX_E_UNSUPPORTED, 0,
                    "the hard-link scan is not available on Windows yet");
}

#else

#  include <dirent.h>
#  include <fcntl.h>
#  include <stdint.h>
#  include <sys/stat.h>
#  include <unistd.h>

/* d_type lets the walk skip stat for everything that is not a regular file
 * or a directory; where a system lacks it every entry is stat'ed. */
#  ifdef DT_UNKNOWN
#    define DIRENT_TYPE(de) ((de)->d_type)
#  else
#    define DT_UNKNOWN 0
#    define DT_DIR 4
#    define DT_REG 8
#    define DIRENT_TYPE(de) DT_UNKNOWN
#  endif
#  ifndef O_DIRECTORY
#    define O_DIRECTORY 0
#  endif
#  ifndef O_CLOEXEC
#    define O_CLOEXEC 0
#  endif

/* The message names at most this many files; report->outside has them all. */
#  define NAMED_IN_MESSAGE 5

struct node {
    uint64_t dev, ino;
    uint64_t nlink;   /* st_nlink when last seen */
    uint64_t count;   /* names found inside the roots */
    char *path;       /* the first inside name (files only) */
    unsigned char used, allowed;
};

struct table {
    struct node *slots;
    size_t cap, n; /* cap is a power of two; n used slots */
};

struct scan {
    struct table files;   /* regular files with st_nlink > 1 */
    struct table dirs;    /* directories already listed */
    struct table allowed; /* allowlisted directories and files, by inode */
    char *path;           /* the directory being listed, absolute */
    size_t len, cap;
    sandbox_scan_report *report;
};

static size_t hash(uint64_t dev, uint64_t ino)
{
    uint64_t h = ino * 0x9E3779B97F4A7C15ull ^ (dev + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ (h >> 29));
}

static int table_grow(struct table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024, i, j;
    struct node *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (i = 0; i < t->cap; i++) {
        if (!t->slots[i].used)
            continue;
        j = hash(t->slots[i].dev, t->slots[i].ino) & (cap - 1);
        while (slots[j].used)
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return 0;
}

/* The node for (dev, ino); created (zeroed, used) when `create`. NULL when
 * absent, or out of memory while creating. *fresh says it was just made. */
static struct node *table_get(struct table *t, uint64_t dev, uint64_t ino, int create, int *fresh)
{
    size_t j;
    *fresh = 0;
    if (t->cap) {
        j = hash(dev, ino) & (t->cap - 1);
        for (; t->slots[j].used; j = (j + 1) & (t->cap - 1))
            if (t->slots[j].ino == ino && t->slots[j].dev == dev)
                return &t->slots[j];
    }
    if (!create)
        return NULL;
    if ((t->n + 1) * 2 > t->cap && table_grow(t) != 0)
        return NULL;
    j = hash(dev, ino) & (t->cap - 1);
    while (t->slots[j].used)
        j = (j + 1) & (t->cap - 1);
    t->slots[j].used = 1;
    t->slots[j].dev = dev;
    t->slots[j].ino = ino;
    t->n++;
    *fresh = 1;
    return &t->slots[j];
}

static void table_free(struct table *t)
{
    size_t i;
    for (i = 0; i < t->cap; i++)
        free(t->slots[i].path);
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static int oom(struct scan *s)
{
    return sbx_fail(&s->report->error, SANDBOX_E_NOMEM, ENOMEM,
                    "out of memory during the hard-link scan");
}

static int cannot_scan(struct scan *s, const char *name, int e)
{
    return sbx_fail(&s->report->error, SANDBOX_E_REFUSED, e,
                    "refusing to start: cannot scan %s%s%s for hard links: %s; fix its "
                    "permissions or keep it out of the writable roots",
                    s->path, name ? "/" : "", name ? name : "", strerror(e));
}

/* Make s->path end in "/name"; returns the previous length to restore. */
static int path_push(struct scan *s, const char *name, size_t *saved)
{
    size_t n = strlen(name), need;
    int slash = !(s->len == 1 && s->path[0] == '/');
    need = s->len + (size_t)slash + n + 1;
    if (need > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        char *grown;
        while (cap < need)
            cap *= 2;
        grown = realloc(s->path, cap);
        if (!grown)
            return -1;
        s->path = grown;
        s->cap = cap;
    }
    *saved = s->len;
    if (slash)
        s->path[s->len++] = '/';
    memcpy(s->path + s->len, name, n + 1);
    s->len += n;
    return 0;
}

/* Make s->path the root itself. */
static int path_set(struct scan *s, const char *root)
{
    size_t n = strlen(root);
    if (n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        char *grown;
        while (cap < n + 1)
            cap *= 2;
        grown = realloc(s->path, cap);
        if (!grown)
            return -1;
        s->path = grown;
        s->cap = cap;
    }
    memcpy(s->path, root, n + 1);
    s->len = n;
    return 0;
}

static void path_pop(struct scan *s, size_t saved)
{
    s->len = saved;
    s->path[saved] = '\0';
}

/* Kernel pseudo-filesystems: never walked, nothing there is a stored file. */
static int is_pseudo_fs(const char *path)
{
    return strcmp(path, "/dev") == 0 || strcmp(path, "/proc") == 0 || strcmp(path, "/sys") == 0;
}

static int walk(struct scan *s, int fd, int allowed_here);

/* Enter the directory opened as `fd` (owned), whose path is s->path. */
static int enter(struct scan *s, int fd, int allowed_here)
{
    struct stat st;
    struct node *n;
    int fresh;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cannot_scan(s, NULL, e);
    }
    n = table_get(&s->dirs, (uint64_t)st.st_dev, (uint64_t)st.st_ino, 1, &fresh);
    if (!n) {
        close(fd);
        return oom(s);
    }
    if (!fresh || is_pseudo_fs(s->path)) {
        close(fd); /* listed already through another root or path */
        return SANDBOX_OK;
    }
    if (!allowed_here && s->allowed.n &&
        table_get(&s->allowed, (uint64_t)st.st_dev, (uint64_t)st.st_ino, 0, &fresh))
        allowed_here = 1;
    return walk(s, fd, allowed_here);
}

static int visit_file(struct scan *s, const char *name, const struct stat *st, int allowed_here)
{
    struct node *n;
    int fresh;
    size_t saved;
    s->report->files++;
    if (st->st_nlink <= 1)
        return SANDBOX_OK; /* the common case: one name, and it is here */
    n = table_get(&s->files, (uint64_t)st->st_dev, (uint64_t)st->st_ino, 1, &fresh);
    if (!n)
        return oom(s);
    n->count++;
    n->nlink = (uint64_t)st->st_nlink;
    if (allowed_here)
        n->allowed = 1;
    if (fresh) {
        if (path_push(s, name, &saved) != 0)
            return oom(s);
        n->path = sbx_strdup(s->path);
        path_pop(s, saved);
        if (!n->path)
            return oom(s);
    }
    return SANDBOX_OK;
}

/* List the directory `fd` (owned: closed here). */
static int walk(struct scan *s, int fd, int allowed_here)
{
    DIR *d = fdopendir(fd);
    struct dirent *de;
    struct stat st;
    int rc = SANDBOX_OK;

    if (!d) {
        int e = errno;
        close(fd);
        return cannot_scan(s, NULL, e);
    }
    s->report->directories++;
    for (;;) {
        const char *name;
        unsigned char type;
        errno = 0;
        de = readdir(d);
        if (!de) {
            if (errno != 0)
                rc = cannot_scan(s, NULL, errno);
            break;
        }
        name = de->d_name;
        if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0')))
            continue;
        type = DIRENT_TYPE(de);
        if (type != DT_DIR && type != DT_REG && type != DT_UNKNOWN)
            continue; /* symlinks, devices, fifos, sockets: no stat needed */
        if (type != DT_DIR) {
            if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT)
                    continue; /* removed while we looked */
                rc = cannot_scan(s, name, errno);
                break;
            }
            if (S_ISREG(st.st_mode)) {
                rc = visit_file(s, name, &st, allowed_here);
                if (rc != SANDBOX_OK)
                    break;
                continue;
            }
            if (!S_ISDIR(st.st_mode))
                continue;
        }
        /* A directory: open it without following a symlink that may have
         * replaced it since readdir. */
        {
            size_t saved;
            int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub < 0) {
                if (errno == ENOENT || errno == ELOOP || errno == ENOTDIR)
                    continue; /* gone, or now a symlink or a file: not followed */
                rc = cannot_scan(s, name, errno);
                break;
            }
            if (path_push(s, name, &saved) != 0) {
                close(sub);
                rc = oom(s);
                break;
            }
            rc = enter(s, sub, allowed_here);
            path_pop(s, saved);
            if (rc != SANDBOX_OK)
                break;
        }
    }
    closedir(d);
    return rc;
}

/* The allowlist by inode: a file's (dev, ino), or a directory's. lstat: an
 * entry names the link itself, never what a symlink points to. */
static int load_allowlist(struct scan *s, const sandbox_policy *p)
{
    size_t i;
    struct stat st;
    int fresh;
    for (i = 0; i < p->n_allow_links; i++) {
        if (lstat(p->allow_links[i], &st) != 0)
            continue; /* a path that does not exist allows nothing */
        if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            continue;
        if (!table_get(&s->allowed, (uint64_t)st.st_dev, (uint64_t)st.st_ino, 1, &fresh))
            return oom(s);
    }
    return SANDBOX_OK;
}

static int compare_paths(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Collect the files with an outside name; build the refusal. */
static int conclude(struct scan *s)
{
    sandbox_scan_report *rep = s->report;
    size_t i, k = 0, named;
    int fresh;
    sbx_buf msg;

    for (i = 0; i < s->files.cap; i++) {
        struct node *n = &s->files.slots[i];
        if (!n->used || n->count >= n->nlink)
            continue;
        if (n->allowed || (s->allowed.n && table_get(&s->allowed, n->dev, n->ino, 0, &fresh)))
            rep->n_allowed++;
        else
            rep->n_outside++;
    }
    if (!rep->n_outside)
        return SANDBOX_OK;
    rep->outside = calloc(rep->n_outside + 1, sizeof *rep->outside);
    if (!rep->outside) {
        rep->n_outside = 0;
        return oom(s);
    }
    for (i = 0; i < s->files.cap; i++) {
        struct node *n = &s->files.slots[i];
        if (!n->used || n->count >= n->nlink || n->allowed ||
            (s->allowed.n && table_get(&s->allowed, n->dev, n->ino, 0, &fresh)))
            continue;
        rep->outside[k++] = n->path; /* ownership moves to the report */
        n->path = NULL;
    }
    qsort(rep->outside, k, sizeof *rep->outside, compare_paths);

    sbx_buf_init(&msg);
    sbx_buf_printf(&msg, "refusing to start: %zu file%s in the writable roots %s hard-linked to a "
                         "name outside them, so a write here would change that file: ",
                   k, k == 1 ? "" : "s", k == 1 ? "is" : "are");
    named = k < NAMED_IN_MESSAGE ? k : NAMED_IN_MESSAGE;
    for (i = 0; i < named; i++)
        sbx_buf_printf(&msg, "%s%s", i ? ", " : "", rep->outside[i]);
    if (k > named)
        sbx_buf_printf(&msg, " and %zu more", k - named);
    sbx_buf_add(&msg, "; remove the links or allow them (--allow-hardlink PATH)");
    sbx_fail(&rep->error, SANDBOX_E_REFUSED, 0, "%s",
             msg.oom || !msg.data ? "refusing to start: outside hard links" : msg.data);
    sbx_buf_free(&msg);
    return SANDBOX_E_REFUSED;
}

int sbx_hardlink_scan(const sbx_resolved *r, const sandbox_policy *policy,
                      sandbox_scan_report *report)
{
    struct scan s;
    size_t i;
    int rc = SANDBOX_OK;

    memset(&s, 0, sizeof s);
    s.report = report;
    rc = load_allowlist(&s, policy);
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++) {
        const char *root = r->roots[i].path;
        int fd;
        if (!sbx_root_is_scanned(&r->roots[i]) || is_pseudo_fs(root))
            continue;
        if (path_set(&s, root) != 0) {
            rc = oom(&s);
            break;
        }
        /* The root itself is opened following symlinks, as the enforcers do. */
        fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT)
                continue; /* nothing can be linked into a directory that is not there */
            rc = cannot_scan(&s, NULL, errno);
            break;
        }
        rc = enter(&s, fd, 0);
    }
    if (rc == SANDBOX_OK)
        rc = conclude(&s);
    table_free(&s.files);
    table_free(&s.dirs);
    table_free(&s.allowed);
    free(s.path);
    return rc;
}

#endif
