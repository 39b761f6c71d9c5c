/* hide landlock|seccomp|poll-timed -- CMD [ARGS...]
 *
 * Run CMD as if this kernel lacked a sandbox feature, to prove the degrade
 * and fail-closed paths for real:
 *   landlock: the three Landlock system calls fail with ENOSYS, as on a
 *             kernel built without CONFIG_SECURITY_LANDLOCK;
 *   seccomp:  seccomp(2) and prctl(PR_SET_SECCOMP) fail with EINVAL, as on a
 *             kernel without seccomp filters.
 *   poll-timed: poll(2) of two or more descriptors with a timeout of 0 or
 *             more fails with EPERM, as a host's filter could make it (x86-64
 *             only, exit 77 elsewhere): a supervisor without --timeout
 *             waits without one until the command exits, then with one.
 * A test tool: the filter is written by hand and allows everything else. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#  define HIDE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#  define HIDE_ARCH AUDIT_ARCH_AARCH64
#else
#  error "hide: add this architecture's AUDIT_ARCH"
#endif

#define LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LD_ARCH BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch))
#define LD_ARG0 BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
#define ERRNO(e) RET(SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static struct sock_filter hide_landlock[] = {
    LD_ARCH,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HIDE_ARCH, 1, 0),
    RET(SECCOMP_RET_ALLOW),
    LD_NR,
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 444, 0, 2), /* landlock_create_ruleset */
    BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 446, 1, 0), /* landlock_restrict_self */
    ERRNO(ENOSYS),
    RET(SECCOMP_RET_ALLOW),
};

static struct sock_filter hide_seccomp[] = {
    LD_ARCH,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HIDE_ARCH, 1, 0),
    RET(SECCOMP_RET_ALLOW),
    LD_NR,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_seccomp, 0, 1),
    ERRNO(EINVAL),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
    LD_ARG0,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_SET_SECCOMP, 0, 1),
    ERRNO(EINVAL),
    RET(SECCOMP_RET_ALLOW),
};

#if defined(__NR_poll)
#  define LD_ARG(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
static struct sock_filter hide_poll_timed[] = {
    LD_ARCH,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, HIDE_ARCH, 1, 0),
    RET(SECCOMP_RET_ALLOW),
    LD_NR,
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_poll, 0, 5),
    LD_ARG(1), /* nfds, low word */
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 2, 0, 3),
    LD_ARG(2), /* the int timeout */
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x80000000u, 1, 0),
    ERRNO(EPERM),
    RET(SECCOMP_RET_ALLOW),
};
#endif

int main(int argc, char **argv)
{
    struct sock_fprog prog;

    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: hide landlock|seccomp|poll-timed -- CMD [ARGS...]\n");
        return 2;
    }
    if (strcmp(argv[1], "landlock") == 0) {
        prog.filter = hide_landlock;
        prog.len = sizeof hide_landlock / sizeof hide_landlock[0];
    } else if (strcmp(argv[1], "seccomp") == 0) {
        prog.filter = hide_seccomp;
        prog.len = sizeof hide_seccomp / sizeof hide_seccomp[0];
    } else if (strcmp(argv[1], "poll-timed") == 0) {
#if defined(__NR_poll)
        prog.filter = hide_poll_timed;
        prog.len = sizeof hide_poll_timed / sizeof hide_poll_timed[0];
#else
        fprintf(stderr, "hide: no poll(2) on this architecture\n");
        return 77;
#endif
    } else {
        fprintf(stderr, "hide: unknown feature %s (landlock or seccomp)\n", argv[1]);
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        perror("hide: cannot install the filter");
        return 125;
    }
    execvp(argv[3], argv + 3);
    perror("hide: exec");
    return 127;
}
