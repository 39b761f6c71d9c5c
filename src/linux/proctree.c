/* The command's process tree, as its supervisor sees it: a child subreaper,
 * so every orphan of the tree becomes its child. Finding the descendants
 * reads /proc (a parent link per process); each is signalled through a
 * pidfd, checked again after it is opened, so a pid that a process outside
 * reused meanwhile is never signalled. Async-signal-safe: getdents64 and
 * mmap, no malloc (supervisor.h). */
#define _GNU_SOURCE
#include "supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>


/* Processes a scan holds; a machine with more falls back to the direct
 * children (each round then reaches one more generation, as the orphans of
 * the last come back to the supervisor). */
#define TREE_MAX (128L * 1024)

struct proc {
    int32_t pid, ppid;
    int32_t dead; /* a zombie alone in its thread group (stat_ppid) */
};

/* Whether a zombie's stat line `s` (from the state field on) shows it
 * alone in its thread group (num_threads, the 18th field from the state,
 * counts the exited leader until it is reaped). A leader that called
 * pthread_exit reads Z while its other threads run on: that one is alive. */
static int alone(const char *s)
{
    int field = 0;
    long v = 0;
    for (; *s && field < 17; s++)
        if (*s == ' ')
            field++;
    if (field < 17)
        return 0;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (*s - '0');
    return v == 1;
}

/* The ppid field of /proc/PID/stat ("pid (comm) state ppid ..."; comm may
 * hold ')' and spaces, so from the last ')'). -1 when unreadable. `dead`:
 * a zombie that is all gone, no leftover to signal or count (review r54),
 * though it stays in the scan's table: a child read before its parent
 * died during the scan is linked to the tree through it (r57 F3). */
static long stat_ppid(long pid, int *dead)
{
    char p[64], buf[512];
    const char *s;
    long v = 0;
    sbx_proc_path(p, pid, "/stat");
    if (sbx_read_small(p, buf, sizeof buf) <= 0)
        return -1;
    s = strrchr(buf, ')');
    if (!s || s[1] != ' ' || !s[2] || s[3] != ' ')
        return -1;
    *dead = (s[2] == 'Z' || s[2] == 'X') && alone(s + 2);
    for (s += 4; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (*s - '0');
    return v;
}

int sbx_tree_has(long pid)
{
    long self = (long)getpid(), p = pid;
    int i, dead;
    for (i = 0; i < 512 && p > 1; i++) {
        long up = stat_ppid(p, &dead);
        if (up < 0)
            return i == 0 ? -1 : 0;
        if (up == self)
            return 1;
        p = up;
    }
    return 0;
}

/* Every process's (pid, ppid); the count, or -1 when they do not fit. */
static long scan(struct proc *t, long max)
{
    char buf[4096];
    long n, off, count = 0;
    int fd = openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (off = 0; off < n;) {
            /* struct linux_dirent64: ino(8) off(8) reclen(2) type(1) name */
            unsigned short reclen;
            const char *name = buf + off + 19, *c = name;
            long pid = 0, ppid;
            int dead = 0;
            memcpy(&reclen, buf + off + 16, sizeof reclen);
            off += reclen;
            while (*c >= '0' && *c <= '9')
                pid = pid * 10 + (*c++ - '0');
            if (c == name || *c || (ppid = stat_ppid(pid, &dead)) < 0)
                continue;
            if (count == max) {
                close(fd);
                return -1;
            }
            t[count].pid = (int32_t)pid;
            t[count].ppid = (int32_t)ppid;
            t[count].dead = dead;
            count++;
        }
    }
    close(fd);
    return count;
}

static int in(const struct proc *t, long n, long pid)
{
    long i;
    for (i = 0; i < n; i++)
        if (t[i].pid == pid)
            return 1;
    return 0;
}

/* Signal `pid` only if it is still the process the scan saw: a pidfd pins
 * it, and its parent is still one of `tree` (or the supervisor). */
static int signal_one(long pid, int sig, const struct proc *tree, long n, long self)
{
    long ppid;
    int dead = 0, fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0)
        return errno == ENOSYS && kill((pid_t)pid, sig) == 0; /* Linux < 5.3 */
    ppid = stat_ppid(pid, &dead);
    if (!dead && (ppid == self || in(tree, n, ppid))) {
        int ok = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0) == 0;
        close(fd);
        return ok;
    }
    close(fd);
    return 0;
}

/* The fallback: the direct children, from /proc/self/task/TID/children
 * (the supervisor has one thread). Each is pinned as a zombie until this
 * process reaps it, so kill(2) cannot reach a reused pid. */
static int signal_children(int sig, long self)
{
    char p[64], buf[4096];
    long n, pid = 0;
    int sent = 0, any = 0;
    size_t len;
    sbx_proc_path(p, self, "/task/");
    len = strlen(p);
    sbx_put_dec(p + len, (unsigned long)self);
    strcat(p, "/children");
    if ((n = sbx_read_small(p, buf, sizeof buf)) <= 0)
        return 0;
    buf[n] = ' ';
    for (len = 0; len <= (size_t)n; len++) {
        if (buf[len] >= '0' && buf[len] <= '9') {
            pid = pid * 10 + (buf[len] - '0');
            any = 1;
        } else if (any) {
            sent += kill((pid_t)pid, sig) == 0;
            pid = 0;
            any = 0;
        }
    }
    return sent;
}

int sbx_tree_signal(int sig)
{
    size_t size = (size_t)TREE_MAX * sizeof(struct proc) * 2;
    struct proc *all, *tree;
    long n_all, n_tree = 0, i, self = (long)getpid();
    int sent = 0, grew;

    all = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (all == MAP_FAILED) /* the host's ulimit -v (review r57 F1): as too many */
        return signal_children(sig, self);
    tree = all + TREE_MAX;
    n_all = scan(all, TREE_MAX);
    if (n_all < 0) {
        /* Too many to hold: the direct children, and the next generation
         * when their orphans come back. */
        munmap(all, size);
        return signal_children(sig, self);
    }
    /* The descendants: every process whose parent is the supervisor or one
     * of them, to a fixed point. */
    do {
        grew = 0;
        for (i = 0; i < n_all; i++) {
            if (all[i].pid == 0)
                continue;
            if (all[i].ppid == self || in(tree, n_tree, all[i].ppid)) {
                tree[n_tree++] = all[i];
                all[i].pid = 0; /* taken */
                grew = 1;
            }
        }
    } while (grew);
    for (i = 0; i < n_tree; i++)
        if (!tree[i].dead)
            sent += signal_one(tree[i].pid, sig, tree, n_tree, self);
    munmap(all, size);
    return sent;
}

int sbx_tree_reap(pid_t command, int *status, uint32_t *cpu_ms, int *none)
{
    int st, got_it = 0;
    pid_t got;
    struct rusage ru;
    *none = 0;
    while ((got = wait4(-1, &st, WNOHANG | __WALL, &ru)) > 0)
        if (got == command) {
            *status = st;
            /* Its CPU time: a SIGKILL at RLIMIT_CPU's hard limit is told
             * from any other by it (sbx_limits_reason). */
            if (cpu_ms)
                *cpu_ms = (uint32_t)(ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000 +
                                     ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000);
            got_it = 1;
            /* Its pid is free from now on, and may be a leftover's child's
             * before this loop ends (review r62 F3): never matched again. */
            command = 0;
        }
    if (got < 0 && errno == ECHILD)
        *none = 1;
    return got_it;
}
