/* The supervised run: the process that stays on the host's side of a
 * command (supervisor.h lists its modules).
 *
 * Process model: apply (backend.c) has set no_new_privs, the masks, the
 * capability drop and Landlock; then this forks. The child loads the
 * listener's program and the main one, sends the listener to the parent and
 * goes on to exec the command. The parent, inside the same mount namespace
 * and Landlock domain with the same credentials, becomes the supervisor:
 *   - an ancestor of the command (ptrace checks, Yama) and a child
 *     subreaper, so orphans (setsid, double fork) stay its descendants;
 *   - not dumpable: the command cannot ptrace it or read its memory;
 *   - outside the command's nested Landlock domain that scopes signals
 *     (ABI 6): the command cannot kill or stop it; its main program refuses
 *     prlimit and priority changes of other processes, so it cannot starve
 *     or limit it either;
 *   - holding no descriptor but the listener, a signalfd and, while it
 *     waits to see what a SIGSYS did (refusal.c), its caller's pidfd.
 * It serves notifications (guard.c, refusal.c), passes the host's signals on
 * to the command, ends the run at its timeout, when the host dies, or when
 * the command exits (the command's descendants are ended then, unless the
 * host asked to keep them), writes its records and status into the host's
 * mapping (records.h), and exits as the command did.
 *
 * Everything after the fork is async-signal-safe: sandbox_spawn runs this in
 * a child of a multi-threaded host. Raw system calls, stack buffers, no
 * malloc or stdio. */
#define _GNU_SOURCE
#include "supervisor.h"
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SECCOMP_FILTER_FLAG_NEW_LISTENER
#  define SECCOMP_FILTER_FLAG_NEW_LISTENER (1UL << 3)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#  define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#  define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif
#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#  define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#  define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef SYS_close_range
#  define SYS_close_range 436
#endif

/* TERM, then KILL after this long: the timeout, the host's death, and the
 * descendants a command leaves behind. */
#define SBX_GRACE_MS 2000

/* ---- small async-signal-safe helpers ---- */

size_t sbx_put_dec(char *buf, unsigned long v)
{
    char digits[24];
    size_t k = 0, i = 0;
    do
        digits[k++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (k > 0)
        buf[i++] = digits[--k];
    buf[i] = '\0';
    return i;
}

void sbx_proc_path(char *buf, long pid, const char *tail)
{
    strcpy(buf, "/proc/");
    strcpy(buf + 6 + sbx_put_dec(buf + 6, pid < 0 ? 0 : (unsigned long)pid), tail);
}

long sbx_read_small(const char *path, char *buf, size_t size)
{
    ssize_t n;
    int e, fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, size - 1);
    e = errno;
    close(fd);
    if (n < 0) {
        errno = e;
        return -1;
    }
    buf[n] = '\0';
    return (long)n;
}

static uint64_t hex64(const char *s)
{
    uint64_t v = 0;
    for (;; s++) {
        if (*s >= '0' && *s <= '9')
            v = v * 16 + (uint64_t)(*s - '0');
        else if (*s >= 'a' && *s <= 'f')
            v = v * 16 + (uint64_t)(*s - 'a' + 10);
        else
            return v;
    }
}

/* The value after "\nKey:\t" in a /proc status text, or NULL. */
static const char *field(const char *buf, const char *key)
{
    const char *s = strstr(buf, key);
    return s ? s + strlen(key) : NULL;
}

int sbx_task_info(pid_t tid, struct sbx_task_info *ti)
{
    char p[64], buf[4096];
    const char *s;
    long n;
    size_t i;

    memset(ti, 0, sizeof *ti);
    ti->tgid = -1;
    sbx_proc_path(p, tid, "/status");
    n = sbx_read_small(p, buf + 1, sizeof buf - 1);
    if (n <= 0)
        return n < 0 ? errno : EIO;
    buf[0] = '\n'; /* every key, the first too, follows a newline */
    if ((s = field(buf, "\nName:\t")) != NULL)
        for (i = 0; i < sizeof ti->comm - 1 && s[i] && s[i] != '\n'; i++)
            ti->comm[i] = s[i];
    if ((s = field(buf, "\nUmask:\t")) != NULL) {
        for (; *s >= '0' && *s <= '7'; s++)
            ti->umask = ti->umask * 8 + (unsigned)(*s - '0');
        ti->umask &= 0777;
        ti->has_umask = 1;
    }
    if ((s = field(buf, "\nTgid:\t")) != NULL)
        for (ti->tgid = 0; *s >= '0' && *s <= '9'; s++)
            ti->tgid = ti->tgid * 10 + (*s - '0');
    if ((s = field(buf, "\nSigBlk:\t")) != NULL)
        ti->sig_blocked = hex64(s);
    if ((s = field(buf, "\nSigIgn:\t")) != NULL)
        ti->sig_ignored = hex64(s);
    if ((s = field(buf, "\nSigCgt:\t")) != NULL)
        ti->sig_caught = hex64(s);
    if ((s = field(buf, "\nSigPnd:\t")) != NULL)
        ti->sig_pending = hex64(s);
    if ((s = field(buf, "\nTracerPid:\t")) != NULL)
        for (ti->tracer = 0; *s >= '0' && *s <= '9'; s++)
            ti->tracer = ti->tracer * 10 + (*s - '0');
    if ((s = field(buf, "\nState:\t")) != NULL)
        ti->dying = *s == 'Z' || *s == 'X';
    return 0;
}

static void timespec_add_ms(struct timespec *t, unsigned long long ms)
{
    t->tv_sec += (time_t)(ms / 1000);
    t->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* Milliseconds from now to t (0 when past), capped; -1 when t is unset. */
static int ms_until(const struct timespec *t)
{
    struct timespec now;
    long long ms;
    if (t->tv_sec == 0)
        return -1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    ms = (long long)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
    if (ms < 0)
        return 0;
    return ms > 1000000 ? 1000000 : (int)ms + 1;
}

/* ---- notifications ---- */

int sbx_sup_valid(const struct sbx_sup *s, uint64_t id)
{
    return s->lfd >= 0 && ioctl(s->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

void sbx_sup_respond(const struct sbx_sup *s, uint64_t id, long long val, int err)
{
    struct seccomp_notif_resp resp;
    memset(&resp, 0, sizeof resp);
    resp.id = id;
    resp.val = val;
    resp.error = err ? -err : 0;
    resp.flags = 0;
    /* ENOENT: the caller was killed meanwhile; nothing to answer. */
    (void)ioctl(s->lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

void sbx_sup_record(struct sbx_sup *s, const struct sbx_notif *n, int kind, int action,
                    const char *path, const struct sbx_task_info *known)
{
    struct sbx_task_info ti;
    struct sbx_rec_in r;

    if (!s->opts->records)
        return;
    if (!known) {
        /* Read while the caller still waits, so its name is its own. */
        if (sbx_task_info(n->tid, &ti) != 0 || !sbx_sup_valid(s, n->id))
            memset(&ti, 0, sizeof ti), ti.tgid = -1;
        known = &ti;
    }
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.action = action;
    r.name = n->call->name;
    r.compat = n->call->compat;
    r.family = n->call->family;
    r.type = n->call->type;
    r.pid = known->tgid;
    r.comm = known->comm;
    r.path = path;
    sbx_rec_add(s->opts->records, &r);
}

static void serve_call(struct sbx_sup *s, const struct sbx_backlog_call *c)
{
    struct sbx_syscall call;
    struct sbx_notif n;

    n.id = c->id;
    n.tid = (pid_t)c->pid;
    n.arch = c->arch;
    n.call = &call;
    if (!sbx_sys_decode(c->arch, c->nr, c->args, &call)) {
        sbx_sup_respond(s, n.id, 0, ENOSYS);
        return;
    }
    if (call.op == SBX_OP_SOCKET || call.op == SBX_OP_SOCKETCALL ||
        call.op == SBX_OP_IO_URING_SETUP) {
        sbx_refusal_serve(s, &n);
        return;
    }
    s->backlog_want = 0;
    sbx_guard_serve(s, &n);
    /* Every worker busy: kept, unanswered, until one ends. */
    if (s->backlog_want && s->backlog && s->n_backlog < SBX_GUARD_BACKLOG) {
        s->backlog[(s->backlog_head + s->n_backlog) % SBX_GUARD_BACKLOG] = *c;
        s->n_backlog++;
    }
    s->backlog_want = 0;
}

static void serve(struct sbx_sup *s, const struct seccomp_notif *req)
{
    struct sbx_backlog_call c;
    memcpy(c.args, req->data.args, sizeof c.args);
    c.id = req->id;
    c.pid = req->pid;
    c.arch = req->data.arch;
    c.nr = req->data.nr;
    serve_call(s, &c);
}

/* The backlog, oldest first, while workers are free; a call that finds
 * none again goes back to the end (each is tried once a round). A caller
 * gone meanwhile is seen by the guard (its id no longer valid). */
static void serve_backlog(struct sbx_sup *s)
{
    unsigned k = s->n_backlog;
    while (k-- > 0 && s->n_backlog > 0 && s->n_workers < SBX_GUARD_WORKERS) {
        struct sbx_backlog_call c = s->backlog[s->backlog_head];
        s->backlog_head = (s->backlog_head + 1) % SBX_GUARD_BACKLOG;
        s->n_backlog--;
        serve_call(s, &c);
    }
}

/* ---- the lifecycle ---- */

static void supervised_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
    sigaddset(set, SIGUSR1);
    sigaddset(set, SIGUSR2);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGALRM); /* the host's death (PDEATHSIG), or its "end the run" */
}

/* TERM to the whole tree, KILL after the grace period. */
static void end_tree(struct sbx_sup *s)
{
    int n;
    if (s->phase == SBX_SUP_TERM || s->phase == SBX_SUP_KILL)
        return;
    /* The guard's workers first: they are the supervisor's, not the
     * command's, and must never be counted as what it left behind. */
    sbx_work_end(s);
    n = sbx_tree_signal(SIGTERM);
    if (s->child_done && n > 0)
        s->leftovers += (uint32_t)n;
    s->phase = SBX_SUP_TERM;
    clock_gettime(CLOCK_MONOTONIC, &s->kill_at);
    timespec_add_ms(&s->kill_at, SBX_GRACE_MS);
}

/* The command has been reaped: what becomes of the rest of its tree. */
static void command_ended(struct sbx_sup *s)
{
    if (s->phase != SBX_SUP_RUNNING)
        return;
    /* --keep-background: the supervisor stays, guarding, until the last
     * descendant exits (or the timeout ends them). Otherwise nothing may go
     * on unguarded and unrecorded once the host has its status. */
    if (s->opts->keep_background)
        s->phase = SBX_SUP_DRAINING;
    else
        end_tree(s);
}

static void reap(struct sbx_sup *s, int *none)
{
    int status;
    /* Once reaped, the command's pid may be a leftover's (review r61 F2: a
     * --keep-background leftover cycled pids until one of its children got
     * it, and that child's exit 99 became the run's status). */
    if (sbx_tree_reap(s->child_done ? 0 : s->child, &status, &s->cpu_ms, none)) {
        s->child_done = 1;
        s->status = status;
        /* No child left (the common case): no descendant is left either,
         * since orphans come to the subreaper. Only then is /proc read. */
        if (!*none)
            command_ended(s);
    }
}

/* Read every pending signal. A terminal's signals (^C, ^\, hangup) reach the
 * command's process group directly: only those sent to the supervisor
 * itself (by the host) are passed on to the command. */
static void handle_signals(struct sbx_sup *s)
{
    struct signalfd_siginfo si;
    int none;
    while (read(s->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(s, &none);
            continue;
        }
        if (sig == SIGALRM) {
            /* The parent-death signal (the host is gone: the supervisor has
             * a new parent now), or the host asking to end the run. */
            s->flags |= getppid() != s->opts->host ? SBX_RUN_HOST_GONE : SBX_RUN_STOPPED;
            end_tree(s);
            continue;
        }
        if (si.ssi_code == SI_KERNEL)
            continue;
        /* --keep-background after the command's exit: the host's request
         * to stop is for what is left. */
        if (s->phase == SBX_SUP_DRAINING && sig != SIGUSR1 && sig != SIGUSR2)
            end_tree(s);
        else if (!s->child_done && s->phase == SBX_SUP_RUNNING)
            kill(s->child, sig);
    }
}

static void handle_timers(struct sbx_sup *s)
{
    if (s->phase == SBX_SUP_TERM && ms_until(&s->kill_at) == 0) {
        s->phase = SBX_SUP_KILL;
        /* The run's cgroup first: one write ends every process in it, a fork
         * bomb at its pids.max too, where a scan of the tree races forks. */
        sbx_limits_kill(s->opts->limits);
        sbx_tree_signal(SIGKILL);
    } else if (s->phase == SBX_SUP_KILL) {
        /* One that was forked between a scan and its kill. */
        sbx_limits_kill(s->opts->limits);
        sbx_tree_signal(SIGKILL);
    }
    if (s->deadline.tv_sec && ms_until(&s->deadline) == 0 &&
        (s->phase == SBX_SUP_RUNNING || s->phase == SBX_SUP_DRAINING)) {
        s->flags |= SBX_RUN_TIMED_OUT;
        s->deadline.tv_sec = 0;
        end_tree(s);
    }
}

/* How long the next poll may wait. */
static int next_wait(const struct sbx_sup *s)
{
    int a = ms_until(&s->deadline), b = -1;
    if (s->phase == SBX_SUP_TERM)
        b = ms_until(&s->kill_at);
    else if (s->phase == SBX_SUP_KILL)
        b = 10;
    /* A thread sent SIGSYS is looked at again until its fate is known. */
    if (s->n_sigsys_wait > 0 && (b < 0 || b > 20))
        b = 20;
    /* A guard worker whose caller stopped waiting is killed soon after. */
    if (s->n_workers > 0 && (b < 0 || b > 50))
        b = 50;
    if (a < 0)
        return b;
    return b < 0 || a < b ? a : b;
}

int sbx_sup_wait(struct sbx_sup *s, int ms)
{
    struct pollfd pf;
    int w = next_wait(s);
    pf.fd = s->sfd;
    pf.events = POLLIN;
    pf.revents = 0;
    if (w >= 0 && w < ms)
        ms = w;
    if (poll(&pf, 1, ms) > 0)
        handle_signals(s);
    handle_timers(s);
    return s->child_done || s->phase != SBX_SUP_RUNNING;
}

/* ---- the session's autogroup ----
 * The command shares the host's session, so its scheduling autogroup: a
 * write of 19 to /proc/self/autogroup reniced the host's whole session,
 * supervisor included, for good (review of issue 19, F5). No seccomp rule
 * sees a write to a /proc file, and a session of its own (setsid) would cost
 * the command its terminal and a host's process-group kill its reach. But
 * the kernel lets anyone set an autogroup's nice back to 0 or above (only a
 * negative one needs CAP_SYS_NICE): the supervisor puts back what it found
 * once the run is over. During the run the whole session, command and
 * supervisor alike, may be reniced: the command gains nothing over its
 * supervisor, and the host gets its priority back. */

/* The nice of this process's autogroup, or -100 when there is none. */
static int autogroup_nice(void)
{
    char buf[128];
    const char *s;
    int neg = 0, v = 0;
    if (sbx_read_small("/proc/self/autogroup", buf, sizeof buf) <= 0 ||
        (s = strstr(buf, " nice ")) == NULL)
        return -100;
    s += 6;
    if (*s == '-')
        neg = 1, s++;
    if (*s < '0' || *s > '9')
        return -100;
    for (; *s >= '0' && *s <= '9' && v < 100; s++)
        v = v * 10 + (*s - '0');
    return neg ? -v : v;
}

static void autogroup_restore(int was)
{
    struct timespec pause = {0, 110 * 1000000L};
    char num[16];
    size_t len;
    int i, fd;
    int now = autogroup_nice();
    /* Only a raise is undone: the attack is a nicer (starved) session. A
     * run that started while another had reniced it read that value, and
     * must not put it back after the other restored it (review: two
     * overlapping runs left the session at 19). */
    if (was == -100 || now == -100 || now <= was)
        return;
    len = was < 0 ? (num[0] = '-', 1 + sbx_put_dec(num + 1, (unsigned long)-was))
                  : sbx_put_dec(num, (unsigned long)was);
    /* EAGAIN: the kernel takes one change per 100 ms from the unprivileged,
     * across the machine. A few tries, then it stays as the command left it. */
    for (i = 0; i < 5; i++) {
        fd = openat(AT_FDCWD, "/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
        if (fd < 0 && errno == EACCES) {
            /* Not dumpable, its /proc files are root's: dumpable for the one
             * open, when every process of the command is gone. */
            prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
            fd = openat(AT_FDCWD, "/proc/self/autogroup", O_WRONLY | O_CLOEXEC);
            prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        }
        if (fd < 0)
            return;
        if (write(fd, num, len) == (ssize_t)len || errno != EAGAIN) {
            close(fd);
            return;
        }
        close(fd);
        nanosleep(&pause, NULL);
    }
}

/* The run is over: status and records for the host, then end as the
 * command did, so whoever waits for this process sees its status. */
static int covers_accept(struct sbx_sup *s, int k);

__attribute__((noreturn)) static void finish(struct sbx_sup *s)
{
    struct sigaction sa;
    sigset_t one;
    int sig, status = s->status, k, round;
    struct sbx_rec_area *a = s->opts->records;

    /* Every process is gone: a thread still waited on is recorded by how
     * its process ended. */
    (void)sbx_refusal_settle(s, 1);
    /* A connect completes once queued: a process that connected to a
     * stand-in and exited at once is still recorded (its backlog holds 64;
     * nothing of the run is left to add more). */
    for (k = 0; k < s->cov.n; k++)
        for (round = 0; round < 4 && covers_accept(s, k) == 64; round++)
            ;
    autogroup_restore(s->autogroup_nice);
    if (a) {
        a->status = status;
        a->leftovers = s->leftovers;
        a->cpu_ms = s->cpu_ms;
        a->flags |= s->flags | SBX_RUN_ENDED;
    }
    if (WIFEXITED(status))
        _exit(WEXITSTATUS(status));
    sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
    /* Die of the same signal. Core dumps are off (RLIMIT_CORE 1, apply). */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(sig, &sa, NULL);
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    kill(getpid(), sig);
    _exit(128 + sig);
}

/* The whole tree killed and reaped: the command and what it left, which
 * come back to this subreaper (review r54: a failure path that killed
 * only the command let its setsid children run on, outside the timeout). */
static void kill_all(pid_t child)
{
    int status;
    if (child > 0) /* 0: reaped already, its pid maybe another's now (r57) */
        kill(child, SIGKILL);
    for (;;) {
        (void)sbx_tree_signal(SIGKILL);
        if (wait4(-1, &status, __WALL, NULL) < 0 && errno == ECHILD)
            return;
    }
}

/* The supervisor failed after the command started: the whole tree ends,
 * and the area says so, where and why, before the 126. Without it a host
 * could not tell this 126 from the command's own (review r57 F2): by now
 * the supervisor has no stderr, the host (the launcher) words it. The area
 * is written before the kill: the host reads it only once this process is
 * reaped. */
__attribute__((noreturn)) static void fail_run(struct sbx_sup *s, int step, int err)
{
    struct sbx_rec_area *a = s->opts->records;
    int n;
    if (a) {
        a->fail_step = (uint32_t)step;
        a->fail_errno = err;
        a->flags |= s->flags | SBX_RUN_SUP_FAILED;
    }
    if (!s->child_done) {
        kill_all(s->child);
        _exit(126);
    }
    /* The command had exited and was reaped: its status is known and
     * stays the run's (review r58 F2: a failure while ending what it left
     * reported 126 over it, and dropped the timeout's flag). What it left
     * is ended now, without the grace period, and counted unless end_tree
     * counted it already; finish() writes the status beside the failure. */
    if (s->phase == SBX_SUP_RUNNING || s->phase == SBX_SUP_DRAINING) {
        sbx_work_end(s);
        n = sbx_tree_signal(SIGKILL);
        if (n > 0)
            s->leftovers += (uint32_t)n;
    }
    kill_all(0);
    finish(s);
}

/* Close every descriptor but the n in keep (each may be -1; keep is sorted
 * in place). */
static void close_all_but(int *keep, int n)
{
    int i, j, t, lo = 0;
    for (i = 0; i < n; i++) /* sort, smallest first */
        for (j = i + 1; j < n; j++)
            if (keep[j] < keep[i])
                t = keep[i], keep[i] = keep[j], keep[j] = t;
    for (i = 0; i < n; i++) {
        if (keep[i] < 0 || keep[i] < lo)
            continue;
        if (keep[i] > lo && syscall(SYS_close_range, (unsigned)lo, (unsigned)keep[i] - 1, 0U) != 0)
            for (t = lo; t < keep[i]; t++)
                close(t);
        lo = keep[i] + 1;
    }
    syscall(SYS_close_range, (unsigned)lo, ~0U, 0U);
}

/* A connect to a closed socket reached its stand-in (issue 20): record who
 * and which name, then close the connection unread (the command sees it
 * reset, or end). At most 64 a round per stand-in, so that a flood keeps
 * neither the signals nor the other stand-ins waiting. */
static int covers_accept(struct sbx_sup *s, int k)
{
    int i;
    for (i = 0; i < 64; i++) {
        struct sbx_task_info ti;
        struct sbx_rec_in r;
        struct ucred cred;
        socklen_t len = sizeof cred;
        int c = accept4(s->cov.fd[k], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0)
            return i;
        memset(&cred, 0, sizeof cred);
        memset(&ti, 0, sizeof ti);
        /* The connecting process, as the kernel saw it at connect. Only the
         * run's own make a record: a process outside reaches the stand-in
         * too, through /proc/PID/root of the command (review r72b F3), and
         * is no refusal of the run's; one of another pid namespace shows
         * pid 0. One gone already cannot be checked, and counts. Its name
         * only while it still runs (a label: the pid is what counts). */
        if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || cred.pid <= 0 ||
            sbx_tree_has(cred.pid) == 0) {
            close(c);
            continue;
        }
        if (sbx_task_info(cred.pid, &ti) != 0)
            memset(&ti, 0, sizeof ti);
        ti.tgid = cred.pid;
        close(c);
        if (!s->opts->records)
            continue;
        memset(&r, 0, sizeof r);
        r.kind = SBX_REC_UNIX;
        r.action = SBX_ACT_CLOSED;
        r.name = SBX_SYS_CONNECT;
        r.family = AF_UNIX;
        r.type = SOCK_STREAM;
        r.pid = ti.tgid;
        r.comm = ti.comm;
        r.path = s->cov.path[k];
        sbx_rec_add(s->opts->records, &r);
    }
    return i;
}

__attribute__((noreturn)) static void supervise(const struct sbx_linux_plan *plan,
                                                const struct sbx_sup_opts *opts, int lfd,
                                                pid_t child, uint32_t flags, int autogroup_nice,
                                                const struct sbx_covers *cov)
{
    struct seccomp_notif_sizes sizes;
    struct pollfd pf[3 + 2 * SBX_GUARD_WORKERS + SBX_COVER_MAX];
    int keep[5 + SBX_COVER_MAX];
    struct sbx_sup s;
    sigset_t set;
    union {
        struct seccomp_notif n;
        char pad[1024]; /* cppcheck-suppress unusedStructMember ; the kernel's size may grow */
    } req;
    size_t notif_size = sizeof req.n;
    struct rlimit nofile;
    int i, np, nw, none = 0;

    /* The capability a guard keeps for its reads is in effect only around
     * them (guard.c), never while it acts for the command. */
    sbx_guard_ptrace_cap(0);
    memset(&s, 0, sizeof s);
    s.plan = plan;
    s.opts = opts;
    s.lfd = lfd;
    s.child = child;
    s.flags = flags;
    s.phase = SBX_SUP_RUNNING;
    s.autogroup_nice = autogroup_nice;
    if (cov)
        s.cov = *cov;
    /* Mapped, not on this stack (sandbox_spawn's child runs on a copy of
     * a host thread's stack, which may be small); zero pages are free
     * slots, and only those used are ever touched. */
    s.sigsys_wait = mmap(NULL, SBX_SIGSYS_WAIT_MAX * sizeof *s.sigsys_wait,
                         PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                         0);
    if (s.sigsys_wait == MAP_FAILED)
        fail_run(&s, SBX_SUP_FAIL_TABLE, errno);
    /* No handler of the host can run here: the spawned child reset every
     * disposition to the default before it applied the plan (spawn.c), and
     * a supervised run starts only from there. */
    supervised_set(&set);
    sigprocmask(SIG_SETMASK, &set, NULL);
    s.sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (s.sfd < 0)
        fail_run(&s, SBX_SUP_FAIL_SIGNALFD, errno);
    /* The host's death ends the run; its death before this line is seen
     * by getppid. */
    if (prctl(PR_SET_PDEATHSIG, SIGALRM, 0, 0, 0) != 0)
        fail_run(&s, SBX_SUP_FAIL_PDEATHSIG, errno);
    if (getppid() != opts->host) {
        s.flags |= SBX_RUN_HOST_GONE;
        end_tree(&s);
    }
    /* The guards' shared lock (guardlock.c): the plan's descriptor, opened
     * before any confinement (this process has the command's Landlock
     * domain, which cannot open it). Its locks are this process's own. */
    s.glock_fd = sbx_guard_lock_fd(plan->guard);
    /* The project's lock: a description of this supervisor's own. */
    s.plock_fd = sbx_guard_project_reopen(sbx_guard_project_fd(plan->guard));
    keep[0] = s.lfd;
    keep[1] = s.sfd;
    keep[2] = opts->limits ? opts->limits->cg_kill : -1;
    keep[3] = s.glock_fd;
    keep[4] = s.plock_fd;
    for (i = 0; i < s.cov.n; i++)
        keep[5 + i] = s.cov.fd[i];
    close_all_but(keep, 5 + s.cov.n);
    /* Room for a pidfd per thread followed after SIGSYS (refusal.c), up to
     * the hard limit: below it a caller waits for a descriptor, unkilled. */
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < SBX_SIGSYS_WAIT_MAX + 64) {
        nofile.rlim_cur = nofile.rlim_max < SBX_SIGSYS_WAIT_MAX + 64 ? nofile.rlim_max
                                                                    : SBX_SIGSYS_WAIT_MAX + 64;
        (void)setrlimit(RLIMIT_NOFILE, &nofile);
    }
    /* The host's CPU limit counts the supervisor's own time, which a command
     * can spend for it (refused calls it must answer: review r58 F1, under
     * `ulimit -t` the supervisor died first): up to the hard limit, the
     * most a process may take. */
    if (getrlimit(RLIMIT_CPU, &nofile) == 0 && nofile.rlim_cur < nofile.rlim_max) {
        nofile.rlim_cur = nofile.rlim_max;
        (void)setrlimit(RLIMIT_CPU, &nofile);
    }
    /* 0-2 stay taken by the root directory, opened O_PATH: a symlink of the
     * command's into /proc/self/fd/0..2, which the guard resolves as its
     * own, then fails with EISDIR instead of quietly writing elsewhere. */
    for (i = 0; i < 3; i++)
        if (openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC) < 0)
            break;
    if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0 &&
        sizes.seccomp_notif <= sizeof req)
        notif_size = sizes.seccomp_notif > notif_size ? sizes.seccomp_notif : notif_size;
    /* Linux 6.6+: the command and the supervisor hand over on the same CPU,
     * as a call and its return; older kernels refuse the flag and keep the
     * ordinary wake-ups. */
    if (s.lfd >= 0)
        (void)ioctl(s.lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS,
                    (unsigned long long)SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
    if (opts->timeout_ms) {
        clock_gettime(CLOCK_MONOTONIC, &s.deadline);
        timespec_add_ms(&s.deadline, opts->timeout_ms);
    }
    /* A command that ended before the signalfd existed is reaped here. */
    reap(&s, &none);

    for (;;) {
        if (s.child_done && none)
            finish(&s);
        pf[0].fd = s.sfd;
        pf[0].events = POLLIN;
        pf[0].revents = 0;
        np = 1;
        pf[1].fd = -1; /* ignored by poll until the listener is taken */
        pf[1].revents = 0;
        /* A full table of threads sent SIGSYS: notifications wait in the
         * kernel until one is settled, rather than a caller being killed
         * for want of a slot (review of issue 19, F1). */
        /* Not so with every guard worker busy (64 opens waiting on a
         * FIFO's other end or a lease): calls are still received, so none
         * is left unreceived for long, where a signal would return it
         * EINTR unrefused and unrecorded (reviews r36 F1, r38 F1; the
         * moment before any call is received stays: r39 F1, in the docs);
         * an open that needs a worker waits in the backlog, and past 1,024
         * of those (callers killed meanwhile let go first) gets EAGAIN. */
        if (s.lfd >= 0 && s.n_sigsys_wait < SBX_SIGSYS_WAIT_MAX) {
            pf[1].fd = s.lfd;
            pf[1].events = POLLIN;
            pf[1].revents = 0;
            np = 2;
        }
        /* The guard's workers, after the listener's slot (pf[1], which
         * may be unused): one that hands a descriptor over or exits, or
         * whose caller dies, wakes the loop. */
        nw = sbx_work_fds(&s, pf + 2, 2 * SBX_GUARD_WORKERS + 1);
        /* The stand-ins of the closed sockets, after the workers. */
        for (i = 0; i < s.cov.n; i++) {
            pf[2 + nw + i].fd = s.cov.fd[i];
            pf[2 + nw + i].events = POLLIN;
            pf[2 + nw + i].revents = 0;
        }
        if (poll(pf, (nfds_t)(nw > 0 || s.cov.n > 0 ? 2 + nw + s.cov.n : np), next_wait(&s)) < 0 &&
            errno != EINTR)
            fail_run(&s, SBX_SUP_FAIL_POLL, errno);
        /* Signals and timers first, every round: a flood of notifications
         * must not keep the timeout or the host's death from being seen. */
        if (pf[0].revents & POLLIN)
            handle_signals(&s);
        handle_timers(&s);
        if (s.n_sigsys_wait > 0)
            (void)sbx_refusal_settle(&s, 0);
        if (s.n_workers > 0) {
            sbx_work_drain(&s);
            sbx_work_sweep(&s);
        }
        if (s.n_backlog > 0 && s.n_workers < SBX_GUARD_WORKERS)
            serve_backlog(&s);
        for (i = 0; i < s.cov.n; i++)
            if (pf[2 + nw + i].revents & POLLIN)
                (void)covers_accept(&s, i);
        if (np == 2 && (pf[1].revents & POLLIN)) {
            memset(&req, 0, notif_size);
            if (ioctl(s.lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0)
                serve(&s, &req.n);
        } else if (np == 2 && (pf[1].revents & (POLLHUP | POLLERR | POLLNVAL))) {
            /* No task uses the filter any more: only the reaping is left. */
            close(s.lfd);
            s.lfd = -1;
        }
        if (s.child_done)
            sbx_tree_reap(0, &i, NULL, &none);
    }
}

/* ---- the start: the fork and the listener's handover ---- */

struct sup_msg {
    int step;
    int err;
    uint32_t flags; /* enum sbx_run_flag the child found */
};

/* The handover's one message: `m`, with room for the listener when `cm`. */
static void handover_msg(struct msghdr *msg, struct iovec *iov, struct sup_msg *m, void *cm,
                         size_t cm_size)
{
    memset(msg, 0, sizeof *msg);
    iov->iov_base = m;
    iov->iov_len = sizeof *m;
    msg->msg_iov = iov;
    msg->msg_iovlen = 1;
    if (cm) {
        memset(cm, 0, cm_size);
        msg->msg_control = cm;
        msg->msg_controllen = cm_size;
    }
}

static int load(const struct sbx_bpf_insn *bpf, unsigned short len, unsigned long flags)
{
    struct sock_fprog prog;
    prog.len = len;
    prog.filter = (struct sock_filter *)(void *)bpf;
    return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* A nested Landlock domain that handles no access but scopes signals: the
 * supervisor, outside it, can no longer be killed or stopped by the command
 * (kill -9 $PPID ended the run without ending its tree, leaving setsid
 * grandchildren alive and unguarded; SIGSTOP froze the launcher; issue 18),
 * while the command still signals its own processes. Before the filters,
 * which refuse landlock_restrict_self (the guard's). */
static int scope_signals(void)
{
    struct sbx_ll_ruleset_attr attr;
    int fd, rc, e;

    memset(&attr, 0, sizeof attr);
    attr.scoped = SBX_LL_SCOPE_SIGNAL;
    fd = sbx_ll_create_ruleset(&attr, sizeof attr, 0);
    if (fd < 0)
        return -1;
    rc = sbx_ll_restrict_self(fd, 0);
    e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* The step a failure of the supervisor's own set-up is reported as. */
static int own_step(const struct sbx_linux_plan *plan)
{
    return plan->guard ? SBX_STEP_GUARD : SBX_STEP_SUPERVISOR;
}

/* The command's side: scope, load the programs, hand the listener over.
 * Returns only on success; on failure tells the parent and exits. */
static void child_side(const struct sbx_linux_plan *plan, int sock, pid_t parent,
                       const sigset_t *old, const struct sbx_covers *cov)
{
    struct sup_msg m = {SBX_STEP_NONE, 0, 0};
    struct seccomp_notif_addfd probe;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    struct msghdr msg;
    struct iovec iov;
    struct cmsghdr *h;
    const struct sbx_bpf_insn *main_bpf = plan->sup_bpf;
    unsigned short main_len = plan->sup_bpf_len;
    int lfd = -1, i;

    /* The stand-ins are the supervisor's: a command holding one could
     * accept the connects meant for it, unrecorded. */
    for (i = 0; cov && i < cov->n; i++)
        close(cov->fd[i]);
    /* The supervisor's death must not leave the command running unwatched;
     * its death before this line is seen by getppid. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
        _exit(126);
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* the parent is not; the guard must read us */
    /* The guard's supervisor kept CAP_SYS_PTRACE in the masks' user
     * namespace (mask.c): the command gets none. */
    if (plan->mask && plan->guard) {
        struct __user_cap_header_struct ch;
        struct __user_cap_data_struct cd[2];
        memset(&ch, 0, sizeof ch);
        memset(cd, 0, sizeof cd);
        ch.version = _LINUX_CAPABILITY_VERSION_3;
        if (syscall(SYS_capset, &ch, cd) != 0) {
            m.step = SBX_STEP_CAPS;
            m.err = errno;
        }
    }
    /* The limits before anything of the command's runs, and before the
     * filters, which may refuse the calls that set them. */
    if (m.step == SBX_STEP_NONE) {
        int le = sbx_limits_enter(plan->sup ? plan->sup->limits : NULL);
        if (le != 0) {
            m.step = SBX_STEP_LIMITS;
            m.err = le;
        }
    }
    if (m.step == SBX_STEP_NONE && scope_signals() != 0) {
        /* The guard cannot hold if the command can kill it (its check
         * sbx_guard_available demands ABI 6); records and a timeout are
         * kept, with a warning, where the kernel cannot scope signals. */
        if (plan->guard) {
            m.step = SBX_STEP_GUARD;
            m.err = errno;
        }
        m.flags |= SBX_RUN_SIGNAL_SCOPE;
    }
    if (m.step == SBX_STEP_NONE && plan->lsn_bpf) {
        /* The listener's program first: where another listener is in force
         * (a supervised run nested in another: one listener per filter
         * chain, EBUSY), a run without the guard takes the plain main
         * program instead, whose kills and errnos are the same, unrecorded.
         * Killable-only waits once the supervisor has the notification
         * (5.19+): a signal then cannot restart a call already performed. */
        lfd = load(plan->lsn_bpf, plan->lsn_bpf_len,
                   SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV);
        if (lfd < 0 && errno == EINVAL)
            lfd = load(plan->lsn_bpf, plan->lsn_bpf_len, SECCOMP_FILTER_FLAG_NEW_LISTENER);
        if (lfd < 0 && errno == EBUSY && !plan->guard) {
            m.flags |= SBX_RUN_NO_LISTENER;
            main_bpf = plan->bpf;
            main_len = plan->bpf_len;
        } else if (lfd < 0) {
            m.step = own_step(plan);
            m.err = errno;
        }
    } else if (!plan->lsn_bpf) {
        main_bpf = plan->sup_bpf ? plan->sup_bpf : plan->bpf;
        main_len = plan->sup_bpf ? plan->sup_bpf_len : plan->bpf_len;
    }
    if (m.step == SBX_STEP_NONE && main_bpf && load(main_bpf, main_len, 0) != 0) {
        m.step = SBX_STEP_SECCOMP;
        m.err = errno;
    }
    if (m.step == SBX_STEP_NONE && plan->guard) {
        /* SECCOMP_ADDFD_FLAG_SEND (5.14) is what makes an O_CREAT open
         * answerable: an unknown id gives ENOENT where the flag is known. */
        memset(&probe, 0, sizeof probe);
        probe.id = 0;
        probe.flags = SECCOMP_ADDFD_FLAG_SEND;
        probe.srcfd = (uint32_t)lfd;
        if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &probe) == 0 || errno != ENOENT) {
            m.step = SBX_STEP_GUARD;
            m.err = EOPNOTSUPP;
        }
    }
    /* The descriptor limit after every descriptor of the handover exists
     * (the listener), before the report: a limit below the handover's needs
     * still runs, and a failure is reported like the other limits. */
    if (m.step == SBX_STEP_NONE) {
        int le = sbx_limits_enter_fds(plan->sup ? plan->sup->limits : NULL);
        if (le != 0) {
            m.step = SBX_STEP_LIMITS;
            m.err = le;
        }
    }
    handover_msg(&msg, &iov, &m, m.step == SBX_STEP_NONE && lfd >= 0 ? cm.buf : NULL,
                 sizeof cm.buf);
    if (m.step == SBX_STEP_NONE && lfd >= 0) {
        h = CMSG_FIRSTHDR(&msg);
        h->cmsg_level = SOL_SOCKET;
        h->cmsg_type = SCM_RIGHTS;
        h->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(h), &lfd, sizeof lfd);
    }
    while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0) {
        if (errno == EINTR)
            continue;
        /* The listener refused passage (ETOOMANYREFS: the user's
         * descriptors in flight over unix sockets, which any process of
         * the user can fill, passed this process's limit; review r63):
         * the reason goes over without it, not "its child ended". */
        if (m.step != SBX_STEP_NONE || msg.msg_control == NULL)
            _exit(126);
        m.step = own_step(plan);
        m.err = errno;
        msg.msg_control = NULL;
        msg.msg_controllen = 0;
    }
    if (m.step != SBX_STEP_NONE)
        _exit(126);
    /* Nothing of the command runs until the supervisor has the listener:
     * a supervisor that failed to take it closes its end (EOF), and the
     * launch fails with nothing run (review r54: the command ran
     * unsupervised while the host was told it had not). */
    {
        char ack;
        ssize_t r;
        do
            r = read(sock, &ack, 1);
        while (r < 0 && errno == EINTR);
        if (r != 1)
            _exit(126);
    }
    /* The command must never hold the listener: with it, it could answer
     * its own notifications. */
    if (lfd >= 0)
        close(lfd);
    close(sock);
    sigprocmask(SIG_SETMASK, old, NULL);
}

int sbx_sup_start(const struct sbx_linux_plan *plan, const struct sbx_sup_opts *opts,
                  struct sbx_covers *cov, int raw_fork, int *sys_errno)
{
    struct sup_msg m;
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } cm;
    struct msghdr msg;
    struct iovec iov;
    struct cmsghdr *h;
    sigset_t set, old;
    pid_t parent = getpid(), pid;
    ssize_t n;
    int sv[2], lfd = -1, status, e, ag, reaper = 0, dumpable = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0);

    *sys_errno = 0;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        *sys_errno = errno;
        return own_step(plan);
    }
    /* Blocked from before the fork: a signal for the supervisor is never
     * lost, and none reaches a handler of the host. */
    supervised_set(&set);
    sigprocmask(SIG_BLOCK, &set, &old);
    /* Not dumpable from before the command exists: it can never ptrace the
     * supervisor or read its memory, though it has the same uid. The child
     * undoes this for itself. A supervisor that stayed dumpable could be
     * ptraced by the command: that is a failure, not a warning. */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
        *sys_errno = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        close(sv[0]);
        close(sv[1]);
        return own_step(plan);
    }
    /* A subreaper from before the command exists: orphans stay descendants
     * (Yama; the tree's end). Set only once supervise() ran, a command that
     * left a child and exited at once had it reparented to init first: the
     * run ended as though nothing were left, and the orphan ran on, out of
     * the timeout's and the guard's reach (CI, a loaded machine). */
    if (prctl(PR_GET_CHILD_SUBREAPER, (unsigned long)&reaper, 0, 0, 0) != 0 ||
        prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        *sys_errno = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        prctl(PR_SET_DUMPABLE, dumpable > 0 ? dumpable : 0, 0, 0, 0);
        close(sv[0]);
        close(sv[1]);
        return own_step(plan);
    }
    /* Read before the command exists, which could change it at once. */
    ag = autogroup_nice();
    /* In a child of a multi-threaded host (sandbox_spawn) the raw call: no
     * atfork handler may run. */
    pid = raw_fork ? (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0) : fork();
    if (pid == 0) {
        close(sv[0]);
        child_side(plan, sv[1], parent, &old, cov);
        return SBX_STEP_NONE;
    }
    e = errno;
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        sigprocmask(SIG_SETMASK, &old, NULL);
        prctl(PR_SET_DUMPABLE, dumpable > 0 ? dumpable : 0, 0, 0, 0);
        prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)reaper, 0, 0, 0);
        *sys_errno = e;
        return own_step(plan);
    }
    memset(&m, 0, sizeof m);
    handover_msg(&msg, &iov, &m, cm.buf, sizeof cm.buf);
    do
        n = recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    e = errno;
    h = n == (ssize_t)sizeof m ? CMSG_FIRSTHDR(&msg) : NULL;
    if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
        h->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(&lfd, CMSG_DATA(h), sizeof lfd);
    /* A listener is expected whenever the plan has a listener's program,
     * unless the child found another in force (NO_LISTENER). Then the
     * command may start (the child waits for this byte). */
    if (n == (ssize_t)sizeof m && m.step == SBX_STEP_NONE &&
        (lfd >= 0 || !plan->lsn_bpf || (m.flags & SBX_RUN_NO_LISTENER)) &&
        send(sv[0], "", 1, MSG_NOSIGNAL) == 1) {
        close(sv[0]);
        supervise(plan, opts, lfd, pid, m.flags, ag, cov);
    }
    /* The child failed (and exits 126), or waits for a byte it will not
     * get: nothing ran. */
    close(sv[0]);
    if (lfd >= 0)
        close(lfd);
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    sigprocmask(SIG_SETMASK, &old, NULL);
    prctl(PR_SET_DUMPABLE, dumpable > 0 ? dumpable : 0, 0, 0, 0);
    prctl(PR_SET_CHILD_SUBREAPER, (unsigned long)reaper, 0, 0, 0);
    if (n == (ssize_t)sizeof m && m.step != SBX_STEP_NONE) {
        *sys_errno = m.err;
        return m.step;
    }
    *sys_errno = n < 0 ? e : ECHILD;
    return own_step(plan);
}

/* ---- availability (before any fork) ---- */

int sbx_supervisor_available(char *detail, size_t size)
{
    unsigned int action = SECCOMP_RET_USER_NOTIF;
    const char *why = "";
    int abi;

    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
        snprintf(detail, size,
                 "records need seccomp user notification, which this kernel refuses (%s; "
                 "Linux 5.0+)",
                 strerror(errno));
        return 0;
    }
    abi = sbx_landlock_abi(&why);
    if (abi < 6) {
        snprintf(detail, size,
                 "the command can signal its supervisor (ending the records and the "
                 "timeout's hold on it): Landlock signal scoping needs ABI 6 (Linux 6.12+), "
                 "%s%d",
                 abi < 0 ? "unusable here: " : "this kernel has ABI ", abi < 0 ? 0 : abi);
        return 2;
    }
    snprintf(detail, size,
             "a supervisor process per run: refused sockets, io_uring setup and protected "
             "names recorded from seccomp user notifications; signals passed on, a timeout "
             "and the end of the command end its whole process tree (child subreaper, "
             "pidfds); the command cannot signal (Landlock ABI %d scope), trace or limit it",
             abi);
    return 1;
}
