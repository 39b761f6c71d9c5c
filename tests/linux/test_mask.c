#define _GNU_SOURCE
/* Protected paths on Linux, proven with the library's own prepare/apply in a
 * forked child against the real kernel (no launcher, no seccomp or Landlock
 * branch needed). Every refusal is shown succeeding unconfined first. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/t_profile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/linux.h"

#define SECRET "sbx-secret-7f3a"
#define CONFINED_FS 2 /* masks plus the confined-mode Landlock ruleset */

struct fixture {
    char dir[64];  /* the scratch directory */
    char proj[96]; /* the project */
    char home[96]; /* the fake HOME */
};

static char out[65536];

/* Run `script` with sh in a child; confined applies the protected-paths
 * part of the plan first. Returns the exit status, or 200+ for setup errors.
 * The combined output lands in `out`. */
static int run(const struct fixture *f, int confined, const char *script)
{
    int fds[2], status;
    size_t len = 0;
    ssize_t got;
    pid_t pid;
    if (pipe(fds) != 0)
        return 250;
    pid = fork();
    if (pid < 0)
        return 251;
    if (pid == 0) {
        sandbox_policy *p = sandbox_policy_new();
        sbx_resolved r;
        sandbox_error err;
        struct sbx_mask_plan *m = NULL;
        char warning[512] = "";
        int e;
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[0]);
        if (chdir(f->proj) != 0)
            _exit(210);
        setenv("HOME", f->home, 1);
        setenv("PROJ", f->proj, 1);
        if (confined) {
            int ll_fd = -1;
            uint32_t ll_flags = 0;
            sandbox_policy_set_project_root(p, f->proj);
            sandbox_policy_set_working_dir(p, f->proj);
            sandbox_policy_protect_defaults(p);
            if (confined == CONFINED_FS)
                sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
            if (sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err) != SANDBOX_OK)
                _exit(211);
            /* The backend's order: Landlock's ruleset, then the masks; apply
             * no_new_privs, masks, then the Landlock domain. */
            if ((confined == CONFINED_FS &&
                 sbx_landlock_prepare(&r, &ll_fd, &ll_flags, warning, sizeof warning, &err) !=
                     SANDBOX_OK) ||
                sbx_mask_prepare(&r, &m, 0, warning, sizeof warning, &err) != SANDBOX_OK) {
                dprintf(2, "prepare: %s\n", err.message);
                _exit(212);
            }
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
                _exit(213);
            if (sbx_mask_apply(m, 1, 0, 0, NULL, &e) != 0) {
                dprintf(2, "apply: %s\n", strerror(e));
                _exit(214);
            }
            if (ll_fd >= 0 && syscall(SYS_landlock_restrict_self, ll_fd, ll_flags) != 0)
                _exit(217);
        }
        /* The marker proves the command ran after a complete apply. */
        if (confined && write(1, "[applied]\n", 10) != 10)
            _exit(216);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(215);
    }
    close(fds[1]);
    while (len < sizeof out - 1 && (got = read(fds[0], out + len, sizeof out - 1 - len)) > 0)
        len += (size_t)got;
    out[len] = '\0';
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    /* A refusal must come from the command, never from a failed setup. */
    if ((status >= 210 && status <= 217) || (confined && strncmp(out, "[applied]\n", 10) != 0))
        fail_msg("setup failed (%d): %s", status, out);
    return status;
}

static void sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    /* Outside /tmp: the sandbox writes /tmp, so a home beneath it is refused. */
    strcpy(f->dir, "/var/tmp/sbx-mask.XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->proj, sizeof f->proj, "%s/proj", f->dir);
    snprintf(f->home, sizeof f->home, "%s/home", f->dir);
    sh("set -e; cd %s; mkdir -p proj/sub proj/conf proj/keys proj/.ssh home/.ssh; "
       "for p in .env sub/.ENV conf/.env.local keys/server.pem keys/ID_RSA .ssh/config; do "
       "echo '" SECRET "' > proj/$p; done; echo '" SECRET "' > home/.ssh/id_ed25519; "
       "echo 'how env files work' > proj/env.md; ln proj/keys/server.pem proj/keys/copy; "
       "cd proj && git init -q . && git config user.email t@t && git config user.name t && "
       "git add env.md && git commit -qm init",
       f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", f->dir);
    if (system(cmd) != 0)
        return -1;
    free(f);
    return 0;
}

static const char *const secrets[] = {".env", "sub/.ENV", "conf/.env.local", "keys/server.pem",
                                      "keys/ID_RSA", ".ssh/config", "$HOME/.ssh/id_ed25519",
                                      "keys/copy"};

static void test_protected_files_cannot_be_read(void **state)
{
    char script[256];
    size_t i;
    for (i = 0; i < sizeof secrets / sizeof secrets[0]; i++) {
        snprintf(script, sizeof script, "cat %s", secrets[i]);
        assert_int_equal(run(*state, 0, script), 0);
        assert_non_null(strstr(out, SECRET));
        assert_int_not_equal(run(*state, 1, script), 0);
        assert_null(strstr(out, SECRET));
    }
}

static void test_protected_files_cannot_be_written(void **state)
{
    char script[256];
    size_t i;
    for (i = 0; i < sizeof secrets / sizeof secrets[0]; i++) {
        snprintf(script, sizeof script, "echo x >> %s", secrets[i]);
        assert_int_not_equal(run(*state, 1, script), 0);
        snprintf(script, sizeof script, "echo x > %s", secrets[i]);
        assert_int_not_equal(run(*state, 1, script), 0);
    }
    /* Unconfined, the same write works (on a throwaway copy). */
    assert_int_equal(run(*state, 0, "cp .env .env.tmp && echo x >> .env.tmp && rm .env.tmp"), 0);
    /* And nothing was truncated by the refused writes. */
    assert_int_equal(run(*state, 0, "cat .env"), 0);
    assert_non_null(strstr(out, SECRET));
}

static void test_protected_directory_cannot_be_listed_or_filled(void **state)
{
    assert_int_equal(run(*state, 0, "ls .ssh && ls $HOME/.ssh"), 0);
    assert_int_not_equal(run(*state, 1, "ls .ssh"), 0);
    assert_int_not_equal(run(*state, 1, "ls $HOME/.ssh"), 0);
    assert_int_not_equal(run(*state, 1, "echo k > .ssh/authorized_keys"), 0);
    assert_int_not_equal(run(*state, 1, "echo k > $HOME/.ssh/new_key"), 0);
}

static void test_ordinary_files_still_work(void **state)
{
    assert_int_equal(run(*state, 1, "cat env.md && echo hi > notes.txt && cat notes.txt && "
                                    "mkdir -p build && echo o > build/out.o && rm notes.txt"),
                     0);
    assert_non_null(strstr(out, "how env files work"));
}

static void test_git_reads_work_writes_refused(void **state)
{
    assert_int_equal(run(*state, 1, "git status --porcelain && git log --oneline"), 0);
    assert_non_null(strstr(out, "init"));
    assert_int_not_equal(run(*state, 1, "echo new > new.txt; git add new.txt"), 0);
    assert_int_not_equal(run(*state, 1, "echo x >> .git/config"), 0);
    /* A path that does not exist yet cannot be created under .git either. */
    assert_int_not_equal(run(*state, 1, "echo evil > .git/hooks/pre-commit"), 0);
    assert_int_equal(run(*state, 0, "test ! -e .git/hooks/pre-commit"), 0);
    /* Unconfined the same add works. */
    assert_int_equal(run(*state, 0, "git add new.txt && git reset -q new.txt && rm new.txt"), 0);
}

static void test_rename_symlink_hardlink_routes_fail(void **state)
{
    /* The mount point itself cannot move or gain a name. */
    assert_int_not_equal(run(*state, 1, "mv .env moved"), 0);
    assert_int_not_equal(run(*state, 1, "ln .env linked"), 0);
    assert_int_not_equal(run(*state, 1, "ln -s .env sym && cat sym"), 0);
    assert_null(strstr(out, SECRET));
    assert_int_equal(run(*state, 0, "rm -f sym"), 0);
    /* Renaming the parent moves the mask with it. */
    assert_int_not_equal(run(*state, 1, "mv conf conf2 && cat conf2/.env.local"), 0);
    assert_null(strstr(out, SECRET));
    assert_int_equal(run(*state, 0, "if [ -d conf2 ]; then mv conf2 conf; fi; cat conf/.env.local"), 0);
    assert_non_null(strstr(out, SECRET));
    /* Unconfined, every route reaches the file. */
    assert_int_equal(run(*state, 0, "ln -s .env sym && cat sym && rm sym"), 0);
    assert_non_null(strstr(out, SECRET));
}

static void test_masks_cannot_be_removed(void **state)
{
    assert_int_not_equal(run(*state, 1, "umount .env || umount -l .env; cat .env"), 0);
    assert_null(strstr(out, SECRET));
    /* A new user namespace of its own gives capabilities, but Landlock still
     * refuses every mount change. */
    assert_int_not_equal(
        run(*state, 1, "unshare -rm sh -c 'umount .env 2>/dev/null || umount -l .env; cat .env'"), 0);
    assert_null(strstr(out, SECRET));
    /* The Landlock lock refuses the mount itself, in any namespace the command
     * makes: there it holds CAP_SYS_ADMIN, and only the kernel's locked mounts
     * would be left to keep the masks in place. Unconfined the probe mounts a
     * tmpfs (in its own namespace: nothing changes outside). */
    assert_int_equal(run(*state, 0, "\"$SBX_PROBES/esc_ns\" unshare \"$PROJ/sub\""), 0);
    assert_non_null(strstr(out, "userns+mount: ok"));
    assert_int_equal(run(*state, 1, "\"$SBX_PROBES/esc_ns\" unshare \"$PROJ/sub\""), 1);
    assert_non_null(strstr(out, "mount --make-rprivate: refused EPERM"));
    /* The unmasked view of a process outside is out of reach. */
    assert_int_equal(run(*state, 0, "cat /proc/$PPID/root$PROJ/.env"), 0);
    assert_non_null(strstr(out, SECRET));
    assert_int_not_equal(run(*state, 1, "cat /proc/$PPID/root$PROJ/.env"), 0);
    assert_null(strstr(out, SECRET));
}

static void test_masks_compose_with_confined_landlock(void **state)
{
    struct fixture *f = *state;
    char script[256];
    if (sbx_landlock_abi(&(const char *){NULL}) < 1)
        T_SKIP_UNLESS("landlock", "no Landlock to compose with");
    assert_int_not_equal(run(f, CONFINED_FS, "cat .env"), 0);
    assert_null(strstr(out, SECRET));
    assert_int_equal(run(f, CONFINED_FS, "cat env.md && echo hi > n.txt && rm n.txt && git status"), 0);
    assert_int_not_equal(run(f, CONFINED_FS, "echo x > .git/hooks/pre-commit"), 0);
    /* Landlock itself still refuses writes outside the writable roots (the
     * project, the temp directories and /dev; /var/tmp is none of them). */
    snprintf(script, sizeof script, "echo x > /var/tmp/sbx-mask-outside-%ld.txt", (long)getpid());
    assert_int_not_equal(run(f, CONFINED_FS, script), 0);
    assert_int_equal(run(f, 0, script), 0);
    snprintf(script, sizeof script, "rm /var/tmp/sbx-mask-outside-%ld.txt", (long)getpid());
    assert_int_equal(run(f, 0, script), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_protected_files_cannot_be_read),
        cmocka_unit_test(test_protected_files_cannot_be_written),
        cmocka_unit_test(test_protected_directory_cannot_be_listed_or_filled),
        cmocka_unit_test(test_ordinary_files_still_work),
        cmocka_unit_test(test_git_reads_work_writes_refused),
        cmocka_unit_test(test_rename_symlink_hardlink_routes_fail),
        cmocka_unit_test(test_masks_cannot_be_removed),
        cmocka_unit_test(test_masks_compose_with_confined_landlock),
    };
    char detail[384];
    {
        /* The mask needs Landlock and a user+mount namespace (not the guard's
         * notification): the profile's landlock and userns. */
        int ok = sbx_mask_available(detail, sizeof detail);
        int rc = t_require("landlock", ok || t_have("userns") != 1, detail);
        if (!rc)
            rc = t_require("userns", ok, detail);
        if (rc)
            return rc;
    }
    return cmocka_run_group_tests(tests, setup, teardown);
}
