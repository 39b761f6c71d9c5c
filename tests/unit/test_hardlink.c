#define _POSIX_C_SOURCE 200809L
/* The hard-link scan against real directory trees in /tmp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/t_profile.h"

#include "internal.h"

#ifdef _WIN32
int main(void)
{
    return 77; /* the scan is a stub on Windows */
}
#else

#  include <dirent.h>
#  include <fcntl.h>
#  include <stdio.h>
#  include <stdlib.h>
#  include <string.h>
#  include <sys/stat.h>
#  include <time.h>
#  include <unistd.h>

static char top[256];   /* a fresh tree per test */
static char proj[600];  /* top/proj: the project root */
static char out[600];   /* top/outside: not a root */
static char scr[600];   /* top/scratch: the temp dir */

static void path(char *buf, size_t n, const char *base, const char *rel)
{
    snprintf(buf, n, "%s/%s", base, rel);
}

static void make_file(const char *base, const char *rel)
{
    char p[1024];
    FILE *f;
    path(p, sizeof p, base, rel);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs("x\n", f);
    fclose(f);
}

static void make_dir(const char *base, const char *rel)
{
    char p[1024];
    path(p, sizeof p, base, rel);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void make_link(const char *from_base, const char *from, const char *to_base,
                      const char *to)
{
    char a[1024], b[1024];
    path(a, sizeof a, from_base, from);
    path(b, sizeof b, to_base, to);
    assert_int_equal(link(a, b), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(top, sizeof top, "/tmp/sbx-hardlink.XXXXXX");
    if (!mkdtemp(top))
        return -1;
    snprintf(proj, sizeof proj, "%s/proj", top);
    snprintf(out, sizeof out, "%s/outside", top);
    snprintf(scr, sizeof scr, "%s/scratch", top);
    if (mkdir(proj, 0755) || mkdir(out, 0755) || mkdir(scr, 0755))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    char cmd[700];
    (void)state;
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", top, top);
    return system(cmd) == 0 ? 0 : -1;
}

static sandbox_policy *project_policy(void)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_PROJECT), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, proj), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, proj), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, scr), SANDBOX_OK);
    return p;
}

static void test_outside_link_is_found_and_named(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    char want[1024];
    (void)state;
    make_file(out, "bashrc");
    make_dir(proj, "src");
    make_link(out, "bashrc", proj, "src/innocent.txt");
    make_file(proj, "src/plain.c");
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_E_REFUSED);
    assert_int_equal(rep.n_outside, 1);
    path(want, sizeof want, proj, "src/innocent.txt");
    assert_string_equal(rep.outside[0], want);
    assert_non_null(strstr(rep.error.message, want));
    assert_non_null(strstr(rep.error.message, "refusing to start"));
    assert_int_equal(rep.error.code, SANDBOX_E_REFUSED);
    assert_int_equal(rep.files, 2);
    sandbox_scan_report_clear(&rep);
    assert_null(rep.outside);
    sandbox_policy_free(p);
}

static void test_links_with_every_name_inside_are_ignored(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    (void)state;
    /* Two names in the project, and a third in the scratch: all inside. */
    make_dir(proj, "a");
    make_dir(proj, "b");
    make_file(proj, "a/one");
    make_link(proj, "a/one", proj, "b/two");
    make_link(proj, "a/one", scr, "three");
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_OK);
    assert_int_equal(rep.n_outside, 0);
    assert_int_equal(rep.files, 3);
    sandbox_scan_report_clear(&rep);
    sandbox_policy_free(p);
}

static void test_nested_roots_do_not_count_a_name_twice(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    char sub[1024];
    (void)state;
    /* proj/sub is also an added root and the working directory: listed twice
     * naively, its one inside name would be counted twice and match nlink 2. */
    make_dir(proj, "sub");
    make_file(out, "secret");
    make_link(out, "secret", proj, "sub/link");
    path(sub, sizeof sub, proj, "sub");
    assert_int_equal(sandbox_policy_add_writable_dir(p, sub), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, sub), SANDBOX_OK);
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_E_REFUSED);
    assert_int_equal(rep.n_outside, 1);
    sandbox_scan_report_clear(&rep);
    sandbox_policy_free(p);
}

static void test_allowed_file_or_folder_passes(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    char allowed[1024];
    (void)state;
    make_dir(proj, "vendor");
    make_file(out, "f1");
    make_file(out, "f2");
    make_link(out, "f1", proj, "vendor/f1");
    make_link(out, "f2", proj, "f2");
    /* Allow the folder: f1 passes, f2 is still refused. */
    path(allowed, sizeof allowed, proj, "vendor");
    assert_int_equal(sandbox_policy_allow_hardlink(p, allowed), SANDBOX_OK);
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_E_REFUSED);
    assert_int_equal(rep.n_outside, 1);
    assert_int_equal(rep.n_allowed, 1);
    assert_non_null(strstr(rep.outside[0], "/proj/f2"));
    sandbox_scan_report_clear(&rep);
    /* Allow the file by its outside name: it is the same inode. */
    path(allowed, sizeof allowed, out, "f2");
    assert_int_equal(sandbox_policy_allow_hardlink(p, allowed), SANDBOX_OK);
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_OK);
    assert_int_equal(rep.n_allowed, 2);
    sandbox_scan_report_clear(&rep);
    assert_int_equal(sandbox_policy_allow_hardlink(p, "relative"), SANDBOX_E_INVALID);
    sandbox_policy_free(p);
}

static void test_symlinks_are_not_followed(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    char target[1024], ln[1024];
    (void)state;
    /* Outside, a pair of names of one file; inside, symlinks to the folder
     * and to one name. Following them would count outside names as inside
     * (and walk what is not a root). */
    make_file(out, "x");
    make_link(out, "x", out, "y");
    path(ln, sizeof ln, proj, "dirlink");
    assert_int_equal(symlink(out, ln), 0);
    path(target, sizeof target, out, "x");
    path(ln, sizeof ln, proj, "filelink");
    assert_int_equal(symlink(target, ln), 0);
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_OK);
    assert_int_equal(rep.files, 0);
    sandbox_scan_report_clear(&rep);
    sandbox_policy_free(p);
}

static void test_unlistable_directory_is_refused(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    char locked[1024];
    DIR *d;
    (void)state;
    make_dir(proj, "locked");
    path(locked, sizeof locked, proj, "locked");
    assert_int_equal(chmod(locked, 0), 0);
    /* Root (or CAP_DAC_READ_SEARCH) lists it anyway: nothing to prove then. */
    d = opendir(locked);
    if (d) {
        closedir(d);
        chmod(locked, 0755);
        sandbox_policy_free(p);
        T_SKIP_UNLESS("dac_enforced", "this user lists a mode-000 folder anyway (root)");
    }
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_E_REFUSED);
    assert_non_null(strstr(rep.error.message, "cannot scan"));
    assert_non_null(strstr(rep.error.message, locked));
    sandbox_scan_report_clear(&rep);
    chmod(locked, 0755);
    sandbox_policy_free(p);
}

static void test_missing_and_unscanned_roots(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_scan_report rep;
    char gone[1024];
    (void)state;
    /* Not confined: nothing to scan. */
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_OK);
    sandbox_scan_report_clear(&rep);
    assert_int_equal(sandbox_scan_hardlinks(NULL, &rep), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_scan_hardlinks(p, NULL), SANDBOX_E_INVALID);
    /* A root that does not exist holds no link. */
    path(gone, sizeof gone, top, "does-not-exist");
    sandbox_policy_set_class(p, SANDBOX_CLASS_RESEARCH);
    sandbox_policy_set_temp_dir(p, gone);
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_OK);
    assert_int_equal(rep.directories, 0);
    sandbox_scan_report_clear(&rep);
    sandbox_policy_free(p);
}

static void test_enforce_refuses_before_applying_anything(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_result res;
    const char *argv[] = {"true", NULL};
    (void)state;
    make_file(out, "profile");
    make_link(out, "profile", proj, "profile");
    /* The refusal comes from the facade's pre-flight, before any backend
     * step: safe to call in this test process. */
    assert_int_equal(sandbox_enforce(p, argv, &res), SANDBOX_E_REFUSED);
    assert_non_null(strstr(res.error.message, "/proj/profile"));
    assert_int_equal(res.enforcement, SANDBOX_ENFORCED_NOTHING);
    sandbox_policy_free(p);
}

static void test_message_caps_the_list_and_counts_the_rest(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    char name[64];
    int i;
    (void)state;
    for (i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "o%02d", i);
        make_file(out, name);
        make_link(out, name, proj, name);
    }
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_E_REFUSED);
    assert_int_equal(rep.n_outside, 12);
    assert_non_null(strstr(rep.error.message, "12 files"));
    assert_non_null(strstr(rep.error.message, "and 7 more"));
    assert_non_null(strstr(rep.error.message, "/proj/o00"));
    assert_null(strstr(rep.error.message, "/proj/o11"));
    assert_string_equal(strrchr(rep.outside[11], '/'), "/o11");
    sandbox_scan_report_clear(&rep);
    sandbox_policy_free(p);
}

static void test_big_tree_throughput(void **state)
{
    sandbox_policy *p = project_policy();
    sandbox_scan_report rep;
    struct timespec t0, t1;
    char name[1024];
    int d, f, fd;
    double secs, rate;
    const int dirs = 50, per_dir = 100; /* 5,000 files: creating them dominates */
    (void)state;
    for (d = 0; d < dirs; d++) {
        snprintf(name, sizeof name, "%s/pkg%03d", proj, d);
        assert_int_equal(mkdir(name, 0755), 0);
        for (f = 0; f < per_dir; f++) {
            snprintf(name, sizeof name, "%s/pkg%03d/f%03d.js", proj, d, f);
            fd = open(name, O_WRONLY | O_CREAT | O_EXCL, 0644);
            assert_true(fd >= 0);
            close(fd);
        }
    }
    /* pnpm-like: every file of one package also named in another. */
    for (f = 0; f < per_dir; f++) {
        char a[1024];
        snprintf(a, sizeof a, "%s/pkg000/f%03d.js", proj, f);
        snprintf(name, sizeof name, "%s/pkg001/l%03d.js", proj, f);
        assert_int_equal(link(a, name), 0);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(sandbox_scan_hardlinks(p, &rep), SANDBOX_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    rate = (double)rep.files / (secs > 0 ? secs : 1e-9);
    print_message("scanned %llu files in %llu directories in %.3f s: %.0f files/s\n",
                  rep.files, rep.directories, secs, rate);
    assert_int_equal(rep.files, dirs * per_dir + per_dir);
    assert_int_equal(rep.directories, dirs + 2); /* + the project and the scratch */
    /* A floor far below what any machine does, to catch accidental
     * quadratic behaviour, not to benchmark (bench/hardlink.sh does that). */
    assert_true(rate > 20000.0);
    sandbox_scan_report_clear(&rep);
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_outside_link_is_found_and_named, setup, teardown),
        cmocka_unit_test_setup_teardown(test_links_with_every_name_inside_are_ignored, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_nested_roots_do_not_count_a_name_twice, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_allowed_file_or_folder_passes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlinks_are_not_followed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unlistable_directory_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_and_unscanned_roots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_enforce_refuses_before_applying_anything, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_message_caps_the_list_and_counts_the_rest, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_big_tree_throughput, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
#endif
