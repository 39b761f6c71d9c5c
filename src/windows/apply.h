/* The order of a run's ACL changes and their undo, as portable C over a thin
 * set of operations: real DACLs and a named mutex on Windows (backend.c),
 * fakes in the unit tests. The decisions (what a failure means, what is rolled
 * back, what is recorded first) live here so they are tested on every host. */
#ifndef SANDBOX_WINDOWS_APPLY_H
#define SANDBOX_WINDOWS_APPLY_H

#include "plan.h"

/* The Windows error codes the decisions need (winerror.h), as plain numbers. */
#define SBX_WIN_ERR_FILE_NOT_FOUND 2u
#define SBX_WIN_ERR_PATH_NOT_FOUND 3u
#define SBX_WIN_ERR_ACCESS_DENIED 5u
#define SBX_WIN_ERR_INVALID_DATA 13u /* ERROR_INVALID_DATA */
#define SBX_WIN_ERR_TIMEOUT 1460u /* ERROR_TIMEOUT */

/* 1 when an allow ACE for `sid` (text) can let a container running as
 * `container_sid` in: its own SID, ALL (RESTRICTED) APPLICATION PACKAGES, a
 * package or capability SID (S-1-15-*). The exposed() op counts every allow
 * ACE type (plain, callback, object) whose SID this says 1 for. */
int sbx_win_sid_may_reach_container(const char *sid, const char *container_sid);

/* The name of the ACL lock for the account with SID `user_sid` (text):
 * "Global\\libsandbox-acl-S-1-5-21-...". Per user, so another account can
 * neither squat the name nor be blocked by this user's runs. */
void sbx_win_acl_lock_name(char *out, size_t size, const char *user_sid);

struct sbx_win_ops {
    void *ctx;
    /* The cross-process lock around every read-modify-write of a DACL or of
     * the loopback list: 0, or a Windows error (SBX_WIN_ERR_TIMEOUT). */
    unsigned (*lock)(void *ctx);
    void (*unlock)(void *ctx);
    /* Write "what" and "path" to the run's journal, durably, before the change
     * is made: a crash then leaves a record the next run sweeps. 0 or error. */
    unsigned (*journal)(void *ctx, const char *what, const char *path);
    /* One DACL edit each; 0 or a Windows error. */
    unsigned (*grant)(void *ctx, const char *path);
    unsigned (*revoke)(void *ctx, const char *path);
    unsigned (*deny)(void *ctx, const struct sbx_win_deny *d);
    unsigned (*undeny)(void *ctx, const char *path);
    /* 1 when the container could open `path` anyway (an allow ACE for its SID
     * or for ALL APPLICATION PACKAGES), 0 when not, -1 when unknown. */
    int (*exposed)(void *ctx, const char *path);
    /* 1 when `path` already inherits the full grant for the run's SID (from
     * a root granted before it), else 0. */
    int (*covered)(void *ctx, const char *path);
};

/* What is in force, for the undo: grants[0..n_granted) and the denies marked
 * in denied[] (a vanished path is skipped, not denied). */
struct sbx_win_applied {
    size_t n_granted;
    unsigned char *granted; /* one per plan grant: 0 when skipped as covered */
    int grant_partial;      /* the grant at n_granted failed part-way: revoke it too */
    unsigned char *denied;  /* one per plan deny: 1 when its ACE is set */
    size_t n_tried;         /* denies attempted: a prefix of the plan's */
    size_t n_skipped;       /* denies skipped as vanished or unreachable */
};

/* Grant every root (a root beneath one granted before it that already
 * inherits the grant is skipped: one propagation over that tree, not two),
 * then set every deny, each edit under the lock and
 * journaled first. A failing grant may have propagated part-way, so it is
 * revoked with the others. A deny whose path vanished since the walk is
 * skipped (nothing is left there to protect), and so is one the user may not
 * change when the container could not open it anyway; any other failure
 * undoes everything and returns the error with the path named. */
int sbx_win_apply_acls(const sbx_win_plan *plan, const struct sbx_win_ops *ops,
                       struct sbx_win_applied *st, sandbox_error *err);
/* Remove the denies, then revoke the grants (the reverse order), each under
 * the lock; frees st->denied. Safe after a failed or partial apply. Every
 * edit is attempted; returns 0 when all are undone, else the first error (a
 * lock timeout, a DACL that could not be written): the caller must then keep
 * the run's journal, so the next run's sweep finishes the undo. */
unsigned sbx_win_undo_acls(const sbx_win_plan *plan, const struct sbx_win_ops *ops,
                           struct sbx_win_applied *st);

/* ---- the journal: what a run changed, swept at the next start ---- */

/* A journal is text, one record a line: "sbx-journal 1", "profile NAME",
 * "sid S-1-15-2-...", then "grant PATH", "deny PATH", "loopback" in the
 * order made. A record is written before its change, so a journal may name
 * a change that was never made; undoing it is harmless (the SID is the
 * run's own). */
struct sbx_win_journal {
    char *profile;
    char *sid;
    char **paths; /* every path that may hold an ACE for sid */
    size_t n_paths;
    int loopback;
};
/* Parse a journal; SANDBOX_E_INVALID for text that is not one (a torn first
 * line), SANDBOX_E_NOMEM. A torn last line is ignored. */
int sbx_win_journal_parse(const char *text, struct sbx_win_journal *j, sandbox_error *err);
void sbx_win_journal_free(struct sbx_win_journal *j);
/* Append one record line to `out`: 0, or -1 (nothing appended) when `arg`
 * holds a control character, which could end the record early and inject
 * another ("\ndeny C:\\Users\\me" in a file name). The caller then fails
 * the change the record was for. */
int sbx_win_journal_line(sbx_buf *out, const char *what, const char *arg);

/* Undoing a stale journal: every ACE of j->sid on each path, the loopback
 * entry, the profile. Each returns 0 or a Windows error. */
struct sbx_win_sweep_ops {
    void *ctx;
    unsigned (*lock)(void *ctx);
    void (*unlock)(void *ctx);
    unsigned (*purge)(void *ctx, const char *path, const char *sid); /* allow and deny ACEs */
    unsigned (*unloopback)(void *ctx, const char *sid);
    unsigned (*unprofile)(void *ctx, const char *profile);
    /* The SID Windows derives from a profile name
     * (DeriveAppContainerSidFromAppContainerName), as text into out[size]:
     * 0 or a Windows error. */
    unsigned (*derive)(void *ctx, const char *profile, char *out, size_t size);
};
/* 1 for a path a sweep may open as the unconfined user: drive-absolute and
 * local ("C:\\x"), without ".." or "." components, a stream or device ':'
 * past the drive, control characters, or a "\\\\" prefix ("\\\\host\\share"
 * would make the user's account authenticate to that host: NTLM). */
int sbx_win_journal_path_ok(const char *path);
/* 1 for "S-1-15-2-" and seven decimal sub-authorities: the SID of a profile
 * made from a name (never S-1-15-2-1, ALL APPLICATION PACKAGES). */
int sbx_win_journal_sid_ok(const char *sid);
/* 0 when everything in the journal is undone (a path that no longer exists
 * counts as undone), so the journal may be deleted; else the first error,
 * and the journal is kept for the next sweep. SBX_WIN_ERR_INVALID_DATA, with
 * nothing done, for a journal that is not exactly what a run writes: a
 * profile missing or not named libsandbox.*, a file name that is not
 * "<profile>.journal" (`file_name`, the last component), a SID that is not
 * the one ops->derive gives for that profile, or a path that fails
 * sbx_win_journal_path_ok. A live run holds its own journal open, so a
 * planted journal can then only name a SID whose run is gone. */
unsigned sbx_win_sweep(const struct sbx_win_journal *j, const char *file_name,
                       const struct sbx_win_sweep_ops *ops);

#endif
