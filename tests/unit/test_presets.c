#define _POSIX_C_SOURCE 200809L
/* Activity classes, caches and the internet-only setting, resolved per
 * target. The documented table lives in docs/classes.md; these tests pin it. */
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

#include "internal.h"

static char home[256];
/* $TMPDIR: a real directory of ours, as resolution requires of it. */
static char scratch[256];
/* PATH: every tool whose caches are made when missing, as empty programs. */
static char bin[300], saved_path[4096];
static const char *const tools[] = {"npm",  "pip",  "cargo",  "go",    "gradle", "mvn",
                                    "bun",  "pnpm", "yarn",   "ccache", "conda"};

/* A directory of empty programs named `names` (NULL-terminated). */
static void fake_tools(const char *dir, const char *const *names, size_t n)
{
    char p[1024];
    size_t i;
    mkdir(dir, 0700);
    for (i = 0; i < n; i++) {
        FILE *f;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        f = fopen(p, "w");
        if (f)
            fclose(f);
        chmod(p, 0700);
    }
}

/* Every variable the resolution reads, so the caller's environment cannot
 * change what the tests see. */
static const char *const env_vars[] = {
    "XDG_CACHE_HOME", "npm_config_cache", "NPM_CONFIG_CACHE", "PIP_CACHE_DIR",
    "CARGO_HOME",     "GOMODCACHE",       "GOPATH",           "GOCACHE",
    "GRADLE_USER_HOME", "BUN_INSTALL_CACHE_DIR", "BUN_INSTALL", "LOCALAPPDATA",
    "USERPROFILE",    "PNPM_HOME",        "XDG_DATA_HOME",    "YARN_CACHE_FOLDER",
    "YARN_GLOBAL_FOLDER", "CONDA_PKGS_DIRS", "CCACHE_DIR",
};

static void mkdirs(const char *rel)
{
    char path[512], *p;
    snprintf(path, sizeof path, "%s/%s", home, rel);
    for (p = path + strlen(home) + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0700);
            *p = '/';
        }
    }
    mkdir(path, 0700);
}

static int setup(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++)
        unsetenv(env_vars[i]);
    /* Outside /tmp: the sandbox writes /tmp, so a home beneath it is refused. */
    snprintf(home, sizeof home, "/var/tmp/sbx-presets.XXXXXX");
    if (!mkdtemp(home))
        return -1;
    setenv("HOME", home, 1);
    snprintf(scratch, sizeof scratch, "/var/tmp/sbx-scratch.XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    setenv("TMPDIR", scratch, 1);
    /* Not below TMPDIR: a PATH entry there would make it refused. */
    snprintf(bin, sizeof bin, "/var/tmp/sbx-bin.XXXXXX");
    if (!mkdtemp(bin))
        return -1;
    fake_tools(bin, tools, sizeof tools / sizeof tools[0]);
    snprintf(saved_path, sizeof saved_path, "%s", getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    {
        char path[4400];
        snprintf(path, sizeof path, "%s:/usr/bin:/bin", bin);
        setenv("PATH", path, 1);
    }
    return 0;
}

static int teardown(void **state)
{
    char cmd[1000];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s'", home, scratch, bin);
    setenv("PATH", saved_path, 1);
    return system(cmd) == 0 ? 0 : -1;
}

static sandbox_policy *classed(int klass)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_project_root(p, "/work/proj"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, "/work/proj/sub"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_output_dir(p, "/media/out"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_class(p, klass), SANDBOX_OK);
    return p;
}

/* The roots as "kind:path kind:path ...", for compact expectations; a
 * missing cache a launch would create is "kind+:path". */
static char *roots_of(const sbx_resolved *r)
{
    static char buf[8192];
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < r->n_roots; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s%s:%s", i ? " " : "",
                                 sbx_root_kind_name(r->roots[i].kind),
                                 r->roots[i].create ? "+" : "",
                                 strcmp(r->roots[i].path, scratch) == 0 ? "$TMPDIR"
                                                                        : r->roots[i].path);
    return buf;
}

static void expect_class(int klass, int target, const char *roots, int network)
{
    sandbox_policy *p = classed(klass);
    sbx_resolved r;
    sandbox_error err;
    assert_int_equal(sbx_resolve(p, target, &r, &err), SANDBOX_OK);
    assert_string_equal(roots_of(&r), roots);
    assert_int_equal(r.network, network);
    assert_int_equal(r.filesystem, SANDBOX_FS_CONFINED);
    assert_int_equal(r.klass, klass);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_each_class_yields_its_roots_on_linux(void **state)
{
    (void)state;
    expect_class(SANDBOX_CLASS_PROJECT, SANDBOX_TARGET_LINUX,
                 "project:/work/proj output:/media/out workdir:/work/proj/sub "
                 "temp:$TMPDIR system-temp:/tmp dev:/dev",
                 SANDBOX_NETWORK_ALLOW);
    expect_class(SANDBOX_CLASS_RESEARCH, SANDBOX_TARGET_LINUX,
                 "output:/media/out temp:$TMPDIR dev:/dev", SANDBOX_NETWORK_ALLOW);
    expect_class(SANDBOX_CLASS_OFFLINE, SANDBOX_TARGET_LINUX,
                 "project:/work/proj output:/media/out workdir:/work/proj/sub "
                 "temp:$TMPDIR system-temp:/tmp dev:/dev",
                 SANDBOX_NETWORK_DENY);
    expect_class(SANDBOX_CLASS_MEDIA, SANDBOX_TARGET_LINUX,
                 "output:/media/out temp:$TMPDIR dev:/dev", SANDBOX_NETWORK_DENY);
    expect_class(SANDBOX_CLASS_TOOL_SERVER, SANDBOX_TARGET_LINUX,
                 "output:/media/out workdir:/work/proj/sub temp:$TMPDIR "
                 "system-temp:/tmp dev:/dev",
                 SANDBOX_NETWORK_ALLOW);
}

static void test_build_on_linux_grants_existing_package_caches_only(void **state)
{
    char want[8192];
    const char *h = home;
    (void)state;
    /* On the host a missing cache is one to create before the launch
     * (src/caches.c, "+"): Landlock could not open it, and the tool could
     * not make it in the home. The tool's home itself is never a root
     * (~/.cargo/bin exists and is not listed). */
    mkdirs(".npm");
    mkdirs(".cargo/registry");
    mkdirs(".cargo/bin");
    mkdirs(".gradle/caches");
    mkdirs(".cache/go-build");
    snprintf(want, sizeof want,
             "project:/work/proj output:/media/out workdir:/work/proj/sub "
             "temp:$TMPDIR system-temp:/tmp dev:/dev "
             "pkg-cache:%s/.npm pkg-cache+:%s/.cache/pip pkg-cache:%s/.cargo/registry "
             "pkg-cache+:%s/.cargo/git pkg-cache+:%s/go/pkg/mod pkg-cache:%s/.cache/go-build "
             "pkg-cache:%s/.gradle/caches pkg-cache+:%s/.gradle/wrapper "
             "pkg-cache+:%s/.gradle/daemon pkg-cache+:%s/.gradle/native "
             "pkg-cache+:%s/.m2/repository pkg-cache+:%s/.bun/install/cache "
             "pkg-cache+:%s/.local/share/pnpm/store pkg-cache+:%s/.cache/pnpm "
             "pkg-cache+:%s/.cache/yarn pkg-cache+:%s/.yarn/berry/cache "
             "pkg-cache+:%s/.cache/ccache pkg-cache+:%s/.conda/pkgs",
             h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h, h);
    expect_class(SANDBOX_CLASS_BUILD, SANDBOX_TARGET_LINUX, want, SANDBOX_NETWORK_ALLOW);
}

/* A missing cache is made only for a tool this machine runs (on PATH), and
 * only in the home's cache places; an override elsewhere is left alone. */
static void test_missing_caches_only_where_and_for_what_runs(void **state)
{
    sandbox_policy *p = classed(SANDBOX_CLASS_BUILD);
    static const char *const only_go[] = {"go"};
    char dir[512], path[600];
    sbx_resolved r;
    sandbox_error err;
    const char *s;
    size_t i;
    (void)state;
    snprintf(dir, sizeof dir, "%s/onlygo", bin);
    fake_tools(dir, only_go, 1);
    setenv("PATH", dir, 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    s = roots_of(&r);
    snprintf(path, sizeof path, "pkg-cache+:%s/go/pkg/mod ", home);
    assert_non_null(strstr(s, path));
    assert_null(strstr(s, ".cache/pip"));
    assert_null(strstr(s, ".m2"));
    sbx_resolved_free(&r);
    snprintf(path, sizeof path, "%s:/usr/bin:/bin", bin);
    setenv("PATH", path, 1);
    /* An override outside the home is never made: it is left out, with a
     * note for --explain. */
    snprintf(path, sizeof path, "%s/gomod-elsewhere", scratch);
    setenv("GOMODCACHE", path, 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_null(strstr(roots_of(&r), "gomod-elsewhere"));
    for (i = 0; i < r.n_notes && !strstr(r.notes[i], "gomod-elsewhere"); i++)
        ;
    assert_true(i < r.n_notes);
    assert_non_null(strstr(r.notes[i], "not created"));
    sbx_resolved_free(&r);
    unsetenv("GOMODCACHE");
    /* A symlink planted in a writable cache (an earlier --writable-caches
     * launch could have): the cache below it is neither created nor granted. */
    mkdirs(".cache");
    snprintf(path, sizeof path, "%s/.cache/pip", home);
    snprintf(dir, sizeof dir, "%s/victim", scratch);
    assert_int_equal(symlink(dir, path), 0);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_null(strstr(roots_of(&r), ".cache/pip"));
    assert_null(strstr(roots_of(&r), "victim"));
    sbx_resolved_free(&r);
    unlink(path);
    sandbox_policy_free(p);
}

/* The creation walk never follows a link: one planted on the way (after
 * the check) stops it, and nothing is made where it pointed. */
static void test_creation_walk_stops_at_a_link(void **state)
{
    char base[512], target[512], link[600], path[700];
    struct stat st;
    (void)state;
    snprintf(base, sizeof base, "%s/walk", home);
    snprintf(target, sizeof target, "%s/elsewhere", scratch);
    assert_int_equal(mkdir(base, 0700), 0);
    assert_int_equal(mkdir(target, 0700), 0);
    snprintf(path, sizeof path, "%s/a/b/c", base);
    assert_int_equal(sbx_caches_mkdirs(path, base), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    snprintf(link, sizeof link, "%s/l", base);
    assert_int_equal(symlink(target, link), 0);
    snprintf(path, sizeof path, "%s/l/x", base);
    /* O_NOFOLLOW|O_DIRECTORY on a link: ELOOP or ENOTDIR, both a stop. */
    assert_true(sbx_caches_mkdirs(path, base) == ELOOP || sbx_caches_mkdirs(path, base) == ENOTDIR);
    snprintf(path, sizeof path, "%s/x", target);
    assert_int_not_equal(stat(path, &st), 0);
    /* A dangling link at the last component: mkdirat does not follow it. */
    snprintf(link, sizeof link, "%s/dangling", base);
    snprintf(path, sizeof path, "%s/new", target);
    assert_int_equal(symlink(path, link), 0);
    assert_true(sbx_caches_mkdirs(link, base) == ELOOP || sbx_caches_mkdirs(link, base) == ENOTDIR);
    assert_int_not_equal(stat(path, &st), 0);
    /* `base` must lead the path. */
    assert_int_equal(sbx_caches_mkdirs("/etc/x", base), EINVAL);
}

static void test_build_on_macos_lists_every_package_cache(void **state)
{
    char want[8192];
    (void)state;
    /* Not the host: nothing is dropped (Seatbelt takes missing paths). */
    snprintf(want, sizeof want,
             "project:/work/proj output:/media/out workdir:/work/proj/sub "
             "temp:$TMPDIR system-temp:/tmp dev:/dev "
             "pkg-cache:%s/.npm pkg-cache:%s/Library/Caches/pip pkg-cache:%s/.cargo/registry "
             "pkg-cache:%s/.cargo/git pkg-cache:%s/go/pkg/mod "
             "pkg-cache:%s/Library/Caches/go-build pkg-cache:%s/.gradle/caches "
             "pkg-cache:%s/.gradle/wrapper pkg-cache:%s/.gradle/daemon "
             "pkg-cache:%s/.gradle/native pkg-cache:%s/.m2/repository "
             "pkg-cache:%s/.bun/install/cache pkg-cache:%s/Library/pnpm/store "
             "pkg-cache:%s/Library/Caches/pnpm pkg-cache:%s/Library/Caches/Yarn "
             "pkg-cache:%s/.yarn/berry/cache pkg-cache:%s/Library/Caches/ccache "
             "pkg-cache:%s/.conda/pkgs",
             home, home, home, home, home, home, home, home, home, home, home, home, home, home,
             home, home, home, home);
    expect_class(SANDBOX_CLASS_BUILD, SANDBOX_TARGET_MACOS, want, SANDBOX_NETWORK_ALLOW);
}

static void test_build_on_windows_uses_profile_and_localappdata(void **state)
{
    sandbox_policy *p = classed(SANDBOX_CLASS_BUILD);
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    setenv("USERPROFILE", "C:\\Users\\me", 1);
    setenv("LOCALAPPDATA", "C:\\Users\\me\\AppData\\Local", 1);
    setenv("TEMP", "C:\\Users\\me\\AppData\\Local\\Temp", 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    assert_string_equal(
        roots_of(&r),
        "project:/work/proj output:/media/out workdir:/work/proj/sub "
        "temp:C:\\Users\\me\\AppData\\Local\\Temp "
        "pkg-cache:C:\\Users\\me\\AppData\\Local\\npm-cache "
        "pkg-cache:C:\\Users\\me\\AppData\\Local\\pip\\Cache "
        "pkg-cache:C:\\Users\\me\\.cargo\\registry pkg-cache:C:\\Users\\me\\.cargo\\git "
        "pkg-cache:C:\\Users\\me\\go\\pkg\\mod pkg-cache:C:\\Users\\me\\AppData\\Local\\go-build "
        "pkg-cache:C:\\Users\\me\\.gradle\\caches pkg-cache:C:\\Users\\me\\.gradle\\wrapper "
        "pkg-cache:C:\\Users\\me\\.gradle\\daemon pkg-cache:C:\\Users\\me\\.gradle\\native "
        "pkg-cache:C:\\Users\\me\\.m2\\repository pkg-cache:C:\\Users\\me\\.bun\\install\\cache "
        "pkg-cache:C:\\Users\\me\\AppData\\Local\\pnpm\\store "
        "pkg-cache:C:\\Users\\me\\AppData\\Local\\pnpm-cache "
        "pkg-cache:C:\\Users\\me\\AppData\\Local\\Yarn\\Cache "
        "pkg-cache:C:\\Users\\me\\.yarn\\berry\\cache "
        "pkg-cache:C:\\Users\\me\\AppData\\Local\\ccache pkg-cache:C:\\Users\\me\\.conda\\pkgs");
    assert_int_equal(r.n_deny_exec, 0);
    sbx_resolved_free(&r);
    unsetenv("USERPROFILE");
    unsetenv("LOCALAPPDATA");
    unsetenv("TEMP");
    sandbox_policy_free(p);
}

static void test_package_cache_overrides_are_respected(void **state)
{
    sandbox_policy *p = classed(SANDBOX_CLASS_BUILD);
    sbx_resolved r;
    sandbox_error err;
    const char *s;
    (void)state;
    setenv("CARGO_HOME", "/opt/cargo", 1);
    setenv("GOMODCACHE", "/opt/gomod", 1);
    setenv("npm_config_cache", "/opt/npm", 1);
    setenv("PIP_CACHE_DIR", "relative/pip", 1); /* not a fixed place: default used */
    setenv("GOPATH", "/ignored/when/gomodcache/is/set", 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    s = roots_of(&r);
    assert_non_null(strstr(s, "pkg-cache:/opt/npm "));
    assert_non_null(strstr(s, "pkg-cache:/opt/cargo/registry pkg-cache:/opt/cargo/git "));
    assert_non_null(strstr(s, "pkg-cache:/opt/gomod "));
    assert_non_null(strstr(s, "/Library/Caches/pip "));
    assert_null(strstr(s, "/.npm"));
    sbx_resolved_free(&r);

    unsetenv("GOMODCACHE");
    setenv("GOPATH", "/srv/go:/other", 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_non_null(strstr(roots_of(&r), "pkg-cache:/srv/go/pkg/mod "));
    sbx_resolved_free(&r);

    /* An override that would open the whole home fails closed. */
    setenv("npm_config_cache", home, 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "npm_config_cache="));
    setenv("npm_config_cache", "/", 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_E_PATH);
    unsetenv("npm_config_cache");
    unsetenv("CARGO_HOME");
    unsetenv("GOPATH");
    unsetenv("PIP_CACHE_DIR");
    sandbox_policy_free(p);
}

static void test_writable_caches_per_target(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    char want[1024];
    (void)state;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_working_dir(p, "/w");
    assert_int_equal(sandbox_policy_set_writable_caches(p, 2), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_writable_caches(p, 1), SANDBOX_OK);

    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    snprintf(want, sizeof want,
             "project:/w temp:$TMPDIR system-temp:/tmp dev:/dev "
             "cache:%s/Library/Caches cache:%s/.cache",
             home, home);
    assert_string_equal(roots_of(&r), want);
    sbx_resolved_free(&r);

    /* Linux, the host: ~/.cache is missing, so a launch creates it first... */
    snprintf(want, sizeof want, "rm -rf '%s/.cache'", home);
    assert_int_equal(system(want), 0);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    snprintf(want, sizeof want,
             "project:/w temp:$TMPDIR system-temp:/tmp dev:/dev cache+:%s/.cache", home);
    assert_string_equal(roots_of(&r), want);
    sbx_resolved_free(&r);
    /* ...and is once it exists; XDG_CACHE_HOME moves it. */
    mkdirs(".cache");
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    snprintf(want, sizeof want,
             "project:/w temp:$TMPDIR system-temp:/tmp dev:/dev cache:%s/.cache", home);
    assert_string_equal(roots_of(&r), want);
    sbx_resolved_free(&r);
    snprintf(want, sizeof want, "%s/xdg", scratch);
    assert_int_equal(mkdir(want, 0700), 0);
    setenv("XDG_CACHE_HOME", want, 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_string_equal(r.roots[r.n_roots - 1].path, want);
    sbx_resolved_free(&r);
    /* ...but not onto the home's configuration: only its cache locations. */
    mkdirs(".config");
    snprintf(want, sizeof want, "%s/.config", home);
    setenv("XDG_CACHE_HOME", want, 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "XDG_CACHE_HOME="));
    unsetenv("XDG_CACHE_HOME");

    setenv("USERPROFILE", "C:\\Users\\me", 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    assert_string_equal(r.roots[r.n_roots - 1].path, "C:\\Users\\me\\.cache");
    sbx_resolved_free(&r);
    unsetenv("USERPROFILE");

    /* No home: fail with a reason rather than guess. */
    unsetenv("HOME");
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_E_PATH);
    assert_non_null(strstr(err.message, "HOME"));
    setenv("HOME", home, 1);
    sandbox_policy_free(p);
}

static void test_class_setter_and_network_rules(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    assert_int_equal(sandbox_policy_class(p), SANDBOX_CLASS_PROJECT);
    assert_int_equal(sandbox_policy_set_class(p, 6), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_class(p, -1), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_class(NULL, 0), SANDBOX_E_INVALID);
    assert_true(sbx_policy_is_noop(p));
    /* Offline never has network, even when asked for later. */
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_OFFLINE), SANDBOX_OK);
    assert_int_equal(sandbox_policy_filesystem(p), SANDBOX_FS_CONFINED);
    sandbox_policy_set_network(p, SANDBOX_NETWORK_ALLOW);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_UNRESTRICTED);
    assert_false(sbx_policy_is_noop(p));
    assert_int_equal(sbx_effective_network(p), SANDBOX_NETWORK_DENY);
    sandbox_policy_set_network(p, SANDBOX_NETWORK_INTERNET_ONLY);
    /* (a class with its filesystem mode turned off is refused: below) */
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_int_equal(r.network, SANDBOX_NETWORK_DENY);
    sbx_resolved_free(&r);
    /* A class never widens read-only to writes, and never combines with
     * it: read-only reads what the account can, which would silently undo
     * the class's read rules (review of issue 28). Either order refuses. */
    sandbox_policy_set_filesystem(p, SANDBOX_FS_READ_ONLY);
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_BUILD), SANDBOX_OK);
    assert_int_equal(sandbox_policy_filesystem(p), SANDBOX_FS_READ_ONLY);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_E_INVALID);
    assert_non_null(strstr(err.message, "read-only"));
    sandbox_policy_free(p);
    {
        static const int modes[] = {SANDBOX_FS_READ_ONLY, SANDBOX_FS_UNRESTRICTED};
        size_t m;
        for (m = 0; m < 2; m++) {
            p = sandbox_policy_new();
            assert_non_null(p);
            assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_RESEARCH), SANDBOX_OK);
            assert_int_equal(sandbox_policy_set_filesystem(p, modes[m]), SANDBOX_OK);
            assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_E_INVALID);
            assert_non_null(strstr(err.message, "activity class"));
            sandbox_policy_free(p);
        }
    }
    /* The tool server reads everything anyway: no conflict to refuse. */
    p = sandbox_policy_new();
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_TOOL_SERVER), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_filesystem(p, SANDBOX_FS_UNRESTRICTED), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_media_needs_its_output_folder(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    sandbox_policy_set_class(p, SANDBOX_CLASS_MEDIA);
    assert_int_equal(sandbox_policy_set_output_dir(p, "out"), SANDBOX_E_INVALID);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_E_INVALID);
    assert_non_null(strstr(err.message, "output folder"));
    sandbox_policy_free(p);
}

static void test_internet_only_resolves_and_fails_closed_here(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    sandbox_result res;
    sandbox_report rep;
    const char *argv[] = {"true", NULL};
    (void)state;
    sandbox_policy_set_network(p, SANDBOX_NETWORK_INTERNET_ONLY);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_int_equal(r.network, SANDBOX_NETWORK_INTERNET_ONLY);
    sbx_resolved_free(&r);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(r.network, SANDBOX_NETWORK_INTERNET_ONLY);
    sbx_resolved_free(&r);
#ifndef __APPLE__
    /* Not enforced on this host: refused before anything is applied. */
    assert_false(sbx_policy_is_noop(p));
    assert_int_equal(sandbox_enforce(p, argv, &res), SANDBOX_E_UNSUPPORTED);
    assert_non_null(strstr(res.error.message, "internet-only"));
    assert_non_null(strstr(res.error.message, "not enforced"));
    sandbox_self_test(&rep);
    assert_false(rep.internet_only.available);
    assert_non_null(strstr(rep.internet_only.detail, "fails closed"));
#else
    (void)res;
    (void)rep;
    (void)argv;
#endif
    sandbox_policy_free(p);
}

static void test_never_allowed_tools_are_listed_for_macos(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    size_t i;
    int sudo = 0, osa = 0;
    (void)state;
    sandbox_policy_set_class(p, SANDBOX_CLASS_PROJECT);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_int_equal(r.n_deny_exec, 5);
    for (i = 0; i < r.n_deny_exec; i++) {
        sudo |= strcmp(r.deny_exec[i], "/usr/bin/sudo") == 0;
        osa |= strcmp(r.deny_exec[i], "/usr/bin/osascript") == 0;
    }
    assert_true(sudo && osa);
    sbx_resolved_free(&r);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(r.n_deny_exec, 0);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_scanned_roots_are_project_and_scratch_not_shared_ones(void **state)
{
    struct sbx_root roots[] = {
        {.path = "/p", .kind = SBX_ROOT_PROJECT},      {.path = "/a", .kind = SBX_ROOT_ADDED},
        {.path = "/w", .kind = SBX_ROOT_WORKDIR},      {.path = "/o", .kind = SBX_ROOT_OUTPUT},
        {.path = "/var/t", .kind = SBX_ROOT_TEMP},     {.path = "/var/tmp", .kind = SBX_ROOT_TEMP},
        {.path = "/tmp", .kind = SBX_ROOT_SYSTEM_TEMP}, {.path = "/dev", .kind = SBX_ROOT_DEV},
        {.path = "/c", .kind = SBX_ROOT_CACHE},        {.path = "/k", .kind = SBX_ROOT_PACKAGE},
    };
    const int want[] = {1, 1, 1, 1, 1, 0, 0, 0, 0, 0};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_int_equal(sbx_root_is_scanned(&roots[i]), want[i]);
    assert_string_equal(sbx_class_name(SANDBOX_CLASS_TOOL_SERVER), "tool-server");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_class_yields_its_roots_on_linux),
        cmocka_unit_test(test_build_on_linux_grants_existing_package_caches_only),
        cmocka_unit_test(test_missing_caches_only_where_and_for_what_runs),
        cmocka_unit_test(test_creation_walk_stops_at_a_link),
        cmocka_unit_test(test_build_on_macos_lists_every_package_cache),
        cmocka_unit_test(test_build_on_windows_uses_profile_and_localappdata),
        cmocka_unit_test(test_package_cache_overrides_are_respected),
        cmocka_unit_test(test_writable_caches_per_target),
        cmocka_unit_test(test_class_setter_and_network_rules),
        cmocka_unit_test(test_media_needs_its_output_folder),
        cmocka_unit_test(test_internet_only_resolves_and_fails_closed_here),
        cmocka_unit_test(test_never_allowed_tools_are_listed_for_macos),
        cmocka_unit_test(test_scanned_roots_are_project_and_scratch_not_shared_ones),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
