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
 * name. Portable POSIX; Windows gets a stub.
 *
 * The pre-flight index (src/scanindex.h): a clean answer is stored with
 * every input it came from (each directory listed, each root, each
 * allowlist entry, each file with several links) and reused while all of
 * them hold. Every input of this scan must be reported to it; one that is
 * not would let a stale answer through. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* d_type and DT_* (glibc, musl) */
#define _DARWIN_C_SOURCE /* the same on macOS */
#include "internal.h"
#include "scanindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int sbx_hardlink_wanted(const sandbox_policy *policy)
{
    return policy->scan_hardlinks && policy->filesystem == SANDBOX_FS_CONFINED;
}

int sbx_hardlink_preflight(const sbx_resolved *r, const sandbox_policy *policy,
                           sandbox_error *err)
{
    sandbox_scan_report rep;
    int rc;
    memset(&rep, 0, sizeof rep);
    rc = sbx_hardlink_scan(r, policy, &rep);
    if (rc != SANDBOX_OK && err)
        *err = rep.error;
    sandbox_scan_report_clear(&rep);
    return rc;
}

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
#  include <stdio.h>
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
#  define COUNT_STORE 1
#  define COUNT_ORIGIN 2

struct node {
    uint64_t dev, ino;
    uint64_t nlink;   /* st_nlink when last seen */
    uint64_t count;   /* names found inside the roots (and a pnpm store) */
    uint64_t origin;  /* names found in a clone's origin objects */
    char *path;       /* the first inside name (files only) */
    unsigned char used, allowed;
    unsigned char writable; /* an inside name is not write-protected */
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
    struct sbx_index *ix; /* records what the answer depends on, or NULL */
    const sbx_resolved *r;
    /* Counting the other names of files already found, in a pnpm store
     * (COUNT_STORE) or a clone's origin objects (COUNT_ORIGIN): no new file
     * enters the table then. */
    int counting;
    uint64_t dir_dev;     /* st_dev of the directory being listed */
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
    struct timespec before;
    struct node *n;
    int fresh;
    sbx_index_clock(&before);
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cannot_scan(s, NULL, e);
    }
    /* Stamped before it is listed: a change after this stat shows. Also a
     * directory listed already under another path, since this path could
     * later lead elsewhere (a mount). */
    sbx_index_dir(s->ix, s->path, fd, &st, &before);
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
    s->dir_dev = (uint64_t)st.st_dev;
    return walk(s, fd, allowed_here);
}

/* Is the name s->path + "/" + name write-protected for the command (the
 * default .git protection, read-only on every platform that enforces
 * protection)? Only files with several names ask. */
static int write_protected(struct scan *s, const char *name, int *no_mem)
{
    size_t saved;
    int k;
    *no_mem = 0;
    if (!s->r || s->r->n_protect == 0)
        return 0;
    if (path_push(s, name, &saved) != 0) {
        *no_mem = 1;
        return 0;
    }
    k = sbx_protect_match(s->r->protect, s->r->n_protect, s->path, 0);
    path_pop(s, saved);
    return k >= 0;
}

static int visit_file(struct scan *s, const char *name, const struct stat *st, int allowed_here)
{
    struct node *n;
    int fresh, no_mem = 0;
    size_t saved;
    if (!s->counting)
        s->report->files++;
    if (st->st_nlink <= 1)
        return SANDBOX_OK; /* the common case: one name, and it is here */
    if (s->counting) {
        /* Another name of a file the roots hold; each name counts once
         * (the directory table lists a store inside a root only once). */
        n = table_get(&s->files, (uint64_t)st->st_dev, (uint64_t)st->st_ino, 0, &fresh);
        if (n && s->counting == COUNT_STORE && n->count + n->origin < n->nlink)
            n->count++;
        else if (n && s->counting == COUNT_ORIGIN && n->count + n->origin < n->nlink)
            n->origin++;
        return SANDBOX_OK;
    }
    n = table_get(&s->files, (uint64_t)st->st_dev, (uint64_t)st->st_ino, 1, &fresh);
    if (!n)
        return oom(s);
    n->count++;
    n->nlink = (uint64_t)st->st_nlink;
    if (allowed_here)
        n->allowed = 1;
    if (!n->writable && !write_protected(s, name, &no_mem) && !no_mem)
        n->writable = 1;
    if (no_mem)
        return oom(s);
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
        /* Counting: a store holds every package's files; only the inodes
         * the roots miss names of are stat'ed (a file that is no mount
         * point has its directory's device). */
        if (s->counting && type == DT_REG) {
            int fresh;
            if (!table_get(&s->files, s->dir_dev, (uint64_t)de->d_ino, 0, &fresh))
                continue;
        }
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
            {
                struct stat here;
                if (fstat(dirfd(d), &here) == 0)
                    s->dir_dev = (uint64_t)here.st_dev;
            }
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
        sbx_index_file(s->ix, p->allow_links[i], 0, 0);
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

/* A file whose every name is inside the roots, or (build class) in the
 * pnpm store, or whose inside names are all write-protected and whose
 * other names are in its clone's origin objects: nothing outside the roots
 * changes through it. */
static int has_outside_name(const struct node *n)
{
    return n->count + (n->writable ? 0 : n->origin) < n->nlink;
}

/* Where refused names come from, in a hint a person can act on. */
static void hint_for(sbx_buf *msg, char *const *paths, size_t k)
{
    size_t i;
    int git = 0, pnpm = 0;
    for (i = 0; i < k; i++) {
        git |= strstr(paths[i], "/.git/objects/") != NULL;
        pnpm |= strstr(paths[i], "/node_modules/.pnpm/") != NULL;
    }
    if (git)
        sbx_buf_add(msg, "; a local `git clone` hard-links the origin's objects: clone with "
                         "--no-hardlinks, or keep .git read-only (--protect-secrets) and they "
                         "are accepted");
    if (pnpm)
        sbx_buf_add(msg, "; pnpm hard-links packages from its store, accepted with --class build "
                         "only while no other project shares the file: set pnpm's "
                         "package-import-method to copy, or allow the folder");
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
        if (!n->used || !has_outside_name(n))
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
        if (!n->used || !has_outside_name(n) || n->allowed ||
            (s->allowed.n && table_get(&s->allowed, n->dev, n->ino, 0, &fresh)))
            continue;
        rep->outside[k++] = n->path; /* ownership moves to the report */
        n->path = NULL;
    }
    qsort(rep->outside, k, sizeof *rep->outside, compare_paths);

    /* The names last: a message too long for the error is cut in the list,
     * never in what to do. */
    sbx_buf_init(&msg);
    sbx_buf_printf(&msg, "refusing to start: %zu file%s in the writable roots %s hard-linked to a "
                         "name outside them, so a write here would change that file",
                   k, k == 1 ? "" : "s", k == 1 ? "is" : "are");
    hint_for(&msg, rep->outside, k);
    sbx_buf_add(&msg, "; remove the links or allow them (--allow-hardlink PATH): ");
    named = k < NAMED_IN_MESSAGE ? k : NAMED_IN_MESSAGE;
    for (i = 0; i < named; i++)
        sbx_buf_printf(&msg, "%s%s", i ? ", " : "", rep->outside[i]);
    if (k > named)
        sbx_buf_printf(&msg, " and %zu more", k - named);
    sbx_fail(&rep->error, SANDBOX_E_REFUSED, 0, "%s",
             msg.oom || !msg.data ? "refusing to start: outside hard links" : msg.data);
    sbx_buf_free(&msg);
    return SANDBOX_E_REFUSED;
}

/* The question the index keys this scan by: the scanned roots and the
 * allowlist, as given. */
static void index_key(const sbx_resolved *r, const sandbox_policy *policy, struct sbx_bytes *k)
{
    size_t i;
    sbx_bytes_str(k, "hard-link scan");
    for (i = 0; i < r->n_roots; i++)
        if (sbx_root_is_scanned(&r->roots[i]) && !is_pseudo_fs(r->roots[i].path))
            sbx_bytes_str(k, r->roots[i].path);
    sbx_bytes_u64(k, policy->n_allow_links);
    for (i = 0; i < policy->n_allow_links; i++)
        sbx_bytes_str(k, policy->allow_links[i]);
}

/* A clean answer, with the files whose link counts it relied on. */
static void index_commit(struct scan *s)
{
    struct sbx_bytes *out = sbx_index_payload(s->ix);
    size_t i;
    if (!out)
        return;
    /* A new name outside for one of these changes only its link count. */
    for (i = 0; i < s->files.cap; i++)
        if (s->files.slots[i].used && s->files.slots[i].path)
            sbx_index_file(s->ix, s->files.slots[i].path, 0, 1);
    sbx_bytes_u64(out, s->report->files);
    sbx_bytes_u64(out, s->report->directories);
    sbx_bytes_u64(out, s->report->n_allowed);
    sbx_index_commit(s->ix);
}

/* Any file still short of names that no allowance covers? */
static int any_pending(struct scan *s)
{
    size_t i;
    int fresh;
    for (i = 0; i < s->files.cap; i++) {
        const struct node *n = &s->files.slots[i];
        if (n->used && has_outside_name(n) && !n->allowed &&
            !(s->allowed.n && table_get(&s->allowed, n->dev, n->ino, 0, &fresh)))
            return 1;
    }
    return 0;
}

/* Count, in mode `how`, the other names found in the tree `dir` (its last
 * component is not followed if it is a symlink). A tree that cannot be
 * listed counts nothing: its files stay refused. */
static int count_in(struct scan *s, const char *dir, int how)
{
    sandbox_error keep = s->report->error;
    int fd, rc;
    fd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return SANDBOX_OK;
    if (path_set(s, dir) != 0) {
        close(fd);
        return oom(s);
    }
    s->counting = how;
    rc = enter(s, fd, 0);
    s->counting = 0;
    if (rc == SANDBOX_E_REFUSED) {
        s->report->error = keep; /* unlistable: what it would have counted is not */
        rc = SANDBOX_OK;
    }
    return rc;
}

/* 1 when `path` is, lies in or holds a protected path of the resolution. */
static int is_protected(const sbx_resolved *r, const char *path)
{
    size_t i;
    if (sbx_protect_match(r->protect, r->n_protect, path, 0) >= 0)
        return 1;
    for (i = 0; i < r->n_protect_home; i++)
        if (sbx_path_within(r->target, path, r->protect_home[i].pattern) ||
            sbx_path_within(r->target, r->protect_home[i].pattern, path))
            return 1;
    return 0;
}

/* Spec 004, the build class: pnpm hard-links every package file from its
 * store into node_modules/.pnpm. The store is a writable root of the class,
 * so a file whose every other name is there changes nothing outside the
 * roots: its store names are counted. Only a store that is a real
 * directory (no symlink) with pnpm's v<N> layout, with no protected path in
 * or around it; each name once. */
static int count_pnpm_stores(struct scan *s)
{
    const sbx_resolved *r = s->r;
    size_t i;
    int rc = SANDBOX_OK;
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++) {
        const char *store = r->roots[i].path;
        char sub[4096];
        struct stat st;
        struct dirent *de;
        DIR *d;
        if (r->klass != SANDBOX_CLASS_BUILD || !r->roots[i].pnpm_store ||
            lstat(store, &st) != 0 || !S_ISDIR(st.st_mode) || is_protected(r, store))
            continue;
        d = opendir(store);
        while (d && rc == SANDBOX_OK && (de = readdir(d)) != NULL) {
            const char *v = de->d_name;
            size_t j;
            if (v[0] != 'v' || !v[1])
                continue;
            for (j = 1; v[j] >= '0' && v[j] <= '9'; j++)
                ;
            if (v[j] || (size_t)snprintf(sub, sizeof sub, "%s/%s", store, v) >= sizeof sub ||
                lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
                continue;
            rc = count_in(s, sub, COUNT_STORE);
        }
        if (d)
            closedir(d);
    }
    return rc;
}

/* The origin a clone's .git/config names (`[remote "origin"]`, `url =`),
 * when it is a local absolute path or a file:// URL: 1, and its objects
 * directory in `out`. Anything this reader does not follow means none. */
static int origin_objects(const char *root, char *out, size_t size)
{
    char cfg[4096], line[4096], url[4096] = "";
    int in_origin = 0;
    struct stat st;
    FILE *f;
    if ((size_t)snprintf(cfg, sizeof cfg, "%s/.git/config", root) >= sizeof cfg ||
        !(f = fopen(cfg, "re")))
        return 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line, *e;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '[') {
            in_origin = strncmp(p, "[remote \"origin\"]", 17) == 0;
            continue;
        }
        if (!in_origin || strncmp(p, "url", 3) != 0)
            continue;
        for (p += 3; *p == ' ' || *p == '\t'; p++)
            ;
        if (*p++ != '=')
            continue;
        while (*p == ' ' || *p == '\t')
            p++;
        for (e = p + strlen(p); e > p && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '); e--)
            ;
        *e = '\0';
        if (strncmp(p, "file://", 7) == 0)
            p += 7;
        snprintf(url, sizeof url, "%s", p);
    }
    fclose(f);
    if (url[0] != '/' || strpbrk(url, "\"\\"))
        return 0;
    if ((size_t)snprintf(out, size, "%s/.git/objects", url) < size && lstat(out, &st) == 0 &&
        S_ISDIR(st.st_mode))
        return 1;
    return (size_t)snprintf(out, size, "%s/objects", url) < size && lstat(out, &st) == 0 &&
           S_ISDIR(st.st_mode);
}

/* A local `git clone` hard-links the origin's object files into the new
 * .git/objects. Where every inside name of such a file is write-protected
 * (the default .git protection: a write through it is refused, so nothing
 * reaches the origin) its names in the origin's objects count as well
 * (has_outside_name); a writable .git keeps them refused. */
static int count_git_origins(struct scan *s)
{
    const sbx_resolved *r = s->r;
    char objects[4200];
    size_t i;
    int rc = SANDBOX_OK;
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++) {
        int k = r->roots[i].kind;
        if ((k == SBX_ROOT_PROJECT || k == SBX_ROOT_ADDED || k == SBX_ROOT_WORKDIR) &&
            origin_objects(r->roots[i].path, objects, sizeof objects))
            rc = count_in(s, objects, COUNT_ORIGIN);
    }
    return rc;
}

int sbx_hardlink_scan(const sbx_resolved *r, const sandbox_policy *policy,
                      sandbox_scan_report *report)
{
    struct scan s;
    struct sbx_bytes key = {NULL, 0, 0, 0};
    struct sbx_cursor c;
    size_t i;
    int rc = SANDBOX_OK, counted = 0;

    memset(&s, 0, sizeof s);
    s.report = report;
    s.r = r;
    index_key(r, policy, &key);
    s.ix = sbx_index_begin(r, SBX_INDEX_LINKS, &key);
    sbx_bytes_free(&key);
    if (sbx_index_valid(s.ix, &c)) {
        report->files = sbx_cursor_u64(&c);
        report->directories = sbx_cursor_u64(&c);
        report->n_allowed = (size_t)sbx_cursor_u64(&c);
        if (!c.bad) {
            sbx_index_end(s.ix);
            return SANDBOX_OK;
        }
        /* A stored answer we cannot read: scan (nothing is recorded). */
        report->files = report->directories = 0;
        report->n_allowed = 0;
        sbx_index_end(s.ix);
        s.ix = NULL;
    }
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
        sbx_index_tree(s.ix, root);
        /* The root itself is opened following symlinks, as the enforcers do. */
        fd = openat(AT_FDCWD, root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT) {
                sbx_index_absent(s.ix, root);
                continue; /* nothing can be linked into a directory that is not there */
            }
            rc = cannot_scan(&s, NULL, errno);
            break;
        }
        rc = enter(&s, fd, 0);
    }
    /* Only when the roots hold files short of names: no walk otherwise. */
    if (rc == SANDBOX_OK && any_pending(&s)) {
        /* What the counting reads (the class, a store's layout, a clone's
         * config, the protected patterns that decide `writable`) is in no
         * key: an answer that needed it is not kept. */
        counted = 1;
        rc = count_pnpm_stores(&s);
    }
    if (rc == SANDBOX_OK && any_pending(&s))
        rc = count_git_origins(&s);
    if (rc == SANDBOX_OK)
        rc = conclude(&s);
    /* Only a clean answer is kept: a refusal is rare, and its message
     * lists the files, which the full scan gives. */
    if (rc == SANDBOX_OK && !counted)
        index_commit(&s);
    sbx_index_end(s.ix);
    table_free(&s.files);
    table_free(&s.dirs);
    table_free(&s.allowed);
    free(s.path);
    return rc;
}

#endif
