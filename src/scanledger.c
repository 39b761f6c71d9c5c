/* The ledger of writable roots, and the rule that keeps the index
 * directory out of every launch's reach.
 *
 * Why a ledger: a hard link made by a sandboxed command gives a file of the
 * project a second name in another writable root of that launch (ln
 * proj/x ~/.cache/x under --writable-caches). That changes the file's link
 * count and the other root, never a directory of the project, so the
 * project's hard-link index would not see it; yet for a later launch
 * without that root the link leads outside. So every confined launch writes
 * down its writable roots, before its command runs, in the ledger of this
 * boot (its leftovers may act at any time until the machine restarts); and
 * the hard-link index is used only while no launch of this boot had a root
 * that the current one lacks, on a file system of the index's trees,
 * together with a root that reaches those trees (sbx_ledger_quiet).
 *
 * Files, in the index directory: ledger-BOOT (entries appended, each with
 * its checksum), w-BOOT-HASH (empty: "this set of roots is in the
 * ledger", so a launch whose roots are known costs one stat), tainted-BOOT
 * (a launch could not write itself down: no hard-link index this boot). */
#define _GNU_SOURCE
#include "scanindex.h"

#if !defined(__linux__)

int sbx_ledger_note(const sbx_resolved *r, char *warning, size_t warning_size,
                    sandbox_error *err)
{
    (void)r;
    (void)warning;
    (void)warning_size;
    (void)err;
    return SANDBOX_OK;
}

int sbx_ledger_quiet(int dirfd, const char *boot, const sbx_resolved *r,
                     const struct sbx_ledger_trees *trees)
{
    (void)dirfd;
    (void)boot;
    (void)r;
    (void)trees;
    return 0;
}

#else

#  include <errno.h>
#  include <fcntl.h>
#  include <limits.h>
#  include <stdio.h>
#  include <stdlib.h>
#  include <string.h>
#  include <sys/stat.h>
#  include <unistd.h>

#  define ENTRY_MAGIC 0x5342584C45444732ull /* "SBXLEDG2" */
#  define UNKNOWN_BIRTH UINT64_MAX

/* A directory is known by its identity and its birth time
 * (sbx_index_identity): an inode number is reused once the directory is
 * gone, and a ledger entry may outlive the directory it names. (While a
 * launch runs, Landlock holds its roots' inodes, so a live entry never
 * shares an identity with another directory; the birth time tells a dead
 * one's apart.) */
static int identity(const char *path, uint64_t id[4])
{
    return sbx_index_identity(path, 1, id);
}

/* The same directory, or one that cannot be told apart from it. */
static int same_birth(const uint64_t a[2], const uint64_t b[2])
{
    return a[0] == UNKNOWN_BIRTH || b[0] == UNKNOWN_BIRTH || (a[0] == b[0] && a[1] == b[1]);
}
#  define LEDGER_MAX_BYTES ((size_t)16 << 20)

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (; n > 0; n--, s++)
        h = (h ^ *s) * 0x100000001B3ull;
    return h;
}

/* The boot id without dashes: a file-name-safe tag. */
static void boot_tag(const char *boot, char out[40])
{
    size_t i, j = 0;
    for (i = 0; boot[i] && j < 39; i++)
        if (boot[i] != '-')
            out[j++] = boot[i];
    out[j] = '\0';
}

/* Is `path` equal to `dir` or beneath it (both canonical)? */
static int at_or_beneath(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Is the root at `path` (canonical) the directory (dev, ino) or beneath
 * it? By identity, of the root and of each folder on its path: a bind
 * mount gives the index directory other names (mount --bind ~ /mnt/h makes
 * /mnt/h/.libsandbox it), which no comparison of paths sees. 1 yes, 0 no,
 * -1 cannot tell. */
static int root_reaches(const char *path, dev_t dev, ino_t ino)
{
    char *p = sbx_strdup(path), *s;
    struct stat st;
    int rc = 0;
    if (!p)
        return -1;
    for (;;) {
        if (stat(p, &st) != 0) {
            rc = errno == ENOENT ? 0 : -1; /* Landlock cannot grant what does not exist */
            break;
        }
        if (st.st_dev == dev && st.st_ino == ino) {
            rc = 1;
            break;
        }
        s = strrchr(p, '/');
        if (!s || s == p)
            break; /* up to, not including, "/": the index directory is never "/" */
        *s = '\0';
    }
    free(p);
    return rc;
}

int sbx_ledger_note(const sbx_resolved *r, char *warning, size_t warning_size,
                    sandbox_error *err)
{
    char *dir, *real, tag[40], boot[40], name[96];
    struct sbx_bytes e = {NULL, 0, 0, 0};
    struct stat st;
    uint64_t h = 0xCBF29CE484222325ull, n_roots = 0;
    size_t i;
    int dirfd, fd, ok = 0;

    /* Only confined writes are confined to roots; a read-only command
     * writes nothing, an unconfined one could write anything anyway
     * (docs/protected-paths.md says what that leaves). */
    if (r->filesystem != SANDBOX_FS_CONFINED)
        return SANDBOX_OK;
    dir = sbx_index_home(r);
    if (!dir)
        return SANDBOX_OK; /* no index directory: no index can mislead anyone */
    /* A root at or beneath the index directory would let the command write
     * the index of every later launch. Its parent is a home, which no root
     * may be or contain (resolve.c). When the directory does not exist yet,
     * no root can be it or lie in it. A root whose folders cannot all be
     * looked at is refused too: in doubt, never a root that might reach it. */
    real = realpath(dir, NULL);
    if (real && stat(real, &st) != 0) {
        free(real);
        real = NULL;
    }
    for (i = 0; real && i < r->n_roots; i++) {
        int reach = root_reaches(r->roots[i].path, st.st_dev, st.st_ino);
        if (reach != 0) {
            int rc = sbx_fail(err, SANDBOX_E_PATH, 0,
                              "refusing to make %s writable: %s the sandbox's own index "
                              "directory %s, which records what earlier pre-flight scans found, "
                              "and a command that could write it could hide secrets and hard "
                              "links from later launches; name another directory",
                              r->roots[i].path,
                              reach < 0 ? "its folders cannot be checked against"
                                        : "it is, or lies inside (under some name),",
                              real);
            free(real);
            free(dir);
            return rc;
        }
    }
    free(real);
    dirfd = sbx_index_open_dir(dir);
    free(dir);
    if (dirfd < 0 || sbx_index_boot_id(boot) != 0) {
        if (dirfd >= 0)
            close(dirfd);
        return SANDBOX_OK; /* no index directory can be used: none is read either */
    }
    boot_tag(boot, tag);
    for (i = 0; i < r->n_roots; i++)
        h = fnv(r->roots[i].path, strlen(r->roots[i].path) + 1, h);
    snprintf(name, sizeof name, "w-%s-%016llx", tag, (unsigned long long)h);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        close(dirfd);
        return SANDBOX_OK; /* this set of roots is in the ledger already */
    }
    /* The entry: each root that exists, by path and identity. */
    sbx_bytes_u64(&e, ENTRY_MAGIC);
    sbx_bytes_u64(&e, 0); /* n_roots, filled in below */
    for (i = 0; i < r->n_roots; i++) {
        uint64_t id[4];
        if (identity(r->roots[i].path, id) != 0)
            continue; /* Landlock cannot grant what does not exist */
        sbx_bytes_u64(&e, id[0]);
        sbx_bytes_u64(&e, id[1]);
        sbx_bytes_u64(&e, id[2]);
        sbx_bytes_u64(&e, id[3]);
        sbx_bytes_str(&e, r->roots[i].path);
        n_roots++;
    }
    if (!e.oom) {
        uint64_t sum;
        memcpy(e.data + 8, &n_roots, 8);
        sum = fnv(e.data, e.len, 0xCBF29CE484222325ull);
        sbx_bytes_u64(&e, sum);
    }
    snprintf(name, sizeof name, "ledger-%s", tag);
    fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0 && !e.oom && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_uid == geteuid() && st.st_nlink == 1) {
        /* One write with O_APPEND: concurrent launches never interleave
         * inside an entry (a reader may still see the last one half
         * written, and counts it as a launch it cannot vouch for). */
        ok = write(fd, e.data, e.len) == (ssize_t)e.len;
    }
    if (fd >= 0)
        close(fd);
    if (ok) {
        snprintf(name, sizeof name, "w-%s-%016llx", tag, (unsigned long long)h);
        fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
    } else {
        /* Not written down: no hard-link index may be trusted this boot. */
        snprintf(name, sizeof name, "tainted-%s", tag);
        fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            close(fd);
        else
            sbx_warn(warning, warning_size,
                     "the pre-flight index cannot record this launch (%s); a hard link its "
                     "command makes into a root other launches lack is not seen by their index: "
                     "free space or remove the index directory",
                     strerror(errno));
    }
    sbx_bytes_free(&e);
    close(dirfd);
    return SANDBOX_OK;
}

/* The ledger, whole. */
static unsigned char *read_ledger(int dirfd, const char *tag, size_t *len)
{
    char name[64];
    struct stat st;
    unsigned char *buf;
    size_t got = 0;
    int fd;
    snprintf(name, sizeof name, "ledger-%s", tag);
    fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022) || st.st_nlink != 1 || (uint64_t)st.st_size > LEDGER_MAX_BYTES ||
        !(buf = malloc((size_t)st.st_size + 1))) {
        close(fd);
        return NULL;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    *len = got;
    return buf;
}

/* The roots of this launch and the directories above its scanned ones, by
 * identity, computed once. */
struct here {
    const sbx_resolved *r;
    int ready;
    uint64_t *roots;  /* (dev, ino) per root, UINT64_MAX when missing */
    uint64_t *above;  /* (dev, ino, birth sec, birth nsec): every ancestor of every scanned root */
    size_t n_above;
    const struct sbx_ledger_trees *trees;
};

static int here_ready(struct here *h)
{
    const sbx_resolved *r = h->r;
    struct stat st;
    size_t i, cap = 0;
    if (h->ready)
        return h->ready > 0;
    h->ready = -1;
    h->roots = malloc((r->n_roots ? r->n_roots : 1) * 2 * sizeof *h->roots);
    if (!h->roots)
        return 0;
    for (i = 0; i < r->n_roots; i++) {
        int ok = stat(r->roots[i].path, &st) == 0;
        h->roots[2 * i] = ok ? (uint64_t)st.st_dev : UINT64_MAX;
        h->roots[2 * i + 1] = ok ? (uint64_t)st.st_ino : UINT64_MAX;
        if (!sbx_root_is_scanned(&r->roots[i]))
            continue;
        {
            char buf[PATH_MAX], *slash;
            if (strlen(r->roots[i].path) >= sizeof buf)
                return 0;
            strcpy(buf, r->roots[i].path);
            for (;;) {
                uint64_t id[4];
                if (identity(buf[0] ? buf : "/", id) == 0) {
                    if (h->n_above + 4 > cap) {
                        size_t c2 = cap ? cap * 2 : 64;
                        uint64_t *g = realloc(h->above, c2 * sizeof *g);
                        if (!g)
                            return 0;
                        h->above = g;
                        cap = c2;
                    }
                    memcpy(h->above + h->n_above, id, sizeof id);
                    h->n_above += 4;
                }
                if (!buf[0])
                    break;
                slash = strrchr(buf, '/');
                if (!slash)
                    break;
                *slash = '\0';
            }
        }
    }
    h->n_above /= 4;
    h->ready = 1;
    return 1;
}

/* Could this launch write the root (dev, ino) that an earlier launch had at
 * `path`? Yes when it is one of our roots, or lies beneath one and is still
 * that directory. */
static int covered(struct here *h, uint64_t dev, uint64_t ino, const char *path)
{
    const sbx_resolved *r = h->r;
    struct stat st;
    size_t i;
    for (i = 0; i < r->n_roots; i++)
        if (h->roots[2 * i] == dev && h->roots[2 * i + 1] == ino)
            return 1;
    for (i = 0; i < r->n_roots; i++)
        if (at_or_beneath(path, r->roots[i].path))
            return stat(path, &st) == 0 && (uint64_t)st.st_dev == dev &&
                   (uint64_t)st.st_ino == ino;
    return 0;
}

/* Could a root with this identity and birth reach an inode of the index's
 * trees: is it a directory of the trees, or above a scanned root? */
static int reaches(struct here *h, uint64_t dev, uint64_t ino, const uint64_t born[2])
{
    size_t i;
    if (h->trees->has_dir(h->trees->ctx, dev, ino, born))
        return 1;
    for (i = 0; i < h->n_above; i++)
        if (h->above[4 * i] == dev && h->above[4 * i + 1] == ino && same_birth(born, h->above + 4 * i + 2))
            return 1;
    return 0;
}

int sbx_ledger_quiet(int dirfd, const char *boot, const sbx_resolved *r,
                     const struct sbx_ledger_trees *trees)
{
    char tag[40], name[64];
    struct stat st;
    struct here h;
    unsigned char *buf;
    size_t len = 0, off = 0;
    int quiet = 1;

    boot_tag(boot, tag);
    snprintf(name, sizeof name, "tainted-%s", tag);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    /* Our own launch wrote itself down before this check (sbx_ledger_note):
     * a missing ledger is one we cannot account for. */
    buf = read_ledger(dirfd, tag, &len);
    if (!buf)
        return 0;
    memset(&h, 0, sizeof h);
    h.r = r;
    h.trees = trees;
    if (!here_ready(&h))
        quiet = 0;
    while (quiet && off < len) {
        struct sbx_cursor c, roots;
        uint64_t magic, n, i, sum;
        const unsigned char *start = buf + off;
        int foreign = 0, reach = 0;
        c.p = start;
        c.end = buf + len;
        c.bad = 0;
        magic = sbx_cursor_u64(&c);
        n = sbx_cursor_u64(&c);
        if (c.bad || magic != ENTRY_MAGIC || n > 4096) {
            quiet = 0; /* torn, or not ours: an unknown launch */
            break;
        }
        /* First: could that launch write a place we cannot, on one of our
         * file systems? Most entries stop here (our own roots, other
         * projects on the same policy). */
        roots = c;
        for (i = 0; i < n && !c.bad; i++) {
            uint64_t dev = sbx_cursor_u64(&c), ino = sbx_cursor_u64(&c);
            const char *path;
            (void)sbx_cursor_u64(&c);
            (void)sbx_cursor_u64(&c);
            path = sbx_cursor_str(&c);
            if (!c.bad && !covered(&h, dev, ino, path) && trees->on_dev(trees->ctx, dev))
                foreign = 1;
        }
        sum = fnv(start, (size_t)(c.p - start), 0xCBF29CE484222325ull);
        if (c.bad || sbx_cursor_u64(&c) != sum || c.bad) {
            quiet = 0;
            break;
        }
        /* Then: could it also write our files? A link between the two may
         * exist now or appear later (its leftovers). */
        for (i = 0; foreign && !reach && i < n; i++) {
            uint64_t dev = sbx_cursor_u64(&roots), ino = sbx_cursor_u64(&roots), born[2];
            born[0] = sbx_cursor_u64(&roots);
            born[1] = sbx_cursor_u64(&roots);
            (void)sbx_cursor_str(&roots);
            if (reaches(&h, dev, ino, born))
                reach = 1;
        }
        if (foreign && reach)
            quiet = 0;
        off = (size_t)(c.p - buf);
    }
    free(buf);
    free(h.roots);
    free(h.above);
    return quiet;
}

#endif
