/* The run journal: what a run changed, in text, and how a stale one is swept
 * (apply.h). Portable C: the files and the Win32 undo calls are backend.c's. */
#include "apply.h"

#include <stdlib.h>
#include <string.h>

#define JOURNAL_MAGIC "sbx-journal 1"

int sbx_win_journal_line(sbx_buf *out, const char *what, const char *arg)
{
    const unsigned char *c;
    for (c = (const unsigned char *)(arg ? arg : ""); *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return -1;
    sbx_buf_add(out, what);
    if (arg) {
        sbx_buf_add(out, " ");
        sbx_buf_add(out, arg);
    }
    sbx_buf_add(out, "\n");
    return 0;
}

void sbx_win_journal_free(struct sbx_win_journal *j)
{
    size_t i;
    free(j->profile);
    free(j->sid);
    for (i = 0; i < j->n_paths; i++)
        free(j->paths[i]);
    free(j->paths);
    memset(j, 0, sizeof *j);
}

static char *dup_n(const char *s, size_t n)
{
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, s, n);
        c[n] = '\0';
    }
    return c;
}

static int add_path(struct sbx_win_journal *j, const char *p, size_t n)
{
    size_t i;
    char **grown;
    for (i = 0; i < j->n_paths; i++)
        if (strlen(j->paths[i]) == n && memcmp(j->paths[i], p, n) == 0)
            return SANDBOX_OK;
    grown = realloc(j->paths, (j->n_paths + 1) * sizeof *grown);
    if (!grown)
        return SANDBOX_E_NOMEM;
    j->paths = grown;
    if (!(j->paths[j->n_paths] = dup_n(p, n)))
        return SANDBOX_E_NOMEM;
    j->n_paths++;
    return SANDBOX_OK;
}

int sbx_win_journal_parse(const char *text, struct sbx_win_journal *j, sandbox_error *err)
{
    const char *line = text;
    int rc = SANDBOX_OK, first = 1;
    memset(j, 0, sizeof *j);
    while (rc == SANDBOX_OK && *line) {
        const char *nl = strchr(line, '\n');
        size_t n;
        if (!nl)
            break; /* torn last record: its change was never made (written first) */
        n = (size_t)(nl - line);
        if (n && line[n - 1] == '\r')
            n--;
        if (first) {
            if (n != strlen(JOURNAL_MAGIC) || memcmp(line, JOURNAL_MAGIC, n) != 0)
                return sbx_fail(err, SANDBOX_E_INVALID, 0, "not a libsandbox journal");
            first = 0;
        } else if (n > 8 && memcmp(line, "profile ", 8) == 0) {
            free(j->profile);
            if (!(j->profile = dup_n(line + 8, n - 8)))
                rc = SANDBOX_E_NOMEM;
        } else if (n > 4 && memcmp(line, "sid ", 4) == 0) {
            free(j->sid);
            if (!(j->sid = dup_n(line + 4, n - 4)))
                rc = SANDBOX_E_NOMEM;
        } else if (n > 6 && memcmp(line, "grant ", 6) == 0) {
            rc = add_path(j, line + 6, n - 6);
        } else if (n > 5 && memcmp(line, "deny ", 5) == 0) {
            rc = add_path(j, line + 5, n - 5);
        } else if (n == 8 && memcmp(line, "loopback", 8) == 0) {
            j->loopback = 1;
        }
        /* Unknown records are skipped: a newer journal must not stop a sweep. */
        line = nl + 1;
    }
    if (first && rc == SANDBOX_OK)
        return sbx_fail(err, SANDBOX_E_INVALID, 0, "not a libsandbox journal (empty)");
    if (rc != SANDBOX_OK) {
        sbx_win_journal_free(j);
        return sbx_fail(err, rc, 0, "out of memory while reading a journal");
    }
    return SANDBOX_OK;
}

int sbx_win_journal_sid_ok(const char *sid)
{
    const char *p;
    int parts = 0;
    if (!sid || strncmp(sid, "S-1-15-2-", 9) != 0)
        return 0;
    /* A container SID from a profile name: 7 sub-authorities after 2. */
    for (p = sid + 9; *p; parts++) {
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '-')
            p++;
        else if (*p)
            return 0;
    }
    return parts == 7 && sid[strlen(sid) - 1] != '-';
}

int sbx_win_journal_path_ok(const char *path)
{
    const char *c;
    if (!path || !((path[0] >= 'A' && path[0] <= 'Z') || (path[0] >= 'a' && path[0] <= 'z')) ||
        path[1] != ':' || (path[2] != '\\' && path[2] != '/'))
        return 0;
    for (c = path + 2; *c; c++) {
        if ((unsigned char)*c < 0x20 || *c == 0x7f || *c == ':')
            return 0;
        if (*c == '\\' || *c == '/') {
            const char *n = c + 1;
            size_t len = strcspn(n, "\\/");
            if (c[1] == '\\' || c[1] == '/')
                return 0; /* "C:\\\\x" is no local path the plan writes */
            if ((len == 1 && n[0] == '.') || (len == 2 && n[0] == '.' && n[1] == '.'))
                return 0;
        }
    }
    return 1;
}

/* Is `j` what the run named by `file_name` wrote? (apply.h) */
static int journal_trusted(const struct sbx_win_journal *j, const char *file_name,
                           const struct sbx_win_sweep_ops *ops)
{
    char derived[192];
    size_t i, n;
    if (!j->profile || strncmp(j->profile, "libsandbox.", 11) != 0 || !file_name)
        return 0;
    n = strlen(j->profile);
    if (strlen(file_name) != n + 8 || sbx_strncasecmp_ascii(file_name, j->profile, n) != 0 ||
        sbx_strncasecmp_ascii(file_name + n, ".journal", 8) != 0)
        return 0;
    if (j->sid) {
        if (!sbx_win_journal_sid_ok(j->sid) || !ops->derive ||
            ops->derive(ops->ctx, j->profile, derived, sizeof derived) != 0 ||
            strlen(derived) != strlen(j->sid) ||
            sbx_strncasecmp_ascii(derived, j->sid, strlen(j->sid)) != 0)
            return 0;
    } else if (j->n_paths || j->loopback)
        return 0; /* ACEs name a SID: a run records it before the first */
    for (i = 0; i < j->n_paths; i++)
        if (!sbx_win_journal_path_ok(j->paths[i]))
            return 0;
    return 1;
}

unsigned sbx_win_sweep(const struct sbx_win_journal *j, const char *file_name,
                       const struct sbx_win_sweep_ops *ops)
{
    unsigned first = 0, e;
    size_t i;
    /* A journal is data from a file: it may have been planted (a root that
     * covers %LOCALAPPDATA%). Only the SID Windows derives from a libsandbox
     * profile named by the file itself is acted on: never the user's own
     * SID, Everyone or ALL APPLICATION PACKAGES, and never a live run's (its
     * journal is held open, so it is not swept), and only local paths. */
    if (!journal_trusted(j, file_name, ops))
        return SBX_WIN_ERR_INVALID_DATA;
    /* ACEs and the loopback entry name the SID; without one recorded, the run
     * crashed before it made any (the SID is recorded before the first). */
    if (j->sid && (j->n_paths || j->loopback)) {
        e = ops->lock(ops->ctx);
        if (e)
            return e;
        for (i = 0; i < j->n_paths; i++) {
            e = ops->purge(ops->ctx, j->paths[i], j->sid);
            if (e && e != SBX_WIN_ERR_FILE_NOT_FOUND && e != SBX_WIN_ERR_PATH_NOT_FOUND && !first)
                first = e;
        }
        if (j->loopback && (e = ops->unloopback(ops->ctx, j->sid)) != 0 && !first)
            first = e;
        ops->unlock(ops->ctx);
    }
    /* The profile last: its SID must stay resolvable while ACEs name it. */
    if (!first && j->profile && (e = ops->unprofile(ops->ctx, j->profile)) != 0)
        first = e;
    return first;
}
