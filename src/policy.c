/* The policy object: what the caller asked for, validated, no system calls.
 * Its resolution into writable roots is src/resolve.c. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <stdlib.h>
#include <string.h>

sandbox_policy *sandbox_policy_new(void)
{
    return calloc(1, sizeof(sandbox_policy));
}

void sandbox_policy_free(sandbox_policy *p)
{
    size_t i;
    if (!p)
        return;
    free(p->project_root);
    free(p->working_dir);
    free(p->temp_dir);
    free(p->output_dir);
    for (i = 0; i < p->n_add_dirs; i++)
        free(p->add_dirs[i]);
    free(p->add_dirs);
    for (i = 0; i < p->n_allow_links; i++)
        free(p->allow_links[i]);
    free(p->allow_links);
    for (i = 0; i < p->n_read_dirs; i++)
        free(p->read_dirs[i]);
    free(p->read_dirs);
    sbx_protect_free(p->protect, p->n_protect);
    for (i = 0; i < p->n_keep_env; i++)
        free(p->keep_env[i]);
    free(p->keep_env);
    for (i = 0; i < p->n_drop_env; i++)
        free(p->drop_env[i]);
    free(p->drop_env);
    for (i = 0; i < p->n_allow_unix; i++)
        free(p->allow_unix[i]);
    free(p->allow_unix);
    for (i = 0; i < p->n_deny_unix; i++)
        free(p->deny_unix[i]);
    free(p->deny_unix);
    free(p);
}

static int copy_list(char ***to, size_t *n_to, char *const *from, size_t n)
{
    size_t i;
    *to = NULL;
    *n_to = 0;
    if (n == 0)
        return SANDBOX_OK;
    *to = calloc(n, sizeof **to);
    if (!*to)
        return SANDBOX_E_NOMEM;
    for (i = 0; i < n; i++) {
        (*to)[i] = sbx_strdup(from[i]);
        if (!(*to)[i])
            return SANDBOX_E_NOMEM; /* the caller frees what was copied */
        *n_to = i + 1;
    }
    return SANDBOX_OK;
}

static int copy_string(char **to, const char *from)
{
    *to = from ? sbx_strdup(from) : NULL;
    return from && !*to ? SANDBOX_E_NOMEM : SANDBOX_OK;
}

sandbox_policy *sbx_policy_copy(const sandbox_policy *p)
{
    sandbox_policy *c = calloc(1, sizeof *c);
    size_t i;
    int rc;
    if (!c)
        return NULL;
    c->network = p->network;
    c->filesystem = p->filesystem;
    c->deny_action = p->deny_action;
    c->deny_userns = p->deny_userns;
    c->klass = p->klass;
    c->class_chosen = p->class_chosen;
    c->writable_caches = p->writable_caches;
    c->scan_hardlinks = p->scan_hardlinks;
    c->scan_index_off = p->scan_index_off;
    c->scrub_env = p->scrub_env;
    c->allow_abstract_unix = p->allow_abstract_unix;
    memcpy(c->limits, p->limits, sizeof c->limits);
    rc = copy_string(&c->project_root, p->project_root);
    if (rc == SANDBOX_OK)
        rc = copy_string(&c->working_dir, p->working_dir);
    if (rc == SANDBOX_OK)
        rc = copy_string(&c->temp_dir, p->temp_dir);
    if (rc == SANDBOX_OK)
        rc = copy_string(&c->output_dir, p->output_dir);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->add_dirs, &c->n_add_dirs, p->add_dirs, p->n_add_dirs);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->allow_links, &c->n_allow_links, p->allow_links, p->n_allow_links);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->keep_env, &c->n_keep_env, p->keep_env, p->n_keep_env);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->drop_env, &c->n_drop_env, p->drop_env, p->n_drop_env);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->read_dirs, &c->n_read_dirs, p->read_dirs, p->n_read_dirs);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->allow_unix, &c->n_allow_unix, p->allow_unix, p->n_allow_unix);
    if (rc == SANDBOX_OK)
        rc = copy_list(&c->deny_unix, &c->n_deny_unix, p->deny_unix, p->n_deny_unix);
    if (rc == SANDBOX_OK && p->n_protect > 0) {
        c->protect = calloc(p->n_protect, sizeof *c->protect);
        rc = c->protect ? SANDBOX_OK : SANDBOX_E_NOMEM;
        for (i = 0; rc == SANDBOX_OK && i < p->n_protect; i++) {
            c->protect[i] = p->protect[i];
            c->protect[i].pattern = sbx_strdup(p->protect[i].pattern);
            if (!c->protect[i].pattern)
                rc = SANDBOX_E_NOMEM;
            else
                c->n_protect = i + 1;
        }
    }
    if (rc != SANDBOX_OK) {
        sandbox_policy_free(c);
        return NULL;
    }
    return c;
}

int sandbox_policy_set_network(sandbox_policy *p, int network)
{
    if (!p || network < SANDBOX_NETWORK_ALLOW || network > SANDBOX_NETWORK_INTERNET_ONLY)
        return SANDBOX_E_INVALID;
    p->network = network;
    return SANDBOX_OK;
}

int sandbox_policy_set_filesystem(sandbox_policy *p, int fs)
{
    if (!p || fs < SANDBOX_FS_UNRESTRICTED || fs > SANDBOX_FS_READ_ONLY)
        return SANDBOX_E_INVALID;
    p->filesystem = fs;
    return SANDBOX_OK;
}

int sandbox_policy_set_deny_user_namespaces(sandbox_policy *p, int deny)
{
    if (!p || (deny != 0 && deny != 1))
        return SANDBOX_E_INVALID;
    p->deny_userns = deny;
    return SANDBOX_OK;
}

int sandbox_policy_set_deny_action(sandbox_policy *p, int action)
{
    if (!p || (action != SANDBOX_DENY_SIGSYS && action != SANDBOX_DENY_EPERM))
        return SANDBOX_E_INVALID;
    p->deny_action = action;
    return SANDBOX_OK;
}

/* Absolute on either family of systems: "/x", "C:\x", "C:/x", "\\server\x". */
static int is_absolute(const char *path)
{
    if (path[0] == '/')
        return 1;
    if (((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) &&
        path[1] == ':' && (path[2] == '\\' || path[2] == '/'))
        return 1;
    return path[0] == '\\' && path[1] == '\\';
}

static int set_path(char **slot, const char *path)
{
    char *copy;
    if (!path || !path[0] || !is_absolute(path))
        return SANDBOX_E_INVALID;
    copy = sbx_strdup(path);
    if (!copy)
        return SANDBOX_E_NOMEM;
    free(*slot);
    *slot = copy;
    return SANDBOX_OK;
}

int sandbox_policy_set_project_root(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->project_root, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_working_dir(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->working_dir, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_temp_dir(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->temp_dir, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_output_dir(sandbox_policy *p, const char *dir)
{
    return p ? set_path(&p->output_dir, dir) : SANDBOX_E_INVALID;
}

static int append_path(char ***list, size_t *n, const char *path)
{
    char **grown;
    char *copy = NULL;
    int rc;
    rc = set_path(&copy, path);
    if (rc != SANDBOX_OK)
        return rc;
    grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    *list = grown;
    (*list)[(*n)++] = copy;
    return SANDBOX_OK;
}

int sandbox_policy_add_writable_dir(sandbox_policy *p, const char *dir)
{
    return p ? append_path(&p->add_dirs, &p->n_add_dirs, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_add_readable_dir(sandbox_policy *p, const char *dir)
{
    return p ? append_path(&p->read_dirs, &p->n_read_dirs, dir) : SANDBOX_E_INVALID;
}

int sandbox_policy_allow_hardlink(sandbox_policy *p, const char *path)
{
    return p ? append_path(&p->allow_links, &p->n_allow_links, path) : SANDBOX_E_INVALID;
}

int sandbox_policy_allow_unix(sandbox_policy *p, const char *path)
{
    if (!p || !path)
        return SANDBOX_E_INVALID;
    /* Abstract sockets are closed by a Landlock scope, which is all or
     * nothing: "@" drops it, "@name" cannot be honoured and is refused
     * rather than silently widened to every abstract socket. */
    if (path[0] == '@') {
        if (path[1] != '\0')
            return SANDBOX_E_INVALID;
        p->allow_abstract_unix = 1;
        return SANDBOX_OK;
    }
    return append_path(&p->allow_unix, &p->n_allow_unix, path);
}

int sandbox_policy_deny_unix(sandbox_policy *p, const char *path)
{
    return p ? append_path(&p->deny_unix, &p->n_deny_unix, path) : SANDBOX_E_INVALID;
}

int sandbox_policy_set_class(sandbox_policy *p, int klass)
{
    if (!p || klass < SANDBOX_CLASS_PROJECT || klass > SANDBOX_CLASS_TOOL_SERVER)
        return SANDBOX_E_INVALID;
    p->klass = klass;
    p->class_chosen = 1;
    /* A class only means something when writes are confined. Read-only is
     * left as it is (never widened to writes) and sbx_resolve refuses the
     * pair: read-only reads what the account can, a class does not. */
    if (p->filesystem != SANDBOX_FS_READ_ONLY)
        p->filesystem = SANDBOX_FS_CONFINED;
    if (sbx_class_denies_network(klass))
        p->network = SANDBOX_NETWORK_DENY;
    /* Spec: the scan is on in every class; a host may switch it off after.
     * Not on Windows, where the scan is a stub: a class there would always
     * refuse to start; asking for the scan explicitly still fails closed. */
#ifndef _WIN32
    p->scan_hardlinks = 1;
#endif
    return SANDBOX_OK;
}

int sandbox_policy_class(const sandbox_policy *p)
{
    return p ? p->klass : SANDBOX_CLASS_PROJECT;
}

int sandbox_policy_set_writable_caches(sandbox_policy *p, int on)
{
    if (!p || (on != 0 && on != 1))
        return SANDBOX_E_INVALID;
    p->writable_caches = on;
    return SANDBOX_OK;
}

int sandbox_policy_set_scan_hardlinks(sandbox_policy *p, int on)
{
    if (!p || (on != 0 && on != 1))
        return SANDBOX_E_INVALID;
    p->scan_hardlinks = on;
    return SANDBOX_OK;
}

int sandbox_policy_set_scan_index(sandbox_policy *p, int on)
{
    if (!p || (on != 0 && on != 1))
        return SANDBOX_E_INVALID;
    p->scan_index_off = !on;
    return SANDBOX_OK;
}

int sbx_class_denies_network(int klass)
{
    return klass == SANDBOX_CLASS_OFFLINE || klass == SANDBOX_CLASS_MEDIA;
}

int sbx_effective_network(const sandbox_policy *p)
{
    if (sbx_class_denies_network(p->klass) || p->filesystem == SANDBOX_FS_READ_ONLY)
        return SANDBOX_NETWORK_DENY;
    return p->network;
}

const char *sbx_class_name(int klass)
{
    switch (klass) {
    case SANDBOX_CLASS_PROJECT: return "project";
    case SANDBOX_CLASS_RESEARCH: return "research";
    case SANDBOX_CLASS_BUILD: return "build";
    case SANDBOX_CLASS_OFFLINE: return "offline";
    case SANDBOX_CLASS_MEDIA: return "media";
    case SANDBOX_CLASS_TOOL_SERVER: return "tool-server";
    default: return "?";
    }
}

int sandbox_policy_network(const sandbox_policy *p)
{
    return p ? p->network : SANDBOX_NETWORK_ALLOW;
}

int sandbox_policy_filesystem(const sandbox_policy *p)
{
    return p ? p->filesystem : SANDBOX_FS_UNRESTRICTED;
}

const char *sandbox_policy_project_root(const sandbox_policy *p)
{
    return p ? p->project_root : NULL;
}

int sbx_policy_is_noop(const sandbox_policy *p)
{
    /* The effective network: a class that forbids it is never a no-op.
     * Protection alone is a confinement too: it must reach the backend. */
    return sbx_effective_network(p) == SANDBOX_NETWORK_ALLOW &&
           p->filesystem == SANDBOX_FS_UNRESTRICTED && p->n_protect == 0;
}

int sandbox_policy_set_limit(sandbox_policy *p, int which, unsigned long long value)
{
    if (!p || which < SANDBOX_LIMIT_MEMORY || which > SANDBOX_LIMIT_OPEN_FILES)
        return SANDBOX_E_INVALID;
    p->limits[which] = value;
    return SANDBOX_OK;
}

unsigned long long sandbox_policy_limit(const sandbox_policy *p, int which)
{
    if (!p || which < SANDBOX_LIMIT_MEMORY || which > SANDBOX_LIMIT_OPEN_FILES)
        return 0;
    return p->limits[which];
}
