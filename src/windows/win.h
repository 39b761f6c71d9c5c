/* Windows-only internals of the AppContainer backend. Included by backend.c
 * and by the wine tests, which drive one run step by step. */
#ifndef SANDBOX_WINDOWS_WIN_H
#define SANDBOX_WINDOWS_WIN_H

#ifndef _WIN32_WINNT
#  define _WIN32_WINNT 0x0A00
#endif
#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include "apply.h"
#include "plan.h"

/* Entry points resolved at run time: linking them would make the library
 * fail to load on systems (and wine) that lack them, instead of failing
 * closed with a reason. */
typedef HRESULT(WINAPI *sbx_create_profile_fn)(PCWSTR, PCWSTR, PCWSTR, PSID_AND_ATTRIBUTES, DWORD,
                                               PSID *);
typedef HRESULT(WINAPI *sbx_delete_profile_fn)(PCWSTR);
typedef HRESULT(WINAPI *sbx_derive_sid_fn)(PCWSTR, PSID *);
/* firewallapi.dll; mingw-w64 declares neither. */
typedef DWORD(WINAPI *sbx_ni_get_fn)(DWORD *, PSID_AND_ATTRIBUTES *);
typedef DWORD(WINAPI *sbx_ni_set_fn)(DWORD, PSID_AND_ATTRIBUTES);

struct sbx_win_api {
    HMODULE userenv, firewall;
    sbx_create_profile_fn create_profile;
    sbx_delete_profile_fn delete_profile;
    sbx_derive_sid_fn derive_sid; /* DeriveAppContainerSidFromAppContainerName */
    sbx_ni_get_fn ni_get;
    sbx_ni_set_fn ni_set;
};

#ifdef SBX_TEST_HOOKS
struct sbx_win_run;
/* Compiled only into the test build of the library. */
struct sbx_win_hooks {
    const char *fail_step; /* this step fails as if Windows refused it */
    int fail_skip;         /* ...after this many of its occurrences succeeded */
    DWORD fail_error;      /* ...with this Windows error (0: ERROR_ACCESS_DENIED) */
    /* Called when the process step begins, with every grant and deny in
     * place: lets a test look at the ACLs the command would start with. */
    void (*before_process)(struct sbx_win_run *run, void *arg);
    void *arg;
    int fake_container;    /* skip the profile (wine has none) and use a fixed SID */
    char trace[1024];      /* the steps done and undone, space-separated */
};
#endif

/* One confined run: everything sandbox_wait must undo. */
struct sbx_win_run {
    sbx_win_plan plan;
    struct sbx_win_api api;
    wchar_t profile[64];
    int profile_created;
    PSID container_sid;
    int container_sid_local; /* 1: LocalFree, 0: FreeSid */
    PSID cap_sids[SBX_WIN_MAX_CAPS];
    SID_AND_ATTRIBUTES caps[SBX_WIN_MAX_CAPS];
    struct sbx_win_applied applied; /* the grants and denies in force */
    HANDLE acl_lock;       /* the named mutex around every DACL/loopback edit */
    HANDLE journal;        /* this run's journal, held open while the run lasts */
    int undo_failed;       /* something could not be undone: the journal is kept */
    int undoing;           /* the undo: a longer wait for the ACL lock */
    wchar_t *journal_path;
    int loopback;          /* enum sbx_win_loopback: what really happened */
    wchar_t *app_name;     /* the program PATH/PATHEXT found */
    char *program;         /* the same in UTF-8, for error words */
    HANDLE job;            /* every process of the run: KILL_ON_JOB_CLOSE */
    HANDLE process;
    DWORD pid;
    unsigned long skipped; /* children a propagation could not change */
    char warning[256];     /* best-effort parts that did not happen */
#ifdef SBX_TEST_HOOKS
    struct sbx_win_hooks hooks;
#endif
};

enum sbx_win_loopback {
    SBX_WIN_LOOPBACK_NOT_WANTED, /* no container */
    SBX_WIN_LOOPBACK_ADDED,      /* on the exemption list for this run */
    SBX_WIN_LOOPBACK_REFUSED,    /* the list could not be changed: loopback blocked */
    SBX_WIN_LOOPBACK_NO_API      /* no firewallapi.dll entry points: loopback blocked */
};

/* Plan, confine and start argv. On failure every step already taken is
 * undone and no process exists. `run` must be zeroed (hooks set) first. */
int sbx_win_run_start(struct sbx_win_run *run, const sandbox_policy *policy,
                      const char *const argv[], const char *const envp[],
                      const sandbox_spawn_options *options, sandbox_error *err);
/* The same for a policy already resolved for Windows (a sandbox_plan's). */
int sbx_win_run_start_resolved(struct sbx_win_run *run, const sbx_resolved *r,
                               const char *const argv[], const char *const envp[],
                               const sandbox_spawn_options *options, sandbox_error *err);
/* Remove the deny ACEs, revoke grants, drop the loopback exemption, delete
 * the profile, free. */
void sbx_win_run_undo(struct sbx_win_run *run);
/* The explicit ACEs for `sid` on `path` whose type is ACCESS_DENIED_ACE_TYPE
 * (deny) or ACCESS_ALLOWED_ACE_TYPE (allow), or -1 when the DACL cannot be
 * read. For the tests: nothing of a run may be left after it. */
int sbx_win_count_aces(const wchar_t *path, PSID sid, int deny);
/* 1 under wine (ntdll exports wine_get_version): nothing is enforced there. */
int sbx_win_is_wine(void);

#endif
