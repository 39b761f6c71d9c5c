/* Probe: what becomes of a process whose refused socket() is answered with
 * SIGSYS by a supervised run (refusal.c), when it tries to survive it.
 *   flip N          N children; in each, a second thread flips SIGSYS between
 *                   the default and ignored while the main thread calls
 *                   socket(AF_INET): the signal may be discarded after the
 *                   supervisor looked at the disposition.
 *   flip-handler N  the same, flipping between a handler and ignored.
 *   trace           a child traced by its parent, which continues the SIGSYS
 *                   stop without the signal.
 *   catch [restart|nested|resethand]  a SIGSYS handler (SA_RESTART or
 *                   not, one that calls socket() itself, or a one-shot
 *                   SA_RESETHAND one), then socket().
 *   burst N         N threads with an SA_RESTART handler call socket() at
 *                   the same moment; exit 0 when every one was caught and
 *                   got EPERM.
 *   forkburst N     N children without a handler call socket() at the same
 *                   moment (the line of counts; each should die of SIGSYS).
 *   hog N           N threads sleep 3 s in their SIGSYS handler; meanwhile a
 *                   child with a handler (should live: "lived") and one
 *                   without (should die of SIGSYS) call socket().
 *   busy N          N children open a FIFO (./sbx-busy-fifo) for writing with
 *                   O_CREAT before any reader (under protected paths each
 *                   holds one of the creation guard's workers); then a
 *                   thread calls socket(AF_INET) and is sent SIGUSR1, whose
 *                   handler has no SA_RESTART. It must die of SIGSYS: a call
 *                   left unreceived would return EINTR, unrefused and
 *                   unrecorded (review r36 F1). Prints what the call got.
 *   busy N E        the same, once E of the writers have ended (those
 *                   answered EAGAIN past the guard's backlog).
 *   busy-past N M   N writers as in busy (enough to fill the guard's workers
 *                   and backlog), then one child opens the FIFO the same way
 *                   M times in a row: each should come back EAGAIN at once
 *                   (review r39 F4: each cost a purge of the full backlog).
 *                   Prints how many came back EAGAIN and in how many ms.
 *   hog-create N    N threads sleep 3 s in their SIGSYS handler (each holds
 *                   a descriptor of the supervisor's) while the main thread
 *                   makes 40 new names (mkdir, open O_CREAT) nothing
 *                   protects: a creation the guard cannot check for want of
 *                   descriptors must not read as a protected name (review
 *                   r35 F3). Prints the count per outcome; exit 0 when none
 *                   got EACCES.
 *   altstack        the handler is set to run on an unmapped alternate
 *                   stack: the kernel cannot deliver SIGSYS and the process
 *                   dies of SIGSEGV.
 * Prints one line of counts: how each child ended ("lived" = socket()
 * returned and the child went on; "e513" = it returned the kernel-internal
 * ERESTARTNOINTR, which must never reach a program). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int go = 1, handled, nested, slow;
static pthread_barrier_t bar;
static int n_handled, n_eperm;
static void on_sigsys(int sig)
{
    (void)sig;
    handled = 1;
    __atomic_add_fetch(&n_handled, 1, __ATOMIC_SEQ_CST);
    if (slow)
        sleep(3);
    if (nested) /* a refused call from inside the handler */
        (void)syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
}

static void *flip(void *arg)
{
    int handler = arg != NULL;
    while (go) {
        signal(SIGSYS, handler ? on_sigsys : SIG_DFL);
        signal(SIGSYS, SIG_IGN);
    }
    return NULL;
}

/* 42: socket() failed with EPERM and the child lived; 43: another errno
 * (513: ERESTARTNOINTR leaked); 0: it made a socket. */
static int child_flip(int handler)
{
    pthread_t t;
    long fd;
    if (pthread_create(&t, NULL, flip, handler ? (void *)1 : NULL) != 0)
        return 3;
    usleep(1000);
    fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    go = 0;
    if (fd >= 0)
        return 0;
    return errno == 513 ? 44 : errno == EPERM ? 42 : 43;
}

static int child_traced(void)
{
    long fd;
    if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0)
        return 2;
    raise(SIGSTOP);
    fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    return fd >= 0 ? 0 : 42;
}

static void *burst_thread(void *arg)
{
    long fd;
    (void)arg;
    pthread_barrier_wait(&bar);
    fd = syscall(SYS_socket, AF_INET, SOCK_DGRAM, 0);
    if (fd < 0 && errno == EPERM)
        __atomic_add_fetch(&n_eperm, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void set_handler(int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigsys;
    sa.sa_flags = flags;
    sigaction(SIGSYS, &sa, NULL);
}

/* N threads at a barrier, each then calling socket(): how many got EPERM. */
static int burst(int n)
{
    pthread_t *t = calloc((size_t)n, sizeof *t);
    int i;
    if (!t || pthread_barrier_init(&bar, NULL, (unsigned)n) != 0)
        return -1;
    for (i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, burst_thread, NULL) != 0)
            return -1;
    for (i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    free(t);
    return n_eperm;
}

static long busy_rc = -2;
static int busy_errno;
static void on_usr1(int sig)
{
    (void)sig;
}
static void *busy_thread(void *arg)
{
    (void)arg;
    busy_rc = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    busy_errno = errno;
    return NULL;
}

static const char busy_fifo[] = "sbx-busy-fifo";

/* N children open the FIFO for writing with O_CREAT before any reader:
 * their pids, or NULL. */
static pid_t *start_writers(int n)
{
    pid_t *kid = calloc((size_t)n + 1, sizeof *kid);
    int i;
    (void)unlink(busy_fifo);
    if (!kid || mkfifo(busy_fifo, 0600) != 0) {
        free(kid);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        if ((kid[i] = fork()) < 0) {
            free(kid);
            return NULL;
        }
        if (kid[i] == 0)
            _exit(open(busy_fifo, O_WRONLY | O_CREAT, 0600) < 0);
    }
    return kid;
}

/* A reader lets the writers through; each not yet reaped is waited for. */
static void end_writers(pid_t *kid, int n)
{
    int i, rd = open(busy_fifo, O_RDONLY | O_NONBLOCK);
    for (i = 0; i < n; i++)
        if (kid[i] > 0)
            waitpid(kid[i], NULL, 0);
    if (rd >= 0)
        close(rd);
    (void)unlink(busy_fifo);
    free(kid);
}

/* Up to 60 s for `want` writers to end (reaped, their pid zeroed): the
 * number of them, printed. */
static int writers_ended(pid_t *kid, int n, int want)
{
    int i, ended = 0, tries;
    for (tries = 0; tries < 600 && ended < want; tries++) {
        for (i = 0; i < n; i++)
            if (kid[i] > 0 && waitpid(kid[i], NULL, WNOHANG) == kid[i]) {
                kid[i] = 0;
                ended++;
            }
        if (ended < want)
            usleep(100000);
    }
    printf("busy: %d writers ended before the socket call\n", ended);
    return ended;
}

static int busy(int n, int ended)
{
    struct sigaction sa;
    pthread_t t;
    pid_t *kid = start_writers(n);

    if (!kid)
        return 3;
    sleep(1);
    /* Writers past the guard's backlog are answered EAGAIN and end: once
     * they have, every earlier call was received, however loaded the
     * machine (a fixed pause alone lost to a busy CI runner). A loop that
     * stopped receiving never lets them end. */
    if (ended > 0 && writers_ended(kid, n, ended) < ended) {
        end_writers(kid, n);
        return 3;
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1; /* no SA_RESTART: an unreceived call returns EINTR */
    sigaction(SIGUSR1, &sa, NULL);
    if (pthread_create(&t, NULL, busy_thread, NULL) != 0) {
        end_writers(kid, n);
        return 3;
    }
    usleep(300000);
    pthread_kill(t, SIGUSR1);
    pthread_join(t, NULL);
    printf("busy: socket returned %ld errno %d, the process lives\n", busy_rc,
           busy_rc < 0 ? busy_errno : 0);
    fflush(stdout);
    end_writers(kid, n);
    if (busy_rc >= 0)
        close((int)busy_rc);
    return 1;
}

/* busy-past: N writers, then M opens in a row in one child (killed by an
 * alarm if one waits); exit 0 when all M came back EAGAIN. */
static int busy_past(int n, int m)
{
    struct timespec t0, t1;
    pid_t *kid, c;
    int i, st = 0, pfd[2];
    long res[2] = {0, 0};

    if (pipe(pfd) != 0)
        return 3;
    kid = start_writers(n);
    if (!kid) {
        close(pfd[0]);
        close(pfd[1]);
        return 3;
    }
    sleep(2);
    if ((c = fork()) == 0) {
        long eagain = 0;
        alarm(60);
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (i = 0; i < m; i++) {
            int fd = open(busy_fifo, O_WRONLY | O_CREAT, 0600);
            if (fd >= 0)
                close(fd);
            else if (errno == EAGAIN)
                eagain++;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        res[0] = eagain;
        res[1] = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
        _exit(write(pfd[1], res, sizeof res) == (ssize_t)sizeof res ? 0 : 1);
    }
    close(pfd[1]);
    if (c < 0 || waitpid(c, &st, 0) != c || read(pfd[0], res, sizeof res) != (ssize_t)sizeof res)
        printf("busy-past: the child did not report (status %d)\n", st);
    else
        printf("busy-past: %d opens, %ld EAGAIN in %ld ms\n", m, res[0], res[1]);
    fflush(stdout);
    close(pfd[0]);
    end_writers(kid, n);
    return res[0] == m ? 0 : 1;
}

static int child_sock(int handler)
{
    long fd;
    if (handler)
        set_handler(0);
    fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    return fd >= 0 ? 0 : errno == EPERM ? 42 : 43;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 1, i, lived = 0, sigsys = 0, sigkill = 0, e513 = 0,
        other = 0;

    if (strcmp(mode, "catch") == 0) {
        struct sigaction sa;
        long fd;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_sigsys;
        sa.sa_flags = argc > 2 && strcmp(argv[2], "restart") == 0     ? SA_RESTART
                      : argc > 2 && strcmp(argv[2], "resethand") == 0 ? SA_RESETHAND
                                                                      : 0;
        nested = argc > 2 && strcmp(argv[2], "nested") == 0;
        sigaction(SIGSYS, &sa, NULL);
        fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
        printf("catch: handler %s, socket %ld errno %d\n", handled ? "ran" : "did not run", fd,
               fd < 0 ? errno : 0);
        return handled && fd < 0 && errno == EPERM ? 0 : 1;
    }
    if (strcmp(mode, "burst") == 0) {
        int got;
        set_handler(SA_RESTART);
        got = burst(n);
        printf("burst: threads=%d handled=%d eperm=%d\n", n, n_handled, got);
        return got == n && n_handled == n ? 0 : 1;
    }
    if (strcmp(mode, "busy") == 0)
        return busy(n, argc > 3 ? atoi(argv[3]) : 0);
    if (strcmp(mode, "busy-past") == 0)
        return busy_past(n, argc > 3 ? atoi(argv[3]) : 1);
    if (strcmp(mode, "altstack") == 0) {
        stack_t ss;
        long fd;
        ss.ss_sp = mmap(NULL, 65536, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        ss.ss_size = 65536;
        ss.ss_flags = 0;
        if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) != 0)
            return 3;
        set_handler(SA_ONSTACK);
        fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
        return fd >= 0 ? 0 : 1;
    }
    if (strcmp(mode, "hog") == 0) {
        pid_t h = fork(), c;
        int st, with, without;
        if (h == 0) {
            slow = 1;
            set_handler(SA_RESTART);
            _exit(burst(n) == n ? 0 : 1);
        }
        sleep(1);
        if ((c = fork()) == 0)
            _exit(child_sock(1));
        waitpid(c, &with, 0);
        if ((c = fork()) == 0)
            _exit(child_sock(0));
        waitpid(c, &without, 0);
        waitpid(h, &st, 0);
        printf("hog: threads=%d hog_exit=%d handler_lived=%d nohandler_sigsys=%d\n", n,
               WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st),
               WIFEXITED(with) && WEXITSTATUS(with) == 42,
               WIFSIGNALED(without) && WTERMSIG(without) == SIGSYS);
        return WIFEXITED(st) && WEXITSTATUS(st) == 0 && WIFEXITED(with) &&
                       WEXITSTATUS(with) == 42 && WIFSIGNALED(without) &&
                       WTERMSIG(without) == SIGSYS
                   ? 0
                   : 1;
    }
    if (strcmp(mode, "hog-create") == 0) {
        pid_t h = fork();
        int st, made = 0, eacces = 0, short_fd = 0, others = 0, fd;
        char name[64];
        if (h == 0) {
            slow = 1;
            set_handler(SA_RESTART);
            _exit(burst(n) == n ? 0 : 1);
        }
        sleep(1);
        for (i = 0; i < 40; i++) {
            snprintf(name, sizeof name, "sbx-hog-%d-%d", (int)getpid(), i);
            if (i % 2)
                fd = mkdir(name, 0755);
            else if ((fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0)
                close(fd);
            if (fd >= 0)
                made++;
            else if (errno == EACCES)
                eacces++;
            else if (errno == EMFILE || errno == ENFILE || errno == EAGAIN)
                short_fd++;
            else
                others++;
        }
        waitpid(h, &st, 0);
        printf("hog-create: threads=%d made=%d eacces=%d short=%d other=%d\n", n, made, eacces,
               short_fd, others);
        return eacces == 0 && others == 0 ? 0 : 1;
    }
    if (strcmp(mode, "forkburst") == 0) {
        int pfd[2];
        if (pipe(pfd) != 0)
            return 3;
        for (i = 0; i < n; i++) {
            pid_t c = fork();
            if (c < 0)
                return 3;
            if (c == 0) {
                char b;
                close(pfd[1]);
                (void)read(pfd[0], &b, 1);
                _exit(child_sock(0));
            }
        }
        close(pfd[0]);
        usleep(300000);
        close(pfd[1]); /* every child at once */
        for (i = 0; i < n; i++) {
            int st;
            if (wait(&st) < 0)
                return 3;
            if (WIFEXITED(st) && WEXITSTATUS(st) == 42)
                lived++;
            else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
                sigsys++;
            else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
                sigkill++;
            else
                other++;
        }
        printf("tries=%d lived=%d sigsys=%d sigkill=%d e513=%d other=%d\n", n, lived, sigsys,
               sigkill, e513, other);
        return 0;
    }
    if (strcmp(mode, "trace") == 0)
        n = 1;
    else if (strcmp(mode, "flip") != 0 && strcmp(mode, "flip-handler") != 0) {
        fprintf(stderr, "usage: sigsys_fate flip|flip-handler|burst|forkburst|hog N | trace | "
                        "altstack | catch [restart|nested|resethand]\n");
        return 2;
    }
    for (i = 0; i < n; i++) {
        int st;
        pid_t c = fork();
        if (c < 0)
            return 3;
        if (c == 0)
            _exit(strcmp(mode, "trace") == 0 ? child_traced() : child_flip(mode[4] == '-'));
        if (strcmp(mode, "trace") == 0) {
            /* The tracer: continue every stop, SIGSYS swallowed. */
            while (waitpid(c, &st, 0) == c && WIFSTOPPED(st))
                ptrace(PTRACE_CONT, c, 0,
                       WSTOPSIG(st) == SIGSTOP || WSTOPSIG(st) == SIGSYS ? 0 : WSTOPSIG(st));
        } else if (waitpid(c, &st, 0) != c) {
            return 3;
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == 42)
            lived++;
        else if (WIFEXITED(st) && WEXITSTATUS(st) == 44)
            e513++;
        else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
            sigsys++;
        else if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
            sigkill++;
        else
            other++;
    }
    printf("tries=%d lived=%d sigsys=%d sigkill=%d e513=%d other=%d\n", n, lived, sigsys, sigkill,
           e513, other);
    fflush(stdout);
    return 0;
}
