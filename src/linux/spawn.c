/* sandbox_spawn on Linux: prepare everything in the parent, then start a child
 * that performs only async-signal-safe system calls before it execs.
 *
 * Why the work is split this way: the host is multi-threaded. Between the
 * creation of the child and its exec, another thread of the host may have
 * held a lock (malloc's, stdio's, the dynamic loader's) at the moment of the
 * copy, so the child may call nothing that could take one. Everything that
 * allocates (the plan, argv/envp, the PATH candidates) happens before.
 *
 * Why clone(CLONE_VM|CLONE_VFORK) rather than fork(): a fork copies the
 * host's page tables (milliseconds for a host with a large heap), runs every
 * pthread_atfork handler, and makes the parent pay copy-on-write faults
 * afterwards. The vfork-style child borrows the parent's memory on its own
 * stack while the calling thread waits for the exec, exactly as glibc's
 * posix_spawn does. The child therefore writes nothing the parent reads
 * except through the report pipe; errno it sets lands in the suspended
 * thread's errno, which is harmless. Under AddressSanitizer the child falls
 * back to fork(), because ASan does not know the borrowed stack.
 *
 * A failure in the child is written to a close-on-exec pipe as (step, errno)
 * and the child exits 126. End of file on the pipe means the exec succeeded.
 */
#define _GNU_SOURCE
#include "spawn.h"
#include "supervisor.h"
#include "reslimits.h"
#include "../backend.h"
#include "../describe.h"
#include "../outcome.h"
#include "../scanindex.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_close_range
#  define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#  define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

extern char **environ;

#define CHILD_STACK_SIZE ((size_t)128 * 1024)

/* What the child reads. Everything is built by the parent. */
struct spawn_ctx {
    const struct sbx_linux_plan *plan; /* NULL: nothing to apply */
    char *const *argv;
    char *const *envp;
    char **candidates; /* paths to try with execve, NULL-terminated */
    const char *working_dir;
    int stdio[3];
    const int *keep_fds;
    size_t n_keep_fds;
    int report_fd;
};

struct child_report {
    int step;
    int err;
};

/* ---- the child: async-signal-safe calls only ---- */

static void child_fail(const struct spawn_ctx *c, int step, int err)
{
    struct child_report rep;
    ssize_t n;
    rep.step = step;
    rep.err = err;
    do
        n = write(c->report_fd, &rep, sizeof rep);
    while (n < 0 && errno == EINTR);
    _exit(126);
}

int sbx_fd_each(int from, int (*visit)(int fd, void *ctx), void *ctx)
{
    char buf[1024];
    struct rlimit rl;
    long n, pos;
    int dir, fd, r;

    dir = openat(AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        while ((n = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
            for (pos = 0; pos < n;) {
                /* struct linux_dirent64: ino(8) off(8) reclen(2) type(1) name */
                unsigned short reclen;
                const char *name = buf + pos + 19;
                memcpy(&reclen, buf + pos + 16, sizeof reclen);
                pos += reclen;
                if (name[0] < '0' || name[0] > '9')
                    continue;
                for (fd = 0; *name >= '0' && *name <= '9'; name++)
                    fd = fd * 10 + (*name - '0');
                if (fd >= from && fd != dir && (r = visit(fd, ctx)) != 0) {
                    close(dir);
                    return r;
                }
            }
        }
        close(dir);
        if (n == 0)
            return 0;
    }
    /* No /proc: every possible number. */
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur > (1U << 20))
        rl.rlim_cur = 1U << 20;
    for (fd = from; fd < (int)rl.rlim_cur; fd++)
        if ((r = visit(fd, ctx)) != 0)
            return r;
    return 0;
}

static int set_cloexec(int fd, void *ctx)
{
    (void)ctx;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Mark every descriptor above 2 close-on-exec. Marking rather than closing
 * keeps the report pipe and the Landlock ruleset usable until the exec, which
 * then closes them with the rest. */
static int mark_all_cloexec(void)
{
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
        return 0;
    /* Before Linux 5.11: walk the descriptors really open. */
    return sbx_fd_each(3, set_cloexec, NULL);
}

static int child_main(void *arg)
{
    const struct spawn_ctx *c = arg;
    struct sigaction sa;
    sigset_t none;
    int std[3], i, step, err, saw_eacces = 0;
    size_t k;

    /* Signals first: a handler of the host must never run in this child
     * (with CLONE_VM it would run on the host's memory). The parent blocked
     * everything before creating us, so nothing arrives before this. */
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (i = 1; i < NSIG; i++)
        if (i != SIGKILL && i != SIGSTOP)
            sigaction(i, &sa, NULL); /* EINVAL for libc-reserved signals: fine */
    sigemptyset(&none);

    /* stdio: move a source that is itself 0..2 out of the way first, so that
     * installing one descriptor never clobbers the source of another. */
    for (i = 0; i < 3; i++) {
        std[i] = c->stdio[i];
        if (std[i] >= 0 && std[i] < 3 && std[i] != i) {
            std[i] = fcntl(std[i], F_DUPFD_CLOEXEC, 3);
            if (std[i] < 0)
                child_fail(c, SBX_SPAWN_STEP_STDIO, errno);
        }
    }
    for (i = 0; i < 3; i++) {
        if (std[i] < 0)
            continue;
        /* dup2 clears close-on-exec on the copy; on the same number it does
         * nothing, so clear the flag by hand. */
        if (std[i] == i ? fcntl(i, F_SETFD, 0) != 0 : dup2(std[i], i) != i)
            child_fail(c, SBX_SPAWN_STEP_STDIO, errno);
    }

    if (c->working_dir && chdir(c->working_dir) != 0)
        child_fail(c, SBX_SPAWN_STEP_CHDIR, errno);

    /* Every inherited descriptor is closed at exec except stdio and the kept
     * ones: a host's sockets, database files and pipes stay out of reach. */
    mark_all_cloexec();
    for (k = 0; k < c->n_keep_fds; k++)
        if (c->keep_fds[k] > 2 && fcntl(c->keep_fds[k], F_SETFD, 0) != 0)
            child_fail(c, SBX_SPAWN_STEP_FDS, errno);

    /* The sandbox last before exec: after it, only execve (and the report
     * write on failure) must get through the filter. */
    if (c->plan) {
        /* With the creation guard this forks: the child returns here and
         * execs, this process stays behind as the guard (or reports). */
        step = sbx_linux_apply_spawned(c->plan, &err);
        if (step != SBX_STEP_NONE)
            child_fail(c, step, err);
    }
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0)
        child_fail(c, SBX_SPAWN_STEP_STDIO, errno);

    /* execvp's search rules, over candidates built by the parent: a missing
     * or unreadable directory moves on, EACCES is remembered, anything else
     * (ENOEXEC, E2BIG, ETXTBSY...) stops. */
    err = ENOENT;
    for (i = 0; c->candidates[i]; i++) {
        execve(c->candidates[i], c->argv, c->envp);
        err = errno;
        if (err == EACCES)
            saw_eacces = 1;
        else if (err != ENOENT && err != ENOTDIR && err != ESTALE && err != ENODEV &&
                 err != ETIMEDOUT)
            break;
    }
    if (saw_eacces && (err == ENOENT || err == ENOTDIR))
        err = EACCES;
    child_fail(c, SBX_SPAWN_STEP_EXEC, err);
    return 126;
}

/* ---- the parent ---- */

static const char *env_lookup(const char *const envp[], const char *name)
{
    size_t n = strlen(name), i;
    for (i = 0; envp[i]; i++)
        if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
            return envp[i] + n + 1;
    return NULL;
}

/* The paths execve will try, in one allocation (free with free()). */
static char **build_candidates(const char *file, const char *path)
{
    size_t count = 1, flen = strlen(file), size, i;
    const char *p, *end;
    char **list, *out;

    if (strchr(file, '/')) {
        list = malloc(2 * sizeof *list + flen + 1);
        if (!list)
            return NULL;
        list[0] = (char *)(list + 2);
        memcpy(list[0], file, flen + 1);
        list[1] = NULL;
        return list;
    }
    for (p = path; *p; p++)
        count += *p == ':';
    /* every element + "/" + file + NUL; an empty element means "." */
    size = (count + 1) * sizeof *list + strlen(path) + count * (flen + 3);
    list = malloc(size);
    if (!list)
        return NULL;
    out = (char *)(list + count + 1);
    for (i = 0, p = path;; p = end + 1) {
        end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        list[i++] = out;
        if (end == p) {
            *out++ = '.';
        } else {
            memcpy(out, p, (size_t)(end - p));
            out += end - p;
        }
        *out++ = '/';
        memcpy(out, file, flen + 1);
        out += flen + 1;
        if (!*end)
            break;
    }
    list[i] = NULL;
    return list;
}

static int fd_is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1;
}

static pid_t reap(pid_t pid, int *status)
{
    pid_t got;
    do
        got = waitpid(pid, status, 0);
    while (got < 0 && errno == EINTR);
    return got;
}

static int child_error(const struct spawn_ctx *c, const char *file, const struct child_report *rep,
                       sandbox_error *error)
{
    int e = rep->err;
    switch (rep->step) {
    case SBX_SPAWN_STEP_STDIO:
        return sbx_fail(error, SANDBOX_E_SYSTEM, e,
                        "cannot install standard input/output in the child: %s", strerror(e));
    case SBX_SPAWN_STEP_CHDIR:
        return sbx_fail(error, SANDBOX_E_PATH, e, "cannot change to the working directory %s: %s",
                        c->working_dir, strerror(e));
    case SBX_SPAWN_STEP_FDS:
        return sbx_fail(error, SANDBOX_E_SYSTEM, e,
                        "cannot keep a descriptor open in the child: %s", strerror(e));
    case SBX_SPAWN_STEP_EXEC:
        if ((e == ENOENT || e == ENOTDIR) && !strchr(file, '/'))
            return sbx_fail(error, SANDBOX_E_EXEC, e, "cannot execute %s: not found in PATH",
                            file);
        return sbx_fail(error, SANDBOX_E_EXEC, e, "cannot execute %s: %s%s", file, strerror(e),
                        e == ENOEXEC ? " (not a binary and no #! line)" : "");
    default:
        return sbx_linux_step_error(rep->step, e, error);
    }
}

int sbx_linux_spawn_plan(const struct sbx_linux_plan *plan, int mode, const char *const argv[],
                         const char *const envp[], const sandbox_spawn_options *o,
                         sandbox_process *process, sandbox_error *error)
{
    struct spawn_ctx c;
    struct child_report rep;
    sigset_t all, old;
    const char *path;
    void *stack = NULL;
    pid_t pid;
    ssize_t n;
    int pipefd[2], i, status, e;
    size_t k;

    for (i = 0; i < 3; i++) {
        int fd = i == 0 ? o->stdin_fd : i == 1 ? o->stdout_fd : o->stderr_fd;
        if (fd >= 0 && !fd_is_open(fd))
            return sbx_fail(error, SANDBOX_E_INVALID, EBADF,
                            "the descriptor %d given for %s is not open", fd,
                            i == 0 ? "stdin" : i == 1 ? "stdout" : "stderr");
        c.stdio[i] = fd;
    }
    if (o->n_keep_fds && !o->keep_fds)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "n_keep_fds is set but keep_fds is NULL");
    for (k = 0; k < o->n_keep_fds; k++)
        if (o->keep_fds[k] < 0 || !fd_is_open(o->keep_fds[k]))
            return sbx_fail(error, SANDBOX_E_INVALID, EBADF,
                            "the descriptor %d to keep is not open", o->keep_fds[k]);

    if (!envp)
        envp = (const char *const *)environ;
    path = env_lookup(envp, "PATH");
    if (!path)
        path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";

    c.plan = plan;
    c.argv = (char *const *)argv;
    c.envp = (char *const *)envp;
    c.working_dir = o->working_dir;
    c.keep_fds = o->keep_fds;
    c.n_keep_fds = o->n_keep_fds;
    c.candidates = build_candidates(argv[0], path);
    if (!c.candidates)
        return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM, "out of memory while preparing to spawn");

    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        e = errno;
        free(c.candidates);
        return sbx_fail(error, SANDBOX_E_SYSTEM, e, "cannot create the report pipe: %s",
                        strerror(e));
    }
    c.report_fd = pipefd[1];

#if defined(__SANITIZE_ADDRESS__)
    if (mode == SBX_SPAWN_DEFAULT)
        mode = SBX_SPAWN_FORK;
#endif
    /* A supervisor never execs: a vfork-style child would hold the calling
     * thread until the command ends. */
    if (plan && plan->sup)
        mode = SBX_SPAWN_FORK;
    if (mode != SBX_SPAWN_FORK) {
        stack = mmap(NULL, CHILD_STACK_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (stack == MAP_FAILED) {
            e = errno;
            close(pipefd[0]);
            close(pipefd[1]);
            free(c.candidates);
            return sbx_fail(error, SANDBOX_E_SYSTEM, e, "cannot map the child's stack: %s",
                            strerror(e));
        }
    }

    /* No signal may be handled in the child before it resets the handlers. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (mode == SBX_SPAWN_FORK) {
        pid = fork();
        if (pid == 0)
            _exit(child_main(&c));
    } else {
        pid = clone(child_main, (char *)stack + CHILD_STACK_SIZE, CLONE_VM | CLONE_VFORK | SIGCHLD,
                    &c);
    }
    e = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (stack)
        munmap(stack, CHILD_STACK_SIZE);
    close(pipefd[1]);

    if (pid < 0) {
        close(pipefd[0]);
        free(c.candidates);
        return sbx_fail(error, SANDBOX_E_SYSTEM, e, "cannot start a process: %s", strerror(e));
    }

    do
        n = read(pipefd[0], &rep, sizeof rep);
    while (n < 0 && errno == EINTR);
    e = errno;
    close(pipefd[0]);

    if (n == 0) {
        free(c.candidates);
        process->pid = pid;
        process->handle = NULL;
        process->backend = NULL; /* a supervised run's records: set by the caller */
        process->enforcement =
            plan && !plan->unconfined ? SANDBOX_SELF_APPLIED : SANDBOX_ENFORCED_NOTHING;
        return SANDBOX_OK;
    }
    /* The child failed (or the report is unreadable): it exits 126 without
     * running the command; reap it so the host never sees it. */
    reap(pid, &status);
    if (n == (ssize_t)sizeof rep)
        n = child_error(&c, argv[0], &rep, error);
    else
        n = sbx_fail(error, SANDBOX_E_SYSTEM, n < 0 ? e : EIO,
                     "cannot read the child's report: %s", strerror(n < 0 ? e : EIO));
    free(c.candidates);
    return (int)n;
}

/* ---- plans ---- */

struct sbx_backend_plan {
    struct sbx_linux_plan prepared; /* mask always NULL: built per spawn */
};

int sbx_backend_plan_new(sandbox_plan *plan, sandbox_error *error)
{
    struct sbx_backend_plan *bp;
    int rc;

    if (plan->noop)
        return SANDBOX_OK; /* spawned with no plan at all */
    bp = calloc(1, sizeof *bp);
    if (!bp)
        return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM, "out of memory while preparing the plan");
    /* Once per plan: its roots never change (sbx_linux_prepare says why). */
    rc = sbx_ledger_note(&plan->resolved, plan->warning, sizeof plan->warning, error);
    if (rc == SANDBOX_OK)
        rc = sbx_linux_prepare_resolved(&plan->resolved, &bp->prepared, plan->warning,
                                        sizeof plan->warning, error);
    if (rc != SANDBOX_OK) {
        free(bp);
        return rc;
    }
    plan->backend = bp;
    {
        /* The Sandbox line a run's outcome carries: what this plan gives,
         * which the plan itself knows (no probe on the spawn path). */
        struct sbx_avail a = {1, 1, 1, 0, 1};
        char line[SANDBOX_DESCRIBE_SIZE];
        a.filesystem = bp->prepared.ruleset_fd >= 0 ||
                       plan->resolved.filesystem != SANDBOX_FS_CONFINED;
        if (sbx_describe_render(&plan->resolved, &a, line, sizeof line) == SANDBOX_OK)
            plan->describe = sbx_strdup(line);
    }
    return SANDBOX_OK;
}

void sbx_backend_plan_free(struct sbx_backend_plan *bp)
{
    if (!bp)
        return;
    sbx_linux_plan_release(&bp->prepared);
    free(bp);
}

/* A supervised run as the host keeps it (process->backend): the records the
 * supervisor writes, and what the outcome needs besides. */
struct sbx_run {
    struct sbx_rec_area *area; /* MAP_SHARED: the supervisor's records */
    struct timespec start;
    char *describe;
    struct sbx_limits limits; /* the run's cgroup and rlimits (reslimits.c) */
};

static void run_free(struct sbx_run *run)
{
    if (!run)
        return;
    if (run->area)
        munmap(run->area, sizeof *run->area);
    sbx_limits_release(&run->limits);
    free(run->describe);
    free(run);
}

static int run_new(const sandbox_plan *plan, struct sbx_run **out, sandbox_error *error)
{
    struct sbx_run *run = calloc(1, sizeof *run);
    void *m;
    int e;
    *out = NULL;
    if (!run)
        return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM, "out of memory while preparing to spawn");
    run->limits.cg_procs = run->limits.cg_kill = -1;
    /* Shared with the supervisor, which the fork gives the same mapping; the
     * command execs away from it. Pages are touched only when written. */
    m = mmap(NULL, sizeof *run->area, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) {
        e = errno;
        free(run);
        return sbx_fail(error, SANDBOX_E_SYSTEM, e, "cannot map the run's records: %s",
                        strerror(e));
    }
    run->area = m;
    sbx_rec_init(run->area);
    if (plan->describe && !(run->describe = sbx_strdup(plan->describe))) {
        run_free(run);
        return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM, "out of memory while preparing to spawn");
    }
    /* Before the spawn, from the host: the supervisor and the command run
     * under Landlock, which refuses creating or removing a cgroup. */
    e = sbx_limits_prepare(plan->policy->limits, &run->limits, error);
    if (e != SANDBOX_OK) {
        run_free(run);
        return e;
    }
    clock_gettime(CLOCK_MONOTONIC, &run->start);
    *out = run;
    return SANDBOX_OK;
}

int sbx_backend_spawn(const sandbox_plan *plan, const char *const argv[],
                      const char *const envp[], const sandbox_spawn_options *options,
                      sandbox_process *process, sandbox_error *error)
{
    struct sbx_linux_plan run;
    struct sbx_sup_opts opts;
    struct sbx_run *rs = NULL;
    sbx_resolved r;
    int rc = SANDBOX_OK, supervised;

    supervised = options->supervise || options->timeout_ms || options->keep_background ||
                 (!plan->noop && plan->backend->prepared.guard) ||
                 sandbox_policy_needs_supervisor(plan->policy);
    if (!supervised && plan->noop)
        return sbx_linux_spawn_plan(NULL, SBX_SPAWN_DEFAULT, argv, envp, options, process, error);
    memset(&opts, 0, sizeof opts);
    if (supervised) {
        rc = run_new(plan, &rs, error);
        if (rc != SANDBOX_OK || !rs)
            return rc != SANDBOX_OK ? rc : SANDBOX_E_NOMEM;
        opts.timeout_ms = options->timeout_ms;
        opts.keep_background = options->keep_background;
        opts.records = rs->area;
        opts.host = getpid();
        opts.limits = rs->limits.any ? &rs->limits : NULL;
    }
    if (plan->noop) {
        /* An all-off policy, supervised: the lifecycle without a sandbox. */
        memset(&run, 0, sizeof run);
        run.ruleset_fd = -1;
        run.unconfined = 1;
    } else {
        /* A copy on this thread's stack: it shares the plan's ruleset
         * descriptor (which every child may pass to landlock_restrict_self)
         * and adds this command's own masks. The shared plan is never
         * written. */
        run = plan->backend->prepared;
        run.mask = NULL;
        memset(&run.unix_eps, 0, sizeof run.unix_eps);
        if (supervised && run.lsn_bpf && !run.guard) {
            char detail[256];
            int can = sbx_supervisor_available(detail, sizeof detail);
            if (!can) {
                run_free(rs);
                return sbx_fail(error, SANDBOX_E_UNSUPPORTED, 0,
                                "a supervised run (records, a timeout, the outcome) is not "
                                "available: %s; run without it (no --report, --timeout, "
                                "--outcome-fd, --keep-background)",
                                detail);
            }
            if (can == 2)
                sbx_warn(process->warning, sizeof process->warning, "%s", detail);
        }
        /* The pre-flight scans read the tree as it is now: per spawn, not
         * per plan. A shallow copy of the resolved plan carries this
         * spawn's memo of directories its index checks stat'ed (never
         * freed through it). */
        r = plan->resolved;
        r.index_memo = sbx_index_memo_new();
        if (sbx_hardlink_wanted(plan->policy))
            rc = sbx_hardlink_preflight(&r, plan->policy, error);
        if (rc == SANDBOX_OK)
            rc = sbx_mask_prepare(&r, &run.mask, !run.rootfs, process->warning, sizeof process->warning,
                                  error);
        /* Root's namespace covers the daemon sockets itself: listed per
         * spawn too, so one started after the plan is closed (a socket
         * gone since is skipped at apply). */
        if (rc == SANDBOX_OK && run.rootfs) {
            rc = sbx_unix_endpoints(&r, &run.unix_eps, error);
            if (rc == SANDBOX_OK)
                sbx_unix_proxy_buses(&r, &run.unix_eps);
        }
        sbx_index_memo_free(r.index_memo);
        if (rc != SANDBOX_OK) {
            sbx_mask_free(run.mask);
            run_free(rs);
            return rc;
        }
    }
    /* A confined command has no CAP_SYS_ADMIN left for the cgroup
     * namespace that keeps it in the run's cgroup (reslimits.c); the
     * no-userns program then closes the door instead: clone3 gets ENOSYS,
     * so CLONE_INTO_CGROUP cannot be asked for, and Landlock or the
     * missing capabilities refuse a write to another cgroup.procs. */
    if (rs && rs->limits.cg_procs >= 0 && !run.unconfined) {
        if (!run.userns_bpf &&
            sbx_seccomp_no_userns(&run.userns_bpf, &run.userns_bpf_len, error) != SANDBOX_OK) {
            sbx_mask_free(run.mask);
            sbx_unix_list_free(&run.unix_eps);
            run_free(rs);
            return error->code;
        }
        rs->limits.ns_optional = 1;
    }
    /* The fallback is weaker than the flag's name: say so at launch. */
    if (rs && rs->limits.mech[SANDBOX_LIMIT_MEMORY] == SBX_LM_RLIMIT)
        sbx_warn(process->warning, sizeof process->warning,
                 "--limit-memory is RLIMIT_DATA here (%s): per-process private data only; "
                 "shared memory and tmpfs are not counted",
                 rs->limits.cg_why[0] ? rs->limits.cg_why : "no cgroup of the run's own");
    run.sup = supervised ? &opts : NULL;
    /* The child adds a rule for its own /dev or devpts: to a ruleset of its own. */
    rc = plan->noop ? SANDBOX_OK : sbx_linux_plan_for_command(&plan->resolved, &run, error);
    if (rc == SANDBOX_OK)
        rc = sbx_linux_spawn_plan(&run, SBX_SPAWN_DEFAULT, argv, envp, options, process, error);
    if (!plan->noop)
        sbx_linux_plan_for_command_done(&run);
    sbx_mask_free(run.mask);
    sbx_unix_list_free(&run.unix_eps);
    if (rc == SANDBOX_OK)
        process->backend = rs;
    else
        run_free(rs);
    return rc;
}

int sbx_backend_collect(sandbox_process *process, struct sbx_outcome_data *d)
{
    struct sbx_run *run = process->backend;
    const struct sbx_rec_area *a;
    struct timespec now;
    struct sbx_outcome_rec r;
    struct sbx_rec rec;
    const char *path;
    char pbuf[4097];
    uint32_t i, n;
    int rc = SANDBOX_OK;

    if (!run)
        return SANDBOX_OK;
    process->backend = NULL;
    if (!d) {
        run_free(run);
        return SANDBOX_OK;
    }
    a = run->area;
    clock_gettime(CLOCK_MONOTONIC, &now);
    d->duration = (double)(now.tv_sec - run->start.tv_sec) +
                  (double)(now.tv_nsec - run->start.tv_nsec) / 1e9;
    d->supervised = 1;
    d->describe = run->describe;
    /* The cgroup's events are read before it is removed (run_free). */
    if (sbx_rec_valid(a) && (a->flags & SBX_RUN_ENDED))
        d->limit = sbx_limits_reason(&run->limits, a->status, a->cpu_ms,
                                     (a->flags & SBX_RUN_TIMED_OUT) != 0, &d->limit_certain);
    run->describe = NULL;
    /* The supervisor is reaped: nothing writes the area any more (a
     * supervisor the command had subverted could have written anything, so
     * every field is checked by sbx_rec_get). */
    /* A supervisor that failed after the start ended the tree: its records
     * up to then are the kernel's all the same, and where it failed is said
     * (a number the host checks, never a pointer). */
    /* With SBX_RUN_ENDED as well, it failed after the command had exited:
     * the status is the command's, written beside the failure (r58 F2). */
    if (sbx_rec_valid(a) && (a->flags & SBX_RUN_SUP_FAILED)) {
        d->sup_fail = a->fail_step > SBX_SUP_FAIL_NONE && a->fail_step < SBX_SUP_FAIL_N
                          ? (int)a->fail_step
                          : SBX_SUP_FAIL_NONE;
        d->sup_errno = a->fail_errno;
    }
    if (sbx_rec_valid(a) && !(a->flags & (SBX_RUN_ENDED | SBX_RUN_SUP_FAILED))) {
        /* The supervisor died without finishing (killed from outside, or by
         * the host's RLIMIT_CPU, which a command can make it spend: reviews
         * r58 F1, r60 F2): the status is its own death, never the
         * command's, and the outcome says so. The records it wrote before
         * are the kernel's decisions all the same: kept (r60 F2: a command
         * could otherwise erase them by having the supervisor killed). */
        d->flags = SBX_RUN_SUP_FAILED;
        d->sup_fail = SBX_SUP_FAIL_DIED;
        d->sup_errno = WIFSIGNALED(d->status) ? WTERMSIG(d->status) : 0;
    }
    if (sbx_rec_valid(a)) {
        if (a->flags & (SBX_RUN_ENDED | SBX_RUN_SUP_FAILED))
            d->flags = a->flags;
        d->leftovers = a->leftovers;
        d->dropped = a->dropped;
        n = a->n;
        for (i = 0; i < n && rc == SANDBOX_OK; i++) {
            if (!sbx_rec_get(a, i, &rec, &path)) {
                d->dropped++;
                continue;
            }
            memset(&r, 0, sizeof r);
            r.kind = rec.kind;
            r.action = rec.action;
            r.syscall = sbx_sys_name(rec.name);
            r.compat = rec.compat != 0;
            r.family = rec.family;
            r.type = rec.type;
            r.pid = rec.pid;
            memcpy(r.comm, rec.comm, sizeof r.comm);
            r.count = rec.count;
            if (path) {
                memcpy(pbuf, path, rec.path_len);
                pbuf[rec.path_len] = '\0';
                r.path = pbuf;
            }
            rc = sbx_outcome_add(d, &r);
        }
    } else {
        /* No area to read (none was mapped): nothing was recorded. */
        d->flags = SBX_RUN_NO_LISTENER;
    }
    run_free(run);
    return rc;
}

int sbx_backend_wait(sandbox_process *process, int *status, sandbox_error *error)
{
    pid_t got = reap((pid_t)process->pid, status);
    if (got < 0) {
        int e = errno;
        return sbx_fail(error, SANDBOX_E_SYSTEM, e, "cannot wait for process %ld: %s%s",
                        process->pid, strerror(e),
                        e == ECHILD ? " (reaped elsewhere, or SIGCHLD is ignored)" : "");
    }
    process->pid = 0;
    return SANDBOX_OK;
}
