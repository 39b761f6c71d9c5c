/* Which file a Windows command runs (PATH and PATHEXT), and why a container
 * might not be able to start it. Portable: the file test is a callback. */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#define DEFAULT_PATHEXT ".COM;.EXE;.BAT;.CMD"

static int has_sep(const char *s)
{
    return strchr(s, '\\') || strchr(s, '/') || (s[0] && s[1] == ':');
}

/* The extension of the last component, or NULL. */
static const char *ext_of(const char *s)
{
    const char *dot = strrchr(s, '.');
    if (!dot || strchr(dot, '\\') || strchr(dot, '/'))
        return NULL;
    return dot;
}

/* Try base, then base + each extension; *found on success. 1 found, 0 not,
 * -1 out of memory. */
static int try_name(const char *base, const char *exts, int (*is_file)(void *, const char *),
                    void *ctx, char **found)
{
    size_t n = strlen(base);
    const char *e = exts;
    char *cand;
    if (ext_of(base) && is_file(ctx, base)) {
        *found = sbx_strdup(base);
        return *found ? 1 : -1;
    }
    while (*e) {
        const char *end = strchr(e, ';');
        size_t len = end ? (size_t)(end - e) : strlen(e);
        if (len > 0 && e[0] == '.') {
            cand = malloc(n + len + 1);
            if (!cand)
                return -1;
            memcpy(cand, base, n);
            memcpy(cand + n, e, len);
            cand[n + len] = '\0';
            if (is_file(ctx, cand)) {
                *found = cand;
                return 1;
            }
            free(cand);
        }
        e += len;
        if (*e == ';')
            e++;
    }
    return 0;
}

int sbx_win_find_program(const char *argv0, const char *path_env, const char *pathext,
                         int (*is_file)(void *ctx, const char *path), void *ctx, char **found,
                         sandbox_error *err)
{
    const char *exts = pathext && pathext[0] ? pathext : DEFAULT_PATHEXT;
    const char *p = path_env ? path_env : "";
    int got;
    *found = NULL;
    if (has_sep(argv0)) {
        got = try_name(argv0, exts, is_file, ctx, found);
    } else {
        got = 0;
        while (!got && *p) {
            const char *end = strchr(p, ';');
            size_t len = end ? (size_t)(end - p) : strlen(p);
            const char *d = p;
            char *base;
            p += len;
            if (*p == ';')
                p++;
            /* "C:\Program Files\x" may be quoted in PATH. */
            if (len >= 2 && d[0] == '"' && d[len - 1] == '"') {
                d++;
                len -= 2;
            }
            while (len > 0 && (d[len - 1] == '\\' || d[len - 1] == '/'))
                len--;
            if (len == 0)
                continue; /* an empty entry would mean the current directory */
            /* A relative entry ("bin", ".\\tools", "\\x", "C:x") resolves against
             * the working directory, which the container can write: it could
             * plant the program there. Only "C:\\..." and "\\\\server\\..." count. */
            if (!(len >= 3 && d[1] == ':' && (d[2] == '\\' || d[2] == '/')) &&
                !(len >= 2 && (d[0] == '\\' || d[0] == '/') && (d[1] == '\\' || d[1] == '/')))
                continue;
            base = malloc(len + 1 + strlen(argv0) + 1);
            if (!base) {
                got = -1;
                break;
            }
            memcpy(base, d, len);
            base[len] = '\\';
            strcpy(base + len + 1, argv0);
            got = try_name(base, exts, is_file, ctx, found);
            free(base);
        }
    }
    if (got < 0)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while looking up the program");
    if (got == 0)
        return sbx_fail(err, SANDBOX_E_EXEC, 2,
                        "'%s' was not found%s (tried the extensions %s); the command was not run",
                        argv0, has_sep(argv0) ? "" : " in PATH", exts);
    return SANDBOX_OK;
}

/* 1 when `path` starts with directory `dir` (ASCII case folded). */
static int beneath(const char *path, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    while (n > 0 && (dir[n - 1] == '\\' || dir[n - 1] == '/'))
        n--;
    return n > 0 && strlen(path) > n && sbx_strncasecmp_ascii(path, dir, n) == 0 &&
           (path[n] == '\\' || path[n] == '/');
}

const char *sbx_win_program_problem(const char *program, const char *home,
                                    const sbx_win_plan *plan)
{
    size_t i;
    const char *c;
    /* App Execution Aliases live in ...\AppData\Local\Microsoft\WindowsApps
     * as IO_REPARSE_TAG_APPEXECLINK files, which only a full-trust caller
     * can follow. */
    for (c = program; *c; c++)
        if ((c == program || c[-1] == '\\' || c[-1] == '/') &&
            sbx_strncasecmp_ascii(c, "Microsoft\\WindowsApps\\", 22) == 0)
            return "it is an App Execution Alias (Microsoft\\WindowsApps), which an "
                   "AppContainer cannot open; install the tool for all users (Program Files) or "
                   "run its real executable";
    if (!beneath(program, home))
        return NULL;
    for (i = 0; plan && i < plan->n_grants; i++)
        if (beneath(program, plan->grants[i].path))
            return NULL;
    return "it is installed in the user's profile, which an AppContainer cannot read; install "
           "it for all users (Program Files), put it in a granted directory, or grant read access "
           "to ALL APPLICATION PACKAGES on its folder";
}
