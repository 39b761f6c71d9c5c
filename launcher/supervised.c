/* The launcher's supervised run: --report, --outcome-fd, --timeout,
 * --keep-background and protected paths. The library's supervisor (a child
 * of the launcher) applies the sandbox, forks the command and watches it;
 * the launcher stays as the host's process: it passes the host's signals on,
 * dies with the host, keeps the end of the command's stderr for --report,
 * and writes the outcome to the host's descriptor. The exec path
 * (launcher/main.c) stays one exec with no process left behind. */
#define _GNU_SOURCE
#include "supervised.h"
#include "exec.h"
#ifndef _WIN32
#include "links.h"
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#  include <sys/prctl.h>
#  include <sys/signalfd.h>
#endif

#define TAIL_SIZE 4096
#define OUTCOME_WRITE_MS 10000 /* a host that never reads its descriptor */

/* The signals for the command, as a descriptor poll can watch: a signalfd
 * on Linux; elsewhere (macOS has no supervisor, but --report still waits)
 * a pipe a handler writes the signal number and its origin to. */
#if defined(__linux__)
static int signals_open(const sigset_t *set)
{
    return signalfd(-1, set, SFD_CLOEXEC);
}

/* The next signal: 1 with *sig and *from_kernel set, 0 when none is there. */
static int signals_read(int fd, int *sig, int *from_kernel)
{
    struct signalfd_siginfo si;
    if (read(fd, &si, sizeof si) != (ssize_t)sizeof si)
        return 0;
    *sig = (int)si.ssi_signo;
    *from_kernel = si.ssi_code == SI_KERNEL;
    return 1;
}
#else
static int sig_pipe[2] = {-1, -1};

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    int e = errno;
    unsigned char m[2];
    (void)ctx;
    m[0] = (unsigned char)sig;
    m[1] = info && info->si_code != SI_USER && info->si_code != SI_QUEUE;
    (void)write(sig_pipe[1], m, sizeof m);
    errno = e;
}

static int signals_open(const sigset_t *set)
{
    struct sigaction sa;
    int sig;
    if (pipe(sig_pipe) != 0)
        return -1;
    fcntl(sig_pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(sig_pipe[1], F_SETFD, FD_CLOEXEC);
    fcntl(sig_pipe[1], F_SETFL, O_NONBLOCK);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigfillset(&sa.sa_mask);
    for (sig = 1; sig < 32; sig++)
        if (sigismember(set, sig))
            sigaction(sig, &sa, NULL);
    sigprocmask(SIG_UNBLOCK, set, NULL); /* handled now, not blocked */
    return sig_pipe[0];
}

static int signals_read(int fd, int *sig, int *from_kernel)
{
    unsigned char m[2];
    if (read(fd, m, sizeof m) != (ssize_t)sizeof m)
        return 0;
    *sig = m[0];
    *from_kernel = m[1];
    return 1;
}
#endif

#if defined(__linux__)
#define OWN_CHILDREN_MAX 64

/* A process's parent and start time (clock ticks since boot): 0, or -1
 * when it is gone or unreadable. */
static int proc_stat(long pid, long *ppid, unsigned long long *start)
{
    char path[64], buf[1024], *rp, *f;
    ssize_t n;
    int fd, i;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    rp = strrchr(buf, ')'); /* "pid (comm) S ppid ...": comm may hold ')' */
    if (!rp || strlen(rp) < 5)
        return -1;
    *ppid = strtol(rp + 4, NULL, 10);
    /* Field 22, starttime: the 20th after the ')'. */
    for (f = rp + 2, i = 3; f && i < 22; i++) {
        f = strchr(f, ' ');
        if (f)
            f++;
    }
    *start = f ? strtoull(f, NULL, 10) : 0;
    return 0;
}

/* The children the launcher's process already had when it was exec'd (the
 * host's: `sh -c 'job & exec launcher ...'`), which end_orphans must leave
 * alone (review r60 F1: it killed them). From the kernel's list of this
 * thread's children, read once at launch; each by pid and start time. */
struct own_children {
    long pid[OWN_CHILDREN_MAX];
    unsigned long long start[OWN_CHILDREN_MAX];
    int n;
};

static void own_children_read(struct own_children *c)
{
    char path[64], buf[4096], *p, *end;
    ssize_t n;
    long ppid;
    int fd;
    c->n = 0;
    snprintf(path, sizeof path, "/proc/self/task/%ld/children", (long)getpid());
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return; /* no such file (CONFIG_PROC_CHILDREN): none are told apart */
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    for (p = buf; c->n < OWN_CHILDREN_MAX; p = end) {
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 0 && proc_stat(pid, &ppid, &c->start[c->n]) == 0) {
            c->pid[c->n] = pid;
            c->n++;
        }
    }
}

static int own_child(const struct own_children *c, long pid, unsigned long long start)
{
    int i;
    for (i = 0; i < c->n; i++)
        if (c->pid[i] == pid && c->start[i] == start)
            return 1;
    return 0;
}

/* The supervisor died without ending the run (killed from outside, or by
 * the host's CPU limit): what the command had started came to the launcher,
 * a subreaper for this, and is ended here (review r58 F1: it ran on past the
 * run and its timeout), but for the children the launcher's process had
 * before it was exec'd. A bounded number of rounds: each kills every other
 * child the launcher has, then reaps what it killed. */
static void end_orphans(const struct own_children *own)
{
    const struct timespec pause = {0, 10000000L};
    struct dirent *e;
    pid_t me = getpid();
    int round, found, st, i;
    for (round = 0; round < 300; round++) {
        DIR *d = opendir("/proc");
        long killed[256];
        int nk = 0;
        found = 0;
        while (d && (e = readdir(d)) != NULL) {
            char *end;
            long pid = strtol(e->d_name, &end, 10), ppid;
            unsigned long long start;
            if (*end || pid <= 0 || proc_stat(pid, &ppid, &start) != 0 || ppid != (long)me ||
                own_child(own, pid, start))
                continue;
            if (kill((pid_t)pid, SIGKILL) == 0) {
                found++;
                if (nk < 256)
                    killed[nk++] = pid;
            }
        }
        if (d)
            closedir(d);
        /* Only what was killed here is reaped, without waiting (one stuck
         * in the kernel is tried again next round, up to the bound): the
         * host's own children stay its to wait for. */
        nanosleep(&pause, NULL);
        for (i = 0; i < nk; i++)
            (void)waitpid((pid_t)killed[i], &st, WNOHANG);
        if (!found)
            return;
    }
}
#endif

int launcher_wants_supervision(const struct launcher_opts *o)
{
    return o->report || o->timeout_ms || o->outcome_fd >= 0 || o->keep_background ||
           sandbox_policy_needs_supervisor(o->policy);
}

/* The descriptors the command inherits, as the exec path would pass them:
 * every one open now, but the launcher's own (the outcome, its pipe). */
static int *inherited_fds(const int *exclude, size_t n_exclude, size_t *n)
{
    int *fds = NULL, fd, dfd;
    size_t cap = 0, k;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    *n = 0;
    if (!d)
        return NULL; /* no /proc: only stdio (sandbox_spawn closes the rest) */
    dfd = dirfd(d);
    while ((e = readdir(d)) != NULL) {
        char *end;
        long v = strtol(e->d_name, &end, 10);
        if (*end || end == e->d_name || v < 3 || v > INT_MAX || v == dfd)
            continue;
        fd = (int)v;
        for (k = 0; k < n_exclude && exclude[k] != fd; k++)
            ;
        if (k < n_exclude)
            continue;
        if (*n == cap) {
            int *grown = realloc(fds, (cap = cap ? cap * 2 : 16) * sizeof *fds);
            if (!grown)
                break;
            fds = grown;
        }
        fds[(*n)++] = fd;
    }
    closedir(d);
    return fds;
}

static void keep_tail(char *tail, size_t *tlen, const char *buf, size_t n)
{
    if (n >= TAIL_SIZE - 1) {
        memcpy(tail, buf + n - (TAIL_SIZE - 1), TAIL_SIZE - 1);
        *tlen = TAIL_SIZE - 1;
        return;
    }
    if (*tlen + n > TAIL_SIZE - 1) {
        size_t drop = *tlen + n - (TAIL_SIZE - 1);
        memmove(tail, tail + drop, *tlen - drop);
        *tlen -= drop;
    }
    memcpy(tail + *tlen, buf, n);
    *tlen += n;
}

/* Relay what the pipe holds now to stderr, keeping its end. 0 at end of
 * file or error, 1 when more may come, -1 when nothing is there now. */
static int relay(int fd, char *tail, size_t *tlen)
{
    char buf[4096];
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0)
        return errno == EINTR ? 1 : errno == EAGAIN ? -1 : 0;
    if (n == 0)
        return 0;
    fwrite(buf, 1, (size_t)n, stderr);
    fflush(stderr);
    keep_tail(tail, tlen, buf, (size_t)n);
    return 1;
}

/* Write all of s to fd within OUTCOME_WRITE_MS: a pipe nobody reads must not
 * keep the launcher (and whoever waits for it) forever. 0 or an errno. */
static int write_outcome(int fd, const char *s, size_t len)
{
    struct timespec start, now;
    struct pollfd pf;
    ssize_t n;
    long ms;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (len > 0) {
        n = write(fd, s, len);
        if (n > 0) {
            s += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return errno;
        clock_gettime(CLOCK_MONOTONIC, &now);
        ms = (long)(now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        if (ms >= OUTCOME_WRITE_MS)
            return ETIMEDOUT;
        pf.fd = fd;
        pf.events = POLLOUT;
        pf.revents = 0;
        (void)poll(&pf, 1, (int)(OUTCOME_WRITE_MS - ms));
    }
    return 0;
}

/* Die of `sig` as the command did, so whoever waits sees its status; no
 * core file of the launcher's own. */
static void die_of(int sig)
{
    struct rlimit none = {0, 0};
    struct sigaction sa;
    sigset_t one;
    (void)setrlimit(RLIMIT_CORE, &none);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(sig, &sa, NULL);
    sigemptyset(&one);
    sigaddset(&one, sig);
    sigprocmask(SIG_UNBLOCK, &one, NULL);
    kill(getpid(), sig);
}

/* A file without a #! line: the exec path hands it to /bin/sh, as POSIX's
 * execvp does; the spawn reports ENOEXEC, so the launcher asks again. */
static char **with_sh(char **cmd, char *path, size_t size)
{
    size_t n = 0;
    char **argv;
    if (!launcher_find_in_path(cmd[0], path, size))
        return NULL;
    while (cmd[n])
        n++;
    argv = calloc(n + 2, sizeof *argv);
    if (!argv)
        return NULL;
    argv[0] = (char *)"/bin/sh";
    argv[1] = path;
    if (n > 1)
        memcpy(&argv[2], &cmd[1], (n - 1) * sizeof *argv);
    return argv;
}

int launcher_run_supervised(struct launcher_opts *o)
{
    sandbox_spawn_options so;
    sandbox_process proc;
    sandbox_outcome out;
    sandbox_error err;
    struct pollfd pf[2];
    sigset_t set, old;
    char tail[TAIL_SIZE], shpath[PATH_MAX];
    char **argv = o->cmd, **sh_argv = NULL;
    size_t tlen = 0, n_keep = 0;
    int errpipe[2] = {-1, -1}, exclude[4], sfd, rc, status, timed_out, sig, from_kernel;
    int done = 0;
    int *keep;
#if defined(__linux__)
    struct own_children own;
#endif

#if defined(__linux__)
    pid_t host = getppid();
    /* The run dies with its host: the launcher with the host, the
     * supervisor with the launcher (it then ends the whole tree). Its
     * death before this line is seen by getppid. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != host) {
        sandbox_policy_free(o->policy);
        fprintf(stderr, PROG ": the process that started the launcher is gone; not running\n");
        return EXIT_CANNOT_RUN;
    }
    /* What the command leaves comes here only if its supervisor dies
     * (end_orphans); otherwise the supervisor, a subreaper too, keeps it. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    own_children_read(&own);
#endif
    if (o->outcome_fd >= 0 && fcntl(o->outcome_fd, F_SETFD, FD_CLOEXEC) != 0) {
        sandbox_policy_free(o->policy);
        fprintf(stderr, PROG ": --outcome-fd %d: %s\n", o->outcome_fd, strerror(errno));
        return EXIT_USAGE;
    }
    /* Before the spawn: a signal for the command must not be lost or end
     * the launcher in between. The spawned supervisor sets its own. */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGQUIT);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    signal(SIGPIPE, SIG_IGN); /* a closed stderr or outcome pipe is an error, not death */
    sfd = signals_open(&set);
    if (sfd < 0 || (o->report && pipe2(errpipe, O_CLOEXEC) != 0)) {
        sandbox_policy_free(o->policy);
        fprintf(stderr, PROG ": cannot prepare the supervised run: %s\n", strerror(errno));
        return EXIT_CANNOT_RUN;
    }
    exclude[0] = o->outcome_fd;
    exclude[1] = sfd;
    exclude[2] = errpipe[0];
    exclude[3] = errpipe[1];
    keep = inherited_fds(exclude, 4, &n_keep);

    sandbox_spawn_options_init(&so);
    so.supervise = 1;
    so.timeout_ms = o->timeout_ms;
    so.keep_background = o->keep_background;
    so.stderr_fd = errpipe[1];
    so.keep_fds = keep;
    so.n_keep_fds = n_keep;
    rc = sandbox_spawn(o->policy, (const char *const *)argv, NULL, &so, &proc, &err);
    if (rc == SANDBOX_E_EXEC && err.sys_errno == ENOEXEC &&
        (sh_argv = with_sh(argv, shpath, sizeof shpath)) != NULL)
        rc = sandbox_spawn(o->policy, (const char *const *)sh_argv, NULL, &so, &proc, &err);
    free(keep);
    if (errpipe[1] >= 0)
        close(errpipe[1]);
    if (rc != SANDBOX_OK) {
        /* Fail closed: nothing ran. */
        sandbox_policy_free(o->policy);
        free(sh_argv);
        if (rc == SANDBOX_E_EXEC) {
            fprintf(stderr, PROG ": cannot run '%s': %s\n", argv[0], strerror(err.sys_errno));
            return err.sys_errno == ENOENT || err.sys_errno == ENOTDIR ? EXIT_NOT_FOUND
                                                                      : EXIT_CANNOT_RUN;
        }
        fprintf(stderr, PROG ": %s\n", err.message);
        return EXIT_CANNOT_RUN;
    }
    if (proc.warning[0])
        fprintf(stderr, PROG ": warning: %s\n", proc.warning);

    while (!done) {
        pf[0].fd = sfd;
        pf[0].events = POLLIN;
        pf[1].fd = errpipe[0];
        pf[1].events = POLLIN;
        pf[0].revents = pf[1].revents = 0;
        if (poll(pf, errpipe[0] >= 0 ? 2 : 1, -1) < 0 && errno != EINTR)
            break;
        if (errpipe[0] >= 0 && (pf[1].revents & (POLLIN | POLLHUP)) &&
            relay(errpipe[0], tail, &tlen) == 0) {
            close(errpipe[0]);
            errpipe[0] = -1;
        }
        if (!(pf[0].revents & POLLIN) || !signals_read(sfd, &sig, &from_kernel))
            continue;
        if (sig == SIGCHLD) {
            siginfo_t info;
            memset(&info, 0, sizeof info);
            /* Peek only: sandbox_wait_outcome reaps it. */
            done = waitid(P_PID, (id_t)proc.pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                   info.si_pid == (pid_t)proc.pid;
        } else if (!from_kernel) {
            /* The host's signal, for the command (the supervisor passes it
             * on). A terminal's reached the whole process group already. */
            kill((pid_t)proc.pid, sig);
        }
    }
    /* What is left in the pipe; a descendant that passed its end elsewhere
     * cannot keep the launcher: the run has ended. */
    if (errpipe[0] >= 0) {
        (void)fcntl(errpipe[0], F_SETFL, O_NONBLOCK);
        while (relay(errpipe[0], tail, &tlen) > 0)
            ;
        close(errpipe[0]);
    }
    tail[tlen] = '\0';
    rc = sandbox_wait_outcome(&proc, o->policy, o->report ? tail : NULL, &out, &err);
#ifndef _WIN32
    /* --report with the hard-link scan: the links that appeared while the
     * command ran (issue 23; launcher/links.c). */
    if (rc == SANDBOX_OK && o->scan_after)
        launcher_report_new_links(o->policy);
#endif
    sandbox_policy_free(o->policy);
    free(sh_argv);
    close(sfd);
    if (rc != SANDBOX_OK) {
        fprintf(stderr, PROG ": %s\n", err.message);
        return EXIT_CANNOT_RUN;
    }
    if (o->outcome_fd >= 0 && out.json) {
        size_t len = strlen(out.json);
        out.json[len] = '\n'; /* one line; the NUL is not written */
        rc = write_outcome(o->outcome_fd, out.json, len + 1);
        out.json[len] = '\0';
        if (rc)
            fprintf(stderr, PROG ": cannot write the outcome to descriptor %d: %s\n",
                    o->outcome_fd, strerror(rc));
    }
    /* The sandbox's own failure is said whether or not --report asked:
     * the 126 is not the command's (review r57 F2). */
    if ((o->report || out.sandbox_failed) && out.summary[0])
        fprintf(stderr, PROG ": %s\n", out.summary);
    status = out.status;
    timed_out = out.timed_out;
    if (out.sandbox_failed == SANDBOX_FAILED_RUN) {
        /* The tree is the sandbox's to end, and the status its own: 126,
         * never the supervisor's death passed off as the command's. */
#if defined(__linux__)
        end_orphans(&own);
#endif
        sandbox_outcome_clear(&out);
        sigprocmask(SIG_SETMASK, &old, NULL);
        return EXIT_CANNOT_RUN;
    }
    sandbox_outcome_clear(&out);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (timed_out)
        return 124;
    if (WIFSIGNALED(status)) {
        if (!o->report)
            die_of(WTERMSIG(status));
        return 128 + WTERMSIG(status);
    }
    return WEXITSTATUS(status);
}
