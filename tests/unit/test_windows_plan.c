#define _POSIX_C_SOURCE 200809L
/* The portable AppContainer plan on any host: capabilities per policy, roots
 * granted, the ACE as SDDL, explain output, and command-line quoting checked
 * against our own reimplementation of CommandLineToArgvW's parsing rules (the
 * wine tests check the same quoting against the real function). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "windows/plan.h"

/* ---- CommandLineToArgvW, as documented ----
 * Program name: if it starts with a quote, everything up to the next quote;
 * otherwise up to the first space or tab; backslashes are never special.
 * Later arguments: split on unquoted spaces and tabs; 2n backslashes before a
 * quote give n backslashes and the quote toggles quoting; 2n+1 give n and a
 * literal quote; other backslashes are literal; inside quotes, a doubled
 * quote gives a literal quote. */
static char **parse_command_line(const char *s, int *argc)
{
    char **out = calloc(strlen(s) + 2, sizeof *out);
    char *cur = malloc(strlen(s) + 1);
    size_t len = 0;
    int n = 0, inq = 0;
    if (*s == '"') {
        s++;
        while (*s && *s != '"')
            cur[len++] = *s++;
        if (*s == '"')
            s++;
    } else {
        while (*s && *s != ' ' && *s != '\t')
            cur[len++] = *s++;
    }
    cur[len] = '\0';
    out[n++] = strdup(cur);
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            break;
        len = 0;
        inq = 0;
        while (*s && (inq || (*s != ' ' && *s != '\t'))) {
            if (*s == '\\') {
                size_t k = 0, i;
                while (*s == '\\') {
                    k++;
                    s++;
                }
                if (*s == '"') {
                    for (i = 0; i < k / 2; i++)
                        cur[len++] = '\\';
                    if (k % 2) {
                        cur[len++] = '"';
                        s++;
                    }
                } else {
                    for (i = 0; i < k; i++)
                        cur[len++] = '\\';
                }
            } else if (*s == '"') {
                s++;
                if (inq && *s == '"') {
                    cur[len++] = '"';
                    s++;
                } else {
                    inq = !inq;
                }
            } else {
                cur[len++] = *s++;
            }
        }
        cur[len] = '\0';
        out[n++] = strdup(cur);
    }
    free(cur);
    *argc = n;
    return out;
}

static void free_args(char **a, int n)
{
    int i;
    for (i = 0; i < n; i++)
        free(a[i]);
    free(a);
}

static void assert_round_trip(const char *const argv[])
{
    sandbox_error err;
    char *line = sbx_win_command_line(argv, &err);
    char **back;
    int n, i;
    assert_non_null(line);
    back = parse_command_line(line, &n);
    for (i = 0; argv[i]; i++) {
        assert_true(i < n);
        assert_string_equal(back[i], argv[i]);
    }
    assert_int_equal(n, i);
    free_args(back, n);
    free(line);
}

/* ---- plans ---- */

static sandbox_policy *policy(int net, int fs)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    sandbox_policy_set_network(p, net);
    sandbox_policy_set_filesystem(p, fs);
    sandbox_policy_set_project_root(p, "C:\\proj");
    sandbox_policy_set_working_dir(p, "C:\\proj\\sub");
    sandbox_policy_set_temp_dir(p, "C:\\Temp\\");
    sandbox_policy_add_writable_dir(p, "D:\\extra");
    sandbox_policy_add_writable_dir(p, "c:\\PROJ");
    return p;
}

static int plan_for(int net, int fs, sbx_win_plan *plan, sandbox_error *err)
{
    const char *argv[] = {"git.exe", "status", NULL};
    sandbox_policy *p = policy(net, fs);
    sbx_resolved r;
    int rc = sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, err);
    assert_int_equal(rc, SANDBOX_OK);
    rc = sbx_win_plan_build(&r, argv, plan, err);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
    return rc;
}

static void test_network_deny_has_no_network_capability(void **state)
{
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(plan_for(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, &plan, &err), SANDBOX_OK);
    assert_true(plan.contained);
    assert_int_equal(plan.n_caps, 0);
    assert_true(plan.loopback_exempt); /* localhost is spared */
    sbx_win_plan_free(&plan);
}

static void test_confine_fs_alone_grants_back_the_three_network_capabilities(void **state)
{
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(plan_for(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, &plan, &err), SANDBOX_OK);
    assert_int_equal(plan.n_caps, 3);
    assert_string_equal(sbx_win_cap_sid(plan.caps[0]), "S-1-15-3-1");
    assert_string_equal(sbx_win_cap_name(plan.caps[0]), "internetClient");
    assert_string_equal(sbx_win_cap_sid(plan.caps[1]), "S-1-15-3-2");
    assert_string_equal(sbx_win_cap_name(plan.caps[1]), "internetClientServer");
    assert_string_equal(sbx_win_cap_sid(plan.caps[2]), "S-1-15-3-3");
    assert_string_equal(sbx_win_cap_name(plan.caps[2]), "privateNetworkClientServer");
    assert_false(plan.stricter);
    sbx_win_plan_free(&plan);
}

static void test_confined_grants_project_added_workdir_temp_without_duplicates(void **state)
{
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(plan_for(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, &plan, &err), SANDBOX_OK);
    /* "c:\PROJ" is the project root in another case: one grant, not two. */
    assert_int_equal(plan.n_grants, 4);
    assert_string_equal(plan.grants[0].path, "C:\\proj");
    assert_int_equal(plan.grants[0].kind, SBX_ROOT_PROJECT);
    assert_string_equal(plan.grants[1].path, "D:\\extra");
    assert_int_equal(plan.grants[1].kind, SBX_ROOT_ADDED);
    assert_string_equal(plan.grants[2].path, "C:\\proj\\sub");
    assert_int_equal(plan.grants[2].kind, SBX_ROOT_WORKDIR);
    assert_string_equal(plan.grants[3].path, "C:\\Temp");
    assert_int_equal(plan.grants[3].kind, SBX_ROOT_TEMP);
    sbx_win_plan_free(&plan);
}

static void test_no_network_alone_grants_only_workdir_and_temp(void **state)
{
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(plan_for(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, &plan, &err),
                     SANDBOX_OK);
    assert_true(plan.contained);
    assert_int_equal(plan.n_caps, 0);
    assert_int_equal(plan.n_grants, 2);
    assert_string_equal(plan.grants[0].path, "C:\\proj\\sub");
    assert_string_equal(plan.grants[1].path, "C:\\Temp");
    assert_true(plan.stricter); /* no project root, no added dir, no home */
    sbx_win_plan_free(&plan);
}

static void test_all_off_policy_plans_no_container(void **state)
{
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(plan_for(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED, &plan, &err),
                     SANDBOX_OK);
    assert_false(plan.contained);
    assert_int_equal(plan.n_caps, 0);
    assert_int_equal(plan.n_grants, 0);
    assert_string_equal(plan.command_line, "\"git.exe\" status");
    sbx_win_plan_free(&plan);
}

static void test_read_only_is_refused_as_not_kernel_enforced(void **state)
{
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(plan_for(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, &plan, &err),
                     SANDBOX_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "not kernel-enforced on Windows"));
}

static void test_internet_only_is_refused(void **state)
{
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(plan_for(SANDBOX_NETWORK_INTERNET_ONLY, SANDBOX_FS_CONFINED, &plan, &err),
                     SANDBOX_E_UNSUPPORTED);
    assert_non_null(strstr(err.message, "internet-only"));
}

static void test_grant_sddl_is_modify_inherited_by_files_and_dirs(void **state)
{
    sbx_buf b;
    char *s;
    (void)state;
    sbx_buf_init(&b);
    sbx_win_grant_sddl(&b, "S-1-15-2-11-22-33-44-55-66-77");
    s = sbx_buf_take(&b);
    assert_string_equal(s, "(A;OICI;0x1301bf;;;S-1-15-2-11-22-33-44-55-66-77)");
    free(s);
    /* Modify = generic read | write | execute | DELETE; never WRITE_DAC or
     * WRITE_OWNER, so the container cannot widen its own grant. */
    assert_int_equal(SBX_WIN_GRANT_MASK & 0x00040000u, 0);
    assert_int_equal(SBX_WIN_GRANT_MASK & 0x00080000u, 0);
    assert_int_equal(SBX_WIN_GRANT_MASK & 0x00010000u, 0x00010000u);
}

static void test_quoting_examples(void **state)
{
    const char *a1[] = {"C:\\Program Files\\x.exe", "plain", "two words", "", NULL};
    const char *a2[] = {"p", "a\\\\b", "end\\", "q\"uote", "\\\"", "tab\there", NULL};
    sandbox_error err;
    char *line;
    (void)state;
    line = sbx_win_command_line(a1, &err);
    assert_string_equal(line, "\"C:\\Program Files\\x.exe\" plain \"two words\" \"\"");
    free(line);
    line = sbx_win_command_line(a2, &err);
    assert_string_equal(line, "\"p\" a\\\\b end\\ \"q\\\"uote\" \"\\\\\\\"\" \"tab\there\"");
    free(line);
}

static void test_quoting_round_trips_fixed_cases(void **state)
{
    static const char *const cases[][6] = {
        {"prog", NULL},
        {"C:\\Program Files\\tool.exe", "a b", NULL},
        {"p", "", "x", "", NULL},
        {"p", "say \"hi\"", "\\", "a\\\\b", NULL},
        {"p", "trail\\", "trail two\\\\", "\\\"", NULL},
        {"p", "tab\there", "new\nline", "caf\xc3\xa9", NULL},
        {"C:\\dir with space\\", "\"\"", "\\\\server\\share", NULL},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_round_trip(cases[i]);
}

static void test_quoting_round_trips_random_arguments(void **state)
{
    static const char alphabet[] = "a \"\\\tb";
    unsigned long seed = 7;
    char args[4][14];
    const char *argv[6];
    int round, k, j;
    (void)state;
    for (round = 0; round < 2000; round++) {
        argv[0] = "prog";
        for (k = 0; k < 4; k++) {
            int len;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            len = (int)((seed >> 33) % 13);
            for (j = 0; j < len; j++) {
                seed = seed * 6364136223846793005ull + 1442695040888963407ull;
                args[k][j] = alphabet[(seed >> 33) % (sizeof alphabet - 1)];
            }
            args[k][len] = '\0';
            argv[k + 1] = args[k];
        }
        argv[5] = NULL;
        assert_round_trip(argv);
    }
}

static void test_program_name_with_a_quote_is_rejected(void **state)
{
    const char *argv[] = {"a\"b", "x", NULL};
    sandbox_error err;
    (void)state;
    assert_null(sbx_win_command_line(argv, &err));
    assert_int_equal(err.code, SANDBOX_E_INVALID);
}

static void test_explain_json_for_windows(void **state)
{
    const char *argv[] = {"git.exe", "commit", "-m", "a \"msg\"", NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED);
    sandbox_error err;
    char *out = NULL;
    (void)state;
    assert_int_equal(sandbox_explain(p, argv, SANDBOX_TARGET_WINDOWS, 1, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "{\"target\":\"windows\""));
    assert_non_null(strstr(out, "\"capabilities\":[{\"name\":\"internetClient\",\"sid\":\"S-1-15-3-1\"}"));
    assert_non_null(strstr(out, "\"grants\":[{\"kind\":\"project\",\"path\":\"C:\\\\proj\",\"sddl\":\"(A;OICI;0x1301bf;;;"));
    assert_non_null(strstr(out, "\"command_line\":\"\\\"git.exe\\\" commit -m \\\"a \\\\\\\"msg\\\\\\\"\\\"\""));
    assert_non_null(strstr(out, "\"argv\":[\"git.exe\",\"commit\",\"-m\",\"a \\\"msg\\\"\"]"));
    sandbox_free(out);
    assert_int_equal(sandbox_explain(p, argv, SANDBOX_TARGET_WINDOWS, 0, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "internetClient (S-1-15-3-1)"));
    sandbox_free(out);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_READ_ONLY);
    assert_int_equal(sandbox_explain(p, argv, SANDBOX_TARGET_WINDOWS, 1, &out, &err),
                     SANDBOX_E_UNSUPPORTED);
    assert_null(out);
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_network_deny_has_no_network_capability),
        cmocka_unit_test(test_confine_fs_alone_grants_back_the_three_network_capabilities),
        cmocka_unit_test(test_confined_grants_project_added_workdir_temp_without_duplicates),
        cmocka_unit_test(test_no_network_alone_grants_only_workdir_and_temp),
        cmocka_unit_test(test_all_off_policy_plans_no_container),
        cmocka_unit_test(test_read_only_is_refused_as_not_kernel_enforced),
        cmocka_unit_test(test_internet_only_is_refused),
        cmocka_unit_test(test_grant_sddl_is_modify_inherited_by_files_and_dirs),
        cmocka_unit_test(test_quoting_examples),
        cmocka_unit_test(test_quoting_round_trips_fixed_cases),
        cmocka_unit_test(test_quoting_round_trips_random_arguments),
        cmocka_unit_test(test_program_name_with_a_quote_is_rejected),
        cmocka_unit_test(test_explain_json_for_windows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
