/* The policy object and its resolution into writable roots. No system calls
 * other than reading the working directory and the environment. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#  include <unistd.h>
#else
#  include <direct.h>
#endif

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
    for (i = 0; i < p->n_add_dirs; i++)
        free(p->add_dirs[i]);
    free(p->add_dirs);
    free(p);
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

int sandbox_policy_add_writable_dir(sandbox_policy *p, const char *dir)
{
    char **grown;
    char *copy = NULL;
    int rc;
    if (!p)
        return SANDBOX_E_INVALID;
    rc = set_path(&copy, dir);
    if (rc != SANDBOX_OK)
        return rc;
    grown = realloc(p->add_dirs, (p->n_add_dirs + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    p->add_dirs = grown;
    p->add_dirs[p->n_add_dirs++] = copy;
    return SANDBOX_OK;
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
    return p->network == SANDBOX_NETWORK_ALLOW && p->filesystem == SANDBOX_FS_UNRESTRICTED;
}

/* ---- resolution ---- */

const char *sbx_root_kind_name(int kind)
{
    switch (kind) {
    case SBX_ROOT_PROJECT: return "project";
    case SBX_ROOT_ADDED: return "added";
    case SBX_ROOT_WORKDIR: return "workdir";
    case SBX_ROOT_TEMP: return "temp";
    case SBX_ROOT_SYSTEM_TEMP: return "system-temp";
    case SBX_ROOT_DEV: return "dev";
    default: return "?";
    }
}

void sbx_resolved_free(sbx_resolved *r)
{
    size_t i;
    if (!r)
        return;
    for (i = 0; i < r->n_roots; i++)
        free(r->roots[i].path);
    free(r->roots);
    free(r->working_dir);
    free(r->project_root);
    free(r->temp_dir);
    memset(r, 0, sizeof *r);
}

/* Drop trailing separators ("/a/b/" -> "/a/b") but keep a lone root. A
 * backslash separates only in Windows-style paths: on unix it is an ordinary
 * character, and "/x/proj\\" is a different directory from "/x/proj". */
static void trim_trailing_sep(char *s)
{
    size_t n = strlen(s);
    int windows = s[0] != '/';
    while (n > 1 && (s[n - 1] == '/' || (windows && s[n - 1] == '\\')) &&
           !(n == 3 && s[1] == ':'))
        s[--n] = '\0';
}

static int add_root(sbx_resolved *r, const char *path, int kind)
{
    struct sbx_root *grown;
    char *copy;
    size_t i;
    copy = sbx_strdup(path);
    if (!copy)
        return SANDBOX_E_NOMEM;
    trim_trailing_sep(copy);
    for (i = 0; i < r->n_roots; i++) {
        if (strcmp(r->roots[i].path, copy) == 0) {
            free(copy);
            return SANDBOX_OK;
        }
    }
    grown = realloc(r->roots, (r->n_roots + 1) * sizeof *grown);
    if (!grown) {
        free(copy);
        return SANDBOX_E_NOMEM;
    }
    r->roots = grown;
    r->roots[r->n_roots].path = copy;
    r->roots[r->n_roots].kind = kind;
    r->n_roots++;
    return SANDBOX_OK;
}

static char *current_dir(void)
{
    size_t size = 256;
    for (;;) {
        char *buf = malloc(size), *got;
        if (!buf)
            return NULL;
#ifdef _WIN32
        got = _getcwd(buf, (int)size);
#else
        got = getcwd(buf, size);
#endif
        if (got)
            return buf;
        free(buf);
        if (errno != ERANGE || size > 65536)
            return NULL;
        size *= 2;
    }
}

static int host_target(void)
{
#if defined(__linux__)
    return SANDBOX_TARGET_LINUX;
#elif defined(__APPLE__)
    return SANDBOX_TARGET_MACOS;
#elif defined(_WIN32)
    return SANDBOX_TARGET_WINDOWS;
#else
    return SANDBOX_TARGET_LINUX; /* explain output only; enforcement reports unsupported */
#endif
}


int sbx_resolve(const sandbox_policy *p, int target, sbx_resolved *r, sandbox_error *err)
{
    const char *tmp;
    size_t i;
    int rc = SANDBOX_OK, unix_like;

    memset(r, 0, sizeof *r);
    if (target == SANDBOX_TARGET_HOST)
        target = host_target();
    unix_like = target != SANDBOX_TARGET_WINDOWS;
    r->target = target;
    r->network = p->network;
    r->filesystem = p->filesystem;
    r->deny_action = p->deny_action;
    /* Read-only forbids every socket, so the network dimension follows. */
    if (r->filesystem == SANDBOX_FS_READ_ONLY)
        r->network = SANDBOX_NETWORK_DENY;

    if (p->working_dir) {
        r->working_dir = sbx_strdup(p->working_dir);
    } else {
        r->working_dir = current_dir();
        if (!r->working_dir && errno != ENOMEM) {
            sbx_resolved_free(r);
            return sbx_fail(err, SANDBOX_E_PATH, errno,
                            "cannot determine the working directory: %s; set it explicitly "
                            "(--project/working directory)",
                            strerror(errno));
        }
    }
    r->project_root = sbx_strdup(p->project_root ? p->project_root : r->working_dir ? r->working_dir : "");
    tmp = p->temp_dir;
    if (!tmp) {
        tmp = getenv(unix_like ? "TMPDIR" : "TEMP");
        /* A relative or empty TMPDIR names no directory we could confine to. */
        if (!tmp || !tmp[0] || (unix_like && tmp[0] != '/'))
            tmp = unix_like ? "/tmp" : NULL;
    }
    r->temp_dir = tmp ? sbx_strdup(tmp) : NULL;
    if (!r->working_dir || !r->project_root || (tmp && !r->temp_dir)) {
        sbx_resolved_free(r);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while resolving the policy");
    }
    trim_trailing_sep(r->project_root);

    if (r->filesystem == SANDBOX_FS_CONFINED) {
        rc = add_root(r, r->project_root, SBX_ROOT_PROJECT);
        for (i = 0; rc == SANDBOX_OK && i < p->n_add_dirs; i++)
            rc = add_root(r, p->add_dirs[i], SBX_ROOT_ADDED);
        if (rc == SANDBOX_OK)
            rc = add_root(r, r->working_dir, SBX_ROOT_WORKDIR);
        if (rc == SANDBOX_OK && r->temp_dir)
            rc = add_root(r, r->temp_dir, SBX_ROOT_TEMP);
        if (rc == SANDBOX_OK && unix_like)
            rc = add_root(r, "/tmp", SBX_ROOT_SYSTEM_TEMP);
        if (rc == SANDBOX_OK && unix_like)
            rc = add_root(r, "/dev", SBX_ROOT_DEV);
        if (rc != SANDBOX_OK) {
            sbx_resolved_free(r);
            return sbx_fail(err, rc, ENOMEM, "out of memory while listing writable roots");
        }
    }
    return SANDBOX_OK;
}
