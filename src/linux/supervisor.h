/* The supervised run (docs/architecture.md, "exec or supervised"): one
 * process on the host's side of a command that needs records, the creation
 * guard or a lifecycle. src/linux/supervisor.c is the process and its event
 * loop; each feature is a module it calls:
 *   sysdecode.c  which call a notification is, per ABI
 *   guard.c      the creation guard: protected names refused, others made
 *   refusal.c    refused sockets and io_uring: recorded, then answered
 *   proctree.c   the command's process tree: found, signalled, reaped
 *   records.c    what is recorded, in memory the host reads afterwards
 * Everything here runs after a fork of a possibly multi-threaded host:
 * async-signal-safe system calls, stack buffers, no malloc, no stdio. */
#ifndef SANDBOX_LINUX_SUPERVISOR_H
#define SANDBOX_LINUX_SUPERVISOR_H

#include "linux.h"
#include "records.h"
#include "sysdecode.h"
#include "reslimits.h"

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* What the host asks of one supervised run (sandbox_spawn's options). */
struct sbx_sup_opts {
    unsigned long long timeout_ms; /* 0: none */
    int keep_background;           /* stay until the last descendant exits */
    struct sbx_rec_area *records;  /* shared with the host; NULL: records are not kept */
    pid_t host;                    /* the process whose death ends the run */
    const struct sbx_limits *limits; /* reslimits.h; NULL: none */
};

enum sbx_sup_phase {
    SBX_SUP_RUNNING,  /* the command runs */
    SBX_SUP_DRAINING, /* the command exited; --keep-background: the rest may finish */
    SBX_SUP_TERM,     /* TERM sent to the tree; KILL at kill_at */
    SBX_SUP_KILL      /* KILL sent; waiting for the last to be reaped */
};

/* A thread sent SIGSYS for a refused socket whose fate is not known yet
 * (refusal.c): it dies of it, comes back to the restarted call, or is found
 * alive without coming back. Its record is written once that is known.
 * The table is mapped when the supervisor starts and only its used pages
 * are ever touched. Why this many: a burst of threads (a pool of 200 all
 * resolving a host at once) must be followed, never killed for want of a
 * slot (review of issue 19, F1); past it the supervisor stops taking
 * notifications until a slot frees (the callers wait in the kernel). */
#define SBX_SIGSYS_WAIT_MAX 4096
enum sbx_wait_state {
    SBX_WAIT_FREE = 0,
    SBX_WAIT_SENT,  /* SIGSYS queued to the thread; pidfd pins its process */
    SBX_WAIT_DEFER  /* not answered yet: no descriptor for its pidfd (EMFILE) */
};
struct sbx_sigsys_wait {
    int state;           /* enum sbx_wait_state */
    int pidfd;           /* its process (SENT) */
    pid_t tid;
    long tgid;
    uint64_t id;         /* DEFER: the notification, still pending */
    int caught;          /* settled as caught: its restarted call gets EPERM */
    int had_handler;     /* a handler was installed once SIGSYS was queued */
    struct timespec seen; /* first found alive with SIGSYS gone; tv_sec 0: not yet */
    struct timespec gone; /* first found ended with no status to read yet; tv_sec 0: not yet */
    int kind, op, name, compat, family, type;
    char comm[16];
};

/* A worker of the creation guard (guardwork.c): a fork of the supervisor
 * finishing one open that may wait in the kernel. pidfd 0: a free slot (0-2
 * are always taken in the supervisor). Why this many: a worker waits on the
 * command's own doing (a FIFO's other end, a lease), one per waiting call;
 * they live outside the run's cgroup, so they are bounded here. */
#define SBX_GUARD_WORKERS 64
struct sbx_guard_worker {
    int pidfd;
    /* The waiting caller's pidfd (its thread's, or its process's before
     * Linux 6.9; 0: none could be had): readable when it dies, so the
     * worker is killed at once rather than at the next tick. */
    int caller_fd;
    uint64_t id; /* the notification it answers */
};

/* A guarded call received while every worker was busy, served again once
 * one ends (review r36 F1). Received, its caller waits killably only
 * (SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV): a signal cannot cut short a
 * call the loop left in the kernel, and with it a refusal's record. Past
 * this many live ones, the next such open gets EAGAIN (review r38 F1);
 * the loop never stops receiving for it. */
#define SBX_GUARD_BACKLOG 1024
struct sbx_backlog_call {
    uint64_t id;
    uint64_t args[6];
    uint32_t pid, arch;
    int nr;
};

/* The supervisor's state, on its stack. */
struct sbx_sup {
    const struct sbx_linux_plan *plan;
    const struct sbx_sup_opts *opts;
    int lfd;        /* the listener, -1 once closed (or without one) */
    int sfd;        /* signalfd of the signals the supervisor handles */
    pid_t child;    /* the command */
    int child_done; /* 1 once the command was reaped */
    int status;     /* its wait status */
    int phase;      /* enum sbx_sup_phase */
    uint32_t flags; /* enum sbx_run_flag */
    uint32_t leftovers;
    uint32_t cpu_ms; /* the command's CPU time (its rusage), once reaped */
    struct timespec deadline; /* the timeout; tv_sec 0: none */
    struct timespec kill_at;  /* end of the grace period after TERM */
    struct sbx_sigsys_wait *sigsys_wait; /* SBX_SIGSYS_WAIT_MAX, mapped */
    int n_sigsys_wait; /* slots in use (SENT or DEFER) */
    int sigsys_hi;     /* every used slot is below this index */
    int settling;      /* in sbx_refusal_settle (refusal.c) */
    int room_short;    /* set when a refused call was deferred for want of room */
    /* Counts descriptors the run gave back (a waited-on caller's or a
     * worker's pidfd closed); deferred calls are tried again only when it
     * moved, not every round (review r35, F2: a busy loop). */
    unsigned room_gen, room_tried;
    struct timespec room_at;  /* the last try; tried each second anyway (ENOMEM passes) */
    struct timespec defer_at; /* the last look at deferred calls' callers (every 200 ms) */
    int autogroup_nice; /* the session's, when the run began; -100: none */
    struct sbx_guard_worker workers[SBX_GUARD_WORKERS];
    int n_workers;
    int guard_worker; /* in a worker: its slot + 1; it answers one call, records nothing, exits */
    int *work_busy;   /* SBX_GUARD_WORKERS flags shared with the workers (guardwork.c) */
    /* A socket pair, made with the first worker: a worker sends the
     * descriptor it opened on [1], the supervisor installs it from [0]
     * (guardwork.c). 0: not made (0-2 are always taken in the supervisor). */
    int work_sock[2];
    struct sbx_backlog_call *backlog; /* SBX_GUARD_BACKLOG, a ring mapped on first use */
    unsigned backlog_head, n_backlog;
    int backlog_want; /* set by sbx_work_start: the call being served waits for a worker */
    /* A full backlog's last purge that freed nothing: the next waits
     * SBX_PURGE_PAUSE_MS (guardwork.c; review r39 F4). tv_sec 0: none. */
    struct timespec purge_at;
    int glock_fd;       /* the guards' shared lock (guardlock.c), or -1 */
    int plock_fd;       /* the project's root, this process's own, flock'd with it; or -1 */
    int glock_held;     /* 1 while this guard holds them */
    struct sbx_covers cov; /* the closed sockets' stand-ins (linux.h): accepted, recorded, closed */
};

/* One notification being served. */
struct sbx_notif {
    uint64_t id;
    pid_t tid;                     /* the calling thread */
    uint32_t arch;
    const struct sbx_syscall *call;
};

/* Start the supervised run: called by apply (backend.c) after Landlock,
 * instead of loading the main program. Forks: returns SBX_STEP_NONE in the
 * child, which has its programs loaded and goes on to exec the command. The
 * parent becomes the supervisor and never returns, unless the child failed:
 * then it returns the failed step with *sys_errno (the child is reaped;
 * nothing ran). `raw_fork`: clone without atfork handlers (sandbox_spawn). */
/* `cov`: the closed sockets' stand-ins apply made (or NULL): the supervisor
 * keeps them, the command's side closes them. */
int sbx_sup_start(const struct sbx_linux_plan *plan, const struct sbx_sup_opts *opts,
                  struct sbx_covers *cov, int raw_fork, int *sys_errno);

/* For a module waiting a moment in the middle of a call (the guard for
 * another run's guard, guardlock.c): handle the supervisor's signals and
 * timers for up to `ms` milliseconds, never the listener. 1 when the call
 * should be given up: the command has ended or the run is being ended. */
int sbx_sup_wait(struct sbx_sup *s, int ms);
/* Is notification `id` still pending (its thread still waiting)? */
int sbx_sup_valid(const struct sbx_sup *s, uint64_t id);
/* Answer a notification: val, or -err. A gone caller is not an error. */
void sbx_sup_respond(const struct sbx_sup *s, uint64_t id, long long val, int err);

/* What /proc/TID/status says about the calling thread. */
struct sbx_task_info {
    char comm[16];
    long tgid;
    unsigned umask;
    int has_umask;
    uint64_t sig_blocked, sig_ignored, sig_caught;
    uint64_t sig_pending; /* the thread's own (SigPnd), not its process's */
    long tracer;          /* TracerPid: 0 when not traced */
    int dying;            /* State: zombie or dead */
};
/* Read it; 0 or an errno. Check sbx_sup_valid afterwards. */
int sbx_task_info(pid_t tid, struct sbx_task_info *ti);
/* Record one refusal of the calling thread (reads its name and process). */
void sbx_sup_record(struct sbx_sup *s, const struct sbx_notif *n, int kind, int action,
                    const char *path, const struct sbx_task_info *known);

/* ---- modules ---- */

/* guard.c: serve a creation call (open/creat with O_CREAT, mkdir, mknod,
 * symlink, link, rename): refuse a protected name with EACCES (recorded),
 * otherwise perform it and hand the result back. */
void sbx_guard_serve(struct sbx_sup *s, const struct sbx_notif *n);
/* guardlock.c: one creation at a time across the user's guarded runs.
 * open (at plan time, before any confinement): a descriptor of the lock
 * file, made if need be, or -1 (no home of one's own); take: 0 once held
 * (or without a lock), EAGAIN after a bounded wait, EINTR when the run is
 * ending; drop: release if held. */
int sbx_guard_lock_open(const sbx_resolved *r);
int sbx_guard_lock_take(struct sbx_sup *s);
void sbx_guard_lock_drop(struct sbx_sup *s);
/* The project's root, opened read-only at plan time, or -1; reopen: a new
 * open file description of it (flock's locks are those), or -1. */
int sbx_guard_project_open(const sbx_resolved *r);
int sbx_guard_project_reopen(int fd);
#define sbx_guard_lock_any(s) ((s)->glock_fd >= 0 || (s)->plock_fd >= 0)
/* guard.c: the lock descriptor of this plan's guard, or -1; the project's. */
int sbx_guard_lock_fd(const struct sbx_guard *g);
int sbx_guard_project_fd(const struct sbx_guard *g);
/* refusal.c: serve a recorded refusal (socket, socketcall, io_uring_setup):
 * record it, then answer as the mode does: SIGSYS, or EPERM. */
void sbx_refusal_serve(struct sbx_sup *s, const struct sbx_notif *n);
/* refusal.c: look again at the threads sent SIGSYS whose fate is open;
 * `final`: the run is over (every process is gone): record the rest by
 * how their processes ended. How many are still open. */
int sbx_refusal_settle(struct sbx_sup *s, int final);

/* guardwork.c: hand notification `id`'s open, which may wait in the kernel,
 * to a worker. 1 in the supervisor (the worker answers; the caller must
 * not), 0 in the worker (it goes on with the call, answers, and exits at the
 * end of sbx_guard_serve), or an errno: EAGAIN (no slot, no process), EINTR
 * (the run is ending). */
int sbx_work_start(struct sbx_sup *s, uint64_t id, pid_t tid);
/* In a worker, once its open is done and before it answers: from here on
 * it is never killed (guardwork.c says why). */
void sbx_work_answering(struct sbx_sup *s);
/* In a worker: hand the descriptor it opened for notification `id` to the
 * supervisor, which installs it and answers (`cloexec`: the command asked
 * for O_CLOEXEC). 0, or an errno: nothing was handed, the worker answers. */
int sbx_work_hand(struct sbx_sup *s, uint64_t id, int fd, int cloexec);
/* Install every descriptor the workers handed over, answering each call. */
void sbx_work_drain(struct sbx_sup *s);
/* Forget the workers that exited; kill those whose caller stopped waiting. */
void sbx_work_sweep(struct sbx_sup *s);
/* The workers' socket, their pidfds and their callers' for poll (readable
 * once one hands a descriptor over or exits, or its caller dies); how many. */
struct pollfd;
int sbx_work_fds(const struct sbx_sup *s, struct pollfd *pf, int room);
/* The run ends: kill and reap every worker. */
void sbx_work_end(struct sbx_sup *s);

/* proctree.c: the supervisor's descendants (a child subreaper: orphans
 * come back to it). Send `sig` to every one, verified through a pidfd so a
 * recycled pid is never signalled; returns how many were signalled. */
int sbx_tree_signal(int sig);
/* Whether `pid` descends from the calling process (the supervisor, a
 * subreaper: the run's tree): 1, 0, or -1 when it is gone already. */
int sbx_tree_has(long pid);
/* Reap every child that has ended; the command's status goes to *status
 * when it is among them. 1 when the command was reaped. Sets *none when no
 * child is left at all. */
int sbx_tree_reap(pid_t command, int *status, uint32_t *cpu_ms, int *none);

/* Small async-signal-safe helpers (supervisor.c). */
size_t sbx_put_dec(char *buf, unsigned long v);
void sbx_proc_path(char *buf, long pid, const char *tail);
/* Read at most size-1 bytes of a (/proc) file, NUL-terminated; the count,
 * or -1 with errno set (0 for an empty file). */
long sbx_read_small(const char *path, char *buf, size_t size);

/* pidfds (Linux 5.3+; thread pidfds 6.9+), by number where the C library
 * lacks them: the numbers are the same on every architecture from 424 on. */
#ifndef SYS_pidfd_open
#  define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#  define SYS_pidfd_send_signal 424
#endif

/* CAP_SYS_PTRACE in effect (1) or not (0), where a guarded supervisor kept
 * it permitted (guard.c); nothing elsewhere. */
void sbx_guard_ptrace_cap(int on);

#endif
