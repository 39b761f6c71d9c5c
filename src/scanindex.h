/* The pre-flight scan index (src/scanindex.c, src/scanledger.c): what the
 * last full protected-path scan or hard-link scan saw, and every fact of the
 * file system that answer depended on, so that the next launch can reuse
 * the answer after checking those facts instead of walking the tree again.
 *
 * A consumer (src/linux/mask.c, src/hardlink.c) does:
 *
 *     ix = sbx_index_begin(r, KIND, &key);      NULL: no index, scan in full
 *     if (ix && sbx_index_valid(ix, &cur))      every fact still true:
 *         ...read its results from cur...       reuse them
 *     else
 *         ...full scan, telling ix every directory listed (sbx_index_dir),
 *         every symlink whose target decided something (sbx_index_link),
 *         every other file whose state decided something (sbx_index_file),
 *         then its results (sbx_index_payload) and sbx_index_commit(ix)...
 *     sbx_index_end(ix);
 *
 * Soundness rests on the consumer reporting every input of its scan; the
 * argument for each kind of change is in docs/protected-paths.md ("The scan
 * index"). Whatever cannot be checked makes the consumer call
 * sbx_index_spoil(): no index is written, the next launch scans in full. */
#ifndef SANDBOX_SCANINDEX_H
#define SANDBOX_SCANINDEX_H

#include "internal.h"

#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

enum sbx_index_kind {
    SBX_INDEX_MASK = 1, /* the protected-path walk of src/linux/mask.c */
    SBX_INDEX_LINKS = 2 /* the hard-link scan of src/hardlink.c */
};

/* A growable byte string for keys and payloads. `oom` is sticky. */
struct sbx_bytes {
    unsigned char *data;
    size_t len, cap;
    int oom;
};
void sbx_bytes_u64(struct sbx_bytes *b, uint64_t v);
void sbx_bytes_str(struct sbx_bytes *b, const char *s); /* NULL is stored as "" */
void sbx_bytes_free(struct sbx_bytes *b);

/* Reading one back. A read past the end, or a string without its NUL, sets
 * `bad` and returns 0 or "": check `bad` once at the end. */
struct sbx_cursor {
    const unsigned char *p, *end;
    int bad;
};
uint64_t sbx_cursor_u64(struct sbx_cursor *c);
const char *sbx_cursor_str(struct sbx_cursor *c);

struct sbx_index;

/* The index for `key` (what the scan was asked: roots, patterns...) of this
 * launch, or NULL when there is none to use: switched off, no index
 * directory we can trust, or out of memory. Never fails the launch. */
struct sbx_index *sbx_index_begin(const sbx_resolved *r, int kind, const struct sbx_bytes *key);
/* 1 when the stored index for this key exists, is intact, and every fact it
 * recorded is still true; `payload` then reads the stored results. 0: scan
 * in full and record (the index is now recording). Call at most once. */
int sbx_index_valid(struct sbx_index *ix, struct sbx_cursor *payload);

/* The coarse clock the kernel stamps inodes with; read it before the stat
 * of a directory that sbx_index_dir is given (the "racy" check). */
void sbx_index_clock(struct timespec *now);
/* 1 when a directory stat'ed after `before` may still change without its
 * stamps showing it (a later change in the same clock tick, or the same
 * second where the file system keeps whole seconds). */
int sbx_index_racy(const struct stat *st, const struct timespec *before);
/* Recording. Every call takes NULL for ix and does nothing then. */
/* A tree begins: `root` (absolute) and what lies beneath it follow. */
void sbx_index_tree(struct sbx_index *ix, const char *root);
/* A directory about to be listed (or found unlistable): its path (the tree's
 * root or beneath it), its descriptor or -1, its stat taken after `before`. */
void sbx_index_dir(struct sbx_index *ix, const char *path, int fd, const struct stat *st,
                   const struct timespec *before);
/* A path that did not exist (a root, a file looked for). */
void sbx_index_absent(struct sbx_index *ix, const char *path);
/* A symlink whose target the scan looked at (stat or realpath). */
void sbx_index_link(struct sbx_index *ix, const char *path);
/* A file whose identity (and with `nlink`, link count) the result used;
 * `follow`: stat, else lstat. Recorded as it is now. */
void sbx_index_file(struct sbx_index *ix, const char *path, int follow, int nlink);
/* Something the index cannot vouch for: nothing is committed. */
void sbx_index_spoil(struct sbx_index *ix);
/* The results, written by the consumer (NULL when ix is NULL). */
struct sbx_bytes *sbx_index_payload(struct sbx_index *ix);
/* Store what was recorded, replacing the old index atomically. */
void sbx_index_commit(struct sbx_index *ix);
void sbx_index_end(struct sbx_index *ix);

/* A launch's memo of the directories its index checks have stat'ed, so
 * that its two scans (the hard-link scan and the protected-path walk, over
 * mostly the same tree) stat each once. Hung on r->index_memo by the
 * backend for one launch; NULL when out of memory (nothing is shared). */
struct sbx_index_memo *sbx_index_memo_new(void);
void sbx_index_memo_free(struct sbx_index_memo *memo);

/* ---- the watcher (src/linux/scanwatch.c) ----
 * An optional process of the user's (sandbox_index_watch) that keeps an
 * inotify watch on every directory a stored index lists and answers, on
 * SBX_WATCH_SOCKET in the index directory, whether any of them changed since
 * it checked their stamps under the watch. A launch it vouches for skips its
 * per-directory stats. It only answers questions: what it watches it reads
 * from the index directory, which no sandboxed command can write. */
#define SBX_WATCH_SOCKET "watch.sock"
#define SBX_WATCH_MAGIC 0x57584253u /* "SBXW" */
#define SBX_WATCH_VERSION 1u

struct sbx_watch_request {
    uint32_t magic, version;
    char name[48];          /* the index file, in the index directory */
    uint64_t ino, size, mtime_sec, mtime_nsec; /* the version the launch read */
    uint64_t mntns_dev, mntns_ino; /* the launch's mount namespace... */
    uint64_t root_dev, root_ino;   /* ...and root: the watcher's view must be the same */
};

/* Visit each directory record of a stored index file (whole, as read):
 * `cb` gets the tree, the path below it, and the recorded stat. Returns 0,
 * or -1 when the file is not an intact index or a callback returned
 * nonzero. */
int sbx_index_each_dir(const unsigned char *file, size_t len,
                       int (*cb)(void *ctx, const char *tree, const char *rel,
                                 const uint64_t stamps[11]),
                       void *ctx);
/* 1 when this lstat is what a directory record holds. */
int sbx_index_stamps_equal(const struct stat *st, const uint64_t stamps[11]);

/* ---- the index directory (shared with the ledger) ---- */

/* The index directory: .libsandbox in the account's home (the user
 * database), or in $HOME for an account without a usable home; newly
 * allocated, or NULL when there is none. Whether this launch uses an index
 * (r->scan_index_off) does not change it: every launch writes the ledger. */
char *sbx_index_home(const sbx_resolved *r);
/* Open it (made when missing, mode 0700), or -1: it must be a directory of
 * ours that no one else may write. */
int sbx_index_open_dir(const char *dir);

/* ---- the ledger (src/scanledger.c) ---- */

/* Every confined launch, before its command runs: refuse when a writable
 * root would let the command write an index directory (SANDBOX_E_PATH),
 * and add this launch's writable roots to the ledger of this boot, which
 * the hard-link index consults. */
int sbx_ledger_note(const sbx_resolved *r, char *warning, size_t warning_size,
                    sandbox_error *err);
/* What the ledger check asks about the index's trees. */
struct sbx_ledger_trees {
    /* 1 when a file system of the trees has this device number. */
    int (*on_dev)(void *ctx, uint64_t dev);
    /* 1 when a directory of the trees has this identity and birth time
     * (birth[0] UINT64_MAX: unknown, any matches). */
    int (*has_dir)(void *ctx, uint64_t dev, uint64_t ino, const uint64_t birth[2]);
    void *ctx;
};
/* 1 when no launch of this boot could have given an inode of the index's
 * trees a name that this launch cannot write but an earlier one could;
 * `dirfd` the index directory. */
int sbx_ledger_quiet(int dirfd, const char *boot, const sbx_resolved *r,
                     const struct sbx_ledger_trees *trees);
/* A directory's identity and birth: out = {dev, ino, birth seconds, birth
 * nanoseconds}, the birth UINT64_MAX where the file system keeps none.
 * `follow`: through a final symlink. 0, or -1 with errno. */
int sbx_index_identity(const char *path, int follow, uint64_t out[4]);
/* This boot's id (36 characters and a NUL) from the kernel; 0 or -1. */
int sbx_index_boot_id(char out[40]);

#endif
