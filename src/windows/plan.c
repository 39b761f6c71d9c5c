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
    free(plan->command_line);
    memset(plan, 0, sizeof *plan);
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

    if (r->network == SANDBOX_NETWORK_ALLOW && r->filesystem == SANDBOX_FS_UNRESTRICTED)
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
    /* Loopback stays reachable in both cases: denying the network spares
     * localhost by contract, and an allowed network includes it. */
    plan->loopback_exempt = 1;

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
