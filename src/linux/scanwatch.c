/* The pre-flight index watcher (sandbox_index_watch): a process of the
 * user's, started once per session, that spares warm launches their one
 * stat per directory. For each stored index a launch asks about, it puts an
 * inotify watch on every directory the index lists, then checks each one's
 * stamps against the index (watch first, so a change after the check is an
 * event and a change before it a different stamp); from then on any event
 * on one of them, an overflow, or any mount change makes it say "changed".
 * A launch it vouches for checks only each tree's root.
 *
 * What inotify reports on a watched directory is what its stamps record:
 * names created, removed or moved in or out (IN_CREATE, IN_DELETE,
 * IN_MOVED_*), its own attributes (IN_ATTRIB without a name), the directory
 * itself moved or removed (IN_MOVE_SELF, IN_DELETE_SELF, IN_IGNORED), its
 * file system unmounted (IN_UNMOUNT). Mounts change no stamp and send no
 * event: /proc/self/mountinfo polls for them. Changes made through another
 * path or mount namespace are events too (a watch is on the inode).
 *
 * It only answers: the directories come from the index files in the index
 * directory, which no sandboxed command can write (scanledger.c), never
 * from the request; a request names a file and the version of it the
 * launch read. A sandboxed command may connect (connect(2) to a path is not
 * confined) and ask, and learn nothing it cannot read; it cannot replace
 * the socket (it cannot create names there). If it kills the watcher
 * (signals are not scoped in confined mode), launches check stamps again.
 * Each answer follows a read of every pending event: a change finished
 * before the launch asked is always in the queue by then (fsnotify queues
 * it inside the system call that made it). */
#define _GNU_SOURCE
#include "linux.h"
#include "../scanindex.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

/* Indexes watched at once; the least recently asked about is dropped. */
#define MAX_REGS 64

#define WATCH_MASK                                                                               \
    (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB | IN_DELETE_SELF |           \
     IN_MOVE_SELF | IN_ONLYDIR)

struct reg {
    char name[48];        /* the index file; "" when the slot is free */
    uint64_t ino, size, mtime_sec, mtime_nsec;
    int clean;            /* no event since its stamps were checked under watch */
    int *wds;
    size_t n_wds, cap_wds;
    unsigned long long used; /* when last asked about (a counter) */
};

/* wd -> the registrations watching it, as a bit set. */
struct wd_slot {
    int wd;         /* 0: free */
    uint64_t regs;
};

struct watcher {
    int dirfd, ifd, lfd, mfd, efd;
    struct reg regs[MAX_REGS];
    struct wd_slot *wds;
    size_t cap_wds, n_wds;
    uint64_t mntns_dev, mntns_ino, root_dev, root_ino;
    unsigned long long clock, answered, vouched;
};

static struct wd_slot *wd_find(struct watcher *w, int wd, int create)
{
    size_t j, cap;
    if (create && (w->n_wds + 1) * 2 > w->cap_wds) {
        struct wd_slot *g;
        size_t i;
        cap = w->cap_wds ? w->cap_wds * 2 : 1024;
        g = calloc(cap, sizeof *g);
        if (!g)
            return NULL;
        for (i = 0; i < w->cap_wds; i++) {
            if (!w->wds[i].wd)
                continue;
            for (j = (size_t)w->wds[i].wd * 2654435761u & (cap - 1); g[j].wd; j = (j + 1) & (cap - 1))
                ;
            g[j] = w->wds[i];
        }
        free(w->wds);
        w->wds = g;
        w->cap_wds = cap;
    }
    if (!w->cap_wds)
        return NULL;
    for (j = (size_t)wd * 2654435761u & (w->cap_wds - 1); w->wds[j].wd; j = (j + 1) & (w->cap_wds - 1))
        if (w->wds[j].wd == wd)
            return &w->wds[j];
    if (!create)
        return NULL;
    w->wds[j].wd = wd;
    w->wds[j].regs = 0;
    w->n_wds++;
    return &w->wds[j];
}

static void wd_remove(struct watcher *w, const struct wd_slot *s)
{
    /* Re-insert the rest of the cluster (linear probing). */
    size_t j = (size_t)(s - w->wds), k;
    w->wds[j].wd = 0;
    w->n_wds--;
    for (k = (j + 1) & (w->cap_wds - 1); w->wds[k].wd; k = (k + 1) & (w->cap_wds - 1)) {
        struct wd_slot moved = w->wds[k];
        struct wd_slot *t;
        w->wds[k].wd = 0;
        w->n_wds--;
        t = wd_find(w, moved.wd, 1);
        if (t)
            t->regs = moved.regs;
    }
}

/* Forget registration i: its watches go when no other one uses them. */
static void reg_drop(struct watcher *w, size_t i)
{
    struct reg *r = &w->regs[i];
    size_t k;
    for (k = 0; k < r->n_wds; k++) {
        struct wd_slot *s = wd_find(w, r->wds[k], 0);
        if (!s)
            continue;
        s->regs &= ~(1ull << i);
        if (!s->regs) {
            inotify_rm_watch(w->ifd, s->wd);
            wd_remove(w, s);
        }
    }
    free(r->wds);
    memset(r, 0, sizeof *r);
}

static void all_changed(struct watcher *w)
{
    size_t i;
    for (i = 0; i < MAX_REGS; i++)
        if (w->regs[i].name[0])
            reg_drop(w, i);
}

/* Read every pending event. A registration any event touches is dropped:
 * the next launch checks stamps, and asking registers it again. */
static void drain(struct watcher *w)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(w->ifd, buf, sizeof buf), off;
        if (n <= 0)
            return;
        for (off = 0; off < n;) {
            const struct inotify_event *ev = (const struct inotify_event *)(buf + off);
            off += (ssize_t)(sizeof *ev + ev->len);
            if (ev->mask & IN_Q_OVERFLOW) {
                all_changed(w);
                continue;
            }
            /* A file's own attributes (chmod, touch, its link count) are not
             * the directory's: nothing either scan records. */
            if ((ev->mask & IN_ATTRIB) && ev->len > 0 && !(ev->mask & IN_ISDIR))
                continue;
            {
                struct wd_slot *s = wd_find(w, ev->wd, 0);
                size_t i;
                uint64_t regs = s ? s->regs : 0;
                for (i = 0; i < MAX_REGS; i++)
                    if (regs & (1ull << i))
                        reg_drop(w, i);
            }
        }
    }
}

/* A mount or unmount anywhere in our namespace: the paths we watch may
 * now lead to another file system, and no event says so. The kernel
 * reports a change of the mount table once per open file, to whichever
 * poll looks first (epoll's own included): so whoever sees it acts. */
static void mounts_changed(struct watcher *w)
{
    char buf[4096];
    all_changed(w);
    lseek(w->mfd, 0, SEEK_SET);
    while (read(w->mfd, buf, sizeof buf) > 0)
        ;
}

/* Act on every event that has happened by now: a mount or an inotify event
 * finished before a launch asked is queued (or pending in epoll) by then.
 * Other descriptors stay ready for the main loop (level-triggered). */
static void pump(struct watcher *w)
{
    struct epoll_event got[8];
    int n, k;
    drain(w);
    while ((n = epoll_wait(w->efd, got, 8, 0)) > 0) {
        int acted = 0;
        for (k = 0; k < n; k++) {
            if (got[k].data.fd == w->mfd) {
                mounts_changed(w);
                acted = 1;
            } else if (got[k].data.fd == w->ifd) {
                drain(w);
                acted = 1;
            }
        }
        if (!acted)
            break; /* only the listener or the stop: for the main loop */
    }
}

struct reg_ctx {
    struct watcher *w;
    struct reg *r;
    size_t i;
};

static int watch_one(void *ctx, const char *tree, const char *rel, const uint64_t stamps[11])
{
    struct reg_ctx *c = ctx;
    char path[PATH_MAX];
    struct stat st;
    struct wd_slot *s;
    int wd, n;
    n = snprintf(path, sizeof path, "%s%s%s", tree, rel[0] && !(tree[0] == '/' && !tree[1]) ? "/" : "",
                 rel);
    if (n < 0 || (size_t)n >= sizeof path)
        return -1;
    /* The root as the scans open it (following links), the rest not. */
    wd = inotify_add_watch(c->w->ifd, path, WATCH_MASK | (rel[0] ? IN_DONT_FOLLOW : 0));
    if (wd < 0)
        return -1; /* out of watches (max_user_watches), or gone */
    if (c->r->n_wds == c->r->cap_wds) {
        size_t cap = c->r->cap_wds ? c->r->cap_wds * 2 : 256;
        int *g = realloc(c->r->wds, cap * sizeof *g);
        if (!g)
            return -1;
        c->r->wds = g;
        c->r->cap_wds = cap;
    }
    c->r->wds[c->r->n_wds++] = wd;
    s = wd_find(c->w, wd, 1);
    if (!s)
        return -1;
    s->regs |= 1ull << c->i;
    /* Under the watch now: the stamps must still be what the index says. */
    if ((rel[0] ? lstat(path, &st) : stat(path, &st)) != 0 || !sbx_index_stamps_equal(&st, stamps))
        return -1;
    return 0;
}

/* Watch the directories of the index file `q` names, as the launch read it. */
static void reg_add(struct watcher *w, const struct sbx_watch_request *q)
{
    struct reg_ctx c;
    struct stat st;
    unsigned char *buf = NULL;
    size_t i, slot = 0, got = 0;
    int fd;
    for (i = 0; i < MAX_REGS; i++) {
        if (w->regs[i].name[0] && strcmp(w->regs[i].name, q->name) == 0) {
            slot = i;
            break;
        }
        if (!w->regs[i].name[0] || (w->regs[slot].name[0] && w->regs[i].used < w->regs[slot].used))
            slot = i;
    }
    if (w->regs[slot].name[0])
        reg_drop(w, slot);
    /* Read as a launch reads it: ours, private, one name, the version asked about. */
    fd = openat(w->dirfd, q->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 022) || st.st_nlink != 1 || (uint64_t)st.st_ino != q->ino ||
        (uint64_t)st.st_size != q->size || (uint64_t)st.st_mtim.tv_sec != q->mtime_sec ||
        (uint64_t)st.st_mtim.tv_nsec != q->mtime_nsec || st.st_size > (off_t)(256 << 20) ||
        !(buf = malloc((size_t)st.st_size + 1))) {
        close(fd);
        return;
    }
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    memset(&c, 0, sizeof c);
    c.w = w;
    c.r = &w->regs[slot];
    c.i = slot;
    snprintf(c.r->name, sizeof c.r->name, "%s", q->name);
    c.r->ino = q->ino;
    c.r->size = q->size;
    c.r->mtime_sec = q->mtime_sec;
    c.r->mtime_nsec = q->mtime_nsec;
    c.r->used = ++w->clock;
    c.r->clean = got == (size_t)st.st_size &&
                 sbx_index_each_dir(buf, got, watch_one, &c) == 0;
    free(buf);
    if (!c.r->clean)
        reg_drop(w, slot);
    /* Events that came while the watches were added belong to this check. */
    pump(w);
}

static void serve(struct watcher *w)
{
    struct sbx_watch_request q;
    struct timeval tv = {0, 100000};
    uint32_t answer = 0;
    size_t i;
    int fd = accept4(w->lfd, NULL, NULL, SOCK_CLOEXEC);
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (fd < 0)
        return;
    /* Only our own user; and a request whole, or nothing. */
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) != 0 || cred.uid != geteuid() ||
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0 ||
        recv(fd, &q, sizeof q, 0) != (ssize_t)sizeof q || q.magic != SBX_WATCH_MAGIC ||
        q.version != SBX_WATCH_VERSION || memchr(q.name, '\0', sizeof q.name) == NULL ||
        strchr(q.name, '/') != NULL || q.name[0] == '.' || q.name[0] == '\0') {
        close(fd);
        return;
    }
    w->answered++;
    pump(w);
    /* The same view of the file system: one mount namespace, one root. */
    if (q.mntns_dev == w->mntns_dev && q.mntns_ino == w->mntns_ino && q.root_dev == w->root_dev &&
        q.root_ino == w->root_ino) {
        for (i = 0; i < MAX_REGS; i++) {
            struct reg *r = &w->regs[i];
            if (r->name[0] && r->clean && strcmp(r->name, q.name) == 0 && r->ino == q.ino &&
                r->size == q.size && r->mtime_sec == q.mtime_sec && r->mtime_nsec == q.mtime_nsec) {
                answer = 1;
                r->used = ++w->clock;
                break;
            }
        }
    }
    w->vouched += answer;
    send(fd, &answer, sizeof answer, MSG_NOSIGNAL);
    close(fd);
    /* Not vouched: watch it now, for the next launch. */
    if (!answer && q.mntns_dev == w->mntns_dev && q.mntns_ino == w->mntns_ino)
        reg_add(w, &q);
}

static int fail(sandbox_error *err, int e, const char *what)
{
    return sbx_fail(err, SANDBOX_E_SYSTEM, e, "the pre-flight index watcher cannot %s: %s", what,
                    strerror(e));
}

int sandbox_index_watch(int stop_fd, unsigned long long *answered, unsigned long long *vouched,
                        sandbox_error *err)
{
    struct watcher w;
    struct sockaddr_un sa;
    struct epoll_event ev;
    struct stat st, sock_st;
    sbx_resolved r;
    char *dir;
    int rc = SANDBOX_OK, e;

    sbx_error_clear(err);
    memset(&w, 0, sizeof w); /* every descriptor is set below before any "goto out" */
    memset(&r, 0, sizeof r);
    dir = sbx_index_home(&r);
    if (!dir)
        return sbx_fail(err, SANDBOX_E_PATH, 0,
                        "the pre-flight index watcher has no index directory: the account has no "
                        "home of its own and $HOME is not a directory you own");
    w.dirfd = sbx_index_open_dir(dir);
    if (w.dirfd < 0) {
        rc = sbx_fail(err, SANDBOX_E_PATH, errno,
                      "the pre-flight index watcher cannot use %s: it must be a directory of "
                      "yours", dir);
        free(dir);
        return rc;
    }
    if (stat("/proc/self/ns/mnt", &st) == 0) {
        w.mntns_dev = (uint64_t)st.st_dev;
        w.mntns_ino = (uint64_t)st.st_ino;
    }
    if (stat("/", &st) == 0) {
        w.root_dev = (uint64_t)st.st_dev;
        w.root_ino = (uint64_t)st.st_ino;
    }
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d/%s", w.dirfd, SBX_WATCH_SOCKET);
    w.ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    w.mfd = openat(AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    w.lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    w.efd = epoll_create1(EPOLL_CLOEXEC);
    if (w.ifd < 0 || w.mfd < 0 || w.lfd < 0 || w.efd < 0) {
        rc = fail(err, errno, "start (inotify, epoll, a socket or /proc/self/mountinfo)");
        goto out;
    }
    /* One watcher per user: a socket someone answers on is left alone; a
     * stale one (a killed watcher) is replaced. */
    {
        int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (probe >= 0 && connect(probe, (struct sockaddr *)&sa, sizeof sa) == 0) {
            close(probe);
            rc = sbx_fail(err, SANDBOX_E_REFUSED, EBUSY,
                          "a pre-flight index watcher already runs for this user (%s/%s)", dir,
                          SBX_WATCH_SOCKET);
            goto out;
        }
        if (probe >= 0)
            close(probe);
        unlinkat(w.dirfd, SBX_WATCH_SOCKET, 0);
    }
    if (bind(w.lfd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        fchmodat(w.dirfd, SBX_WATCH_SOCKET, 0600, 0) != 0 || listen(w.lfd, 64) != 0 ||
        fstatat(w.dirfd, SBX_WATCH_SOCKET, &sock_st, AT_SYMLINK_NOFOLLOW) != 0) {
        rc = fail(err, errno, "listen in the index directory");
        goto out;
    }
    /* Read mountinfo once: poll reports changes after this. */
    {
        char buf[4096];
        while (read(w.mfd, buf, sizeof buf) > 0)
            ;
    }
    memset(&ev, 0, sizeof ev);
    ev.events = EPOLLIN;
    ev.data.fd = w.lfd;
    e = epoll_ctl(w.efd, EPOLL_CTL_ADD, w.lfd, &ev);
    ev.data.fd = w.ifd;
    e = e ? e : epoll_ctl(w.efd, EPOLL_CTL_ADD, w.ifd, &ev);
    ev.events = EPOLLPRI;
    ev.data.fd = w.mfd;
    e = e ? e : epoll_ctl(w.efd, EPOLL_CTL_ADD, w.mfd, &ev);
    ev.events = EPOLLIN | EPOLLHUP;
    ev.data.fd = stop_fd;
    e = e ? e : epoll_ctl(w.efd, EPOLL_CTL_ADD, stop_fd, &ev);
    if (e != 0) {
        rc = fail(err, errno, "wait for events");
        goto out;
    }
    for (;;) {
        struct epoll_event got[8];
        int n = epoll_wait(w.efd, got, 8, -1), k, stop = 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = fail(err, errno, "wait for events");
            break;
        }
        for (k = 0; k < n; k++) {
            if (got[k].data.fd == stop_fd)
                stop = 1;
            else if (got[k].data.fd == w.ifd)
                drain(&w);
            else if (got[k].data.fd == w.mfd)
                mounts_changed(&w);
        }
        if (stop)
            break;
        for (k = 0; k < n; k++)
            if (got[k].data.fd == w.lfd)
                serve(&w);
    }
    /* Our socket only: another watcher may have replaced a stale one. */
    if (fstatat(w.dirfd, SBX_WATCH_SOCKET, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        st.st_ino == sock_st.st_ino && st.st_dev == sock_st.st_dev)
        unlinkat(w.dirfd, SBX_WATCH_SOCKET, 0);
out:
    if (answered)
        *answered = w.answered;
    if (vouched)
        *vouched = w.vouched;
    all_changed(&w);
    free(w.wds);
    if (w.efd >= 0)
        close(w.efd);
    if (w.lfd >= 0)
        close(w.lfd);
    if (w.mfd >= 0)
        close(w.mfd);
    if (w.ifd >= 0)
        close(w.ifd);
    if (w.dirfd >= 0)
        close(w.dirfd);
    free(dir);
    return rc;
}
