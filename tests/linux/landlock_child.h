/* Shared by the Landlock enforcement tests: confine a forked child with the
 * library's own Landlock ruleset and capability drop (apply order as in
 * backend.c, no seccomp; T_READ_ONLY_FULL adds it), run one operation there,
 * report its errno.
 *
 * The launcher cannot be used for this until the seccomp filter exists (it
 * fails closed without one), so these tests drive the library's internals.
 *
 * A test binary that includes this also acts as a runner when called as
 *   PROG --run confined|read-only|net-deny PROJECT -- CMD [ARGS...]
 * so that it can be re-executed under tests/probes/hide. */
#ifndef SBX_TEST_LANDLOCK_CHILD_H
#define SBX_TEST_LANDLOCK_CHILD_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/linux.h"

/* T_READ_ONLY_FULL: the whole read-only stack, as the launcher applies it
 * (sbx_linux_prepare + sbx_linux_apply: Landlock, capabilities and the
 * seccomp filter), for what Landlock alone no longer refuses. */
enum t_mode { T_NONE, T_CONFINED, T_READ_ONLY, T_NET_DENY, T_READ_ONLY_FULL };

/* The paths a confined child may write beneath (besides /tmp and /dev). */
struct t_roots {
    const char *project, *added, *workdir, *tmpdir;
};

/* Confine the calling process. Returns 0, or -1 after printing why. */
static inline int t_confine(enum t_mode mode, const struct t_roots *roots, char *warning, size_t wsize)
{
    sandbox_policy *p;
    sbx_resolved r;
    sandbox_error err;
    struct sbx_linux_plan plan;
    int rc, step, e;

    if (mode == T_NONE)
        return 0;
    p = sandbox_policy_new();
    if (!p)
        return -1;
    sandbox_policy_set_filesystem(p, mode == T_CONFINED ? SANDBOX_FS_CONFINED
                                     : mode == T_READ_ONLY || mode == T_READ_ONLY_FULL
                                         ? SANDBOX_FS_READ_ONLY
                                         : SANDBOX_FS_UNRESTRICTED);
    sandbox_policy_set_network(p, mode == T_CONFINED ? SANDBOX_NETWORK_ALLOW
                                                     : SANDBOX_NETWORK_DENY);
    if (roots && roots->project)
        sandbox_policy_set_project_root(p, roots->project);
    if (roots && roots->added)
        sandbox_policy_add_writable_dir(p, roots->added);
    if (roots && roots->workdir)
        sandbox_policy_set_working_dir(p, roots->workdir);
    if (roots && roots->tmpdir)
        sandbox_policy_set_temp_dir(p, roots->tmpdir);
    if (warning && wsize)
        warning[0] = 0;
    if (mode == T_READ_ONLY_FULL) {
        char scratch[512];
        rc = sbx_linux_prepare(p, &plan, warning && wsize ? warning : scratch,
                               warning && wsize ? wsize : sizeof scratch, &err);
        sandbox_policy_free(p);
    } else {
        rc = sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err);
        sandbox_policy_free(p);
        if (rc != SANDBOX_OK) {
            fprintf(stderr, "t_confine: %s\n", err.message);
            return -1;
        }
        memset(&plan, 0, sizeof plan);
        plan.ruleset_fd = -1;
        rc = sbx_landlock_prepare(&r, &plan.ruleset_fd, &plan.landlock_flags, warning, wsize,
                                  &err);
        plan.drop_caps = sbx_caps_drop_mask(r.filesystem, r.network);
        sbx_resolved_free(&r);
    }
    if (rc != SANDBOX_OK) {
        fprintf(stderr, "t_confine: %s\n", err.message);
        return -1;
    }
    step = sbx_linux_apply(&plan, &e);
    sbx_linux_plan_release(&plan);
    if (step != SBX_STEP_NONE) {
        sbx_linux_step_error(step, e, &err);
        fprintf(stderr, "t_confine: %s\n", err.message);
        return -1;
    }
    return 0;
}

typedef int (*t_op)(const char *a, const char *b);

/* Run op(a, b) in a child confined by `mode`. Returns the errno the op
 * reported (0: it succeeded), or 1000 + the signal, or 999 when the child
 * could not be confined. */
static inline int t_run(enum t_mode mode, const struct t_roots *roots, t_op op, const char *a,
                 const char *b)
{
    int status;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int e;
        if (t_confine(mode, roots, NULL, 0) != 0)
            _exit(250);
        e = op(a, b);
        _exit(e > 0 && e < 250 ? e : e == 0 ? 0 : 251);
    }
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    if (WIFSIGNALED(status))
        return 1000 + WTERMSIG(status);
    return WEXITSTATUS(status) == 250 ? 999 : WEXITSTATUS(status);
}

/* Run a shell command in a confined child; returns its exit status. */
static inline int t_sh_op(const char *script, const char *unused)
{
    int status;
    pid_t pid;
    (void)unused;
    pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 252;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 253;
}

static inline int t_sh(enum t_mode mode, const struct t_roots *roots, const char *script)
{
    return t_run(mode, roots, t_sh_op, script, NULL);
}

/* The runner: PROG --run MODE PROJECT -- CMD... */
static inline int t_runner_main(int argc, char **argv)
{
    struct t_roots roots = {0};
    char warning[512];
    enum t_mode mode;

    if (argc < 6 || strcmp(argv[4], "--") != 0) {
        fprintf(stderr, "usage: %s --run confined|read-only|net-deny PROJECT -- CMD...\n",
                argv[0]);
        return 2;
    }
    mode = strcmp(argv[2], "confined") == 0    ? T_CONFINED
           : strcmp(argv[2], "read-only") == 0 ? T_READ_ONLY
           : strcmp(argv[2], "net-deny") == 0  ? T_NET_DENY
                                               : T_NONE;
    roots.project = argv[3];
    roots.workdir = argv[3];
    if (t_confine(mode, &roots, warning, sizeof warning) != 0)
        return 126;
    if (warning[0])
        fprintf(stderr, "runner: warning: %s\n", warning);
    execvp(argv[5], argv + 5);
    perror("runner: exec");
    return 127;
}

/* Read a whole small file into buf; returns its length or -1. */
static inline ssize_t t_read_file(const char *path, char *buf, size_t size)
{
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    n = read(fd, buf, size - 1);
    close(fd);
    if (n >= 0)
        buf[n] = 0;
    return n;
}

static inline int t_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ssize_t n;
    if (fd < 0)
        return -1;
    n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static inline int t_exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

#endif
