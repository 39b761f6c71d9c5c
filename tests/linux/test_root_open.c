/* The Landlock step opens each writable root itself and checks what it got
 * (issue 16): a component swapped for a symlink, or a root replaced by the
 * home, between resolution and the grant is refused there, not followed.
 * Each case first shows the unchanged plan being prepared. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/linux.h"

static char base[64], proj[128], moved[128], victim[128];

static int setup(void **state)
{
    (void)state;
    strcpy(base, "/var/tmp/sbx-root-open.XXXXXX");
    if (!mkdtemp(base))
        return -1;
    snprintf(proj, sizeof proj, "%s/proj", base);
    snprintf(moved, sizeof moved, "%s/moved", base);
    snprintf(victim, sizeof victim, "%s/victim", base);
    return mkdir(proj, 0755) || mkdir(victim, 0755);
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

static sandbox_policy *policy(void)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, proj), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, proj), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, proj), SANDBOX_OK);
    return p;
}

static int prepare(const sbx_resolved *r, sandbox_error *err)
{
    struct sbx_linux_plan plan;
    char warning[512] = "";
    int rc = sbx_linux_prepare_resolved(r, &plan, warning, sizeof warning, err);
    if (rc == SANDBOX_OK)
        sbx_linux_plan_release(&plan);
    return rc;
}

static void test_root_swapped_for_a_link_after_the_check_is_refused(void **state)
{
    sandbox_policy *p = policy();
    sandbox_error err;
    sbx_resolved r;
    const char *why;
    (void)state;
    if (sbx_landlock_abi(&why) <= 0)
        skip();
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(prepare(&r, &err), SANDBOX_OK); /* the route works unchanged */
    /* A command still running swaps the project for a link to the victim. */
    assert_int_equal(rename(proj, moved), 0);
    assert_int_equal(symlink(victim, proj), 0);
    assert_int_equal(prepare(&r, &err), SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "symbolic link"));
    unlink(proj);
    assert_int_equal(rename(moved, proj), 0);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_root_that_is_now_the_home_is_refused_by_identity(void **state)
{
    sandbox_policy *p = policy();
    sandbox_error err;
    sbx_resolved r;
    const char *why;
    size_t i;
    char *home = sbx_account_home();
    (void)state;
    /* nobody's account home does not exist: its $HOME is a home too. */
    if ((!home || access(home, X_OK) != 0) && getenv("HOME")) {
        free(home);
        home = strdup(getenv("HOME"));
    }
    if (sbx_landlock_abi(&why) <= 0 || !home || access(home, X_OK) != 0) {
        free(home);
        skip();
    }
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(prepare(&r, &err), SANDBOX_OK);
    assert_true(r.n_forbidden >= 2); /* "/" and the account's home at least */
    /* The checked name now leads to the home (what a swap would achieve). */
    for (i = 0; i < r.n_roots; i++) {
        if (r.roots[i].kind == SBX_ROOT_PROJECT) {
            free(r.roots[i].path);
            r.roots[i].path = strdup(home);
        }
    }
    assert_int_equal(prepare(&r, &err), SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "your home"));
    free(home);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_root_swapped_for_a_link_after_the_check_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_root_that_is_now_the_home_is_refused_by_identity,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
