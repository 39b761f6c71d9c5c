/* The order of a run's ACL changes and their undo (apply.h). Portable C: the
 * Win32 calls are behind struct sbx_win_ops. */
#include "apply.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sbx_win_sid_may_reach_container(const char *sid, const char *container_sid)
{
    if (!sid)
        return 1;
    if (container_sid && strlen(sid) == strlen(container_sid) &&
        sbx_strncasecmp_ascii(sid, container_sid, strlen(sid)) == 0)
        return 1;
    /* S-1-15-2-1 ALL APPLICATION PACKAGES, S-1-15-2-2 ALL RESTRICTED
     * APPLICATION PACKAGES, S-1-15-2-* package SIDs, S-1-15-3-* capability
     * SIDs (the run's network capabilities, and any named capability): any
     * of them can be what the container's token matches. */
    return sbx_strncasecmp_ascii(sid, "S-1-15-", 7) == 0;
}

void sbx_win_acl_lock_name(char *out, size_t size, const char *user_sid)
{
    snprintf(out, size, "Global\\libsandbox-acl-%s", user_sid ? user_sid : "unknown");
}

static int not_found(unsigned e)
{
    return e == SBX_WIN_ERR_FILE_NOT_FOUND || e == SBX_WIN_ERR_PATH_NOT_FOUND;
}

static int lock_failed(unsigned e, sandbox_error *err)
{
    return sbx_fail(err, SANDBOX_E_SYSTEM, (int)e,
                    e == SBX_WIN_ERR_TIMEOUT
                        ? "another libsandbox run held the ACL lock (the mutex "
                          "libsandbox-acl-<your SID>) for too long; retry when it has ended; the command "
                          "was not run"
                        : "cannot take the ACL lock (the mutex libsandbox-acl-<your SID>; Windows error "
                          "%u); another account may hold that name; the command was not run",
                    e);
}

/* One locked edit: journal first, so a crash after the change is swept. */
static unsigned locked_grant(const struct sbx_win_ops *ops, const char *path, int grant,
                             unsigned *lock_err)
{
    unsigned e = ops->lock(ops->ctx);
    if (e) {
        *lock_err = e;
        return e;
    }
    if (grant)
        e = ops->journal(ops->ctx, "grant", path);
    if (!e)
        e = grant ? ops->grant(ops->ctx, path) : ops->revoke(ops->ctx, path);
    ops->unlock(ops->ctx);
    return e;
}

static unsigned locked_deny(const struct sbx_win_ops *ops, const struct sbx_win_deny *d, int set,
                            unsigned *lock_err)
{
    unsigned e = ops->lock(ops->ctx);
    if (e) {
        *lock_err = e;
        return e;
    }
    if (set)
        e = ops->journal(ops->ctx, "deny", d->path);
    if (!e)
        e = set ? ops->deny(ops->ctx, d) : ops->undeny(ops->ctx, d->path);
    ops->unlock(ops->ctx);
    return e;
}

/* 1 when `path` lies strictly beneath `root` (ASCII case folded, either
 * separator). */
static int beneath(const char *path, const char *root)
{
    size_t n = strlen(root);
    while (n > 0 && (root[n - 1] == '\\' || root[n - 1] == '/'))
        n--;
    return n > 0 && strlen(path) > n + 1 && sbx_strncasecmp_ascii(path, root, n) == 0 &&
           (path[n] == '\\' || path[n] == '/');
}

/* Skip a grant already inherited from an earlier root: granting it again
 * would propagate over its whole tree a second time (and revoke it again). */
static int covered_by_earlier(const sbx_win_plan *plan, const struct sbx_win_ops *ops, size_t i)
{
    size_t j;
    for (j = 0; j < i; j++)
        if (beneath(plan->grants[i].path, plan->grants[j].path))
            return ops->covered(ops->ctx, plan->grants[i].path) == 1;
    return 0;
}

int sbx_win_apply_acls(const sbx_win_plan *plan, const struct sbx_win_ops *ops,
                       struct sbx_win_applied *st, sandbox_error *err)
{
    size_t i;
    unsigned e, lock_err = 0;
    memset(st, 0, sizeof st[0]);
    st->granted = calloc(plan->n_grants ? plan->n_grants : 1, 1);
    if (!st->granted)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while granting the roots");
    if (plan->n_denies) {
        st->denied = calloc(plan->n_denies, 1);
        if (!st->denied)
            return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while protecting paths");
    }
    for (i = 0; i < plan->n_grants; i++) {
        const char *path = plan->grants[i].path;
        if (covered_by_earlier(plan, ops, i)) {
            st->n_granted = i + 1; /* granted[i] stays 0: nothing to revoke */
            continue;
        }
        e = locked_grant(ops, path, 1, &lock_err);
        if (e) {
            /* SetNamedSecurityInfo propagates to the tree below the root and
             * can fail part-way: the ACE may be on the root or on some
             * children. Revoking it too leaves none behind. */
            st->grant_partial = lock_err == 0;
            sbx_win_undo_acls(plan, ops, st);
            if (lock_err)
                return lock_failed(lock_err, err);
            return sbx_fail(err, not_found(e) ? SANDBOX_E_PATH : SANDBOX_E_SYSTEM, (int)e,
                            "granting the sandbox write access to the root '%s' failed "
                            "(Windows error %u%s); the command was not run",
                            path, e,
                            not_found(e) ? ": it does not exist"
                            : e == SBX_WIN_ERR_ACCESS_DENIED
                                ? ": you may not change its permissions (WRITE_DAC)"
                                : "");
        }
        st->granted[i] = 1;
        st->n_granted = i + 1;
    }
    for (i = 0; i < plan->n_denies; i++) {
        const struct sbx_win_deny *d = &plan->denies[i];
        st->n_tried = i + 1;
        e = locked_deny(ops, d, 1, &lock_err);
        if (!e) {
            st->denied[i] = 1;
            continue;
        }
        if (!lock_err && not_found(e)) {
            /* Vanished since the walk (a temp file another program removed):
             * nothing is left there to protect. A file recreated under that
             * name is a name created after launch, which is a documented gap. */
            st->n_skipped++;
            continue;
        }
        /* A directory is never skipped: the grant's inheritable ACE may have
         * reached the files inside it even though its own DACL could not be
         * changed, and those would stay open under a deny that was never set. */
        if (!lock_err && e == SBX_WIN_ERR_ACCESS_DENIED && !d->is_dir &&
            ops->exposed(ops->ctx, d->path) == 0) {
            /* The user may not change this DACL, so the grant's inheritable ACE
             * could not be propagated onto it either: the container cannot
             * open it, and a deny would protect nothing. */
            st->n_skipped++;
            continue;
        }
        sbx_win_undo_acls(plan, ops, st);
        if (lock_err)
            return lock_failed(lock_err, err);
        /* Fail closed: a secret we could not deny must not be readable by a
         * command that was told it is protected. */
        return sbx_fail(err, SANDBOX_E_SYSTEM, (int)e,
                        "denying the sandbox access to the protected path '%s' failed (Windows "
                        "error %u%s); the command was not run",
                        d->path, e,
                        e == SBX_WIN_ERR_ACCESS_DENIED
                            ? ": you may not change its permissions, and the sandbox could "
                              "still open it"
                            : "");
    }
    return SANDBOX_OK;
}

unsigned sbx_win_undo_acls(const sbx_win_plan *plan, const struct sbx_win_ops *ops,
                           struct sbx_win_applied *st)
{
    unsigned lock_err = 0, e, first = 0;
    /* Denies before grants: the reverse of the order they were made in. Every
     * edit is tried even after one failed; the first error is returned so the
     * journal that names what is left is kept for the next run's sweep. */
    while (st->n_tried > 0) {
        st->n_tried--;
        if (st->denied && st->denied[st->n_tried]) {
            e = locked_deny(ops, &plan->denies[st->n_tried], 0, &lock_err);
            if (e && !not_found(e) && !first)
                first = e;
        }
    }
    if (st->grant_partial && st->n_granted < plan->n_grants) {
        e = locked_grant(ops, plan->grants[st->n_granted].path, 0, &lock_err);
        if (e && !not_found(e) && !first)
            first = e;
        st->grant_partial = 0;
    }
    while (st->n_granted > 0) {
        st->n_granted--;
        if (st->granted && st->granted[st->n_granted]) {
            e = locked_grant(ops, plan->grants[st->n_granted].path, 0, &lock_err);
            if (e && !not_found(e) && !first)
                first = e;
        }
    }
    free(st->denied);
    st->denied = NULL;
    free(st->granted);
    st->granted = NULL;
    return first;
}
