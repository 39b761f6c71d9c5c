#define _GNU_SOURCE
/* The creation guard through sandbox_spawn and sandbox_spawn_plan: the guard
 * is the process the host waits for, it passes the command's status on, and
 * many guarded spawns from several threads leak no descriptor or zombie.
 * Exits 77 when this machine cannot give protected paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/t_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn_stress.h"
#include "sandbox.h"

static char project[64];

static sandbox_policy *guarded_policy(int filesystem)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    sandbox_policy_set_filesystem(p, filesystem);
    sandbox_policy_set_project_root(p, project);
    sandbox_policy_set_working_dir(p, project);
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    return p;
}

static int run(const sandbox_policy *p, const char *script)
{
    const char *argv[] = {"/bin/sh", "-c", script, NULL};
    sandbox_process proc;
    sandbox_error err;
    int status = -1;
    if (sandbox_spawn(p, argv, NULL, NULL, &proc, &err) != SANDBOX_OK)
        fail_msg("spawn: %s", err.message);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    return status;
}

static int exists(const char *name)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", project, name);
    return lstat(path, &st) == 0;
}

static void test_protected_name_cannot_be_created(void **state)
{
    sandbox_policy *p = guarded_policy(SANDBOX_FS_CONFINED);
    int st;
    (void)state;
    st = run(p, "exec 2>/dev/null; echo x > .env.production");
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 0);
    assert_false(exists(".env.production"));
    st = run(p, "exec 2>/dev/null; mkdir .ssh || exit 9");
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 9);
    assert_false(exists(".ssh"));
    st = run(p, "echo x > allowed.txt && exit 5");
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 5);
    assert_true(exists("allowed.txt"));
    sandbox_policy_free(p);
}

/* A directory given as stdin or kept open reaches the host's unmasked tree
 * from the private namespace: refused before anything runs (issue 18). A
 * regular file is still passed. */
static void test_inherited_directory_is_refused(void **state)
{
    sandbox_policy *p = guarded_policy(SANDBOX_FS_CONFINED);
    const char *argv[] = {"/bin/cat", "/proc/self/fd/0/.env", NULL};
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    char path[128];
    int dir, file, st = -1;
    (void)state;
    snprintf(path, sizeof path, "%s/allowed-in.txt", project);
    file = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(file >= 0);
    close(file);
    dir = open(project, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(dir >= 0);
    sandbox_spawn_options_init(&o);
    o.stdin_fd = dir;
    assert_int_not_equal(sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_OK);
    assert_non_null(strstr(err.message, "descriptor 0"));
    sandbox_spawn_options_init(&o);
    o.keep_fds = &dir;
    o.n_keep_fds = 1;
    assert_int_not_equal(sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_OK);
    assert_non_null(strstr(err.message, "is a directory"));
    file = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(file >= 0);
    sandbox_spawn_options_init(&o);
    o.stdin_fd = file;
    argv[1] = NULL;
    assert_int_equal(sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_OK);
    assert_int_equal(sandbox_wait(&proc, &st, &err), SANDBOX_OK);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(file);
    close(dir);
    sandbox_policy_free(p);
}

static void test_status_and_signals_pass_through(void **state)
{
    sandbox_policy *p = guarded_policy(SANDBOX_FS_CONFINED);
    sandbox_process proc;
    sandbox_error err;
    const char *argv[] = {"/bin/sh", "-c", "kill -USR1 $$; sleep 5", NULL};
    const char *sleeper[] = {"/bin/sh", "-c", "exec sleep 30", NULL};
    int st = -1;
    (void)state;
    sandbox_policy_set_network(p, SANDBOX_NETWORK_DENY);
    /* Killed by a signal: the host sees the same signal. */
    assert_int_equal(sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
    assert_int_equal(sandbox_wait(&proc, &st, &err), SANDBOX_OK);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGUSR1);
    /* A signal to the process the host holds reaches the command. */
    assert_int_equal(sandbox_spawn(p, sleeper, NULL, NULL, &proc, &err), SANDBOX_OK);
    usleep(100000);
    kill((pid_t)proc.pid, SIGTERM);
    assert_int_equal(sandbox_wait(&proc, &st, &err), SANDBOX_OK);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGTERM);
    sandbox_policy_free(p);
}

static void test_sigsys_kill_is_seen_by_the_host(void **state)
{
    sandbox_policy *p = guarded_policy(SANDBOX_FS_CONFINED);
    const char *argv[] = {"python3", "-c", "import socket; socket.socket()", NULL};
    sandbox_process proc;
    sandbox_error err;
    int st = -1;
    (void)state;
    if (access("/usr/bin/python3", X_OK) != 0)
        T_SKIP_UNLESS("python3", "python3 is not installed");
    sandbox_policy_set_network(p, SANDBOX_NETWORK_DENY);
    assert_int_equal(sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
    assert_int_equal(sandbox_wait(&proc, &st, &err), SANDBOX_OK);
    assert_true(WIFSIGNALED(st));
    assert_int_equal(WTERMSIG(st), SIGSYS);
    sandbox_policy_free(p);
}

struct worker {
    sandbox_plan *plan;
    int n, failures;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    const char *argv[] = {"/bin/sh", "-c", "exec 2>/dev/null; echo x > .env.thread && exit 1; exit 0",
                          NULL};
    sandbox_process proc;
    sandbox_error err;
    int i, st;
    for (i = 0; i < w->n; i++) {
        if (sandbox_spawn_plan(w->plan, argv, NULL, NULL, &proc, &err) != SANDBOX_OK) {
            w->failures++;
            continue;
        }
        if (sandbox_wait(&proc, &st, &err) != SANDBOX_OK || !WIFEXITED(st) ||
            WEXITSTATUS(st) != 0)
            w->failures++;
    }
    return NULL;
}

static void test_many_guarded_spawns_from_threads_leak_nothing(void **state)
{
    sandbox_policy *p = guarded_policy(SANDBOX_FS_CONFINED);
    sandbox_plan *plan = NULL;
    sandbox_error err;
    struct worker w[4];
    pthread_t t[4], b;
    int fds, i, rounds = SBX_SPAWN_ROUNDS >= 1000 ? 50 : 10;
    (void)state;
    assert_int_equal(sandbox_plan_new(p, &plan, &err), SANDBOX_OK);
    fds = count_fds();
    stop_threads = 0;
    assert_int_equal(pthread_create(&b, NULL, busy, NULL), 0);
    for (i = 0; i < 4; i++) {
        w[i].plan = plan;
        w[i].n = rounds;
        w[i].failures = 0;
        assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
    }
    for (i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    stop_threads = 1;
    pthread_join(b, NULL);
    assert_false(exists(".env.thread"));
    assert_int_equal(count_fds(), fds);
    assert_int_equal(count_zombies(), 0);
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
}

static int setup(void **state)
{
    (void)state;
    snprintf(project, sizeof project, "/tmp/sbx-guard-spawn.XXXXXX");
    if (!mkdtemp(project))
        return -1;
    return chdir(project);
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", project);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protected_name_cannot_be_created),
        cmocka_unit_test(test_inherited_directory_is_refused),
        cmocka_unit_test(test_status_and_signals_pass_through),
        cmocka_unit_test(test_sigsys_kill_is_seen_by_the_host),
        cmocka_unit_test(test_many_guarded_spawns_from_threads_leak_nothing),
    };
    sandbox_report r;
    sandbox_self_test(&r);
    {
        int rc = t_require("guard", r.protected_paths.available && r.filesystem.available,
                           r.protected_paths.detail);
        if (rc)
            return rc;
    }
    return cmocka_run_group_tests(tests, setup, teardown);
}
