/* Presets: the per-user cache roots, the package caches of the build class,
 * and the never-allowed programs, resolved per target.
 *
 * Everything here is plain data computed from the environment (HOME,
 * USERPROFILE, LOCALAPPDATA, XDG_CACHE_HOME and the package managers' own
 * overrides). For the host target a cache directory that does not exist is
 * either kept as one to create before the launch (unix: resolve.c decides
 * whether it may be, src/caches.c makes it) or dropped (Windows): Landlock
 * can only grant a path it can open, and a missing cache must not turn
 * `cargo build` into a refusal to start. */
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

/* Root flags presets may set (struct sbx_root). */
#define PNPM_STORE 1

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
    int host;      /* drop missing directories, or keep them to create */
    /* The programs of the tool whose caches are being added: a missing
     * cache is created only for a tool on PATH, so a first `go build` works
     * and a home without maven gets no ~/.m2. NULL: always (~/.cache). */
    const char *const *tools;
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

/* 1: a directory; 0: nothing there (a candidate to create); -1 anything
 * else (a file, a loop, no permission): left out. */
static int dir_state(const char *path)
{
#ifdef _WIN32
    DWORD a = GetFileAttributesA(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) != 0 ? 1 : -1;
#else
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode) ? 1 : -1;
    return errno == ENOENT ? 0 : -1;
#endif
}

/* Is one of c->tools an executable file in a PATH directory? */
static int tool_on_path(const struct ctx *c)
{
#ifdef _WIN32
    (void)c;
    return 0;
#else
    const char *path = getenv("PATH"), *p;
    size_t i;
    if (!c->tools)
        return 1;
    for (i = 0; c->tools[i]; i++) {
        for (p = path; p && *p;) {
            size_t n = strcspn(p, ":");
            char *dir, *file;
            int found = 0;
            if (n > 0 && p[0] == '/' && (dir = malloc(n + 1)) != NULL) {
                struct stat st;
                memcpy(dir, p, n);
                dir[n] = '\0';
                file = sbx_path_join(dir, '/', c->tools[i]);
                found = file && stat(file, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
                free(file);
                free(dir);
            }
            if (found)
                return 1;
            p += n + (p[n] == ':');
        }
    }
    return 0;
#endif
}

/* Add `base` + optional `sub` as a root of `kind`. `from` names the
 * environment variable the base came from: resolve.c holds such a root to
 * stricter rules (a directory of the caller's own, in a cache location) and
 * names the variable when it refuses one. On the host a missing directory
 * is kept as a candidate to create (unix; resolve.c judges it like any root
 * and drops it when it may not be made); on Windows it is dropped. */
static int add_flagged(struct ctx *c, const char *base, const char *sub, int kind,
                       const char *from, int flags)
{
    char *path;
    size_t before = c->r->n_roots;
    int rc = SANDBOX_OK, state = 1;
    path = sub ? sbx_path_join(base, c->sep, sub) : sbx_strdup(base);
    if (!path)
        return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing caches");
    if (c->host)
        state = dir_state(path);
#ifdef _WIN32
    if (state == 0)
        state = -1; /* the ACL grants need the directory: not created on Windows yet */
#endif
    if (state == 0 && !tool_on_path(c))
        state = -1; /* a tool this machine does not run: nothing to make for it */
    if (state >= 0)
        rc = sbx_resolved_add_root_from(c->r, path, kind, from);
    if (rc == SANDBOX_OK && c->r->n_roots > before) {
        c->r->roots[before].create = state == 0;
        c->r->roots[before].pnpm_store = (flags & PNPM_STORE) != 0;
    }
    free(path);
    if (rc != SANDBOX_OK)
        return sbx_fail(c->err, rc, ENOMEM, "out of memory while listing caches");
    return SANDBOX_OK;
}

static int add(struct ctx *c, const char *base, const char *sub, int kind, const char *from)
{
    return add_flagged(c, base, sub, kind, from, 0);
}

/* A base directory from an override variable, else home + default. */
static int add_tool_flagged(struct ctx *c, const char *var, const char *dflt, const char *sub,
                            int kind, int flags)
{
    const char *v = var ? env_path(c, var) : NULL;
    char *base;
    int rc;
    if (v)
        return add_flagged(c, v, sub, kind, var, flags);
    base = sbx_path_join(c->home, c->sep, dflt);
    if (!base)
        return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing caches");
    rc = add_flagged(c, base, sub, kind, NULL, flags);
    free(base);
    return rc;
}

static int add_tool(struct ctx *c, const char *var, const char *dflt, const char *sub, int kind)
{
    return add_tool_flagged(c, var, dflt, sub, kind, 0);
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
static int add_in_cache_home_flagged(struct ctx *c, const char *name, int flags)
{
    const char *v;
    char *base;
    int rc;
    if (c->r->target == SANDBOX_TARGET_MACOS)
        return add_tool_flagged(c, NULL, "Library/Caches", name, SBX_ROOT_PACKAGE, flags);
    if (c->r->target == SANDBOX_TARGET_WINDOWS) {
        if ((v = env_path(c, "LOCALAPPDATA")) != NULL)
            return add_flagged(c, v, name, SBX_ROOT_PACKAGE, "LOCALAPPDATA", flags);
        base = sbx_path_join(c->home, c->sep, "AppData\\Local");
        if (!base)
            return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
        rc = add_flagged(c, base, name, SBX_ROOT_PACKAGE, NULL, flags);
        free(base);
        return rc;
    }
    return add_tool_flagged(c, "XDG_CACHE_HOME", ".cache", name, SBX_ROOT_PACKAGE, flags);
}

static int add_in_cache_home(struct ctx *c, const char *name)
{
    return add_in_cache_home_flagged(c, name, 0);
}

/* The first entry of a list variable (GOPATH, CONDA_PKGS_DIRS), when it is
 * an absolute path for the target; newly allocated, NULL otherwise (*oom on
 * an allocation failure). */
static char *first_entry(const struct ctx *c, const char *var, const char *seps, int *oom)
{
    const char *v = getenv(var);
    size_t n;
    char *first;
    *oom = 0;
    if (!v || !v[0])
        return NULL;
    n = strcspn(v, seps);
    first = malloc(n + 1);
    if (!first) {
        *oom = 1;
        return NULL;
    }
    memcpy(first, v, n);
    first[n] = '\0';
    if (!absolute_for(c, first)) {
        free(first);
        return NULL;
    }
    return first;
}

/* pnpm, yarn, ccache and conda (issue 23). Each grants its cache or store,
 * never the tool's home: PNPM_HOME holds pnpm's global programs (on PATH),
 * ~/.yarn/berry its telemetry settings beside the cache, ccache's own
 * CCACHE_DIR or ~/.ccache its ccache.conf (compiler_check runs a command in
 * every later build), so those two are not granted (docs/classes.md). */
static int add_more_caches(struct ctx *c)
{
    static const char *const pnpm[] = {"pnpm", NULL}, *const yarn[] = {"yarn", NULL},
                             *const ccache[] = {"ccache", NULL},
                             *const conda[] = {"conda", "mamba", "micromamba", NULL};
    const int win = c->win, mac = c->r->target == SANDBOX_TARGET_MACOS;
    const char *v;
    char *first;
    int rc, oom;

    /* pnpm's content-addressed store, where pnpm's own default puts it:
     * $PNPM_HOME/store, $XDG_DATA_HOME/pnpm/store, else per platform. */
    c->tools = pnpm;
    if ((v = env_path(c, "PNPM_HOME")) != NULL)
        rc = add_flagged(c, v, "store", SBX_ROOT_PACKAGE, "PNPM_HOME", PNPM_STORE);
    else if (!win && (v = env_path(c, "XDG_DATA_HOME")) != NULL)
        rc = add_flagged(c, v, "pnpm/store", SBX_ROOT_PACKAGE, "XDG_DATA_HOME", PNPM_STORE);
    else if (win)
        rc = add_in_cache_home_flagged(c, "pnpm\\store", PNPM_STORE);
    else
        rc = add_tool_flagged(c, NULL, mac ? "Library/pnpm" : ".local/share/pnpm", "store",
                              SBX_ROOT_PACKAGE, PNPM_STORE);
    /* pnpm's metadata cache. */
    if (rc == SANDBOX_OK)
        rc = add_in_cache_home(c, win ? "pnpm-cache" : "pnpm");
    /* yarn 1's cache (YARN_CACHE_FOLDER moves it), and yarn 2+'s global
     * cache in its global folder (YARN_GLOBAL_FOLDER, default ~/.yarn/berry). */
    c->tools = yarn;
    if (rc == SANDBOX_OK) {
        if ((v = env_path(c, "YARN_CACHE_FOLDER")) != NULL)
            rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "YARN_CACHE_FOLDER");
        else
            rc = add_in_cache_home(c, win ? "Yarn\\Cache" : mac ? "Yarn" : "yarn");
    }
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "YARN_GLOBAL_FOLDER", win ? ".yarn\\berry" : ".yarn/berry", "cache",
                      SBX_ROOT_PACKAGE);
    /* ccache's cache in the cache home, where ccache 4 keeps it with its
     * configuration elsewhere (~/.config/ccache). */
    c->tools = ccache;
    if (rc == SANDBOX_OK)
        rc = add_in_cache_home(c, "ccache");
    /* conda's package cache: the first CONDA_PKGS_DIRS entry, else the
     * per-user ~/.conda/pkgs (the installation's own pkgs directory sits
     * beside its programs). */
    c->tools = conda;
    if (rc == SANDBOX_OK) {
        first = first_entry(c, "CONDA_PKGS_DIRS", win ? ",;" : ",:", &oom);
        if (oom)
            return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory");
        if (first)
            rc = add(c, first, NULL, SBX_ROOT_PACKAGE, "CONDA_PKGS_DIRS");
        else
            rc = add_tool(c, NULL, win ? ".conda\\pkgs" : ".conda/pkgs", NULL, SBX_ROOT_PACKAGE);
        free(first);
    }
    return rc;
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

    static const char *const npm[] = {"npm", NULL}, *const pip[] = {"pip", "pip3", "python3", NULL},
                             *const cargo[] = {"cargo", NULL}, *const go[] = {"go", NULL},
                             *const gradle[] = {"gradle", NULL}, *const maven[] = {"mvn", NULL},
                             *const bun[] = {"bun", NULL};

    /* npm: ~/.npm (the cache, logs and npx); Windows %LOCALAPPDATA%\npm-cache. */
    c->tools = npm;
    if ((v = env_path(c, "npm_config_cache")) != NULL || (v = env_path(c, "NPM_CONFIG_CACHE")))
        rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "npm_config_cache");
    else if (win)
        rc = add_in_cache_home(c, "npm-cache");
    else
        rc = add_tool(c, NULL, ".npm", NULL, SBX_ROOT_PACKAGE);
    /* pip: its cache only, in the platform's cache home. */
    c->tools = pip;
    if (rc == SANDBOX_OK) {
        if ((v = env_path(c, "PIP_CACHE_DIR")) != NULL)
            rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "PIP_CACHE_DIR");
        else
            rc = add_in_cache_home(c, win ? "pip\\Cache" : "pip");
    }
    /* cargo: the registry and git checkouts, not bin/ or credentials. */
    c->tools = cargo;
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "CARGO_HOME", ".cargo", "registry", SBX_ROOT_PACKAGE);
    if (rc == SANDBOX_OK)
        rc = add_tool(c, "CARGO_HOME", ".cargo", "git", SBX_ROOT_PACKAGE);
    /* go: the module cache (GOMODCACHE, else the first GOPATH entry's
     * pkg/mod) and the build cache (GOCACHE), which `go build` needs. */
    c->tools = go;
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
    c->tools = gradle;
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
    c->tools = maven;
    if (rc == SANDBOX_OK)
        rc = add_tool(c, NULL, win ? ".m2\\repository" : ".m2/repository", NULL,
                      SBX_ROOT_PACKAGE);
    /* bun: the install cache. */
    c->tools = bun;
    if (rc == SANDBOX_OK) {
        if ((v = env_path(c, "BUN_INSTALL_CACHE_DIR")) != NULL)
            rc = add(c, v, NULL, SBX_ROOT_PACKAGE, "BUN_INSTALL_CACHE_DIR");
        else
            rc = add_tool(c, "BUN_INSTALL", ".bun", win ? "install\\cache" : "install/cache",
                          SBX_ROOT_PACKAGE);
    }
    if (rc == SANDBOX_OK)
        rc = add_more_caches(c);
    c->tools = NULL;
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

int sbx_presets_package_caches(int target, int host, sbx_resolved *out, sandbox_error *err)
{
    struct ctx c;
    memset(out, 0, sizeof *out);
    out->target = target;
    memset(&c, 0, sizeof c);
    c.r = out;
    c.host = host;
    c.win = target == SANDBOX_TARGET_WINDOWS;
    c.sep = c.win ? '\\' : '/';
    c.err = err;
    c.home = env_path(&c, c.win ? "USERPROFILE" : "HOME");
    if (!c.home)
        return SANDBOX_OK; /* no home: a class refuses to run without one anyway */
    return add_package_caches(&c);
}
