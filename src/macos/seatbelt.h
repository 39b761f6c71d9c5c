/* The Seatbelt plan: the SBPL profile, its -D parameters and the argv that
 * runs a command under /usr/bin/sandbox-exec. Pure computation, compiled on
 * every host so the macOS plan can be explained and unit-tested anywhere.
 *
 * Injection-proof by construction: no path text ever becomes profile code.
 * Every root reaches the profile as (param "WRITABLE_ROOT_N") and its text
 * travels separately as a -D value, so the profile for a given policy shape
 * is the same bytes whatever the paths contain. The only string literals in
 * the profile are our own constants, and they still go through the one
 * escaper, sbx_sbpl_string(). */
#ifndef SANDBOX_MACOS_SEATBELT_H
#define SANDBOX_MACOS_SEATBELT_H

#include "../internal.h"

#define SBX_SANDBOX_EXEC "/usr/bin/sandbox-exec"

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

struct sbx_sbpl_param {
    char *key;   /* [A-Z0-9_]+, never contains '=' */
    char *value; /* arbitrary bytes except NUL */
};

typedef struct sbx_seatbelt_plan {
    struct sbx_seatbelt_root *roots; /* one per sbx_resolved root, same order */
    size_t n_roots;
    struct sbx_sbpl_param *params;   /* literal and canonical spellings, deduplicated */
    size_t n_params;
    char *profile;                   /* the SBPL text given to sandbox-exec -p */
    char **argv;                     /* sandbox-exec -p PROFILE [-D K=V]... -- CMD..., NULL-terminated */
    size_t argc;
} sbx_seatbelt_plan;

/* Build the plan for `r` and the command `argv` (argv may be empty: the
 * rewritten argv then ends with "--"). Returns SANDBOX_OK, or an error with
 * err filled and *plan left empty: SANDBOX_E_UNSUPPORTED for a mode the macOS
 * backend does not implement yet (internet-only), SANDBOX_E_NOMEM, or the
 * canonicalizer's error. */
int sbx_seatbelt_plan_build(const sbx_resolved *r, const char *const argv[], sbx_canon_fn canon,
                            sbx_seatbelt_plan *plan, sandbox_error *err);
void sbx_seatbelt_plan_free(sbx_seatbelt_plan *plan);

/* Detach the argv (caller frees each string and the array with free()). */
char **sbx_seatbelt_take_argv(sbx_seatbelt_plan *plan);

/* Append s as an SBPL string literal, quotes included: '"' and '\' are
 * backslash-escaped; bytes >= 0x80 pass through (they can never form a quote
 * or a backslash). Control bytes (0x01-0x1f, 0x7f) have no escape we trust the
 * SBPL reader to decode identically, so they are refused: returns
 * SANDBOX_E_INVALID and appends nothing. */
int sbx_sbpl_string(sbx_buf *b, const char *s);

#endif
