/* Probe: hold a process between two of its system calls, from outside, so a
 * test can change the world at an exact point of its work
 * (tests/linux/test_guard_paths.sh: the creation guard's NOTIF_ID_VALID
 * check, with the caller killed after the guard read its memory).
 *   syshold PID NR      NR: a system call number, or the name process_vm_readv
 * Attaches to PID (ptrace; root, since the guard is not dumpable), prints
 * "attached", and lets it run until a call of NR has returned; at the entry
 * of its next system call that is not NR it stops it, prints "held NR2" (the
 * held call's number) and waits for a line on stdin. Then it detaches and the
 * held call goes on. Should this probe die first, the kernel kills PID
 * (PTRACE_O_EXITKILL): a held process is never left stopped.
 * Exit 0: held and released; 1: PID ended first or ptrace failed (errno
 * printed); 2: ptrace is refused here (EPERM); 3: usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed(const char *what)
{
    printf("%s: errno %d (%s)\n", what, errno, strerror(errno));
    return errno == EPERM ? 2 : 1;
}

int main(int argc, char **argv)
{
    struct __ptrace_syscall_info info;
    char line[16];
    pid_t pid;
    long nr, last = -1;
    int status, sig, seen = 0;

    if (argc != 3) {
        fprintf(stderr, "usage: syshold PID NR\n");
        return 3;
    }
    pid = (pid_t)atoi(argv[1]);
    nr = strcmp(argv[2], "process_vm_readv") == 0 ? SYS_process_vm_readv : atol(argv[2]);
    if (pid <= 0 || nr <= 0) {
        fprintf(stderr, "usage: syshold PID NR\n");
        return 3;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    if (ptrace(PTRACE_SEIZE, pid, NULL, (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)) != 0)
        return failed("PTRACE_SEIZE");
    if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) != 0)
        return failed("PTRACE_INTERRUPT");
    printf("attached\n");
    for (;;) {
        if (waitpid(pid, &status, __WALL) != pid)
            return failed("waitpid");
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            printf("the process ended before the hold\n");
            return 1;
        }
        sig = 0;
        if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
            memset(&info, 0, sizeof info);
            if (ptrace(PTRACE_GET_SYSCALL_INFO, pid, (void *)sizeof info, &info) <= 0)
                return failed("PTRACE_GET_SYSCALL_INFO");
            if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
                if (seen && (long)info.entry.nr != nr) {
                    printf("held %ld\n", (long)info.entry.nr);
                    if (!fgets(line, sizeof line, stdin))
                        printf("stdin closed: releasing\n");
                    if (ptrace(PTRACE_DETACH, pid, NULL, NULL) != 0)
                        return failed("PTRACE_DETACH");
                    return 0;
                }
                last = (long)info.entry.nr;
            } else if (info.op == PTRACE_SYSCALL_INFO_EXIT && last == nr) {
                seen = 1; /* a call of NR has returned: hold at the next other call */
            }
        } else if (status >> 16 == 0) {
            sig = WSTOPSIG(status); /* a signal for the process: pass it on */
        }
        if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig) != 0)
            return failed("PTRACE_SYSCALL");
    }
}
