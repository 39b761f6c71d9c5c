/* The AppContainer plan and command-line quoting, on Windows (or wine):
 * quoting is checked against the system's own CommandLineToArgvW. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>

#include "harness.h"
#include "internal.h"
#include "windows/plan.h"

static sandbox_policy *policy(int net, int fs)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_policy_set_network(p, net);
    sandbox_policy_set_filesystem(p, fs);
    sandbox_policy_set_project_root(p, "C:\\proj");
    sandbox_policy_set_working_dir(p, "C:\\proj\\sub");
    sandbox_policy_set_temp_dir(p, "C:\\Temp");
    sandbox_policy_add_writable_dir(p, "D:\\extra");
    return p;
}

static int plan_for(int net, int fs, sbx_win_plan *plan)
{
    const char *argv[] = {"cmd.exe", "/c", "echo hi", NULL};
    sandbox_policy *p = policy(net, fs);
    sbx_resolved r;
    sandbox_error err;
    int rc = sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err);
    if (rc == SANDBOX_OK) {
        rc = sbx_win_plan_build(&r, argv, plan, &err);
        sbx_resolved_free(&r);
    }
    sandbox_policy_free(p);
    return rc;
}

static void test_network_deny_attaches_no_capability(struct sbx_harness *h)
{
    sbx_win_plan plan;
    CHECK_INT(h, plan_for(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, &plan), SANDBOX_OK);
    CHECK_INT(h, plan.contained, 1);
    CHECK_INT(h, plan.n_caps, 0);
    CHECK_INT(h, plan.n_grants, 4);
    CHECK_INT(h, plan.loopback_wanted, 1);
    sbx_win_plan_free(&plan);
}

static void test_confine_fs_alone_grants_back_all_three_capabilities(struct sbx_harness *h)
{
    sbx_win_plan plan;
    CHECK_INT(h, plan_for(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, &plan), SANDBOX_OK);
    CHECK_INT(h, plan.n_caps, 3);
    CHECK_STR(h, sbx_win_cap_sid(plan.caps[0]), "S-1-15-3-1");
    CHECK_STR(h, sbx_win_cap_sid(plan.caps[1]), "S-1-15-3-2");
    CHECK_STR(h, sbx_win_cap_sid(plan.caps[2]), "S-1-15-3-3");
    CHECK_INT(h, plan.stricter, 0);
    sbx_win_plan_free(&plan);
}

static void test_no_network_alone_grants_workdir_and_temp_only(struct sbx_harness *h)
{
    sbx_win_plan plan;
    CHECK_INT(h, plan_for(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, &plan), SANDBOX_OK);
    CHECK_INT(h, plan.n_grants, 2);
    if (plan.n_grants == 2) {
        CHECK_STR(h, plan.grants[0].path, "C:\\proj\\sub");
        CHECK_STR(h, plan.grants[1].path, "C:\\Temp");
    }
    CHECK_INT(h, plan.stricter, 1);
    sbx_win_plan_free(&plan);
}

static void test_read_only_and_internet_only_are_refused(struct sbx_harness *h)
{
    sbx_win_plan plan;
    CHECK_INT(h, plan_for(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, &plan),
              SANDBOX_E_UNSUPPORTED);
    CHECK_INT(h, plan_for(SANDBOX_NETWORK_INTERNET_ONLY, SANDBOX_FS_CONFINED, &plan),
              SANDBOX_E_UNSUPPORTED);
}

static void test_grant_sddl_names_modify_rights_inherited(struct sbx_harness *h)
{
    sbx_buf b;
    char *s;
    sbx_buf_init(&b);
    sbx_win_grant_sddl(&b, "S-1-15-2-1-2-3-4-5-6-7");
    s = sbx_buf_take(&b);
    CHECK_STR(h, s, "(A;OICI;0x1301bf;;;S-1-15-2-1-2-3-4-5-6-7)");
    free(s);
}

/* Build the line, parse it back with CommandLineToArgvW, compare. */
static int round_trips(const char *const argv[])
{
    sandbox_error err;
    char *line = sbx_win_command_line(argv, &err);
    wchar_t wline[4096];
    wchar_t **back;
    int n = 0, i, ok = 1;
    if (!line || !MultiByteToWideChar(CP_UTF8, 0, line, -1, wline, 4096)) {
        free(line);
        return 0;
    }
    back = CommandLineToArgvW(wline, &n);
    for (i = 0; argv[i]; i++) {
        char got[4096];
        if (i >= n || !WideCharToMultiByte(CP_UTF8, 0, back[i], -1, got, sizeof got, NULL, NULL) ||
            strcmp(got, argv[i]) != 0) {
            printf("    mismatch at %d for line [%s]\n", i, line);
            ok = 0;
            break;
        }
    }
    if (ok && n != i) {
        printf("    %d arguments came back for %d in [%s]\n", n, i, line);
        ok = 0;
    }
    LocalFree(back);
    free(line);
    return ok;
}

static void test_quoting_round_trips_through_CommandLineToArgvW(struct sbx_harness *h)
{
    static const char *const cases[][6] = {
        {"prog", NULL},
        {"C:\\Program Files\\tool.exe", "a b", NULL},
        {"p", "", "x", NULL},
        {"p", "say \"hi\"", "\\", "a\\\\b", NULL},
        {"p", "trail\\", "trail two\\\\", "\\\"", NULL},
        {"p", "tab\there", "new\nline", "caf\xc3\xa9", NULL},
        {"C:\\dir with space\\", "\"\"", "\\\\server\\share", NULL},
    };
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(h, round_trips(cases[i]));
}

static void test_quoting_round_trips_random_arguments(struct sbx_harness *h)
{
    static const char alphabet[] = "a \"\\\tb";
    unsigned long state = 12345;
    char args[4][12];
    const char *argv[6];
    int round, k, j, bad = 0;
    for (round = 0; round < 400; round++) {
        argv[0] = "prog";
        for (k = 0; k < 4; k++) {
            int len;
            state = state * 1103515245ul + 12345ul;
            len = (int)((state >> 16) % 11);
            for (j = 0; j < len; j++) {
                state = state * 1103515245ul + 12345ul;
                args[k][j] = alphabet[(state >> 16) % (sizeof alphabet - 1)];
            }
            args[k][len] = '\0';
            argv[k + 1] = args[k];
        }
        argv[5] = NULL;
        if (!round_trips(argv))
            bad++;
    }
    CHECK_INT(h, bad, 0);
}

static void test_program_name_with_quote_is_rejected(struct sbx_harness *h)
{
    const char *argv[] = {"bad\"name", NULL};
    sandbox_error err;
    CHECK(h, sbx_win_command_line(argv, &err) == NULL);
    CHECK_INT(h, err.code, SANDBOX_E_INVALID);
}

static void test_explain_json_has_the_plan(struct sbx_harness *h)
{
    const char *argv[] = {"cmd.exe", "/c", "echo hi", NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    sandbox_error err;
    char *out = NULL;
    CHECK_INT(h, sandbox_explain(p, argv, SANDBOX_TARGET_HOST, 1, &out, &err), SANDBOX_OK);
    CHECK(h, out && strstr(out, "\"target\":\"windows\""));
    CHECK(h, out && strstr(out, "\"capabilities\":[]"));
    CHECK(h, out && strstr(out, "\"grants\":[{\"kind\":\"project\""));
    CHECK(h, out && strstr(out, "\"command_line\":\"\\\"cmd.exe\\\" /c \\\"echo hi\\\"\""));
    CHECK(h, out && strstr(out, "\"argv\":[\"cmd.exe\",\"/c\",\"echo hi\"]"));
    sandbox_free(out);
    sandbox_policy_free(p);
}

static void test_enforce_points_to_spawn(struct sbx_harness *h)
{
    const char *argv[] = {"cmd.exe", NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    sandbox_result r;
    CHECK_INT(h, sandbox_enforce(p, argv, &r), SANDBOX_E_UNSUPPORTED);
    CHECK(h, strstr(r.error.message, "sandbox_spawn") != NULL);
    sandbox_policy_free(p);
}

static void test_self_test_says_read_only_is_not_enforced(struct sbx_harness *h)
{
    sandbox_report rep;
    CHECK_INT(h, sandbox_self_test(&rep), SANDBOX_OK);
    CHECK_STR(h, rep.platform, "windows");
    CHECK_INT(h, rep.read_only.available, 0);
    CHECK(h, strstr(rep.read_only.detail, "not kernel-enforced") != NULL);
    CHECK_STR(h, rep.network.mechanism, "appcontainer");
}


/* The real lister (FindFirstFileExW) walks a real tree: the matches, the
 * parents up to the root, nothing beneath a match, nothing unprotected. */
static void touch(const char *path)
{
    HANDLE f = CreateFileA(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    if (f != INVALID_HANDLE_VALUE)
        CloseHandle(f);
}

static const struct sbx_win_deny *deny_for(const sbx_win_plan *plan, const char *path)
{
    size_t i;
    for (i = 0; i < plan->n_denies; i++)
        if (_stricmp(plan->denies[i].path, path) == 0)
            return &plan->denies[i];
    return NULL;
}

static void test_protect_walk_on_this_file_system(struct sbx_harness *h)
{
    char t[MAX_PATH], root[MAX_PATH], p[8][MAX_PATH];
    const char *argv[] = {"cmd.exe", NULL};
    sandbox_policy *pol = sandbox_policy_new();
    struct sbx_win_fs fs;
    const struct sbx_win_deny *d;
    sbx_win_plan plan;
    sbx_resolved r;
    sandbox_error err;
    int i;
    GetTempPathA(sizeof t, t);
    snprintf(root, sizeof root, "%ssbx-walk-%lu", t, (unsigned long)GetCurrentProcessId());
    snprintf(p[0], MAX_PATH, "%s\\.env", root);
    snprintf(p[1], MAX_PATH, "%s\\conf", root);
    snprintf(p[2], MAX_PATH, "%s\\conf\\.ENV.local", root);
    snprintf(p[3], MAX_PATH, "%s\\.git", root);
    snprintf(p[4], MAX_PATH, "%s\\.git\\config", root);
    snprintf(p[5], MAX_PATH, "%s\\env.md", root);
    snprintf(p[6], MAX_PATH, "%s\\keys", root);
    snprintf(p[7], MAX_PATH, "%s\\keys\\server.pem", root);
    CreateDirectoryA(root, NULL);
    CreateDirectoryA(p[1], NULL);
    CreateDirectoryA(p[3], NULL);
    CreateDirectoryA(p[6], NULL);
    touch(p[0]);
    touch(p[2]);
    touch(p[4]);
    touch(p[5]);
    touch(p[7]);
    sandbox_policy_set_network(pol, SANDBOX_NETWORK_DENY);
    sandbox_policy_set_filesystem(pol, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(pol, root);
    sandbox_policy_set_working_dir(pol, root);
    sandbox_policy_set_temp_dir(pol, root);
    sandbox_policy_protect_defaults(pol);
    sbx_win_fs_host(&fs);
    CHECK_INT(h, sbx_resolve(pol, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    CHECK_INT(h, sbx_win_plan_build(&r, argv, &plan, &err), SANDBOX_OK);
    CHECK_INT(h, sbx_win_plan_protect(&r, &fs, &plan, &err), SANDBOX_OK);
    d = deny_for(&plan, p[0]);
    CHECK(h, d && d->kind == SBX_WIN_DENY_ALL && !d->is_dir);
    d = deny_for(&plan, p[2]);
    CHECK(h, d && d->kind == SBX_WIN_DENY_ALL);
    d = deny_for(&plan, p[3]);
    CHECK(h, d && d->kind == SBX_WIN_DENY_WRITE && d->is_dir);
    d = deny_for(&plan, p[7]);
    CHECK(h, d && d->kind == SBX_WIN_DENY_ALL);
    d = deny_for(&plan, p[1]);
    CHECK(h, d && d->kind == SBX_WIN_DENY_PARENT);
    d = deny_for(&plan, root);
    CHECK(h, d && d->kind == SBX_WIN_DENY_PARENT);
    CHECK(h, deny_for(&plan, p[4]) == NULL); /* beneath .git: inherited, not walked */
    CHECK(h, deny_for(&plan, p[5]) == NULL);
    printf("    %lu deny ACEs planned\n", (unsigned long)plan.n_denies);
    sbx_win_plan_free(&plan);
    sbx_resolved_free(&r);
    sandbox_policy_free(pol);
    for (i = 7; i >= 0; i--)
        if (!DeleteFileA(p[i]))
            RemoveDirectoryA(p[i]);
    RemoveDirectoryA(root);
}

int main(void)
{
    struct sbx_harness h = {0, 0, 0};
    RUN(&h, test_network_deny_attaches_no_capability);
    RUN(&h, test_confine_fs_alone_grants_back_all_three_capabilities);
    RUN(&h, test_no_network_alone_grants_workdir_and_temp_only);
    RUN(&h, test_read_only_and_internet_only_are_refused);
    RUN(&h, test_grant_sddl_names_modify_rights_inherited);
    RUN(&h, test_quoting_round_trips_through_CommandLineToArgvW);
    RUN(&h, test_quoting_round_trips_random_arguments);
    RUN(&h, test_program_name_with_quote_is_rejected);
    RUN(&h, test_explain_json_has_the_plan);
    RUN(&h, test_enforce_points_to_spawn);
    RUN(&h, test_self_test_says_read_only_is_not_enforced);
    RUN(&h, test_protect_walk_on_this_file_system);
    return sbx_harness_finish(&h);
}
