/* The AppContainer plan and Windows command-line quoting. Portable C: no
 * Windows headers, so the plan is unit-tested on every host. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

const char *sbx_win_cap_sid(int cap)
{
    switch (cap) {
    case SBX_WIN_CAP_INTERNET_CLIENT: return "S-1-15-3-1";
    case SBX_WIN_CAP_INTERNET_CLIENT_SERVER: return "S-1-15-3-2";
    case SBX_WIN_CAP_PRIVATE_NETWORK: return "S-1-15-3-3";
    default: return "?";
    }
}

const char *sbx_win_cap_name(int cap)
{
    switch (cap) {
    case SBX_WIN_CAP_INTERNET_CLIENT: return "internetClient";
    case SBX_WIN_CAP_INTERNET_CLIENT_SERVER: return "internetClientServer";
    case SBX_WIN_CAP_PRIVATE_NETWORK: return "privateNetworkClientServer";
    default: return "?";
    }
}

void sbx_win_grant_sddl(sbx_buf *out, const char *sid)
{
    sbx_buf_printf(out, "(A;%s;0x%x;;;%s)", SBX_WIN_GRANT_SDDL_FLAGS, SBX_WIN_GRANT_MASK, sid);
}

void sbx_win_plan_free(sbx_win_plan *plan)
{
    size_t i;
    if (!plan)
        return;
    for (i = 0; i < plan->n_grants; i++)
        free(plan->grants[i].path);
    free(plan->grants);
    for (i = 0; i < plan->n_denies; i++)
        free(plan->denies[i].path);
    free(plan->denies);
    free(plan->command_line);
    memset(plan, 0, sizeof *plan);
}

int sbx_win_reparse_is_link(unsigned long tag)
{
    /* IsReparseTagNameSurrogate: bit 29. A cloud placeholder is not one: it
     * is the folder itself, and the grant reaches it, so it must be walked. */
    return (tag & 0x20000000ul) != 0;
}

char *sbx_win_long_path(const char *path)
{
    size_t n = strlen(path), i;
    const char *prefix = "";
    const char *rest = path;
    char *out, *c;
    int drive = n >= 3 && ((path[0] | 0x20) >= 'a' && (path[0] | 0x20) <= 'z') && path[1] == ':' &&
                (path[2] == '\\' || path[2] == '/');
    int unc = n > 2 && (path[0] == '\\' || path[0] == '/') && (path[1] == '\\' || path[1] == '/') &&
              path[2] != '?' && path[2] != '.';
    int dots = 0;
    /* "\\?\" turns off Win32 normalization: "." and ".." would then be
     * names. Such a path keeps the short form (and its limit). */
    for (i = 0; i < n; i++) {
        if ((i == 0 || path[i - 1] == '\\' || path[i - 1] == '/') && path[i] == '.' &&
            (path[i + 1] == '\0' || path[i + 1] == '\\' || path[i + 1] == '/' ||
             (path[i + 1] == '.' &&
              (path[i + 2] == '\0' || path[i + 2] == '\\' || path[i + 2] == '/'))))
            dots = 1;
    }
    if (drive && !dots)
        prefix = "\\\\?\\";
    else if (unc && !dots) {
        prefix = "\\\\?\\UNC\\";
        rest = path + 2;
    }
    out = malloc(strlen(prefix) + strlen(rest) + 1);
    if (!out)
        return NULL;
    strcpy(out, prefix);
    strcat(out, rest);
    if (prefix[0])
        for (c = out; *c; c++)
            if (*c == '/')
                *c = '\\';
    return out;
}

/* Windows paths compare without regard to case; ASCII folding is enough to
 * drop the duplicates a resolver produces ("C:\Work" and "c:\work"). */
static int same_path(const char *a, const char *b)
{
    for (;; a++, b++) {
        char x = *a, y = *b;
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x == '/')
            x = '\\';
        if (y == '/')
            y = '\\';
        if (x != y)
            return 0;
        if (!x)
            return 1;
    }
}

static int add_grant(sbx_win_plan *plan, const char *path, int kind)
{
    struct sbx_win_grant *grown;
    char *copy;
    size_t i, n;
    if (!path || !path[0])
        return SANDBOX_OK;
    copy = sbx_strdup(path);
    if (!copy)
        return SANDBOX_E_NOMEM;
    /* "C:\Temp\" and "C:\Temp" are one root; a drive root keeps its slash.
     * As in the resolver, a backslash separates only in Windows-style paths. */
    n = strlen(copy);
    while (n > 1 && (copy[n - 1] == '/' || (copy[0] != '/' && copy[n - 1] == '\\')) &&
           !(n == 3 && copy[1] == ':'))
        copy[--n] = '\0';
    for (i = 0; i < plan->n_grants; i++) {
        if (same_path(plan->grants[i].path, copy)) {
            free(copy);
            return SANDBOX_OK;
        }
    }
    grown = realloc(plan->grants, (plan->n_grants + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    plan->grants = grown;
    plan->grants[plan->n_grants].path = copy;
    plan->grants[plan->n_grants].kind = kind;
    plan->n_grants++;
    return SANDBOX_OK;
}

int sbx_win_plan_build(const sbx_resolved *r, const char *const argv[], sbx_win_plan *plan,
                       sandbox_error *err)
{
    size_t i;
    int rc = SANDBOX_OK;

    memset(plan, 0, sizeof *plan);
    /* Why refuse rather than degrade: an AppContainer cannot give the read-only
     * contract (it also refuses reads of the user's profile and per-user
     * toolchains), and nothing weaker may pass for it. */
    if (r->filesystem == SANDBOX_FS_READ_ONLY)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "read-only mode is not kernel-enforced on Windows: an AppContainer would "
                        "also refuse reads outside its grants (the user's profile, per-user "
                        "toolchains); refusing to run the command unconfined");
    if (r->network == SANDBOX_NETWORK_INTERNET_ONLY)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "internet-only networking is not enforced on Windows yet; refusing to "
                        "run the command unconfined (use --no-network or allow the network)");

    plan->command_line = sbx_win_command_line(argv, err);
    if (!plan->command_line)
        return err ? err->code : SANDBOX_E_INVALID;

    /* Protection alone still needs the container: a deny ACE for its SID
     * means nothing to a process that runs without one. */
    if (r->network == SANDBOX_NETWORK_ALLOW && r->filesystem == SANDBOX_FS_UNRESTRICTED &&
        !r->protected_paths_blocked)
        return SANDBOX_OK; /* nothing asked: no container */
    plan->contained = 1;

    /* An AppContainer denies both axes by default, so the half that was not
     * requested is granted back: network allowed means all three network
     * capabilities; network denied means none of them. */
    if (r->network == SANDBOX_NETWORK_ALLOW) {
        plan->caps[plan->n_caps++] = SBX_WIN_CAP_INTERNET_CLIENT;
        plan->caps[plan->n_caps++] = SBX_WIN_CAP_INTERNET_CLIENT_SERVER;
        plan->caps[plan->n_caps++] = SBX_WIN_CAP_PRIVATE_NETWORK;
    }
    /* Loopback is wanted in both cases (denying the network spares localhost
     * by contract, an allowed network includes it), but only asked for: the
     * exemption needs an administrator, so the plan never claims it. */
    plan->loopback_wanted = 1;

    if (r->filesystem == SANDBOX_FS_CONFINED) {
        /* The resolver lists project, added dirs, working dir and temp dir
         * (no unix-only roots for the Windows target). */
        for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++)
            rc = add_grant(plan, r->roots[i].path, r->roots[i].kind);
    } else {
        /* Filesystem not confined, but an AppContainer has no "writes
         * unconfined" setting: grant back the working and temp directories
         * only. Stricter than asked (no home, no added dirs); documented. */
        rc = add_grant(plan, r->working_dir, SBX_ROOT_WORKDIR);
        if (rc == SANDBOX_OK)
            rc = add_grant(plan, r->temp_dir, SBX_ROOT_TEMP);
        plan->stricter = 1;
    }
    if (rc != SANDBOX_OK) {
        sbx_win_plan_free(plan);
        return sbx_fail(err, rc, 0, "out of memory while planning the AppContainer grants");
    }
    return SANDBOX_OK;
}

/* ---- protected paths: deny ACEs ---- */

unsigned sbx_win_deny_mask(int kind)
{
    switch (kind) {
    case SBX_WIN_DENY_ALL: return SBX_WIN_DENY_ALL_MASK;
    case SBX_WIN_DENY_WRITE: return SBX_WIN_DENY_WRITE_MASK;
    default: return SBX_WIN_DENY_PARENT_MASK;
    }
}

const char *sbx_win_deny_kind_name(int kind)
{
    switch (kind) {
    case SBX_WIN_DENY_ALL: return "read-write";
    case SBX_WIN_DENY_WRITE: return "write";
    default: return "parent";
    }
}

void sbx_win_deny_sddl(sbx_buf *out, const struct sbx_win_deny *d, const char *sid)
{
    /* A parent's DELETE is about the directory itself, never its contents. */
    int inherit = d->is_dir && d->kind != SBX_WIN_DENY_PARENT;
    sbx_buf_printf(out, "(D;%s;0x%x;;;%s)", inherit ? "OICI" : "", sbx_win_deny_mask(d->kind), sid);
}

/* Add or strengthen the deny for `path` (ALL beats WRITE beats PARENT). */
static int add_deny(sbx_win_plan *plan, const char *path, size_t len, int kind, int is_dir)
{
    struct sbx_win_deny *grown;
    char *copy;
    size_t i;
    copy = malloc(len + 1);
    if (!copy)
        return SANDBOX_E_NOMEM;
    memcpy(copy, path, len);
    copy[len] = '\0';
    for (i = 0; i < plan->n_denies; i++) {
        if (same_path(plan->denies[i].path, copy)) {
            if (kind < plan->denies[i].kind)
                plan->denies[i].kind = kind;
            plan->denies[i].is_dir |= is_dir;
            free(copy);
            return SANDBOX_OK;
        }
    }
    grown = realloc(plan->denies, (plan->n_denies + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    plan->denies = grown;
    grown[plan->n_denies].path = copy;
    grown[plan->n_denies].kind = kind;
    grown[plan->n_denies].is_dir = is_dir;
    plan->n_denies++;
    return SANDBOX_OK;
}

/* Windows-style paths separate with '\\' (and '/'); a path that starts with
 * '/' is a POSIX path (explain on another host), where '\\' is a name byte. */
static int win_style(const char *path)
{
    return path[0] != '/';
}

/* DELETE on every parent of path[0..len) down to `stop` bytes (the root, or
 * home plus its separator when `exclusive`). */
static int add_parents(sbx_win_plan *plan, const char *path, size_t stop, int exclusive)
{
    int bs = win_style(path), rc = SANDBOX_OK;
    size_t len = strlen(path);
    while (rc == SANDBOX_OK) {
        while (len > 0 && path[len - 1] != '/' && !(bs && path[len - 1] == '\\'))
            len--;
        if (len == 0)
            break;
        len--; /* drop the separator: the parent is path[0..len) */
        /* "C:\" keeps its separator; a drive root is never renamed anyway. */
        if (len < stop || (exclusive && len == stop) || len == 0 || (len == 2 && path[1] == ':'))
            break;
        rc = add_deny(plan, path, len, SBX_WIN_DENY_PARENT, 1);
    }
    return rc;
}

struct walk_item {
    char *path;
    size_t depth;
};

struct walk {
    const sbx_resolved *r;
    const struct sbx_win_fs *fs;
    sbx_win_plan *plan;
    sandbox_error *err;
    const char *root;
    sbx_buf path; /* the directory being listed, then + sep + name */
    char sep;
    int rc;
    /* Directories still to list: an explicit heap stack, never recursion,
     * so a tree thousands of levels deep cannot overflow the thread's stack
     * (the launcher died with STATUS_STACK_OVERFLOW: not fail-closed). */
    struct walk_item *todo;
    size_t n_todo, cap_todo;
    size_t depth;   /* of the directory being listed */
    size_t entries; /* seen so far under every root */
};

static int walk_push(struct walk *w, const char *path, size_t depth)
{
    if (w->n_todo == w->cap_todo) {
        size_t cap = w->cap_todo ? w->cap_todo * 2 : 64;
        struct walk_item *grown = realloc(w->todo, cap * sizeof *grown);
        if (!grown)
            return SANDBOX_E_NOMEM;
        w->todo = grown;
        w->cap_todo = cap;
    }
    if (!(w->todo[w->n_todo].path = sbx_strdup(path)))
        return SANDBOX_E_NOMEM;
    w->todo[w->n_todo++].depth = depth;
    return SANDBOX_OK;
}

static int walk_entry(void *arg, const char *name, int is_dir, unsigned long reparse_tag)
{
    struct walk *w = arg;
    size_t keep = w->path.len;
    int kind;
    if (++w->entries > SBX_WIN_WALK_MAX_ENTRIES)
        return w->rc = sbx_fail(w->err, SANDBOX_E_SYSTEM, 0,
                                "more than %lu entries under the granted roots: too many to "
                                "search for protected paths; refusing to run rather than leave "
                                "them readable (grant a smaller root)",
                                SBX_WIN_WALK_MAX_ENTRIES);
    if (w->path.len == 0 || w->path.data[w->path.len - 1] != w->sep)
        sbx_buf_addn(&w->path, &w->sep, 1);
    sbx_buf_add(&w->path, name);
    if (w->path.oom)
        return w->rc = SANDBOX_E_NOMEM;
    kind = sbx_protect_match_tail(w->r->protect, w->r->n_protect, w->path.data, w->path.len,
                                  w->sep == '\\');
    if (kind >= 0) {
        /* A match is denied as a whole (inherited below a directory), so
         * nothing beneath it needs a walk. */
        w->rc = add_deny(w->plan, w->path.data, w->path.len,
                         kind == SANDBOX_PROTECT_WRITE ? SBX_WIN_DENY_WRITE : SBX_WIN_DENY_ALL,
                         is_dir);
        if (w->rc == SANDBOX_OK) {
            w->path.data[w->path.len] = '\0';
            w->rc = add_parents(w->plan, w->path.data, strlen(w->root), 0);
        }
    } else if (is_dir && !sbx_win_reparse_is_link(reparse_tag)) {
        /* Links (junctions, symlinks) are not followed: their target is
         * outside this root, or walked as its own root. Other reparse points
         * (cloud placeholders) are the directory itself and are walked. */
        if (w->depth + 1 > SBX_WIN_WALK_MAX_DEPTH) {
            w->path.data[w->path.len] = '\0';
            w->rc = sbx_fail(w->err, SANDBOX_E_SYSTEM, 0,
                             "the tree under '%s' is more than %d directories deep: too deep to "
                             "search for protected paths; refusing to run rather than leave "
                             "them readable",
                             w->root, SBX_WIN_WALK_MAX_DEPTH);
        } else {
            w->path.data[w->path.len] = '\0';
            w->rc = walk_push(w, w->path.data, w->depth + 1);
        }
    }
    w->path.len = keep;
    w->path.data[keep] = '\0';
    return w->rc;
}

static int walk_one(struct walk *w)
{
    int got;
    w->path.data[w->path.len] = '\0';
    got = w->fs->list(w->fs->ctx, w->path.data, walk_entry, w);
    if (w->rc != SANDBOX_OK)
        return w->rc;
    if (got < 0)
        return w->rc = sbx_fail(w->err, SANDBOX_E_SYSTEM, 0,
                                "cannot list '%s' to find protected paths; refusing to run "
                                "rather than leave them readable",
                                w->path.data);
    /* SBX_WIN_LIST_DENIED: unreachable for the container too.
     * SBX_WIN_LIST_VANISHED: gone (a temp directory another program removed);
     * nothing is left there to protect, and a run must not fail for it. */
    return SANDBOX_OK;
}

static int walk_tree(struct walk *w)
{
    int rc = walk_push(w, w->root, 0);
    while (rc == SANDBOX_OK && w->n_todo > 0) {
        struct walk_item it = w->todo[--w->n_todo];
        w->path.len = 0;
        sbx_buf_add(&w->path, it.path);
        w->depth = it.depth;
        free(it.path);
        rc = w->path.oom ? SANDBOX_E_NOMEM : walk_one(w);
    }
    while (w->n_todo > 0)
        free(w->todo[--w->n_todo].path);
    free(w->todo);
    w->todo = NULL;
    w->cap_todo = 0;
    return rc;
}

/* 1 when `path` is a granted root or lies beneath one: only then can the
 * container reach it (the user's profile is not readable by containers). */
static int under_grant(const sbx_win_plan *plan, const char *path)
{
    size_t i, n;
    for (i = 0; i < plan->n_grants; i++) {
        const char *g = plan->grants[i].path;
        char *head;
        int same;
        n = strlen(g);
        if (strlen(path) < n)
            continue;
        head = sbx_strdup(path);
        if (!head)
            return 1; /* out of memory: deny rather than skip */
        head[n] = '\0';
        same = same_path(head, g);
        free(head);
        if (same && (path[n] == '\0' || path[n] == '\\' || path[n] == '/' ||
                     (n > 0 && (g[n - 1] == '\\' || g[n - 1] == '/'))))
            return 1;
    }
    return 0;
}

/* 1 when a grant may reach `path`: its text lies under one, or a grant root
 * is (or cannot be shown not to be) the same directory as `path` or one of
 * its ancestors. Text alone misses "C:\\USERS\\ME~1", a subst or mapped
 * drive, a junction to the profile: identity decides, and an identity that
 * cannot be told counts as reached (a needless deny is harmless, a missing
 * one leaks ~/.npmrc). */
static int reached(const sbx_win_plan *plan, const struct sbx_win_fs *fs, const char *path)
{
    char *a;
    size_t i, len;
    int bs = win_style(path), hit = 0;
    if (under_grant(plan, path))
        return 1;
    if (!fs->same || !plan->n_grants)
        return 0;
    if (!(a = sbx_strdup(path)))
        return 1;
    for (len = strlen(a);;) {
        size_t j = len;
        a[len] = '\0';
        for (i = 0; !hit && i < plan->n_grants; i++)
            hit = fs->same(fs->ctx, a, plan->grants[i].path) != 0;
        while (j > 0 && a[j - 1] != '/' && !(bs && a[j - 1] == '\\'))
            j--;
        if (hit || j <= 1)
            break;
        if (j - 1 == 2 && a[1] == ':') { /* the parent is the drive: "C:\\" */
            if (len == 3)
                break;
            len = 3;
        } else
            len = j - 1;
    }
    free(a);
    return hit;
}

int sbx_win_plan_protect(const sbx_resolved *r, const struct sbx_win_fs *fs, sbx_win_plan *plan,
                         sandbox_error *err)
{
    size_t i, home_len = r->home_dir ? strlen(r->home_dir) : 0;
    int rc = SANDBOX_OK;
    if (!plan->contained || !r->protected_paths_blocked)
        return SANDBOX_OK;
    /* The grants are exactly what the container can reach besides the
     * system's own readable folders, so they are what is walked (the
     * stricter --no-network plan walks only its two grants). */
    for (i = 0; rc == SANDBOX_OK && i < plan->n_grants; i++) {
        struct walk w;
        memset(&w, 0, sizeof w);
        w.r = r;
        w.fs = fs;
        w.plan = plan;
        w.err = err;
        w.root = plan->grants[i].path;
        w.sep = win_style(w.root) ? '\\' : '/';
        sbx_buf_init(&w.path);
        sbx_buf_add(&w.path, w.root);
        if (w.path.oom)
            rc = SANDBOX_E_NOMEM;
        else if (fs->kind(fs->ctx, w.root) == 1)
            rc = walk_tree(&w);
        sbx_buf_free(&w.path);
    }
    for (i = 0; rc == SANDBOX_OK && i < r->n_protect_home; i++) {
        char *path = sbx_strdup(r->protect_home[i].pattern), *c;
        int k;
        if (!path) {
            rc = SANDBOX_E_NOMEM;
            break;
        }
        /* "~/.config/gh" resolves to "C:\Users\me\.config/gh": one
         * separator, so the parents are found and the plan reads plainly. */
        for (c = path; win_style(path) && *c; c++)
            if (*c == '/')
                *c = '\\';
        /* Deny only where a grant would expose it: without one, the
         * container cannot open the profile at all, and editing ~/.ssh's
         * ACL on every run would only add risk (a crash leaves the ACE). */
        k = fs->kind(fs->ctx, path);
        if (k < 0) {
            free(path);
            continue; /* only what exists at launch: documented */
        }
        if (!reached(plan, fs, path)) {
            free(path);
            continue;
        }
        rc = add_deny(plan, path, strlen(path),
                      r->protect_home[i].kind == SANDBOX_PROTECT_WRITE ? SBX_WIN_DENY_WRITE
                                                                       : SBX_WIN_DENY_ALL,
                      k == 1);
        if (rc == SANDBOX_OK && home_len && sbx_strncasecmp_ascii(path, r->home_dir, home_len) == 0 &&
            (path[home_len] == '\\' || path[home_len] == '/'))
            rc = add_parents(plan, path, home_len, 1);
        free(path);
    }
    if (rc == SANDBOX_E_NOMEM)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while planning the deny ACEs");
    return rc;
}

/* ---- command-line quoting ----
 * CommandLineToArgvW reads the program name up to the next quote when it
 * starts with one (no escapes at all), and every later argument by the C
 * runtime rules: 2n backslashes before a quote are n backslashes and the quote
 * toggles quoting; 2n+1 are n backslashes and a literal quote; backslashes not
 * before a quote are literal. */

int sbx_win_quote_arg(sbx_buf *out, const char *arg, int first)
{
    const char *p;
    if (first) {
        /* Always quoted, so a path with spaces can never be read as a shorter
         * program ("C:\Program" + "Files\..."). */
        if (strchr(arg, '"'))
            return SANDBOX_E_INVALID;
        sbx_buf_add(out, "\"");
        sbx_buf_add(out, arg);
        sbx_buf_add(out, "\"");
        return SANDBOX_OK;
    }
    if (arg[0] && !strpbrk(arg, " \t\n\v\"")) {
        sbx_buf_add(out, arg);
        return SANDBOX_OK;
    }
    sbx_buf_add(out, "\"");
    for (p = arg;;) {
        size_t slashes = 0, k;
        while (*p == '\\') {
            slashes++;
            p++;
        }
        if (!*p) {
            /* Doubled, so the closing quote stays a quote. */
            for (k = 0; k < slashes * 2; k++)
                sbx_buf_add(out, "\\");
            break;
        }
        if (*p == '"') {
            for (k = 0; k < slashes * 2 + 1; k++)
                sbx_buf_add(out, "\\");
        } else {
            for (k = 0; k < slashes; k++)
                sbx_buf_add(out, "\\");
        }
        sbx_buf_addn(out, p, 1);
        p++;
    }
    sbx_buf_add(out, "\"");
    return SANDBOX_OK;
}

char *sbx_win_command_line(const char *const argv[], sandbox_error *err)
{
    sbx_buf b;
    char *line;
    size_t i;
    if (!argv || !argv[0]) {
        sbx_fail(err, SANDBOX_E_INVALID, 0, "no command was given");
        return NULL;
    }
    sbx_buf_init(&b);
    for (i = 0; argv[i]; i++) {
        if (i)
            sbx_buf_add(&b, " ");
        if (sbx_win_quote_arg(&b, argv[i], i == 0) != SANDBOX_OK) {
            sbx_buf_free(&b);
            sbx_fail(err, SANDBOX_E_INVALID, 0,
                     "the program name '%s' contains a double quote, which no Windows command "
                     "line can carry",
                     argv[0]);
            return NULL;
        }
    }
    line = sbx_buf_take(&b);
    if (!line)
        sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while building the command line");
    return line;
}
