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
    int kind;      /* enum sandbox_protect_kind; resolved lists hold ALL or WRITE only */
    int targets;   /* bit (1 << target) for each target it applies to */
    int flags;     /* SBX_PROTECT_F_* */
};

/* The .git of SANDBOX_PROTECT_GIT, resolved as a WRITE entry: the repository
 * stays writable, what runs code in it is write-protected (src/linux/mask.c,
 * src/macos/seatbelt.c; the Windows plan keeps the whole .git read-only). */
#define SBX_PROTECT_F_GIT 1
/* The parts of a .git that stay read-only under SBX_PROTECT_F_GIT, by name
 * below the .git (src/protect.c has the reason for each). */
extern const char *const sbx_git_code[];
extern const size_t sbx_n_git_code;
/* Not matched beneath a node_modules directory: editor and agent
 * configuration that packages ship is read by no editor or agent there. */
#define SBX_PROTECT_F_NOT_IN_DEPS 2

/* 1 when a name matching this WRITE entry may be created: only .git (git
 * init, git clone make new repositories). Every other write-protected name,
 * and every read-write one, is refused at creation too. Inline: the
 * seccomp program generator links none of the core. */
static inline int sbx_protect_create_ok(const struct sbx_protect *e)
{
    const char *s = e->pattern, *last = s, *c;
    for (c = s; *c; c++)
        if ((*c == '/' || *c == '\\') && c[1])
            last = c + 1;
    return e->kind == SANDBOX_PROTECT_WRITE && last[0] == '.' &&
           (last[1] == 'g' || last[1] == 'G') && (last[2] == 'i' || last[2] == 'I') &&
           (last[3] == 't' || last[3] == 'T') &&
           (last[4] == '\0' || last[4] == '/' || last[4] == '\\');
}

#define SBX_N_LIMITS 6 /* enum sandbox_limit, 1..5 */

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
    int scan_index_off;  /* 1: every pre-flight scan is a full one (src/scanindex.c) */
    char *output_dir;    /* media: the one output folder; NULL when unset */
    char **allow_links;  /* hard-link scan allowlist: files or directories */
    size_t n_allow_links;
    char **read_dirs;    /* --add-read: more read roots when a class confines reads */
    size_t n_read_dirs;
    struct sbx_protect *protect; /* protected patterns (src/protect.c) */
    size_t n_protect;
    int scrub_env;     /* 1: credential variables are removed (src/env.c) */
    char **keep_env;   /* names scrubbing keeps */
    size_t n_keep_env;
    char **drop_env;   /* names removed whatever scrub_env says (SSH_AUTH_SOCK) */
    size_t n_drop_env;
    unsigned long long limits[SBX_N_LIMITS]; /* by enum sandbox_limit; 0: none */
    char **allow_unix; /* privileged AF_UNIX endpoints reopened (src/linux/unixep.c) */
    size_t n_allow_unix;
    char **deny_unix; /* more AF_UNIX endpoints refused */
    size_t n_deny_unix;
    int allow_abstract_unix; /* 1: "@" was allowed: no abstract-socket scope */
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
    int create;       /* a cache that is missing now and that a launch creates
                         (src/caches.c); kept by resolve.c once it passed every check */
    char *create_from; /* with `create`: the existing directory the walk starts below */
    int pnpm_store;   /* the pnpm store of the build class (the hard-link scan) */
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
    int scan_index_off;     /* 1: no pre-flight index; scans are full (src/scanindex.c) */
    /* Directories one launch's index checks have stat'ed already, shared by
     * its two scans; set by the backend for one launch, not owned. */
    struct sbx_index_memo *index_memo;
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
    /* Reads (src/reads.c): with an explicit class but tool-server, reads are
     * confined to the writable roots above plus these read roots. */
    int reads_confined;
    struct sbx_read_root *reads;
    size_t n_reads;
    char read_notes[512]; /* read roots left out, and why ("" when none) */
    /* The identities no root may have (Linux host: "/", the homes and their
     * ancestors), rechecked on the descriptor Landlock is given; and which of
     * them a fixed system root (/tmp, /dev) may still be (all but "/"). */
    struct sbx_ident *forbidden;
    size_t n_forbidden;
    /* The project was not given and what it would be is never one (a home,
     * "/", ~/Library, a package store): the command writes only its scratch.
     * NULL, or why (static). */
    const char *no_project;
    int project_found; /* 1: the project is the git root above the working directory */
    /* Sentences for --explain that are no root and no rule: caches a launch
     * would create or will not create, a working directory left read-only
     * (cache roots carry their own `create` flag). */
    char **notes;
    size_t n_notes;
    unsigned long long limits[SBX_N_LIMITS]; /* the policy's resource limits */
    /* AF_UNIX endpoints the host reopened or added (copies of the policy's). */
    char **allow_unix;
    size_t n_allow_unix;
    char **deny_unix;
    size_t n_deny_unix;
    int allow_abstract_unix; /* abstract sockets outside the domain stay reachable:
                                1 the host allowed them, 2 a local X display is named */
} sbx_resolved;

/* Append a note (a copy) to r->notes; SANDBOX_OK or SANDBOX_E_NOMEM. */
int sbx_resolved_note(sbx_resolved *r, const char *fmt, ...) SBX_PRINTF(2, 3);
/* What a read root is, for explain and the checks it passes. */
enum sbx_read_kind {
    SBX_READ_SYSTEM,    /* an OS tree of the target (fixed table) */
    SBX_READ_TOOLCHAIN, /* a toolchain in the home: programs, never credentials */
    SBX_READ_PROJECT,   /* the project, where the class does not write it */
    SBX_READ_WORKDIR,   /* the working directory, where the class does not write it */
    SBX_READ_ADDED,     /* --add-read / sandbox_policy_add_readable_dir */
    SBX_READ_CACHE      /* a package cache the build class would write: read only */
};
#define SBX_READ_EXEC 1u   /* programs in it may be run, not only read */
#define SBX_READ_OTHERS 2u /* for root, only what every account may read (Linux walks it) */

struct sbx_read_root {
    char *path;       /* what is granted (canonical, except fixed OS paths) */
    int kind;         /* enum sbx_read_kind */
    unsigned flags;   /* SBX_READ_* */
    const char *why;  /* static words for explain */
    const char *from; /* the environment variable it came from (static), or NULL */
    int fixed;        /* 1: an OS path, opened following its links */
};

struct sbx_facts;
const char *sbx_read_kind_name(int kind);
/* Fill r->reads_confined, r->reads and r->read_notes (src/reads.c). Called
 * by the resolver after the writable roots are checked; SANDBOX_E_PATH for a
 * read root that is "/", a home, an ancestor of one, or reached through a
 * link a command could have planted. */
int sbx_reads_resolve(const sandbox_policy *policy, sbx_resolved *r, const struct sbx_facts *facts,
                      sandbox_error *err);
struct sbx_buf;
/* The read roots for --explain: a text section, or a JSON object. */
void sbx_reads_explain(const sbx_resolved *r, int json, struct sbx_buf *out);

struct sbx_ident {
    unsigned long long dev, ino;
    int fs_root; /* 1: the file system root, refused for every root */
};

/* Fill defaults and list the writable roots for `target`. Reads the
 * environment (TMPDIR, HOME, cache overrides) and the working directory; for
 * the host target it also stats cache directories: a missing one that may
 * be created is kept with `create` set (src/caches.c makes it before a
 * launch), any other missing one is dropped (Landlock cannot grant a path
 * that does not exist). No other side effect: nothing is created here. */
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
 * not be created: its last components match a pattern of `list` (as
 * sbx_protect_match_tail), or it is, or lies beneath, a path of `home`
 * (r->protect_home), or a "~/" pattern of `list` matches it at its place
 * under `home_dir`; read-write and write-protected alike, but .git
 * (sbx_protect_create_ok). No system calls, no allocation:
 * async-signal-safe, for the Linux creation guard. */
int sbx_protect_refuses_create(const struct sbx_protect *list, size_t n,
                               const struct sbx_protect *home, size_t n_home,
                               const char *home_dir, const char *path, size_t len);
/* Would naming a directory or symlink path[0..len) make a path that a
 * pattern of several components protects (any kind but .git), below it?
 * (the creation guard) */
int sbx_protect_refuses_ancestor(const struct sbx_protect *list, size_t n, const char *home_dir,
                                 const char *path, size_t len);
/* Does path[0..len) ('/'-separated) have a component "node_modules", where
 * SBX_PROTECT_F_NOT_IN_DEPS entries do not match? (the creation guard) */
int sbx_protect_in_deps(const char *path, size_t len);

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
/* The build class's package caches for `target` (on the host: those that
 * exist, or would be created for a tool on PATH, marked `create`), as roots
 * of a scratch sbx_resolved; the caller frees it with sbx_resolved_free.
 * Used by the read boundary of the classes that read them without writing
 * (src/reads.c). */
int sbx_presets_package_caches(int target, int host, sbx_resolved *out, sandbox_error *err);
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
    /* When it does not exist (host lookups only; base NULL otherwise): the
     * deepest existing directory on the way (canonical), its owner, and why
     * the walk stopped there (ENOENT: only missing components are left). */
    char *base;
    unsigned long base_uid;
    int missing_errno;
};

/* Where a link whose parent directory the caller could write lies, such
 * that a sandboxed command of an earlier launch (whose writable root held
 * that directory) may have planted it, or NULL for the caller's own links:
 * one in a home itself, or, for root, in a system link directory (/, /var,
 * /usr) it owns and nobody else writes. Unknown euid or parent: NULL. */
const char *sbx_link_plantable_earlier(long euid, const char *const *homes, size_t n_homes,
                                       const struct sbx_link_fact *l);

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
    const char *env_display;  /* $DISPLAY of a local X server the command keeps, or NULL */
    sbx_lookup_fn lookup;
    void *lookup_ctx;
};

/* The number of the X display DISPLAY `d` names through a local socket
 * (":0", "unix:0", "unix/:0"), whose abstract name libxcb tries first; -1
 * for anything else. */
int sbx_local_x_display(const char *d);
/* 1 when `d` names such a display and its server's socket
 * /tmp/.X11-unix/XN exists on this machine. */
int sbx_x_display_in_use(const char *d);
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

/* ---- first-run caches (src/caches.c) ---- */

/* Create the missing cache directories a resolution for the host marked
 * (`create`), each by a walk of its canonical path from "/" that never
 * follows a symlink (openat O_NOFOLLOW, mkdirat), with the caller's umask
 * and ownership. A directory that cannot be made is a warning, never an
 * error (the root is then skipped as before). Returns how many were made:
 * the caller resolves again to grant them. Unix only (0 on Windows). */
int sbx_caches_make(const sbx_resolved *r, char *warning, size_t warning_size);
/* The walk for one path; `base` is the existing directory it starts from
 * (both canonical). 0, or an errno (ELOOP: a link appeared on the way). */
int sbx_caches_mkdirs(const char *path, const char *base);

/* ---- the environment (src/env.c) ---- */

/* 1 when the policy removes the variable `name` (a name, or "NAME=value":
 * the name is compared) from the command's environment. */
int sbx_env_removed(const sandbox_policy *policy, const char *name, size_t len);
/* 1 when the policy changes the environment at all: scrubbing, names to
 * drop, or a TMPDIR to set (`tmpdir`, NULL when none). */
int sbx_env_changes(const sandbox_policy *policy, const char *tmpdir);
/* A new NULL-terminated array of the entries of `envp` the policy keeps, with
 * TMPDIR=tmpdir instead of any TMPDIR when `tmpdir` is set. The strings are
 * the caller's (envp's, and `*owned` holds the one made for TMPDIR); free the
 * array and *owned. NULL when out of memory. */
char **sbx_env_filter(const sandbox_policy *policy, const char *const *envp, const char *tmpdir,
                      char **owned);
/* This process's environment (environ). */
char **sbx_environ(void);
/* The same on this process's environment (sandbox_enforce: the caller execs
 * with it). 0, or an errno. */
int sbx_env_apply(const sandbox_policy *policy, const char *tmpdir);
/* The names of this process's environment the policy removes, for
 * --explain: "A, B" (text) or ["A","B"] (json); nothing when none. */
void sbx_env_explain(const sandbox_policy *policy, int json, sbx_buf *out);

/* ---- the hard-link scan (src/hardlink.c) ---- */

/* Scan the scanned roots of `r` (resolved for the host) with the policy's
 * allowlist. Returns as sandbox_scan_hardlinks(). */
int sbx_hardlink_scan(const sbx_resolved *r, const sandbox_policy *policy,
                      sandbox_scan_report *report);
/* 1 when the policy asks for the scan before each command: the switch is on
 * and writes are confined to roots a link could widen. */
int sbx_hardlink_wanted(const sandbox_policy *policy);
/* The scan as a pre-flight check: SANDBOX_OK, or its refusal in *err. */
int sbx_hardlink_preflight(const sbx_resolved *r, const sandbox_policy *policy,
                           sandbox_error *err);

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
