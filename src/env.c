/* Secrets in the environment (issue 23): `--scrub-env` removes the
 * variables that hold credentials before the command starts, `--keep-env`
 * names exceptions, `--drop-env` names more. Off by default: the host owns
 * the environment. With a scratch directory set, TMPDIR points at it.
 *
 * The rule is on names only, never on values, and explain shows names only.
 * Why suffixes and not substrings: TOKENIZERS_PARALLELISM, PASSWORD_STORE_DIR
 * and SSH_AUTH_SOCK are no credentials (docs/host-guide.md lists each rule
 * with its reason). */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#  define environ _environ
#else
extern char **environ;
#endif

/* A name ending in one of these holds a credential: _TOKEN (GITHUB_TOKEN,
 * NPM_TOKEN, CI_JOB_TOKEN, AWS_SESSION_TOKEN), _SECRET (AZURE_CLIENT_SECRET),
 * the password spellings, the API and private key spellings, _AUTH (npm's
 * `_auth`, REDISCLI_AUTH), _AUTHTOKEN (npm's `//registry/:_authToken`), _PAT
 * (GITHUB_PAT, a personal access token), _JWT (CI_JOB_JWT), _AUTH_CONFIG
 * (DOCKER_AUTH_CONFIG), _DSN (SENTRY_DSN holds its key), _WEBHOOK_URL (the
 * URL is the credential). Deliberately not a bare _KEY: key
 * ids and names (GPG_KEY, AWS_KMS_KEY) end in it too. */
static const char *const suffixes[] = {
    "_TOKEN",      "_SECRET",      "_PASSWORD",    "_PASSWD",      "_PASSPHRASE",
    "_API_KEY",    "_APIKEY",      "_SECRET_KEY",  "_PRIVATE_KEY", "_ACCESS_KEY",
    "_SIGNING_KEY", "_AUTH",       "_AUTHTOKEN",   "_PAT",         "_JWT",
    "_AUTH_CONFIG", "_DSN",        "_WEBHOOK_URL"};

/* Whole names: the bare words, and the well-known credentials whose names
 * have no such suffix (AWS's key id goes with its secret; libpq's, the
 * MySQL client's and sshpass's password variables). */
static const char *const names[] = {"TOKEN",          "SECRET",    "PASSWORD",  "API_KEY",
                                    "APIKEY",         "AWS_ACCESS_KEY_ID", "PGPASSWORD",
                                    "MYSQL_PWD",      "SSHPASS",   "PRIVATE_KEY"};

static int upper(int c)
{
    return c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c;
}

/* name[0..len) equals s, ASCII case-insensitively. */
static int same(const char *name, size_t len, const char *s)
{
    size_t i;
    for (i = 0; i < len && s[i]; i++)
        if (upper((unsigned char)name[i]) != upper((unsigned char)s[i]))
            return 0;
    return i == len && s[i] == '\0';
}

static int exact(const char *name, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(name, s, len) == 0;
}

static int listed(char *const *list, size_t n, const char *name, size_t len)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (exact(name, len, list[i]))
            return 1;
    return 0;
}

static int credential_name(const char *name, size_t len)
{
    size_t i, k;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (same(name, len, names[i]))
            return 1;
    for (i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        k = strlen(suffixes[i]);
        if (len > k && same(name + len - k, k, suffixes[i]))
            return 1;
    }
    return 0;
}

int sbx_env_removed(const sandbox_policy *p, const char *name, size_t len)
{
    if (!p || !name)
        return 0;
    /* "NAME=value": the name only. */
    len = strcspn(name, "=") < len ? strcspn(name, "=") : len;
    if (len == 0 || listed(p->keep_env, p->n_keep_env, name, len))
        return 0;
    if (listed(p->drop_env, p->n_drop_env, name, len))
        return 1;
    return p->scrub_env && credential_name(name, len);
}

char **sbx_environ(void)
{
    return environ;
}

int sbx_env_changes(const sandbox_policy *p, const char *tmpdir)
{
    return p->scrub_env || p->n_drop_env > 0 || tmpdir != NULL;
}

char **sbx_env_filter(const sandbox_policy *p, const char *const *envp, const char *tmpdir,
                      char **owned)
{
    size_t n = 0, k = 0, i;
    char **out;
    *owned = NULL;
    for (i = 0; envp && envp[i]; i++)
        n++;
    out = calloc(n + 2, sizeof *out);
    if (!out)
        return NULL;
    for (i = 0; i < n; i++) {
        const char *e = envp[i];
        if (sbx_env_removed(p, e, strlen(e)) || (tmpdir && strncmp(e, "TMPDIR=", 7) == 0))
            continue;
        out[k++] = (char *)e; /* the caller's string: spawn copies nothing */
    }
    if (tmpdir) {
        size_t tl = strlen(tmpdir);
        *owned = malloc(7 + tl + 1);
        if (!*owned) {
            free(out);
            return NULL;
        }
        memcpy(*owned, "TMPDIR=", 7);
        memcpy(*owned + 7, tmpdir, tl + 1);
        out[k++] = *owned;
    }
    out[k] = NULL;
    return out;
}

int sbx_env_apply(const sandbox_policy *p, const char *tmpdir)
{
#ifdef _WIN32
    (void)p;
    (void)tmpdir;
    return 0; /* Windows starts its commands with sandbox_spawn, which filters envp */
#else
    size_t i;
    int e = 0;
    /* unsetenv rearranges environ: start over after each removal. */
    for (i = 0; environ && environ[i];) {
        const char *v = environ[i];
        size_t n = strcspn(v, "=");
        char name[256];
        if (!sbx_env_removed(p, v, strlen(v))) {
            i++;
            continue;
        }
        if (n >= sizeof name) {
            e = ENAMETOOLONG; /* cannot name it to unsetenv: refuse rather than leave it */
            break;
        }
        memcpy(name, v, n);
        name[n] = '\0';
        if (unsetenv(name) != 0) {
            e = errno;
            break;
        }
        i = 0;
    }
    if (e == 0 && tmpdir && setenv("TMPDIR", tmpdir, 1) != 0)
        e = errno;
    return e;
#endif
}

void sbx_env_explain(const sandbox_policy *p, int json, sbx_buf *out)
{
    size_t i, n = 0;
    for (i = 0; environ && environ[i]; i++) {
        const char *v = environ[i];
        size_t len = strcspn(v, "=");
        if (!sbx_env_removed(p, v, strlen(v)))
            continue;
        sbx_buf_add(out, n++ ? (json ? "," : ", ") : "");
        if (json) {
            char *name = malloc(len + 1);
            if (!name) {
                out->oom = 1;
                return;
            }
            memcpy(name, v, len);
            name[len] = '\0';
            sbx_buf_json_str(out, name);
            free(name);
        } else {
            sbx_buf_addn(out, v, len);
        }
    }
}

/* ---- the policy calls ---- */

static int valid_name(const char *name)
{
    return name && name[0] && !strchr(name, '=');
}

static int append(char ***list, size_t *n, const char *name)
{
    char **grown, *copy;
    if (listed(*list, *n, name, strlen(name)))
        return SANDBOX_OK;
    copy = sbx_strdup(name);
    if (!copy)
        return SANDBOX_E_NOMEM;
    grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    *list = grown;
    grown[(*n)++] = copy;
    return SANDBOX_OK;
}

int sandbox_policy_set_scrub_env(sandbox_policy *p, int on)
{
    if (!p || (on != 0 && on != 1))
        return SANDBOX_E_INVALID;
    p->scrub_env = on;
    return SANDBOX_OK;
}

int sandbox_policy_keep_env(sandbox_policy *p, const char *name)
{
    if (!p || !valid_name(name))
        return SANDBOX_E_INVALID;
    return append(&p->keep_env, &p->n_keep_env, name);
}

int sandbox_policy_drop_env(sandbox_policy *p, const char *name)
{
    if (!p || !valid_name(name))
        return SANDBOX_E_INVALID;
    return append(&p->drop_env, &p->n_drop_env, name);
}

int sandbox_policy_env_removes(const sandbox_policy *p, const char *name)
{
    return p && name ? sbx_env_removed(p, name, strlen(name)) : 0;
}
