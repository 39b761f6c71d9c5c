/* The portable Seatbelt renderer: sbx_resolved -> SBPL profile, -D parameters
 * and the sandbox-exec argv. No system calls except realpath(3) on macOS.
 *
 * The profile is assembled from sections, in this fixed order, because in
 * SBPL the last matching rule wins:
 *   1. base         (allow default), or the fixed deny-default read-only list
 *   2. network      what the network mode takes away (allow-default only)
 *   3. writes       deny file-write*, then allow it beneath every root
 *   4. protected    denials that must beat the allowances above (spec 003);
 *                   empty for now, later issues add them here
 * A new network mode is one more case in render_network(); protected paths
 * are rules appended in render_protected(), after everything they override. */
#define _XOPEN_SOURCE 700 /* POSIX.1-2008 with XSI: realpath(path, NULL) */
#if defined(__APPLE__)
#  define _DARWIN_C_SOURCE
#endif
#include "seatbelt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the one escaper ---- */

int sbx_sbpl_string(sbx_buf *b, const char *s)
{
    const unsigned char *p;
    for (p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return SANDBOX_E_INVALID;
    sbx_buf_add(b, "\"");
    for (p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sbx_buf_add(b, "\\");
        sbx_buf_addn(b, (const char *)p, 1);
    }
    sbx_buf_add(b, "\"");
    return SANDBOX_OK;
}

/* Our own constants go through the escaper too, so there is exactly one way a
 * string literal enters a profile. They never contain control bytes. */
static void add_literal(sbx_buf *b, const char *s)
{
    if (sbx_sbpl_string(b, s) != SANDBOX_OK)
        b->oom = 1; /* unreachable for our constants; poison the buffer rather than emit */
}

/* ---- canonical paths ---- */

/* The top-level names that are symlinks into /private on macOS. TMPDIR
 * (/var/folders/...) is covered by /var. */
static const char *const firmlinked[] = {"/tmp", "/var", "/etc"};

int sbx_macos_canon_textual(const char *path, char **out, sandbox_error *err)
{
    size_t i;
    *out = NULL;
    for (i = 0; i < sizeof firmlinked / sizeof firmlinked[0]; i++) {
        size_t n = strlen(firmlinked[i]);
        if (strncmp(path, firmlinked[i], n) == 0 && (path[n] == '\0' || path[n] == '/')) {
            size_t len = strlen(path);
            char *s = malloc(sizeof "/private" - 1 + len + 1);
            if (!s)
                return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while canonicalizing");
            memcpy(s, "/private", sizeof "/private" - 1);
            memcpy(s + sizeof "/private" - 1, path, len + 1);
            *out = s;
            return SANDBOX_OK;
        }
    }
    *out = sbx_strdup(path);
    if (!*out)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while canonicalizing");
    return SANDBOX_OK;
}

int sbx_macos_canon_host(const char *path, char **out, sandbox_error *err)
{
#if defined(__APPLE__)
    /* realpath(path, NULL) allocates: no PATH_MAX buffer to overflow. */
    *out = realpath(path, NULL);
    if (*out)
        return SANDBOX_OK;
    if (errno == ENOMEM)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while canonicalizing");
    /* A root that does not exist yet (a build output dir) stays writable once
     * created; the kernel will then report it under its firmlinked name. Any
     * other failure (EACCES, ELOOP) means we cannot know what the kernel will
     * see, so refuse rather than guess. */
    if (errno == ENOENT || errno == ENOTDIR)
        return sbx_macos_canon_textual(path, out, err);
    return sbx_fail(err, SANDBOX_E_PATH, errno, "cannot resolve the writable directory '%s': %s",
                    path, strerror(errno));
#else
    return sbx_macos_canon_textual(path, out, err);
#endif
}

/* ---- plan ---- */

void sbx_seatbelt_plan_free(sbx_seatbelt_plan *plan)
{
    size_t i;
    if (!plan)
        return;
    for (i = 0; i < plan->n_roots; i++) {
        free(plan->roots[i].path);
        free(plan->roots[i].canonical);
    }
    free(plan->roots);
    for (i = 0; i < plan->n_params; i++) {
        free(plan->params[i].key);
        free(plan->params[i].value);
    }
    free(plan->params);
    free(plan->profile);
    if (plan->argv) {
        for (i = 0; plan->argv[i]; i++)
            free(plan->argv[i]);
        free(plan->argv);
    }
    memset(plan, 0, sizeof *plan);
}

char **sbx_seatbelt_take_argv(sbx_seatbelt_plan *plan)
{
    char **argv = plan->argv;
    plan->argv = NULL;
    plan->argc = 0;
    return argv;
}

/* Add `value` as a parameter unless an earlier one has the same text. */
static int add_param(sbx_seatbelt_plan *plan, const char *value)
{
    struct sbx_sbpl_param *grown;
    char key[32];
    size_t i;
    for (i = 0; i < plan->n_params; i++)
        if (strcmp(plan->params[i].value, value) == 0)
            return SANDBOX_OK;
    grown = realloc(plan->params, (plan->n_params + 1) * sizeof *grown);
    if (!grown)
        return SANDBOX_E_NOMEM;
    plan->params = grown;
    snprintf(key, sizeof key, "WRITABLE_ROOT_%zu", plan->n_params);
    grown[plan->n_params].key = sbx_strdup(key);
    grown[plan->n_params].value = sbx_strdup(value);
    plan->n_params++;
    if (!grown[plan->n_params - 1].key || !grown[plan->n_params - 1].value)
        return SANDBOX_E_NOMEM;
    return SANDBOX_OK;
}

/* ---- profile sections ---- */

/* The macOS read-only mode (spec 000): deny by default, because with Mach IPC
 * a command can change state through a daemon without writing a file itself.
 * Exactly these allowances, nothing else. */
static void render_read_only_base(sbx_buf *b)
{
    sbx_buf_add(b, "(deny default)\n");
    sbx_buf_add(b, "; running programs; children inherit this profile\n"
                   "(allow process-exec* process-fork)\n"
                   "(allow file-map-executable)\n");
    sbx_buf_add(b, "; every file read\n(allow file-read*)\n");
    sbx_buf_add(b, "; sysctl reads (no sysctl-write)\n(allow sysctl-read)\n");
    sbx_buf_add(b, "; process information and signals, only within this sandbox\n"
                   "(allow process-info* (target same-sandbox))\n"
                   "(allow signal (target same-sandbox))\n");
    /* file-write-data, not file-write*: the devices can be written, but not
     * created, unlinked, renamed, chmod'ed or given extended attributes. */
    sbx_buf_add(b, "; writes only to the discard devices and the terminal\n(allow file-write-data\n  (literal ");
    add_literal(b, "/dev/null");
    sbx_buf_add(b, ")\n  (literal ");
    add_literal(b, "/dev/zero");
    sbx_buf_add(b, ")\n  (literal ");
    add_literal(b, "/dev/tty");
    sbx_buf_add(b, ")\n  (regex #\"^/dev/ttys[0-9]+$\"))\n");
    /* Two daemons: opendirectoryd answers user and group lookups (getpwuid,
     * getgrgid, group membership) and cfprefsd serves preferences; cfprefsd
     * refuses writes from a sandbox without user-preference-write, which the
     * default denies. Every other Mach service stays refused. */
    sbx_buf_add(b, "; user and group lookups, and preference reads\n(allow mach-lookup\n  (global-name ");
    add_literal(b, "com.apple.system.opendirectoryd.libinfo");
    sbx_buf_add(b, ")\n  (global-name ");
    add_literal(b, "com.apple.system.opendirectoryd.membership");
    sbx_buf_add(b, ")\n  (global-name ");
    add_literal(b, "com.apple.cfprefsd.daemon");
    sbx_buf_add(b, ")\n  (global-name ");
    add_literal(b, "com.apple.cfprefsd.agent");
    sbx_buf_add(b, "))\n(allow user-preference-read)\n");
}

static int render_network(sbx_buf *b, const sbx_resolved *r, sandbox_error *err)
{
    switch (r->network) {
    case SANDBOX_NETWORK_ALLOW:
        return SANDBOX_OK;
    case SANDBOX_NETWORK_DENY:
        /* Every network operation is refused, then local AF_UNIX sockets are
         * given back (later rules win): nscd-like helpers, ssh-agent, a
         * language server keep working, the internet does not. */
        sbx_buf_add(b, "; network: no internet or other remote socket; local AF_UNIX is spared\n"
                       "(deny network*)\n"
                       "(allow network* (local unix-socket) (remote unix-socket))\n");
        /* ...except the DNS daemon's socket: with no network a name lookup
         * has no use, but a query still leaves the machine and can carry
         * data out (DNS exfiltration). */
        sbx_buf_add(b, "; except DNS, which would carry data out through the resolver\n"
                       "(deny network-outbound\n  (remote unix-socket (path-literal ");
        add_literal(b, "/var/run/mDNSResponder");
        sbx_buf_add(b, "))\n  (remote unix-socket (path-literal ");
        add_literal(b, "/private/var/run/mDNSResponder");
        sbx_buf_add(b, ")))\n");
        return SANDBOX_OK;
    default:
        /* Internet-only (no loopback, no own addresses) is a later issue; a
         * mode we cannot render is refused so nothing runs less confined. */
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "the internet-only network mode is not implemented for macOS yet; "
                        "refusing to run the command");
    }
}

static void render_writes(sbx_buf *b, const sbx_seatbelt_plan *plan)
{
    size_t i;
    sbx_buf_add(b, "; filesystem: writes only beneath the writable roots, each by its literal\n"
                   "; and its canonical path (the kernel reports /tmp as /private/tmp)\n"
                   "(deny file-write*)\n");
    if (plan->n_params == 0)
        return;
    sbx_buf_add(b, "(allow file-write*");
    for (i = 0; i < plan->n_params; i++) {
        sbx_buf_add(b, "\n  (subpath (param ");
        add_literal(b, plan->params[i].key);
        sbx_buf_add(b, "))");
    }
    sbx_buf_add(b, ")\n");
}

/* Extension point (spec 003): protected-path denials go here, after every
 * allowance, so that they win. Nothing is protected yet. */
static void render_protected(sbx_buf *b, const sbx_resolved *r)
{
    (void)b;
    (void)r;
}

/* Spec 004: tools that are never allowed, in any class or mode. Each hands
 * work to something outside the sandbox (launchd, other apps through Apple
 * events, LaunchServices, the keychain) or escalates privileges. Rendered
 * after the allowances so it wins over (allow default) and process-exec*. */
static void render_deny_exec(sbx_buf *b, const sbx_resolved *r)
{
    size_t i;
    if (r->n_deny_exec == 0)
        return;
    sbx_buf_add(b, "; tools that act outside the sandbox are never run\n(deny process-exec");
    for (i = 0; i < r->n_deny_exec; i++) {
        sbx_buf_add(b, "\n  (literal ");
        add_literal(b, r->deny_exec[i]);
        sbx_buf_add(b, ")");
    }
    sbx_buf_add(b, ")\n");
}

static int render_profile(const sbx_resolved *r, sbx_seatbelt_plan *plan, sandbox_error *err)
{
    sbx_buf b;
    int rc = SANDBOX_OK;

    sbx_buf_init(&b);
    sbx_buf_add(&b, "(version 1)\n");
    if (r->filesystem == SANDBOX_FS_READ_ONLY) {
        sbx_buf_add(&b, "; libsandbox read-only profile: everything not listed is refused\n");
        render_read_only_base(&b);
    } else {
        sbx_buf_add(&b, "; libsandbox profile: allow by default, then take away what was asked\n"
                        "(allow default)\n");
        rc = render_network(&b, r, err);
        if (rc == SANDBOX_OK && r->filesystem == SANDBOX_FS_CONFINED)
            render_writes(&b, plan);
    }
    if (rc == SANDBOX_OK) {
        render_deny_exec(&b, r);
        render_protected(&b, r);
    }
    if (rc != SANDBOX_OK) {
        sbx_buf_free(&b);
        return rc;
    }
    plan->profile = sbx_buf_take(&b);
    if (!plan->profile)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while rendering the profile");
    return SANDBOX_OK;
}

static int build_argv(sbx_seatbelt_plan *plan, const char *const argv[])
{
    size_t n_cmd = 0, n, i, k = 0;
    char **out;
    while (argv && argv[n_cmd])
        n_cmd++;
    n = 3 + 2 * plan->n_params + 1 + n_cmd;
    out = calloc(n + 1, sizeof *out);
    if (!out)
        return SANDBOX_E_NOMEM;
    plan->argv = out;
    out[k++] = sbx_strdup(SBX_SANDBOX_EXEC);
    out[k++] = sbx_strdup("-p");
    out[k++] = sbx_strdup(plan->profile);
    for (i = 0; i < plan->n_params; i++) {
        size_t kl = strlen(plan->params[i].key), vl = strlen(plan->params[i].value);
        char *kv;
        out[k++] = sbx_strdup("-D");
        kv = malloc(kl + 1 + vl + 1);
        if (kv) {
            memcpy(kv, plan->params[i].key, kl);
            kv[kl] = '=';
            memcpy(kv + kl + 1, plan->params[i].value, vl + 1);
        }
        out[k++] = kv;
    }
    /* "--" ends sandbox-exec's options, so a command named "-x" is a command. */
    out[k++] = sbx_strdup("--");
    for (i = 0; i < n_cmd; i++)
        out[k++] = sbx_strdup(argv[i]);
    plan->argc = k;
    for (i = 0; i < k; i++) {
        if (!out[i]) {
            /* Keep the array NULL-terminated at the first hole for freeing. */
            size_t j;
            for (j = i + 1; j < k; j++)
                free(out[j]);
            out[i] = NULL;
            plan->argc = 0;
            return SANDBOX_E_NOMEM;
        }
    }
    return SANDBOX_OK;
}

int sbx_seatbelt_plan_build(const sbx_resolved *r, const char *const argv[], sbx_canon_fn canon,
                            sbx_seatbelt_plan *plan, sandbox_error *err)
{
    size_t i;
    int rc;

    memset(plan, 0, sizeof *plan);
    if (!canon)
        canon = sbx_macos_canon_host;
    /* Every root, whatever its kind, is writable under both spellings: later
     * issues add root kinds and they must appear here without a change. */
    if (r->n_roots) {
        plan->roots = calloc(r->n_roots, sizeof *plan->roots);
        if (!plan->roots)
            return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
    }
    for (i = 0; i < r->n_roots; i++) {
        struct sbx_seatbelt_root *root = &plan->roots[i];
        plan->n_roots++;
        root->kind = r->roots[i].kind;
        root->path = sbx_strdup(r->roots[i].path);
        if (!root->path) {
            rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
            goto fail;
        }
        rc = canon(root->path, &root->canonical, err);
        if (rc != SANDBOX_OK)
            goto fail;
        if (add_param(plan, root->path) != SANDBOX_OK ||
            add_param(plan, root->canonical) != SANDBOX_OK) {
            rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
            goto fail;
        }
    }
    rc = render_profile(r, plan, err);
    if (rc != SANDBOX_OK)
        goto fail;
    if (build_argv(plan, argv) != SANDBOX_OK) {
        rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while building the argv");
        goto fail;
    }
    return SANDBOX_OK;
fail:
    sbx_seatbelt_plan_free(plan);
    return rc;
}
