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

struct sandbox_policy {
    int network;     /* enum sandbox_network */
    int filesystem;  /* enum sandbox_filesystem */
    int deny_action; /* enum sandbox_deny_action */
    char *project_root; /* NULL: the working directory */
    char *working_dir;  /* NULL: getcwd() at enforce time */
    char *temp_dir;     /* NULL: $TMPDIR, else /tmp */
    char **add_dirs;
    size_t n_add_dirs;
};

/* ---- the resolved policy: defaults filled in, roots listed ---- */

enum sbx_root_kind {
    SBX_ROOT_PROJECT,
    SBX_ROOT_ADDED,
    SBX_ROOT_WORKDIR,
    SBX_ROOT_TEMP,
    SBX_ROOT_SYSTEM_TEMP, /* /tmp on unix */
    SBX_ROOT_DEV          /* /dev on unix */
};

struct sbx_root {
    char *path;
    int kind; /* enum sbx_root_kind */
};

typedef struct sbx_resolved {
    int target;      /* enum sandbox_target, never HOST */
    int network;
    int filesystem;
    int deny_action;
    char *working_dir;
    char *project_root;
    char *temp_dir;
    struct sbx_root *roots; /* the writable roots, deduplicated, in a fixed order */
    size_t n_roots;
} sbx_resolved;

/* Fill defaults and list the writable roots for `target`. Reads the
 * environment (TMPDIR) and the working directory; no other side effect. */
int sbx_resolve(const sandbox_policy *policy, int target, sbx_resolved *out, sandbox_error *err);
void sbx_resolved_free(sbx_resolved *r);
const char *sbx_root_kind_name(int kind);
int sbx_policy_is_noop(const sandbox_policy *policy);

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

/* ---- platform plans that are portable C (explain on any host) ---- */

int sbx_linux_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                      sandbox_error *err);
int sbx_macos_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                      sandbox_error *err);
int sbx_windows_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                        sandbox_error *err);

#endif
