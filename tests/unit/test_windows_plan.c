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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "windows/apply.h"
#include "windows/plan.h"

#include "../common/argvw.h"

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
    assert_true(plan.loopback_wanted); /* localhost is spared */
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
    /* Loopback is never claimed: it needs an administrator. */
    assert_non_null(strstr(out, "\"loopback_exempt\":false,\"loopback\":\"needs an exemption an "
                                "administrator grants"));
    assert_non_null(strstr(out, "App Execution Aliases (%LOCALAPPDATA%\\\\Microsoft\\\\WindowsApps"));
    sandbox_free(out);
    assert_int_equal(sandbox_explain(p, argv, SANDBOX_TARGET_WINDOWS, 0, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "internetClient (S-1-15-3-1)"));
    assert_non_null(strstr(out, "loopback: needs an exemption an administrator grants"));
    assert_null(strstr(out, "exempted for the container"));
    assert_non_null(strstr(out, "PATHEXT (npm runs npm.cmd)"));
    sandbox_free(out);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_READ_ONLY);
    assert_int_equal(sandbox_explain(p, argv, SANDBOX_TARGET_WINDOWS, 1, &out, &err),
                     SANDBOX_E_UNSUPPORTED);
    assert_null(out);
    sandbox_policy_free(p);
}

/* ---- protected paths: deny ACEs ---- */

/* A fake file system: a fixed table, looked up by exact path. */
struct fake_entry {
    const char *path;
    int is_dir;
    unsigned long tag; /* reparse tag, 0 for none */
};

struct fake_fs {
    const struct fake_entry *e;
    size_t n;
    const char *unlistable; /* list() fails with -1 */
    const char *denied;     /* list() says access denied (1) */
    int listed;             /* how many list() calls */
    const char *vanished;   /* list() says it vanished (removed since its parent was read) */
    const char *alias[2];   /* two spellings same() says are one directory */
    int deep;               /* list() of anything under "C:\\deep" gives one subdirectory */
};

/* Case-folded text, or the one alias pair: an 8.3 name, a subst drive. */
static int fake_same(void *ctx, const char *a, const char *b)
{
    const struct fake_fs *f = ctx;
    if (strlen(a) == strlen(b) && sbx_strncasecmp_ascii(a, b, strlen(a)) == 0)
        return 1;
    if (f->alias[0] && ((strcmp(a, f->alias[0]) == 0 && strcmp(b, f->alias[1]) == 0) ||
                        (strcmp(a, f->alias[1]) == 0 && strcmp(b, f->alias[0]) == 0)))
        return 1;
    return 0;
}

static int fake_kind(void *ctx, const char *path)
{
    const struct fake_fs *f = ctx;
    size_t i;
    for (i = 0; i < f->n; i++)
        if (strcmp(f->e[i].path, path) == 0)
            return f->e[i].is_dir ? 1 : 0;
    return -1;
}

static int fake_list(void *ctx, const char *dir,
                     int (*each)(void *arg, const char *name, int is_dir, unsigned long tag),
                     void *arg)
{
    struct fake_fs *f = ctx;
    size_t i, n = strlen(dir);
    int rc;
    f->listed++;
    if (f->deep && strncmp(dir, "C:\\deep", 7) == 0) {
        const char *c;
        int depth = 0;
        for (c = dir; *c; c++)
            depth += *c == '\\';
        return depth < f->deep ? each(arg, "d", 1, 0) : 0;
    }
    if (f->unlistable && strcmp(dir, f->unlistable) == 0)
        return -1;
    if (f->vanished && strcmp(dir, f->vanished) == 0)
        return SBX_WIN_LIST_VANISHED;
    if (f->denied && strcmp(dir, f->denied) == 0)
        return 1;
    for (i = 0; i < f->n; i++) {
        const char *p = f->e[i].path;
        if (strncmp(p, dir, n) == 0 && p[n] == '\\' && !strchr(p + n + 1, '\\')) {
            rc = each(arg, p + n + 1, f->e[i].is_dir, f->e[i].tag);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int posix_fake_list(void *ctx, const char *dir,
                           int (*each)(void *arg, const char *name, int is_dir, unsigned long tag),
                           void *arg)
{
    struct fake_fs *f = ctx;
    size_t i, n = strlen(dir);
    int rc;
    f->listed++;
    for (i = 0; i < f->n; i++) {
        const char *p = f->e[i].path;
        if (strncmp(p, dir, n) == 0 && p[n] == '/' && !strchr(p + n + 1, '/')) {
            rc = each(arg, p + n + 1, f->e[i].is_dir, f->e[i].tag);
            if (rc)
                return rc;
        }
    }
    return 0;
}

static const struct fake_entry tree[] = {
    {"C:\\proj", 1, 0},
    {"C:\\proj\\.env", 0, 0},
    {"C:\\proj\\env.md", 0, 0},
    {"C:\\proj\\main.c", 0, 0},
    {"C:\\proj\\conf", 1, 0},
    {"C:\\proj\\conf\\.env.local", 0, 0},
    {"C:\\proj\\sub", 1, 0},
    {"C:\\proj\\sub\\.ENV", 0, 0},
    {"C:\\proj\\keys", 1, 0},
    {"C:\\proj\\keys\\ID_RSA", 0, 0},
    {"C:\\proj\\keys\\id_rsa.pub", 0, 0},
    {"C:\\proj\\.git", 1, 0},
    {"C:\\proj\\.git\\config", 0, 0},
    {"C:\\proj\\.ssh", 1, 0},
    {"C:\\proj\\.ssh\\config", 0, 0},
    {"C:\\proj\\link", 1, SBX_WIN_TAG_MOUNT_POINT}, /* a junction: never followed */
    {"C:\\proj\\slink", 1, SBX_WIN_TAG_SYMLINK},    /* a directory symlink: neither */
    {"C:\\proj\\slink\\.env", 0, 0},
    {"C:\\proj\\OneDrive", 1, SBX_WIN_TAG_CLOUD}, /* a cloud placeholder: walked */
    {"C:\\proj\\OneDrive\\.env", 0, 0},
    {"C:\\proj\\link\\.env", 0, 0},
    {"C:\\Temp", 1, 0},
    {"C:\\Temp\\server.pem", 0, 0},
    {"C:\\Users\\me", 1, 0},
    {"C:\\Users\\me\\.ssh", 1, 0},
    {"C:\\Users\\me\\.config", 1, 0},
    {"C:\\Users\\me\\.config\\gh", 1, 0},
};

static sandbox_policy *protect_policy(int net, int fs)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    sandbox_policy_set_network(p, net);
    sandbox_policy_set_filesystem(p, fs);
    sandbox_policy_set_project_root(p, "C:\\proj");
    sandbox_policy_set_working_dir(p, "C:\\proj");
    sandbox_policy_set_temp_dir(p, "C:\\Temp");
    assert_int_equal(setenv("USERPROFILE", "C:\\Users\\me", 1), 0);
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    return p;
}

/* The plan for `p`, with the project root replaced by `project_as` when it
 * is not NULL: a spelling the resolution layer itself refuses (issue 16),
 * to test the plan's own second check behind it. */
static int protect_plan_as(sandbox_policy *p, struct fake_fs *f, sbx_win_plan *plan,
                           sandbox_error *err, const char *project_as);

static int protect_plan(sandbox_policy *p, struct fake_fs *f, sbx_win_plan *plan,
                        sandbox_error *err)
{
    return protect_plan_as(p, f, plan, err, NULL);
}

static int protect_plan_as(sandbox_policy *p, struct fake_fs *f, sbx_win_plan *plan,
                           sandbox_error *err, const char *project_as)
{
    const char *argv[] = {"cmd.exe", "/c", "type .env", NULL};
    struct sbx_win_fs fs;
    sbx_resolved r;
    int rc;
    fs.kind = fake_kind;
    fs.list = fake_list;
    fs.same = fake_same;
    fs.ctx = f;
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, err), SANDBOX_OK);
    if (project_as) {
        size_t i;
        for (i = 0; i < r.n_roots; i++)
            if (r.roots[i].kind == SBX_ROOT_PROJECT || r.roots[i].kind == SBX_ROOT_WORKDIR) {
                free(r.roots[i].path);
                r.roots[i].path = strdup(project_as);
                assert_non_null(r.roots[i].path);
            }
    }
    rc = sbx_win_plan_build(&r, argv, plan, err);
    if (rc == SANDBOX_OK)
        rc = sbx_win_plan_protect(&r, &fs, plan, err);
    sbx_resolved_free(&r);
    return rc;
}

static const struct sbx_win_deny *find_deny(const sbx_win_plan *plan, const char *path)
{
    size_t i;
    for (i = 0; i < plan->n_denies; i++)
        if (strcmp(plan->denies[i].path, path) == 0)
            return &plan->denies[i];
    return NULL;
}

static void expect_deny(const sbx_win_plan *plan, const char *path, const char *sddl)
{
    const struct sbx_win_deny *d = find_deny(plan, path);
    sbx_buf b;
    char *got;
    if (!d)
        fail_msg("no deny planned for %s", path);
    sbx_buf_init(&b);
    sbx_win_deny_sddl(&b, d, "S-1-15-2-1");
    got = sbx_buf_take(&b);
    assert_string_equal(got, sddl);
    free(got);
}

static void test_denies_for_existing_matches_and_their_parents(void **state)
{
    sandbox_policy *p = protect_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    struct fake_fs f = {tree, sizeof tree / sizeof tree[0], NULL, NULL, 0, NULL, {NULL, NULL}, 0};
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_OK);
    /* Secrets: every right, inherited below a directory. */
    expect_deny(&plan, "C:\\proj\\.env", "(D;;0x1f01ff;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\conf\\.env.local", "(D;;0x1f01ff;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\sub\\.ENV", "(D;;0x1f01ff;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\keys\\ID_RSA", "(D;;0x1f01ff;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\.ssh", "(D;OICI;0x1f01ff;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\Temp\\server.pem", "(D;;0x1f01ff;;;S-1-15-2-1)");
    /* .git: writes, deletes and ACL changes, inherited; never SYNCHRONIZE or
     * READ_CONTROL, which reads need. */
    expect_deny(&plan, "C:\\proj\\.git", "(D;OICI;0xd0156;;;S-1-15-2-1)");
    assert_int_equal(SBX_WIN_DENY_WRITE_MASK & 0x100000u, 0); /* SYNCHRONIZE */
    assert_int_equal(SBX_WIN_DENY_WRITE_MASK & 0x20000u, 0);  /* READ_CONTROL */
    assert_int_equal(SBX_WIN_DENY_WRITE_MASK & 0x1u, 0);      /* FILE_READ_DATA */
    /* Parents up to and including the root: DELETE, not inherited. */
    expect_deny(&plan, "C:\\proj", "(D;;0x10000;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\conf", "(D;;0x10000;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\sub", "(D;;0x10000;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\keys", "(D;;0x10000;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\Temp", "(D;;0x10000;;;S-1-15-2-1)");
    /* A cloud placeholder (not a name surrogate) is the folder itself: the
     * grant reaches it, so it is walked. */
    expect_deny(&plan, "C:\\proj\\OneDrive\\.env", "(D;;0x1f01ff;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\proj\\OneDrive", "(D;;0x10000;;;S-1-15-2-1)");
    /* Home paths: no grant reaches the profile, so no ACE is written there. */
    assert_null(find_deny(&plan, "C:\\Users\\me\\.ssh"));
    assert_null(find_deny(&plan, "C:\\Users\\me\\.config\\gh"));
    assert_null(find_deny(&plan, "C:\\Users\\me\\.config"));
    /* Not: unprotected names, anything beneath a match or behind a junction
     * or a symlink. */
    assert_null(find_deny(&plan, "C:\\proj\\env.md"));
    assert_null(find_deny(&plan, "C:\\proj\\main.c"));
    assert_null(find_deny(&plan, "C:\\proj\\keys\\id_rsa.pub"));
    assert_null(find_deny(&plan, "C:\\proj\\.git\\config"));
    assert_null(find_deny(&plan, "C:\\proj\\.ssh\\config"));
    assert_null(find_deny(&plan, "C:\\proj\\link\\.env"));
    assert_null(find_deny(&plan, "C:\\proj\\slink\\.env"));
    assert_int_equal(plan.n_denies, 14); /* 7 secrets, .git, 6 parents */
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_home_secrets_are_denied_only_where_a_grant_reaches(void **state)
{
    sandbox_policy *p = protect_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    struct fake_fs f = {tree, sizeof tree / sizeof tree[0], NULL, NULL, 0, NULL, {NULL, NULL}, 0};
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    /* A granted ~/.config exposes ~/.config\gh, not ~/.ssh. */
    sandbox_policy_add_writable_dir(p, "C:\\Users\\me\\.config");
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_OK);
    expect_deny(&plan, "C:\\Users\\me\\.config\\gh", "(D;OICI;0x1f01ff;;;S-1-15-2-1)");
    expect_deny(&plan, "C:\\Users\\me\\.config", "(D;;0x10000;;;S-1-15-2-1)");
    assert_null(find_deny(&plan, "C:\\Users\\me\\.ssh"));
    assert_null(find_deny(&plan, "C:\\Users\\me"));
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

/* Review of issue 22, finding 3: the grant reached the home by another
 * spelling (8.3 name), the text check said "not under a grant", and
 * ~/.npmrc went without its deny. */
static void test_home_secret_is_denied_when_a_grant_is_the_home_by_another_name(void **state)
{
    static const struct fake_entry home[] = {
        {"C:\\USERS\\ME~1", 1, 0}, {"C:\\Users\\me", 1, 0}, {"C:\\Users\\me\\.npmrc", 0, 0},
        {"C:\\Temp", 1, 0}};
    struct fake_fs f = {home, sizeof home / sizeof home[0], NULL, NULL, 0, NULL,
                        {"C:\\USERS\\ME~1", "C:\\Users\\me"}, 0};
    sandbox_policy *p = protect_policy(0, 1);
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    /* The resolution layer refuses the home by its 8.3 name (issue 16)... */
    sandbox_policy_set_project_root(p, "C:\\USERS\\ME~1");
    {
        sbx_resolved r;
        assert_int_not_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    }
    sandbox_policy_set_project_root(p, "C:\\proj");
    /* ...and the plan still denies behind it, by identity, if such a grant
     * ever reaches it. */
    assert_int_equal(protect_plan_as(p, &f, &plan, &err, "C:\\USERS\\ME~1"), SANDBOX_OK);
    assert_non_null(find_deny(&plan, "C:\\Users\\me\\.npmrc"));
    sbx_win_plan_free(&plan);
    /* A grant that is not the home (nor any ancestor) still adds no deny. */
    f.alias[0] = f.alias[1] = NULL;
    assert_int_equal(protect_plan_as(p, &f, &plan, &err, "C:\\USERS\\ME~1"), SANDBOX_OK);
    assert_null(find_deny(&plan, "C:\\Users\\me\\.npmrc"));
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

/* Finding 4: the walk recursed ~2 KB of stack per level; a tree 1,900
 * levels deep (made with \\?\ names) crashed the launcher with
 * STATUS_STACK_OVERFLOW instead of refusing. */
static void test_a_tree_5000_levels_deep_is_refused_cleanly(void **state)
{
    static const struct fake_entry deep[] = {{"C:\\deep", 1, 0}, {"C:\\Temp", 1, 0}};
    struct fake_fs f = {deep, 2, NULL, NULL, 0, NULL, {NULL, NULL}, 5000};
    sandbox_policy *p = protect_policy(0, 1);
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    sandbox_policy_set_project_root(p, "C:\\deep");
    sandbox_policy_set_working_dir(p, "C:\\deep");
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_E_SYSTEM);
    assert_non_null(strstr(err.message, "directories deep"));
    sbx_win_plan_free(&plan);
    /* Within the budget the walk goes to the bottom. */
    f.deep = 900;
    f.listed = 0;
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_OK);
    assert_true(f.listed >= 900);
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_reparse_tags_only_name_surrogates_are_links(void **state)
{
    (void)state;
    assert_true(sbx_win_reparse_is_link(SBX_WIN_TAG_MOUNT_POINT));
    assert_true(sbx_win_reparse_is_link(SBX_WIN_TAG_SYMLINK));
    assert_false(sbx_win_reparse_is_link(0x80000023ul)); /* AF_UNIX socket: not a surrogate */
    assert_false(sbx_win_reparse_is_link(SBX_WIN_TAG_CLOUD));
    assert_false(sbx_win_reparse_is_link(0x9000601Aul)); /* CLOUD_6 */
    assert_false(sbx_win_reparse_is_link(SBX_WIN_TAG_DEDUP));
    assert_false(sbx_win_reparse_is_link(0));
}

static void expect_long(const char *in, const char *want)
{
    char *got = sbx_win_long_path(in);
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

static void test_long_paths_get_the_verbatim_prefix(void **state)
{
    (void)state;
    expect_long("C:\\proj\\node_modules", "\\\\?\\C:\\proj\\node_modules");
    expect_long("c:/proj/a", "\\\\?\\c:\\proj\\a");
    expect_long("\\\\srv\\share\\p", "\\\\?\\UNC\\srv\\share\\p");
    expect_long("\\\\?\\C:\\x", "\\\\?\\C:\\x");       /* already verbatim */
    expect_long("\\\\.\\pipe\\x", "\\\\.\\pipe\\x");   /* a device path */
    expect_long("C:\\proj\\..\\x", "C:\\proj\\..\\x"); /* ".." must stay resolvable */
    expect_long("C:\\proj\\.\\x", "C:\\proj\\.\\x");
    expect_long("C:\\proj\\.git", "\\\\?\\C:\\proj\\.git"); /* a dot name is no "." */
    expect_long("rel\\x", "rel\\x");
    expect_long("/w/p", "/w/p"); /* POSIX (explain on Linux) */
}

static void test_vanished_directory_is_skipped_not_fatal(void **state)
{
    sandbox_policy *p = protect_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    struct fake_fs f = {tree, sizeof tree / sizeof tree[0], NULL, NULL, 0, "C:\\proj\\keys", {NULL, NULL}, 0};
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    /* A temp directory another program removes mid-walk must not refuse
     * every protected run; the rest of the walk still happens. */
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_OK);
    assert_null(find_deny(&plan, "C:\\proj\\keys\\ID_RSA"));
    assert_non_null(find_deny(&plan, "C:\\proj\\.env"));
    assert_non_null(find_deny(&plan, "C:\\Temp\\server.pem"));
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_protection_alone_needs_a_container(void **state)
{
    sandbox_policy *p = protect_policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED);
    struct fake_fs f = {tree, sizeof tree / sizeof tree[0], NULL, NULL, 0, NULL, {NULL, NULL}, 0};
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_OK);
    assert_true(plan.contained);
    assert_int_equal(plan.n_caps, 3);
    assert_true(plan.stricter);
    assert_non_null(find_deny(&plan, "C:\\proj\\.env"));
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_no_protection_walks_nothing(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    struct fake_fs f = {tree, sizeof tree / sizeof tree[0], NULL, NULL, 0, NULL, {NULL, NULL}, 0};
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_OK);
    assert_int_equal(plan.n_denies, 0);
    assert_int_equal(f.listed, 0);
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_unlistable_directory_fails_closed_access_denied_is_skipped(void **state)
{
    sandbox_policy *p = protect_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    struct fake_fs f = {tree, sizeof tree / sizeof tree[0], "C:\\proj\\keys", NULL, 0, NULL, {NULL, NULL}, 0};
    sbx_win_plan plan;
    sandbox_error err;
    (void)state;
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_E_SYSTEM);
    assert_non_null(strstr(err.message, "C:\\proj\\keys"));
    sbx_win_plan_free(&plan);
    /* Access denied: the container, which needs the user's access as well,
     * cannot open it either. */
    f.unlistable = NULL;
    f.denied = "C:\\proj\\keys";
    assert_int_equal(protect_plan(p, &f, &plan, &err), SANDBOX_OK);
    assert_null(find_deny(&plan, "C:\\proj\\keys\\ID_RSA"));
    assert_non_null(find_deny(&plan, "C:\\proj\\.env"));
    sbx_win_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_posix_paths_use_slash_only(void **state)
{
    /* --explain --target windows on Linux walks a POSIX tree: '/' separates
     * and the parents stop at the root. */
    static const struct fake_entry posix[] = {
        {"/w/p", 1, 0}, {"/w/p/a", 1, 0}, {"/w/p/a/.env", 0, 0}, {"/w/p/x\\.env", 0, 0},
    };
    struct fake_fs f = {posix, sizeof posix / sizeof posix[0], NULL, NULL, 0, NULL, {NULL, NULL}, 0};
    const char *argv[] = {"true", NULL};
    sandbox_policy *p = sandbox_policy_new();
    struct sbx_win_fs fs;
    sbx_win_plan plan;
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, "/w/p");
    sandbox_policy_set_working_dir(p, "/w/p");
    sandbox_policy_set_temp_dir(p, "/w/p");
    sandbox_policy_protect_defaults(p);
    fs.kind = fake_kind;
    fs.list = posix_fake_list;
    fs.same = NULL;
    fs.ctx = &f;
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    assert_int_equal(sbx_win_plan_build(&r, argv, &plan, &err), SANDBOX_OK);
    assert_int_equal(sbx_win_plan_protect(&r, &fs, &plan, &err), SANDBOX_OK);
    assert_non_null(find_deny(&plan, "/w/p/a/.env"));
    assert_non_null(find_deny(&plan, "/w/p/a"));
    assert_non_null(find_deny(&plan, "/w/p"));
    assert_null(find_deny(&plan, "/w/p/x\\.env")); /* one name on POSIX */
    assert_null(find_deny(&plan, "/w"));
    sbx_win_plan_free(&plan);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_explain_json_lists_denies(void **state)
{
    sandbox_policy *p = protect_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    const char *argv[] = {"cmd.exe", NULL};
    sandbox_error err;
    char *out = NULL;
    (void)state;
    /* C:\proj does not exist on this host: nothing to deny in it, but the
     * protected set and the key are there. */
    assert_int_equal(sandbox_explain(p, argv, SANDBOX_TARGET_WINDOWS, 1, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "\"denies\":["));
    assert_non_null(strstr(out, "\"protected_paths\":{\"blocked\":true,\"mechanism\":\"appcontainer+deny-aces\""));
    sandbox_free(out);
    sandbox_policy_free(p);
}


/* ---- ACL edits: the lock, the journal, partial failures (apply.c) ---- */

/* A fake DACL store shared by fake runs: per path, ACEs as "A:sid"/"D:sid". */
struct fake_file {
    char path[40];
    char ace[8][24];
    int n;
};
struct fake_store {
    struct fake_file f[8];
    int n;
    int held;                   /* the lock */
    struct fake_run *pending;   /* a run waiting for the lock */
};
struct fake_run {
    struct fake_store *store;
    const char *sid;
    int use_lock;               /* 0: the control, whose lock() takes nothing */
    const char *fail_path;      /* grant/deny on it fails with fail_err */
    unsigned fail_err;
    unsigned lock_err;
    int exposed;                /* what exposed() answers */
    const char *covered;        /* the path covered() says inherits the grant */
    struct fake_run *preempt;   /* runs (or queues) inside our first edit */
    const sbx_win_plan *plan;   /* what a preempting run applies */
    struct sbx_win_applied st;
    int rc;
    char trace[512];
};

static struct fake_file *ffile(struct fake_store *s, const char *path)
{
    int i;
    for (i = 0; i < s->n; i++)
        if (strcmp(s->f[i].path, path) == 0)
            return &s->f[i];
    return NULL;
}

static void tr(struct fake_run *r, const char *what, const char *path)
{
    sbx_warn(r->trace, sizeof r->trace, "%s %s", what, path);
}

static void run_apply(struct fake_run *r);

static unsigned f_lock(void *ctx)
{
    struct fake_run *r = ctx;
    if (r->lock_err)
        return r->lock_err;
    if (r->use_lock)
        r->store->held = 1;
    return 0;
}
static void f_unlock(void *ctx)
{
    struct fake_run *r = ctx;
    struct fake_run *next = r->store->pending;
    if (!r->use_lock)
        return;
    r->store->held = 0;
    if (next) { /* the waiter gets the lock now */
        r->store->pending = NULL;
        run_apply(next);
    }
}
static unsigned f_journal(void *ctx, const char *what, const char *path)
{
    struct fake_run *r = ctx;
    char w[32];
    snprintf(w, sizeof w, "journal-%s", what);
    tr(r, w, path);
    return 0;
}
/* A read-modify-write of path's ACE list, with a chance for another run to
 * cut in between the read and the write (as a second process would). */
static unsigned rmw(struct fake_run *r, const char *path, const char *add, const char *drop)
{
    struct fake_file *f = ffile(r->store, path), copy;
    int i;
    if (!f)
        return SBX_WIN_ERR_FILE_NOT_FOUND;
    copy = *f; /* read */
    if (r->preempt) {
        struct fake_run *o = r->preempt;
        r->preempt = NULL;
        if (r->store->held)
            r->store->pending = o; /* it waits for our lock */
        else
            run_apply(o); /* nothing stops it: it edits between our read and write */
    }
    if (drop) {
        int k = 0;
        for (i = 0; i < copy.n; i++)
            if (strcmp(copy.ace[i], drop) != 0)
                memcpy(copy.ace[k++], copy.ace[i], sizeof copy.ace[i]);
        copy.n = k;
    }
    if (add)
        snprintf(copy.ace[copy.n++], sizeof copy.ace[0], "%s", add);
    *f = copy; /* write */
    return 0;
}
static unsigned f_grant(void *ctx, const char *path)
{
    struct fake_run *r = ctx;
    char a[24];
    snprintf(a, sizeof a, "A:%s", r->sid);
    tr(r, "grant", path);
    if (r->fail_path && strcmp(r->fail_path, path) == 0)
        return r->fail_err;
    /* Propagation rewrites the root's first child too: C:\p\.env. */
    if (strcmp(path, "C:\\p") == 0 && ffile(r->store, "C:\\p\\.env")) {
        unsigned e = rmw(r, "C:\\p\\.env", NULL, NULL);
        if (e)
            return e;
    }
    return rmw(r, path, a, NULL);
}
static unsigned f_revoke(void *ctx, const char *path)
{
    struct fake_run *r = ctx;
    char a[24];
    snprintf(a, sizeof a, "A:%s", r->sid);
    tr(r, "revoke", path);
    rmw(r, path, NULL, a);
    return 0;
}
static unsigned f_deny(void *ctx, const struct sbx_win_deny *d)
{
    struct fake_run *r = ctx;
    char a[24];
    snprintf(a, sizeof a, "D:%s", r->sid);
    tr(r, "deny", d->path);
    if (r->fail_path && strcmp(r->fail_path, d->path) == 0)
        return r->fail_err;
    return rmw(r, d->path, a, NULL);
}
static unsigned f_undeny(void *ctx, const char *path)
{
    struct fake_run *r = ctx;
    char a[24];
    snprintf(a, sizeof a, "D:%s", r->sid);
    tr(r, "undeny", path);
    rmw(r, path, NULL, a);
    return 0;
}
static int f_exposed(void *ctx, const char *path)
{
    (void)path;
    return ((struct fake_run *)ctx)->exposed;
}
static int f_covered(void *ctx, const char *path)
{
    struct fake_run *r = ctx;
    tr(r, "covered?", path);
    return r->covered && strcmp(r->covered, path) == 0;
}

static void fake_ops(struct fake_run *r, struct sbx_win_ops *o)
{
    o->ctx = r;
    o->lock = f_lock;
    o->unlock = f_unlock;
    o->journal = f_journal;
    o->grant = f_grant;
    o->revoke = f_revoke;
    o->deny = f_deny;
    o->undeny = f_undeny;
    o->exposed = f_exposed;
    o->covered = f_covered;
}

static void run_apply(struct fake_run *r)
{
    struct sbx_win_ops o;
    sandbox_error err;
    fake_ops(r, &o);
    r->rc = sbx_win_apply_acls(r->plan, &o, &r->st, &err);
}

static int has_ace(struct fake_store *s, const char *path, const char *ace)
{
    struct fake_file *f = ffile(s, path);
    int i;
    for (i = 0; f && i < f->n; i++)
        if (strcmp(f->ace[i], ace) == 0)
            return 1;
    return 0;
}

/* Plans made by hand: grants and denies are plain data. */
static struct sbx_win_grant g_grants[] = {{"C:\\p", SBX_ROOT_PROJECT}, {"C:\\t", SBX_ROOT_TEMP}};
static struct sbx_win_deny g_denies[] = {{"C:\\p\\.env", SBX_WIN_DENY_ALL, 0},
                                         {"C:\\t\\gone.pem", SBX_WIN_DENY_ALL, 0},
                                         {"C:\\p", SBX_WIN_DENY_PARENT, 1}};

static void fake_plan(sbx_win_plan *p, size_t n_grants, size_t n_denies)
{
    memset(p, 0, sizeof *p);
    p->contained = 1;
    p->grants = g_grants;
    p->n_grants = n_grants;
    p->denies = g_denies;
    p->n_denies = n_denies;
}

static void fake_store_init(struct fake_store *s)
{
    memset(s, 0, sizeof *s);
    strcpy(s->f[0].path, "C:\\p");
    strcpy(s->f[1].path, "C:\\p\\.env");
    strcpy(s->f[2].path, "C:\\t");
    s->n = 3;
}

static void concurrent_deny_and_grant(int use_lock, struct fake_store *s)
{
    sbx_win_plan pa, pb;
    struct fake_run a, b;
    fake_store_init(s);
    fake_plan(&pa, 1, 0); /* run A: grants C:\p (propagating onto .env) */
    fake_plan(&pb, 0, 1); /* run B: denies C:\p\.env */
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.store = b.store = s;
    a.sid = "A";
    b.sid = "B";
    a.use_lock = b.use_lock = use_lock;
    a.plan = &pa;
    b.plan = &pb;
    a.preempt = &b; /* B cuts in while A's propagation has .env read */
    run_apply(&a);
    assert_int_equal(a.rc, SANDBOX_OK);
    assert_int_equal(b.rc, SANDBOX_OK);
    free(a.st.denied);
    free(b.st.denied);
    free(a.st.granted);
    free(b.st.granted);
}

static void test_acl_edits_hold_the_lock_so_a_concurrent_deny_survives(void **state)
{
    struct fake_store s;
    (void)state;
    concurrent_deny_and_grant(1, &s);
    assert_true(has_ace(&s, "C:\\p\\.env", "D:B"));
    assert_true(has_ace(&s, "C:\\p", "A:A"));
    /* The control: the same interleaving without the lock loses the deny,
     * which is the race the lock exists for (so this test can fail). */
    concurrent_deny_and_grant(0, &s);
    assert_false(has_ace(&s, "C:\\p\\.env", "D:B"));
}

static void new_run(struct fake_run *r, struct fake_store *s, const sbx_win_plan *p)
{
    memset(r, 0, sizeof *r);
    r->store = s;
    r->sid = "R";
    r->use_lock = 1;
    r->plan = p;
}

static void test_every_change_is_journaled_before_it_is_made(void **state)
{
    struct fake_store s;
    struct fake_run r;
    struct sbx_win_ops o;
    sbx_win_plan p;
    (void)state;
    fake_store_init(&s);
    fake_plan(&p, 2, 1);
    new_run(&r, &s, &p);
    run_apply(&r);
    assert_int_equal(r.rc, SANDBOX_OK);
    assert_string_equal(r.trace, "journal-grant C:\\p; grant C:\\p; journal-grant C:\\t; grant C:\\t; "
                                 "journal-deny C:\\p\\.env; deny C:\\p\\.env");
    assert_false(s.held);
    fake_ops(&r, &o);
    sbx_win_undo_acls(&p, &o, &r.st);
    assert_false(has_ace(&s, "C:\\p", "A:R"));
    assert_false(has_ace(&s, "C:\\t", "A:R"));
    assert_false(has_ace(&s, "C:\\p\\.env", "D:R"));
}

static void test_nested_root_that_inherits_the_grant_is_not_granted_twice(void **state)
{
    static struct sbx_win_grant nested[] = {{"C:\\p", SBX_ROOT_PROJECT},
                                            {"C:\\p\\sub", SBX_ROOT_WORKDIR},
                                            {"C:\\t", SBX_ROOT_TEMP}};
    struct fake_store s;
    struct fake_run r;
    struct sbx_win_ops o;
    sbx_win_plan p;
    (void)state;
    fake_store_init(&s);
    strcpy(s.f[3].path, "C:\\p\\sub");
    s.n = 4;
    fake_plan(&p, 0, 0);
    p.grants = nested;
    p.n_grants = 3;
    new_run(&r, &s, &p);
    r.covered = "C:\\p\\sub";
    run_apply(&r);
    assert_int_equal(r.rc, SANDBOX_OK);
    /* Only a nested root is asked about, and one that inherits is skipped. */
    assert_string_equal(r.trace, "journal-grant C:\\p; grant C:\\p; covered? C:\\p\\sub; "
                                 "journal-grant C:\\t; grant C:\\t");
    r.trace[0] = '\0';
    fake_ops(&r, &o);
    sbx_win_undo_acls(&p, &o, &r.st);
    assert_string_equal(r.trace, "revoke C:\\t; revoke C:\\p");
    /* One that does not inherit it (a protected DACL) is granted itself. */
    fake_store_init(&s);
    strcpy(s.f[3].path, "C:\\p\\sub");
    s.n = 4;
    new_run(&r, &s, &p);
    run_apply(&r);
    assert_true(has_ace(&s, "C:\\p\\sub", "A:R"));
    fake_ops(&r, &o);
    sbx_win_undo_acls(&p, &o, &r.st);
    assert_false(has_ace(&s, "C:\\p\\sub", "A:R"));
}

static void test_failed_grant_is_revoked_too_with_every_earlier_one(void **state)
{
    struct fake_store s;
    struct fake_run r;
    sbx_win_plan p;
    (void)state;
    fake_store_init(&s);
    fake_plan(&p, 2, 1);
    new_run(&r, &s, &p);
    r.fail_path = "C:\\t";
    r.fail_err = 1336; /* ERROR_INVALID_ACL: a failure part-way through propagation */
    run_apply(&r);
    assert_int_equal(r.rc, SANDBOX_E_SYSTEM);
    /* C:\t may hold part of the ACE: revoked as well, then C:\p; no deny tried. */
    assert_non_null(strstr(r.trace, "grant C:\\t; revoke C:\\t; revoke C:\\p"));
    assert_null(strstr(r.trace, "deny"));
    assert_false(has_ace(&s, "C:\\p", "A:R"));
}

static void test_vanished_deny_target_is_skipped_not_fatal(void **state)
{
    struct fake_store s;
    struct fake_run r;
    sbx_win_plan p;
    (void)state;
    fake_store_init(&s); /* C:\t\gone.pem is not in the store */
    fake_plan(&p, 2, 3);
    new_run(&r, &s, &p);
    run_apply(&r);
    assert_int_equal(r.rc, SANDBOX_OK);
    assert_int_equal(r.st.n_skipped, 1);
    assert_true(has_ace(&s, "C:\\p\\.env", "D:R"));
    assert_true(has_ace(&s, "C:\\p", "D:R")); /* the deny after it is still set */
    free(r.st.denied);
    free(r.st.granted);
}

static void test_unchangeable_dacl_is_skipped_only_when_the_container_cannot_open_it(void **state)
{
    struct fake_store s;
    struct fake_run r;
    sbx_win_plan p;
    int exposed;
    (void)state;
    for (exposed = -1; exposed <= 1; exposed++) {
        fake_store_init(&s);
        fake_plan(&p, 2, 1);
        new_run(&r, &s, &p);
        r.fail_path = "C:\\p\\.env";
        r.fail_err = SBX_WIN_ERR_ACCESS_DENIED;
        r.exposed = exposed;
        run_apply(&r);
        if (exposed == 0) {
            /* No grant could reach it either: nothing to protect, no error. */
            assert_int_equal(r.rc, SANDBOX_OK);
            assert_int_equal(r.st.n_skipped, 1);
            free(r.st.denied);
            free(r.st.granted);
        } else {
            /* Readable by the container, or unknown: fail closed, undo all. */
            assert_int_equal(r.rc, SANDBOX_E_SYSTEM);
            assert_false(has_ace(&s, "C:\\p", "A:R"));
            assert_false(has_ace(&s, "C:\\t", "A:R"));
        }
    }
}

/* Review of issue 22, finding 5: undo ignored failures, and the journal
 * that would have swept what was left was deleted. */
static void test_undo_that_cannot_take_the_lock_returns_the_error_and_leaves_the_aces(void **state)
{
    struct fake_store s;
    struct fake_run r;
    struct sbx_win_ops o;
    sbx_win_plan p;
    (void)state;
    fake_store_init(&s);
    fake_plan(&p, 2, 1);
    new_run(&r, &s, &p);
    run_apply(&r);
    assert_int_equal(r.rc, SANDBOX_OK);
    r.lock_err = SBX_WIN_ERR_TIMEOUT;
    fake_ops(&r, &o);
    assert_int_equal(sbx_win_undo_acls(&p, &o, &r.st), SBX_WIN_ERR_TIMEOUT);
    /* Still there, and journaled: the caller keeps the journal for the sweep. */
    assert_true(has_ace(&s, "C:\\p", "A:R"));
    assert_true(has_ace(&s, "C:\\p\\.env", "D:R"));
    assert_non_null(strstr(r.trace, "journal-grant C:\\p;"));
    assert_non_null(strstr(r.trace, "journal-deny C:\\p\\.env"));
}

/* Finding 7: a directory whose DACL cannot be changed was skipped when
 * its own DACL showed no container ACE, though files inside may have
 * received the grant; and S-1-15-2-2 / capability SIDs were not counted. */
static void test_unchangeable_directory_under_a_grant_refuses_the_run(void **state)
{
    static struct sbx_win_deny dir_deny[] = {{"C:\\p\\.ssh", SBX_WIN_DENY_ALL, 1}};
    struct fake_store s;
    struct fake_run r;
    sbx_win_plan p;
    (void)state;
    fake_store_init(&s);
    fake_plan(&p, 2, 0);
    p.denies = dir_deny;
    p.n_denies = 1;
    new_run(&r, &s, &p);
    r.fail_path = "C:\\p\\.ssh";
    r.fail_err = SBX_WIN_ERR_ACCESS_DENIED;
    r.exposed = 0;
    run_apply(&r);
    assert_int_equal(r.rc, SANDBOX_E_SYSTEM);
    assert_false(has_ace(&s, "C:\\p", "A:R"));
    assert_true(sbx_win_sid_may_reach_container("S-1-15-2-2", "S-1-15-2-9-8-7-6-5-4-3"));
    assert_true(sbx_win_sid_may_reach_container("S-1-15-2-1", "S-1-15-2-9-8-7-6-5-4-3"));
    assert_true(sbx_win_sid_may_reach_container("S-1-15-3-1", "S-1-15-2-9-8-7-6-5-4-3"));
    assert_true(sbx_win_sid_may_reach_container("S-1-15-3-1024-1-2", NULL));
    assert_true(sbx_win_sid_may_reach_container("s-1-15-2-9-8-7-6-5-4-3", "S-1-15-2-9-8-7-6-5-4-3"));
    assert_false(sbx_win_sid_may_reach_container("S-1-5-21-1-2-3-1001", "S-1-15-2-9-8-7-6-5-4-3"));
    assert_false(sbx_win_sid_may_reach_container("S-1-1-0", "S-1-15-2-9-8-7-6-5-4-3"));
}

static void test_lock_timeout_fails_closed_and_changes_nothing(void **state)
{
    struct fake_store s;
    struct fake_run r;
    sbx_win_plan p;
    struct sbx_win_ops o;
    sandbox_error err;
    (void)state;
    fake_store_init(&s);
    fake_plan(&p, 2, 1);
    new_run(&r, &s, &p);
    r.lock_err = SBX_WIN_ERR_TIMEOUT;
    fake_ops(&r, &o);
    assert_int_equal(sbx_win_apply_acls(&p, &o, &r.st, &err), SANDBOX_E_SYSTEM);
    assert_non_null(strstr(err.message, "ACL lock"));
    assert_string_equal(r.trace, "");
}

/* ---- the journal and the sweep ---- */

struct sweep_log {
    char trace[512];
    unsigned purge_err;
    int locked;
};
static unsigned s_lock(void *ctx)
{
    ((struct sweep_log *)ctx)->locked++;
    return 0;
}
static void s_unlock(void *ctx)
{
    ((struct sweep_log *)ctx)->locked--;
}
static unsigned s_purge(void *ctx, const char *path, const char *sid)
{
    struct sweep_log *l = ctx;
    assert_int_equal(l->locked, 1); /* purges are DACL edits: under the lock */
    sbx_warn(l->trace, sizeof l->trace, "purge %s %s", path, sid);
    return strstr(path, "gone") ? SBX_WIN_ERR_PATH_NOT_FOUND : l->purge_err;
}
static unsigned s_unloopback(void *ctx, const char *sid)
{
    struct sweep_log *l = ctx;
    assert_int_equal(l->locked, 1);
    sbx_warn(l->trace, sizeof l->trace, "unloopback %s", sid);
    return 0;
}
static unsigned s_unprofile(void *ctx, const char *profile)
{
    struct sweep_log *l = ctx;
    sbx_warn(l->trace, sizeof l->trace, "unprofile %s", profile);
    return 0;
}

/* Windows derives a container's SID from its profile name (SHA-256 of it);
 * the fake knows two. */
static unsigned s_derive(void *ctx, const char *profile, char *out, size_t size)
{
    (void)ctx;
    snprintf(out, size, "%s",
             strcmp(profile, "libsandbox.1.2.3") == 0 ? "S-1-15-2-9-8-7-6-5-4-3"
                                                      : "S-1-15-2-1-1-1-1-1-1-1");
    return 0;
}

static void test_journal_round_trip_and_sweep_undoes_everything(void **state)
{
    struct sbx_win_journal j;
    struct sbx_win_sweep_ops o = {NULL,         s_lock,       s_unlock, s_purge,
                                  s_unloopback, s_unprofile, s_derive};
    struct sweep_log log;
    sandbox_error err;
    sbx_buf b;
    char *text;
    (void)state;
    sbx_buf_init(&b);
    sbx_win_journal_line(&b, "sbx-journal", "1");
    sbx_win_journal_line(&b, "profile", "libsandbox.1.2.3");
    sbx_win_journal_line(&b, "sid", "S-1-15-2-9-8-7-6-5-4-3");
    sbx_win_journal_line(&b, "grant", "C:\\p q");
    sbx_win_journal_line(&b, "deny", "C:\\p q\\.env");
    sbx_win_journal_line(&b, "grant", "C:\\p q"); /* twice: one purge */
    sbx_win_journal_line(&b, "deny", "C:\\gone");
    sbx_win_journal_line(&b, "loopback", NULL);
    sbx_buf_add(&b, "deny C:\\torn"); /* a torn last record: never made */
    text = sbx_buf_take(&b);
    assert_int_equal(sbx_win_journal_parse(text, &j, &err), SANDBOX_OK);
    assert_string_equal(j.profile, "libsandbox.1.2.3");
    assert_string_equal(j.sid, "S-1-15-2-9-8-7-6-5-4-3");
    assert_int_equal(j.n_paths, 3);
    assert_true(j.loopback);
    memset(&log, 0, sizeof log);
    o.ctx = &log;
    /* A path that no longer exists counts as undone. */
    assert_int_equal(sbx_win_sweep(&j, "libsandbox.1.2.3.journal", &o), 0);
    assert_string_equal(log.trace, "purge C:\\p q S-1-15-2-9-8-7-6-5-4-3; "
                                   "purge C:\\p q\\.env S-1-15-2-9-8-7-6-5-4-3; "
                                   "purge C:\\gone S-1-15-2-9-8-7-6-5-4-3; "
                                   "unloopback S-1-15-2-9-8-7-6-5-4-3; unprofile libsandbox.1.2.3");
    /* A purge that fails keeps the journal (and the profile) for next time. */
    memset(&log, 0, sizeof log);
    log.purge_err = SBX_WIN_ERR_ACCESS_DENIED;
    assert_int_equal(sbx_win_sweep(&j, "libsandbox.1.2.3.journal", &o), SBX_WIN_ERR_ACCESS_DENIED);
    assert_null(strstr(log.trace, "unprofile"));
    assert_int_equal(log.locked, 0);
    sbx_win_journal_free(&j);
    free(text);
    assert_int_equal(sbx_win_journal_parse("garbage\n", &j, &err), SANDBOX_E_INVALID);
    assert_int_equal(sbx_win_journal_parse("", &j, &err), SANDBOX_E_INVALID);
    /* Crashed before the SID: only the profile is left to delete. */
    assert_int_equal(sbx_win_journal_parse("sbx-journal 1\nprofile libsandbox.x\n", &j, &err),
                     SANDBOX_OK);
    memset(&log, 0, sizeof log);
    assert_int_equal(sbx_win_sweep(&j, "libsandbox.x.journal", &o), 0);
    assert_string_equal(log.trace, "unprofile libsandbox.x");
    sbx_win_journal_free(&j);
}

static void test_sweep_acts_only_on_per_run_container_sids(void **state)
{
    static const char *const bad[] = {
        "S-1-5-21-1-2-3-1001", /* the user: its ACEs must never be stripped */
        "S-1-1-0",             /* Everyone */
        "S-1-15-2-1",          /* ALL APPLICATION PACKAGES */
        "S-1-15-2-1-2-3-4-5-6", "S-1-15-2-1-2-3-4-5-6-7-8", "S-1-15-2-1-2-3-4-5-6-x",
        "S-1-15-2-1-2-3-4-5-6-7-", NULL};
    struct sbx_win_sweep_ops o = {NULL,         s_lock,       s_unlock, s_purge,
                                  s_unloopback, s_unprofile, s_derive};
    struct sbx_win_journal j;
    struct sweep_log log;
    sandbox_error err;
    char text[200];
    size_t i;
    (void)state;
    assert_true(sbx_win_journal_sid_ok("S-1-15-2-1-2-3-4-5-6-7"));
    assert_true(sbx_win_journal_sid_ok("S-1-15-2-2434737943-167758768-3180539153-984336765-"
                                       "1107280622-3591121930-2677285773"));
    for (i = 0; bad[i]; i++) {
        assert_false(sbx_win_journal_sid_ok(bad[i]));
        snprintf(text, sizeof text, "sbx-journal 1\nprofile libsandbox.b\nsid %s\ndeny C:\\x\n",
                 bad[i]);
        assert_int_equal(sbx_win_journal_parse(text, &j, &err), SANDBOX_OK);
        memset(&log, 0, sizeof log);
        o.ctx = &log;
        assert_int_equal(sbx_win_sweep(&j, "libsandbox.b.journal", &o), SBX_WIN_ERR_INVALID_DATA);
        assert_string_equal(log.trace, ""); /* nothing was touched */
        sbx_win_journal_free(&j);
    }
    /* A profile that is not ours is never deleted. */
    assert_int_equal(sbx_win_journal_parse("sbx-journal 1\nprofile Microsoft.Edge\n", &j, &err),
                     SANDBOX_OK);
    memset(&log, 0, sizeof log);
    assert_int_equal(sbx_win_sweep(&j, "Microsoft.Edge.journal", &o), SBX_WIN_ERR_INVALID_DATA);
    assert_string_equal(log.trace, "");
    sbx_win_journal_free(&j);
}

static void expect_refused(const char *text, const char *file_name)
{
    struct sbx_win_sweep_ops o = {NULL,         s_lock,       s_unlock, s_purge,
                                  s_unloopback, s_unprofile, s_derive};
    struct sbx_win_journal j;
    struct sweep_log log;
    sandbox_error err;
    assert_int_equal(sbx_win_journal_parse(text, &j, &err), SANDBOX_OK);
    memset(&log, 0, sizeof log);
    o.ctx = &log;
    assert_int_equal(sbx_win_sweep(&j, file_name, &o), SBX_WIN_ERR_INVALID_DATA);
    assert_string_equal(log.trace, ""); /* nothing was touched, no profile deleted */
    sbx_win_journal_free(&j);
}

/* Review of issue 22, finding 1: a journal planted where a grant reaches
 * named a live run's SID, and the sweep stripped that run's denies. */
static void test_sweep_refuses_a_sid_not_derived_from_the_journals_profile(void **state)
{
    (void)state;
    /* Another (live) run's SID under a made-up profile. */
    expect_refused("sbx-journal 1\nprofile libsandbox.1.2.3\nsid S-1-15-2-5-5-5-5-5-5-5\n"
                   "deny C:\\p\\.env\n",
                   "libsandbox.1.2.3.journal");
    /* No profile line: nothing ties the SID to a run. */
    expect_refused("sbx-journal 1\nsid S-1-15-2-9-8-7-6-5-4-3\ndeny C:\\p\\.env\n",
                   "libsandbox.1.2.3.journal");
    /* A file named for another profile than the one inside. */
    expect_refused("sbx-journal 1\nprofile libsandbox.1.2.3\nsid S-1-15-2-9-8-7-6-5-4-3\n"
                   "deny C:\\p\\.env\n",
                   "libsandbox.9.9.9.journal");
    /* ACEs recorded without any SID. */
    expect_refused("sbx-journal 1\nprofile libsandbox.1.2.3\ndeny C:\\p\\.env\n",
                   "libsandbox.1.2.3.journal");
}

/* Finding 2: the sweep runs as the unconfined user, so opening
 * \\host\share would authenticate to that host (NTLM). */
static void test_sweep_opens_only_local_drive_absolute_paths(void **state)
{
    static const char *const bad[] = {"\\\\host\\share\\x", "\\\\?\\UNC\\host\\share\\x",
                                      "\\\\.\\pipe\\x", "\\\\?\\C:\\x", "C:\\a\\..\\b",
                                      "C:\\a\\.\\b", "C:x", "C:\\a:stream", "x\\y",
                                      "//host/share", "C:\\a\\\\host", NULL};
    char text[300];
    size_t i;
    (void)state;
    assert_true(sbx_win_journal_path_ok("C:\\p q\\.env"));
    assert_true(sbx_win_journal_path_ok("d:/work/x"));
    for (i = 0; bad[i]; i++) {
        assert_false(sbx_win_journal_path_ok(bad[i]));
        snprintf(text, sizeof text,
                 "sbx-journal 1\nprofile libsandbox.1.2.3\nsid S-1-15-2-9-8-7-6-5-4-3\n"
                 "grant C:\\p\ndeny %s\n",
                 bad[i]);
        expect_refused(text, "libsandbox.1.2.3.journal");
    }
}

/* Finding 10: a name with a newline injected a record into the journal. */
static void test_journal_record_with_a_control_character_is_refused(void **state)
{
    sbx_buf b;
    (void)state;
    sbx_buf_init(&b);
    assert_int_equal(sbx_win_journal_line(&b, "deny", "C:\\p\\x\ndeny C:\\Users\\me"), -1);
    assert_int_equal(sbx_win_journal_line(&b, "deny", "C:\\p\\x\ry"), -1);
    assert_int_equal(b.len, 0);
    assert_int_equal(sbx_win_journal_line(&b, "deny", "C:\\p\\x y"), 0);
    assert_string_equal(b.data, "deny C:\\p\\x y\n");
    sbx_buf_free(&b);
}

/* ---- the program: PATH and PATHEXT ---- */

static int fake_is_file(void *ctx, const char *path)
{
    const char *const *f;
    for (f = ctx; *f; f++)
        if (sbx_strncasecmp_ascii(*f, path, strlen(*f) + 1) == 0)
            return 1;
    return 0;
}

static void test_program_lookup_uses_pathext_and_never_the_working_dir(void **state)
{
    static const char *const files[] = {"C:\\Program Files\\nodejs\\npm.cmd",
                                        "C:\\Program Files\\nodejs\\node.exe",
                                        "C:\\Windows\\System32\\cmd.exe", "C:\\proj\\git.exe",
                                        "C:\\tools\\x.py", NULL};
    const char *path = "C:\\Windows\\System32;;\"C:\\Program Files\\nodejs\\\"";
    sandbox_error err;
    char *found;
    (void)state;
    assert_int_equal(sbx_win_find_program("npm", path, NULL, fake_is_file, (void *)files, &found,
                                          &err),
                     SANDBOX_OK);
    /* Spelled with PATHEXT's case: the same file to Windows. */
    assert_string_equal(found, "C:\\Program Files\\nodejs\\npm.CMD");
    free(found);
    assert_int_equal(sbx_win_find_program("cmd.exe", path, ".EXE", fake_is_file, (void *)files,
                                          &found, &err),
                     SANDBOX_OK);
    assert_string_equal(found, "C:\\Windows\\System32\\cmd.exe");
    free(found);
    /* A path is taken as one, with PATHEXT. */
    assert_int_equal(sbx_win_find_program("C:\\proj\\git", path, NULL, fake_is_file,
                                          (void *)files, &found, &err),
                     SANDBOX_OK);
    assert_string_equal(found, "C:\\proj\\git.EXE");
    free(found);
    /* Not the working directory (PATH's empty entry), and not without PATHEXT. */
    assert_int_equal(sbx_win_find_program("git", path, NULL, fake_is_file, (void *)files, &found,
                                          &err),
                     SANDBOX_E_EXEC);
    assert_int_equal(err.sys_errno, 2);
    assert_non_null(strstr(err.message, "'git' was not found in PATH"));
    assert_int_equal(sbx_win_find_program("node", path, ".CMD", fake_is_file, (void *)files,
                                          &found, &err),
                     SANDBOX_E_EXEC);
}

/* Finding 8: one machine-wide lock name let any account hold every user's
 * runs up (or squat the name). */
static void test_acl_lock_name_is_per_user(void **state)
{
    char name[128];
    (void)state;
    sbx_win_acl_lock_name(name, sizeof name, "S-1-5-21-1-2-3-1001");
    assert_string_equal(name, "Global\\libsandbox-acl-S-1-5-21-1-2-3-1001");
}

/* Finding 10: a relative PATH entry resolves against the working directory,
 * which the container writes. */
static void test_program_lookup_skips_relative_path_entries(void **state)
{
    static const char *const files[] = {"bin\\git.exe", ".\\tools\\git.exe", "C:git.exe",
                                        "\\x\\git.exe", "C:\\Git\\cmd\\git.exe", NULL};
    sandbox_error err;
    char *found;
    (void)state;
    assert_int_equal(sbx_win_find_program("git", "bin;.\\tools;C:;\\x;C:\\Git\\cmd", ".EXE",
                                          fake_is_file, (void *)files, &found, &err),
                     SANDBOX_OK);
    assert_string_equal(found, "C:\\Git\\cmd\\git.EXE");
    free(found);
    assert_int_equal(sbx_win_find_program("git", "bin;.\\tools", ".EXE", fake_is_file,
                                          (void *)files, &found, &err),
                     SANDBOX_E_EXEC);
}

static void test_program_problem_names_aliases_and_per_user_installs(void **state)
{
    sbx_win_plan p;
    (void)state;
    fake_plan(&p, 2, 0);
    assert_non_null(strstr(
        sbx_win_program_problem("C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\python.exe",
                                "C:\\Users\\me", &p),
        "App Execution Alias"));
    assert_non_null(strstr(sbx_win_program_problem(
                               "C:\\Users\\me\\AppData\\Local\\Programs\\Python\\python.exe",
                               "C:\\Users\\me", &p),
                           "user's profile"));
    assert_null(sbx_win_program_problem("C:\\Program Files\\Git\\cmd\\git.exe", "C:\\Users\\me",
                                        &p));
    assert_null(sbx_win_program_problem("C:\\p\\node_modules\\.bin\\tsc.cmd", "C:\\Users\\me", &p));
    assert_null(sbx_win_program_problem("C:\\Users\\meg\\x.exe", "C:\\Users\\me", &p));
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
        cmocka_unit_test(test_denies_for_existing_matches_and_their_parents),
        cmocka_unit_test(test_home_secrets_are_denied_only_where_a_grant_reaches),
        cmocka_unit_test(test_reparse_tags_only_name_surrogates_are_links),
        cmocka_unit_test(test_long_paths_get_the_verbatim_prefix),
        cmocka_unit_test(test_vanished_directory_is_skipped_not_fatal),
        cmocka_unit_test(test_acl_edits_hold_the_lock_so_a_concurrent_deny_survives),
        cmocka_unit_test(test_every_change_is_journaled_before_it_is_made),
        cmocka_unit_test(test_nested_root_that_inherits_the_grant_is_not_granted_twice),
        cmocka_unit_test(test_failed_grant_is_revoked_too_with_every_earlier_one),
        cmocka_unit_test(test_vanished_deny_target_is_skipped_not_fatal),
        cmocka_unit_test(test_unchangeable_dacl_is_skipped_only_when_the_container_cannot_open_it),
        cmocka_unit_test(test_lock_timeout_fails_closed_and_changes_nothing),
        cmocka_unit_test(test_journal_round_trip_and_sweep_undoes_everything),
        cmocka_unit_test(test_sweep_acts_only_on_per_run_container_sids),
        cmocka_unit_test(test_sweep_refuses_a_sid_not_derived_from_the_journals_profile),
        cmocka_unit_test(test_sweep_opens_only_local_drive_absolute_paths),
        cmocka_unit_test(test_journal_record_with_a_control_character_is_refused),
        cmocka_unit_test(test_home_secret_is_denied_when_a_grant_is_the_home_by_another_name),
        cmocka_unit_test(test_a_tree_5000_levels_deep_is_refused_cleanly),
        cmocka_unit_test(test_undo_that_cannot_take_the_lock_returns_the_error_and_leaves_the_aces),
        cmocka_unit_test(test_unchangeable_directory_under_a_grant_refuses_the_run),
        cmocka_unit_test(test_program_lookup_skips_relative_path_entries),
        cmocka_unit_test(test_acl_lock_name_is_per_user),
        cmocka_unit_test(test_program_lookup_uses_pathext_and_never_the_working_dir),
        cmocka_unit_test(test_program_problem_names_aliases_and_per_user_installs),
        cmocka_unit_test(test_protection_alone_needs_a_container),
        cmocka_unit_test(test_no_protection_walks_nothing),
        cmocka_unit_test(test_unlistable_directory_fails_closed_access_denied_is_skipped),
        cmocka_unit_test(test_posix_paths_use_slash_only),
        cmocka_unit_test(test_explain_json_lists_denies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
