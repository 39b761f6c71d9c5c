#define _GNU_SOURCE
/* The pre-flight index and the protected-path plan (issue 26 with issue 18
 * round 3 and issue 23): a warm prepare, which takes pass 1 from the index,
 * must give exactly the plan and the warnings of a cold one, for a tree with
 * every kind of state the walk collects: a bare repository, another name of
 * a home secret, a secret committed to the git index, a link to a directory
 * of another owner, and a writable .git (--git-writable) whose missing code
 * paths are refused and whose hooks path runs through a symlink. The index
 * must have been reused (its file kept), and a chown of the other owner's
 * directory, which changes no listed directory, must make it not apply. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/linux.h"

#define SECRET "sbx-secret-mask-index-31c7"

static char dir[64], proj[128], home[128], other[128];

static void sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    assert_int_equal(system(cmd), 0);
}

/* Which versions of this project's protected-path index files are there:
 * a checksum over each one's inode, modification time and contents, or 0
 * when there is none. Not the newest file alone: ext4's times are a clock
 * tick coarse, so a new index written within the tick of the old one tied
 * with it and `ls -t` could name the old (stop 37, ctest -j2); nor the
 * inode alone, which a file written after the old one was removed may get
 * back (a fresh Debian root). */
static unsigned long index_ino(void)
{
    char cmd[1024], line[96] = "";
    FILE *f;
    snprintf(cmd, sizeof cmd,
             "acct=$(getent passwd \"$(id -u)\" | cut -d: -f6); "
             "if [ -n \"$acct\" ] && [ -d \"$acct\" ] && [ -O \"$acct\" ]; then "
             "i=$acct/.libsandbox; else i=$HOME/.libsandbox; fi; "
             "l=$(grep -lsF -- '%s' \"$i\"/mask-*.idx | sort); [ -n \"$l\" ] || exit 0; "
             "for f in $l; do stat -c '%%n %%i %%.9Y' \"$f\"; cksum <\"$f\"; done | "
             "cksum | cut -d' ' -f1",
             proj);
    f = popen(cmd, "r");
    if (!f)
        return 0;
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    pclose(f);
    return strtoul(line, NULL, 10);
}

/* Prepare the plan as a launch does; its entries and warning, as text. */
static void plan_text(int git_writable, char *out, size_t size)
{
    sandbox_policy *p = sandbox_policy_new();
    struct sbx_mask_plan *m = NULL;
    char warning[4096] = "";
    sandbox_error err;
    sbx_resolved r;
    size_t i, len = 0;
    const char *path;
    int how, bare;
    assert_non_null(p);
    sandbox_policy_set_project_root(p, proj);
    sandbox_policy_set_working_dir(p, proj);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_protect_defaults(p);
    if (git_writable)
        assert_int_equal(sandbox_policy_add_protected(p, ".git", SANDBOX_PROTECT_GIT), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    if (sbx_mask_prepare(&r, &m, 0, warning, sizeof warning, &err) != SANDBOX_OK)
        fail_msg("prepare: %s", err.message);
    for (i = 0; (path = sbx_mask_entry(m, i, &how, &bare)) != NULL; i++)
        len += (size_t)snprintf(out + len, size - len, "%d %d %s\n", how, bare, path);
    snprintf(out + len, size - len, "warning: %s\n", warning);
    sbx_mask_free(m);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static int has(const char *text, int how, int bare, const char *path)
{
    char line[512];
    snprintf(line, sizeof line, "%d %d %s\n", how, bare, path);
    return strstr(text, line) != NULL;
}

static void cold_then_warm(int git_writable)
{
    static char cold[65536], warm[65536];
    char p[256];
    unsigned long ino;
    ino = index_ino();
    usleep(100000); /* past the coarse clock: the cold scan is not racy */
    plan_text(git_writable, cold, sizeof cold);
    assert_true(index_ino() != ino); /* cold: a new index (a new key) was written */
    ino = index_ino();
    assert_true(ino != 0);
    plan_text(git_writable, warm, sizeof warm);
    assert_int_equal(index_ino(), ino); /* reused, not rewritten */
    if (strcmp(cold, warm) != 0)
        fail_msg("warm plan differs:\n--- cold\n%s--- warm\n%s", cold, warm);

    /* Each kind of state is in the plan (or the warning) being compared. */
    snprintf(p, sizeof p, "%s/remote.git", proj);
    assert_true(has(cold, 0, 1, p));                 /* bare repository, read-only */
    snprintf(p, sizeof p, "%s/src/notes.txt", proj);
    assert_true(has(cold, 2, 0, p));                 /* other name of ~/.ssh/id_ed25519 */
    assert_non_null(strstr(cold, "tracks 1 protected path (first: .env)"));
    assert_non_null(strstr(cold, "a directory of another owner"));
    if (git_writable) {
        snprintf(p, sizeof p, "%s/.git", proj);
        assert_true(has(cold, 4, 0, p));             /* MASK_GITDIR */
        snprintf(p, sizeof p, "%s/.git/modules", proj);
        assert_true(has(cold, 3, 0, p));             /* MASK_ABSENT */
        snprintf(p, sizeof p, "%s/.husky", proj);
        assert_true(has(cold, -1, 0, p));            /* MASK_NAME */
    } else {
        snprintf(p, sizeof p, "%s/.git", proj);
        assert_true(has(cold, 0, 0, p));
    }
}

static void test_cold_equals_warm(void **state)
{
    (void)state;
    cold_then_warm(0);
}

static void test_cold_equals_warm_git_writable(void **state)
{
    (void)state;
    cold_then_warm(1);
}

/* The other owner's directory is not walked, so no listed directory shows a
 * chown of it: the index keeps its stamps and must not apply after one. */
static void test_chown_of_unfollowed_dir(void **state)
{
    static char before[65536], after[65536];
    char p[256];
    unsigned long ino;
    (void)state;
    usleep(100000);
    plan_text(0, before, sizeof before);
    ino = index_ino();
    assert_true(ino != 0);
    sh("chown 0:0 '%s'", other);
    /* A scan in the chown's clock tick finds the directory racy (its
     * ctime) and commits no index: the next launch would scan again. */
    usleep(100000);
    plan_text(0, after, sizeof after);
    sh("chown 65534:65534 '%s'", other);
    snprintf(p, sizeof p, "%s/.env", other);
    assert_false(has(before, 2, 0, p));
    assert_true(has(after, 2, 0, p)); /* followed now, its secret masked */
    assert_null(strstr(after, "a directory of another owner"));
    assert_true(index_ino() != ino);
}

static int setup(void **state)
{
    const char *foreign = NULL;
    static const char *const dirs[] = {"/srv", "/mnt", "/opt", "/media", "/boot"};
    struct stat st;
    size_t i;
    (void)state;
    strcpy(dir, "/var/tmp/sbx-mask-index.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(proj, sizeof proj, "%s/proj", dir);
    snprintf(home, sizeof home, "%s/home", dir);
    snprintf(other, sizeof other, "%s/other", dir);
    setenv("HOME", home, 1);
    if (chdir(dir) != 0)
        return -1;
    if (system("set -e; mkdir -p proj/src proj/scripts/hooks home/.ssh other; "
               "echo '" SECRET "' > proj/.env; echo '" SECRET "' > home/.ssh/id_ed25519; "
               "echo '" SECRET "' > other/.env; ln home/.ssh/id_ed25519 proj/src/notes.txt; "
               "git init -q --bare proj/remote.git; ln -s scripts/hooks proj/.husky; "
               "cd proj && git init -q . && git config user.email t@t && git config user.name t "
               "&& git config core.hooksPath .husky && git add -f .env && git commit -qm s") != 0)
        return -1;
    if (geteuid() == 0) {
        if (chown(other, 65534, 65534) != 0)
            return -1;
        foreign = other;
    } else {
        for (i = 0; !foreign && i < sizeof dirs / sizeof dirs[0]; i++)
            if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid != geteuid())
                foreign = dirs[i];
        if (!foreign)
            return -1;
    }
    {
        char link[256];
        snprintf(link, sizeof link, "%s/otherlink", proj);
        if (symlink(foreign, link) != 0)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    char cmd[256];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cold_equals_warm),
        cmocka_unit_test(test_cold_equals_warm_git_writable),
    };
    /* The chown only as root: only root can give the directory to the
     * caller (as nobody the link leads to a root-owned directory). */
    const struct CMUnitTest as_root[] = {
        cmocka_unit_test(test_cold_equals_warm),
        cmocka_unit_test(test_cold_equals_warm_git_writable),
        cmocka_unit_test(test_chown_of_unfollowed_dir),
    };
    if (geteuid() == 0)
        return cmocka_run_group_tests(as_root, setup, teardown);
    return cmocka_run_group_tests(tests, setup, teardown);
}
