/* Presets: the per-user cache roots, the package caches of the build class,
 * and the never-allowed programs, resolved per target.
 *
 * Everything here is plain data computed from the environment (HOME,
 * USERPROFILE, LOCALAPPDATA, XDG_CACHE_HOME and the package managers' own
 * overrides). For the host target a cache directory that does not exist is
 * dropped: Landlock can only grant a path it can open, and a missing cache
 * must not turn `cargo build` into a refusal to start. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#  include <windows.h>
#else
#  include <sys/stat.h>
#endif

/* Spec: never-allowed tools on macOS. Seatbelt judges exec by path; these
 * are the system locations (SIP keeps them where they are). */
static const char *const macos_deny_exec[] = {
    "/bin/launchctl",    /* loads agents that outlive the sandbox */
    "/usr/bin/osascript",/* Apple events drive other, unconfined apps */
    "/usr/bin/open",     /* asks LaunchServices to start apps outside the sandbox */
    "/usr/bin/security", /* keychain access */
    "/usr/bin/sudo",     /* privilege escalation */
};

void sbx_presets_deny_exec(int target, const char *const **list, size_t *n)
{
    if (target == SANDBOX_TARGET_MACOS) {
        *list = macos_deny_exec;
        *n = sizeof macos_deny_exec / sizeof macos_deny_exec[0];
    } else {
        /* Linux: no_new_privs makes sudo and every setuid or file-capability
         * program powerless (docs/classes.md). Windows: AppContainer tokens
         * cannot elevate. Nothing to render. */
        *list = NULL;
        *n = 0;
    }
}

struct ctx {
    sbx_resolved *r;
    int host;      /* drop missing directories */
    int win;       /* Windows target: '\' and drive-letter paths */
    char sep;
    const char *home;
    sandbox_error *err;
};

static int absolute_for(const struct ctx *c, const char *p)
{
    if (!p || !p[0])
        return 0;
    if (!c->win)
        return p[0] == '/';
    return (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
            (p[2] == '\\' || p[2] == '/')) ||
           (p[0] == '\\' && p[1] == '\\');
}

/* An environment value, when it names an absolute path for this target. A
 * relative override names no fixed directory, so the default is used. */
static const char *env_path(const struct ctx *c, const char *name)
{
    const char *v = getenv(name);
    return absolute_for(c, v) ? v : NULL;
}

static int is_dir(const char *path)
{
#ifdef _WIN32
    DWORD a = GetFileAttributesA(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) != 0;
#else
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
#endif
}

/* Add `base` + optional `sub` as a root of `kind`. `from` names the
 * environment variable the base came from: resolve.c holds such a root to
 * stricter rules (a directory of the caller's own, in a cache location) and
 * names the variable when it refuses one. */
static int add(struct ctx *c, const char *base, const char *sub, int kind, const char *from)
{
    char *path;
    int rc = SANDBOX_OK;
    path = sub ? sbx_path_join(base, c->sep, sub) : sbx_strdup(base);
    if (!path)
        return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing caches");
    if (!c->host || is_dir(path))
        rc = sbx_resolved_add_root_from(c->r, path, kind, from);
    free(path);
    if (rc != SANDBOX_OK)
        return sbx_fail(c->err, rc, ENOMEM, "out of memory while listing caches");
    return SANDBOX_OK;
}

/* A base directory from an override variable, else home + default. */
static int add_tool(struct ctx *c, const char *var, const char *dflt, const char *sub, int kind)
{
    const char *v = var ? env_path(c, var) : NULL;
    char *base;
    int rc;
    if (v)
        return add(c, v, sub, kind, var);
    base = sbx_path_join(c->home, c->sep, dflt);
    if (!base)
        return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing caches");
    rc = add(c, base, sub, kind, NULL);
    free(base);
    return rc;
}

/* The per-user cache directory: XDG on Linux, ~/Library/Caches on macOS. */
static int add_user_caches(struct ctx *c)
{
    int rc;
    switch (c->r->target) {
    case SANDBOX_TARGET_MACOS:
        rc = add_tool(c, NULL, "Library/Caches", NULL, SBX_ROOT_CACHE);
        if (rc == SANDBOX_OK)
            rc = add_tool(c, NULL, ".cache", NULL, SBX_ROOT_CACHE);
        return rc;
    case SANDBOX_TARGET_WINDOWS:
        return add_tool(c, NULL, ".cache", NULL, SBX_ROOT_CACHE);
    default:
        return add_tool(c, "XDG_CACHE_HOME", ".cache", NULL, SBX_ROOT_CACHE);
    }
}

/* A directory beneath the platform's cache home: XDG or ~/.cache on Linux,
 * ~/Library/Caches on macOS, %LOCALAPPDATA% on Windows. */
static int add_in_cache_home(struct ctx *c, const char *name)
{
    const char *v;
    char *base;
    int rc;
    if (c->r->target == SANDBOX_TARGET_MACOS)
        return add_tool(c, NULL, "Library/Caches", name, SBX_ROOT_PACKAGE);
    if (c->r->target == SANDBOX_TARGET_WINDOWS) {
        if ((v = env_path(c, "LOCALAPPDATA")) != NULL)
            return add(c, v, name, SBX_ROOT_PACKAGE, "LOCALAPPDATA");
        base = sbx_path_join(c->home, c->sep, "AppData\\Local");
        if (!base)
            return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
        rc = add(c, base, name, SBX_ROOT_PACKAGE, NULL);
        free(base);
        return rc;
    }
    return add_tool(c, "XDG_CACHE_HOME", ".cache", name, SBX_ROOT_PACKAGE);
}

/* The package caches of the build class. Only the cache parts of each tool's
 * home are granted, never its configuration: ~/.cargo/bin is on PATH,
 * ~/.cargo/credentials.toml, ~/.m2/settings.xml and ~/.gradle/gradle.properties
 * hold credentials, and ~/.gradle/init.d runs code in every later build. */
static int add_package_caches(struct ctx *c)
{
    int rc = SANDBOX_OK;
    const char *gopath, *v;
    char *first = NULL;
    const int win = c->win;

    /* npm: ~/.npm (the cache, logs and npx); Windows %LOCALAPPDATA%\npm-cache. */
    if ((v = env_path(c, "npm_config_cache")) != NULL || (v = env_path(c, "NPM_CONFIG_CACHE")))
        rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "npm_config_cache");
    else if (win)
        rc = add_in_cache_home(c, "npm-cache");
    else
        rc = add_tool(c, NULL, ".npm", NULL, SBX_ROOT_PACKAGE);
    /* pip: its cache only, in the platform's cache home. */
    if (rc == SANDBOX_OK) {
        if ((v = env_path(c, "PIP_CACHE_DIR")) != NULL)
            rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "PIP_CACHE_DIR");
        else
            rc = add_in_cache_home(c, win ? "pip\\Cache" : "pip");
    }
    /* cargo: the registry and git checkouts, not bin/ or credentials. */
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "CARGO_HOME", ".cargo", "registry", SBX_ROOT_PACKAGE);
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "CARGO_HOME", ".cargo", "git", SBX_ROOT_PACKAGE);
    /* go: the module cache (GOMODCACHE, else the first GOPATH entry's
     * pkg/mod) and the build cache (GOCACHE), which `go build` needs. */
    if (rc == SANDBOX_OK) {
        if ((v = env_path(c, "GOMODCACHE")) != NULL) {
            rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "GOMODCACHE");
        } else if ((gopath = getenv("GOPATH")) != NULL && gopath[0]) {
            size_t n = strcspn(gopath, win ? ";" : ":");
            first = malloc(n + 1);
            if (!first)
                return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
            memcpy(first, gopath, n);
            first[n] = '\0';
            if (absolute_for(c, first))
                rc = add(c, first, win ? "pkg\\mod" : "pkg/mod", SBX_ROOT_PACKAGE, "GOPATH");
            else
                rc = add_tool(c, NULL, "go", win ? "pkg\\mod" : "pkg/mod", SBX_ROOT_PACKAGE);
            free(first);
        } else {
            rc = add_tool(c, NULL, "go", win ? "pkg\\mod" : "pkg/mod", SBX_ROOT_PACKAGE);
        }
    }
    if (rc == SANDBOX_OK) {
        if ((v = env_path(c, "GOCACHE")) != NULL)
            rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "GOCACHE");
        else
            rc = add_in_cache_home(c, "go-build");
    }
    /* gradle: dependency caches, downloaded distributions (./gradlew), the
     * daemon's registry and native libraries; not gradle.properties/init.d. */
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "GRADLE_USER_HOME", ".gradle", "caches", SBX_ROOT_PACKAGE);
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "GRADLE_USER_HOME", ".gradle", "wrapper", SBX_ROOT_PACKAGE);
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "GRADLE_USER_HOME", ".gradle", "daemon", SBX_ROOT_PACKAGE);
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "GRADLE_USER_HOME", ".gradle", "native", SBX_ROOT_PACKAGE);
    /* maven: the local repository only (settings.xml holds credentials).
     * Its override is a -D property, not an environment variable. */
    if (rc == SANDBOX_OK)
        rc = add_tool(c, NULL, win ? ".m2\\repository" : ".m2/repository", NULL,
                      SBX_ROOT_PACKAGE);
    /* bun: the install cache. */
    if (rc == SANDBOX_OK) {
        if ((v = env_path(c, "BUN_INSTALL_CACHE_DIR")) != NULL)
            rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "BUN_INSTALL_CACHE_DIR");
        else
            rc = add_tool(c, "BUN_INSTALL", ".bun", win ? "install\\cache" : "install/cache",
                          SBX_ROOT_PACKAGE);
    }
    return rc;
}

int sbx_presets_add_cache_roots(const sandbox_policy *p, sbx_resolved *r, int host,
                                sandbox_error *err)
{
    struct ctx c;
    int rc = SANDBOX_OK;

    if (!p->writable_caches && p->klass != SANDBOX_CLASS_BUILD)
        return SANDBOX_OK;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.host = host;
    c.win = r->target == SANDBOX_TARGET_WINDOWS;
    c.sep = c.win ? '\\' : '/';
    c.err = err;
    c.home = env_path(&c, c.win ? "USERPROFILE" : "HOME");
    if (!c.home)
        return sbx_fail(err, SANDBOX_E_PATH, 0,
                        "%s needs the home directory, but %s is unset or not absolute",
                        p->klass == SANDBOX_CLASS_BUILD ? "the build class"
                                                        : "writable caches",
                        c.win ? "USERPROFILE" : "HOME");
    if (p->writable_caches)
        rc = add_user_caches(&c);
    if (rc == SANDBOX_OK && p->klass == SANDBOX_CLASS_BUILD)
        rc = add_package_caches(&c);
    return rc;
}
