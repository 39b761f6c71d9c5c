/* The creation guard's workers: a guarded open that may wait in the kernel
 * (a FIFO's other end, a lease being broken, a device) is finished by a
 * process of its own, so the supervisor's loop never waits with it
 * (review of issue 19, F3/F6). A module of the supervised run
 * (supervisor.h).
 *
 * The supervisor serves one notification at a time: before this, an
 * open(O_CREAT) of a file the command held a write lease on waited out the
 * lease-break time (45 s) inside the loop, with the timeout, the host's
 * death and every other creation unseen; a FIFO writer held every other
 * creation of the run until a reader came. guard.c decides which open may
 * wait, after every check; the worker only opens what is already there
 * (never with O_CREAT), so names are still made by the supervisor alone,
 * one call at a time.
 *
 * A worker is a fork of the supervisor (raw clone: no atfork handler of a
 * multi-threaded host may run): same mount namespace, Landlock domain,
 * credentials, not dumpable, outside the command's signal scope. A worker
 * whose open failed answers its notification itself through the inherited
 * listener; one that opened hands the descriptor to the supervisor over a
 * socket pair (SCM_RIGHTS), and the supervisor installs it and answers in
 * one call (ADDFD with SEND), so no moment of the worker's leaves a
 * descriptor in the command without its answer. Then it exits. The
 * supervisor holds its pidfd: it is killed when its caller stops waiting
 * (killed, or interrupted: the kernel would not have opened then either),
 * when the run ends (before the command's tree is signalled, so it is never
 * counted as the command's), and by the kernel when the supervisor dies
 * (parent-death signal). The caller's own pidfd wakes the loop when it dies,
 * so the worker goes at once: a FIFO writer killed while it waited would
 * otherwise stay a writer in the kernel's count until the next tick (50 ms),
 * and a reader opening meanwhile would find a partner that was never there
 * (its read then ends at once instead of waiting; a CI run saw it). A caller
 * interrupted without dying cannot be, once received (WAIT_KILLABLE_RECV).
 * The tick stays the bound where the pidfd says nothing: before Linux 5.19,
 * for a non-leading thread before 6.9, a leading thread whose process
 * lives on, one whose pid another thread's exec took over, and under a low
 * descriptor limit (caller_pidfd). Async-signal-safe, like the rest. */
#define _GNU_SOURCE
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/seccomp.h>
#include <sys/ioctl.h>

#ifndef SECCOMP_ADDFD_FLAG_SEND
#  define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif

#ifndef CLONE_PIDFD
#  define CLONE_PIDFD 0x00001000
#endif
#ifndef P_PIDFD
#  define P_PIDFD 3
#endif
#ifndef SYS_pidfd_open
#  define SYS_pidfd_open 434
#endif
#ifndef PIDFD_THREAD
#  define PIDFD_THREAD 0x80 /* O_EXCL: a pidfd for one thread (Linux 6.9+) */
#endif

/* How long a full backlog whose purge freed nothing is taken as still
 * full. A purge asks the kernel about each of its 1,024 calls (about 28 ms
 * here): made for every further open, a command filling the backlog on
 * purpose kept the supervisor busy for each one and slowed its own other
 * calls (review r39 F4: a plain creation waited 0.46 s). A call whose
 * caller was killed meanwhile keeps its place this much longer at most. */
#define SBX_PURGE_PAUSE_MS 250

static int purge_due(const struct sbx_sup *s)
{
    struct timespec now;
    long long ms;
    if (s->purge_at.tv_sec == 0)
        return 1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (long long)(now.tv_sec - s->purge_at.tv_sec) * 1000 +
         (now.tv_nsec - s->purge_at.tv_nsec) / 1000000;
    return ms >= SBX_PURGE_PAUSE_MS || ms < 0;
}

/* The backlog less the calls no longer waiting (their callers killed),
 * oldest first still; one that frees nothing pauses the next. */
static void backlog_purge(struct sbx_sup *s)
{
    unsigned i, kept = 0;
    if (!purge_due(s))
        return;
    for (i = 0; i < s->n_backlog; i++) {
        const struct sbx_backlog_call *c = &s->backlog[(s->backlog_head + i) % SBX_GUARD_BACKLOG];
        if (sbx_sup_valid(s, c->id))
            s->backlog[(s->backlog_head + kept++) % SBX_GUARD_BACKLOG] = *c;
    }
    if (kept < s->n_backlog)
        s->purge_at.tv_sec = 0;
    else
        clock_gettime(CLOCK_MONOTONIC, &s->purge_at);
    s->n_backlog = kept;
}

/* Descriptors a worker's start and its handover need besides its pidfd:
 * the guard's own opens of the call (a folder, /proc files), the socket
 * pair, the handed descriptor. */
#define SBX_WORK_FD_ROOM 8

/* The caller's pidfd: its thread's (Linux 6.9+), else its process's when
 * it leads one; 0 when neither. Valid only while the call is: pinned, the
 * thread is the caller, checked by the sweep like the rest. Only a speed-up
 * (the tick stays the bound), so it is kept only while the descriptors
 * every other worker and its handover would need are still free above it
 * (review r75 F1: under a low RLIMIT_NOFILE, callers' pidfds took the
 * numbers later workers needed, and guarded opens failed EMFILE). The
 * pidfd is the lowest free number: what lies above it is the room. */
static int caller_pidfd(const struct sbx_sup *s, pid_t tid)
{
    struct rlimit rl;
    int fd = (int)syscall(SYS_pidfd_open, (long)tid, PIDFD_THREAD);
    if (fd < 0 && errno == EINVAL)
        fd = (int)syscall(SYS_pidfd_open, (long)tid, 0);
    if (fd <= 0)
        return 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
        (rl.rlim_cur != RLIM_INFINITY &&
         (rlim_t)fd + 2 * (rlim_t)(SBX_GUARD_WORKERS - s->n_workers) + SBX_WORK_FD_ROOM >= rl.rlim_cur)) {
        close(fd);
        return 0;
    }
    return fd;
}

int sbx_work_start(struct sbx_sup *s, uint64_t id, pid_t tid)
{
    struct sbx_guard_worker *w = NULL;
    pid_t me = getpid(), pid;
    int i, pidfd = -1;

    /* The run is ending: the caller is about to be ended too, and a new
     * process now would only delay that. The kernel's answer to a wait cut
     * short. */
    if (s->phase == SBX_SUP_TERM || s->phase == SBX_SUP_KILL)
        return EINTR;
    for (i = 0; i < SBX_GUARD_WORKERS && !w; i++)
        if (s->workers[i].pidfd <= 0)
            w = &s->workers[i];
    /* Bounded: workers are the supervisor's, outside the run's cgroup and
     * its pids.max. Past the bound the call waits, received, in the
     * backlog (supervisor.c serves it again when a worker ends); a full
     * backlog stops the loop taking calls, so the caller told to try again
     * is a fallback that is never reached. */
    if (!w) {
        /* Full: first let go of calls whose callers were killed while
         * they waited (review r38 F1b: dead entries kept it full). */
        if (s->n_backlog >= SBX_GUARD_BACKLOG)
            backlog_purge(s);
        if (s->n_backlog >= SBX_GUARD_BACKLOG)
            return EAGAIN;
        if (!s->backlog) {
            void *m = mmap(NULL, SBX_GUARD_BACKLOG * sizeof *s->backlog, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED)
                return EAGAIN;
            s->backlog = m;
        }
        s->backlog_want = 1;
        return 1; /* answered later, as by a worker */
    }
    /* Shared with every worker: which one is answering (below). */
    if (!s->work_busy) {
        void *m = mmap(NULL, SBX_GUARD_WORKERS * sizeof *s->work_busy, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return EAGAIN;
        s->work_busy = m;
    }
    /* Where workers hand their descriptors over (sbx_work_hand). */
    if (s->work_sock[0] <= 0) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
            return EAGAIN;
        s->work_sock[0] = sv[0];
        s->work_sock[1] = sv[1];
    }
    __atomic_store_n(&s->work_busy[w - s->workers], 0, __ATOMIC_SEQ_CST);
    /* Raw clone, flags first and the parent's tid pointer third on every
     * architecture this builds for; CLONE_PIDFD writes the pidfd there. */
    pid = (pid_t)syscall(SYS_clone, CLONE_PIDFD | SIGCHLD, 0, &pidfd, 0, 0);
    if (pid < 0)
        return errno == ENOMEM || errno == EAGAIN ? EAGAIN : errno;
    if (pid == 0) {
        /* The supervisor's death (SIGKILL from outside) ends its workers:
         * a worker left waiting would hold the command's call. Its death
         * before this line is seen by getppid. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != me)
            _exit(126);
        s->guard_worker = (int)(w - s->workers) + 1;
        /* flock's lock is the open file description's: the supervisor's
         * would be this worker's too, and an unlock here the supervisor's.
         * A worker never makes a name, so it needs none. */
        if (s->plock_fd >= 0) {
            close(s->plock_fd);
            s->plock_fd = -1;
        }
        return 0;
    }
    w->pidfd = pidfd;
    w->id = id;
    w->caller_fd = caller_pidfd(s, tid);
    s->n_workers++;
    return 1;
}

/* A worker that has its result is left to finish: killed then, an open
 * the kernel made (a FIFO's partner woken) would be answered EAGAIN. Its
 * answer also makes the notification invalid, which the sweep would read
 * as its caller gone. So the worker says it answers, before it does. (A
 * kill from outside at any moment is safe all the same: before the
 * handover the sweep answers EAGAIN, after it the supervisor installs.) */
void sbx_work_answering(struct sbx_sup *s)
{
    if (s->guard_worker > 0 && s->work_busy)
        __atomic_store_n(&s->work_busy[s->guard_worker - 1], 1, __ATOMIC_SEQ_CST);
}

/* A worker's handover: the call it opened for, and whether the command
 * asked for O_CLOEXEC; the descriptor rides along (SCM_RIGHTS). */
struct work_msg {
    uint64_t id;
    uint32_t cloexec;
    uint32_t pad; /* cppcheck-suppress unusedStructMember ; no hole: sent whole */
};

int sbx_work_hand(struct sbx_sup *s, uint64_t id, int fd, int cloexec)
{
    struct work_msg m;
    struct msghdr msg;
    struct iovec iov;
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(sizeof(int))];
    } cm;
    struct cmsghdr *c;
    memset(&m, 0, sizeof m);
    memset(&msg, 0, sizeof msg);
    memset(&cm, 0, sizeof cm);
    m.id = id;
    m.cloexec = cloexec != 0;
    iov.iov_base = &m;
    iov.iov_len = sizeof m;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = cm.b;
    msg.msg_controllen = sizeof cm.b;
    c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    /* At most one message per worker waits: the queue is never full.
     * The kernel still refuses a descriptor in flight past the user's
     * count (ETOOMANYREFS, review r63 F1): the worker then installs it
     * itself (guard.c). */
    if (sendmsg(s->work_sock[1], &msg, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)sizeof m)
        return 0;
    return EAGAIN;
}

/* Installs a handed descriptor (the lowest free number, under the
 * command's own limits) and answers with it, atomically. ENOENT: the
 * caller was killed meanwhile. */
static void install(const struct sbx_sup *s, const struct work_msg *m, int fd)
{
    struct seccomp_notif_addfd a;
    if (s->lfd >= 0) {
        memset(&a, 0, sizeof a);
        a.id = m->id;
        a.flags = SECCOMP_ADDFD_FLAG_SEND;
        a.srcfd = (uint32_t)fd;
        a.newfd = 0;
        a.newfd_flags = m->cloexec ? O_CLOEXEC : 0;
        if (ioctl(s->lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) < 0 && errno != ENOENT &&
            errno != EINPROGRESS)
            sbx_sup_respond(s, m->id, -1, errno);
    }
    close(fd);
}

void sbx_work_drain(struct sbx_sup *s)
{
    struct work_msg m;
    struct msghdr msg;
    struct iovec iov;
    union {
        struct cmsghdr h;
        char b[CMSG_SPACE(sizeof(int) * 4)];
    } cm;
    struct cmsghdr *c;
    ssize_t n;
    int fd;
    if (s->work_sock[0] <= 0)
        return;
    for (;;) {
        memset(&m, 0, sizeof m);
        memset(&msg, 0, sizeof msg);
        iov.iov_base = &m;
        iov.iov_len = sizeof m;
        msg.msg_iov = &iov;
        msg.msg_iovlen = 1;
        msg.msg_control = cm.b;
        msg.msg_controllen = sizeof cm.b;
        n = recvmsg(s->work_sock[0], &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return; /* EAGAIN: none left */
        fd = -1;
        for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
            size_t k, nfd;
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (k = 0; k < nfd; k++) {
                int x;
                memcpy(&x, CMSG_DATA(c) + k * sizeof(int), sizeof x);
                if (fd < 0)
                    fd = x;
                else
                    close(x);
            }
        }
        if (n != (ssize_t)sizeof m) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        /* No descriptor came (the supervisor out of descriptors: the
         * kernel drops it, MSG_CTRUNC): the call could not be taken. */
        if (fd < 0)
            sbx_sup_respond(s, m.id, -1, EAGAIN);
        else
            install(s, &m, fd);
    }
}

static int busy(const struct sbx_sup *s, const struct sbx_guard_worker *w)
{
    return s->work_busy && __atomic_load_n(&s->work_busy[w - s->workers], __ATOMIC_SEQ_CST);
}

static void release(struct sbx_sup *s, struct sbx_guard_worker *w)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    /* Reaped here unless the tree's reaping (wait4 of any child) was first. */
    (void)syscall(SYS_waitid, P_PIDFD, w->pidfd, &si, WEXITED | WNOHANG, NULL);
    close(w->pidfd);
    w->pidfd = 0;
    if (w->caller_fd > 0)
        close(w->caller_fd);
    w->caller_fd = 0;
    s->n_workers--;
    s->room_gen++;
}

void sbx_work_sweep(struct sbx_sup *s)
{
    struct pollfd pf;
    int i;
    for (i = 0; i < SBX_GUARD_WORKERS && s->n_workers > 0; i++) {
        struct sbx_guard_worker *w = &s->workers[i];
        if (w->pidfd <= 0)
            continue;
        pf.fd = w->pidfd;
        pf.events = POLLIN;
        pf.revents = 0;
        if (poll(&pf, 1, 0) > 0) { /* exited */
            /* One that ended before its answer (killed from outside, or
             * its own start failed) left its call waiting, and nothing
             * else would answer it (review r58 F4: until the timeout, or
             * for ever): EAGAIN, as a call the guard could not take. A
             * descriptor it handed over before it ended is installed
             * first (it is queued by now); an id already answered is
             * refused by the kernel, so a late second answer is
             * harmless. */
            sbx_work_drain(s);
            sbx_sup_respond(s, w->id, -1, EAGAIN);
            release(s, w);
            continue;
        }
        /* Its caller no longer waits: the open it is in would be one the
         * kernel never made (a FIFO's phantom partner). The caller's pidfd
         * is then let go: readable for good, it would keep waking the
         * loop; the worker's own pidfd says when it has gone. */
        if (!sbx_sup_valid(s, w->id)) {
            if (!busy(s, w))
                (void)syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
            if (w->caller_fd > 0)
                close(w->caller_fd);
            w->caller_fd = 0;
        }
    }
}

int sbx_work_fds(const struct sbx_sup *s, struct pollfd *pf, int room)
{
    int i, n = 0;
    if (s->n_workers > 0 && s->work_sock[0] > 0 && room > 0) {
        pf[0].fd = s->work_sock[0];
        pf[0].events = POLLIN;
        pf[0].revents = 0;
        n++;
    }
    for (i = 0; i < SBX_GUARD_WORKERS && n < room; i++)
        if (s->workers[i].pidfd > 0) {
            pf[n].fd = s->workers[i].pidfd;
            pf[n].events = POLLIN;
            pf[n].revents = 0;
            n++;
            if (s->workers[i].caller_fd > 0 && n < room) {
                pf[n].fd = s->workers[i].caller_fd;
                pf[n].events = POLLIN;
                pf[n].revents = 0;
                n++;
            }
        }
    return n;
}

void sbx_work_end(struct sbx_sup *s)
{
    struct pollfd pf;
    struct timespec t0, now;
    long left;
    int i;
    for (i = 0; i < SBX_GUARD_WORKERS; i++)
        if (s->workers[i].pidfd > 0 && !busy(s, &s->workers[i]))
            (void)syscall(SYS_pidfd_send_signal, s->workers[i].pidfd, SIGKILL, NULL, 0);
    /* Every wait a worker can be in (a FIFO's partner, a lease break) ends
     * at SIGKILL, and one that answers is about to exit; bounded all the
     * same (500 ms for all), and one still alive after it is ended with
     * the tree. */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < SBX_GUARD_WORKERS && s->n_workers > 0; i++) {
        struct sbx_guard_worker *w = &s->workers[i];
        if (w->pidfd <= 0)
            continue;
        clock_gettime(CLOCK_MONOTONIC, &now);
        left = 500 - ((long)(now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000);
        pf.fd = w->pidfd;
        pf.events = POLLIN;
        pf.revents = 0;
        (void)poll(&pf, 1, left > 0 ? (int)left : 0);
        release(s, w);
    }
    /* What the last ones handed over before they ended. */
    sbx_work_drain(s);
}
