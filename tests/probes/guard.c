/* Probe: the creation guard's corner cases (tests/linux/test_guard.sh).
 *   guard race N              two threads: one flips a buffer between "ok.txt" and
 *                             ".env.race", the other opens it with O_CREAT N times
 *   guard i386-open PATH      open(PATH, O_CREAT|O_WRONLY) through int $0x80
 *   guard i386-creat PATH     creat(PATH) through int $0x80
 *   guard exchange A B        renameat2(A, B, RENAME_EXCHANGE)
 *   guard cloexec PATH        O_CREAT with and without O_CLOEXEC: flags as asked
 *   guard lowest PATH         the created descriptor gets the lowest free number
 *   guard excl PATH           O_CREAT|O_EXCL on an existing file: EEXIST
 *   guard ptrace-parent       PTRACE_ATTACH, /proc/PPID/mem, pidfd_getfd and
 *                             process_vm_writev on the parent (the guard)
 *   guard kill-guard PATH     SIGKILL the parent (the guard); a grandchild then tries
 *                             creat(PATH) and prints the result
 *   guard tmpfile-link NAME   O_TMPFILE in ".", then linkat through /proc/self/fd
 *   guard dangling LINK       open(LINK, O_CREAT) where LINK is a dangling symlink
 *   guard parent-proc NAME ro|rw  open("/proc/PPID/NAME", O_CREAT and O_RDONLY or
 *                             O_RDWR): under the guard, one of the guard's own /proc
 *                             files; prints where the descriptor leads
 * Exit 0: the operation did what the name says; 1: it was refused (errno
 * printed); 2: not available here; 3: usage. */
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#  define RENAME_EXCHANGE (1 << 1)
#endif

static int refused(const char *what)
{
    printf("%s: errno %d (%s)\n", what, errno, strerror(errno));
    return 1;
}

static char race_buf[32] = "ok.txt";
static volatile int race_stop;

static void *flipper(void *arg)
{
    (void)arg;
    while (!race_stop) {
        memcpy(race_buf, ".env.race", 10);
        memcpy(race_buf, "ok.txt\0\0\0", 10);
    }
    return NULL;
}

#if defined(__x86_64__)
static long int80(long nr, long a, long b, long c)
{
    long ret;
    __asm__ volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
    return ret;
}

static int i386_call(int creat_call, const char *path)
{
    char *low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                     -1, 0);
    long ret;
    if (low == MAP_FAILED)
        return 2;
    snprintf(low, 4096, "%s", path);
    ret = creat_call ? int80(8, (long)(unsigned long)low, 0644, 0)
                     : int80(5, (long)(unsigned long)low, O_CREAT | O_WRONLY, 0644);
    if (ret >= 0) {
        printf("created\n");
        return 0;
    }
    printf("errno %ld (%s)\n", -ret, strerror((int)-ret));
    return -ret == ENOSYS ? 2 : 1;
}
#endif

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : "";
    int fd, fd2, i, n;

    if (strcmp(cmd, "race") == 0 && argc == 3) {
        pthread_t t;
        n = atoi(argv[2]);
        pthread_create(&t, NULL, flipper, NULL);
        for (i = 0; i < n; i++) {
            fd = open(race_buf, O_CREAT | O_WRONLY, 0644);
            if (fd >= 0)
                close(fd);
        }
        race_stop = 1;
        pthread_join(t, NULL);
        unlink("ok.txt");
        if (access(".env.race", F_OK) == 0) {
            printf(".env.race exists\n");
            return 0;
        }
        printf(".env.race never appeared\n");
        return 1;
    }
#if defined(__x86_64__)
    if (strcmp(cmd, "i386-open") == 0 && argc == 3)
        return i386_call(0, argv[2]);
    if (strcmp(cmd, "i386-creat") == 0 && argc == 3)
        return i386_call(1, argv[2]);
#else
    if (strncmp(cmd, "i386-", 5) == 0)
        return 2;
#endif
    if (strcmp(cmd, "exchange") == 0 && argc == 4) {
        if (syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3], RENAME_EXCHANGE) != 0)
            return refused("renameat2");
        printf("exchanged\n");
        return 0;
    }
    if (strcmp(cmd, "cloexec") == 0 && argc == 3) {
        fd = open(argv[2], O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
        fd2 = open(argv[2], O_CREAT | O_WRONLY, 0644);
        if (fd < 0 || fd2 < 0)
            return refused("open");
        if (!(fcntl(fd, F_GETFD) & FD_CLOEXEC) || (fcntl(fd2, F_GETFD) & FD_CLOEXEC)) {
            printf("close-on-exec flags wrong: %d %d\n", fcntl(fd, F_GETFD), fcntl(fd2, F_GETFD));
            return 1;
        }
        printf("flags as asked\n");
        return 0;
    }
    if (strcmp(cmd, "lowest") == 0 && argc == 3) {
        for (i = 3; i < 8; i++)
            dup2(1, i);
        close(5);
        fd = open(argv[2], O_CREAT | O_WRONLY, 0644);
        if (fd < 0)
            return refused("open");
        printf("fd %d\n", fd);
        return fd == 5 ? 0 : 1;
    }
    if (strcmp(cmd, "excl") == 0 && argc == 3) {
        fd = open(argv[2], O_CREAT | O_EXCL | O_WRONLY, 0644);
        if (fd >= 0) {
            printf("created\n");
            return 0;
        }
        return refused("open");
    }
    if (strcmp(cmd, "ptrace-parent") == 0) {
        char mem[64];
        pid_t pp = getppid();
        if (ptrace(PTRACE_ATTACH, pp, NULL, NULL) == 0) {
            printf("attached to %d\n", (int)pp);
            return 0;
        }
        printf("ptrace: errno %d (%s)\n", errno, strerror(errno));
        snprintf(mem, sizeof mem, "/proc/%d/mem", (int)pp);
        fd = open(mem, O_RDONLY);
        if (fd >= 0) {
            printf("opened %s\n", mem);
            return 0;
        }
        printf("open mem: errno %d (%s)\n", errno, strerror(errno));
        {
            /* Steal a descriptor (the listener) or write into its memory. */
            char byte = 0;
            struct iovec local = {&byte, 1}, remote = {&byte, 1};
            long pidfd = syscall(434 /* pidfd_open */, pp, 0);
            for (i = 0; pidfd >= 0 && i < 16; i++) {
                long got = syscall(438 /* pidfd_getfd */, pidfd, i, 0);
                if (got >= 0) {
                    printf("pidfd_getfd took descriptor %d of the guard\n", i);
                    return 0;
                }
            }
            printf("pidfd_getfd: errno %d (%s)\n", errno, strerror(errno));
            if (process_vm_writev(pp, &local, 1, &remote, 1, 0) >= 0) {
                printf("process_vm_writev reached the guard\n");
                return 0;
            }
        }
        return refused("process_vm_writev");
    }
    if (strcmp(cmd, "kill-guard") == 0 && argc == 3) {
        pid_t guard = getppid(), c;
        /* Landlock's signal scope (issue 18): the guard is out of reach. */
        if (kill(guard, 0) != 0)
            return refused("kill the guard");
        c = fork();
        if (c < 0)
            return 2;
        if (c == 0) {
            /* Not killed with the parent (no death signal of its own). */
            for (i = 0; i < 200 && kill(guard, 0) == 0; i++)
                usleep(10000);
            usleep(50000);
            fd = creat(argv[2], 0644);
            if (fd >= 0) {
                printf("created after the guard died\n");
                fflush(stdout);
                _exit(0);
            }
            printf("after the guard died: errno %d (%s)\n", errno, strerror(errno));
            fflush(stdout);
            _exit(1);
        }
        kill(guard, SIGKILL);
        for (;;)
            pause(); /* killed by the death signal */
    }
    if (strcmp(cmd, "tmpfile-link") == 0 && argc == 3) {
        char p[64];
        fd = open(".", O_TMPFILE | O_WRONLY, 0600);
        if (fd < 0)
            return errno == EOPNOTSUPP || errno == EISDIR ? 2 : refused("O_TMPFILE");
        if (write(fd, "tmp\n", 4) != 4)
            return refused("write");
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, p, AT_FDCWD, argv[2], AT_SYMLINK_FOLLOW) != 0)
            return refused("linkat");
        printf("linked\n");
        return 0;
    }
    if (strcmp(cmd, "dangling") == 0 && argc == 3) {
        fd = open(argv[2], O_CREAT | O_WRONLY, 0644);
        if (fd < 0)
            return refused("open");
        printf("opened\n");
        return 0;
    }
    if (strcmp(cmd, "parent-proc") == 0 && argc == 4) {
        char p[96], where[256];
        ssize_t len;
        snprintf(p, sizeof p, "/proc/%d/%s", (int)getppid(), argv[2]);
        fd = open(p, O_CREAT | (strcmp(argv[3], "rw") == 0 ? O_RDWR : O_RDONLY), 0600);
        if (fd < 0)
            return refused(p);
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        len = readlink(p, where, sizeof where - 1);
        where[len > 0 ? len : 0] = '\0';
        printf("opened %s\n", where);
        return 0;
    }
    fprintf(stderr, "usage: see the comment at the top of tests/probes/guard.c\n");
    return 3;
}
