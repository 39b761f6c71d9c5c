/* The pre-flight scan index: store, record and check what a full scan saw
 * (src/scanindex.h says how a scan uses it; docs/protected-paths.md, "The
 * scan index", has the argument for each kind of change).
 *
 * One file per question (kind and key) in a directory of the user's own
 * that no sandboxed command may write (scanledger.c refuses every launch
 * whose writable roots would reach it). The file holds:
 *   - the question (key), this boot's id and the offset between the wall
 *     clock and the boot clock (a step of the clock makes old stamps
 *     untrustworthy);
 *   - records: every directory listed, by (dev, ino, mode, owner, link
 *     count, size, mtime, ctime), relative to its tree's root; every path
 *     that was missing; every symlink whose target decided something, and,
 *     unless its resolution never left its tree, where it led; every other
 *     file whose identity or link count was used;
 *   - the answer (payload), opaque here;
 *   - a checksum over all of it.
 * It is written to a temporary name and renamed into place. A reader trusts
 * it only when every record still holds; anything else (missing, torn,
 * corrupt, another boot, another key, a record that fails) means a full scan.
 *
 * Linux only: elsewhere sbx_index_begin returns NULL and every scan is a
 * full one. */
#define _GNU_SOURCE
#include "scanindex.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- bytes and cursors (every platform) ---- */

static int bytes_reserve(struct sbx_bytes *b, size_t n)
{
    size_t cap;
    unsigned char *d;
    if (b->oom)
        return -1;
    if (b->len + n <= b->cap)
        return 0;
    for (cap = b->cap ? b->cap : 256; cap < b->len + n; cap *= 2)
        if (cap > ((size_t)-1) / 4) {
            b->oom = 1;
            return -1;
        }
    d = realloc(b->data, cap);
    if (!d) {
        b->oom = 1;
        return -1;
    }
    b->data = d;
    b->cap = cap;
    return 0;
}

static void bytes_add(struct sbx_bytes *b, const void *p, size_t n)
{
    if (n == 0 || bytes_reserve(b, n) != 0)
        return;
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void sbx_bytes_u64(struct sbx_bytes *b, uint64_t v)
{
    bytes_add(b, &v, sizeof v);
}

void sbx_bytes_str(struct sbx_bytes *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    sbx_bytes_u64(b, n);
    bytes_add(b, s ? s : "", n + 1); /* the NUL too: read back in place */
}

void sbx_bytes_free(struct sbx_bytes *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

uint64_t sbx_cursor_u64(struct sbx_cursor *c)
{
    uint64_t v;
    if (c->bad || (size_t)(c->end - c->p) < sizeof v) {
        c->bad = 1;
        return 0;
    }
    memcpy(&v, c->p, sizeof v);
    c->p += sizeof v;
    return v;
}

const char *sbx_cursor_str(struct sbx_cursor *c)
{
    uint64_t n = sbx_cursor_u64(c);
    const char *s;
    if (c->bad || n >= (uint64_t)(c->end - c->p) || c->p[n] != '\0' ||
        memchr(c->p, '\0', (size_t)n) != NULL) {
        c->bad = 1;
        return "";
    }
    s = (const char *)c->p;
    c->p += n + 1;
    return s;
}

#if !defined(__linux__)

/* No index off Linux: struct sbx_index stays incomplete, only NULL is made. */

struct sbx_index *sbx_index_begin(const sbx_resolved *r, int kind, const struct sbx_bytes *key)
{
    (void)r;
    (void)kind;
    (void)key;
    return NULL;
}
int sbx_index_valid(struct sbx_index *ix, struct sbx_cursor *payload)
{
    (void)ix;
    (void)payload;
    return 0;
}
void sbx_index_clock(struct timespec *now)
{
    memset(now, 0, sizeof *now);
}
int sbx_index_racy(const struct stat *st, const struct timespec *before)
{
    (void)st;
    (void)before;
    return 1;
}
void sbx_index_tree(struct sbx_index *ix, const char *root)
{
    (void)ix;
    (void)root;
}
void sbx_index_dir(struct sbx_index *ix, const char *path, int fd, const struct stat *st,
                   const struct timespec *before)
{
    (void)ix;
    (void)path;
    (void)fd;
    (void)st;
    (void)before;
}
void sbx_index_absent(struct sbx_index *ix, const char *path)
{
    (void)ix;
    (void)path;
}
void sbx_index_link(struct sbx_index *ix, const char *path)
{
    (void)ix;
    (void)path;
}
void sbx_index_file(struct sbx_index *ix, const char *path, int follow, int nlink)
{
    (void)ix;
    (void)path;
    (void)follow;
    (void)nlink;
}
void sbx_index_spoil(struct sbx_index *ix)
{
    (void)ix;
}
struct sbx_bytes *sbx_index_payload(struct sbx_index *ix)
{
    (void)ix;
    return NULL;
}
void sbx_index_commit(struct sbx_index *ix)
{
    (void)ix;
}
void sbx_index_end(struct sbx_index *ix)
{
    (void)ix;
}
char *sbx_index_home(const sbx_resolved *r)
{
    (void)r;
    return NULL;
}
struct sbx_index_memo *sbx_index_memo_new(void)
{
    return NULL;
}
void sbx_index_memo_free(struct sbx_index_memo *memo)
{
    (void)memo;
}
int sbx_index_open_dir(const char *dir)
{
    (void)dir;
    return -1;
}
int sandbox_index_watch(int stop_fd, unsigned long long *answered, unsigned long long *vouched,
                        sandbox_error *error)
{
    (void)stop_fd;
    if (answered)
        *answered = 0;
    if (vouched)
        *vouched = 0;
    return sbx_fail(error, SANDBOX_E_UNSUPPORTED, 0,
                    "the pre-flight index and its watcher exist on Linux only");
}

#else /* __linux__ */

#  include <dirent.h>
#  include <fcntl.h>
#  include <limits.h>
#  include <linux/capability.h>
#  include <stdio.h>
#  include <sys/stat.h>
#  include <sys/socket.h>
#  include <sys/statfs.h>
#  include <sys/syscall.h>
#  include <sys/sysmacros.h>
#  include <sys/mman.h>
#  include <sys/time.h>
#  include <sys/un.h>
#  include <unistd.h>

/* Bump when the file layout changes. */
#  define INDEX_FORMAT 1
/* What the scanning code was built from (CMake hashes the sources that
 * decide an answer): an index written by other code is never read. */
#  ifndef SBX_SCAN_SOURCES_HASH
#    define SBX_SCAN_SOURCES_HASH "unhashed"
#  endif
static const char index_magic[8] = {'S', 'B', 'X', 'I', 'D', 'X', '\0', '\1'};

/* The hard-link index is rebuilt at least this often (seconds): a name a
 * process outside every sandbox gives a project file elsewhere changes
 * nothing it checks (docs/protected-paths.md, "What the index cannot see"),
 * so a full scan bounds how long such a link goes unseen. */
#  define LINKS_MAX_AGE 600
/* Larger indexes are not written (a full scan each time instead). */
#  define INDEX_MAX_BYTES ((size_t)256 << 20)
/* Index files kept per directory; the oldest beyond are removed. */
#  define INDEX_KEEP 128

enum rec_tag {
    REC_TREE = 1,
    REC_DIR = 2,
    REC_ABSENT = 3,
    REC_LINK = 4,
    REC_FILE = 5,
    REC_END = 6
};

struct dev_seen {
    uint64_t dev;
    int ok;
};

struct sbx_index {
    const sbx_resolved *r;
    int kind;
    int dirfd;            /* the index directory */
    char name[48];        /* the file in it */
    struct sbx_bytes key; /* the full question: common part and the consumer's */
    char boot[40];
    int64_t clock_offset; /* wall clock minus boot clock, seconds */
    int64_t boot_now;     /* the boot clock, seconds */
    unsigned char *file;  /* the stored index, as read */
    size_t file_len;
    int file_adopted;     /* r->index_memo frees it */
    uint64_t n_dir_recs;  /* directories recorded */
    int recording, spoiled;
    struct sbx_bytes recs, payload;
    char *tree; /* the tree being recorded */
    size_t tree_len;
    int tree_fd;
    struct dev_seen *devs;
    size_t n_devs;
};

/* A fast non-cryptographic digest: the file is ours and lives where no
 * sandboxed command writes; this catches a torn or damaged file. */
static uint64_t digest(const unsigned char *p, size_t n, uint64_t h)
{
    uint64_t w;
    h ^= 0x9E3779B97F4A7C15ull * (n + 1);
    for (; n >= 8; p += 8, n -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
        h ^= h >> 31;
    }
    for (; n > 0; p++, n--)
        h = (h ^ *p) * 0x94D049BB133111EBull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

void sbx_index_clock(struct timespec *now)
{
    if (clock_gettime(CLOCK_REALTIME_COARSE, now) != 0)
        memset(now, 0, sizeof *now); /* every stamp then counts as racy */
}

/* statx(2) by number: musl before 1.2.5 has no wrapper. Fields read from
 * the kernel's 256-byte struct statx (include/uapi/linux/stat.h) at their
 * fixed offsets. */
#  define KSTATX_INO 0x100u
#  define KSTATX_BTIME 0x800u
#  define KSTATX_OFF_MASK 0
#  define KSTATX_OFF_INO 32
#  define KSTATX_OFF_BTIME 80 /* tv_sec (s64), tv_nsec (u32) */
#  define KSTATX_OFF_DEV 136  /* dev_major, dev_minor (u32 each) */

int sbx_index_identity(const char *path, int follow, uint64_t out[4])
{
    unsigned char sx[256];
    uint32_t mask, nsec, major, minor;
    int64_t sec;
    memset(sx, 0, sizeof sx);
    if (syscall(SYS_statx, AT_FDCWD, path, follow ? 0 : AT_SYMLINK_NOFOLLOW,
                KSTATX_INO | KSTATX_BTIME, sx) != 0)
        return -1;
    memcpy(&mask, sx + KSTATX_OFF_MASK, 4);
    memcpy(&out[1], sx + KSTATX_OFF_INO, 8);
    memcpy(&sec, sx + KSTATX_OFF_BTIME, 8);
    memcpy(&nsec, sx + KSTATX_OFF_BTIME + 8, 4);
    memcpy(&major, sx + KSTATX_OFF_DEV, 4);
    memcpy(&minor, sx + KSTATX_OFF_DEV + 4, 4);
    out[0] = (uint64_t)makedev(major, minor);
    out[2] = (mask & KSTATX_BTIME) ? (uint64_t)sec : UINT64_MAX;
    out[3] = (mask & KSTATX_BTIME) ? (uint64_t)nsec : UINT64_MAX;
    return 0;
}

int sbx_index_boot_id(char out[40])
{
    int fd = openat(AT_FDCWD, "/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    ssize_t n;
    if (fd < 0)
        return -1;
    n = read(fd, out, 39);
    close(fd);
    if (n < 36)
        return -1;
    out[36] = '\0';
    return 0;
}

/* A step of the wall clock (settimeofday, an NTP step) changes this;
 * slewing changes both clocks alike. *boot_now: the boot clock. */
static int64_t clock_offset(int64_t *boot_now)
{
    struct timespec real, boot;
    if (clock_gettime(CLOCK_REALTIME, &real) != 0 || clock_gettime(CLOCK_BOOTTIME, &boot) != 0)
        return INT64_MIN;
    *boot_now = (int64_t)boot.tv_sec;
    return (int64_t)real.tv_sec - (int64_t)boot.tv_sec +
           ((int64_t)real.tv_nsec - (int64_t)boot.tv_nsec >= 500000000 ? 1 : 0);
}

/* ---- where the index lives ---- */

/* A directory of the caller's own: the index goes directly inside it. */
static char *home_index(const char *home)
{
    static const char name[] = "/.libsandbox";
    struct stat st;
    size_t n;
    char *out;
    if (!home || home[0] != '/' || stat(home, &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != geteuid())
        return NULL;
    n = strlen(home);
    while (n > 1 && home[n - 1] == '/')
        n--;
    if (n == 1)
        return NULL; /* "/" is no one's home */
    out = malloc(n + sizeof name);
    if (out) {
        memcpy(out, home, n);
        memcpy(out + n, name, sizeof name);
    }
    return out;
}

char *sbx_index_home(const sbx_resolved *r)
{
    char *acct, *dir;
    (void)r;
    /* Directly in the account's home (the user database, never $HOME): no
     * root may be a home or contain one (resolve.c), so the only roots that
     * could reach it are the directory itself or what lies in it, which
     * sbx_ledger_note refuses. $HOME only for an account without a home of
     * its own (nobody's /nonexistent). */
    acct = sbx_account_home();
    dir = home_index(acct);
    free(acct);
    if (!dir)
        dir = home_index(getenv("HOME"));
    return dir;
}

int sbx_index_open_dir(const char *dir)
{
    struct stat st;
    int fd;
    if (!dir || dir[0] != '/')
        return -1;
    fd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT && mkdir(dir, 0700) == 0)
        fd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* Ours, and writable by no one else: a sandboxed command may chmod it
     * (Landlock does not check metadata), so the mode is set again here. */
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        ((st.st_mode & 077) && fchmod(fd, 0700) != 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* ---- the question ---- */

static void common_key(struct sbx_bytes *k, int kind)
{
    struct __user_cap_header_struct h;
    struct __user_cap_data_struct d[2];
    gid_t groups[256];
    int n = getgroups(256, groups), i;
    sbx_bytes_str(k, "libsandbox scan index " SANDBOX_VERSION_STRING " " SBX_SCAN_SOURCES_HASH);
    sbx_bytes_u64(k, INDEX_FORMAT);
    sbx_bytes_u64(k, (uint64_t)kind);
    /* What a scan can see depends on who looks: ids, groups, capabilities
     * (root's CAP_DAC_READ_SEARCH lists what nobody cannot). */
    sbx_bytes_u64(k, (uint64_t)geteuid());
    sbx_bytes_u64(k, (uint64_t)getegid());
    sbx_bytes_u64(k, n < 0 ? UINT64_MAX : (uint64_t)n);
    for (i = 0; i < n; i++)
        sbx_bytes_u64(k, (uint64_t)groups[i]);
    memset(&h, 0, sizeof h);
    memset(d, 0, sizeof d);
    h.version = _LINUX_CAPABILITY_VERSION_3;
    if (syscall(SYS_capget, &h, d) != 0)
        memset(d, 0xff, sizeof d);
    sbx_bytes_u64(k, (uint64_t)d[0].effective | (uint64_t)d[1].effective << 32);
}

struct sbx_index *sbx_index_begin(const sbx_resolved *r, int kind, const struct sbx_bytes *key)
{
    struct sbx_index *ix;
    char *dir;
    uint64_t h;
    if (!key || key->oom || r->scan_index_off)
        return NULL;
    dir = sbx_index_home(r);
    if (!dir)
        return NULL;
    ix = calloc(1, sizeof *ix);
    if (!ix) {
        free(dir);
        return NULL;
    }
    ix->r = r;
    ix->kind = kind;
    ix->tree_fd = -1;
    ix->dirfd = sbx_index_open_dir(dir);
    free(dir);
    common_key(&ix->key, kind);
    bytes_add(&ix->key, key->data, key->len);
    ix->clock_offset = clock_offset(&ix->boot_now);
    if (ix->dirfd < 0 || ix->key.oom || sbx_index_boot_id(ix->boot) != 0 ||
        ix->clock_offset == INT64_MIN) {
        sbx_index_end(ix);
        return NULL;
    }
    h = digest(ix->key.data, ix->key.len, 0);
    snprintf(ix->name, sizeof ix->name, "%s-%016llx.idx", kind == SBX_INDEX_MASK ? "mask" : "links",
             (unsigned long long)h);
    return ix;
}

void sbx_index_end(struct sbx_index *ix)
{
    if (!ix)
        return;
    if (ix->dirfd >= 0)
        close(ix->dirfd);
    if (ix->tree_fd >= 0)
        close(ix->tree_fd);
    sbx_bytes_free(&ix->key);
    sbx_bytes_free(&ix->recs);
    sbx_bytes_free(&ix->payload);
    if (!ix->file_adopted)
        free(ix->file);
    free(ix->tree);
    free(ix->devs);
    free(ix);
}

/* ---- checking ---- */

/* A large buffer's pages made present in one call (Linux 5.14+): the read
 * would otherwise fault them in one at a time, each dear on a virtualized
 * machine. Advice only: where refused, the read faults them as before. */
static void prefault(void *p, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), skip;
    if (page == 0 || n < 16 * page)
        return;
    skip = (page - (size_t)((uintptr_t)p % page)) % page; /* to the first whole page */
    (void)madvise((char *)p + skip, (n - skip) / page * page,
                  23 /* MADV_POPULATE_WRITE, newer than some headers */);
}

/* The index file, whole: ours, private, one name, a sane size. */
static int read_file(struct sbx_index *ix, struct stat *file_st)
{
    struct stat st;
    size_t got = 0;
    int fd = openat(ix->dirfd, ix->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* A second name would let a file of a writable root be the index
     * (ln index project/x is refused by Landlock, but it may predate it). */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022) || st.st_nlink != 1 || st.st_size < 16 ||
        (uint64_t)st.st_size > INDEX_MAX_BYTES || !(ix->file = malloc((size_t)st.st_size))) {
        close(fd);
        return -1;
    }
    prefault(ix->file, (size_t)st.st_size);
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, ix->file + got, (size_t)st.st_size - got);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            break;
        }
        got += (size_t)n;
    }
    close(fd);
    ix->file_len = got;
    *file_st = st;
    return got == (size_t)st.st_size ? 0 : -1;
}

int sbx_index_stamps_equal(const struct stat *st, const uint64_t v[11])
{
    return v[0] == (uint64_t)st->st_dev && v[1] == (uint64_t)st->st_ino &&
           v[2] == (uint64_t)st->st_mode && v[3] == (uint64_t)st->st_uid &&
           v[4] == (uint64_t)st->st_gid && v[5] == (uint64_t)st->st_nlink &&
           v[6] == (uint64_t)st->st_size && v[7] == (uint64_t)st->st_mtim.tv_sec &&
           v[8] == (uint64_t)st->st_mtim.tv_nsec && v[9] == (uint64_t)st->st_ctim.tv_sec &&
           v[10] == (uint64_t)st->st_ctim.tv_nsec;
}

static void put_stat(struct sbx_bytes *b, const struct stat *st)
{
    sbx_bytes_u64(b, (uint64_t)st->st_dev);
    sbx_bytes_u64(b, (uint64_t)st->st_ino);
    sbx_bytes_u64(b, (uint64_t)st->st_mode);
    sbx_bytes_u64(b, (uint64_t)st->st_uid);
    sbx_bytes_u64(b, (uint64_t)st->st_gid);
    sbx_bytes_u64(b, (uint64_t)st->st_nlink);
    sbx_bytes_u64(b, (uint64_t)st->st_size);
    sbx_bytes_u64(b, (uint64_t)st->st_mtim.tv_sec);
    sbx_bytes_u64(b, (uint64_t)st->st_mtim.tv_nsec);
    sbx_bytes_u64(b, (uint64_t)st->st_ctim.tv_sec);
    sbx_bytes_u64(b, (uint64_t)st->st_ctim.tv_nsec);
}

/* ---- the memo of one launch ---- */

/* A directory one index check stat'ed: tree and rel point into an index
 * file the memo adopted. */
struct memo_entry {
    const char *tree, *rel;
    uint64_t hash;
    int err; /* the stat's errno, or 0 */
    struct stat st;
};

struct sbx_index_memo {
    struct memo_entry *e;
    size_t n, cap_e;
    uint32_t *slot;   /* open addressing: entry index + 1, 0 free */
    size_t cap_slot;  /* a power of two, at least twice n */
    unsigned char **files; /* adopted index files, freed with the memo */
    size_t n_files;
};

struct sbx_index_memo *sbx_index_memo_new(void)
{
    return calloc(1, sizeof(struct sbx_index_memo));
}

void sbx_index_memo_free(struct sbx_index_memo *memo)
{
    size_t i;
    if (!memo)
        return;
    for (i = 0; i < memo->n_files; i++)
        free(memo->files[i]);
    free(memo->files);
    free(memo->e);
    free(memo->slot);
    free(memo);
}

/* Keep `file` (whose strings the entries point into) as long as the memo. */
static int memo_adopt(struct sbx_index_memo *m, unsigned char *file)
{
    unsigned char **g = realloc(m->files, (m->n_files + 1) * sizeof *g);
    if (!g)
        return -1;
    m->files = g;
    m->files[m->n_files++] = file;
    return 0;
}

/* Room for `more` entries, sized once from the index's directory count. */
static int memo_reserve(struct sbx_index_memo *m, size_t more)
{
    size_t need = m->n + more, cap, i;
    if (need > m->cap_e) {
        struct memo_entry *g = realloc(m->e, need * sizeof *g);
        if (!g)
            return -1;
        m->e = g;
        m->cap_e = need;
    }
    if (need * 2 > m->cap_slot) {
        uint32_t *t;
        for (cap = 1024; cap < need * 2; cap *= 2)
            ;
        t = calloc(cap, sizeof *t);
        if (!t)
            return -1;
        for (i = 0; i < m->n; i++) {
            size_t j = m->e[i].hash & (cap - 1);
            while (t[j])
                j = (j + 1) & (cap - 1);
            t[j] = (uint32_t)(i + 1);
        }
        free(m->slot);
        m->slot = t;
        m->cap_slot = cap;
    }
    return 0;
}

static uint64_t memo_hash(const char *tree, const char *rel)
{
    uint64_t h = digest((const unsigned char *)tree, strlen(tree), 0x51ED);
    return digest((const unsigned char *)rel, strlen(rel), h);
}

/* fstatat(tree_fd, rel): the directory `tree`/`rel`, or what this launch
 * found there already. Returns 0 or -1 (with errno). `tree` and `rel` live
 * as long as the memo (memo_adopt). */
static int dir_stat(struct sbx_index_memo *m, int tree_fd, const char *tree, const char *rel,
                    struct stat *st)
{
    uint64_t h = 0;
    size_t j = 0;
    int r;
    if (m && m->cap_slot) {
        h = memo_hash(tree, rel);
        for (j = h & (m->cap_slot - 1); m->slot[j]; j = (j + 1) & (m->cap_slot - 1)) {
            const struct memo_entry *e = &m->e[m->slot[j] - 1];
            if (e->hash == h && strcmp(e->rel, rel) == 0 && strcmp(e->tree, tree) == 0) {
                if (e->err) {
                    errno = e->err;
                    return -1;
                }
                *st = e->st;
                return 0;
            }
        }
    }
    r = rel[0] ? fstatat(tree_fd, rel, st, AT_SYMLINK_NOFOLLOW) : fstat(tree_fd, st);
    if (m && m->cap_slot && m->n < m->cap_e && (m->n + 1) * 2 <= m->cap_slot) {
        struct memo_entry *e = &m->e[m->n];
        e->tree = tree;
        e->rel = rel;
        e->hash = h;
        e->err = r ? errno : 0;
        e->st = *st;
        m->slot[j] = (uint32_t)(++m->n);
        if (r)
            errno = e->err;
    }
    return r;
}

/* Where a symlink leads, as the scan used it: whether stat succeeds, the
 * target's type and identity, and its real path. */
struct link_fact {
    int err;
    uint64_t mode, dev, ino;
    char *real;
};

static void link_fact(const char *path, struct link_fact *f)
{
    struct stat st;
    memset(f, 0, sizeof *f);
    if (stat(path, &st) != 0) {
        f->err = errno == ENOENT || errno == ENOTDIR ? ENOENT : errno;
        return;
    }
    f->mode = (uint64_t)(st.st_mode & S_IFMT);
    f->dev = (uint64_t)st.st_dev;
    f->ino = (uint64_t)st.st_ino;
    f->real = realpath(path, NULL);
    if (!f->real)
        f->err = errno ? errno : EIO;
}

struct id_list {
    uint64_t *v; /* pairs (dev, ino) */
    size_t n, cap;
};

static int ids_add(struct id_list *l, uint64_t a, uint64_t b)
{
    if (l->n + 2 > l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 256;
        uint64_t *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = a;
    l->v[l->n++] = b;
    return 0;
}

/* One record, parsed (strings point into the file). */
struct rec {
    uint64_t tag;
    const char *path;  /* TREE: the root; DIR: below it; others: absolute */
    uint64_t v[11];    /* DIR: the stamps */
    uint64_t pinned;   /* LINK */
    uint64_t err, mode, dev, ino; /* LINK (not pinned) */
    const char *real;
    uint64_t follow, nlink, exists, links; /* FILE (dev, ino, mode above) */
};

/* The next record, or tag REC_END; c->bad when the file is not one. */
static void next_record(struct sbx_cursor *c, struct rec *r)
{
    size_t i;
    r->tag = sbx_cursor_u64(c);
    if (c->bad || r->tag == REC_END)
        return;
    r->path = sbx_cursor_str(c);
    switch (r->tag) {
    case REC_TREE:
    case REC_ABSENT:
        break;
    case REC_DIR:
        for (i = 0; i < 11; i++)
            r->v[i] = sbx_cursor_u64(c);
        break;
    case REC_LINK:
        r->pinned = sbx_cursor_u64(c);
        if (!r->pinned) {
            r->err = sbx_cursor_u64(c);
            r->mode = sbx_cursor_u64(c);
            r->dev = sbx_cursor_u64(c);
            r->ino = sbx_cursor_u64(c);
            r->real = sbx_cursor_str(c);
        }
        break;
    case REC_FILE:
        r->follow = sbx_cursor_u64(c);
        r->nlink = sbx_cursor_u64(c);
        r->exists = sbx_cursor_u64(c);
        r->dev = sbx_cursor_u64(c);
        r->ino = sbx_cursor_u64(c);
        r->mode = sbx_cursor_u64(c);
        r->links = sbx_cursor_u64(c);
        break;
    default:
        c->bad = 1;
    }
}

/* Check every record against the file system now. `ids` collects the
 * directories' identities (the ledger check needs them). `vouched`: the
 * watcher saw no change to any listed directory since it checked their
 * stamps, so only each tree's root is looked at (where the tree's path
 * leads may change above the tree). */
static int records_hold(struct sbx_index_memo *memo, struct sbx_cursor *c, struct id_list *ids,
                        int vouched)
{
    int tree_fd = -1, ok = 1, e;
    struct stat st;
    const char *tree = "";
    struct rec r;
    while (ok) {
        next_record(c, &r);
        if (c->bad || r.tag == REC_END)
            break;
        switch (r.tag) {
        case REC_TREE:
            if (tree_fd >= 0)
                close(tree_fd);
            /* Following links, as both scans open their roots. */
            tree_fd = openat(AT_FDCWD, r.path, O_PATH | O_DIRECTORY | O_CLOEXEC);
            tree = r.path;
            break;
        case REC_DIR:
            if (vouched && r.path[0]) {
                ok = !ids || ids_add(ids, r.v[0], r.v[1]) == 0;
                break;
            }
            ok = tree_fd >= 0 && dir_stat(vouched ? NULL : memo, tree_fd, tree, r.path, &st) == 0 &&
                 sbx_index_stamps_equal(&st, r.v) &&
                 (!ids || ids_add(ids, (uint64_t)st.st_dev, (uint64_t)st.st_ino) == 0);
            break;
        case REC_ABSENT:
            ok = stat(r.path, &st) != 0 ? errno == ENOENT || errno == ENOTDIR : !S_ISDIR(st.st_mode);
            break;
        case REC_LINK:
            if (!r.pinned) {
                struct link_fact f;
                link_fact(r.path, &f);
                ok = (uint64_t)f.err == r.err && f.mode == r.mode && f.dev == r.dev &&
                     f.ino == r.ino && strcmp(f.real ? f.real : "", r.real) == 0;
                free(f.real);
            }
            break;
        case REC_FILE:
            e = r.follow ? stat(r.path, &st) : lstat(r.path, &st);
            if (e != 0)
                ok = !r.exists && (errno == ENOENT || errno == ENOTDIR);
            else
                ok = r.exists && r.dev == (uint64_t)st.st_dev && r.ino == (uint64_t)st.st_ino &&
                     r.mode == (uint64_t)(st.st_mode & S_IFMT) &&
                     (!r.nlink || r.links == (uint64_t)st.st_nlink);
            break;
        }
    }
    if (tree_fd >= 0)
        close(tree_fd);
    return ok && !c->bad;
}

/* The fixed part of an index file. */
struct header {
    const char *boot;
    int64_t clock_offset, built;
    uint64_t n_dirs, key_len;
    const unsigned char *key;
};

/* Check the magic and the checksum; read the header; leave c at the
 * records. -1 when the file is not an intact index. */
static int read_header(const unsigned char *file, size_t len, struct sbx_cursor *c, struct header *h)
{
    uint64_t sum;
    if (len < sizeof index_magic + 8 || memcmp(file, index_magic, sizeof index_magic) != 0)
        return -1;
    memcpy(&sum, file + len - 8, 8);
    if (digest(file, len - 8, 0) != sum)
        return -1;
    c->p = file + sizeof index_magic;
    c->end = file + len - 8;
    c->bad = 0;
    h->boot = sbx_cursor_str(c);
    h->clock_offset = (int64_t)sbx_cursor_u64(c);
    h->built = (int64_t)sbx_cursor_u64(c);
    h->n_dirs = sbx_cursor_u64(c);
    h->key_len = sbx_cursor_u64(c);
    if (c->bad || h->key_len > (uint64_t)(c->end - c->p))
        return -1;
    h->key = c->p;
    c->p += h->key_len;
    return 0;
}

int sbx_index_each_dir(const unsigned char *file, size_t len,
                       int (*cb)(void *ctx, const char *tree, const char *rel,
                                 const uint64_t stamps[11]),
                       void *ctx)
{
    struct sbx_cursor c;
    struct header h;
    struct rec r;
    const char *tree = NULL;
    if (read_header(file, len, &c, &h) != 0)
        return -1;
    for (;;) {
        next_record(&c, &r);
        if (c.bad)
            return -1;
        if (r.tag == REC_END)
            return 0;
        if (r.tag == REC_TREE)
            tree = r.path;
        else if (r.tag == REC_DIR && (!tree || cb(ctx, tree, r.path, r.v) != 0))
            return -1;
    }
}

/* Does the watcher vouch for this file's directories? One round trip to
 * a process of ours; any doubt (none running, slow, another view of the
 * file system, an answer not understood) is a no. */
static int watcher_vouches(const struct sbx_index *ix, const struct stat *file_st)
{
    struct sbx_watch_request q;
    struct sockaddr_un sa;
    struct timeval tv = {0, 50000};
    struct stat st;
    uint32_t answer = 0;
    int fd;
    /* None running (the common case): one stat, no socket. */
    if (fstatat(ix->dirfd, SBX_WATCH_SOCKET, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISSOCK(st.st_mode))
        return 0;
    memset(&q, 0, sizeof q);
    q.magic = SBX_WATCH_MAGIC;
    q.version = SBX_WATCH_VERSION;
    snprintf(q.name, sizeof q.name, "%s", ix->name);
    q.ino = (uint64_t)file_st->st_ino;
    q.size = (uint64_t)file_st->st_size;
    q.mtime_sec = (uint64_t)file_st->st_mtim.tv_sec;
    q.mtime_nsec = (uint64_t)file_st->st_mtim.tv_nsec;
    if (stat("/proc/self/ns/mnt", &st) != 0)
        return 0;
    q.mntns_dev = (uint64_t)st.st_dev;
    q.mntns_ino = (uint64_t)st.st_ino;
    if (stat("/", &st) != 0)
        return 0;
    q.root_dev = (uint64_t)st.st_dev;
    q.root_ino = (uint64_t)st.st_ino;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    /* The socket by descriptor: the path of the index directory we checked. */
    if (snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", ix->dirfd,
                 SBX_WATCH_SOCKET) >= (int)sizeof sa.sun_path)
        return 0;
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 0;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) != 0 ||
        connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        send(fd, &q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q ||
        recv(fd, &answer, sizeof answer, 0) != (ssize_t)sizeof answer)
        answer = 0;
    close(fd);
    return answer == 1;
}

/* What the ledger asks about the trees, answered from the directories'
 * identities the check collected, sorted only when an entry needs it. */
struct trees_ctx {
    const struct sbx_index *ix;
    struct id_list *ids;
    int devs_known, many_devs;
    uint64_t devs[16];
    size_t n_devs;
    uint32_t *set; /* open addressing over ids: pair index + 1, 0 free */
    size_t cap_set;
    int set_failed;
    char path[PATH_MAX];
    uint64_t want_dev, want_ino;
    int found;
};

static size_t pair_hash(uint64_t dev, uint64_t ino)
{
    uint64_t h = (ino ^ (dev * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 31));
}

static int trees_on_dev(void *ctx, uint64_t dev)
{
    struct trees_ctx *t = ctx;
    size_t i, j;
    if (!t->devs_known) {
        t->devs_known = 1;
        for (i = 0; i + 1 < t->ids->n && !t->many_devs; i += 2) {
            for (j = 0; j < t->n_devs && t->devs[j] != t->ids->v[i]; j++)
                ;
            if (j == t->n_devs) {
                if (t->n_devs == sizeof t->devs / sizeof t->devs[0])
                    t->many_devs = 1; /* then every device counts as ours */
                else
                    t->devs[t->n_devs++] = t->ids->v[i];
            }
        }
    }
    for (i = 0; i < t->n_devs; i++)
        if (t->devs[i] == dev)
            return 1;
    return t->many_devs;
}

static int birth_match(void *ctx, const char *tree, const char *rel, const uint64_t v[11])
{
    struct trees_ctx *t = ctx;
    if (t->found || v[0] != t->want_dev || v[1] != t->want_ino)
        return 0;
    if (snprintf(t->path, sizeof t->path, "%s%s%s", tree,
                 rel[0] && !(tree[0] == '/' && !tree[1]) ? "/" : "", rel) < (int)sizeof t->path)
        t->found = 1;
    return 0;
}

static int trees_has_dir(void *ctx, uint64_t dev, uint64_t ino, const uint64_t born[2])
{
    struct trees_ctx *t = ctx;
    size_t n = t->ids->n / 2, i, j;
    uint64_t id[4];
    if (!t->set && !t->set_failed) {
        /* Built once, on the first question: most launches never ask. */
        for (t->cap_set = 1024; t->cap_set < 2 * n + 2; t->cap_set *= 2)
            ;
        t->set = calloc(t->cap_set, sizeof *t->set);
        if (!t->set)
            t->set_failed = 1;
        for (i = 0; t->set && i < n; i++) {
            for (j = pair_hash(t->ids->v[2 * i], t->ids->v[2 * i + 1]) & (t->cap_set - 1); t->set[j];
                 j = (j + 1) & (t->cap_set - 1))
                ;
            t->set[j] = (uint32_t)(i + 1);
        }
    }
    if (!t->set)
        return 1; /* out of memory: it may be ours */
    for (j = pair_hash(dev, ino) & (t->cap_set - 1);; j = (j + 1) & (t->cap_set - 1)) {
        const uint64_t *p;
        if (!t->set[j])
            return 0;
        p = t->ids->v + 2 * (size_t)(t->set[j] - 1);
        if (p[0] == dev && p[1] == ino)
            break;
    }
    if (born[0] == UINT64_MAX)
        return 1;
    /* The same directory, or a newer one with its inode number? Found
     * among the records (rare: an entry names one of our directories). */
    t->want_dev = dev;
    t->want_ino = ino;
    t->found = 0;
    if (sbx_index_each_dir(t->ix->file, t->ix->file_len, birth_match, t) != 0 || !t->found ||
        sbx_index_identity(t->path, 0, id) != 0 || id[0] != dev || id[1] != ino)
        return 1;
    return id[2] == UINT64_MAX || (id[2] == born[0] && id[3] == born[1]);
}

/* The hard-link answer also depends on what other launches could link:
 * the ledger (scanledger.c). */
static int ledger_allows(const struct sbx_index *ix, struct id_list *ids)
{
    struct trees_ctx *t = calloc(1, sizeof *t);
    struct sbx_ledger_trees trees;
    int ok;
    if (!t)
        return 0;
    t->ix = ix;
    t->ids = ids;
    trees.on_dev = trees_on_dev;
    trees.has_dir = trees_has_dir;
    trees.ctx = t;
    ok = sbx_ledger_quiet(ix->dirfd, ix->boot, ix->r, &trees);
    free(t->set);
    free(t);
    return ok;
}

int sbx_index_valid(struct sbx_index *ix, struct sbx_cursor *payload)
{
    struct sbx_cursor c;
    struct header h;
    struct stat file_st;
    struct id_list ids = {NULL, 0, 0};
    struct sbx_index_memo *memo;
    uint64_t len;
    int ok = 0;
    if (!ix)
        return 0;
    if (read_file(ix, &file_st) == 0 && read_header(ix->file, ix->file_len, &c, &h) == 0 &&
        strcmp(h.boot, ix->boot) == 0 && h.n_dirs < (1u << 26) &&
        /* No clock step since (a change could repeat an old stamp)... */
        h.clock_offset - ix->clock_offset <= 1 && ix->clock_offset - h.clock_offset <= 1 &&
        /* ...and the hard-link answer not too old (what it cannot see). */
        (ix->kind != SBX_INDEX_LINKS ||
         (ix->boot_now >= h.built && ix->boot_now - h.built <= LINKS_MAX_AGE)) &&
        /* The same question. */
        h.key_len == ix->key.len && memcmp(h.key, ix->key.data, (size_t)h.key_len) == 0) {
        int vouched = watcher_vouches(ix, &file_st);
        /* Sized once: growing would map and unmap again and again. Only the
         * ledger check needs the identities, and only unvouched checks stat. */
        if (ix->kind == SBX_INDEX_LINKS) {
            ids.v = malloc((h.n_dirs ? h.n_dirs : 1) * 2 * sizeof *ids.v);
            ids.cap = ids.v ? h.n_dirs * 2 : 0;
        }
        memo = vouched ? NULL : ix->r->index_memo;
        /* The memo keeps this file: its entries point into it. */
        if (memo && (memo_reserve(memo, (size_t)h.n_dirs) != 0 || memo_adopt(memo, ix->file) != 0))
            memo = NULL;
        else if (memo)
            ix->file_adopted = 1;
        ok = records_hold(memo, &c, ix->kind == SBX_INDEX_LINKS ? &ids : NULL, vouched);
        len = sbx_cursor_u64(&c);
        if (ok && !c.bad && len == (uint64_t)(c.end - c.p) &&
            (ix->kind != SBX_INDEX_LINKS || ledger_allows(ix, &ids))) {
            payload->p = c.p;
            payload->end = c.end;
            payload->bad = 0;
        } else {
            ok = 0;
        }
    }
    free(ids.v);
    if (!ok) {
        /* Record from scratch. */
        if (!ix->file_adopted)
            free(ix->file);
        ix->file = NULL;
        ix->file_len = 0;
        ix->recording = 1;
    }
    return ok;
}

/* ---- recording ---- */

void sbx_index_spoil(struct sbx_index *ix)
{
    if (ix)
        ix->spoiled = 1;
}

struct sbx_bytes *sbx_index_payload(struct sbx_index *ix)
{
    return ix ? &ix->payload : NULL;
}

void sbx_index_tree(struct sbx_index *ix, const char *root)
{
    size_t n;
    if (!ix || !ix->recording)
        return;
    free(ix->tree);
    if (ix->tree_fd >= 0)
        close(ix->tree_fd);
    n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    ix->tree = malloc(n + 1);
    if (!ix->tree) {
        ix->spoiled = 1;
        ix->tree_len = 0;
        ix->tree_fd = -1;
        return;
    }
    memcpy(ix->tree, root, n);
    ix->tree[n] = '\0';
    ix->tree_len = n;
    ix->tree_fd = openat(AT_FDCWD, ix->tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
    sbx_bytes_u64(&ix->recs, REC_TREE);
    sbx_bytes_str(&ix->recs, ix->tree);
}

/* `path` below the tree being recorded, or NULL. "" is the root. */
static const char *tree_rel(const struct sbx_index *ix, const char *path)
{
    if (!ix->tree)
        return NULL;
    if (ix->tree_len == 1 && ix->tree[0] == '/')
        return path[0] == '/' ? path + 1 : NULL;
    if (strncmp(path, ix->tree, ix->tree_len) != 0)
        return NULL;
    if (path[ix->tree_len] == '\0')
        return path + ix->tree_len;
    return path[ix->tree_len] == '/' ? path + ix->tree_len + 1 : NULL;
}

/* File systems whose directory stamps change with every entry change and
 * that report every change made anywhere (not a network or FUSE file
 * system, where another machine or a daemon changes what we list, and not
 * overlayfs, whose lower layers change beneath unchanged stamps). */
static int fs_trusted(unsigned long type)
{
    switch (type) {
    case 0xEF53UL:     /* ext2, ext3, ext4 */
    case 0x58465342UL: /* xfs */
    case 0x9123683EUL: /* btrfs */
    case 0x01021994UL: /* tmpfs */
    case 0xF2F52010UL: /* f2fs */
    case 0xCA451A4EUL: /* bcachefs */
        return 1;
    default:
        return 0;
    }
}

static void check_fs(struct sbx_index *ix, const char *path, int fd, const struct stat *st)
{
    struct statfs sf;
    struct dev_seen *g;
    size_t i;
    int ok;
    for (i = 0; i < ix->n_devs; i++)
        if (ix->devs[i].dev == (uint64_t)st->st_dev) {
            if (!ix->devs[i].ok)
                ix->spoiled = 1;
            return;
        }
    ok = (fd >= 0 ? fstatfs(fd, &sf) : statfs(path, &sf)) == 0 &&
         fs_trusted((unsigned long)sf.f_type);
    g = realloc(ix->devs, (ix->n_devs + 1) * sizeof *g);
    if (!g) {
        ix->spoiled = 1;
        return;
    }
    ix->devs = g;
    g[ix->n_devs].dev = (uint64_t)st->st_dev;
    g[ix->n_devs].ok = ok;
    ix->n_devs++;
    if (!ok)
        ix->spoiled = 1;
}

/* Racy: a change made after our stat in the same tick of the coarse clock
 * (or, on a file system that keeps whole seconds, the same second) would
 * leave the stamps as they are. ctime alone decides: the kernel sets it on
 * every change and nothing can set it back (utimensat sets mtime, and
 * changes ctime). Such a directory cannot vouch for itself yet: nothing is
 * committed, and the next launch scans again. */
int sbx_index_racy(const struct stat *st, const struct timespec *before)
{
    const struct timespec *c = &st->st_ctim;
    long long sec = (long long)c->tv_sec + (c->tv_nsec == 0 ? 2 : 0);
    if (before->tv_sec == 0)
        return 1;
    return sec > (long long)before->tv_sec ||
           (sec == (long long)before->tv_sec && c->tv_nsec >= before->tv_nsec);
}

void sbx_index_dir(struct sbx_index *ix, const char *path, int fd, const struct stat *st,
                   const struct timespec *before)
{
    const char *rel;
    if (!ix || !ix->recording || ix->spoiled)
        return;
    rel = tree_rel(ix, path);
    if (!rel || sbx_index_racy(st, before)) {
        ix->spoiled = 1;
        return;
    }
    check_fs(ix, path, fd, st);
    sbx_bytes_u64(&ix->recs, REC_DIR);
    sbx_bytes_str(&ix->recs, rel);
    put_stat(&ix->recs, st);
    ix->n_dir_recs++;
}

void sbx_index_absent(struct sbx_index *ix, const char *path)
{
    if (!ix || !ix->recording || ix->spoiled)
        return;
    sbx_bytes_u64(&ix->recs, REC_ABSENT);
    sbx_bytes_str(&ix->recs, path);
}

/* Pinned: resolved from the tree's root without ever leaving it (openat2
 * RESOLVE_BENEATH), or stopped at a missing name inside it. Every
 * directory and symlink that resolution passed is then inside the tree,
 * listed and recorded, so the link cannot lead elsewhere unless a recorded
 * directory changes. Any other link is resolved again at every check. */
static int pinned(const struct sbx_index *ix, const char *path)
{
#  ifdef SYS_openat2
    struct {
        uint64_t flags, mode, resolve;
    } how;
    const char *rel = tree_rel(ix, path);
    long fd;
    if (ix->tree_fd < 0 || !rel || !rel[0])
        return 0;
    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = 0x08 /* RESOLVE_BENEATH */ | 0x02 /* RESOLVE_NO_MAGICLINKS */;
    fd = syscall(SYS_openat2, ix->tree_fd, rel, &how, sizeof how);
    if (fd >= 0) {
        close((int)fd);
        return 1;
    }
    return errno == ENOENT || errno == ENOTDIR;
#  else
    (void)ix;
    (void)path;
    return 0;
#  endif
}

void sbx_index_link(struct sbx_index *ix, const char *path)
{
    struct link_fact f;
    if (!ix || !ix->recording || ix->spoiled)
        return;
    sbx_bytes_u64(&ix->recs, REC_LINK);
    sbx_bytes_str(&ix->recs, path);
    if (pinned(ix, path)) {
        sbx_bytes_u64(&ix->recs, 1);
        return;
    }
    sbx_bytes_u64(&ix->recs, 0);
    link_fact(path, &f);
    sbx_bytes_u64(&ix->recs, (uint64_t)f.err);
    sbx_bytes_u64(&ix->recs, f.mode);
    sbx_bytes_u64(&ix->recs, f.dev);
    sbx_bytes_u64(&ix->recs, f.ino);
    sbx_bytes_str(&ix->recs, f.real);
    free(f.real);
}

void sbx_index_file(struct sbx_index *ix, const char *path, int follow, int nlink)
{
    struct stat st;
    int e;
    if (!ix || !ix->recording || ix->spoiled)
        return;
    e = follow ? stat(path, &st) : lstat(path, &st);
    if (e != 0 && errno != ENOENT && errno != ENOTDIR) {
        ix->spoiled = 1;
        return;
    }
    sbx_bytes_u64(&ix->recs, REC_FILE);
    sbx_bytes_str(&ix->recs, path);
    sbx_bytes_u64(&ix->recs, (uint64_t)!!follow);
    sbx_bytes_u64(&ix->recs, (uint64_t)!!nlink);
    sbx_bytes_u64(&ix->recs, e == 0);
    sbx_bytes_u64(&ix->recs, e == 0 ? (uint64_t)st.st_dev : 0);
    sbx_bytes_u64(&ix->recs, e == 0 ? (uint64_t)st.st_ino : 0);
    sbx_bytes_u64(&ix->recs, e == 0 ? (uint64_t)(st.st_mode & S_IFMT) : 0);
    sbx_bytes_u64(&ix->recs, e == 0 ? (uint64_t)st.st_nlink : 0);
}

/* Which boot a ledger file belongs to: "ledger-TAG", "w-TAG-HASH",
 * "tainted-TAG"; NULL for other names. */
static const char *ledger_tag(const char *name)
{
    if (strncmp(name, "ledger-", 7) == 0)
        return name + 7;
    if (strncmp(name, "tainted-", 8) == 0)
        return name + 8;
    if (strncmp(name, "w-", 2) == 0)
        return name + 2;
    return NULL;
}

/* Remove the oldest index files beyond INDEX_KEEP, temporary files a
 * killed writer left, and the ledgers of earlier boots. A cache: a removed
 * index only costs a full scan. */
static void collect(int dirfd, const char *boot)
{
    struct old {
        char name[64];
        time_t mtime;
    } *old = NULL;
    size_t n = 0, cap = 0, i, j, bl;
    char tag[40];
    struct dirent *de;
    struct stat st;
    time_t now = time(NULL);
    int fd = dup(dirfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (i = 0, bl = 0; boot[i] && bl < sizeof tag - 1; i++)
        if (boot[i] != '-')
            tag[bl++] = boot[i];
    tag[bl] = '\0';
    while ((de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);
        const char *t = ledger_tag(de->d_name);
        if (t) {
            if (strncmp(t, tag, bl) != 0)
                unlinkat(dirfd, de->d_name, 0); /* another boot's: its processes are gone */
            continue;
        }
        if (nl >= sizeof old->name || fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (strncmp(de->d_name, ".tmp-", 5) == 0) {
            if (now - st.st_mtime > 3600)
                unlinkat(dirfd, de->d_name, 0);
            continue;
        }
        if (nl < 4 || strcmp(de->d_name + nl - 4, ".idx") != 0)
            continue;
        if (n == cap) {
            size_t c2 = cap ? cap * 2 : 64;
            struct old *g = realloc(old, c2 * sizeof *old);
            if (!g)
                break;
            old = g;
            cap = c2;
        }
        memcpy(old[n].name, de->d_name, nl + 1);
        old[n].mtime = st.st_mtime;
        n++;
    }
    closedir(d);
    while (n > INDEX_KEEP) {
        for (i = 0, j = 1; j < n; j++)
            if (old[j].mtime < old[i].mtime)
                i = j;
        unlinkat(dirfd, old[i].name, 0);
        old[i] = old[--n];
    }
    free(old);
}

void sbx_index_commit(struct sbx_index *ix)
{
    struct sbx_bytes f = {NULL, 0, 0, 0};
    struct timespec t;
    char tmp[64];
    uint64_t sum;
    size_t off = 0;
    int fd;
    if (!ix || !ix->recording || ix->spoiled || ix->recs.oom || ix->payload.oom)
        return;
    bytes_add(&f, index_magic, sizeof index_magic);
    sbx_bytes_str(&f, ix->boot);
    sbx_bytes_u64(&f, (uint64_t)ix->clock_offset);
    sbx_bytes_u64(&f, (uint64_t)ix->boot_now);
    sbx_bytes_u64(&f, ix->n_dir_recs);
    sbx_bytes_u64(&f, ix->key.len);
    bytes_add(&f, ix->key.data, ix->key.len);
    bytes_add(&f, ix->recs.data, ix->recs.len);
    sbx_bytes_u64(&f, REC_END);
    sbx_bytes_u64(&f, ix->payload.len);
    bytes_add(&f, ix->payload.data, ix->payload.len);
    if (f.oom || f.len > INDEX_MAX_BYTES - 8) {
        sbx_bytes_free(&f);
        return;
    }
    sum = digest(f.data, f.len, 0);
    sbx_bytes_u64(&f, sum);
    if (f.oom) {
        sbx_bytes_free(&f);
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    snprintf(tmp, sizeof tmp, ".tmp-%ld-%lx", (long)getpid(), (unsigned long)t.tv_nsec);
    fd = openat(ix->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        while (off < f.len) {
            ssize_t n = write(fd, f.data + off, f.len - off);
            if (n <= 0) {
                if (n < 0 && errno == EINTR)
                    continue;
                break;
            }
            off += (size_t)n;
        }
        close(fd);
        /* Atomic: a reader sees the old index or the new one, never half. */
        if (off != f.len || renameat(ix->dirfd, tmp, ix->dirfd, ix->name) != 0)
            unlinkat(ix->dirfd, tmp, 0);
        else
            collect(ix->dirfd, ix->boot); /* a full scan just ran: one listing more is little */
    }
    sbx_bytes_free(&f);
}

#endif /* __linux__ */
