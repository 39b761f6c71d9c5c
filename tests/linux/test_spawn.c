#define _GNU_SOURCE
/* sandbox_spawn's mechanism: a host with busy threads spawns many children
 * without leaking descriptors or zombies and without deadlocking; a step that
 * fails in the child comes back as the right error and runs nothing; stdio,
 * kept descriptors, the working directory and envp reach the command.
 * These use the all-off policy and hand-made plans, so they run before the
 * seccomp and Landlock backends exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/t_profile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn_stress.h"
#include "linux/spawn.h"

/* ---- busy threads: allocate and lock all the time ---- */

static int spawn_and_wait(const sandbox_policy *p, const char *const argv[],
                          const char *const envp[], const sandbox_spawn_options *o)
{
    sandbox_process proc;
    sandbox_error err;
    int status = -1;
    if (sandbox_spawn(p, argv, envp, o, &proc, &err) != SANDBOX_OK) {
        print_error("spawn: %s\n", err.message);
        return -1;
    }
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    assert_int_equal(proc.pid, 0);
    return status;
}

static void run_many(int mode, int count)
{
    const char *argv[] = {"/bin/true", NULL};
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    pthread_t th[4];
    int i, before, status;

    sandbox_spawn_options_init(&o);
    stop_threads = 0;
    for (i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, busy, NULL), 0);
    before = count_fds();
    for (i = 0; i < count; i++) {
        assert_int_equal(sbx_linux_spawn_plan(NULL, mode, argv, NULL, &o, &proc, &err), SANDBOX_OK);
        assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    stop_threads = 1;
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(count_fds(), before);
    assert_int_equal(count_zombies(), 0);
}

static void test_thousand_spawns_with_busy_threads_leak_nothing(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *argv[] = {"/bin/true", NULL};
    pthread_t th[4];
    int i, before;
    (void)state;

    alarm(120); /* a deadlock fails the test instead of hanging ctest */
    stop_threads = 0;
    for (i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, busy, NULL), 0);
    before = count_fds();
    for (i = 0; i < SBX_SPAWN_ROUNDS; i++)
        assert_int_equal(spawn_and_wait(p, argv, NULL, NULL), 0);
    stop_threads = 1;
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(count_fds(), before);
    assert_int_equal(count_zombies(), 0);
    alarm(0);
    sandbox_policy_free(p);
}

static void test_fork_and_vfork_modes_both_work(void **state)
{
    (void)state;
    alarm(60);
    run_many(SBX_SPAWN_FORK, 100);
    run_many(SBX_SPAWN_VFORK, 100);
    alarm(0);
}

/* ---- failures in the child ---- */

static void assert_nothing_ran(const char *marker)
{
    struct stat st;
    assert_int_equal(stat(marker, &st), -1);
    assert_int_equal(count_zombies(), 0);
}

static void test_missing_working_dir_is_a_path_error_and_runs_nothing(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *argv[] = {"/bin/sh", "-c", "touch /tmp/sbx-spawn-ran-$PPID", NULL};
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    (void)state;
    sandbox_spawn_options_init(&o);
    o.working_dir = "/nonexistent/sbx-dir";
    assert_int_equal(sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_E_PATH);
    assert_int_equal(err.sys_errno, ENOENT);
    assert_non_null(strstr(err.message, "/nonexistent/sbx-dir"));
    assert_nothing_ran("/tmp/sbx-spawn-ran-never");
    sandbox_policy_free(p);
}

static void test_exec_failures_carry_errno(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *missing[] = {"/nonexistent/command", NULL};
    const char *not_on_path[] = {"no-such-command-sbx", NULL};
    const char *not_exec[] = {"/etc/passwd", NULL};
    const char *env[] = {"PATH=/nonexistent:/also-not", NULL};
    const char *sys_env[] = {"PATH=/usr/bin:/bin", NULL}; /* every dir searchable, even as nobody */
    const char *sh[] = {"sh", "-c", "exit 3", NULL};
    sandbox_process proc;
    sandbox_error err;
    (void)state;
    assert_int_equal(sandbox_spawn(p, missing, NULL, NULL, &proc, &err), SANDBOX_E_EXEC);
    assert_int_equal(err.sys_errno, ENOENT);
    assert_int_equal(sandbox_spawn(p, not_on_path, sys_env, NULL, &proc, &err), SANDBOX_E_EXEC);
    assert_int_equal(err.sys_errno, ENOENT);
    assert_non_null(strstr(err.message, "not found in PATH"));
    assert_int_equal(sandbox_spawn(p, not_exec, NULL, NULL, &proc, &err), SANDBOX_E_EXEC);
    assert_int_equal(err.sys_errno, EACCES);
    /* the PATH of envp is the one searched */
    assert_int_equal(sandbox_spawn(p, sh, env, NULL, &proc, &err), SANDBOX_E_EXEC);
    assert_int_equal(spawn_and_wait(p, sh, NULL, NULL), 3 << 8);
    assert_int_equal(count_zombies(), 0);
    sandbox_policy_free(p);
}

static void test_bad_descriptors_are_refused_before_starting(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *argv[] = {"/bin/true", NULL};
    int keep = 999;
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    (void)state;
    sandbox_spawn_options_init(&o);
    o.stdout_fd = 998;
    assert_int_equal(sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_E_INVALID);
    assert_non_null(strstr(err.message, "998"));
    sandbox_spawn_options_init(&o);
    o.keep_fds = &keep;
    o.n_keep_fds = 1;
    assert_int_equal(sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_E_INVALID);
    sandbox_policy_free(p);
}

/* A real apply failure, chosen to be deterministic on every kernel: a
 * "ruleset" that is /dev/null makes landlock_restrict_self fail (EBADFD with
 * Landlock, ENOSYS/EOPNOTSUPP without), and a seccomp program of length 0 is
 * refused with EINVAL. Either way the step comes back and nothing runs. */
static void test_failed_apply_step_surfaces_and_runs_nothing(void **state)
{
    struct sbx_linux_plan plan;
    static const struct sbx_bpf_insn empty_prog[1] = {{0, 0, 0, 0}};
    const char *argv[] = {"/bin/sh", "-c", "echo ran > /tmp/sbx-spawn-apply-ran", NULL};
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    int modes[] = {SBX_SPAWN_FORK, SBX_SPAWN_VFORK}, i;
    (void)state;
    unlink("/tmp/sbx-spawn-apply-ran");
    sandbox_spawn_options_init(&o);
    for (i = 0; i < 2; i++) {
        memset(&plan, 0, sizeof plan);
        plan.ruleset_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        assert_true(plan.ruleset_fd >= 0);
        assert_int_equal(sbx_linux_spawn_plan(&plan, modes[i], argv, NULL, &o, &proc, &err),
                         SANDBOX_E_SYSTEM);
        assert_non_null(strstr(err.message, "cannot enforce the Landlock ruleset"));
        assert_true(err.sys_errno != 0);
        close(plan.ruleset_fd);

        memset(&plan, 0, sizeof plan);
        plan.ruleset_fd = -1;
        plan.bpf = empty_prog;
        plan.bpf_len = 0;
        assert_int_equal(sbx_linux_spawn_plan(&plan, modes[i], argv, NULL, &o, &proc, &err),
                         SANDBOX_E_SYSTEM);
        assert_non_null(strstr(err.message, "cannot load the seccomp filter"));
        assert_int_equal(err.sys_errno, EINVAL);
    }
    assert_nothing_ran("/tmp/sbx-spawn-apply-ran");
}

/* A confining policy whose plan cannot be prepared fails in the parent with
 * the precise error, and nothing is started: internet-only is refused on
 * Linux rather than weakened, and the media class without its output folder
 * does not resolve. Both are deterministic with or without the backends. */
static void test_unpreparable_policy_fails_closed(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *argv[] = {"/bin/sh", "-c", "echo ran > /tmp/sbx-spawn-prep-ran", NULL};
    sandbox_process proc;
    sandbox_error err;
    int rc;
    (void)state;
    unlink("/tmp/sbx-spawn-prep-ran");
    sandbox_policy_set_network(p, SANDBOX_NETWORK_INTERNET_ONLY);
    rc = sandbox_spawn(p, argv, NULL, NULL, &proc, &err);
    assert_int_equal(rc, SANDBOX_E_UNSUPPORTED);
    assert_int_equal(err.code, rc);
    assert_true(err.message[0] != '\0');
    sandbox_policy_free(p);

    p = sandbox_policy_new();
    sandbox_policy_set_class(p, SANDBOX_CLASS_MEDIA);
    rc = sandbox_spawn(p, argv, NULL, NULL, &proc, &err);
    assert_int_equal(rc, SANDBOX_E_INVALID);
    assert_non_null(strstr(err.message, "output folder"));
    assert_nothing_ran("/tmp/sbx-spawn-prep-ran");
    sandbox_policy_free(p);
}

/* A Landlock-only plan, built the way sbx_linux_prepare builds its Landlock
 * part: the spawned child is confined, the parent is not. Runs as soon as the
 * kernel has Landlock, independently of the seccomp backend. */
static void test_landlock_plan_confines_the_child_only(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    struct sbx_linux_plan plan;
    sbx_resolved r;
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    char proj[] = "/tmp/sbx-spawn-ll-XXXXXX", outside[96], cmd[512], tail[1024], line[512];
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    const char *why;
    int errp[2], status, fd;
    ssize_t n;
    size_t len;
    (void)state;
    if (sbx_landlock_abi(&why) <= 0)
        T_SKIP_UNLESS("landlock", "no Landlock");
    assert_non_null(mkdtemp(proj));
    snprintf(outside, sizeof outside, "/var/tmp/sbx-spawn-ll-out-%ld", (long)getpid());
    unlink(outside);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, proj);
    sandbox_policy_set_working_dir(p, proj);
    sandbox_policy_set_temp_dir(p, proj);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    memset(&plan, 0, sizeof plan);
    plan.ruleset_fd = -1;
    assert_int_equal(sbx_landlock_prepare(&r, &plan.ruleset_fd, &plan.landlock_flags, line,
                                          sizeof line, &err), SANDBOX_OK);
    sbx_resolved_free(&r);
    assert_true(plan.ruleset_fd >= 0);
    snprintf(cmd, sizeof cmd, "echo in > %s/inside && echo out > %s", proj, outside);
    assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
    sandbox_spawn_options_init(&o);
    o.stderr_fd = errp[1];
    assert_int_equal(sbx_linux_spawn_plan(&plan, SBX_SPAWN_DEFAULT, argv, NULL, &o, &proc, &err),
                     SANDBOX_OK);
    sbx_linux_plan_release(&plan);
    close(errp[1]);
    /* read to the end: closing early would kill the shell with SIGPIPE */
    for (len = 0; (n = read(errp[0], tail + len, sizeof tail - 1 - len)) > 0;)
        len += (size_t)n;
    tail[len] = '\0';
    close(errp[0]);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 0)
        fail_msg("the write outside was not refused: status %d, stderr '%s', landlock flags %u",
                 status, tail, (unsigned)plan.landlock_flags);
    assert_int_equal(access(outside, F_OK), -1);
    snprintf(cmd, sizeof cmd, "%s/inside", proj);
    assert_int_equal(access(cmd, F_OK), 0);
    assert_int_equal(sandbox_describe_denial(p, SANDBOX_TARGET_LINUX, status, tail, line,
                                             sizeof line), SANDBOX_OK);
    assert_true(strncmp(line, "the filesystem sandbox probably refused a write outside", 55) == 0);
    assert_non_null(strstr(line, proj));
    /* the parent can still write there */
    fd = open(outside, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    close(fd);
    unlink(outside);
    unlink(cmd);
    rmdir(proj);
    sandbox_policy_free(p);
}

/* ---- what reaches the command ---- */

static char *read_all(int fd)
{
    static char buf[8192];
    size_t len = 0;
    ssize_t n;
    while ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    return buf;
}

static void test_stdio_keep_fds_workdir_and_envp_reach_the_command(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    /* Lists the command's descriptors (0-2, the kept one), its directory and
     * $GREETING; the shell opens nothing of its own for -c. */
    const char *argv[] = {"/bin/sh", "-c",
                          "echo fds:; ls /proc/$$/fd; echo dir: $(pwd); echo greeting: $GREETING;"
                          " echo to-stderr >&2",
                          NULL};
    const char *env[] = {"GREETING=hello from envp", "PATH=/usr/bin:/bin", NULL};
    int out[2], errp[2], kept, leaked, status, fd, seen[4] = {0, 0, 0, 0}, others = 0;
    const char *text, *q;
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    (void)state;

    assert_int_equal(pipe(out), 0); /* not CLOEXEC: must still not leak */
    assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
    kept = open("/dev/null", O_RDONLY | O_CLOEXEC); /* CLOEXEC: must still be kept */
    leaked = open("/dev/null", O_RDONLY);           /* inheritable: must be closed */
    assert_true(kept > 2 && leaked > 2);
    sandbox_spawn_options_init(&o);
    o.stdout_fd = out[1];
    o.stderr_fd = errp[1];
    o.keep_fds = &kept;
    o.n_keep_fds = 1;
    o.working_dir = "/usr";
    assert_int_equal(sandbox_spawn(p, argv, env, &o, &proc, &err), SANDBOX_OK);
    close(out[1]);
    close(errp[1]);
    text = read_all(out[0]);
    q = strstr(text, "fds:\n");
    assert_non_null(q);
    for (q += 5; *q >= '0' && *q <= '9'; q = strchr(q, '\n') + 1) {
        fd = atoi(q);
        if (fd <= 2)
            seen[fd] = 1;
        else if (fd == kept)
            seen[3] = 1;
        else
            others++;
    }
    assert_true(seen[0] && seen[1] && seen[2] && seen[3]);
    assert_int_equal(others, 0);
    assert_non_null(strstr(text, "dir: /usr\n"));
    assert_non_null(strstr(text, "greeting: hello from envp\n"));
    text = read_all(errp[0]);
    assert_string_equal(text, "to-stderr\n");
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    assert_int_equal(status, 0);
    close(out[0]);
    close(errp[0]);
    close(kept);
    close(leaked);
    sandbox_policy_free(p);
}

static void test_swapped_stdio_sources_are_not_clobbered(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *argv[] = {"/bin/sh", "-c", "echo out; echo err >&2", NULL};
    int out[2], errp[2], saved1, saved2, status;
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    (void)state;
    /* Make fd 1 and fd 2 two different pipes, then ask for them swapped. */
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(errp), 0);
    saved1 = dup(1);
    saved2 = dup(2);
    dup2(out[1], 1);
    dup2(errp[1], 2);
    sandbox_spawn_options_init(&o);
    o.stdout_fd = 2;
    o.stderr_fd = 1;
    status = sandbox_spawn(p, argv, NULL, &o, &proc, &err);
    dup2(saved1, 1);
    dup2(saved2, 2);
    close(saved1);
    close(saved2);
    close(out[1]);
    close(errp[1]);
    assert_int_equal(status, SANDBOX_OK);
    assert_string_equal(read_all(errp[0]), "out\n");
    assert_string_equal(read_all(out[0]), "err\n");
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    close(out[0]);
    close(errp[0]);
    sandbox_policy_free(p);
}

static void test_signals_are_reset_in_the_child(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *argv[] = {"/bin/sh", "-c", "kill -PIPE $$; exit 0", NULL};
    sigset_t block, old;
    int status;
    (void)state;
    /* An ignored SIGPIPE and a blocked SIGPIPE in the host must not reach
     * the command. */
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    status = spawn_and_wait(p, argv, NULL, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    signal(SIGPIPE, SIG_DFL);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE);
    sandbox_policy_free(p);
}

static void test_wait_twice_is_refused(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    const char *argv[] = {"/bin/true", NULL};
    sandbox_process proc;
    sandbox_error err;
    int status;
    (void)state;
    assert_int_equal(sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
    assert_int_equal(proc.enforcement, SANDBOX_ENFORCED_NOTHING);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_E_INVALID);
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thousand_spawns_with_busy_threads_leak_nothing),
        cmocka_unit_test(test_fork_and_vfork_modes_both_work),
        cmocka_unit_test(test_missing_working_dir_is_a_path_error_and_runs_nothing),
        cmocka_unit_test(test_exec_failures_carry_errno),
        cmocka_unit_test(test_bad_descriptors_are_refused_before_starting),
        cmocka_unit_test(test_failed_apply_step_surfaces_and_runs_nothing),
        cmocka_unit_test(test_unpreparable_policy_fails_closed),
        cmocka_unit_test(test_landlock_plan_confines_the_child_only),
        cmocka_unit_test(test_stdio_keep_fds_workdir_and_envp_reach_the_command),
        cmocka_unit_test(test_swapped_stdio_sources_are_not_clobbered),
        cmocka_unit_test(test_signals_are_reset_in_the_child),
        cmocka_unit_test(test_wait_twice_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
