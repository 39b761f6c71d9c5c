#define _GNU_SOURCE
/* sandbox_spawn with real confinement: the child is confined, the parent is
 * not, and a busy multi-threaded parent still leaks nothing. Needs the
 * seccomp backend (and Landlock for the filesystem cases); exits 77 with the
 * reason when this machine or build lacks them. */
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn_stress.h"
#include "sandbox.h"

static char project[64];

static sandbox_policy *net_policy(void)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    sandbox_policy_set_network(p, SANDBOX_NETWORK_DENY);
    sandbox_policy_set_project_root(p, project);
    sandbox_policy_set_working_dir(p, project);
    return p;
}

static int run(const sandbox_policy *p, const char *const argv[])
{
    sandbox_process proc;
    sandbox_error err;
    int status = -1;
    if (sandbox_spawn(p, argv, NULL, NULL, &proc, &err) != SANDBOX_OK)
        fail_msg("spawn: %s", err.message);
    assert_int_equal(proc.enforcement, SANDBOX_SELF_APPLIED);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    return status;
}

static void test_thousand_confined_spawns_with_busy_threads(void **state)
{
    sandbox_policy *p = net_policy();
    const char *argv[] = {"/bin/true", NULL};
    pthread_t th[4];
    int i, before;
    (void)state;
    alarm(180);
    stop_threads = 0;
    for (i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, busy, NULL);
    before = count_fds();
    for (i = 0; i < SBX_SPAWN_ROUNDS; i++)
        assert_int_equal(run(p, argv), 0);
    stop_threads = 1;
    for (i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    assert_int_equal(count_fds(), before);
    assert_int_equal(count_zombies(), 0);
    alarm(0);
    sandbox_policy_free(p);
}

static void test_child_socket_dies_with_sigsys_parent_unconfined(void **state)
{
    sandbox_policy *p = net_policy();
    const char *argv[] = {"python3", "-c", "import socket; socket.socket()", NULL};
    const char *control[] = {"/bin/sh", "-c", "exit 0", NULL};
    char line[512];
    int status, s;
    (void)state;
    status = run(p, argv);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS);
    assert_int_equal(sandbox_describe_denial(p, SANDBOX_TARGET_HOST, status, NULL, line, sizeof line),
                     SANDBOX_OK);
    assert_true(strncmp(line, "the network sandbox probably killed", 35) == 0);
    assert_int_equal(run(p, control), 0);
    /* the parent is not confined by spawning */
    s = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(s >= 0);
    close(s);
    sandbox_policy_free(p);
}

static void test_confined_write_outside_roots_is_refused(void **state)
{
    sandbox_policy *p;
    char outside[96], cmd[256], line[512];
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    int status, errp[2];
    char tail[1024];
    ssize_t n;
    size_t len;
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    (void)state;
    if (!sandbox_fs_confinement_available())
        T_SKIP_UNLESS("landlock", "the library reports no file-system confinement");
    p = net_policy();
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    snprintf(outside, sizeof outside, "/var/tmp/sbx-spawn-outside-%ld", (long)getpid());
    snprintf(cmd, sizeof cmd, "echo in > %s/inside && echo out > %s", project, outside);
    assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
    sandbox_spawn_options_init(&o);
    o.stderr_fd = errp[1];
    assert_int_equal(sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_OK);
    close(errp[1]);
    /* read to the end: closing early would kill the shell with SIGPIPE */
    for (len = 0; (n = read(errp[0], tail + len, sizeof tail - 1 - len)) > 0;)
        len += (size_t)n;
    tail[len] = '\0';
    close(errp[0]);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    assert_int_equal(access(outside, F_OK), -1);
    snprintf(cmd, sizeof cmd, "%s/inside", project);
    assert_int_equal(access(cmd, F_OK), 0);
    assert_int_equal(sandbox_describe_denial(p, SANDBOX_TARGET_HOST, status, tail, line, sizeof line),
                     SANDBOX_OK);
    assert_true(strncmp(line, "the filesystem sandbox probably refused a write outside", 55) == 0);
    unlink(cmd);
    sandbox_policy_free(p);
}

/* Protected paths are applied in the spawned child (a private mount
 * namespace made from the vfork-style child): .env cannot be read there, the
 * parent still reads it. */
static void test_protected_secret_unreadable_in_child_only(void **state)
{
    sandbox_policy *p;
    sandbox_report rep;
    char env_path[128], line[512], tail[1024];
    const char *argv[] = {"/bin/cat", env_path, NULL};
    int errp[2], status, fd;
    ssize_t n;
    size_t len;
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    (void)state;
    sandbox_self_test(&rep);
    if (t_have("guard") != 1)
        T_SKIP_UNLESS("guard", "protected paths need a user namespace, Landlock and seccomp notify");
    assert_true(rep.protected_paths.available && sandbox_fs_confinement_available());
    snprintf(env_path, sizeof env_path, "%s/.env", project);
    fd = open(env_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "TOKEN=do-not-leak\n", 18), 18);
    close(fd);
    p = net_policy();
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    assert_int_equal(pipe2(errp, O_CLOEXEC), 0);
    sandbox_spawn_options_init(&o);
    o.stderr_fd = errp[1];
    o.stdout_fd = errp[1];
    o.working_dir = project;
    if (sandbox_spawn(p, argv, NULL, &o, &proc, &err) != SANDBOX_OK)
        fail_msg("spawn: %s", err.message);
    close(errp[1]);
    for (len = 0; (n = read(errp[0], tail + len, sizeof tail - 1 - len)) > 0;)
        len += (size_t)n;
    tail[len] = '\0';
    close(errp[0]);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    assert_null(strstr(tail, "do-not-leak"));
    assert_int_equal(sandbox_describe_denial(p, SANDBOX_TARGET_HOST, status, tail, line, sizeof line),
                     SANDBOX_OK);
    assert_non_null(strstr(line, "protected path"));
    /* the parent is not in the child's mount namespace */
    fd = open(env_path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    close(fd);
    unlink(env_path);
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thousand_confined_spawns_with_busy_threads),
        cmocka_unit_test(test_child_socket_dies_with_sigsys_parent_unconfined),
        cmocka_unit_test(test_confined_write_outside_roots_is_refused),
        cmocka_unit_test(test_protected_secret_unreadable_in_child_only),
    };
    int rc;
    rc = t_require("seccomp", sandbox_network_killswitch_available(),
                   "the seccomp network kill-switch is not available in this build or kernel");
    if (rc)
        return rc;
    snprintf(project, sizeof project, "/tmp/sbx-spawn-proj-XXXXXX");
    if (!mkdtemp(project))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(project);
    return rc;
}
