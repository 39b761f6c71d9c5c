/* Resolution: a policy plus the facts it needs (working directory, homes,
 * temp directory, what each path is) becomes the list of writable roots, and
 * every root passes one check, by what it is rather than how it is spelled
 * (docs/threat-model.md, "Writable roots"). The facts come from the host
 * (sbx_resolve) or from a caller (sbx_resolve_with: the macOS and Windows
 * rules are unit-tested on Linux that way). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#  include <sys/stat.h>
#  include <unistd.h>
#else
#  include <direct.h>
#endif

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
    for (i = 0; i < r->n_roots; i++) {
        free(r->roots[i].path);
        free(r->roots[i].given);
        free(r->roots[i].create_from);
    }
    free(r->roots);
    free(r->working_dir);
    free(r->project_root);
    free(r->temp_dir);
    sbx_protect_free(r->protect, r->n_protect);
    sbx_protect_free(r->protect_home, r->n_protect_home);
    free(r->home_dir);
    free(r->home_alt);
    free(r->forbidden);
    for (i = 0; i < r->n_notes; i++)
        free(r->notes[i]);
    free(r->notes);
    for (i = 0; i < r->n_reads; i++)
        free(r->reads[i].path);
    free(r->reads);
    for (i = 0; i < r->n_allow_unix; i++)
        free(r->allow_unix[i]);
    free(r->allow_unix);
    for (i = 0; i < r->n_deny_unix; i++)
        free(r->deny_unix[i]);
    free(r->deny_unix);
    memset(r, 0, sizeof *r);
}

int sbx_resolved_note(sbx_resolved *r, const char *fmt, ...)
{
    char line[1024], **grown;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    grown = realloc(r->notes, (r->n_notes + 1) * sizeof *grown);
    if (!grown)
        return SANDBOX_E_NOMEM;
    r->notes = grown;
    if (!(grown[r->n_notes] = sbx_strdup(line)))
        return SANDBOX_E_NOMEM;
    r->n_notes++;
    return SANDBOX_OK;
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

int sbx_resolved_add_root_from(sbx_resolved *r, const char *path, int kind, const char *from)
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
    memset(&r->roots[r->n_roots], 0, sizeof r->roots[r->n_roots]);
    r->roots[r->n_roots].path = copy;
    r->roots[r->n_roots].kind = kind;
    r->roots[r->n_roots].from = from;
    r->n_roots++;
    return SANDBOX_OK;
}

int sbx_resolved_add_root(sbx_resolved *r, const char *path, int kind)
{
    return sbx_resolved_add_root_from(r, path, kind, NULL);
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

/* ---- the one check ---- */

/* The shared temp directories: world-writable, so anyone (a sandboxed
 * command included) may have planted a link in them, and never a home. */
static const char *const shared_temp[] = {"/tmp", "/var/tmp", "/dev/shm", "/private/tmp",
                                          "/private/var/tmp"};

/* Where a cache may live inside a home: the cache homes and exactly the
 * cache subtrees of the package managers that presets.c grants, never a
 * tool's home: ~/.cargo/env is sourced by the shell, ~/.cargo/bin, ~/go/bin
 * and ~/.bun/bin are on PATH, ~/.gradle/init.d runs in every build and
 * ~/.m2/settings.xml holds credentials. Anything else in a home is
 * configuration, credentials or PATH: ~/.config, ~/.ssh, ~/bin. */
static const char *const home_caches_unix[] = {
    ".cache",         "Library/Caches", ".npm",           ".cargo/registry", ".cargo/git",
    "go/pkg/mod",     ".gradle/caches", ".gradle/wrapper", ".gradle/daemon", ".gradle/native",
    ".m2/repository", ".bun/install/cache", ".local/share/pnpm/store", "Library/pnpm/store",
    ".yarn/berry/cache", ".conda/pkgs"};
static const char *const home_caches_win[] = {
    "AppData\\Local",   ".cache",          ".npm",            ".cargo\\registry",
    ".cargo\\git",      "go\\pkg\\mod",     ".gradle\\caches", ".gradle\\wrapper",
    ".gradle\\daemon",  ".gradle\\native",  ".m2\\repository", ".bun\\install\\cache",
    ".yarn\\berry\\cache", ".conda\\pkgs"};

/* Where an environment TMPDIR may live inside a home: the cache homes and
 * the home's own tmp, never a dot directory of configuration or keys
 * (~/.ssh, ~/.config, ~/.local) nor the home's plain files. */
static const char *const home_temps_unix[] = {".cache", "Library/Caches", "tmp"};
static const char *const home_temps_win[] = {"AppData\\Local\\Temp", ".cache", "tmp"};

/* Link parents that are the system's own for root (owning a directory
 * proves nothing for root, so the place must): /var/run -> /run and
 * /var/lock in /var, merged-usr /bin /lib /lib64 /sbin in /, macOS
 * /tmp /var /etc in /. */
static const char *const system_link_parents[] = {"/", "/var", "/usr", "/private"};

struct home {
    struct sbx_path_fact fact;
    const char *var; /* "HOME", "USERPROFILE", or NULL for the account's */
};

struct check {
    int target;
    const struct sbx_facts *f;
    struct home homes[2];
    size_t n_homes;
    struct sbx_path_fact *facts; /* one per root */
    struct sbx_ident *ids;       /* forbidden identities (host only) */
    size_t n_ids;
    char **path_dirs;            /* $PATH's entries, resolved; looked up when first needed */
    size_t n_path_dirs;
    int path_done;
    sandbox_error *err;
};

static int lookup(struct check *c, const char *path, struct sbx_path_fact *out)
{
    memset(out, 0, sizeof *out);
    if (c->f->lookup(c->f->lookup_ctx, c->target, path, out) != 0 || !out->final) {
        sbx_path_fact_free(out);
        return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while resolving roots");
    }
    return SANDBOX_OK;
}

static int is_absolute_for(int target, const char *p)
{
    if (!p || !p[0])
        return 0;
    if (target != SANDBOX_TARGET_WINDOWS)
        return p[0] == '/';
    return (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
            (p[2] == '\\' || p[2] == '/')) ||
           (p[0] == '\\' && p[1] == '\\');
}

/* The file system root of the target: "/", "C:\", "\\server\share". */
static int is_fs_root(int target, const char *final)
{
    size_t n = strlen(final);
    if (target != SANDBOX_TARGET_WINDOWS)
        return strcmp(final, "/") == 0;
    if (n == 3 && final[1] == ':')
        return 1;
    if (final[0] == '\\' && final[1] == '\\') {
        const char *s = strchr(final + 2, '\\');
        return !s || !strchr(s + 1, '\\');
    }
    return 0;
}

static int add_id(struct check *c, const struct sbx_path_fact *f, int fs_root)
{
    struct sbx_ident *grown;
    if (!f->exists)
        return SANDBOX_OK;
    grown = realloc(c->ids, (c->n_ids + 1) * sizeof *grown);
    if (!grown)
        return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while resolving roots");
    c->ids = grown;
    grown[c->n_ids].dev = f->dev;
    grown[c->n_ids].ino = f->ino;
    grown[c->n_ids].fs_root = fs_root;
    c->n_ids++;
    return SANDBOX_OK;
}

/* The homes: the account's (the user database; the environment cannot move
 * it) and $HOME when it names another directory. An unset, empty or relative
 * $HOME only leaves the account's; "/" is refused anyway. Then the identity
 * of "/" and of every home and ancestor, for the descriptor-level check. */
static int find_homes(struct check *c)
{
    const char *cand[2];
    const char *vars[2];
    size_t i, n = 0;
    int rc = SANDBOX_OK;

    if (c->target != SANDBOX_TARGET_WINDOWS) {
        cand[n] = c->f->account_home;
        vars[n++] = NULL;
    }
    cand[n] = c->f->env_home;
    vars[n++] = c->target == SANDBOX_TARGET_WINDOWS ? "USERPROFILE" : "HOME";
    for (i = 0; rc == SANDBOX_OK && i < n; i++) {
        struct sbx_path_fact hf;
        size_t j;
        if (!is_absolute_for(c->target, cand[i]))
            continue;
        rc = lookup(c, cand[i], &hf);
        if (rc != SANDBOX_OK)
            break;
        for (j = 0; j < c->n_homes && strcmp(c->homes[j].fact.final, hf.final) != 0; j++)
            ;
        if (j < c->n_homes || is_fs_root(c->target, hf.final)) {
            sbx_path_fact_free(&hf);
            continue;
        }
        c->homes[c->n_homes].fact = hf;
        c->homes[c->n_homes].var = vars[i];
        c->n_homes++;
    }
    /* On Windows the home comes from %USERPROFILE% only: without it the
     * home check would be skipped, so refuse instead. */
    if (rc == SANDBOX_OK && c->target == SANDBOX_TARGET_WINDOWS && c->f->on_host && c->n_homes == 0)
        return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                        "refusing to resolve writable roots: %%USERPROFILE%% is not set to an "
                        "absolute path, so the home directory every root must stay out of is "
                        "unknown; set USERPROFILE");
    if (rc != SANDBOX_OK || c->f->euid < 0 || c->target == SANDBOX_TARGET_WINDOWS)
        return rc;
    /* Identities, where this host's files are the target's. */
    {
        struct sbx_path_fact rf;
        rc = lookup(c, "/", &rf);
        if (rc == SANDBOX_OK)
            rc = add_id(c, &rf, 1);
        sbx_path_fact_free(&rf);
    }
    for (i = 0; rc == SANDBOX_OK && i < c->n_homes; i++) {
        char *prefix = sbx_strdup(c->homes[i].fact.final), *slash;
        if (!prefix)
            return sbx_fail(c->err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while resolving roots");
        /* The home, then each ancestor up to (not including) "/". */
        while (rc == SANDBOX_OK && strcmp(prefix, "/") != 0) {
            struct sbx_path_fact af;
            rc = lookup(c, prefix, &af);
            if (rc == SANDBOX_OK)
                rc = add_id(c, &af, 0);
            sbx_path_fact_free(&af);
            slash = strrchr(prefix, '/');
            if (!slash || slash == prefix)
                break;
            *slash = '\0';
        }
        free(prefix);
    }
    return rc;
}

static int is_shared_temp(const struct check *c, const char *final, const struct sbx_path_fact *f)
{
    size_t i;
    if (c->target == SANDBOX_TARGET_WINDOWS)
        return 0;
    for (i = 0; i < sizeof shared_temp / sizeof shared_temp[0]; i++)
        if (strcmp(final, shared_temp[i]) == 0)
            return 1;
    /* Only these, by name: any other sticky directory (/run/lock,
     * /var/spool/cron/crontabs 1730 root:crontab) is read by someone. */
    (void)f;
    return 0;
}

static int within_shared_temp(const struct check *c, const char *path)
{
    size_t i;
    if (c->target == SANDBOX_TARGET_WINDOWS)
        return 0;
    for (i = 0; i < sizeof shared_temp / sizeof shared_temp[0]; i++)
        if (sbx_path_within(c->target, path, shared_temp[i]))
            return 1;
    return 0;
}

static const char *hint_for(const struct sbx_root *root)
{
    if (root->from && root->kind == SBX_ROOT_TEMP)
        return "set TMPDIR to a private directory of the command's own (mktemp -d), or pass "
               "--scratch DIR";
    if (root->from)
        return "point the variable at the tool's own cache directory";
    switch (root->kind) {
    case SBX_ROOT_PROJECT:
    case SBX_ROOT_WORKDIR:
        return "run the command from the project directory, or set the project root and "
               "working directory to it (--project/--workdir)";
    case SBX_ROOT_ADDED: return "add the directory that should be writable, not its parent (--add-dir)";
    case SBX_ROOT_TEMP: return "name a scratch directory of its own (--scratch)";
    case SBX_ROOT_OUTPUT: return "name a folder of its own for the output (--output)";
    case SBX_ROOT_SYSTEM_TEMP:
        return "set HOME to a directory outside the shared temp directory (CI: e.g. "
               "HOME=/var/lib/ci-home), or use a class that does not write /tmp (--class research)";
    default: return "remove what the cache path points to, or name the cache directly";
    }
}

/* "project /x" or "TMPDIR=/x": how the error names the root. */
static void root_name(const struct sbx_root *root, char *buf, size_t size)
{
    const char *given = root->given ? root->given : root->path;
    if (root->from)
        snprintf(buf, size, "%s=%s", root->from, given);
    else
        snprintf(buf, size, "%s root %s", sbx_root_kind_name(root->kind), given);
}

/* 1 when `f` is one of the forbidden identities (all, or "/" only). */
static int forbidden_id(const struct check *c, const struct sbx_path_fact *f, int fs_root_only)
{
    size_t i;
    if (!f->exists)
        return 0;
    for (i = 0; i < c->n_ids; i++)
        if (c->ids[i].dev == f->dev && c->ids[i].ino == f->ino && (c->ids[i].fs_root || !fs_root_only))
            return 1;
    return 0;
}

static int in_home_dirs(const struct check *c, const char *final, const char *home, int temp)
{
    int win = c->target == SANDBOX_TARGET_WINDOWS;
    const char *const *list = temp ? (win ? home_temps_win : home_temps_unix)
                                   : (win ? home_caches_win : home_caches_unix);
    size_t n = temp ? (win ? sizeof home_temps_win / sizeof home_temps_win[0]
                           : sizeof home_temps_unix / sizeof home_temps_unix[0])
                    : (win ? sizeof home_caches_win / sizeof home_caches_win[0]
                           : sizeof home_caches_unix / sizeof home_caches_unix[0]), i;
    for (i = 0; i < n; i++) {
        char *dir = sbx_path_join(home, win ? '\\' : '/', list[i]);
        int in = dir && sbx_path_within(c->target, final, dir);
        free(dir);
        if (in)
            return 1;
    }
    return 0;
}

/* Inside another root of this launch that is not itself a cache (the host
 * named it, or it is a shared temp directory). */
static int within_named_root(const struct check *c, const sbx_resolved *r, size_t self, const char *final)
{
    size_t j;
    for (j = 0; j < r->n_roots; j++) {
        const struct sbx_root *o = &r->roots[j];
        if (j == self || o->kind == SBX_ROOT_DEV || o->kind == SBX_ROOT_CACHE ||
            o->kind == SBX_ROOT_PACKAGE || o->from)
            continue;
        if (sbx_path_within(c->target, final, c->facts[j].final))
            return 1;
    }
    return within_shared_temp(c, final);
}

/* Where `l` lies such that a sandboxed command may have planted it, or NULL
 * when it is the host's own. Planted means: inside a root of this launch or
 * a shared temp directory; or (host facts) in a directory the caller can
 * write, since that may have been a root of an earlier launch. The homes
 * themselves are never roots, so a link directly in a home (~/code ->
 * /data/code) is the user's. For root every directory is writable: only
 * the system's own link parents (/, /var, /usr), root-owned and not group-
 * or other-writable, are trusted. */
const char *sbx_link_plantable_earlier(long euid, const char *const *homes, size_t n_homes,
                                       const struct sbx_link_fact *l)
{
    size_t j, h;
    unsigned long mode = l->parent_mode;
    if (euid < 0 || !l->parent_known)
        return NULL;
    for (h = 0; h < n_homes; h++)
        if (homes[h] && strcmp(l->parent, homes[h]) == 0)
            return NULL;
    if (euid == 0) {
        int system = 0;
        for (j = 0; j < sizeof system_link_parents / sizeof system_link_parents[0]; j++)
            system |= strcmp(l->parent, system_link_parents[j]) == 0;
        if (system && l->parent_uid == 0 && !(mode & 022))
            return NULL;
        return "a directory root can write that is not one of the system's own link "
               "directories (/, /var, /usr)";
    }
    if ((mode & 022) || (l->parent_uid == (unsigned long)euid && (mode & 0200)))
        return "a directory you can write (a writable root of an earlier launch could have "
               "contained it)";
    return NULL;
}

static const char *link_plantable(const struct check *c, const sbx_resolved *r,
                                  const struct sbx_link_fact *l)
{
    size_t j;
    const char *homes[2] = {NULL, NULL};
    for (j = 0; j < r->n_roots; j++)
        if (r->roots[j].kind != SBX_ROOT_DEV &&
            sbx_path_within(c->target, l->parent, c->facts[j].final))
            return c->facts[j].final;
    if (within_shared_temp(c, l->parent))
        return "a shared temp directory";
    for (j = 0; j < c->n_homes && j < 2; j++)
        homes[j] = c->homes[j].fact.final;
    return sbx_link_plantable_earlier(c->f->euid, homes, c->n_homes, l);
}

/* The PATH entry that lies within `dir`, or NULL. */
static const char *path_entry_within(struct check *c, const char *dir)
{
    size_t i;
    if (!c->path_done && c->f->env_path) {
        const char *p = c->f->env_path;
        char sep = c->target == SANDBOX_TARGET_WINDOWS ? ';' : ':';
        c->path_done = 1;
        while (*p) {
            size_t n = strcspn(p, (char[]){sep, 0});
            char *e = malloc(n + 1), **grown;
            struct sbx_path_fact pf;
            if (!e)
                return NULL;
            memcpy(e, p, n);
            e[n] = '\0';
            p += n + (p[n] != 0);
            if (!is_absolute_for(c->target, e) ||
                c->f->lookup(c->f->lookup_ctx, c->target, e, &pf) != 0) {
                free(e);
                continue;
            }
            free(e);
            grown = realloc(c->path_dirs, (c->n_path_dirs + 1) * sizeof *grown);
            if (!grown) {
                sbx_path_fact_free(&pf);
                return NULL;
            }
            c->path_dirs = grown;
            grown[c->n_path_dirs++] = pf.final;
            pf.final = NULL;
            sbx_path_fact_free(&pf);
        }
    }
    for (i = 0; i < c->n_path_dirs; i++)
        if (c->path_dirs[i] && sbx_path_within(c->target, c->path_dirs[i], dir))
            return c->path_dirs[i];
    return NULL;
}

static int check_root(struct check *c, const sbx_resolved *r, size_t i)
{
    const struct sbx_root *root = &r->roots[i];
    const struct sbx_path_fact *f = &c->facts[i];
    int system = root->kind == SBX_ROOT_SYSTEM_TEMP ||
                 (root->kind == SBX_ROOT_TEMP && is_shared_temp(c, f->final, f));
    int cache = root->kind == SBX_ROOT_CACHE || root->kind == SBX_ROOT_PACKAGE;
    char name[512];
    size_t h, k;

    root_name(root, name, sizeof name);
    /* "/" by any spelling (/., /proc/self/root, a link, ../..). */
    if (is_fs_root(c->target, f->final) || forbidden_id(c, f, 1))
        return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                        "refusing to make %s writable: it resolves to %s, the file system root, "
                        "and a sandbox that may write there confines nothing; %s",
                        name, f->final, hint_for(root));
    /* What the path names must be known: no ".." after a missing component,
     * nothing too long to walk. */
    if (f->unresolved)
        return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                        "refusing %s as a writable root: %s, so what it names cannot be known "
                        "before the command runs; name an existing directory, spelled without "
                        "\"..\"", name, f->unresolved);
    /* The homes and their ancestors, for every root: a home inside /tmp
     * (HOME=/tmp/x in CI) would otherwise be writable through /tmp, and
     * Landlock cannot grant /tmp minus the home. */
    for (h = 0; h < c->n_homes; h++) {
        const char *home = c->homes[h].fact.final;
        if (sbx_path_within(c->target, home, f->final))
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing to make %s writable: it resolves to %s, which %s your home "
                            "directory %s (%s), and a sandbox that may write there can rewrite "
                            "your shell's startup files and keys; %s",
                            name, f->final,
                            sbx_path_within(c->target, f->final, home) ? "is" : "contains", home,
                            c->homes[h].var ? c->homes[h].var : "the account's home", hint_for(root));
    }
    if (forbidden_id(c, f, 0))
        return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                        "refusing to make %s writable: it resolves to %s, the same directory as "
                        "your home or one of its ancestors (another name for it, e.g. a bind "
                        "mount); %s",
                        name, f->final, hint_for(root));
    /* A link may have been planted by a sandboxed command of this launch or
     * of any earlier one, to redirect this grant: refused wherever some
     * writable root could have contained it (docs/threat-model.md). */
    for (k = 0; k < f->n_links; k++) {
        const struct sbx_link_fact *l = &f->links[k];
        const char *where = link_plantable(c, r, l);
        if (where)
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing %s as a writable root: its component %s is a symbolic "
                            "link inside %s, so a sandboxed command (of this launch or an "
                            "earlier one) may have planted it to redirect this grant (to %s); "
                            "name the real directory instead, or remove the link",
                            name, l->at, where, f->final);
    }
    /* From the environment: a directory of the caller's own. */
    if (root->from && c->f->euid >= 0) {
        if (root->kind == SBX_ROOT_TEMP && (!f->exists || !f->is_dir))
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "%s is not an existing directory (it resolves to %s); %s", name,
                            f->final, hint_for(root));
        if (f->exists && (long)f->uid != c->f->euid && !(root->kind == SBX_ROOT_TEMP && system))
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing %s as a writable root: %s is owned by uid %lu, not by you "
                            "(uid %ld), and is not a shared sticky directory like /tmp; %s",
                            name, f->final, f->uid, c->f->euid, hint_for(root));
    }
    /* From the environment, not a shared temp directory: private to the
     * caller (a TMPDIR of mode 0775 is a directory others may write too, like
     * /opt/homebrew/bin), and never a PATH entry or an ancestor of one. */
    if (root->from && c->f->euid >= 0 && f->exists && !system) {
        const char *on_path;
        if (root->kind == SBX_ROOT_TEMP && (f->mode & 022))
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing %s as a writable root: %s is writable by its group or "
                            "others (mode %03lo), so it is not a private directory; %s",
                            name, f->final, f->mode & 0777, hint_for(root));
        if ((on_path = path_entry_within(c, f->final)) != NULL)
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing %s as a writable root: it resolves to %s, which %s the "
                            "PATH entry %s, so a sandboxed command could plant programs that "
                            "later run unconfined; %s",
                            name, f->final,
                            sbx_path_within(c->target, f->final, on_path) ? "is" : "contains",
                            on_path, hint_for(root));
    }
    /* A cache inside a home stays inside the home's cache locations. */
    for (h = 0; cache && h < c->n_homes; h++) {
        const char *home = c->homes[h].fact.final;
        if (sbx_path_within(c->target, f->final, home) && !in_home_dirs(c, f->final, home, 0))
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing %s as a writable cache: it resolves to %s, inside your "
                            "home but outside its cache directories (~/.cache, ~/Library/Caches, "
                            "the package managers' own), where configuration and keys live; %s, "
                            "or grant it explicitly with --add-dir",
                            name, f->final, hint_for(root));
    }
    /* A TMPDIR from the environment inside a home stays in the home's cache
     * or tmp directories: being the caller's own and private is no proof it
     * is scratch (~/.ssh is both). */
    for (h = 0; root->from && root->kind == SBX_ROOT_TEMP && h < c->n_homes; h++) {
        const char *home = c->homes[h].fact.final;
        if (sbx_path_within(c->target, f->final, home) && !in_home_dirs(c, f->final, home, 1))
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing %s as a writable root: it resolves to %s, inside your "
                            "home but outside its cache and tmp directories (~/.cache, "
                            "~/Library/Caches, ~/tmp), where configuration and keys live; %s",
                            name, f->final, hint_for(root));
    }
    /* Root owns most of the system: owning a directory proves nothing. */
    if (root->from && c->f->euid == 0 && f->exists && !system) {
        int in_home = 0;
        for (h = 0; h < c->n_homes; h++)
            in_home |= sbx_path_within(c->target, f->final, c->homes[h].fact.final);
        if (!in_home && !within_named_root(c, r, i, f->final))
            return sbx_fail(c->err, SANDBOX_E_PATH, 0,
                            "refusing %s as a writable root: it resolves to %s, and for root a "
                            "directory from the environment must lie inside the home, a shared "
                            "temp directory or another root of this launch (owning it proves "
                            "nothing); %s, or grant it explicitly with --add-dir",
                            name, f->final, hint_for(root));
    }
    return SANDBOX_OK;
}

/* Look every root up, check it, then grant what it resolved to. */
/* A default working directory from getcwd() had its links resolved by the
 * kernel, so a link planted on the way to it (~/proj/keys -> ~/.ssh) cannot
 * be seen: it must at least lie inside the project the host named. */
static int check_physical_workdir(struct check *c, const sbx_resolved *r, const char *project)
{
    struct sbx_path_fact pf;
    size_t i;
    int rc = SANDBOX_OK;
    for (i = 0; i < r->n_roots && r->roots[i].kind != SBX_ROOT_WORKDIR; i++)
        ;
    if (i == r->n_roots)
        return SANDBOX_OK;
    rc = lookup(c, project, &pf);
    if (rc != SANDBOX_OK)
        return rc;
    if (!pf.unresolved && !sbx_path_within(c->target, c->facts[i].final, pf.final))
        rc = sbx_fail(c->err, SANDBOX_E_PATH, 0,
                      "refusing workdir root %s as a writable root: the working directory "
                      "was not given, and the current one (%s, as the kernel resolved it: "
                      "$PWD does not name it, so the path it was reached by is unknown) lies "
                      "outside the project %s, where a link planted by an earlier launch could "
                      "have led; %s",
                      r->roots[i].path, c->facts[i].final, pf.final, hint_for(&r->roots[i]));
    sbx_path_fact_free(&pf);
    return rc;
}

#ifdef __linux__
/* Undo mountinfo's octal escapes (\040 for a space) in place. */
static void mountinfo_unescape(char *s)
{
    char *o = s;
    for (; *s; s++) {
        if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
            s[3] >= '0' && s[3] <= '7') {
            *o++ = (char)(((s[1] - '0') << 6) | ((s[2] - '0') << 3) | (s[3] - '0'));
            s += 3;
        } else {
            *o++ = *s;
        }
    }
    *o = '\0';
}

/* Landlock's "beneath" crosses mounts: a bind of "/" or of a home mounted
 * below a root would make it writable through the root. One read of the
 * mount table; each mount point below a root is compared, by the device and
 * inode of what is mounted there, with "/", the homes and their ancestors. */
static int check_mounts_beneath(struct check *c, const sbx_resolved *r)
{
    FILE *m;
    char *line = NULL;
    size_t cap = 0, j;
    int rc = SANDBOX_OK;
    if (!c->f->on_host || c->target != SANDBOX_TARGET_LINUX || c->n_ids == 0)
        return SANDBOX_OK;
    m = fopen("/proc/self/mountinfo", "re");
    if (!m)
        return SANDBOX_OK; /* no /proc: docs/threat-model.md, limits */
    while (rc == SANDBOX_OK && getline(&line, &cap, m) > 0) {
        char *save = NULL, *mp = strtok_r(line, " ", &save);
        int k;
        struct stat st;
        struct sbx_path_fact id;
        for (k = 0; mp && k < 4; k++)
            mp = strtok_r(NULL, " ", &save); /* id parent maj:min root mount-point */
        if (!mp)
            continue;
        mountinfo_unescape(mp);
        for (j = 0; j < r->n_roots; j++)
            if (r->roots[j].kind != SBX_ROOT_DEV && c->facts[j].final &&
                sbx_path_within(c->target, mp, c->facts[j].final))
                break;
        if (j == r->n_roots || stat(mp, &st) != 0)
            continue;
        memset(&id, 0, sizeof id);
        id.exists = 1;
        id.dev = (unsigned long long)st.st_dev;
        id.ino = (unsigned long long)st.st_ino;
        if (forbidden_id(c, &id, 0)) {
            char name[512];
            root_name(&r->roots[j], name, sizeof name);
            rc = sbx_fail(c->err, SANDBOX_E_PATH, 0,
                          "refusing to make %s writable: the mount at %s below it shows the "
                          "file system root, your home or one of its ancestors (a bind mount), "
                          "and a grant beneath the root crosses into it; unmount it or choose "
                          "a root without it",
                          name, mp);
        }
    }
    free(line);
    fclose(m);
    return rc;
}
#endif

/* Take root i out of the list (and its fact). */
static void drop_root(struct check *c, sbx_resolved *r, size_t i)
{
    free(r->roots[i].path);
    free(r->roots[i].given);
    free(r->roots[i].create_from);
    memmove(&r->roots[i], &r->roots[i + 1], (r->n_roots - i - 1) * sizeof r->roots[i]);
    sbx_path_fact_free(&c->facts[i]);
    memmove(&c->facts[i], &c->facts[i + 1], (r->n_roots - i - 1) * sizeof c->facts[i]);
    r->n_roots--;
}

/* Why a missing cache may not be created, or NULL. Only a directory below a
 * home, inside exactly the cache subtrees a cache may have there (the same
 * list a cache root is held to), reached without an unresolved or
 * unsearchable component, and to be made in a directory of the caller's own
 * (root with HOME=/home/alice would leave root-owned caches that alice's
 * tools cannot write). The walk itself (src/caches.c) re-checks every
 * component as it goes. */
static const char *why_not_create(const struct check *c, const struct sbx_path_fact *f)
{
    size_t h;
    if (!c->f->on_host || c->f->euid < 0)
        return "only this machine's own caches are created";
    if (f->unresolved)
        return f->unresolved;
    if (!f->base || f->missing_errno != ENOENT)
        return "a directory on the way cannot be entered or is not a directory";
    for (h = 0; h < c->n_homes; h++) {
        const char *home = c->homes[h].fact.final;
        if (!c->homes[h].fact.exists || strcmp(f->final, home) == 0 ||
            !sbx_path_within(c->target, f->final, home) || !in_home_dirs(c, f->final, home, 0) ||
            !sbx_path_within(c->target, f->base, home))
            continue;
        if (f->base_uid != (unsigned long)c->f->euid)
            return "the directory it would be made in is not yours";
        return NULL;
    }
    return "it lies outside your home's cache directories, where a cache is only created "
           "once you make it";
}

/* The missing caches: kept (`create`) when they pass the one check and may
 * be created, else dropped with a note for --explain. */
static int judge_creations(struct check *c, sbx_resolved *r)
{
    size_t i;
    for (i = 0; i < r->n_roots; i++) {
        sandbox_error why;
        const char *no;
        int rc;
        if (!r->roots[i].create)
            continue;
        if (c->facts[i].exists) {
            r->roots[i].create = 0; /* made meanwhile: an ordinary root */
            continue;
        }
        memset(&why, 0, sizeof why);
        c->err = &why;
        rc = check_root(c, r, i);
        c->err = NULL;
        if (rc == SANDBOX_E_NOMEM)
            return rc;
        no = rc != SANDBOX_OK ? why.message : why_not_create(c, &c->facts[i]);
        if (!no)
            continue;
        if (sbx_resolved_note(r, "cache %s is missing and is not created: %s", r->roots[i].path,
                              no) != SANDBOX_OK)
            return SANDBOX_E_NOMEM;
        drop_root(c, r, i--);
    }
    return SANDBOX_OK;
}

/* Why the default project `f` is never a project, or NULL: "/", a home or
 * an ancestor of one, ~/Library (applications' state), a package cache or
 * store (spec 004). The command then writes only its scratch. */
static const char *never_project(const struct check *c, const sbx_resolved *r,
                                 const struct sbx_path_fact *f)
{
    const char sep = c->target == SANDBOX_TARGET_WINDOWS ? '\\' : '/';
    size_t h, j;
    if (is_fs_root(c->target, f->final) || forbidden_id(c, f, 1))
        return "is the file system root";
    for (h = 0; h < c->n_homes; h++) {
        const char *home = c->homes[h].fact.final;
        char *lib;
        int in_lib;
        if (sbx_path_within(c->target, home, f->final))
            return sbx_path_within(c->target, f->final, home) ? "is your home"
                                                              : "holds your home";
        if (!sbx_path_within(c->target, f->final, home))
            continue;
        if (!(lib = sbx_path_join(home, sep, "Library")))
            return "cannot be judged (out of memory)";
        in_lib = sbx_path_within(c->target, f->final, lib);
        free(lib);
        if (in_lib)
            return "is in ~/Library, where applications keep their state";
        if (in_home_dirs(c, f->final, home, 0))
            return "is in a package cache or store";
    }
    if (forbidden_id(c, f, 0))
        return "is your home or one of its ancestors under another name";
    for (j = 0; j < r->n_roots; j++)
        if ((r->roots[j].kind == SBX_ROOT_CACHE || r->roots[j].kind == SBX_ROOT_PACKAGE) &&
            sbx_path_within(c->target, f->final, c->facts[j].final))
            return "is in a package cache or store";
    return NULL;
}

/* The project and working directory the host did not name (spec 004): a
 * default project that is never one leaves the command its scratch; a
 * default working directory outside the project is not made writable (a cd
 * elsewhere never widens the grant). A working directory spelled inside the
 * project is kept even when it leads out of it: the link rules below judge
 * that (a planted link is refused, not quietly skipped). */
static int settle_project(struct check *c, sbx_resolved *r, const sandbox_policy *p)
{
    size_t i, proj = r->n_roots, wd = r->n_roots;
    const char *why;
    for (i = 0; i < r->n_roots; i++) {
        if (r->roots[i].kind == SBX_ROOT_PROJECT)
            proj = i;
        else if (r->roots[i].kind == SBX_ROOT_WORKDIR)
            wd = i;
    }
    if (proj == r->n_roots)
        return SANDBOX_OK; /* a class without a project (research, media, tool server) */
    if (!p->project_root && (why = never_project(c, r, &c->facts[proj])) != NULL) {
        r->no_project = why;
        /* A working directory the host named stays a grant it asked for,
         * and is judged as such (--workdir ~ is still refused); the
         * project entry may be that very directory. */
        if (wd == r->n_roots && p->working_dir) {
            r->roots[proj].kind = SBX_ROOT_WORKDIR;
            return SANDBOX_OK;
        }
        if (wd < r->n_roots && !p->working_dir)
            drop_root(c, r, wd);
        drop_root(c, r, proj);
        return SANDBOX_OK;
    }
    if (wd == r->n_roots || p->working_dir)
        return SANDBOX_OK;
    if (sbx_path_within(c->target, r->roots[wd].path, r->roots[proj].path)) {
        /* Inside the project by name and by what it is: the project's grant
         * covers it (a cd below keeps the same project). Spelled inside but
         * leading out: kept, for the link rules to judge. */
        if (sbx_path_within(c->target, c->facts[wd].final, c->facts[proj].final))
            drop_root(c, r, wd);
        return SANDBOX_OK;
    }
    if (sbx_path_within(c->target, c->facts[wd].final, c->facts[proj].final))
        return SANDBOX_OK;
    if (sbx_resolved_note(r, "the working directory %s lies outside the project %s and is not "
                             "writable (name it with --workdir, or --add-dir, to grant it)",
                          r->roots[wd].path, r->roots[proj].path) != SANDBOX_OK)
        return SANDBOX_E_NOMEM;
    drop_root(c, r, wd);
    return SANDBOX_OK;
}

static int check_roots(sbx_resolved *r, const sandbox_policy *p, int target,
                       const struct sbx_facts *facts, const char *physical_project,
                       sandbox_error *err)
{
    struct check c;
    size_t i, j, h;
    int rc;

    memset(&c, 0, sizeof c);
    c.target = target;
    c.f = facts;
    c.err = err;
    rc = find_homes(&c);
    if (rc == SANDBOX_OK) {
        c.facts = calloc(r->n_roots + 1, sizeof *c.facts);
        if (!c.facts) {
            sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while resolving roots");
            rc = SANDBOX_E_NOMEM;
        }
    }
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++)
        rc = lookup(&c, r->roots[i].path, &c.facts[i]);
    if (rc == SANDBOX_OK)
        rc = settle_project(&c, r, p);
    if (rc == SANDBOX_OK)
        rc = judge_creations(&c, r);
    c.err = err;
    if (rc == SANDBOX_E_NOMEM)
        sbx_fail(err, rc, ENOMEM, "out of memory while resolving roots");
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++)
        if (r->roots[i].kind != SBX_ROOT_DEV && !r->roots[i].create)
            rc = check_root(&c, r, i);
    if (rc == SANDBOX_OK && physical_project)
        rc = check_physical_workdir(&c, r, physical_project);
#ifdef __linux__
    if (rc == SANDBOX_OK)
        rc = check_mounts_beneath(&c, r);
#endif
    /* Grant what was checked: the canonical path, with the host's spelling
     * kept for --explain. Windows keeps the spelling: its backend opens it. */
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++) {
        struct sbx_root *root = &r->roots[i];
        root->shared = root->kind == SBX_ROOT_SYSTEM_TEMP ||
                       (root->kind == SBX_ROOT_TEMP && is_shared_temp(&c, c.facts[i].final, &c.facts[i]));
        if (root->create) {
            root->create_from = c.facts[i].base;
            c.facts[i].base = NULL;
        }
        if (target == SANDBOX_TARGET_WINDOWS || strcmp(root->path, c.facts[i].final) == 0)
            continue;
        root->given = root->path;
        root->path = c.facts[i].final;
        c.facts[i].final = NULL;
    }
    /* Two spellings of one directory are one root: the first kind wins. */
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++) {
        for (j = 0; j < i && strcmp(r->roots[j].path, r->roots[i].path) != 0; j++)
            ;
        if (j == i)
            continue;
        drop_root(&c, r, i);
        i--;
    }
    if (rc == SANDBOX_OK) {
        r->forbidden = c.ids;
        r->n_forbidden = c.n_ids;
        c.ids = NULL;
    }
    for (i = 0; c.facts && i < r->n_roots; i++)
        sbx_path_fact_free(&c.facts[i]);
    free(c.facts);
    free(c.ids);
    for (i = 0; i < c.n_path_dirs; i++)
        free(c.path_dirs[i]);
    free(c.path_dirs);
    for (h = 0; h < c.n_homes; h++)
        sbx_path_fact_free(&c.homes[h].fact);
    return rc;
}

/* ---- the default project (spec 004) ---- */

/* 1 when a lookup through `f` says `path` is a home, holds one, is "/" or a
 * shared temp directory: where the search for a git root stops. */
static int git_search_stops(int target, const struct sbx_facts *f, const char *const *homes,
                            size_t n_homes, const char *final)
{
    size_t i;
    if (is_fs_root(target, final))
        return 1;
    for (i = 0; i < n_homes; i++)
        if (sbx_path_within(target, homes[i], final))
            return 1;
    for (i = 0; target != SANDBOX_TARGET_WINDOWS && i < sizeof shared_temp / sizeof shared_temp[0]; i++)
        if (strcmp(final, shared_temp[i]) == 0)
            return 1;
    (void)f;
    return 0;
}

/* Is there a .git of the caller's own in `dir` (canonical `final`), itself
 * no symlink? Like git's safe.directory rule (CVE-2022-24765): a .git
 * another user made above your work is not your repository. */
static int has_own_git(int target, const struct sbx_facts *f, const char *dir, const char *final,
                       int *oom)
{
    struct sbx_path_fact g;
    char *p = sbx_path_join(dir, target == SANDBOX_TARGET_WINDOWS ? '\\' : '/', ".git");
    char *at = sbx_path_join(final, target == SANDBOX_TARGET_WINDOWS ? '\\' : '/', ".git");
    size_t k;
    int yes = 0;
    memset(&g, 0, sizeof g);
    if (!p || !at || f->lookup(f->lookup_ctx, target, p, &g) != 0 || !g.final) {
        *oom = 1;
    } else if (g.exists && (long)g.uid == f->euid) {
        yes = 1;
        for (k = 0; k < g.n_links; k++)
            if (strcmp(g.links[k].at, at) == 0)
                yes = 0; /* .git is a link: what it leads to was not made here */
    }
    sbx_path_fact_free(&g);
    free(p);
    free(at);
    return yes;
}

/* The nearest directory at or above the working directory `wd` that holds
 * a .git of the caller's own, searched along `wd` as spelled (so the links
 * on the way are judged as the project's, like any root), never reaching
 * "/", a home or an ancestor of one, or a shared temp directory: a .git
 * planted there (another user's /tmp/.git, a home kept in git) must not
 * make everything below it one project. NULL when there is none; then the
 * project is the working directory, as before. Only for this machine's own
 * plans with a known caller (the ownership rule needs the uid). */
static char *find_git_root(int target, const struct sbx_facts *f, const char *wd, int *oom)
{
    const char *cand[2];
    char *homes[2] = {NULL, NULL}, *dir, *found = NULL;
    size_t n_homes = 0, i;
    *oom = 0;
    if (!f->on_host || f->euid < 0 || !wd || !is_absolute_for(target, wd))
        return NULL;
    cand[0] = f->account_home;
    cand[1] = f->env_home;
    for (i = 0; i < 2; i++) {
        struct sbx_path_fact h;
        if (!is_absolute_for(target, cand[i]))
            continue;
        if (f->lookup(f->lookup_ctx, target, cand[i], &h) != 0 || !h.final) {
            sbx_path_fact_free(&h);
            *oom = 1;
            goto out;
        }
        homes[n_homes++] = h.final;
        h.final = NULL;
        sbx_path_fact_free(&h);
    }
    dir = sbx_path_lexical(target, wd);
    if (!dir) {
        *oom = 1;
        goto out;
    }
    for (;;) {
        struct sbx_path_fact d;
        char *slash;
        int stop, git;
        if (f->lookup(f->lookup_ctx, target, dir, &d) != 0 || !d.final) {
            sbx_path_fact_free(&d);
            *oom = 1;
            break;
        }
        stop = !d.exists || git_search_stops(target, f, (const char *const *)homes, n_homes, d.final);
        git = !stop && has_own_git(target, f, dir, d.final, oom);
        sbx_path_fact_free(&d);
        if (stop || *oom)
            break;
        if (git) {
            found = dir;
            dir = NULL;
            break;
        }
        slash = strrchr(dir, target == SANDBOX_TARGET_WINDOWS ? '\\' : '/');
        if (!slash || slash == dir)
            break; /* "/" is never searched */
        *slash = '\0';
    }
    free(dir);
out:
    for (i = 0; i < n_homes; i++)
        free(homes[i]);
    return found;
}

/* ---- resolution ---- */

/* A copy of a list of strings: 0, or -1 out of memory (nothing kept). */
static int sbx_copy_strings(char ***to, size_t *n_to, char *const *from, size_t n)
{
    size_t i;
    *to = NULL;
    *n_to = 0;
    if (n == 0)
        return 0;
    *to = calloc(n, sizeof **to);
    if (!*to)
        return -1;
    for (i = 0; i < n; i++) {
        (*to)[i] = sbx_strdup(from[i]);
        if (!(*to)[i]) {
            while (i > 0)
                free((*to)[--i]);
            free(*to);
            *to = NULL;
            return -1;
        }
    }
    *n_to = n;
    return 0;
}

/* The display number of a DISPLAY that libxcb reaches through a local
 * socket (":N", ":N.S", "unix:N", "unix/:N"), or -1: "host:N" is TCP, and
 * anything else names no display. */
int sbx_local_x_display(const char *d)
{
    const char *s;
    long n = 0;
    int digits = 0;
    if (!d)
        return -1;
    if (strncmp(d, "unix/:", 6) == 0)
        s = d + 6;
    else if (strncmp(d, "unix:", 5) == 0)
        s = d + 5;
    else if (d[0] == ':')
        s = d + 1;
    else
        return -1;
    for (; *s >= '0' && *s <= '9' && n < 100000; s++, digits++)
        n = n * 10 + (*s - '0');
    if (!digits)
        return -1;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return -1;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0' ? (int)n : -1;
}

int sbx_x_display_in_use(const char *d)
{
#ifdef _WIN32
    (void)d;
    return 0;
#else
    char sock[48];
    struct stat st;
    int n = sbx_local_x_display(d);
    if (n < 0)
        return 0;
    snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", n);
    return stat(sock, &st) == 0 && S_ISSOCK(st.st_mode);
#endif
}

int sbx_resolve_with(const sandbox_policy *p, int target, const struct sbx_facts *facts,
                     sbx_resolved *r, sandbox_error *err)
{
    const char *tmp, *tmp_from = NULL;
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
    r->scan_index_off = p->scan_index_off;
    /* A class confines reads only with Landlock's write confinement: after
     * sandbox_policy_set_filesystem() turned that off (or to read-only, a
     * fixed profile that reads what the account can), the class would
     * silently read everything again. */
    if (p->class_chosen && p->klass != SANDBOX_CLASS_TOOL_SERVER &&
        p->filesystem != SANDBOX_FS_CONFINED)
        return sbx_fail(err, SANDBOX_E_INVALID, 0,
                        "an activity class confines reads and writes, but the filesystem mode "
                        "is %s, which reads everything the account can; choose either the "
                        "class or that mode",
                        p->filesystem == SANDBOX_FS_READ_ONLY ? "read-only" : "unrestricted");
    r->deny_userns = p->deny_userns || p->filesystem == SANDBOX_FS_READ_ONLY;
    memcpy(r->limits, p->limits, sizeof r->limits);
    r->allow_abstract_unix = p->allow_abstract_unix;
    /* X11 must keep working (spec 000/001). Xorg and Xwayland listen on an
     * abstract socket that libxcb tries first, and refused by the scope
     * (EPERM) it does not fall back to the path socket: with a local
     * display named, abstract sockets stay open (docs/unix-endpoints.md;
     * a host that wants them closed starts the command without DISPLAY). */
    if (!r->allow_abstract_unix && target == SANDBOX_TARGET_LINUX &&
        facts->env_display)
        r->allow_abstract_unix = 2;
    /* Read-only forbids every socket, and offline and media never have
     * network, so the network dimension follows. */
    r->network = sbx_effective_network(p);
    sbx_presets_deny_exec(target, &r->deny_exec, &r->n_deny_exec);

    if (p->working_dir) {
        r->working_dir = sbx_strdup(p->working_dir);
    } else if (facts->cwd) {
        r->working_dir = sbx_strdup(facts->cwd);
    } else if (facts->cwd_errno != ENOMEM) {
        sbx_resolved_free(r);
        return sbx_fail(err, SANDBOX_E_PATH, facts->cwd_errno,
                        "cannot determine the working directory: %s; set it explicitly "
                        "(--project/working directory)",
                        strerror(facts->cwd_errno));
    }
    /* Without a project from the host: the git root above the working
     * directory, in the classes that write a project. */
    if (!p->project_root && r->working_dir && p->filesystem == SANDBOX_FS_CONFINED &&
        (p->klass == SANDBOX_CLASS_PROJECT || p->klass == SANDBOX_CLASS_BUILD ||
         p->klass == SANDBOX_CLASS_OFFLINE)) {
        int oom;
        r->project_root = find_git_root(target, facts, r->working_dir, &oom);
        if (oom) {
            sbx_resolved_free(r);
            return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while finding the project");
        }
        r->project_found = r->project_root != NULL;
    }
    if (!r->project_root)
        r->project_root = sbx_strdup(p->project_root ? p->project_root
                                     : r->working_dir                ? r->working_dir
                                                                     : "");
    tmp = p->temp_dir;
    if (!tmp) {
        tmp = facts->env_temp;
        tmp_from = unix_like ? "TMPDIR" : "TEMP";
        /* A relative or empty TMPDIR names no directory we could confine to. */
        if (!tmp || !tmp[0] || (unix_like && tmp[0] != '/')) {
            tmp = unix_like ? "/tmp" : NULL;
            tmp_from = NULL;
        }
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
            rc = sbx_resolved_add_root_from(r, r->temp_dir, SBX_ROOT_TEMP, tmp_from);
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
        rc = sbx_presets_add_cache_roots(p, r, target == host_target(), err);
        if (rc == SANDBOX_OK)
            rc = check_roots(r, p, target, facts,
                             !p->working_dir && facts->cwd_physical ? p->project_root : NULL,
                             err);
        if (rc != SANDBOX_OK) {
            sbx_resolved_free(r);
            return rc;
        }
    }
    rc = sbx_protect_resolve(p, r);
    if (rc != SANDBOX_OK) {
        sbx_resolved_free(r);
        if (rc == SANDBOX_E_PATH)
            return sbx_fail(err, rc, 0, "protected paths: no home directory is known (the user "
                                        "database has none and $HOME is not absolute), so ~/.ssh "
                                        "and the other home secrets cannot be found; set HOME");
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing protected paths");
    }
    /* After the writable roots are checked: a read root is judged against them. */
    rc = sbx_reads_resolve(p, r, facts, err);
    if (rc != SANDBOX_OK) {
        sbx_resolved_free(r);
        return rc;
    }
    /* The host's AF_UNIX choices, for the platform's endpoint masks. */
    if (sbx_copy_strings(&r->allow_unix, &r->n_allow_unix, p->allow_unix, p->n_allow_unix) ||
        sbx_copy_strings(&r->deny_unix, &r->n_deny_unix, p->deny_unix, p->n_deny_unix)) {
        sbx_resolved_free(r);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while resolving the policy");
    }
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

int sbx_resolve(const sandbox_policy *p, int target, sbx_resolved *r, sandbox_error *err)
{
    struct sbx_facts f;
    char *cwd = NULL, *account = NULL;
    int rc, unix_like;

    if (target == SANDBOX_TARGET_HOST)
        target = host_target();
    unix_like = target != SANDBOX_TARGET_WINDOWS;
    memset(&f, 0, sizeof f);
    /* The default working directory: $PWD, the path the shell reached it
     * by, when it names the same directory as "." (so a link on the way, a
     * planted /tmp/p -> /etc, is seen and judged like any other root's);
     * getcwd() otherwise, whose links the kernel already resolved. */
    if (!p->working_dir) {
#ifndef _WIN32
        const char *pwd = getenv("PWD"); /* this host's, whatever the target */
        struct stat ps, ds;
        if (pwd && pwd[0] == '/' && stat(pwd, &ps) == 0 && stat(".", &ds) == 0 &&
            ps.st_dev == ds.st_dev && ps.st_ino == ds.st_ino)
            cwd = sbx_strdup(pwd);
#endif
        if (!cwd) {
            cwd = current_dir();
            f.cwd_errno = cwd ? 0 : errno;
            /* Only a plan for this machine is enforced from this path; another
             * target's plan (explain) has no link of this host to fear. */
            f.cwd_physical = target == host_target();
        }
    }
    f.cwd = cwd;
    f.env_home = getenv(unix_like ? "HOME" : "USERPROFILE");
    f.env_temp = getenv(unix_like ? "TMPDIR" : "TEMP");
    f.euid = -1;
    f.env_path = getenv("PATH");
    /* Only a display the command keeps (not dropped or scrubbed) whose X
     * server runs here (its /tmp/.X11-unix socket): a stray or dropped
     * DISPLAY must not open every abstract socket (review of issue 20). */
    if (unix_like && target == host_target() && !sbx_env_removed(p, "DISPLAY", 7) &&
        sbx_x_display_in_use(getenv("DISPLAY")))
        f.env_display = getenv("DISPLAY");
    /* The account's home and ownership are facts of this machine only. */
    if (target == host_target()) {
        account = sbx_account_home();
        f.account_home = account;
        f.on_host = 1;
#ifndef _WIN32
        f.euid = (long)geteuid();
#endif
    }
    f.lookup = sbx_lookup_host;
    rc = sbx_resolve_with(p, target, &f, r, err);
    free(cwd);
    free(account);
    return rc;
}
