/* The policy object and its resolution into writable roots. No system calls
 * other than reading the working directory and the environment. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#  include <unistd.h>
#else
#  include <direct.h>
#endif

sandbox_policy *sandbox_policy_new(void)
{
    return calloc(1, sizeof(sandbox_policy));
}

void sandbox_policy_free(sandbox_policy *p)
{
    size_t i;
    if (!p)
        return;
    free(p->project_root);
    free(p->working_dir);
    free(p->temp_dir);
    free(p->output_dir);
    for (i = 0; i < p->n_add_dirs; i++)
        free(p->add_dirs[i]);
    free(p->add_dirs);
    for (i = 0; i < p->n_allow_links; i++)
        free(p->allow_links[i]);
    free(p->allow_links);
    sbx_protect_free(p->protect, p->n_protect);
    free(p);
}

static int copy_list(char ***to, size_t *n_to, char *const *from, size_t n)
{
    size_t i;
    *to = NULL;
    *n_to = 0;
    if (n == 0)
        return SANDBOX_OK;
    *to = calloc(n, sizeof **to);
    if (!*to)
        return SANDBOX_E_NOMEM;
    for (i = 0; i < n; i++) {
        (*to)[i] = sbx_strdup(from[i]);
        if (!(*to)[i])
            return SANDBOX_E_NOMEM; /* the caller frees what was copied */
        *n_to = i + 1;
    }
    return SANDBOX_OK;
}

static int copy_string(char **to, const char *from)
{
    *to = from ? sbx_strdup(from) : NULL;
    return from && !*to ? SANDBOX_E_NOMEM : SANDBOX_OK;
}

sandbox_policy *sbx_policy_copy(const sandbox_policy *p)
{
    sandbox_policy *c = calloc(1, sizeof *c);
    size_t i;
    int rc;
    if (!c)
        return NULL;
    c->network = p->network;
    c->filesystem = p->filesystem;
    c->deny_action = p->deny_action;
    c->klass = p->klass;
    c->class_chosen = p->class_chosen;
    c->writable_caches = p->writable_caches;
    c->scan_hardlinks = p->scan_hardlinks;
    rc = copy_string(&c->project_root, p->project_root);
    if (rc == SANDBOX_OK)
        rc = copy_string(&c->working_dir, p->working_dir);
    if (rc == SANDBOX_OK)
        rc = copy_string(&c->temp_dir, p->temp_dir);
    if (rc == SANDBOX_OK)
        rc = copy_string(&c->output_dir, p->output_dir);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->add_dirs, &c->n_add_dirs, p->add_dirs, p->n_add_dirs);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->allow_links, &c->n_allow_links, p->allow_links, p->n_allow_links);
    if (rc == SANDBOX_OK && p->n_protect > 0) {
        c->protect = calloc(p->n_protect, sizeof *c->protect);
        rc = c->protect ? SANDBOX_OK : SANDBOX_E_NOMEM;
        for (i = 0; rc == SANDBOX_OK && i < p->n_protect; i++) {
            c->protect[i] = p->protect[i];
            c->protect[i].pattern = sbx_strdup(p->protect[i].pattern);
            if (!c->protect[i].pattern)
                rc = SANDBOX_E_NOMEM;
            else
                c->n_protect = i + 1;
        }
    }
    if (rc != SANDBOX_OK) {
        sandbox_policy_free(c);
        return NULL;
    }
    return c;
}

int sandbox_policy_set_network(sandbox_policy *p, int network)
{
    if (!p || network < SANDBOX_NETWORK_ALLOW || network > SANDBOX_NETWORK_INTERNET_ONLY)
        return SANDBOX_E_INVALID;
    p->network = network;
    return SANDBOX_OK;
}

int sandbox_policy_set_filesystem(sandbox_policy *p, int fs)
{
    if (!p || fs < SANDBOX_FS_UNRESTRICTED || fs > SANDBOX_FS_READ_ONLY)
        return SANDBOX_E_INVALID;
    p->filesystem = fs;
    return SANDBOX_OK;
}

int sandbox_policy_set_deny_action(sandbox_policy *p, int action)
{
    if (!p || (action != SANDBOX_DENY_SIGSYS && action != SANDBOX_DENY_EPERM))
        return SANDBOX_E_INVALID;
    p->deny_action = action;
    return SANDBOX_OK;
}

/* Absolute on either family of systems: "/x", "C:\x", "C:/x", "\\server\x". */
static int is_absolute(const char *path)
{
    if (path[0] == '/')
        return 1;
    if (((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
        path[1] == ':' && (path[2] == '\\' || path[2] == '/'))
        return 1;
    return path[0] == '\\' && path[1] == '\\';
}

static int set_path(char **slot, const char *path)
{
    char *copy;
    if (!path || !path[0] || !is_absolute(path))
        return SANDBOX_E_INVALID;
    copy = sbx_strdup(path);
    if (!copy)
        return SANDBOX_E_NOMEM;
    free(*slot);
    *slot = copy;
    return SANDBOX_OK;
}

int sandbox_policy_set_project_root(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->project_root, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_working_dir(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->working_dir, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_temp_dir(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->temp_dir, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_output_dir(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->output_dir, dir) : SANDBOX_E_INVALID;
}

static int append_path(char ***list, size_t *n, const char *path)
{
    char **grown;
    char *copy = NULL;
    int rc;
    rc = set_path(&copy, path);
    if (rc != SANDBOX_OK)
        return rc;
    grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    *list = grown;
    (*list)[(*n)++] = copy;
    return SANDBOX_OK;
}

int sandbox_policy_add_writable_dir(sandbox_policy *p, const char *dir)
{
    return p ? append_path(&p->add_dirs, &p->n_add_dirs, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_allow_hardlink(sandbox_policy *p, const char *path)
{
    return p ? append_path(&p->allow_links, &p->n_allow_links, path) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_class(sandbox_policy *p, int klass)
{
    if (!p || klass < SANDBOX_CLASS_PROJECT || klass > SANDBOX_CLASS_TOOL_SERVER)
        return SANDBOX_E_INVALID;
    p->klass = klass;
    p->class_chosen = 1;
    /* A class only means something when writes are confined; read-only is
     * stricter than every class and stays. */
    if (p->filesystem != SANDBOX_FS_READ_ONLY)
        p->filesystem = SANDBOX_FS_CONFINED;
    if (sbx_class_denies_network(klass))
        p->network = SANDBOX_NETWORK_DENY;
    /* Spec: the scan is on in every class; a host may switch it off after.
     * Not on Windows, where the scan is a stub: a class there would always
     * refuse to start; asking for the scan explicitly still fails closed. */
#ifndef _WIN32
    p->scan_hardlinks = 1;
#endif
    return SANDBOX_OK;
}

int sandbox_policy_class(const sandbox_policy *p)
{
    return p ? p->klass : SANDBOX_CLASS_PROJECT;
}

int sandbox_policy_set_writable_caches(sandbox_policy *p, int on)
{
    if (!p || (on != 0 && on != 1))
        return SANDBOX_E_INVALID;
    p->writable_caches = on;
    return SANDBOX_OK;
}

int sandbox_policy_set_scan_hardlinks(sandbox_policy *p, int on)
{
    if (!p || (on != 0 && on != 1))
        return SANDBOX_E_INVALID;
    p->scan_hardlinks = on;
    return SANDBOX_OK;
}

int sbx_class_denies_network(int klass)
{
    return klass == SANDBOX_CLASS_OFFLINE || klass == SANDBOX_CLASS_MEDIA;
}

int sbx_effective_network(const sandbox_policy *p)
{
    if (sbx_class_denies_network(p->klass) || p->filesystem == SANDBOX_FS_READ_ONLY)
        return SANDBOX_NETWORK_DENY;
    return p->network;
}

const char *sbx_class_name(int klass)
{
    switch (klass) {
    case SANDBOX_CLASS_PROJECT: return "project";
    case SANDBOX_CLASS_RESEARCH: return "research";
    case SANDBOX_CLASS_BUILD: return "build";
    case SANDBOX_CLASS_OFFLINE: return "offline";
    case SANDBOX_CLASS_MEDIA: return "media";
    case SANDBOX_CLASS_TOOL_SERVER: return "tool-server";
    default: return "?";
    }
}

int sandbox_policy_network(const sandbox_policy *p)
{
    return p ? p->network : SANDBOX_NETWORK_ALLOW;
}

int sandbox_policy_filesystem(const sandbox_policy *p)
{
    return p ? p->filesystem : SANDBOX_FS_UNRESTRICTED;
}

const char *sandbox_policy_project_root(const sandbox_policy *p)
{
    return p ? p->project_root : NULL;
}

int sbx_policy_is_noop(const sandbox_policy *p)
{
    /* The effective network: a class that forbids it is never a no-op.
     * Protection alone is a confinement too: it must reach the backend. */
    return sbx_effective_network(p) == SANDBOX_NETWORK_ALLOW &&
           p->filesystem == SANDBOX_FS_UNRESTRICTED && p->n_protect == 0;
}

/* ---- resolution ---- */

const char *sbx_root_kind_name(int kind)
{
    switch (kind) {
    case SBX_ROOT_PROJECT: return "project";
    case SBX_ROOT_ADDED: return "added";
    case SBX_ROOT_WORKDIR: return "workdir";
    case SBX_ROOT_TEMP: return "temp";
    case SBX_ROOT_SYSTEM_TEMP: return "system-temp";
    case SBX_ROOT_DEV: return "dev";
    case SBX_ROOT_OUTPUT: return "output";
    case SBX_ROOT_CACHE: return "cache";
    case SBX_ROOT_PACKAGE: return "pkg-cache";
    case SBX_ROOT_USER_CACHE: return "user-cache";
    default: return "?";
    }
}

void sbx_resolved_free(sbx_resolved *r)
{
    size_t i;
    if (!r)
        return;
    for (i = 0; i < r->n_roots; i++)
        free(r->roots[i].path);
    free(r->roots);
    free(r->working_dir);
    free(r->project_root);
    free(r->temp_dir);
    sbx_protect_free(r->protect, r->n_protect);
    sbx_protect_free(r->protect_home, r->n_protect_home);
    free(r->home_dir);
    memset(r, 0, sizeof *r);
}

/* Drop trailing separators ("/a/b/" -> "/a/b") but keep a lone root. A
 * backslash separates only in Windows-style paths: on unix it is an ordinary
 * character, and "/x/proj\\" is a different directory from "/x/proj". */
static void trim_trailing_sep(char *s)
{
    size_t n = strlen(s);
    int windows = s[0] != '/';
    while (n > 1 && (s[n - 1] == '/' || (windows && s[n - 1] == '\\')) &&
           !(n == 3 && s[1] == ':'))
        s[--n] = '\0';
}

int sbx_root_is_scanned(const struct sbx_root *root)
{
    switch (root->kind) {
    case SBX_ROOT_PROJECT:
    case SBX_ROOT_ADDED:
    case SBX_ROOT_WORKDIR:
    case SBX_ROOT_OUTPUT:
    case SBX_ROOT_USER_CACHE: /* private to this user, like TMPDIR: scanned */
        return 1;
    case SBX_ROOT_TEMP:
        /* The shared /tmp holds other users' private directories that can
         * never be listed, so scanning it would refuse every launch; it stays
         * unscanned like the system-temp root itself. */
        return strcmp(root->path, "/tmp") != 0 && strcmp(root->path, "/private/tmp") != 0 &&
               strcmp(root->path, "/var/tmp") != 0 && strcmp(root->path, "/private/var/tmp") != 0;
    default:
        return 0; /* /tmp, /dev and caches: see docs/classes.md */
    }
}

/* DARWIN_USER_CACHE_DIR is TMPDIR's sibling: /var/folders/XX/YYYY/T is the
 * temp dir, .../C the cache, where clang and swift keep their module caches.
 * Derived as text from the temp root's shape; any other TMPDIR has no known
 * sibling, and then NULL. */
static char *user_cache_sibling(const char *tmp)
{
    const char *p = tmp, *c1, *c2;
    size_t n;
    char *out;
    if (strncmp(p, "/private", 8) == 0)
        p += 8;
    if (strncmp(p, "/var/folders/", 13) != 0)
        return NULL;
    c1 = p + 13;
    c2 = strchr(c1, '/');
    if (!c2 || c2 == c1 || !(c2 = strchr(c2 + 1, '/')) || c2[-1] == '/')
        return NULL;
    if (strcmp(c2, "/T") != 0 && strcmp(c2, "/T/") != 0)
        return NULL;
    n = (size_t)(c2 - tmp);
    out = malloc(n + sizeof "/C");
    if (out) {
        memcpy(out, tmp, n);
        memcpy(out + n, "/C", sizeof "/C");
    }
    return out;
}

int sbx_resolved_add_root(sbx_resolved *r, const char *path, int kind)
{
    struct sbx_root *grown;
    char *copy;
    size_t i;
    copy = sbx_strdup(path);
    if (!copy)
        return SANDBOX_E_NOMEM;
    trim_trailing_sep(copy);
    for (i = 0; i < r->n_roots; i++) {
        if (strcmp(r->roots[i].path, copy) == 0) {
            free(copy);
            return SANDBOX_OK;
        }
    }
    grown = realloc(r->roots, (r->n_roots + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    r->roots = grown;
    r->roots[r->n_roots].path = copy;
    r->roots[r->n_roots].kind = kind;
    r->n_roots++;
    return SANDBOX_OK;
}

static char *current_dir(void)
{
    size_t size = 256;
    for (;;) {
        char *buf = malloc(size), *got;
        if (!buf)
            return NULL;
#ifdef _WIN32
        got = _getcwd(buf, (int)size);
#else
        got = getcwd(buf, size);
#endif
        if (got)
            return buf;
        free(buf);
        if (errno != ERANGE || size > 65536)
            return NULL;
        size *= 2;
    }
}

static int host_target(void)
{
#if defined(__linux__)
    return SANDBOX_TARGET_LINUX;
#elif defined(__APPLE__)
    return SANDBOX_TARGET_MACOS;
#elif defined(_WIN32)
    return SANDBOX_TARGET_WINDOWS;
#else
    return SANDBOX_TARGET_LINUX; /* explain output only; enforcement reports unsupported */
#endif
}

/* 1 when `dir` is `home` or one of its ancestors ("/" included). Textual, on
 * paths without trailing separators; case-insensitive where the target's
 * file systems usually are. */
static int contains_home(const char *dir, const char *home, int fold_case)
{
    size_t n = strlen(dir);
    int same;
    if (n == 1 && (dir[0] == '/' || dir[0] == '\\'))
        return 1;
    same = fold_case ? sbx_strncasecmp_ascii(dir, home, n) == 0 : strncmp(dir, home, n) == 0;
    return same && (home[n] == '\0' || home[n] == '/' || home[n] == '\\');
}

/* Spec 004: the home directory and "/" are never a project. The project root
 * and the working directory become writable implicitly (a command started
 * from ~ would otherwise be free to rewrite ~/.bashrc), so refuse them; an
 * explicitly added directory stays the caller's deliberate choice. */
static int refuse_home_roots(const sbx_resolved *r, int target, sandbox_error *err)
{
    const char *env = getenv(target == SANDBOX_TARGET_WINDOWS ? "USERPROFILE" : "HOME");
    int fold = target != SANDBOX_TARGET_LINUX;
    char *home;
    size_t i;
    if (!env || !env[0])
        env = "";
    home = sbx_strdup(env);
    if (!home)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while checking roots");
    trim_trailing_sep(home);
    for (i = 0; i < r->n_roots; i++) {
        const struct sbx_root *root = &r->roots[i];
        int is_root_dir = strcmp(root->path, "/") == 0;
        if (root->kind != SBX_ROOT_PROJECT && root->kind != SBX_ROOT_WORKDIR)
            continue;
        if (is_root_dir || (home[0] && contains_home(root->path, home, fold))) {
            sbx_fail(err, SANDBOX_E_PATH, 0,
                     "refusing to make %s writable: it is %s, and a sandbox that may write "
                     "there confines nothing; run the command from the project directory, or "
                     "set the %s to it (--project/--workdir)",
                     root->path, is_root_dir ? "the file system root" : "or contains your home directory",
                     root->kind == SBX_ROOT_PROJECT ? "project root" : "working directory");
            free(home);
            return SANDBOX_E_PATH;
        }
    }
    free(home);
    return SANDBOX_OK;
}

int sbx_resolve(const sandbox_policy *p, int target, sbx_resolved *r, sandbox_error *err)
{
    const char *tmp;
    size_t i;
    int rc = SANDBOX_OK, unix_like;

    memset(r, 0, sizeof *r);
    if (target == SANDBOX_TARGET_HOST)
        target = host_target();
    unix_like = target != SANDBOX_TARGET_WINDOWS;
    r->target = target;
    r->network = p->network;
    r->filesystem = p->filesystem;
    r->deny_action = p->deny_action;
    r->klass = p->klass;
    r->class_chosen = p->class_chosen;
    /* Read-only forbids every socket, and offline and media never have
     * network, so the network dimension follows. */
    r->network = sbx_effective_network(p);
    sbx_presets_deny_exec(target, &r->deny_exec, &r->n_deny_exec);

    if (p->working_dir) {
        r->working_dir = sbx_strdup(p->working_dir);
    } else {
        r->working_dir = current_dir();
        if (!r->working_dir && errno != ENOMEM) {
            sbx_resolved_free(r);
            return sbx_fail(err, SANDBOX_E_PATH, errno,
                            "cannot determine the working directory: %s; set it explicitly "
                            "(--project/working directory)",
                            strerror(errno));
        }
    }
    r->project_root = sbx_strdup(p->project_root ? p->project_root : r->working_dir ? r->working_dir : "");
    tmp = p->temp_dir;
    if (!tmp) {
        tmp = getenv(unix_like ? "TMPDIR" : "TEMP");
        /* A relative or empty TMPDIR names no directory we could confine to. */
        if (!tmp || !tmp[0] || (unix_like && tmp[0] != '/'))
            tmp = unix_like ? "/tmp" : NULL;
    }
    r->temp_dir = tmp ? sbx_strdup(tmp) : NULL;
    if (!r->working_dir || !r->project_root || (tmp && !r->temp_dir)) {
        sbx_resolved_free(r);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while resolving the policy");
    }
    trim_trailing_sep(r->project_root);

    if (r->filesystem == SANDBOX_FS_CONFINED) {
        int k = p->klass;
        /* Which of the standard roots each class writes; docs/classes.md. */
        int w_project = k == SANDBOX_CLASS_PROJECT || k == SANDBOX_CLASS_BUILD ||
                        k == SANDBOX_CLASS_OFFLINE;
        int w_workdir = w_project || k == SANDBOX_CLASS_TOOL_SERVER;
        /* research and media write their scratch only, not the shared /tmp. */
        int w_systmp = w_workdir;
        if (k == SANDBOX_CLASS_MEDIA && !p->output_dir) {
            sbx_resolved_free(r);
            return sbx_fail(err, SANDBOX_E_INVALID, 0,
                            "the media class needs its output folder: set it with "
                            "sandbox_policy_set_output_dir (launcher: --output DIR)");
        }
        if (w_project)
            rc = sbx_resolved_add_root(r, r->project_root, SBX_ROOT_PROJECT);
        for (i = 0; rc == SANDBOX_OK && i < p->n_add_dirs; i++)
            rc = sbx_resolved_add_root(r, p->add_dirs[i], SBX_ROOT_ADDED);
        if (rc == SANDBOX_OK && p->output_dir)
            rc = sbx_resolved_add_root(r, p->output_dir, SBX_ROOT_OUTPUT);
        if (rc == SANDBOX_OK && w_workdir)
            rc = sbx_resolved_add_root(r, r->working_dir, SBX_ROOT_WORKDIR);
        if (rc == SANDBOX_OK && r->temp_dir)
            rc = sbx_resolved_add_root(r, r->temp_dir, SBX_ROOT_TEMP);
        /* macOS: clang and swift keep their module caches in the user cache
         * beside TMPDIR. Only the classes that build the project write it
         * (or --writable-caches): research and media have no use for it, and
         * it outlives the command. A root like any other, so --explain shows
         * it and the hard-link scan walks it. */
        if (rc == SANDBOX_OK && target == SANDBOX_TARGET_MACOS && r->temp_dir &&
            (w_project || p->writable_caches)) {
            char *c = user_cache_sibling(r->temp_dir);
            if (c)
                rc = sbx_resolved_add_root(r, c, SBX_ROOT_USER_CACHE);
            free(c);
        }
        if (rc == SANDBOX_OK && unix_like && w_systmp)
            rc = sbx_resolved_add_root(r, "/tmp", SBX_ROOT_SYSTEM_TEMP);
        if (rc == SANDBOX_OK && unix_like)
            rc = sbx_resolved_add_root(r, "/dev", SBX_ROOT_DEV);
        if (rc != SANDBOX_OK) {
            sbx_resolved_free(r);
            return sbx_fail(err, rc, ENOMEM, "out of memory while listing writable roots");
        }
        rc = refuse_home_roots(r, target, err);
        if (rc == SANDBOX_OK)
            rc = sbx_presets_add_cache_roots(p, r, target == host_target(), err);
        if (rc != SANDBOX_OK) {
            sbx_resolved_free(r);
            return rc;
        }
    }
    if (sbx_protect_resolve(p, r) != SANDBOX_OK) {
        sbx_resolved_free(r);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing protected paths");
    }
    return SANDBOX_OK;
}
