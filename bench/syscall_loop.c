/* Bench helper: the cost of one cheap syscall (getppid), bare or under the
 * smallest possible seccomp filter (one "allow" instruction). Comparing with
 * the same loop under the launcher separates the fixed cost of having any
 * filter from the cost of our program's shape.
 *   syscall_loop [trivial] */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const long n = 2000000;
    struct timespec a, b;
    long i;

    if (argc > 1 && strcmp(argv[1], "trivial") == 0) {
        struct sock_filter allow[] = {{BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW}};
        struct sock_fprog prog = {1, allow};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
            return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (i = 0; i < n; i++)
        syscall(SYS_getppid);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.1f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
    return 0;
}
