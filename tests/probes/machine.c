/* Probe: what this kernel can give, asked of the kernel directly and never of
 * the library, so the tests' machine profile (tests/lib.sh, `have`) cannot
 * inherit a bug in the library's own availability checks.
 *   machine landlock-abi   prints the Landlock ABI (0: none); exit 0
 *   machine notify         exit 0 if seccomp user notification is available
 * Exit 1: not available; 3: usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_landlock_create_ruleset
#  define SYS_landlock_create_ruleset 444
#endif

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "landlock-abi") == 0) {
        long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1UL /* VERSION */);
        printf("%ld\n", abi < 0 ? 0L : abi);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "notify") == 0) {
        unsigned int action = SECCOMP_RET_USER_NOTIF;
        if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
            printf("errno %d (%s)\n", errno, strerror(errno));
            return 1;
        }
        printf("available\n");
        return 0;
    }
    fprintf(stderr, "usage: machine landlock-abi|notify\n");
    return 3;
}
