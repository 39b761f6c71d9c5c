/* Root resolution with the host's facts replaced by a table (src/resolve.c):
 * the macOS and Windows rules, and the Linux identity rules, without a Mac,
 * a Windows machine or a bind mount. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* Rows without a link leave its parent's owner and mode out. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

/* One fact: a spelling, what it resolves to, its identity, and (at most one)
 * symlink passed on the way: where it was and its parent directory. */
struct row {
    const char *path, *final;
    unsigned long long dev, ino; /* 0: does not exist */
    const char *link_at, *link_parent;
    int parent_known; /* the link's parent directory: owner and mode */
    unsigned long parent_uid, parent_mode;
    unsigned long uid; /* the owner of what it names */
};

struct table {
    const struct row *rows;
    size_t n;
};

static int fake_lookup(void *ctx, int target, const char *path, struct sbx_path_fact *out)
{
    const struct table *t = ctx;
    size_t i;
    memset(out, 0, sizeof *out);
    for (i = 0; i < t->n; i++) {
        const struct row *r = &t->rows[i];
        if (strcmp(r->path, path) != 0)
            continue;
        out->final = sbx_strdup(r->final);
        out->exists = r->ino != 0;
        out->is_dir = 1;
        out->dev = r->dev;
        out->ino = r->ino;
        out->mode = 0040755;
        out->uid = r->uid;
        if (r->link_at) {
            out->links = calloc(1, sizeof *out->links);
            out->links[0].at = sbx_strdup(r->link_at);
            out->links[0].parent = sbx_strdup(r->link_parent);
            out->links[0].parent_known = r->parent_known;
            out->links[0].parent_uid = r->parent_uid;
            out->links[0].parent_mode = r->parent_mode;
            out->n_links = 1;
        }
        return 0;
    }
    out->final = sbx_path_lexical(target, path); /* unknown: by its spelling */
    return out->final ? 0 : -1;
}

static int resolve(int target, const struct table *t, const char *project, const char *add,
                   const char *home_env, const char *account, long euid, sandbox_error *err,
                   sbx_resolved *r)
{
    sandbox_policy *p = sandbox_policy_new();
    struct sbx_facts f;
    int rc;
    memset(&f, 0, sizeof f);
    f.env_home = home_env;
    f.account_home = account;
    f.euid = euid;
    f.lookup = fake_lookup;
    f.lookup_ctx = (void *)t;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, project);
    sandbox_policy_set_working_dir(p, project);
    sandbox_policy_set_temp_dir(p, target == SANDBOX_TARGET_WINDOWS ? "C:\\Temp" : "/tmp");
    if (add)
        sandbox_policy_add_writable_dir(p, add);
    rc = sbx_resolve_with(p, target, &f, r, err);
    sandbox_policy_free(p);
    return rc;
}

/* The project the host did not name (spec 004): the working directory is
 * the current one (`cwd`), the class the default, on this machine (euid
 * 1000), with HOME and the account's home at `home`. */
static int resolve_default(const struct table *t, const char *cwd, const char *home,
                           sandbox_error *err, sbx_resolved *r)
{
    sandbox_policy *p = sandbox_policy_new();
    struct sbx_facts f;
    int rc;
    memset(&f, 0, sizeof f);
    f.cwd = cwd;
    f.env_home = home;
    f.account_home = home;
    f.euid = 1000;
    f.on_host = 1;
    f.lookup = fake_lookup;
    f.lookup_ctx = (void *)t;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_temp_dir(p, "/scratch");
    rc = sbx_resolve_with(p, SANDBOX_TARGET_LINUX, &f, r, err);
    sandbox_policy_free(p);
    return rc;
}

/* "kind:path ..." of the writable roots. */
static const char *kinds(const sbx_resolved *r)
{
    static char buf[1024];
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < r->n_roots; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s:%s", i ? " " : "",
                                 sbx_root_kind_name(r->roots[i].kind), r->roots[i].path);
    return buf;
}

#define D(p, ino) {p, p, 1, ino, NULL, NULL, 0, 0, 0, 1000}
#define GIT(p, ino, uid) {p, p, 1, ino, NULL, NULL, 0, 0, 0, uid}

static void test_default_project_is_the_git_root_above(void **state)
{
    static const struct row rows[] = {
        D("/", 2), D("/home", 3), D("/home/me", 4), D("/w", 5), D("/w/repo", 6),
        D("/w/repo/sub", 7), D("/w/repo/sub/dir", 8), GIT("/w/repo/.git", 9, 1000),
        D("/scratch", 10),
    };
    struct table t = {rows, sizeof rows / sizeof rows[0]};
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(resolve_default(&t, "/w/repo/sub/dir", "/home/me", &err, &r), SANDBOX_OK);
    /* The working directory inside it is covered by the project's grant. */
    assert_string_equal(kinds(&r), "project:/w/repo temp:/scratch system-temp:/tmp dev:/dev");
    assert_true(r.project_found);
    assert_null(r.no_project);
    sbx_resolved_free(&r);
}

static void test_a_git_of_another_owner_or_a_link_is_no_git_root(void **state)
{
    static const struct row other[] = {
        D("/", 2), D("/home", 3), D("/home/me", 4), D("/w", 5), D("/w/sub", 6),
        GIT("/w/.git", 9, 0), D("/scratch", 10),
    };
    static const struct row linked[] = {
        D("/", 2), D("/home", 3), D("/home/me", 4), D("/w", 5), D("/w/sub", 6),
        {"/w/.git", "/elsewhere/.git", 1, 9, "/w/.git", "/w", 0, 0, 0, 1000}, D("/scratch", 10),
    };
    struct table t1 = {other, sizeof other / sizeof other[0]};
    struct table t2 = {linked, sizeof linked / sizeof linked[0]};
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(resolve_default(&t1, "/w/sub", "/home/me", &err, &r), SANDBOX_OK);
    assert_string_equal(r.project_root, "/w/sub");
    assert_false(r.project_found);
    sbx_resolved_free(&r);
    assert_int_equal(resolve_default(&t2, "/w/sub", "/home/me", &err, &r), SANDBOX_OK);
    assert_string_equal(r.project_root, "/w/sub");
    sbx_resolved_free(&r);
}

static void test_the_git_search_stops_below_homes_and_shared_temp(void **state)
{
    /* A .git of the caller's own in /tmp (anyone may make one there) and in
     * the home (a home kept in git): neither becomes the project. */
    static const struct row rows[] = {
        D("/", 2), D("/tmp", 3), D("/tmp/x", 4), D("/tmp/x/y", 5), GIT("/tmp/.git", 6, 1000),
        D("/home", 7), D("/home/me", 8), D("/home/me/notes", 9), GIT("/home/me/.git", 10, 1000),
        GIT("/.git", 11, 1000), D("/scratch", 12),
    };
    struct table t = {rows, sizeof rows / sizeof rows[0]};
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(resolve_default(&t, "/tmp/x/y", "/home/me", &err, &r), SANDBOX_OK);
    assert_string_equal(r.project_root, "/tmp/x/y");
    sbx_resolved_free(&r);
    assert_int_equal(resolve_default(&t, "/home/me/notes", "/home/me", &err, &r), SANDBOX_OK);
    assert_string_equal(r.project_root, "/home/me/notes");
    assert_null(r.no_project);
    sbx_resolved_free(&r);
}

static void test_home_root_library_and_stores_are_never_a_project(void **state)
{
    static const struct row rows[] = {
        D("/", 2), D("/home", 3), D("/home/me", 4), D("/home/me/.cache", 5),
        D("/home/me/.cache/x", 6), D("/home/me/Library", 7), D("/home/me/Library/App", 8),
        D("/home/me/.local", 9), D("/home/me/.local/share", 10),
        D("/home/me/.local/share/pnpm", 11), D("/home/me/.local/share/pnpm/store", 12),
        D("/home/me/.local/share/pnpm/store/v3", 13), D("/scratch", 14),
    };
    static const char *const never[] = {"/home/me", "/", "/home", "/home/me/.cache/x",
                                        "/home/me/Library/App",
                                        "/home/me/.local/share/pnpm/store/v3"};
    struct table t = {rows, sizeof rows / sizeof rows[0]};
    sbx_resolved r;
    sandbox_error err;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof never / sizeof never[0]; i++) {
        assert_int_equal(resolve_default(&t, never[i], "/home/me", &err, &r), SANDBOX_OK);
        assert_non_null(r.no_project);
        /* Its scratch only: no project, no working directory. */
        assert_string_equal(kinds(&r), "temp:/scratch system-temp:/tmp dev:/dev");
        sbx_resolved_free(&r);
    }
}

static void test_macos_workdir_through_a_planted_link_to_home_is_refused(void **state)
{
    /* /Users/me/proj/out was a directory; a command made it a link to ~. */
    static const struct row rows[] = {
        {"/Users/me/proj/out", "/Users/me", 0, 0, "/Users/me/proj/out", "/Users/me/proj"},
    };
    struct table t = {rows, 1};
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(resolve(SANDBOX_TARGET_MACOS, &t, "/Users/me/proj/out", NULL, "/Users/me",
                             NULL, -1, &err, &r),
                     SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "your home directory /Users/me"));
    /* The same link as an added dir beside the project: planted in a root. */
    {
        static const struct row rows2[] = {
            {"/Users/me/proj/out", "/Users/me/Documents", 0, 0, "/Users/me/proj/out",
             "/Users/me/proj"},
        };
        struct table t2 = {rows2, 1};
        assert_int_equal(resolve(SANDBOX_TARGET_MACOS, &t2, "/Users/me/proj", "/Users/me/proj/out",
                                 "/Users/me", NULL, -1, &err, &r),
                         SANDBOX_E_PATH);
        assert_non_null(strstr(err.message, "symbolic link"));
        assert_non_null(strstr(err.message, "/Users/me/proj/out"));
    }
}

static void test_system_links_above_every_root_are_followed(void **state)
{
    /* macOS: /tmp -> /private/tmp; a user's own ~/code -> /Volumes/data/code. */
    static const struct row rows[] = {
        {"/tmp", "/private/tmp", 0, 0, "/tmp", "/"},
        {"/Users/me/code/p", "/Volumes/data/code/p", 0, 0, "/Users/me/code", "/Users/me"},
    };
    struct table t = {rows, 2};
    sbx_resolved r;
    sandbox_error err;
    size_t i;
    int found = 0;
    (void)state;
    assert_int_equal(resolve(SANDBOX_TARGET_MACOS, &t, "/Users/me/code/p", NULL, "/Users/me", NULL,
                             -1, &err, &r),
                     SANDBOX_OK);
    for (i = 0; i < r.n_roots; i++)
        if (strcmp(r.roots[i].path, "/Volumes/data/code/p") == 0 && r.roots[i].given &&
            strcmp(r.roots[i].given, "/Users/me/code/p") == 0)
            found = 1;
    assert_true(found);
    sbx_resolved_free(&r);
}

/* Review of issue 16, finding 1: a link planted by an EARLIER launch, in a
 * directory that is no root of this one. For a user: refused wherever the
 * caller can write (owner-writable or group/other-writable), except in the
 * home itself (never a root); for root: followed only in the system's own
 * link directories. */
static void test_links_an_earlier_launch_could_plant_are_refused(void **state)
{
    static const struct row rows[] = {
        /* /mnt/work/mono was launch 1's project; pkg now points at ~/.local/bin. */
        {"/mnt/work/mono/pkg", "/home/me/.local/bin", 0, 0, "/mnt/work/mono/pkg",
         "/mnt/work/mono", 1, 1000, 0040755},
        /* The user's own ~/code -> /data/code, in the home itself. */
        {"/home/me/code/p", "/data/code/p", 0, 0, "/home/me/code", "/home/me", 1, 1000, 0040755},
        /* A link in a directory of someone else's the caller cannot write. */
        {"/srv/app", "/data/app", 0, 0, "/srv/app", "/srv", 1, 0, 0040755},
        /* Group-writable: another member (or an earlier root) may have planted it. */
        {"/srv/shared/x", "/data/x", 0, 0, "/srv/shared/x", "/srv/shared", 1, 0, 0042775},
        /* /var/run -> /run. */
        {"/var/run/x", "/run/x", 0, 0, "/var/run", "/var", 1, 0, 0040755},
    };
    struct table t = {rows, 5};
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/mnt/work/mono/pkg", NULL, "/home/me",
                             "/home/me", 1000, &err, &r),
                     SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "earlier"));
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/home/me/code/p", NULL, "/home/me",
                             "/home/me", 1000, &err, &r),
                     SANDBOX_OK);
    sbx_resolved_free(&r);
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/srv/app", NULL, "/home/me", "/home/me",
                             1000, &err, &r),
                     SANDBOX_OK);
    sbx_resolved_free(&r);
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/srv/shared/x", NULL, "/home/me",
                             "/home/me", 1000, &err, &r),
                     SANDBOX_E_PATH);
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/var/run/x", NULL, "/home/me", "/home/me",
                             1000, &err, &r),
                     SANDBOX_OK);
    sbx_resolved_free(&r);
    /* Root: owning proves nothing; /srv is no system link directory. */
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/srv/app", NULL, "/root", "/root", 0,
                             &err, &r),
                     SANDBOX_E_PATH);
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/var/run/x", NULL, "/root", "/root", 0,
                             &err, &r),
                     SANDBOX_OK);
    sbx_resolved_free(&r);
}

/* Finding 7: on Windows the home is %USERPROFILE% alone; unset on the
 * host, the home check cannot run, so resolution refuses. */
static void test_windows_without_userprofile_on_the_host_is_refused(void **state)
{
    struct table t = {NULL, 0};
    sandbox_policy *p = sandbox_policy_new();
    struct sbx_facts f;
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    memset(&f, 0, sizeof f);
    f.euid = -1;
    f.on_host = 1;
    f.lookup = fake_lookup;
    f.lookup_ctx = &t;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, "C:\\work\\p");
    sandbox_policy_set_working_dir(p, "C:\\work\\p");
    sandbox_policy_set_temp_dir(p, "C:\\Temp");
    assert_int_equal(sbx_resolve_with(p, SANDBOX_TARGET_WINDOWS, &f, &r, &err), SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "USERPROFILE"));
    /* A plan rendered elsewhere (not the host) has no home to know. */
    f.on_host = 0;
    assert_int_equal(sbx_resolve_with(p, SANDBOX_TARGET_WINDOWS, &f, &r, &err), SANDBOX_OK);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_windows_final_path_by_handle_is_compared(void **state)
{
    /* What GetFinalPathNameByHandle says: the short name is the profile. */
    static const struct row rows[] = {
        {"D:\\p\\..\\link", "C:\\Users\\me", 0, 0, NULL, NULL},
    };
    struct table t = {rows, 1};
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(resolve(SANDBOX_TARGET_WINDOWS, &t, "D:\\p\\..\\link", NULL, "C:\\Users\\me",
                             NULL, -1, &err, &r),
                     SANDBOX_E_PATH);
    assert_int_equal(resolve(SANDBOX_TARGET_WINDOWS, &t, "c:\\USERS\\ME~1\\", NULL,
                             "C:\\Users\\me", NULL, -1, &err, &r),
                     SANDBOX_E_PATH);
    assert_int_equal(resolve(SANDBOX_TARGET_WINDOWS, &t, "C:\\Users\\meg", NULL, "C:\\Users\\me",
                             NULL, -1, &err, &r),
                     SANDBOX_OK);
    sbx_resolved_free(&r);
}

static void test_linux_identity_catches_another_name_for_home(void **state)
{
    /* /mnt/h is a bind mount of the home: another path, the same inode. */
    static const struct row rows[] = {
        {"/", "/", 1, 2, NULL, NULL},
        {"/home/me", "/home/me", 1, 100, NULL, NULL},
        {"/home", "/home", 1, 50, NULL, NULL},
        {"/mnt/h", "/mnt/h", 1, 100, NULL, NULL},
        {"/srv/p", "/srv/p", 1, 300, NULL, NULL},
    };
    struct table t = {rows, 5};
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/srv/p", "/mnt/h", NULL, "/home/me", 1000,
                             &err, &r),
                     SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "same directory as your home"));
    /* The account's home counts with HOME unset, relative or "/". */
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/home/me", NULL, "rel", "/home/me", 1000,
                             &err, &r),
                     SANDBOX_E_PATH);
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/home", NULL, "/", "/home/me", 1000, &err,
                             &r),
                     SANDBOX_E_PATH);
    /* ...and $HOME too when it differs from it. */
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/srv/p", "/srv/p/..", "/srv/p/h",
                             "/home/me", 1000, &err, &r),
                     SANDBOX_E_PATH);
    assert_int_equal(resolve(SANDBOX_TARGET_LINUX, &t, "/srv/p", NULL, NULL, "/home/me", 1000,
                             &err, &r),
                     SANDBOX_OK);
    /* The forbidden identities go to the Landlock step for its recheck. */
    assert_true(r.n_forbidden >= 3);
    sbx_resolved_free(&r);
}

static void test_lexical_forms(void **state)
{
    static const char *const cases[][3] = {
        {"l", "/var/tmp/x/..//../..", "/"},
        {"l", "/a/./b//c/", "/a/b/c"},
        {"l", "/..", "/"},
        {"w", "c:/users/me", "C:\\users\\me"},
        {"w", "\\\\?\\C:\\Users\\me\\.", "C:\\Users\\me"},
        {"w", "\\\\?\\UNC\\srv\\share\\x\\..", "\\\\srv\\share"},
        {"w", "C:\\Users\\me.\\", "C:\\Users\\me"},
        {"w", "C:\\..\\..", "C:\\"},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = sbx_path_lexical(cases[i][0][0] == 'w' ? SANDBOX_TARGET_WINDOWS
                                                           : SANDBOX_TARGET_LINUX,
                                     cases[i][1]);
        assert_non_null(got);
        assert_string_equal(got, cases[i][2]);
        free(got);
    }
    assert_true(sbx_path_within(SANDBOX_TARGET_WINDOWS, "C:\\Users\\me", "C:\\USERS\\ME~1"));
    assert_false(sbx_path_within(SANDBOX_TARGET_WINDOWS, "C:\\Users\\you", "C:\\USERS\\ME~1"));
    assert_false(sbx_path_within(SANDBOX_TARGET_LINUX, "/home/u2", "/home/u"));
    assert_true(sbx_path_within(SANDBOX_TARGET_MACOS, "/Users/Me/x", "/users/me"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_macos_workdir_through_a_planted_link_to_home_is_refused),
        cmocka_unit_test(test_system_links_above_every_root_are_followed),
        cmocka_unit_test(test_links_an_earlier_launch_could_plant_are_refused),
        cmocka_unit_test(test_windows_without_userprofile_on_the_host_is_refused),
        cmocka_unit_test(test_windows_final_path_by_handle_is_compared),
        cmocka_unit_test(test_linux_identity_catches_another_name_for_home),
        cmocka_unit_test(test_lexical_forms),
        cmocka_unit_test(test_default_project_is_the_git_root_above),
        cmocka_unit_test(test_a_git_of_another_owner_or_a_link_is_no_git_root),
        cmocka_unit_test(test_the_git_search_stops_below_homes_and_shared_temp),
        cmocka_unit_test(test_home_root_library_and_stores_are_never_a_project),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
