/* Probe: reach a process outside the sandbox.
 *   esc_outside target            print "PID ADDR" (a writable byte of ours), then wait
 *   esc_outside ptrace PID        PTRACE_ATTACH, then detach
 *   esc_outside vmwrite PID ADDR  process_vm_writev one byte at ADDR
 *   esc_outside getfd PID         pidfd_open + pidfd_getfd of its fd 0
 *   esc_outside kill PID          kill(PID, SIGCONT), harmless when allowed
 * Exit 0: done; 1: refused (errno printed); 2: not available; 3: usage. */
#define _GNU_SOURCE
#include "esc_common.h"

#include <signal.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#  define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#  define SYS_pidfd_getfd 438
#endif

static volatile char target_byte = 'a';

int main(int argc, char **argv)
{
    pid_t pid;
    long rc;
    if (argc == 2 && strcmp(argv[1], "target") == 0) {
        printf("%ld %p\n", (long)getpid(), (void *)&target_byte);
        fflush(stdout);
        for (;;)
            pause();
    }
    if (argc < 3)
        return esc_usage("esc_outside target|ptrace|vmwrite|getfd|kill PID [ADDR]");
    pid = (pid_t)strtol(argv[2], NULL, 10);
    if (strcmp(argv[1], "ptrace") == 0) {
        rc = ptrace(PTRACE_ATTACH, pid, NULL, NULL);
        if (rc == 0) {
            waitpid(pid, NULL, __WALL);
            ptrace(PTRACE_DETACH, pid, NULL, NULL);
        }
        return esc_report("ptrace attach", rc, errno);
    }
    if (strcmp(argv[1], "vmwrite") == 0 && argc == 4) {
        char b = 'b';
        struct iovec local = {&b, 1}, remote;
        remote.iov_base = (void *)(uintptr_t)strtoull(argv[3], NULL, 16);
        remote.iov_len = 1;
        rc = process_vm_writev(pid, &local, 1, &remote, 1, 0);
        return esc_report("process_vm_writev", rc, errno);
    }
    if (strcmp(argv[1], "getfd") == 0) {
        long pfd = syscall(SYS_pidfd_open, pid, 0);
        if (pfd < 0) {
            if (errno == ENOSYS) {
                printf("pidfd_open: not in this kernel\n");
                return 2;
            }
            return esc_report("pidfd_open", pfd, errno);
        }
        rc = syscall(SYS_pidfd_getfd, pfd, 0, 0);
        return esc_report("pidfd_getfd", rc, errno);
    }
    if (strcmp(argv[1], "kill") == 0)
        ESC_RETURN("kill", kill(pid, SIGCONT));
    return esc_usage("esc_outside target|ptrace|vmwrite|getfd|kill PID [ADDR]");
}
