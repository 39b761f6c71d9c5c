#define _GNU_SOURCE
/* sandbox_plan_new + sandbox_spawn_plan: one plan serves many spawns from
 * several threads at once and every child is confined; the plan is a
 * snapshot of the policy; argument errors and unsupported policies are
 * refused at the right call; what depends on the files when a command starts
 * (protected paths, hard links) is still checked at every spawn.
 *
 * The confined child is this test program itself (--child PATH): it tries to
 * create PATH outside the writable roots, then to open an AF_INET socket, and
 * exits with bit 1 set when the file was created and bit 2 when the socket
 * was. Unconfined it exits 3; confined it must die of SIGSYS at the socket
 * having created nothing. Needs the seccomp backend and Landlock; exits 77
 * with the reason when this machine lacks them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/t_profile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn_stress.h"
#include "sandbox.h"

static char self_exe[PATH_MAX];
static int sentinel; /* a plan pointer that a failing sandbox_plan_new must reset to NULL */
static char project[64];  /* the writable project, under /tmp */
static char outside[64];  /* not writable by a confined child: under /var/tmp */

static int child_main(const char *path)
{
    int fd, s, code = 0;
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd); /* left in place: the parent looks for it */
        code |= 1;
    }
    s = socket(AF_INET, SOCK_STREAM, 0); /* confined: SIGSYS kills us here */
    if (s >= 0) {
        close(s);
        code |= 2;
    }
    return code;
}

/* The policy of `--sandbox`: no network, writes only in the project. */
static sandbox_policy *sandbox_like_policy(void)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_network(p, SANDBOX_NETWORK_DENY), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, project), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, project), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, project), SANDBOX_OK);
    return p;
}

static sandbox_plan *make_plan(const sandbox_policy *p)
{
    sandbox_plan *plan = NULL;
    sandbox_error err;
    if (sandbox_plan_new(p, &plan, &err) != SANDBOX_OK)
        fail_msg("plan: %s", err.message);
    assert_non_null(plan);
    return plan;
}

/* Run the --child probe from `plan` with a fresh outside path; 1 when it
 * behaved as expected (confined: SIGSYS and no file; else exit 3 and the
 * file), 0 with `why` filled otherwise. Thread-safe: no cmocka asserts. */
static int probe(const sandbox_plan *plan, int confined, const char *tag, char *why, size_t size)
{
    char path[128];
    const char *argv[] = {self_exe, "--child", path, NULL};
    sandbox_process proc;
    sandbox_error err;
    int status = -1, created, ok;

    snprintf(path, sizeof path, "%s/%s", outside, tag);
    if (sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err) != SANDBOX_OK) {
        snprintf(why, size, "spawn %s: %s", tag, err.message);
        return 0;
    }
    if (sandbox_wait(&proc, &status, &err) != SANDBOX_OK) {
        snprintf(why, size, "wait %s: %s", tag, err.message);
        return 0;
    }
    created = access(path, F_OK) == 0;
    if (created)
        unlink(path);
    if (confined)
        ok = WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS && !created;
    else
        ok = WIFEXITED(status) && WEXITSTATUS(status) == 3 && created;
    if (!ok)
        snprintf(why, size, "%s child %s: status 0x%x, outside file %s", confined ? "confined" : "unconfined",
                 tag, (unsigned)status, created ? "created" : "not created");
    return ok;
}

struct worker {
    const sandbox_plan *plan;
    int id, rounds, confined;
    int failures;
    char why[640];
};

static void *spawner(void *arg)
{
    struct worker *w = arg;
    char tag[32], why[640];
    int i;
    for (i = 0; i < w->rounds; i++) {
        snprintf(tag, sizeof tag, "w%d-%d", w->id, i);
        if (!probe(w->plan, w->confined, tag, why, sizeof why) && w->failures++ == 0)
            snprintf(w->why, sizeof w->why, "%s", why);
    }
    return NULL;
}

static void run_workers(const sandbox_plan *plan, int confined, int threads, int rounds)
{
    pthread_t th[8];
    struct worker w[8];
    int i;
    assert_true(threads <= 8);
    for (i = 0; i < threads; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].plan = plan;
        w[i].id = i + (confined ? 0 : 100);
        w[i].rounds = rounds;
        w[i].confined = confined;
        assert_int_equal(pthread_create(&th[i], NULL, spawner, &w[i]), 0);
    }
    for (i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    for (i = 0; i < threads; i++)
        if (w[i].failures)
            fail_msg("thread %d: %d of %d spawns wrong; first: %s", i, w[i].failures, rounds,
                     w[i].why);
}

/* 200 confined spawns from one plan, four threads at once; the same probe
 * from an all-off plan escapes both ways, so the checks can fail. Nothing
 * is left behind: no descriptor once the plans are freed, no zombie. */
static void test_one_plan_many_threads_every_child_confined(void **state)
{
    sandbox_policy *p, *off;
    sandbox_plan *plan, *open_plan;
    pthread_t th[2];
    int before, i;
    (void)state;
    alarm(240); /* a deadlock fails the test instead of hanging ctest */
    before = count_fds();
    p = sandbox_like_policy();
    off = sandbox_policy_new();
    assert_non_null(off);
    plan = make_plan(p);
    open_plan = make_plan(off);
    assert_string_equal(sandbox_plan_warning(plan), "");
    /* Two host threads allocate and lock meanwhile. */
    stop_threads = 0;
    for (i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, busy, NULL), 0);
    run_workers(plan, 1, 4, 50);
    run_workers(open_plan, 0, 2, 3);
    stop_threads = 1;
    for (i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    sandbox_plan_free(plan);
    sandbox_plan_free(open_plan);
    sandbox_policy_free(p);
    sandbox_policy_free(off);
    assert_int_equal(count_fds(), before);
    assert_int_equal(count_zombies(), 0);
    alarm(0);
}

/* The plan copies the policy: loosening, tightening or freeing the policy
 * after sandbox_plan_new changes nothing about the children. */
static void test_policy_changes_after_plan_new_do_not_reach_the_plan(void **state)
{
    sandbox_policy *p = sandbox_like_policy(), *off = sandbox_policy_new();
    sandbox_plan *plan, *open_plan;
    char why[640];
    (void)state;
    plan = make_plan(p);
    open_plan = make_plan(off);
    /* Loosen the confined one, tighten the open one, then free both. */
    assert_int_equal(sandbox_policy_set_network(p, SANDBOX_NETWORK_ALLOW), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_filesystem(p, SANDBOX_FS_UNRESTRICTED), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_writable_dir(p, outside), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_network(off, SANDBOX_NETWORK_DENY), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_filesystem(off, SANDBOX_FS_READ_ONLY), SANDBOX_OK);
    if (!probe(plan, 1, "changed-confined", why, sizeof why) ||
        !probe(open_plan, 0, "changed-open", why, sizeof why))
        fail_msg("%s", why);
    sandbox_policy_free(p);
    sandbox_policy_free(off);
    if (!probe(plan, 1, "freed-confined", why, sizeof why) ||
        !probe(open_plan, 0, "freed-open", why, sizeof why))
        fail_msg("%s", why);
    sandbox_plan_free(plan);
    sandbox_plan_free(open_plan);
}

/* A defaulted project root and working directory are the current directory
 * when the plan is made, not when it is used. */
static void test_defaulted_directories_are_resolved_at_plan_new(void **state)
{
    char a[96], b[96], fa[128], fb[128], cmd[320], cwd[PATH_MAX];
    const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    sandbox_policy *p = sandbox_policy_new();
    sandbox_plan *plan;
    sandbox_process proc;
    sandbox_error err;
    int status;
    (void)state;
    assert_non_null(getcwd(cwd, sizeof cwd));
    snprintf(a, sizeof a, "%s/a", outside);
    snprintf(b, sizeof b, "%s/b", outside);
    snprintf(fa, sizeof fa, "%s/f", a);
    snprintf(fb, sizeof fb, "%s/f", b);
    assert_int_equal(mkdir(a, 0700), 0);
    assert_int_equal(mkdir(b, 0700), 0);
    assert_int_equal(sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, project), SANDBOX_OK);
    assert_int_equal(chdir(a), 0);
    plan = make_plan(p);
    assert_int_equal(chdir(b), 0);
    snprintf(cmd, sizeof cmd, "echo x > %s; echo x > %s; exit 0", fa, fb);
    if (sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err) != SANDBOX_OK)
        fail_msg("spawn: %s", err.message);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(access(fa, F_OK), 0);  /* the directory of plan_new: writable */
    assert_int_equal(access(fb, F_OK), -1); /* the directory of the spawn: not */
    unlink(fa);
    unlink(fb);
    rmdir(a);
    rmdir(b);
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
}

static void test_argument_errors(void **state)
{
    const char *argv[] = {"/bin/true", NULL};
    const char *empty[] = {"", NULL};
    const char *none[] = {NULL};
    sandbox_policy *p = sandbox_like_policy();
    sandbox_plan *plan = (sandbox_plan *)(void *)&sentinel;
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    int status;
    (void)state;

    assert_int_equal(sandbox_plan_new(NULL, &plan, &err), SANDBOX_E_INVALID);
    assert_null(plan);
    assert_int_equal(err.code, SANDBOX_E_INVALID);
    assert_true(err.message[0] != '\0');
    assert_int_equal(sandbox_plan_new(p, NULL, &err), SANDBOX_E_INVALID);
    assert_true(err.message[0] != '\0');
    /* A NULL error is allowed. */
    assert_int_equal(sandbox_plan_new(p, &plan, NULL), SANDBOX_OK);
    assert_non_null(plan);

    assert_int_equal(sandbox_spawn_plan(NULL, argv, NULL, NULL, &proc, &err), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_spawn_plan(plan, NULL, NULL, NULL, &proc, &err), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_spawn_plan(plan, none, NULL, NULL, &proc, &err), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_spawn_plan(plan, empty, NULL, NULL, &proc, &err), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, NULL, &err), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, NULL, NULL), SANDBOX_E_INVALID);
    sandbox_spawn_options_init(&o);
    o.stdout_fd = 1000; /* not open */
    assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, &o, &proc, &err), SANDBOX_E_INVALID);
    assert_int_equal(err.sys_errno, EBADF);
    /* Still usable after refused calls. */
    assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, NULL), SANDBOX_OK);
    assert_int_equal(proc.enforcement, SANDBOX_SELF_APPLIED);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    assert_int_equal(status, 0);

    assert_string_equal(sandbox_plan_warning(NULL), "");
    sandbox_plan_free(NULL);
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
}

/* What sandbox_spawn refuses because of the policy or the machine,
 * sandbox_plan_new refuses too, with the same code and words. */
static void expect_same_refusal(const sandbox_policy *p, int code)
{
    const char *argv[] = {"/bin/true", NULL};
    sandbox_plan *plan = (sandbox_plan *)(void *)&sentinel;
    sandbox_process proc;
    sandbox_error spawn_err, plan_err;
    assert_int_equal(sandbox_spawn(p, argv, NULL, NULL, &proc, &spawn_err), code);
    assert_int_equal(sandbox_plan_new(p, &plan, &plan_err), code);
    assert_null(plan);
    assert_int_equal(plan_err.code, code);
    assert_string_equal(plan_err.message, spawn_err.message);
}

static void test_unsupported_policies_fail_at_plan_new(void **state)
{
    sandbox_policy *p = sandbox_like_policy();
    (void)state;
    assert_int_equal(sandbox_policy_set_network(p, SANDBOX_NETWORK_INTERNET_ONLY), SANDBOX_OK);
    expect_same_refusal(p, SANDBOX_E_UNSUPPORTED);
    sandbox_policy_free(p);

    p = sandbox_like_policy(); /* the media class without its output folder */
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_MEDIA), SANDBOX_OK);
    expect_same_refusal(p, SANDBOX_E_INVALID);
    sandbox_policy_free(p);

    p = sandbox_like_policy(); /* home as the project */
    if (getenv("HOME") && getenv("HOME")[0] == '/' && strcmp(getenv("HOME"), "/") != 0) {
        assert_int_equal(sandbox_policy_set_project_root(p, getenv("HOME")), SANDBOX_OK);
        expect_same_refusal(p, SANDBOX_E_PATH);
    }
    sandbox_policy_free(p);
}

/* A best-effort degradation found at plan_new is kept by the plan and
 * handed to every process spawned from it. */
static void test_plan_warning_reaches_every_process(void **state)
{
    const char *argv[] = {"/bin/true", NULL};
    char missing[96];
    sandbox_policy *p = sandbox_like_policy();
    sandbox_plan *plan;
    sandbox_process proc;
    sandbox_error err;
    int status, i;
    (void)state;
    snprintf(missing, sizeof missing, "%s/does-not-exist", outside);
    assert_int_equal(sandbox_policy_add_writable_dir(p, missing), SANDBOX_OK);
    plan = make_plan(p);
    assert_non_null(strstr(sandbox_plan_warning(plan), missing));
    for (i = 0; i < 2; i++) {
        assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
        assert_string_equal(proc.warning, sandbox_plan_warning(plan));
        assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    }
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
}

/* Read a file through `cat` in a child of `plan`: its exit status, and its
 * output in out[size]. */
static int cat_from_plan(const sandbox_plan *plan, const char *path, char *out, size_t size)
{
    const char *argv[] = {"/bin/cat", path, NULL};
    sandbox_spawn_options o;
    sandbox_process proc;
    sandbox_error err;
    int pfd[2], status = -1;
    size_t len = 0;
    ssize_t n;
    assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
    sandbox_spawn_options_init(&o);
    o.stdout_fd = pfd[1];
    o.stderr_fd = pfd[1];
    if (sandbox_spawn_plan(plan, argv, NULL, &o, &proc, &err) != SANDBOX_OK)
        fail_msg("spawn: %s", err.message);
    close(pfd[1]);
    while ((n = read(pfd[0], out + len, size - 1 - len)) > 0)
        len += (size_t)n;
    out[len] = '\0';
    close(pfd[0]);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    return status;
}

static void write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* The scan for protected paths runs at every spawn: a secret created after
 * the plan was made is still masked; an ordinary file created with it reads
 * fine (so the check can fail). */
static void test_secret_created_after_plan_new_is_masked(void **state)
{
    sandbox_report rep;
    sandbox_policy *p;
    sandbox_plan *plan;
    char env_path[128], plain[128], out[1024];
    int status;
    (void)state;
    sandbox_self_test(&rep);
    if (t_have("guard") != 1)
        T_SKIP_UNLESS("guard", "protected paths need a user namespace, Landlock and seccomp notify");
    assert_true(rep.protected_paths.available);
    p = sandbox_like_policy();
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    plan = make_plan(p);
    snprintf(env_path, sizeof env_path, "%s/.env", project);
    snprintf(plain, sizeof plain, "%s/notes.txt", project);
    write_file(env_path, "TOKEN=do-not-leak\n");
    write_file(plain, "plain words\n");

    status = cat_from_plan(plan, plain, out, sizeof out);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_non_null(strstr(out, "plain words"));
    status = cat_from_plan(plan, env_path, out, sizeof out);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    assert_null(strstr(out, "do-not-leak"));
    /* The same file read without the plan's policy: the check can fail. */
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
    p = sandbox_like_policy();
    plan = make_plan(p);
    status = cat_from_plan(plan, env_path, out, sizeof out);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_non_null(strstr(out, "do-not-leak"));
    unlink(env_path);
    unlink(plain);
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
}

/* The hard-link scan runs at every spawn: a link to an outside file made
 * after the plan refuses the next spawn, and removing it lets spawns run. */
static void test_hard_link_made_after_plan_new_is_refused(void **state)
{
    const char *argv[] = {"/bin/true", NULL};
    char target[128], link_path[128];
    sandbox_policy *p = sandbox_like_policy();
    sandbox_plan *plan;
    sandbox_process proc;
    sandbox_error err;
    int status;
    (void)state;
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_PROJECT), SANDBOX_OK);
    plan = make_plan(p);
    assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);

    /* Outside every scanned root, on the same file system as the project. */
    snprintf(target, sizeof target, "%s-outside.txt", project);
    snprintf(link_path, sizeof link_path, "%s/inside-name.txt", project);
    write_file(target, "outside\n");
    assert_int_equal(link(target, link_path), 0);
    assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err), SANDBOX_E_REFUSED);
    assert_non_null(strstr(err.message, "inside-name.txt"));
    unlink(link_path);
    assert_int_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
    assert_int_equal(sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    unlink(target);
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
}

/* A listening AF_UNIX socket at `path` (its descriptor), for the daemon
 * sockets a plan masks. */
static int listen_at(const char *path)
{
    struct sockaddr_un a;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s >= 0);
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    unlink(path);
    assert_int_equal(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(s, 4), 0);
    return s;
}

/* --connect PATH: exit 0 when a stream connect to PATH succeeds, 1 if not. */
static int connect_main(const char *path)
{
    struct sockaddr_un a;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    return s >= 0 && connect(s, (struct sockaddr *)&a, sizeof a) == 0 ? 0 : 1;
}

/* Spawn `--connect path` from `plan`: its exit status, or -1. */
static int connect_status(const sandbox_plan *plan, const char *path)
{
    const char *argv[] = {self_exe, "--connect", path, NULL};
    sandbox_process proc;
    sandbox_error err;
    int status = -1;
    if (sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err) != SANDBOX_OK)
        fail_msg("spawn --connect: %s", err.message);
    if (sandbox_wait(&proc, &status, &err) != SANDBOX_OK)
        fail_msg("wait --connect: %s", err.message);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The daemon sockets are listed at every spawn, as root too: one that goes
 * away between the plan and a spawn (a daemon stopped; a plan reused
 * later) leaves nothing to cover and the spawn runs confined as ever;
 * one that appears after the plan (a daemon started later) is closed.
 * Before this, root's plans listed them once: every spawn after a socket
 * went away failed ("a protected path vanished"), and a socket made after
 * plan_new stayed open to root's commands. */
static void test_daemon_sockets_listed_at_every_spawn(void **state)
{
    char bus[96], late[96], addr[224], named[96], why[640];
    const char *old = getenv("DBUS_SESSION_BUS_ADDRESS");
    char *saved = old ? strdup(old) : NULL;
    sandbox_policy *p = sandbox_like_policy();
    sandbox_plan *plan;
    int s;
    (void)state;
    snprintf(bus, sizeof bus, "%s/bus-gone", project);
    snprintf(late, sizeof late, "%s/bus-late", project);
    snprintf(addr, sizeof addr, "unix:path=%s;unix:path=%s", bus, late);
    assert_int_equal(setenv("DBUS_SESSION_BUS_ADDRESS", addr, 1), 0);
    /* A non-root caller's masks live in a user namespace (root's in a
     * namespace of its own): without one, a spawn with a listed socket
     * present fails closed, naming why; the rest needs the masks. */
    if (geteuid() != 0 && t_have("userns") == 0) {
        const char *argv[] = {self_exe, "--connect", late, NULL};
        sandbox_process proc;
        sandbox_error err;
        s = listen_at(late);
        plan = make_plan(p);
        assert_int_not_equal(sandbox_spawn_plan(plan, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
        assert_non_null(strstr(err.message, "user namespaces"));
        sandbox_plan_free(plan);
        close(s);
        unlink(late);
        sandbox_policy_free(p);
        if (saved)
            setenv("DBUS_SESSION_BUS_ADDRESS", saved, 1);
        else
            unsetenv("DBUS_SESSION_BUS_ADDRESS");
        free(saved);
        T_SKIP_UNLESS("userns", "a non-root command's socket masks need a user namespace");
        return;
    }
    s = listen_at(bus);
    plan = make_plan(p);
    close(s);
    assert_int_equal(unlink(bus), 0);
    if (!probe(plan, 1, "gone-bus", why, sizeof why))
        fail_msg("%s", why);
    /* Made after the plan: reachable unconfined, closed to the command. */
    s = listen_at(late);
    assert_int_equal(connect_main(late), 0);
    assert_int_equal(connect_status(plan, late), 1);
    close(s);
    unlink(late);
    sandbox_plan_free(plan);

    /* One the host named, gone before the spawn: nothing to reach. */
    snprintf(named, sizeof named, "%s/named-gone", project);
    s = listen_at(named);
    assert_int_equal(sandbox_policy_deny_unix(p, named), SANDBOX_OK);
    plan = make_plan(p);
    close(s);
    assert_int_equal(unlink(named), 0);
    if (!probe(plan, 1, "gone-named", why, sizeof why))
        fail_msg("%s", why);
    sandbox_plan_free(plan);
    sandbox_policy_free(p);
    if (saved) {
        setenv("DBUS_SESSION_BUS_ADDRESS", saved, 1);
        free(saved);
    } else {
        unsetenv("DBUS_SESSION_BUS_ADDRESS");
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_plan_many_threads_every_child_confined),
        cmocka_unit_test(test_policy_changes_after_plan_new_do_not_reach_the_plan),
        cmocka_unit_test(test_defaulted_directories_are_resolved_at_plan_new),
        cmocka_unit_test(test_argument_errors),
        cmocka_unit_test(test_unsupported_policies_fail_at_plan_new),
        cmocka_unit_test(test_plan_warning_reaches_every_process),
        cmocka_unit_test(test_secret_created_after_plan_new_is_masked),
        cmocka_unit_test(test_hard_link_made_after_plan_new_is_refused),
        cmocka_unit_test(test_daemon_sockets_listed_at_every_spawn),
    };
    ssize_t n;
    int rc;

    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--connect") == 0)
        return connect_main(argv[2]);
    rc = t_require("seccomp", sandbox_network_killswitch_available(), "no seccomp kill-switch");
    if (!rc)
        rc = t_require("landlock", sandbox_fs_confinement_available(), "no Landlock");
    if (rc)
        return rc;
    n = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
    if (n <= 0)
        return 1;
    self_exe[n] = '\0';
    snprintf(project, sizeof project, "/tmp/sbx-plan-proj-XXXXXX");
    snprintf(outside, sizeof outside, "/var/tmp/sbx-plan-out-XXXXXX");
    if (!mkdtemp(project) || !mkdtemp(outside))
        return 1;
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    rmdir(project);
    rmdir(outside);
    return rc;
}
