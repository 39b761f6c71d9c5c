#define _POSIX_C_SOURCE 200809L
/* The policy object, its validation and its resolution into writable roots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <unistd.h>
#include "internal.h"

static void test_new_policy_enforces_nothing(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    (void)state;
    assert_non_null(p);
    assert_int_equal(sandbox_policy_network(p), SANDBOX_NETWORK_ALLOW);
    assert_int_equal(sandbox_policy_filesystem(p), SANDBOX_FS_UNRESTRICTED);
    assert_true(sbx_policy_is_noop(p));
    sandbox_policy_free(p);
}

static void test_setters_reject_bad_values(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    (void)state;
    assert_int_equal(sandbox_policy_set_network(p, 7), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_network(p, -1), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_filesystem(p, 3), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_deny_action(p, 2), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_project_root(p, "relative/dir"), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_project_root(p, ""), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_project_root(p, NULL), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_writable_dir(p, "x"), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_network(NULL, 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_project_root(p, "C:\\work"), SANDBOX_OK);
    assert_true(sbx_policy_is_noop(p));
    sandbox_policy_free(p);
}

static void test_enforce_noop_and_bad_arguments(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_result r;
    const char *argv[] = {"true", NULL};
    const char *empty[] = {NULL};
    (void)state;
    assert_int_equal(sandbox_enforce(p, argv, &r), SANDBOX_OK);
    assert_int_equal(r.enforcement, SANDBOX_ENFORCED_NOTHING);
    assert_int_equal(sandbox_enforce(p, empty, &r), SANDBOX_E_INVALID);
    assert_string_equal(r.error.message, "no command was given");
    assert_int_equal(sandbox_enforce(NULL, argv, &r), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_enforce(p, argv, NULL), SANDBOX_E_INVALID);
    sandbox_policy_free(p);
}

static void test_confined_roots_in_order_without_duplicates(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, "/work/proj/"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_writable_dir(p, "/data/extra"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_writable_dir(p, "/work/proj"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, "/work/proj/sub"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, "/var/tmp/t"), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(r.n_roots, 6);
    assert_string_equal(r.roots[0].path, "/work/proj");
    assert_int_equal(r.roots[0].kind, SBX_ROOT_PROJECT);
    assert_string_equal(r.roots[1].path, "/data/extra");
    assert_string_equal(r.roots[2].path, "/work/proj/sub");
    assert_string_equal(r.roots[3].path, "/var/tmp/t");
    assert_string_equal(r.roots[4].path, "/tmp");
    assert_string_equal(r.roots[5].path, "/dev");
    sbx_resolved_free(&r);

    /* On unix a trailing backslash is part of the name, not a separator. */
    assert_int_equal(sandbox_policy_add_writable_dir(p, "/data/odd\\"), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(r.n_roots, 7);
    assert_string_equal(r.roots[2].path, "/data/odd\\");
    sbx_resolved_free(&r);

    /* Windows has neither /tmp nor /dev. */
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    assert_int_equal(r.n_roots, 5);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_defaults_come_from_cwd_and_tmpdir(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    char tmp[] = "/var/tmp/sbx-unit.XXXXXX", cwd[4096];
    assert_non_null(mkdtemp(tmp));
    setenv("TMPDIR", tmp, 1);
    /* From a directory in no repository: the project is the working
     * directory (inside one it is the git root: test_resolve). */
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(tmp), 0);
    unsetenv("PWD");
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(chdir(cwd), 0);
    assert_string_equal(r.temp_dir, tmp);
    rmdir(tmp);
    assert_string_equal(r.project_root, r.working_dir);
    assert_string_equal(r.working_dir, tmp);
    sbx_resolved_free(&r);
    setenv("TMPDIR", "relative", 1); /* not a usable directory: fall back */
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_string_equal(r.temp_dir, "/tmp");
    sbx_resolved_free(&r);
    unsetenv("TMPDIR");
    sandbox_policy_free(p);
}

static void test_read_only_implies_no_network(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_READ_ONLY);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(r.network, SANDBOX_NETWORK_DENY);
    assert_int_equal(r.n_roots, 0);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static int resolve_confined(const char *project, const char *workdir, const char *home, int target)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    int rc;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    if (project)
        sandbox_policy_set_project_root(p, project);
    sandbox_policy_set_working_dir(p, workdir);
    setenv("HOME", home, 1);
    rc = sbx_resolve(p, target, &r, &err);
    if (rc == SANDBOX_OK)
        sbx_resolved_free(&r);
    else
        if (!strstr(err.message, "refusing to make"))
            fail_msg("%s", err.message);
    sandbox_policy_free(p);
    return rc;
}

static void test_home_and_root_are_never_a_writable_project(void **state)
{
    char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    (void)state;
    assert_int_equal(resolve_confined(NULL, "/home/u/proj", "/home/u", SANDBOX_TARGET_LINUX), SANDBOX_OK);
    assert_int_equal(resolve_confined(NULL, "/home/u", "/home/u", SANDBOX_TARGET_LINUX), SANDBOX_E_PATH);
    assert_int_equal(resolve_confined(NULL, "/home/u/", "/home/u", SANDBOX_TARGET_LINUX), SANDBOX_E_PATH);
    assert_int_equal(resolve_confined(NULL, "/home", "/home/u", SANDBOX_TARGET_LINUX), SANDBOX_E_PATH);
    assert_int_equal(resolve_confined(NULL, "/", "/home/u", SANDBOX_TARGET_LINUX), SANDBOX_E_PATH);
    /* a sibling whose name merely starts like home is fine */
    assert_int_equal(resolve_confined(NULL, "/home/u2", "/home/u", SANDBOX_TARGET_LINUX), SANDBOX_OK);
    /* the project root is checked too, not only the working directory */
    assert_int_equal(resolve_confined("/home/u", "/home/u/proj", "/home/u", SANDBOX_TARGET_LINUX), SANDBOX_E_PATH);
    /* macOS folds case: /Users/Me is /users/me */
    assert_int_equal(resolve_confined(NULL, "/users/me", "/Users/Me", SANDBOX_TARGET_MACOS), SANDBOX_E_PATH);
    assert_int_equal(resolve_confined(NULL, "/users/me", "/Users/Me", SANDBOX_TARGET_LINUX), SANDBOX_OK);
    if (saved) {
        setenv("HOME", saved, 1);
        free(saved);
    }
}

static void test_json_strings_are_escaped(void **state)
{
    sbx_buf b;
    char *s;
    (void)state;
    sbx_buf_init(&b);
    sbx_buf_json_str(&b, "a\"b\\c\n\x01\xff\xc3\xa9");
    s = sbx_buf_take(&b);
    assert_string_equal(s, "\"a\\\"b\\\\c\\u000a\\u0001\\u00ff\xc3\xa9\"");
    free(s);
}

static void test_strerror_names_every_code(void **state)
{
    int c;
    (void)state;
    for (c = SANDBOX_OK; c <= SANDBOX_E_REFUSED; c++)
        assert_string_not_equal(sandbox_strerror(c), "unknown error");
    assert_string_equal(sandbox_strerror(99), "unknown error");
    assert_string_equal(sandbox_version(), SANDBOX_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_policy_enforces_nothing),
        cmocka_unit_test(test_setters_reject_bad_values),
        cmocka_unit_test(test_enforce_noop_and_bad_arguments),
        cmocka_unit_test(test_confined_roots_in_order_without_duplicates),
        cmocka_unit_test(test_defaults_come_from_cwd_and_tmpdir),
        cmocka_unit_test(test_read_only_implies_no_network),
        cmocka_unit_test(test_home_and_root_are_never_a_writable_project),
        cmocka_unit_test(test_json_strings_are_escaped),
        cmocka_unit_test(test_strerror_names_every_code),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
