/* The Seatbelt plan: the SBPL profile, its -D parameters and the argv that
 * runs a command under /usr/bin/sandbox-exec. Pure computation, compiled on
 * every host so the macOS plan can be explained and unit-tested anywhere.
 *
 * Injection-proof by construction: no path text ever becomes profile code.
 * Every root reaches the profile as (param "WRITABLE_ROOT_N") and its text
 * travels separately as a -D value, so the profile for a given policy shape
 * is the same bytes whatever the paths contain. The only string literals in
 * the profile are our own constants, and they still go through the one
 * escaper, sbx_sbpl_string(). Protected paths travel the same way
 * (PROTECTED_N, PROTECTED_PARENT_N, HOME_N). Protected name patterns are the
 * one caller text that becomes profile text: each goes through the one regex
 * builder, sbx_sbpl_name_regex(), which emits only an allowlisted alphabet
 * and refuses everything else. */
#ifndef SANDBOX_MACOS_SEATBELT_H
#define SANDBOX_MACOS_SEATBELT_H

#include "../internal.h"

#define SBX_SANDBOX_EXEC "/usr/bin/sandbox-exec"

/* How protected paths are enforced on macOS, and what that leaves open: the
 * words of --self-test and --explain (docs/protected-paths.md). */
#define SBX_MACOS_PROTECT_MECHANISM "seatbelt"
#define SBX_MACOS_PROTECT_GAPS                                                                  \
    "another hard link to a protected file under an unprotected name (Seatbelt judges paths, " \
    "not files); descriptors inherited already open; names spelled with non-ASCII look-alikes " \
    "that the file system folds to a protected name (U+212A for K, U+017F for s)"

/* Turn an absolute path into the spelling the macOS kernel reports, which is
 * what Seatbelt matches. Sets *out to a malloc'd string. Returns SANDBOX_OK,
 * or an error code with err filled. */
typedef int (*sbx_canon_fn)(const char *path, char **out, sandbox_error *err);

/* The firmlink map applied as text: /tmp, /var and /etc (and everything below
 * them) become /private/tmp, /private/var, /private/etc; anything else is
 * returned unchanged. Used for --target macos on a non-Mac host. */
int sbx_macos_canon_textual(const char *path, char **out, sandbox_error *err);

/* The canonicalizer this host would use: realpath(3) on macOS (falling back
 * to the textual map for a root that does not exist yet), the textual map on
 * every other host. */
int sbx_macos_canon_host(const char *path, char **out, sandbox_error *err);

struct sbx_seatbelt_root {
    char *path;      /* as resolved, the literal spelling */
    char *canonical; /* the kernel's spelling; may equal path */
    int kind;        /* enum sbx_root_kind */
};

/* What a -D parameter stands for in the profile. */
enum sbx_sbpl_param_role {
    SBX_PARAM_WRITABLE,        /* WRITABLE_ROOT_N: (allow file-write* (subpath ...)) */
    SBX_PARAM_PROTECTED,       /* PROTECTED_N: a denied home or system path */
    SBX_PARAM_PROTECTED_PARENT,/* PROTECTED_PARENT_N: a parent that may not be renamed */
    SBX_PARAM_HOME,            /* HOME_N: the home directory, for ~/ wildcard patterns */
    SBX_PARAM_TTY,             /* TTY_N: the terminal inherited on fds 0-2 (macOS host only) */
    SBX_PARAM_READABLE         /* READABLE_ROOT_N: a read root of a class (toolchain, project) */
};

struct sbx_sbpl_param {
    char *key;   /* [A-Z0-9_]+, never contains '=' */
    char *value; /* arbitrary bytes except NUL */
    int role;    /* enum sbx_sbpl_param_role */
};

/* One exact protected path (sbx_resolved.protect_home), as planned. */
struct sbx_seatbelt_protected {
    char *path;      /* the literal spelling */
    char *canonical; /* the kernel's spelling; may equal path */
    int kind;        /* enum sandbox_protect_kind */
};

typedef struct sbx_seatbelt_plan {
    struct sbx_seatbelt_root *roots; /* one per sbx_resolved root, same order */
    size_t n_roots;
    struct sbx_sbpl_param *params;   /* literal and canonical spellings, deduplicated per role */
    size_t n_params;
    struct sbx_seatbelt_protected *protected_paths; /* one per sbx_resolved protect_home entry */
    size_t n_protected;
    char *profile;                   /* the SBPL text given to sandbox-exec -p */
    char **argv;                     /* sandbox-exec -p PROFILE [-D K=V]... -- CMD..., NULL-terminated */
    size_t argc;
} sbx_seatbelt_plan;

/* Build the plan for `r` and the command `argv` (argv may be empty: the
 * rewritten argv then ends with "--"). Returns SANDBOX_OK, or an error with
 * err filled and *plan left empty: SANDBOX_E_UNSUPPORTED for a mode the macOS
 * backend does not implement yet (internet-only), SANDBOX_E_INVALID for a
 * protected pattern sbx_sbpl_name_regex() cannot render, SANDBOX_E_NOMEM, or
 * the canonicalizer's error. */
int sbx_seatbelt_plan_build(const sbx_resolved *r, const char *const argv[], sbx_canon_fn canon,
                            sbx_seatbelt_plan *plan, sandbox_error *err);
void sbx_seatbelt_plan_free(sbx_seatbelt_plan *plan);

/* Detach the argv (caller frees each string and the array with free()). */
char **sbx_seatbelt_take_argv(sbx_seatbelt_plan *plan);

/* The Mach services the profile for `r` allows, in profile order: stores
 * up to `cap` names (static strings) in out and returns how many there are. */
size_t sbx_seatbelt_mach_services(const sbx_resolved *r, const char **out, size_t cap);

/* Append the regex literal #"..." that matches, case-insensitively (ASCII),
 * every path with the components of `pattern` ('/' or '\\' separated; '*'
 * and '?' within one component) as consecutive whole components, and
 * everything beneath them: "/C1/C2(/|$)", unanchored at the start. Letters
 * become [xX], '*' [^/]*, '?' [^/], digits stay, other punctuation is put in
 * a bracket [c]. A `pattern` starting with "~/" is rendered without that
 * prefix. The regex is built from an allowlist, never by quoting: a byte that
 * is not an ASCII letter, digit, '*', '?' or one of  !#$%&'()+,-.:;<=>@_`{|}~
 * (so '"', '\\' inside a component, '[', ']', '^', control bytes and non-ASCII)
 * makes it return SANDBOX_E_INVALID and append nothing. */
int sbx_sbpl_name_regex(sbx_buf *b, const char *pattern);
/* The copy suffixes every name regex accepts before its end, as the matcher
 * strips them (src/protect.c, backup_suffix): ~ .bak .orig .old .save .swp .swo .backup .~N~. */
#define SBX_SBPL_COPY_SUFFIX                                                                      \
    "(~|[.]([bB][aA][kK]|[oO][rR][iI][gG]|[oO][lL][dD]|[sS][aA][vV][eE]([.][0-9][0-9]*)?|"       \
    "[sS][wW][pP]|[sS][wW][oO]|[bB][aA][cC][kK][uU][pP]|~[0-9][0-9]*~))*"

/* Append s as an SBPL string literal, quotes included: '"' and '\' are
 * backslash-escaped; bytes >= 0x80 pass through (they can never form a quote
 * or a backslash). Control bytes (0x01-0x1f, 0x7f) have no escape we trust the
 * SBPL reader to decode identically, so they are refused: returns
 * SANDBOX_E_INVALID and appends nothing. */
int sbx_sbpl_string(sbx_buf *b, const char *s);

#endif
