/* Internal declarations shared by the platform-neutral core and the backends.
 * Nothing here is exported: the library is built with -fvisibility=hidden. */
#ifndef SANDBOX_INTERNAL_H
#define SANDBOX_INTERNAL_H

#include "sandbox.h"

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#  define SBX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#  define SBX_PRINTF(a, b)
#endif

/* ---- the policy object (what the caller asked for, plain data) ---- */

/* One protected pattern, as the caller gave it (see sandbox_policy_add_protected). */
struct sbx_protect {
    char *pattern; /* as given (compared case-insensitively); "~/" when home-anchored */
    int kind;      /* enum sandbox_protect_kind */
    int targets;   /* bit (1 << target) for each target it applies to */
};

struct sandbox_policy {
    int network;     /* enum sandbox_network */
    int filesystem;  /* enum sandbox_filesystem */
    int deny_action; /* enum sandbox_deny_action */
    int deny_userns; /* 1: no new user namespaces (read-only: always) */
    char *project_root; /* NULL: the working directory */
    char *working_dir;  /* NULL: getcwd() at enforce time */
    char *temp_dir;     /* NULL: $TMPDIR, else /tmp */
    char **add_dirs;
    size_t n_add_dirs;
    int klass;           /* enum sandbox_class; 0 (project) by default */
    int class_chosen;    /* 1 once sandbox_policy_set_class() was called */
    int writable_caches; /* 1: the per-user cache directories are writable roots */
    int scan_hardlinks;  /* 1: the facade runs the hard-link scan before applying */
    char *output_dir;    /* media: the one output folder; NULL when unset */
    char **allow_links;  /* hard-link scan allowlist: files or directories */
    size_t n_allow_links;
    struct sbx_protect *protect; /* protected patterns (src/protect.c) */
    size_t n_protect;
};

/* A deep copy of the policy (NULL when out of memory): what a plan keeps, so
 * later changes to the caller's policy do not reach it. */
sandbox_policy *sbx_policy_copy(const sandbox_policy *policy);
/* OFFLINE and MEDIA never have network, whatever the network field says. */
int sbx_class_denies_network(int klass);
/* The network the policy really asks for, after the class is applied. */
int sbx_effective_network(const sandbox_policy *policy);
const char *sbx_class_name(int klass);

/* ---- the resolved policy: defaults filled in, roots listed ---- */

enum sbx_root_kind {
    SBX_ROOT_PROJECT,
    SBX_ROOT_ADDED,
    SBX_ROOT_WORKDIR,
    SBX_ROOT_TEMP,
    SBX_ROOT_SYSTEM_TEMP, /* /tmp on unix */
    SBX_ROOT_DEV,         /* /dev on unix */
    SBX_ROOT_OUTPUT,      /* the media output folder */
    SBX_ROOT_CACHE,       /* a per-user cache directory (~/.cache, ~/Library/Caches) */
    SBX_ROOT_PACKAGE,     /* a package-manager cache of the build class */
    SBX_ROOT_USER_CACHE   /* macOS DARWIN_USER_CACHE_DIR, TMPDIR's sibling .../C */
};

struct sbx_root {
    char *path;       /* what the root resolved to (src/resolve.c); what is granted */
    int kind;         /* enum sbx_root_kind */
    char *given;      /* as the host spelled it; NULL when the same as path */
    const char *from; /* the environment variable it came from (static), or NULL */
    int shared;       /* a shared temp directory (/tmp): may hold a home, never "/" */
};

/* 1 when the hard-link scan walks roots of this kind. The project, working
 * directory, added and output directories and the temp directory are scanned
 * (unless it is the shared /tmp or /var/tmp); /tmp, /dev and caches are not
 * (see docs/classes.md). */
int sbx_root_is_scanned(const struct sbx_root *root);

typedef struct sbx_resolved {
    int target;      /* enum sandbox_target, never HOST */
    int network;
    int filesystem;
    int deny_action;
    int deny_userns; /* 1 also in read-only mode, whatever the policy said */
    char *working_dir;
    char *project_root;
    char *temp_dir;
    struct sbx_root *roots; /* the writable roots, deduplicated, in a fixed order */
    size_t n_roots;
    int klass;              /* enum sandbox_class */
    int class_chosen;       /* 1 when a class was chosen, not just the default */
    /* Programs no command may exec, in any class or mode (spec: never-allowed
     * tools). Static storage, not freed. Filled for macOS, where Seatbelt
     * renders (deny process-exec (literal ...)) for each; empty for Linux,
     * where no_new_privs already strips setuid from sudo and friends. */
    const char *const *deny_exec;
    size_t n_deny_exec;
    /* Protected paths for this target (src/protect.c). Renderers use
     * `protect` (patterns as given, matched case-insensitively per component) for rules that match
     * names, and `protect_home` (absolute paths under home_dir, plus the
     * target's fixed system paths) for what must be denied by exact path. */
    struct sbx_protect *protect; /* only the patterns that apply to `target` */
    size_t n_protect;
    char *home_dir;              /* the account's home (USERPROFILE on Windows); NULL: none */
    char *home_alt;              /* $HOME when it names another directory; NULL otherwise */
    struct sbx_protect *protect_home; /* pattern = absolute path, same kinds */
    size_t n_protect_home;
    int protected_paths_blocked; /* 1 when protection is asked for: "protected paths blocked" */
    /* The identities no root may have (Linux host: "/", the homes and their
     * ancestors), rechecked on the descriptor Landlock is given; and which of
     * them a fixed system root (/tmp, /dev) may still be (all but "/"). */
    struct sbx_ident *forbidden;
    size_t n_forbidden;
} sbx_resolved;

struct sbx_ident {
    unsigned long long dev, ino;
    int fs_root; /* 1: the file system root, refused for every root */
};

/* Fill defaults and list the writable roots for `target`. Reads the
 * environment (TMPDIR, HOME, cache overrides) and the working directory; for
 * the host target it also stats cache directories, to drop the missing ones
 * (Landlock cannot grant a path that does not exist). No other side effect. */
int sbx_resolve(const sandbox_policy *policy, int target, sbx_resolved *out, sandbox_error *err);
void sbx_resolved_free(sbx_resolved *r);
const char *sbx_root_kind_name(int kind);
int sbx_policy_is_noop(const sandbox_policy *policy);

/* ---- protected paths (src/protect.c) ---- */

/* Free the policy's pattern list. */
void sbx_protect_free(struct sbx_protect *list, size_t n);
/* Fill r->protect, r->home_dir, r->home_alt and r->protect_home from the
 * policy. SANDBOX_E_PATH when protection is asked for and no absolute home is
 * known (the caller reports it), SANDBOX_E_NOMEM. */
int sbx_protect_resolve(const sandbox_policy *policy, sbx_resolved *r);
/* Case-insensitive glob of one component: '*' and '?' never cross '/'. */
int sbx_protect_glob(const char *pattern, const char *name, size_t name_len);
/* Is `path` ('/'-separated, or '\\' too when `backslash`) protected: does
 * any of its components (or a run of them) match a pattern? Returns -1 when
 * nothing matches, else the strongest kind (SANDBOX_PROTECT_ALL beats
 * SANDBOX_PROTECT_WRITE); a path beneath a protected directory matches.
 * Home-anchored patterns are ignored here: they are exact paths. */
int sbx_protect_match(const struct sbx_protect *list, size_t n, const char *path, int backslash);
/* The same for the last components of path[0..len) only (a tree walk, which
 * knows what its parents matched). */
int sbx_protect_match_tail(const struct sbx_protect *list, size_t n, const char *path, size_t len,
                           int backslash);

/* 1 when a new name at `path` (absolute, '/'-separated, path[0..len)) must
 * not be created: its last components match a read-write pattern of `list`
 * (as sbx_protect_match_tail), or it is, or lies beneath, a read-write path
 * of `home` (r->protect_home), or a "~/" pattern of `list` matches it at its
 * place under `home_dir`. Write-only patterns (.git) never refuse. No system
 * calls, no allocation: async-signal-safe, for the Linux creation guard. */
int sbx_protect_refuses_create(const struct sbx_protect *list, size_t n,
                               const struct sbx_protect *home, size_t n_home,
                               const char *home_dir, const char *path, size_t len);
/* Would naming a directory or symlink path[0..len) make a path that a
 * pattern of several components protects, below it? (the creation guard) */
int sbx_protect_refuses_ancestor(const struct sbx_protect *list, size_t n, const char *home_dir,
                                 const char *path, size_t len);

/* ---- errors ---- */

int sbx_fail(sandbox_error *err, int code, int sys_errno, const char *fmt, ...) SBX_PRINTF(4, 5);
void sbx_error_clear(sandbox_error *err);
/* Append a warning sentence to a fixed buffer, separated by "; ". */
void sbx_warn(char *buf, size_t size, const char *fmt, ...) SBX_PRINTF(3, 4);

/* ---- a growable string, for explain and profile rendering ---- */

typedef struct sbx_buf {
    char *data;
    size_t len, cap;
    int oom; /* sticky: set when an allocation failed */
} sbx_buf;

void sbx_buf_init(sbx_buf *b);
void sbx_buf_free(sbx_buf *b);
void sbx_buf_add(sbx_buf *b, const char *s);
void sbx_buf_addn(sbx_buf *b, const char *s, size_t n);
void sbx_buf_printf(sbx_buf *b, const char *fmt, ...) SBX_PRINTF(2, 3);
/* Append s as a JSON string literal, quotes included. Bytes that are not
 * valid UTF-8 are written as \u00XX (their Latin-1 reading). */
void sbx_buf_json_str(sbx_buf *b, const char *s);
/* Detach the string (NUL-terminated); NULL when an allocation failed. */
char *sbx_buf_take(sbx_buf *b);

char *sbx_strdup(const char *s);
/* The account's home from the user database (getpwuid_r of the effective uid),
 * newly allocated; NULL when there is no absolute one, or on Windows. */
char *sbx_account_home(void);
/* strncmp that folds ASCII letters; locale-independent. */
int sbx_strncasecmp_ascii(const char *a, const char *b, size_t n);
/* "a" + sep + "b" (sep is '/' or '\\'), newly allocated; NULL when out of memory. */
char *sbx_path_join(const char *a, char sep, const char *b);

/* ---- presets (src/presets.c) ---- */

/* Add the class-specific and cache roots of `policy` to `r` (confined mode
 * only; the caller has already added project/workdir/temp as the class wants).
 * `host` is 1 when `r->target` is this machine. */
int sbx_presets_add_cache_roots(const sandbox_policy *policy, sbx_resolved *r, int host,
                                sandbox_error *err);
/* The never-allowed programs for `target` (static storage). */
void sbx_presets_deny_exec(int target, const char *const **list, size_t *n);
/* Append a root (deduplicated); SANDBOX_OK or SANDBOX_E_NOMEM. `from` names
 * the environment variable the path came from (static storage), or NULL. */
int sbx_resolved_add_root(sbx_resolved *r, const char *path, int kind);
int sbx_resolved_add_root_from(sbx_resolved *r, const char *path, int kind, const char *from);

/* ---- root resolution (src/resolve.c, src/pathfact.c) ---- */

/* A symlink met while resolving a path: where it was (its canonical parent
 * directory joined with its name). */
struct sbx_link_fact {
    char *at;
    char *parent;
    /* The parent directory's owner and mode when the link was passed (host
     * lookups only; parent_known 0 otherwise): who could have planted it. */
    int parent_known;
    unsigned long parent_uid, parent_mode;
};

/* What a path is. `final` is its canonical spelling (for a path that does
 * not exist or was not looked up: its lexical normal form); the other fields
 * are set only when `exists`. */
struct sbx_path_fact {
    char *final;
    int exists, is_dir;
    /* Set when what the path names cannot be known: ".." after a component
     * that does not exist (the kernel would climb from what is created
     * there later, not from the text), or a name too long to walk. */
    const char *unresolved;
    unsigned long long dev, ino;
    unsigned long uid, mode;
    struct sbx_link_fact *links; /* every symlink passed, in order */
    size_t n_links;
};

/* Answer what `path` (absolute for `target`) is; 0, or -1 when out of memory. */
typedef int (*sbx_lookup_fn)(void *ctx, int target, const char *path, struct sbx_path_fact *out);

/* Everything resolution reads from the host, as data: a test passes its own. */
struct sbx_facts {
    const char *cwd;          /* the working directory; NULL: unknown */
    int cwd_errno;            /* why it is unknown */
    int cwd_physical;         /* cwd is getcwd()'s: the kernel resolved its links unseen */
    const char *env_home;     /* $HOME (%USERPROFILE% on Windows) as set, or NULL */
    const char *account_home; /* the user database's home, or NULL */
    const char *env_temp;     /* $TMPDIR (%TEMP%) as set, or NULL */
    long euid;                /* the caller, -1 when unknown (another target's plan) */
    int on_host;              /* the target is this machine (Windows: no euid) */
    const char *env_path;     /* $PATH as set, or NULL */
    sbx_lookup_fn lookup;
    void *lookup_ctx;
};

/* sbx_resolve with the host's facts replaced by `facts`. */
int sbx_resolve_with(const sandbox_policy *policy, int target, const struct sbx_facts *facts,
                     sbx_resolved *out, sandbox_error *err);
void sbx_path_fact_free(struct sbx_path_fact *f);
/* The lexical normal form of an absolute path for `target`: separators
 * folded, "." and ".." applied, on Windows \\?\ and trailing dots dropped. */
char *sbx_path_lexical(int target, const char *path);
/* The host's answer: a component-wise walk (lstat, readlink), like
 * realpath(3) but recording the links; `target` other than the host's gets
 * the lexical form only. */
int sbx_lookup_host(void *ctx, int target, const char *path, struct sbx_path_fact *out);
/* 1 when `path` is `dir` or beneath it, both normal forms for `target`
 * (case-insensitive on macOS and Windows; Windows short names may match). */
int sbx_path_within(int target, const char *path, const char *dir);

/* ---- the hard-link scan (src/hardlink.c) ---- */

/* Scan the scanned roots of `r` (resolved for the host) with the policy's
 * allowlist. Returns as sandbox_scan_hardlinks(). */
int sbx_hardlink_scan(const sbx_resolved *r, const sandbox_policy *policy,
                      sandbox_scan_report *report);

/* Explain the protected paths (text: nothing when none; JSON: an object).
 * `mechanism` and `not_covered` are the target's own words. */
void sbx_protect_explain(const sbx_resolved *r, const char *mechanism, const char *not_covered,
                         int json, sbx_buf *out);

/* ---- platform plans that are portable C (explain on any host) ---- */

int sbx_linux_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                      sandbox_error *err);
int sbx_macos_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                      sandbox_error *err);
int sbx_windows_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                        sandbox_error *err);

#endif
