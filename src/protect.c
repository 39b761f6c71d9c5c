/* Protected paths: the pattern list on the policy, the portable matcher, and
 * the resolved form the platform plans render (Linux masks, macOS deny rules,
 * Windows deny ACEs). System calls only to find home: the environment, the
 * user database, and the real paths of the home entries. */
#define _DEFAULT_SOURCE /* realpath under -std=c11 */
#include "internal.h"

#include <errno.h>
#ifndef _WIN32
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every target: 1 << SANDBOX_TARGET_LINUX | MACOS | WINDOWS. */
#define ALL_TARGETS ((1 << SANDBOX_TARGET_LINUX) | (1 << SANDBOX_TARGET_MACOS) | (1 << SANDBOX_TARGET_WINDOWS))
#define MACOS_ONLY (1 << SANDBOX_TARGET_MACOS)

/* The default set. Names that a project legitimately holds with harmless
 * content (.npmrc registry settings, a .docker build folder) are protected in
 * the home directory only, so ordinary project work keeps running. */
static const struct {
    const char *pattern;
    int kind;
    int targets;
} defaults[] = {
    {".env", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {".env.*", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"*.pem", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"*.key", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_rsa", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_rsa_*", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_dsa", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_dsa_*", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_ecdsa", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_ecdsa_*", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_ed25519", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"id_ed25519_*", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {".ssh", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {".aws", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {".gnupg", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {".netrc", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {".pypirc", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.npmrc", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.docker", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.kube", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.config/gh", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    /* Credentials the tools keep in plain text in home (issue 18; one
     * reason each in docs/protected-paths.md). Home only: projects hold
     * harmless files of some of these names (.my.cnf samples, .cargo). */
    {"~/.git-credentials", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.config/git/credentials", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.config/gcloud", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.azure", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.terraform.d/credentials.tfrc.json", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.cargo/credentials.toml", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.cargo/credentials", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.pgpass", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/.my.cnf", SANDBOX_PROTECT_ALL, ALL_TARGETS},
    {"~/Library/Keychains", SANDBOX_PROTECT_ALL, MACOS_ONLY},
    /* Readable so git status and git log work; hooks and config are writes. */
    {".git", SANDBOX_PROTECT_WRITE, ALL_TARGETS},
};

/* Editor and agent configuration (issue 23; one reason each in
 * docs/protected-paths.md): a change runs code, or widens what an agent may
 * do, the next time the editor or agent opens the project, outside the
 * sandbox. Readable, and neither writable nor creatable. Not beneath
 * node_modules, where packages ship such folders that nothing reads. */
static const char *const agent_config[] = {
    ".vscode", ".idea", ".mcp.json", ".claude", ".codex", ".cursor", ".gemini", ".devcontainer",
    /* the Dev Containers spec's other form (initializeCommand runs on the
     * host) and VS Code's workspace files (tasks, settings): review of 23 */
    ".devcontainer.json", "*.code-workspace",
};

/* What makes git run code, or points it at another repository, in a .git
 * left writable (SANDBOX_PROTECT_GIT, docs/protected-paths.md): hooks;
 * config (core.hooksPath, core.fsmonitor, aliases, filters, include) and
 * config.worktree; commondir (git takes a repository's hooks and config from
 * where it points); info (attributes pick filter and diff drivers); modules
 * (the submodules' own hooks and config); worktrees (their gitdir, commondir
 * and config.worktree); branches and remotes (legacy remote definitions).
 * Objects, refs, the index and the logs stay writable. */
const char *const sbx_git_code[] = {"hooks",    "config",    "config.worktree",
                                    "commondir", "info",      "modules",
                                    "worktrees", "branches", "remotes"};
const size_t sbx_n_git_code = sizeof sbx_git_code / sizeof sbx_git_code[0];

/* Fixed system paths per target, denied by exact path. */
static const char *const macos_system_paths[] = {"/Library/Keychains"};

static int lower(int c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int ieq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (lower((unsigned char)*a) != lower((unsigned char)*b))
            return 0;
    return *a == *b;
}

void sbx_protect_free(struct sbx_protect *list, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(list[i].pattern);
    free(list);
}

/* A pattern names components relative to any directory, or to home ("~/");
 * never an absolute path, "." or "..", or an empty component. */
static int pattern_valid(const char *p)
{
    const char *c;
    if (!p || !p[0] || p[0] == '/' || p[0] == '\\')
        return 0;
    if (p[0] == '~') {
        if (p[1] != '/' || !p[2])
            return 0;
        p += 2;
    }
    for (c = p;;) {
        size_t n = strcspn(c, "/\\");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        if (!c[n])
            return 1;
        c += n + 1;
    }
}

static int add_one(sandbox_policy *p, const char *pattern, int kind, int targets, int flags)
{
    struct sbx_protect *grown;
    char *copy;
    size_t i;
    for (i = 0; i < p->n_protect; i++) {
        if (ieq(p->protect[i].pattern, pattern)) {
            p->protect[i].kind = kind;
            p->protect[i].targets = targets;
            p->protect[i].flags = flags;
            return SANDBOX_OK;
        }
    }
    copy = sbx_strdup(pattern);
    if (!copy)
        return SANDBOX_E_NOMEM;
    grown = realloc(p->protect, (p->n_protect + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    p->protect = grown;
    p->protect[p->n_protect].pattern = copy;
    p->protect[p->n_protect].kind = kind;
    p->protect[p->n_protect].targets = targets;
    p->protect[p->n_protect].flags = flags;
    p->n_protect++;
    return SANDBOX_OK;
}

int sandbox_policy_add_protected(sandbox_policy *p, const char *pattern, int kind)
{
    if (!p || !pattern_valid(pattern) ||
        (kind != SANDBOX_PROTECT_ALL && kind != SANDBOX_PROTECT_WRITE &&
         kind != SANDBOX_PROTECT_GIT) ||
        (kind == SANDBOX_PROTECT_GIT && !ieq(pattern, ".git")))
        return SANDBOX_E_INVALID;
    return add_one(p, pattern, kind, ALL_TARGETS, 0);
}


int sandbox_policy_remove_protected(sandbox_policy *p, const char *pattern)
{
    size_t i;
    if (!p || !pattern)
        return SANDBOX_E_INVALID;
    for (i = 0; i < p->n_protect; i++) {
        if (ieq(p->protect[i].pattern, pattern)) {
            free(p->protect[i].pattern);
            memmove(&p->protect[i], &p->protect[i + 1], (p->n_protect - i - 1) * sizeof *p->protect);
            p->n_protect--;
            return SANDBOX_OK;
        }
    }
    return SANDBOX_E_INVALID;
}

int sandbox_policy_protect_defaults(sandbox_policy *p)
{
    size_t i;
    int rc;
    if (!p)
        return SANDBOX_E_INVALID;
    for (i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        rc = add_one(p, defaults[i].pattern, defaults[i].kind, defaults[i].targets, 0);
        if (rc != SANDBOX_OK)
            return rc;
    }
    for (i = 0; i < sizeof agent_config / sizeof agent_config[0]; i++) {
        rc = add_one(p, agent_config[i], SANDBOX_PROTECT_WRITE, ALL_TARGETS,
                     SBX_PROTECT_F_NOT_IN_DEPS);
        if (rc != SANDBOX_OK)
            return rc;
    }
    return SANDBOX_OK;
}

size_t sandbox_policy_protected_count(const sandbox_policy *p)
{
    return p ? p->n_protect : 0;
}

int sandbox_policy_needs_supervisor(const sandbox_policy *p)
{
#if defined(__linux__)
    size_t i;
#endif
    int w;
    /* A resource limit, on every platform and in every mode: the supervisor
     * holds the run's cgroup and sets the command's rlimits
     * (src/linux/reslimits.c); where there is none, the spawn refuses it. */
    for (w = SANDBOX_LIMIT_MEMORY; p && w <= SANDBOX_LIMIT_OPEN_FILES; w++)
        if (p->limits[w])
            return 1;
#if defined(__linux__)
    /* Exactly as sbx_sc_guard_wanted decides on the resolved policy: any
     * pattern that applies to Linux wants the creation guard whenever names
     * can be created at all (every pattern is refused at creation, and a
     * write-protected .git, even alone, carries the repository rule). A
     * narrower test here left `--protect-write .git` unsupervised, so its
     * guard could never start and every such run failed (review g23 G3). */
    if (!p || p->filesystem == SANDBOX_FS_READ_ONLY)
        return 0;
    for (i = 0; i < p->n_protect; i++)
        if (p->protect[i].targets & (1 << SANDBOX_TARGET_LINUX))
            return 1;
    return 0;
#else
    /* no supervisor elsewhere: protected paths are profile rules */
    return 0;
#endif
}

/* ---- matching ---- */

int sbx_protect_glob(const char *pat, const char *name, size_t len)
{
    const char *star = NULL;
    size_t i = 0, back = 0, n;
    /* "*.pem": a plain suffix test, the common case of a walk. */
    if (pat[0] == '*' && (n = strcspn(pat + 1, "*?/\\")) && (pat[1 + n] == '\0' || pat[1 + n] == '/' || pat[1 + n] == '\\')) {
        if (n > len)
            return 0;
        for (i = 0; i < n; i++)
            if (lower((unsigned char)pat[1 + i]) != lower((unsigned char)name[len - n + i]))
                return 0;
        return 1;
    }
    i = 0;
    while (i < len) {
        if (*pat == '*') {
            star = ++pat;
            back = i;
        } else if (*pat && *pat != '/' && *pat != '\\' &&
                   (*pat == '?' || lower((unsigned char)*pat) == lower((unsigned char)name[i]))) {
            pat++;
            i++;
        } else if (star) {
            pat = star;
            i = ++back;
        } else {
            return 0;
        }
    }
    while (*pat == '*')
        pat++;
    return *pat == '\0' || *pat == '/' || *pat == '\\';
}

static int is_sep(char c, int backslash)
{
    return c == '/' || (backslash && c == '\\');
}

/* Do the last components of path[0..len) match the components of pat? */
static int tail_matches(const char *pat, const char *path, size_t len, int backslash)
{
    size_t npat = 1, k;
    const char *c;
    for (c = pat; *c; c++)
        if (*c == '/' || *c == '\\')
            npat++;
    /* Walk the pattern's components from the last one backwards. */
    for (k = npat; k > 0; k--) {
        const char *pc = pat;
        size_t j, end = len, start;
        for (j = 1; j < k; j++)
            pc += strcspn(pc, "/\\") + 1;
        while (end > 0 && is_sep(path[end - 1], backslash))
            end--;
        start = end;
        while (start > 0 && !is_sep(path[start - 1], backslash))
            start--;
        if (start == end || !sbx_protect_glob(pc, path + start, end - start))
            return 0;
        len = start;
    }
    return 1;
}

/* An editor's or a tool's copy of a file keeps its secret: `.env~`,
 * `id_ed25519.bak`, `server.key.orig` match as `.env`, `id_ed25519` and
 * `server.key` do; so do vim's second swap file (`.swo`) and GNU/Emacs
 * numbered backups (`id_ed25519.~1~`). The length of the suffix to strip, or 0.
 * SBX_SBPL_COPY_SUFFIX (src/macos/seatbelt.h) mirrors this list. */
static size_t backup_suffix(const char *name, size_t len)
{
    static const char *const sfx[] = {"~", ".bak", ".orig", ".old", ".save", ".swp", ".swo", ".backup"};
    size_t i, k;
    /* ".save.N": nano's later copies (issue 18, round 3). */
    if (len > 7 && name[len - 1] >= '0' && name[len - 1] <= '9') {
        for (k = len - 1; k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9'; k--)
            ;
        if (k >= 7 && sbx_strncasecmp_ascii(name + k - 6, ".save.", 6) == 0 && k - 6 > 0)
            return len - (k - 6);
    }
    /* ".~N~": digits between ".~" and "~". */
    if (len > 4 && name[len - 1] == '~' && name[len - 2] >= '0' && name[len - 2] <= '9') {
        for (k = len - 2; k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9'; k--)
            ;
        if (k >= 3 && name[k - 1] == '~' && name[k - 2] == '.' && k - 2 > 0)
            return len - (k - 2);
    }
    for (i = 0; i < sizeof sfx / sizeof sfx[0]; i++) {
        k = strlen(sfx[i]);
        if (len > k && sbx_strncasecmp_ascii(name + len - k, sfx[i], k) == 0)
            return k;
    }
    return 0;
}

/* Copies named with one character in front as well: vim's swap and undo
 * files of a name that is not hidden already (`.id_ed25519.swp`, `.swo`,
 * `.un~`), Kate's swap file (`.server.key.kate-swp`) and Emacs's auto-save
 * file (`#server.key#`, written while a buffer is modified: issue 18, round
 * 3). The length of the suffix, the name being name[1..len-suffix), or 0.
 * (Not mirrored by the macOS regexes, which only take suffixes:
 * docs/protected-paths.md.) */
static size_t vim_swap(const char *name, size_t len)
{
    static const char *const sfx[] = {".swp", ".swo", ".un~", ".kate-swp"};
    size_t i, k;
    if (len > 2 && name[0] == '#' && name[len - 1] == '#')
        return 1;
    for (i = 0; name[0] == '.' && i < sizeof sfx / sizeof sfx[0]; i++) {
        k = strlen(sfx[i]);
        if (len > k + 1 && sbx_strncasecmp_ascii(name + len - k, sfx[i], k) == 0)
            return k;
    }
    return 0;
}

/* Does one component `name` match the pattern component `pat`, itself or as
 * a copy (backup suffixes, any number, or vim's swap form)? */
static int copy_matches(const char *pat, const char *name, size_t len)
{
    size_t k;
    if (sbx_protect_glob(pat, name, len))
        return 1;
    if ((k = vim_swap(name, len)) != 0 && copy_matches(pat, name + 1, len - 1 - k))
        return 1;
    return (k = backup_suffix(name, len)) != 0 && copy_matches(pat, name, len - k);
}

/* Does path[0..end) have a component "node_modules"? */
static int in_deps(const char *path, size_t end, int backslash)
{
    static const char dep[] = "node_modules";
    const size_t dl = sizeof dep - 1;
    size_t i = 0, start;
    while (i < end) {
        while (i < end && is_sep(path[i], backslash))
            i++;
        start = i;
        while (i < end && !is_sep(path[i], backslash))
            i++;
        if (i - start == dl && sbx_strncasecmp_ascii(path + start, dep, dl) == 0)
            return 1;
    }
    return 0;
}

int sbx_protect_in_deps(const char *path, size_t len)
{
    return in_deps(path, len, 0);
}

/* The matcher. `create`: only the entries that refuse a new name (every
 * read-write one, every write one but .git's); the strongest kind of those
 * is returned as for a match. Entries of SANDBOX_PROTECT_GIT (F_GIT) never
 * match a name: their parts are found by src/linux/mask.c and rendered by
 * src/macos/seatbelt.c. */
static int match_tail(const struct sbx_protect *list, size_t n, const char *path, size_t len,
                      int backslash, int create)
{
    size_t i, end = len, start, k;
    int best = -1, kk;
    while (end > 0 && is_sep(path[end - 1], backslash))
        end--;
    start = end;
    while (start > 0 && !is_sep(path[start - 1], backslash))
        start--;
    if (start == end)
        return -1;
    /* `.env.bak~` as `.env.bak`, as `.env`: each copy suffix in turn. */
    if ((k = backup_suffix(path + start, end - start)) != 0 && end - k > start) {
        kk = match_tail(list, n, path, end - k, backslash, create);
        if (kk == SANDBOX_PROTECT_ALL)
            return kk;
        best = kk;
    }
    /* `.id_ed25519.swp` as `id_ed25519`: the component without its dot. */
    if ((k = vim_swap(path + start, end - start)) != 0 && end < PATH_MAX) {
        char buf[PATH_MAX];
        memcpy(buf, path, start);
        memcpy(buf + start, path + start + 1, end - start - 1 - k);
        kk = match_tail(list, n, buf, end - 1 - k, backslash, create);
        if (kk == SANDBOX_PROTECT_ALL)
            return kk;
        if (kk > best)
            best = kk;
    }
    for (i = 0; i < n; i++) {
        const char *pat = list[i].pattern, *last = pat, *c;
        if (pat[0] == '~')
            continue; /* home-anchored: exact paths in protect_home */
        if ((list[i].flags & SBX_PROTECT_F_GIT) || (create && sbx_protect_create_ok(&list[i])))
            continue;
        for (c = pat; *c; c++)
            if (*c == '/' || *c == '\\')
                last = c + 1;
        /* The last component decides almost every case, cheaply. */
        if (!sbx_protect_glob(last, path + start, end - start))
            continue;
        if (last != pat && !tail_matches(pat, path, len, backslash))
            continue;
        if ((list[i].flags & SBX_PROTECT_F_NOT_IN_DEPS) && in_deps(path, start, backslash))
            continue;
        if (list[i].kind == SANDBOX_PROTECT_ALL)
            return SANDBOX_PROTECT_ALL;
        best = list[i].kind;
    }
    return best;
}

int sbx_protect_match_tail(const struct sbx_protect *list, size_t n, const char *path, size_t len,
                           int backslash)
{
    return match_tail(list, n, path, len, backslash, 0);
}

int sbx_protect_match(const struct sbx_protect *list, size_t n, const char *path, int backslash)
{
    size_t len = strlen(path);
    int best = -1, k;
    /* Every prefix that ends a component: a path beneath a protected
     * directory is protected like the directory. */
    while (len > 0) {
        while (len > 0 && is_sep(path[len - 1], backslash))
            len--;
        if (len == 0)
            break;
        k = sbx_protect_match_tail(list, n, path, len, backslash);
        if (k == SANDBOX_PROTECT_ALL)
            return k;
        if (k >= 0)
            best = k;
        while (len > 0 && !is_sep(path[len - 1], backslash))
            len--;
    }
    return best;
}

/* ---- names created later (the Linux creation guard) ---- */

/* Does path[0..len) lie at or beneath `prefix` (case-insensitively)? */
static int at_or_beneath(const char *prefix, const char *path, size_t len)
{
    size_t n = strlen(prefix);
    while (n > 1 && prefix[n - 1] == '/')
        n--;
    if (n > len || sbx_strncasecmp_ascii(prefix, path, n) != 0)
        return 0;
    return n == len || path[n] == '/' || (n == 1 && prefix[0] == '/');
}

/* A "~/" pattern at its exact position under home: the first components of
 * `rest` (the path below home) match the pattern's components one by one.
 * With `exact`, rest must end there, not lie beneath the match. */
static int home_pattern_matches(const char *pat, const char *rest, size_t len, int exact)
{
    const char *p = pat + 2;
    size_t i = 0, start, plen;
    for (;;) {
        plen = strcspn(p, "/\\");
        while (i < len && rest[i] == '/')
            i++;
        start = i;
        while (i < len && rest[i] != '/')
            i++;
        /* The last component as the name itself or a copy of it
         * (`~/.npmrc.bak`, `~/.kube~/config`); leading ones exactly. */
        if (i == start || !(!p[plen] && !exact ? copy_matches(p, rest + start, i - start)
                                                : sbx_protect_glob(p, rest + start, i - start)))
            return 0;
        if (!p[plen]) {
            while (exact && i < len && rest[i] == '/')
                i++;
            return !exact || i == len; /* else the rest lies beneath the match */
        }
        p += plen + 1;
    }
}

int sbx_protect_refuses_create(const struct sbx_protect *list, size_t n,
                               const struct sbx_protect *home, size_t n_home,
                               const char *home_dir, const char *path, size_t len)
{
    size_t i, hl;
    /* Read-write names, and write-protected ones but .git (issue 23: a new
     * .vscode is refused like an existing one is read-only). */
    if (match_tail(list, n, path, len, 0, 1) >= 0)
        return 1;
    for (i = 0; i < n_home; i++)
        if (!sbx_protect_create_ok(&home[i]) && at_or_beneath(home[i].pattern, path, len))
            return 1;
    if (!home_dir || !home_dir[0])
        return 0;
    hl = strlen(home_dir);
    if (!at_or_beneath(home_dir, path, len) || hl >= len)
        return 0;
    for (i = 0; i < n; i++)
        if (list[i].pattern[0] == '~' && !sbx_protect_create_ok(&list[i]) &&
            home_pattern_matches(list[i].pattern, path + hl, len - hl, 0))
            return 1;
    return 0;
}

/* Would a directory or symlink named path[0..len) give a way to a protected
 * name without creating that name? True when it matches a proper prefix of a
 * pattern of several components: renaming a directory that holds
 * `secret.yml` to `conf`, or a symlink named `conf`, makes `conf/secret.yml`
 * while the guard only sees the name `conf` created. Unanchored patterns
 * match at the path's end; "~/" patterns exactly at their place under home. */
static int ancestor_of(const char *pat, const char *path, size_t len, const char *home_dir)
{
    char prefix[4096];
    size_t plen = strlen(pat), cut, hl;
    int home = pat[0] == '~';

    if (plen >= sizeof prefix)
        return 0;
    for (cut = home ? 2 : 0; cut < plen; cut++) {
        if (pat[cut] != '/' && pat[cut] != '\\')
            continue;
        memcpy(prefix, pat, cut);
        prefix[cut] = '\0';
        if (!home) {
            if (cut > 0 && tail_matches(prefix, path, len, 0))
                return 1;
            continue;
        }
        /* "~/a/b" cut after "~/a": the path below home is exactly "a". */
        if (!home_dir || !home_dir[0] || !at_or_beneath(home_dir, path, len))
            continue;
        hl = strlen(home_dir);
        if (hl < len && home_pattern_matches(prefix, path + hl, len - hl, 1))
            return 1;
    }
    return 0;
}

int sbx_protect_refuses_ancestor(const struct sbx_protect *list, size_t n, const char *home_dir,
                                 const char *path, size_t len)
{
    size_t i, hl = home_dir ? strlen(home_dir) : 0;
    while (hl > 1 && home_dir[hl - 1] == '/')
        hl--;
    while (len > 1 && path[len - 1] == '/')
        len--;
    /* The home itself, or a directory above it, renamed or exchanged into
     * place (or a symlink made there) brings every "~/" name below it at once:
     * they are leading parts of every "~/" pattern. */
    if (hl > 0 && len > 0 && len <= hl && sbx_strncasecmp_ascii(path, home_dir, len) == 0 &&
        (len == hl || home_dir[len] == '/') && !(len == 1 && path[0] == '/'))
        for (i = 0; i < n; i++)
            if (!sbx_protect_create_ok(&list[i]) && list[i].pattern[0] == '~')
                return 1;
    for (i = 0; i < n; i++)
        if (!sbx_protect_create_ok(&list[i]) && !(list[i].flags & SBX_PROTECT_F_GIT) &&
            ancestor_of(list[i].pattern, path, len, home_dir))
            return 1;
    return 0;
}

/* ---- resolution ---- */

static int has_glob(const char *s)
{
    return strpbrk(s, "*?") != NULL;
}

static int push(struct sbx_protect **list, size_t *n, const char *a, const char *sep,
                const char *b, int kind, int targets)
{
    struct sbx_protect *grown;
    size_t la = strlen(a), ls = strlen(sep), lb = strlen(b), i;
    char *s = malloc(la + ls + lb + 1);
    if (!s)
        return SANDBOX_E_NOMEM;
    memcpy(s, a, la);
    memcpy(s + la, sep, ls);
    memcpy(s + la + ls, b, lb + 1);
    for (i = 0; i < *n; i++) {
        if (strcmp((*list)[i].pattern, s) == 0) {
            if (kind == SANDBOX_PROTECT_ALL)
                (*list)[i].kind = kind;
            free(s);
            return SANDBOX_OK;
        }
    }
    grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown) {
        free(s);
        return SANDBOX_E_NOMEM;
    }
    *list = grown;
    grown[*n].pattern = s;
    grown[*n].kind = kind;
    grown[*n].targets = targets;
    grown[*n].flags = 0;
    (*n)++;
    return SANDBOX_OK;
}

static int host_target(void)
{
#if defined(__APPLE__)
    return SANDBOX_TARGET_MACOS;
#elif defined(_WIN32)
    return SANDBOX_TARGET_WINDOWS;
#else
    return SANDBOX_TARGET_LINUX;
#endif
}

/* "/home/me/" and "/home/me" name the same directory. */
static void trim_home(char *h)
{
    char *e;
    for (e = h + strlen(h); e > h + 1 && (e[-1] == '/' || e[-1] == '\\');)
        *--e = '\0';
}

/* The home directories whose secrets are protected. Not $HOME alone: the
 * command's environment (env -u HOME, HOME=/) must not move them away from
 * the account's real ~/.ssh (issue 18). The account's home from the user
 * database first, and $HOME as well when it names another directory. */
static int find_homes(sbx_resolved *r)
{
    const char *env = getenv("HOME");
    char *acct;
    if (r->target == SANDBOX_TARGET_WINDOWS) {
        const char *home = getenv("USERPROFILE");
        if (!home || !home[0])
            home = env;
        if (home && home[0] && !(r->home_dir = sbx_strdup(home)))
            return SANDBOX_E_NOMEM;
        if (r->home_dir)
            trim_home(r->home_dir);
        return SANDBOX_OK;
    }
    /* This machine's user database says nothing about another target's. */
    acct = r->target == host_target() ? sbx_account_home() : NULL;
    if (acct) {
        trim_home(acct);
        r->home_dir = acct;
    }
    if (env && env[0] == '/') {
        char *h = sbx_strdup(env);
        if (!h)
            return SANDBOX_E_NOMEM;
        trim_home(h);
        if (!r->home_dir)
            r->home_dir = h;
        else if (strcmp(h, r->home_dir) != 0)
            r->home_alt = h;
        else
            free(h);
    }
    return SANDBOX_OK;
}

/* `abs` with its longest existing leading part replaced by that part's real
 * path, or NULL when that changes nothing (or on error). A ~/.config that is
 * a symlink into a dotfile repository puts ~/.config/gh somewhere else; the
 * masks follow the link anyway, the creation guard sees only real paths. */
/* The real paths of the last few leading parts asked for: the home
 * patterns share their folders, and realpath reads every name on the way. */
struct rv_memo {
    char *path[8], *real[8];
    int err[8];
    size_t next;
};

#ifndef _WIN32

static char *realpath_memo(struct rv_memo *m, const char *path, int whole)
{
    struct stat st;
    char *real;
    size_t i;
    int e;
    /* A missing path (most home patterns) fails as realpath would, for one
     * lstat: it is not a link, so no name on the way was left to read. Any
     * other failure asks realpath: on a nosymfollow mount the kernel's walk
     * refuses a link (ELOOP) that musl's realpath, reading each link with
     * readlink, still resolves to the real folder (review r65 F1). */
    if (whole) {
        if (lstat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR))
            return NULL;
        return realpath(path, NULL);
    }
    for (i = 0; i < 8; i++) {
        if (m->path[i] && strcmp(m->path[i], path) == 0) {
            if (!m->real[i]) {
                errno = m->err[i];
                return NULL;
            }
            return strdup(m->real[i]);
        }
    }
    real = realpath(path, NULL);
    e = errno;
    i = m->next++ % 8;
    free(m->path[i]);
    free(m->real[i]);
    m->err[i] = e;
    m->path[i] = strdup(path);
    m->real[i] = real ? strdup(real) : NULL;
    if (!m->path[i] || (real && !m->real[i])) {
        free(m->path[i]);
        free(m->real[i]);
        m->path[i] = m->real[i] = NULL;
    }
    errno = e;
    return real;
}

#endif

static void rv_memo_free(struct rv_memo *m)
{
    size_t i;
    for (i = 0; i < 8; i++) {
        free(m->path[i]);
        free(m->real[i]);
    }
}

static char *real_variant(const char *abs, struct rv_memo *memo)
{
#ifdef _WIN32
    (void)abs; /* the Windows plan matches by its own scan (src/windows) */
    (void)memo;
    return NULL;
#else
    char buf[PATH_MAX], *real, *out;
    size_t n = strlen(abs), cut = n, rl;
    if (n >= sizeof buf)
        return NULL;
    memcpy(buf, abs, n + 1);
    for (;;) {
        buf[cut] = '\0';
        real = realpath_memo(memo, buf, cut == n);
        if (real)
            break;
        if (errno != ENOENT && errno != ENOTDIR)
            return NULL;
        while (cut > 0 && buf[cut - 1] != '/')
            cut--;
        while (cut > 1 && buf[cut - 1] == '/')
            cut--;
        if (cut <= 1)
            return NULL;
    }
    rl = strlen(real);
    out = malloc(rl + (n - cut) + 1);
    if (out) {
        memcpy(out, real, rl);
        memcpy(out + rl, abs + cut, n - cut + 1);
        if (strcmp(out, abs) == 0) {
            free(out);
            out = NULL;
        }
    }
    free(real);
    return out;
#endif
}

/* Credential locations a tool is told by the environment to use instead of
 * its place in home (one reason each in docs/protected-paths.md): a file or
 * directory the variable names, or names below it. */
static const struct {
    const char *var;
    const char *below; /* "" for the path itself */
    int list;          /* a ':'-separated list (KUBECONFIG) */
} env_paths[] = {
    {"DOCKER_CONFIG", "", 0},
    {"KUBECONFIG", "", 1},
    {"XDG_CONFIG_HOME", "/gh", 0},
    {"XDG_CONFIG_HOME", "/git/credentials", 0},
    {"XDG_CONFIG_HOME", "/gcloud", 0},
    {"CARGO_HOME", "/credentials", 0},
    {"CARGO_HOME", "/credentials.toml", 0},
    {"GNUPGHOME", "", 0},
    {"CLOUDSDK_CONFIG", "", 0},
    {"AZURE_CONFIG_DIR", "", 0},
    {"AWS_SHARED_CREDENTIALS_FILE", "", 0},
    {"AWS_CONFIG_FILE", "", 0},
    {"NPM_CONFIG_USERCONFIG", "", 0},
    {"npm_config_userconfig", "", 0},
    {"TF_CLI_CONFIG_FILE", "", 0},
    {"TERRAFORM_CONFIG", "", 0},
    {"GH_CONFIG_DIR", "", 0},
    {"PGPASSFILE", "", 0},
    {"GOOGLE_APPLICATION_CREDENTIALS", "", 0},
    {"NETRC", "", 0},
};

/* Each path the environment names; a relative one from the command's working
 * directory, where the tool resolves it. */
static int push_env_paths(const sandbox_policy *p, sbx_resolved *r, int targets)
{
    char buf[PATH_MAX], cwd[PATH_MAX], full[2 * PATH_MAX];
    const char *base = p->working_dir, *base_used;
    size_t i, n;
    int rc = SANDBOX_OK;
    if (!base || base[0] != '/')
#ifdef _WIN32
        base = NULL; /* relative values are resolved on unix hosts only */
    (void)cwd;
#else
        base = getcwd(cwd, sizeof cwd);
#endif
    for (i = 0; rc == SANDBOX_OK && i < sizeof env_paths / sizeof env_paths[0]; i++) {
        const char *v = getenv(env_paths[i].var), *c;
        for (c = v; rc == SANDBOX_OK && c && *c; c += n + (c[n] == ':')) {
            n = env_paths[i].list ? strcspn(c, ":") : strlen(c);
            if (n == 0 || n >= sizeof buf)
                continue;
            memcpy(buf, c, n);
            buf[n] = '\0';
            if (buf[0] == '/')
                base_used = "";
            else if (base && base[0] == '/')
                base_used = base;
            else
                continue;
            if ((size_t)snprintf(full, sizeof full, "%s%s%s", base_used,
                                 !base_used[0] || strcmp(base_used, "/") == 0 ? "" : "/",
                                 buf) >= sizeof full)
                continue;
            trim_home(full);
            rc = push(&r->protect_home, &r->n_protect_home, full, env_paths[i].below, "",
                      SANDBOX_PROTECT_ALL, targets);
        }
    }
    return rc;
}

#ifndef _WIN32
/* The names of the folders push_home_copies listed, kept for the resolve:
 * most "~/" patterns end in home itself, which was listed once per pattern
 * (an open, a read and, with musl, a map and unmap of the stream each). */
struct dir_names {
    char *dir;
    char *names; /* each name followed by its NUL; an empty name ends them */
    int missing; /* the folder could not be listed */
};

struct names_memo {
    struct dir_names d[4];
    size_t next;
};

static void names_memo_free(struct names_memo *m)
{
    size_t i;
    for (i = 0; i < sizeof m->d / sizeof m->d[0]; i++) {
        free(m->d[i].dir);
        free(m->d[i].names);
    }
}

/* The names in `dir` (no . and ..), listed once; NULL when out of memory. */
static const struct dir_names *list_names(struct names_memo *m, const char *dir)
{
    struct dir_names *e;
    struct dirent *de;
    size_t i, len = 0, cap = 0;
    DIR *d;
    for (i = 0; i < sizeof m->d / sizeof m->d[0]; i++)
        if (m->d[i].dir && strcmp(m->d[i].dir, dir) == 0)
            return &m->d[i];
    e = &m->d[m->next++ % (sizeof m->d / sizeof m->d[0])];
    free(e->dir);
    free(e->names);
    memset(e, 0, sizeof *e);
    if (!(e->dir = strdup(dir)))
        return NULL;
    if (!(d = opendir(dir))) {
        e->missing = 1;
        return e;
    }
    while ((de = readdir(d)) != NULL) {
        size_t nl = strlen(de->d_name);
        if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
            continue;
        if (len + nl + 2 > cap) {
            char *g = realloc(e->names, cap = 2 * cap + nl + 256);
            if (!g) {
                closedir(d);
                free(e->dir);
                free(e->names);
                memset(e, 0, sizeof *e);
                return NULL;
            }
            e->names = g;
        }
        memcpy(e->names + len, de->d_name, nl + 1);
        len += nl + 1;
    }
    closedir(d);
    if (!e->names && !(e->names = malloc(1))) {
        free(e->dir);
        memset(e, 0, sizeof *e);
        return NULL;
    }
    e->names[len] = '\0';
    return e;
}

/* Copies of the "~/" names that exist (`~/.npmrc.bak`, `~/.kube.bak`,
 * `~/.config/gcloud.~1~`): the directory each pattern ends in is listed and
 * every copy of its last component masked like the name itself. */
static int push_home_copies(sbx_resolved *r, struct names_memo *memo, const char *home,
                            const char *rel, int kind, int targets)
{
    char dir[PATH_MAX];
    const char *last = strrchr(rel, '/'), *name;
    const struct dir_names *names;
    size_t dl;
    int rc = SANDBOX_OK;
    last = last ? last + 1 : rel;
    if ((size_t)snprintf(dir, sizeof dir, "%s/%.*s", home, (int)(last - rel), rel) >= sizeof dir)
        return SANDBOX_OK;
    dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dir[--dl] = '\0';
    if (!(names = list_names(memo, dir)))
        return SANDBOX_E_NOMEM;
    if (names->missing)
        return SANDBOX_OK;
    for (name = names->names; rc == SANDBOX_OK && *name; name += strlen(name) + 1) {
        size_t nl = strlen(name);
        if (sbx_protect_glob(last, name, nl) || !copy_matches(last, name, nl))
            continue;
        rc = push(&r->protect_home, &r->n_protect_home, dir, strcmp(dir, "/") == 0 ? "" : "/",
                  name, kind, targets);
    }
    return rc;
}
#endif

int sbx_protect_resolve(const sandbox_policy *p, sbx_resolved *r)
{
    const char *homes[2], *sep;
    int bit = 1 << r->target, rc = SANDBOX_OK, wanted = 0;
    size_t i, j, n_homes = 0, n_exact;
#ifndef _WIN32
    struct names_memo listed;
    memset(&listed, 0, sizeof listed);
#endif

    for (i = 0; i < p->n_protect; i++)
        wanted |= (p->protect[i].targets & bit) != 0;
    rc = find_homes(r);
    if (rc != SANDBOX_OK)
        return rc;
    /* Protection asked for with no home to protect would silently leave
     * the account's keys readable: refuse instead. */
    if (wanted && r->target != SANDBOX_TARGET_WINDOWS && !r->home_dir)
        return SANDBOX_E_PATH;
    if (r->home_dir)
        homes[n_homes++] = r->home_dir;
    if (r->home_alt)
        homes[n_homes++] = r->home_alt;
    sep = r->target == SANDBOX_TARGET_WINDOWS ? "\\" : "/";
    for (i = 0; rc == SANDBOX_OK && i < p->n_protect; i++) {
        const struct sbx_protect *e = &p->protect[i];
        const char *rel = e->pattern[0] == '~' ? e->pattern + 2 : e->pattern;
        /* A repository writable but for what runs code: a WRITE entry the
         * Linux masks and the Seatbelt renderer know by its flag; the
         * Windows plan keeps the whole .git read-only (not there yet). */
        int kind = e->kind == SANDBOX_PROTECT_GIT ? SANDBOX_PROTECT_WRITE : e->kind;
        int flags = e->flags | (e->kind == SANDBOX_PROTECT_GIT &&
                                        r->target != SANDBOX_TARGET_WINDOWS
                                    ? SBX_PROTECT_F_GIT
                                    : 0);
        if (!(e->targets & bit))
            continue;
        rc = push(&r->protect, &r->n_protect, e->pattern, "", "", kind, e->targets);
        if (rc == SANDBOX_OK)
            r->protect[r->n_protect - 1].flags = flags;
        /* A wildcard at home is found by listing it (Linux) or by the
         * renderer's own name rule; exact paths need no listing. The home
         * is never a root: a .git there stays read-only whole. */
        for (j = 0; rc == SANDBOX_OK && j < n_homes && !has_glob(rel); j++)
            rc = push(&r->protect_home, &r->n_protect_home, homes[j], sep, rel, kind, e->targets);
#ifndef _WIN32
        for (j = 0; rc == SANDBOX_OK && j < n_homes && e->pattern[0] == '~' && !has_glob(rel) &&
                    r->target == host_target();
             j++)
            rc = push_home_copies(r, &listed, homes[j], rel, kind, e->targets);
#endif
    }
#ifndef _WIN32
    names_memo_free(&listed);
#endif
    /* This process's environment is the command's only on this machine. */
    if (rc == SANDBOX_OK && wanted && r->target != SANDBOX_TARGET_WINDOWS && r->target == host_target())
        rc = push_env_paths(p, r, ALL_TARGETS);
    /* The same paths by their real names, where a symlink on the way moves
     * them (a dotfile manager's ~/.config). */
    n_exact = r->n_protect_home;
    {
        struct rv_memo memo;
        memset(&memo, 0, sizeof memo);
        for (i = 0; rc == SANDBOX_OK && r->target == host_target() &&
                    r->target != SANDBOX_TARGET_WINDOWS && i < n_exact;
             i++) {
            char *real = real_variant(r->protect_home[i].pattern, &memo);
            if (real)
                rc = push(&r->protect_home, &r->n_protect_home, real, "", "",
                          r->protect_home[i].kind, r->protect_home[i].targets);
            free(real);
        }
        rv_memo_free(&memo);
    }
    if (rc == SANDBOX_OK && r->target == SANDBOX_TARGET_MACOS && r->n_protect > 0) {
        for (i = 0; rc == SANDBOX_OK && i < sizeof macos_system_paths / sizeof macos_system_paths[0]; i++)
            rc = push(&r->protect_home, &r->n_protect_home, macos_system_paths[i], "", "",
                      SANDBOX_PROTECT_ALL, MACOS_ONLY);
    }
    r->protected_paths_blocked = r->n_protect > 0;
    return rc;
}

/* ---- explaining ---- */

static const char *kind_name(const struct sbx_protect *e)
{
    if (e->flags & SBX_PROTECT_F_GIT)
        return "git"; /* writable but hooks, config and what else runs code */
    return e->kind == SANDBOX_PROTECT_WRITE ? "write" : "read-write";
}

void sbx_protect_explain(const sbx_resolved *r, const char *mechanism, const char *not_covered,
                         int json, sbx_buf *out)
{
    size_t i;
    if (json) {
        sbx_buf_printf(out, "{\"blocked\":%s,\"mechanism\":", r->protected_paths_blocked ? "true" : "false");
        sbx_buf_json_str(out, mechanism);
        sbx_buf_add(out, ",\"not_covered\":");
        sbx_buf_json_str(out, not_covered);
        sbx_buf_add(out, ",\"patterns\":[");
        for (i = 0; i < r->n_protect; i++) {
            sbx_buf_add(out, i ? ",{\"pattern\":" : "{\"pattern\":");
            sbx_buf_json_str(out, r->protect[i].pattern);
            sbx_buf_printf(out, ",\"denies\":\"%s\"}", kind_name(&r->protect[i]));
        }
        sbx_buf_add(out, "],\"paths\":[");
        for (i = 0; i < r->n_protect_home; i++) {
            sbx_buf_add(out, i ? ",{\"path\":" : "{\"path\":");
            sbx_buf_json_str(out, r->protect_home[i].pattern);
            sbx_buf_printf(out, ",\"denies\":\"%s\"}", kind_name(&r->protect_home[i]));
        }
        sbx_buf_add(out, "]}");
        return;
    }
    if (!r->protected_paths_blocked)
        return;
    sbx_buf_printf(out, "protected paths (%s):\n", mechanism);
    for (i = 0; i < r->n_protect; i++)
        sbx_buf_printf(out, "  %-10s %s\n", kind_name(&r->protect[i]), r->protect[i].pattern);
    for (i = 0; i < r->n_protect_home; i++)
        sbx_buf_printf(out, "  %-10s %s\n", kind_name(&r->protect_home[i]),
                       r->protect_home[i].pattern);
    sbx_buf_printf(out, "  not covered: %s\n", not_covered);
}
