/* Bench helper: exec a command under exactly the seccomp program a policy
 * selects (or under none), with no other difference, so a workload's ratio
 * measures the filter and not the launcher's own start-up.
 *   sc_wrap none|net|net-confined|confined|read-only -- CMD ARGS... */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"

int main(int argc, char **argv)
{
    sbx_resolved r;
    const struct sbx_bpf_insn *bpf = NULL;
    unsigned short len = 0;
    sandbox_error err;
    const char *m = argc > 1 ? argv[1] : "";

    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: sc_wrap none|net|net-confined|confined|read-only -- CMD...\n");
        return 2;
    }
    memset(&r, 0, sizeof r);
    r.network = strncmp(m, "net", 3) == 0 || strcmp(m, "read-only") == 0 ? SANDBOX_NETWORK_DENY
                                                                          : SANDBOX_NETWORK_ALLOW;
    r.filesystem = strcmp(m, "read-only") == 0 ? SANDBOX_FS_READ_ONLY
                   : strstr(m, "confined")     ? SANDBOX_FS_CONFINED
                                               : SANDBOX_FS_UNRESTRICTED;
    if (sbx_seccomp_select(&r, &bpf, &len, &err) != SANDBOX_OK) {
        fprintf(stderr, "sc_wrap: %s\n", err.message);
        return 126;
    }
    if (bpf) {
        struct sock_fprog prog = {len, (struct sock_filter *)(void *)bpf};
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
            perror("sc_wrap: seccomp");
            return 126;
        }
    }
    execvp(argv[3], argv + 3);
    perror("sc_wrap: exec");
    return 127;
}
