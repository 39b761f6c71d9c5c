/* Recorded refusals: a socket the mode refuses, io_uring setup. The
 * listener's program stops such a call in the kernel (the main program of a
 * supervised run leaves it through), so the supervisor learns of it from the
 * kernel's decision, not from an exit status or a sentence the command could
 * print. It records who (pid, thread name), what (syscall, family, type),
 * and what became of the caller:
 *   io_uring_setup, and a read-only run's local socket: EPERM;
 *   a refused socket under --net-eperm: EPERM, and the program goes on;
 *   a refused socket by default: SIGSYS to the calling thread, as seed 000's
 *   contract says: a thread that does not catch SIGSYS takes its whole
 *   process down, as the kernel's own kill did. One with a SIGSYS handler
 *   runs it and the call then fails with EPERM (the signal is catchable).
 *   Any other survivor (SIGSYS blocked, ignored, or taken by a tracer) gets
 *   SIGKILL, and the record says so.
 *
 * Why the fate is observed and not predicted (review of issue 19): between
 * the signal and the moment the caller takes it, another thread of its
 * process can set SIGSYS to ignored, which discards a pending SIGSYS, and a
 * tracer can swallow it. Whatever the disposition read before, only what
 * the caller did afterwards is certain. So the call is answered with
 * ERESTARTNOINTR, after the signal is pending in the thread's own queue (so
 * the thread's signal work runs on its way out): the thread dies of SIGSYS,
 * or its handler runs and the kernel restarts the call, or (SIGSYS gone)
 * the kernel restarts it at once. A restarted call comes back here from a
 * thread we are waiting on: a SIGSYS handler (now, or when the signal was
 * queued: took_handler) means "caught" (EPERM); none means it survived
 * uncaught: SIGKILL. A thread found alive without SIGSYS pending and
 * without coming back (a tracer, a handler that changed the registers) is
 * judged the same way after a grace period; one whose process ended is
 * recorded by its process's wait status (SIGSYS, or ENDED).
 *
 * No caller is killed for the supervisor's own want of room: the table of
 * threads waited on is large and, when full, notifications wait in the
 * kernel; a call that cannot get a pidfd (EMFILE) waits, deferred.
 *
 * Every signal goes through a pidfd opened while the call is still pending
 * (SECCOMP_IOCTL_NOTIF_ID_VALID after pidfd_open), so it reaches the thread
 * that made the call, never a later process that reused its number. */
#define _GNU_SOURCE
#include "supervisor.h"

#include <fcntl.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#  define PIDFD_THREAD 0x80 /* O_EXCL: a pidfd for one thread (Linux 6.9+) */
#endif

/* The exit status of a pidfd's process, even once reaped (Linux 6.15+):
 * PIDFD_GET_INFO with the first version of struct pidfd_info, 64 bytes:
 * the request mask at 0, exit_code at 60. */
#define SBX_PIDFD_INFO_SIZE 64
#define SBX_PIDFD_INFO_EXIT_AT 60
#define SBX_PIDFD_INFO_EXIT (1ULL << 3)
#define SBX_PIDFD_GET_INFO _IOC(_IOC_READ | _IOC_WRITE, 0xFF, 11, SBX_PIDFD_INFO_SIZE)

#define SBX_AF_INET 2
#define SBX_AF_INET6 10
/* The kernel's "restart this call, after any signal handler" (never seen by
 * a program: the kernel turns it into a restart on the way out). */
#define SBX_ERESTARTNOINTR 513
/* How long a thread found alive, SIGSYS gone, may take to come back (or
 * finish dying) before it is judged: dying takes microseconds. */
#define SBX_SIGSYS_SETTLE_MS 200

static const uint64_t sigsys_bit = 1ULL << (SIGSYS - 1);

/* Send sig to the thread tid (thread = 1) or to its process tgid, through a
 * pidfd checked against the pending notification. 0, or an errno. */
static int send_checked(const struct sbx_sup *s, const struct sbx_notif *n, long tgid, int sig,
                        int thread)
{
    int fd, e;
    fd = (int)syscall(SYS_pidfd_open, thread ? (long)n->tid : tgid, thread ? PIDFD_THREAD : 0);
    if (fd < 0 && thread && errno == EINVAL) {
        /* Before 6.9 there are no thread pidfds: tgkill while the call is
         * pending (the thread waits in it, so its id is not free). */
        if (!sbx_sup_valid(s, n->id))
            return ESRCH;
        return syscall(SYS_tgkill, tgid, (long)n->tid, sig) == 0 ? 0 : errno;
    }
    if (fd < 0)
        return errno;
    /* The pidfd pins whatever had the number when it was opened: the one
     * that made the call only if the call is still pending now. */
    if (!sbx_sup_valid(s, n->id)) {
        close(fd);
        return ESRCH;
    }
    e = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0 ? 0 : errno;
    close(fd);
    return e;
}

static void record(struct sbx_sup *s, const struct sbx_sigsys_wait *w, int action)
{
    struct sbx_rec_in r;
    memset(&r, 0, sizeof r);
    r.kind = w->kind;
    r.action = action;
    r.name = w->name;
    r.compat = w->compat;
    r.family = w->family;
    r.type = w->type;
    r.pid = w->tgid;
    r.comm = w->comm;
    sbx_rec_add(s->opts->records, &r);
}

static void release(struct sbx_sup *s, struct sbx_sigsys_wait *w)
{
    if (w->state == SBX_WAIT_SENT) {
        close(w->pidfd);
        s->room_gen++;
    }
    w->pidfd = -1;
    w->state = SBX_WAIT_FREE;
    s->n_sigsys_wait--;
    while (s->sigsys_hi > 0 && s->sigsys_wait[s->sigsys_hi - 1].state == SBX_WAIT_FREE)
        s->sigsys_hi--;
}

/* The lowest free slot, or NULL: the supervisor stops taking notifications
 * while the table is full, so a served call always finds one. */
static struct sbx_sigsys_wait *take_slot(struct sbx_sup *s)
{
    int i;
    if (!s->sigsys_wait)
        return NULL;
    for (i = 0; i < SBX_SIGSYS_WAIT_MAX; i++) {
        struct sbx_sigsys_wait *w = &s->sigsys_wait[i];
        if (w->state != SBX_WAIT_FREE)
            continue;
        memset(w, 0, sizeof *w);
        w->pidfd = -1;
        if (i >= s->sigsys_hi)
            s->sigsys_hi = i + 1;
        s->n_sigsys_wait++;
        return w;
    }
    return NULL;
}

/* Has the process behind this pidfd ended (a zombie counts)? */
static int process_ended(int pidfd)
{
    struct pollfd pf;
    pf.fd = pidfd;
    pf.events = POLLIN;
    pf.revents = 0;
    return poll(&pf, 1, 0) > 0;
}

/* The wait status of the ended process behind pidfd; -1 when it cannot be
 * known; -2 when it will be once the process is reaped; -3 when the kernel
 * has no answer for this pidfd right now (ESRCH): while a process is being
 * reaped there is a moment when it is neither a zombie nor has its exit
 * information published yet (seen here: 7 of 4,000 children, more when
 * /proc cannot be opened), and a kernel before 6.15 has none at all. The
 * caller asks again for a while before giving up. Reaped: the pidfd's exit
 * information (Linux 6.15+). A zombie: the last field of /proc/TGID/stat,
 * trusted only if the pidfd still reaches that process afterwards (not
 * reaped, so the number is not yet anyone else's). */
static int exit_status(int pidfd, long tgid)
{
    union {
        uint64_t mask; /* aligned as the kernel's struct */
        unsigned char raw[SBX_PIDFD_INFO_SIZE];
    } info;
    char p[64], buf[1024], *e;
    long n, v = 0, mul = 1;
    int32_t code;
    int has_info, esrch;

    memset(&info, 0, sizeof info);
    info.mask = SBX_PIDFD_INFO_EXIT;
    has_info = ioctl(pidfd, SBX_PIDFD_GET_INFO, info.raw) == 0;
    esrch = !has_info && errno == ESRCH;
    if (has_info && (info.mask & SBX_PIDFD_INFO_EXIT)) {
        memcpy(&code, info.raw + SBX_PIDFD_INFO_EXIT_AT, sizeof code);
        return code;
    }
    sbx_proc_path(p, tgid, "/stat");
    n = sbx_read_small(p, buf, sizeof buf);
    if (n <= 0 || syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) != 0)
        return has_info ? -2 : esrch ? -3 : -1;
    e = buf + n;
    while (e > buf && (e[-1] == '\n' || e[-1] == ' '))
        e--;
    if (e == buf || e[-1] < '0' || e[-1] > '9')
        return -1;
    while (e > buf && e[-1] >= '0' && e[-1] <= '9') {
        v += (e[-1] - '0') * mul;
        mul *= 10;
        e--;
        if (mul > 100000000L)
            return -1;
    }
    return (int)v;
}

/* The record of a thread that never came back, by how its process ended:
 * SIGSYS only when its wait status says so (a handler on an unusable
 * alternate stack dies of SIGSEGV; a process SIGKILLed by its own for
 * another reason dies of SIGKILL), otherwise "ended". */
static int ended_action(int st)
{
    return st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS ? SBX_ACT_SIGSYS : SBX_ACT_ENDED;
}

static int ms_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int)((now.tv_sec - t->tv_sec) * 1000 + (now.tv_nsec - t->tv_nsec) / 1000000);
}

/* The waiting entry of thread tid, or NULL. An entry whose process ended
 * is settled first, so a recycled thread id never matches it. */
static struct sbx_sigsys_wait *find_wait(struct sbx_sup *s, pid_t tid)
{
    int i;
    if (s->n_sigsys_wait == 0)
        return NULL;
    (void)sbx_refusal_settle(s, 0);
    for (i = 0; i < s->sigsys_hi; i++)
        if (s->sigsys_wait[i].state == SBX_WAIT_SENT && s->sigsys_wait[i].tid == tid)
            return &s->sigsys_wait[i];
    return NULL;
}

/* SIGKILL to the process of w (through its pidfd, which cannot name
 * another process). */
static void kill_waiting(struct sbx_sigsys_wait *w)
{
    (void)syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
}

/* Did a handler take the signal? A handler now, or one installed when the
 * signal was queued and the disposition not ignored now: a one-shot handler
 * (SA_RESETHAND, as crash handlers install them) is back to the default by
 * the time the call restarts (review of issue 19, F2). The one sequence
 * this cannot tell apart, another thread setting "ignored" and then the
 * default around the delivery, leaves the process where a handler that does
 * nothing would: alive, its socket refused. A tracer can swallow any signal:
 * never "caught". */
static int took_handler(const struct sbx_sigsys_wait *w, const struct sbx_task_info *ti)
{
    if (ti->tracer)
        return 0;
    return (ti->sig_caught & sigsys_bit) || (w->had_handler && !(ti->sig_ignored & sigsys_bit));
}

static void serve_deferred(struct sbx_sup *s, struct sbx_sigsys_wait *w);

/* Descriptors the steps after a caller's pidfd need at once: a thread
 * pidfd (send_checked) and its /proc status (sbx_task_info). Without them
 * the call would be judged unsignalled or untraceable and killed for the
 * supervisor's want of room: it is deferred instead. */
#define SBX_REFUSAL_FD_ROOM 2

static int room_after(int pfd)
{
    int d[SBX_REFUSAL_FD_ROOM], k, ok = 1;
    for (k = 0; k < SBX_REFUSAL_FD_ROOM; k++) {
        d[k] = fcntl(pfd, F_DUPFD_CLOEXEC, 0);
        if (d[k] < 0) {
            ok = 0;
            break;
        }
    }
    while (k-- > 0)
        close(d[k]);
    return ok;
}

/* Short of descriptors or memory: a fact about the supervisor, not about
 * the caller. */
static int want_of_room(int e)
{
    return e == EMFILE || e == ENFILE || e == ENOMEM;
}

int sbx_refusal_settle(struct sbx_sup *s, int final)
{
    int i, retry, look;
    /* A deferred call served from here looks for its thread's entry, which
     * settles: once is enough (no recursion through the table). */
    if (s->settling)
        return s->n_sigsys_wait;
    s->settling = 1;
    /* Deferred calls wait for room: tried again once a descriptor came
     * back since the last try, else only checked for their caller's end. */
    retry = s->room_gen != s->room_tried || s->room_at.tv_sec == 0 || ms_since(&s->room_at) >= 1000;
    if (retry) {
        s->room_tried = s->room_gen;
        clock_gettime(CLOCK_MONOTONIC, &s->room_at);
    }
    /* Whether a deferred call's caller is gone: asked every 200 ms, not on
     * every notification served (settle runs for each: a table of
     * thousands deferred made that quadratic). */
    look = final || s->defer_at.tv_sec == 0 || ms_since(&s->defer_at) >= 200;
    if (look)
        clock_gettime(CLOCK_MONOTONIC, &s->defer_at);
    for (i = 0; i < s->sigsys_hi && s->n_sigsys_wait > 0; i++) {
        struct sbx_sigsys_wait *w = &s->sigsys_wait[i];
        struct sbx_task_info ti;
        if (w->state == SBX_WAIT_DEFER && !look && !retry)
            continue;
        if (w->state == SBX_WAIT_DEFER) {
            /* Still waiting in the kernel for an answer: try again now
             * that descriptors may have freed. Gone without one: a fatal
             * signal ended it first. */
            if (final || (look && !sbx_sup_valid(s, w->id))) {
                record(s, w, SBX_ACT_ENDED);
                release(s, w);
            } else if (retry) {
                /* The first one deferred again means no room yet: the
                 * rest would be too, so they wait for the next descriptor
                 * back (a thread returning from its handler frees one per
                 * call: a pass over them all each time was quadratic,
                 * review r36 F2). */
                s->room_short = 0;
                serve_deferred(s, w);
                if (s->room_short)
                    retry = 0;
            }
            continue;
        }
        if (w->state != SBX_WAIT_SENT)
            continue;
        if (final || process_ended(w->pidfd)) {
            /* It never came back to the call: it died, of SIGSYS or of
             * whatever its wait status says. (A caught one is already
             * recorded.) A zombie whose status is only to be had once it
             * is reaped waits for that (its parent's wait, or the end). */
            int st = w->caught ? 0 : exit_status(w->pidfd, w->tgid);
            if (st == -2 && !final)
                continue;
            if (st == -3 && !final) {
                /* Mid-reap: asked again each round, for as long as a
                 * live thread gets to settle. */
                if (w->gone.tv_sec == 0)
                    clock_gettime(CLOCK_MONOTONIC, &w->gone);
                if (ms_since(&w->gone) < SBX_SIGSYS_SETTLE_MS)
                    continue;
            }
            if (!w->caught)
                record(s, w, ended_action(st));
            release(s, w);
            continue;
        }
        if (w->caught)
            continue; /* waits for its restarted call, or its end */
        /* Still pending in a thread that has not run yet, or stopped: wait.
         * The thread gone while the process lives means its handler ran
         * (it then exited): judged below like a live one. */
        if (sbx_task_info(w->tid, &ti) == 0 && ti.tgid == w->tgid &&
            (ti.sig_pending & sigsys_bit) && !ti.tracer)
            continue;
        if (w->seen.tv_sec == 0) {
            clock_gettime(CLOCK_MONOTONIC, &w->seen);
            continue;
        }
        if (ms_since(&w->seen) < SBX_SIGSYS_SETTLE_MS)
            continue;
        /* Alive, SIGSYS not pending, not back at the call: a handler that
         * changed where the call returns, or still runs (caught), or a
         * tracer or a lost signal (killed). */
        if (sbx_task_info(w->tid, &ti) != 0 || ti.tgid != w->tgid) {
            int e = sbx_task_info((pid_t)w->tgid, &ti);
            if (want_of_room(e) && !final)
                continue; /* judged once it can be looked at */
        }
        if (took_handler(w, &ti)) {
            record(s, w, SBX_ACT_CAUGHT);
            w->caught = 1;
        } else {
            kill_waiting(w);
            record(s, w, SBX_ACT_SIGKILL);
            release(s, w);
        }
    }
    s->settling = 0;
    return s->n_sigsys_wait;
}

/* The call came back from a thread that was sent SIGSYS for it: it
 * survived the signal. A handler took it: caught, EPERM; none: SIGKILL. A
 * tracer could have taken the signal whatever the disposition: SIGKILL. */
static void came_back(struct sbx_sup *s, const struct sbx_notif *n, struct sbx_sigsys_wait *w,
                      const struct sbx_task_info *ti)
{
    if (w->caught) {
        release(s, w); /* recorded when it was settled */
    } else if (took_handler(w, ti) && (ti->sig_blocked & sigsys_bit)) {
        /* A refused call from inside its SIGSYS handler (which blocks
         * SIGSYS): the first was caught; this one's signal could not be
         * taken, and answering it would start the handler over and over.
         * Killed, as the kernel's own trap would be. */
        int kind = w->kind;
        record(s, w, SBX_ACT_CAUGHT);
        kill_waiting(w);
        release(s, w);
        sbx_sup_record(s, n, kind, SBX_ACT_SIGKILL, NULL, ti);
    } else if (took_handler(w, ti)) {
        record(s, w, SBX_ACT_CAUGHT);
        release(s, w);
    } else {
        kill_waiting(w);
        record(s, w, SBX_ACT_SIGKILL);
        release(s, w);
    }
    sbx_sup_respond(s, n->id, 0, EPERM);
}

/* Signal the caller and wait for its fate (above) in slot w, owning pfd
 * (its process) from then on. 0 when it is now waited on; -1 when it must
 * be killed instead (pfd is still the caller's to use and close). */
static int send_sigsys(struct sbx_sup *s, const struct sbx_notif *n, struct sbx_sigsys_wait *w,
                       const struct sbx_task_info *ti, int pfd)
{
    struct sbx_task_info now;
    int pending;

    if (send_checked(s, n, ti->tgid, SIGSYS, 1) != 0)
        return -1; /* gone: kill, and say so */
    if (sbx_task_info(n->tid, &now) != 0 || now.tgid != ti->tgid || now.tracer)
        return -1;
    pending = sbx_sup_valid(s, n->id);
    /* The restart needs the signal queued in the thread's own queue,
     * unblocked: that is what makes the kernel run the thread's signal work
     * (and so the restart) on its way out. A SIGSYS discarded at once
     * (ignored by then) or blocked is not: kill. (Before Linux 5.19 the
     * signal itself ends the wait; the call is then no longer pending and
     * the kernel restarts it, or the thread dies, on its own.) */
    if (pending && (!(now.sig_pending & sigsys_bit) || (now.sig_blocked & sigsys_bit)))
        return -1;
    w->state = SBX_WAIT_SENT;
    w->pidfd = pfd;
    /* Read in one go with the pending bit (under the kernel's signal
     * lock): the disposition the queued signal starts from. */
    w->had_handler = (now.sig_caught & sigsys_bit) != 0;
    if (pending)
        sbx_sup_respond(s, n->id, 0, SBX_ERESTARTNOINTR);
    return 0;
}

/* Fill the facts of a call into its slot (records need nothing later). */
static void describe(struct sbx_sigsys_wait *w, const struct sbx_notif *n, int kind,
                     const struct sbx_task_info *ti)
{
    w->tid = n->tid;
    w->tgid = ti->tgid;
    w->id = n->id;
    w->kind = kind;
    w->op = n->call->op;
    w->name = n->call->name;
    w->compat = n->call->compat;
    w->family = n->call->family;
    w->type = n->call->type;
    memcpy(w->comm, ti->comm, sizeof w->comm);
}

void sbx_refusal_serve(struct sbx_sup *s, const struct sbx_notif *n)
{
    const struct sbx_syscall *c = n->call;
    struct sbx_task_info ti;
    struct sbx_sigsys_wait *w;
    int pfd, kind, inet = c->family == SBX_AF_INET || c->family == SBX_AF_INET6;

    if (sbx_task_info(n->tid, &ti) != 0 || !sbx_sup_valid(s, n->id)) {
        /* Gone, or not the thread that asked: nothing to answer or record
         * with certainty. The kernel answers a killed caller itself. */
        sbx_sup_respond(s, n->id, 0, EPERM);
        return;
    }
    kind = c->op == SBX_OP_IO_URING_SETUP ? SBX_REC_IO_URING : SBX_REC_SOCKET;
    if (kind == SBX_REC_IO_URING || (s->plan->nosock && c->op == SBX_OP_SOCKET && !inet) ||
        s->plan->deny_action == SANDBOX_DENY_EPERM) {
        sbx_sup_record(s, n, kind, SBX_ACT_EPERM, NULL, &ti);
        sbx_sup_respond(s, n->id, 0, EPERM);
        return;
    }
    w = find_wait(s, n->tid);
    if (w && w->tgid == ti.tgid) {
        came_back(s, n, w, &ti);
        return;
    }
    w = take_slot(s);
    if (!w) {
        /* Cannot happen (no notification is taken while the table is
         * full); if it did, the call is refused without the signal, and
         * the record says so rather than a kill for want of room. */
        sbx_sup_record(s, n, kind, SBX_ACT_EPERM, NULL, &ti);
        sbx_sup_respond(s, n->id, 0, EPERM);
        return;
    }
    describe(w, n, kind, &ti);
    /* The caller's process, pinned while its call is pending: every kill
     * below goes through it, even once the call is over. */
    pfd = (int)syscall(SYS_pidfd_open, ti.tgid, 0);
    if (pfd >= 0 && !room_after(pfd)) {
        close(pfd);
        pfd = -1;
        errno = EMFILE;
    }
    if (pfd < 0 && want_of_room(errno)) {
        /* No descriptor to follow it with now: the call stays pending (its
         * thread waits, killably) and is served again once others end,
         * never killed for the supervisor's lack of room. */
        w->state = SBX_WAIT_DEFER;
        s->room_short = 1;
        return;
    }
    if (pfd >= 0 && !sbx_sup_valid(s, n->id)) {
        close(pfd);
        release(s, w);
        sbx_sup_respond(s, n->id, 0, EPERM);
        return;
    }
    /* Blocked, ignored, or traced (a tracer can swallow the signal): it
     * would survive; kill it now. Otherwise signal and watch. */
    if (pfd >= 0 && !((ti.sig_blocked | ti.sig_ignored) & sigsys_bit) && !ti.tracer &&
        send_sigsys(s, n, w, &ti, pfd) == 0)
        return;
    w->state = SBX_WAIT_DEFER; /* for release: it holds no descriptor */
    release(s, w);
    if (pfd >= 0) {
        (void)syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0);
        close(pfd);
    } else {
        (void)send_checked(s, n, ti.tgid, SIGKILL, 0);
    }
    /* Recorded with what was done; the task facts were read before any
     * signal, so the record needs nothing from a caller that may be gone. */
    sbx_sup_record(s, n, kind, SBX_ACT_SIGKILL, NULL, &ti);
    sbx_sup_respond(s, n->id, 0, EPERM);
}

/* A deferred call, served again from its slot (freed first, so it may take
 * the same one). */
static void serve_deferred(struct sbx_sup *s, struct sbx_sigsys_wait *w)
{
    struct sbx_syscall call;
    struct sbx_notif n;

    memset(&call, 0, sizeof call);
    call.op = w->op;
    call.name = w->name;
    call.compat = w->compat;
    call.family = w->family;
    call.type = w->type;
    n.id = w->id;
    n.tid = w->tid;
    n.arch = 0;
    n.call = &call;
    release(s, w);
    sbx_refusal_serve(s, &n);
}
