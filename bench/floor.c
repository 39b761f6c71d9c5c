/* The least any seccomp + Landlock sandbox costs: run a command under a
 * one-instruction allow-everything seccomp filter and/or a Landlock domain
 * that handles one right (WRITE_FILE) with a single rule, /dev/null (git and
 * friends open it for writing). Whatever a workload
 * pays under this runner is the kernel's price for having a filter and a
 * domain at all, before any rule of ours.
 *
 *   floor l|s|ls CMD [ARGS...]      l: Landlock domain, s: seccomp filter */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LL_CREATE_RULESET 444
#define LL_ADD_RULE 445
#define LL_RESTRICT_SELF 446
#define LL_RULE_PATH_BENEATH 1
#define LL_ACCESS_FS_WRITE_FILE (1ULL << 1)

struct ll_ruleset_attr {
    uint64_t handled_access_fs;
};

struct ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

int main(int argc, char **argv)
{
    struct sock_filter allow[1] = {{BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW}};
    struct sock_fprog prog = {1, allow};
    struct ll_ruleset_attr attr = {LL_ACCESS_FS_WRITE_FILE};
    struct ll_path_beneath_attr rule = {LL_ACCESS_FS_WRITE_FILE, -1};
    int fd;

    if (argc < 3 || strspn(argv[1], "ls") != strlen(argv[1])) {
        fprintf(stderr, "usage: floor l|s|ls CMD [ARGS...]\n");
        return 2;
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        perror("floor: no_new_privs");
        return 126;
    }
    if (strchr(argv[1], 'l')) {
        fd = (int)syscall(LL_CREATE_RULESET, &attr, sizeof attr, 0);
        rule.parent_fd = open("/dev/null", O_PATH | O_CLOEXEC);
        if (fd < 0 || rule.parent_fd < 0 ||
            syscall(LL_ADD_RULE, fd, LL_RULE_PATH_BENEATH, &rule, 0) != 0 ||
            syscall(LL_RESTRICT_SELF, fd, 0) != 0) {
            perror("floor: landlock");
            return 126;
        }
        close(rule.parent_fd);
        close(fd);
    }
    if (strchr(argv[1], 's') && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
        perror("floor: seccomp");
        return 126;
    }
    execvp(argv[2], argv + 2);
    perror("floor: exec");
    return 127;
}
