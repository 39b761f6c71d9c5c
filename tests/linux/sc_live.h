/* Shared by the live seccomp tests: run one operation in a forked child,
 * confined by exactly the program sbx_seccomp_select() picks for a policy (no
 * Landlock, no capability drop), or unconfined, and report how it ended. */
#ifndef SBX_TEST_SC_LIVE_H
#define SBX_TEST_SC_LIVE_H

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/linux.h"

/* How the child ended: 0 success, an errno, or OUT_SIGNAL + signal number. */
#define OUT_SIGNAL 1000

typedef int (*sc_op)(void *arg); /* returns 0, or -errno */

static inline sbx_resolved sc_policy(int network, int filesystem, int deny_action)
{
    sbx_resolved r;
    memset(&r, 0, sizeof r);
    r.target = SANDBOX_TARGET_LINUX;
    r.network = network;
    r.filesystem = filesystem;
    r.deny_action = deny_action;
    return r;
}

/* Run op in a child; confined when r is not NULL. */
static inline int sc_run(const sbx_resolved *r, sc_op op, void *arg)
{
    const struct sbx_bpf_insn *bpf = NULL;
    unsigned short len = 0;
    sandbox_error err;
    pid_t pid;
    int status;

    if (r && sbx_seccomp_select(r, &bpf, &len, &err) != SANDBOX_OK) {
        printf("select failed: %s\n", err.message);
        return -1;
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int rc;
        if (bpf) {
            struct sock_fprog prog;
            prog.len = len;
            prog.filter = (struct sock_filter *)(void *)bpf;
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
                _exit(250);
        }
        rc = op(arg);
        _exit(rc < 0 ? (-rc > 249 ? 249 : -rc) : 0);
    }
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    if (WIFSIGNALED(status))
        return OUT_SIGNAL + WTERMSIG(status);
    return WEXITSTATUS(status);
}

static inline const char *sc_outcome(int o, char *buf, size_t n)
{
    if (o >= OUT_SIGNAL)
        snprintf(buf, n, "killed by signal %d", o - OUT_SIGNAL);
    else if (o == 0)
        snprintf(buf, n, "succeeded");
    else
        snprintf(buf, n, "failed with %s", strerror(o));
    return buf;
}

#define SC_ERR(x) ((x) < 0 ? -errno : 0)

#endif
