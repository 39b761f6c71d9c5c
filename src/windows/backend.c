/* The Windows backend: an AppContainer per run.
 *
 * Windows cannot confine a process that is already running, so enforcement
 * happens only in sandbox_spawn: create a per-run AppContainer profile, grant
 * its SID write access on the planned roots, then CreateProcessW with
 * SECURITY_CAPABILITIES. sandbox_wait undoes the grants and the profile.
 * Every step fails closed: on any error the steps already taken are undone and
 * no process is started. */
#define _CRT_RAND_S /* rand_s: RtlGenRandom, for the per-run profile name */
#include "win.h"

#include "../backend.h"
#include "../outcome.h"

#include <aclapi.h>
#include <io.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ---- */

int sbx_win_is_wine(void)
{
    HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
    return ntdll && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

/* Fill `err` with the step, Windows' own words for `code`, and a hint. */
static int win_fail(sandbox_error *err, int rc, DWORD code, const char *what)
{
    char text[200] = "";
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                             code, 0, text, sizeof text, NULL);
    while (n > 0 && (text[n - 1] == '\r' || text[n - 1] == '\n' || text[n - 1] == '.'))
        text[--n] = '\0';
    return sbx_fail(err, rc, (int)code, "%s failed (Windows error %lu%s%s); the command was not run",
                    what, (unsigned long)code, n ? ": " : "", text);
}

static wchar_t *utf8_to_wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    wchar_t *w;
    if (n <= 0)
        return NULL;
    w = malloc((size_t)n * sizeof *w);
    if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
        free(w);
        return NULL;
    }
    return w;
}

#ifdef SBX_TEST_HOOKS
static void trace(struct sbx_win_run *run, const char *step)
{
    sbx_warn(run->hooks.trace, sizeof run->hooks.trace, "%s", step);
}
/* 1 when the test asked this step to fail; Windows' "access denied" stands in
 * for whatever the real refusal would be. */
static int injected(struct sbx_win_run *run, const char *step)
{
    if (run->hooks.fail_step && strcmp(run->hooks.fail_step, step) == 0) {
        if (run->hooks.fail_skip > 0) {
            run->hooks.fail_skip--;
            return 0;
        }
        SetLastError(run->hooks.fail_error ? run->hooks.fail_error : ERROR_ACCESS_DENIED);
        return 1;
    }
    return 0;
}
#else
#  define trace(run, step) ((void)(run), (void)(step))
#  define injected(run, step) ((void)(run), (void)(step), 0)
#endif

/* ---- run-time entry points ---- */

static void api_load(struct sbx_win_api *api)
{
    memset(api, 0, sizeof *api);
    /* LOAD_LIBRARY_SEARCH_SYSTEM32: never pick up a planted DLL from the
     * application or working directory. */
    api->userenv = LoadLibraryExW(L"userenv.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (api->userenv) {
        api->create_profile =
            (sbx_create_profile_fn)(void (*)(void))GetProcAddress(api->userenv, "CreateAppContainerProfile");
        api->delete_profile =
            (sbx_delete_profile_fn)(void (*)(void))GetProcAddress(api->userenv, "DeleteAppContainerProfile");
        api->derive_sid = (sbx_derive_sid_fn)(void (*)(void))GetProcAddress(
            api->userenv, "DeriveAppContainerSidFromAppContainerName");
    }
    api->firewall = LoadLibraryExW(L"firewallapi.dll", NULL, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (api->firewall) {
        api->ni_get = (sbx_ni_get_fn)(void (*)(void))GetProcAddress(
            api->firewall, "NetworkIsolationGetAppContainerConfig");
        api->ni_set = (sbx_ni_set_fn)(void (*)(void))GetProcAddress(
            api->firewall, "NetworkIsolationSetAppContainerConfig");
    }
}

static void api_unload(struct sbx_win_api *api)
{
    if (api->userenv)
        FreeLibrary(api->userenv);
    if (api->firewall)
        FreeLibrary(api->firewall);
    memset(api, 0, sizeof *api);
}

static int api_has_appcontainer(const struct sbx_win_api *api)
{
    return api->create_profile && api->delete_profile;
}

/* ---- the steps ---- */

static wchar_t *journal_dir(const sbx_win_plan *plan);
static void journal_open(struct sbx_win_run *run, const wchar_t *dir);
static DWORD journal_write(struct sbx_win_run *run, const char *what, const char *arg);
static void sweep_stale(struct sbx_win_run *run, const wchar_t *dir);

/* Record the SID in the journal: every later record names ACEs for it. */
static void journal_sid(struct sbx_win_run *run)
{
    LPSTR text = NULL;
    if (ConvertSidToStringSidA(run->container_sid, &text)) {
        journal_write(run, "sid", text);
        LocalFree(text);
    }
}

static int step_profile(struct sbx_win_run *run, sandbox_error *err)
{
    unsigned int rnd = 0;
    LARGE_INTEGER now;
    HRESULT hr;
    wchar_t *dir;
    char name[80];

#ifdef SBX_TEST_HOOKS
    if (!run->hooks.fake_container)
#endif
        if (!api_has_appcontainer(&run->api))
            return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                            "this Windows has no AppContainer support (CreateAppContainerProfile "
                            "is missing from userenv.dll; Windows 8 or later is needed); refusing "
                            "to run the command unconfined");
    /* A fresh name per run: the SID is then ours alone, so revoking "every ACE
     * for this SID" can never touch another run's grants, and a profile left
     * by a crash grants nothing to later runs. */
    QueryPerformanceCounter(&now);
    if (rand_s(&rnd) != 0)
        return sbx_fail(err, SANDBOX_E_SYSTEM, 0, "no random number for the AppContainer name");
    swprintf(run->profile, sizeof run->profile / sizeof run->profile[0], L"libsandbox.%lx.%llx.%x",
             (unsigned long)GetCurrentProcessId(), (unsigned long long)now.QuadPart, rnd);
    /* Sweep what crashed runs left, then open our own journal before the
     * first change, so a crash from here on leaves a record. */
    dir = journal_dir(&run->plan);
    if (dir) {
        sweep_stale(run, dir);
        journal_open(run, dir);
        free(dir);
    }
    if (!run->journal)
        sbx_warn(run->warning, sizeof run->warning,
                 "no run journal could be written under %%LOCALAPPDATA%%\\libsandbox (missing, a "
                 "reparse point, its DACL not settable, or under a granted root): stale journals "
                 "were not swept, and a crash of this run would leave its ACEs and profile behind");
#ifdef SBX_TEST_HOOKS
    if (run->hooks.fake_container) {
        /* A well-formed AppContainer SID that no profile owns. */
        if (injected(run, "profile") ||
            !ConvertStringSidToSidW(L"S-1-15-2-1-2-3-4-5-6-7", &run->container_sid))
            return win_fail(err, SANDBOX_E_SYSTEM, GetLastError(), "creating the AppContainer profile");
        run->container_sid_local = 1;
        journal_sid(run);
        trace(run, "profile");
        return SANDBOX_OK;
    }
#endif
    WideCharToMultiByte(CP_UTF8, 0, run->profile, -1, name, sizeof name, NULL, NULL);
    journal_write(run, "profile", name);
    if (injected(run, "profile"))
        return win_fail(err, SANDBOX_E_SYSTEM, GetLastError(), "creating the AppContainer profile");
    hr = run->api.create_profile(run->profile, L"libsandbox run", L"libsandbox per-run sandbox",
                                 NULL, 0, &run->container_sid);
    if (FAILED(hr))
        return win_fail(err, SANDBOX_E_SYSTEM, (DWORD)hr, "CreateAppContainerProfile");
    run->profile_created = 1;
    journal_sid(run);
    trace(run, "profile");
    return SANDBOX_OK;
}

static int step_capabilities(struct sbx_win_run *run, sandbox_error *err)
{
    size_t i;
    for (i = 0; i < run->plan.n_caps; i++) {
        wchar_t *sid = utf8_to_wide(sbx_win_cap_sid(run->plan.caps[i]));
        BOOL ok = sid && !injected(run, "capabilities") &&
                  ConvertStringSidToSidW(sid, &run->cap_sids[i]);
        free(sid);
        if (!ok)
            return win_fail(err, SANDBOX_E_SYSTEM, GetLastError(), "building a capability SID");
        run->caps[i].Sid = run->cap_sids[i];
        run->caps[i].Attributes = SE_GROUP_ENABLED;
    }
    trace(run, "capabilities");
    return SANDBOX_OK;
}

/* Children that kept their DACL during a propagation: counted, never fatal. */
static VOID child_failed(LPWSTR name, DWORD status, PPROG_INVOKE_SETTING invoke, PVOID arg,
                         WINBOOL set)
{
    (void)name;
    (void)set;
    if (status != ERROR_SUCCESS && arg)
        (*(unsigned long *)arg)++;
    *invoke = ProgressInvokeOnError; /* go on with the rest of the tree */
}

/* Write `dacl` on `path` and propagate its inheritable ACEs to the tree
 * below. TreeSetNamedSecurityInfoW (TREE_SEC_INFO_SET keeps the children's
 * explicit ACEs) rather than SetNamedSecurityInfoW: it reports a child whose
 * DACL the user may not change and goes on, where the plain call's behaviour
 * is not documented. Such a child gets no grant either, so the container
 * cannot open it. An error is returned only for the root itself. */
typedef DWORD(WINAPI *sbx_tree_set_fn)(LPWSTR, SE_OBJECT_TYPE, SECURITY_INFORMATION, PSID, PSID,
                                       PACL, PACL, DWORD, FN_PROGRESS, PROG_INVOKE_SETTING, PVOID);

static DWORD set_dacl(const wchar_t *path, PACL dacl, unsigned long *skipped)
{
    HMODULE advapi = GetModuleHandleW(L"advapi32.dll");
    /* Looked up, not linked: wine exports it as a stub that aborts the
     * process; there (and only there) the plain call is used. */
    sbx_tree_set_fn tree =
        advapi && !sbx_win_is_wine()
            ? (sbx_tree_set_fn)(void (*)(void))GetProcAddress(advapi, "TreeSetNamedSecurityInfoW")
            : NULL;
    /* The casts: the APIs take a non-const path but do not write it. */
    if (tree)
        return tree((LPWSTR)path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, dacl,
                    NULL, TREE_SEC_INFO_SET, child_failed, ProgressInvokeOnError, skipped);
    return SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                                 dacl, NULL);
}

/* Merge one entry for `sid` into the DACL of `path`: read, SetEntriesInAclW,
 * write back. Grants, revocations and denies differ only in the entry. */
static DWORD apply_ace(const wchar_t *path, PSID sid, DWORD mask, ACCESS_MODE mode,
                       DWORD inheritance, unsigned long *skipped)
{
    PACL old_dacl = NULL, new_dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    EXPLICIT_ACCESS_W ea;
    DWORD rc;

    rc = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
                               &old_dacl, NULL, &sd);
    if (rc != ERROR_SUCCESS)
        return rc;
    memset(&ea, 0, sizeof ea);
    ea.grfAccessPermissions = mask;
    ea.grfAccessMode = mode;
    ea.grfInheritance = inheritance;
    ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
    ea.Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
    ea.Trustee.ptstrName = (LPWSTR)sid;
    rc = SetEntriesInAclW(1, &ea, old_dacl, &new_dacl);
    if (rc == ERROR_SUCCESS) {
        rc = set_dacl(path, new_dacl, skipped);
        LocalFree(new_dacl);
    }
    LocalFree(sd);
    return rc;
}

/* A UTF-8 path as the wide, "\\?\"-prefixed form the ACL calls take, so a
 * root or a protected file deeper than MAX_PATH is not refused. */
static wchar_t *path_to_wide(const char *path)
{
    char *lp = sbx_win_long_path(path);
    wchar_t *w = lp ? utf8_to_wide(lp) : NULL;
    free(lp);
    return w;
}

/* Add (grant) or remove (revoke) the container's ACE on one root. Revoking
 * removes every explicit allow ACE for this SID rather than restoring a saved
 * DACL: a snapshot would also undo changes other runs or the user made. */
static DWORD set_grant(PSID sid, const wchar_t *path, int grant, unsigned long *skipped)
{
    return apply_ace(path, sid, SBX_WIN_GRANT_MASK, grant ? GRANT_ACCESS : REVOKE_ACCESS,
                     grant ? SUB_CONTAINERS_AND_OBJECTS_INHERIT : NO_INHERITANCE, skipped);
}

/* ---- protected paths: deny ACEs ---- */

static DWORD set_deny(PSID sid, const wchar_t *path, const struct sbx_win_deny *d,
                      unsigned long *skipped)
{
    /* Inherited below a protected directory, so files created in it later
     * (a new hook under .git\hooks) are denied too; a parent's DELETE is for
     * the directory itself only. */
    DWORD inheritance = d->is_dir && d->kind != SBX_WIN_DENY_PARENT
                            ? SUB_CONTAINERS_AND_OBJECTS_INHERIT
                            : NO_INHERITANCE;
    return apply_ace(path, sid, sbx_win_deny_mask(d->kind), DENY_ACCESS, inheritance, skipped);
}

/* Remove every explicit deny ACE for `sid`, and nothing else. Filtered by
 * hand rather than with REVOKE_ACCESS: that mode is documented for allow
 * ACEs, and a grant on the same directory (a root that is also a parent of a
 * match) must outlive its deny until the grants are revoked. */
static DWORD remove_denies(PSID sid, const wchar_t *path, unsigned long *skipped)
{
    PACL dacl = NULL, next = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    ACL_SIZE_INFORMATION info;
    DWORD rc, i;
    int found = 0;

    rc = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl,
                               NULL, &sd);
    if (rc != ERROR_SUCCESS)
        return rc;
    if (!dacl || !GetAclInformation(dacl, &info, sizeof info, AclSizeInformation)) {
        LocalFree(sd);
        return dacl ? GetLastError() : ERROR_SUCCESS;
    }
    next = LocalAlloc(LMEM_FIXED, info.AclBytesInUse);
    if (!next || !InitializeAcl(next, info.AclBytesInUse, ACL_REVISION)) {
        rc = next ? GetLastError() : ERROR_NOT_ENOUGH_MEMORY;
        goto done;
    }
    for (i = 0; i < info.AceCount; i++) {
        ACE_HEADER *h;
        if (!GetAce(dacl, i, (void **)&h)) {
            rc = GetLastError();
            goto done;
        }
        if (h->AceType == ACCESS_DENIED_ACE_TYPE && !(h->AceFlags & INHERITED_ACE) &&
            EqualSid((PSID)&((ACCESS_DENIED_ACE *)h)->SidStart, sid)) {
            found = 1;
            continue;
        }
        if (!AddAce(next, ACL_REVISION, MAXDWORD, h, h->AceSize)) {
            rc = GetLastError();
            goto done;
        }
    }
    if (found)
        rc = set_dacl(path, next, skipped);
done:
    if (next)
        LocalFree(next);
    LocalFree(sd);
    return rc;
}

int sbx_win_count_aces(const wchar_t *path, PSID sid, int deny)
{
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    ACL_SIZE_INFORMATION info;
    DWORD i;
    int n = 0;
    if (GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl,
                              NULL, &sd) != ERROR_SUCCESS)
        return -1;
    if (dacl && GetAclInformation(dacl, &info, sizeof info, AclSizeInformation)) {
        for (i = 0; i < info.AceCount; i++) {
            ACE_HEADER *h;
            if (!GetAce(dacl, i, (void **)&h) || (h->AceFlags & INHERITED_ACE))
                continue;
            /* ACCESS_ALLOWED_ACE and ACCESS_DENIED_ACE share one layout. */
            if (h->AceType == (deny ? ACCESS_DENIED_ACE_TYPE : ACCESS_ALLOWED_ACE_TYPE) &&
                EqualSid((PSID)&((ACCESS_DENIED_ACE *)h)->SidStart, sid))
                n++;
        }
    }
    LocalFree(sd);
    return n;
}

/* The SID of an allow ACE of any type (plain, callback, object, callback
 * object), or NULL for a deny or audit ACE. */
static PSID allow_ace_sid(ACE_HEADER *h)
{
    switch (h->AceType) {
    case ACCESS_ALLOWED_ACE_TYPE:
        return (PSID) & ((ACCESS_ALLOWED_ACE *)h)->SidStart;
    case ACCESS_ALLOWED_CALLBACK_ACE_TYPE:
        return (PSID) & ((ACCESS_ALLOWED_CALLBACK_ACE *)h)->SidStart;
    case ACCESS_ALLOWED_OBJECT_ACE_TYPE:
    case ACCESS_ALLOWED_CALLBACK_OBJECT_ACE_TYPE: {
        ACCESS_ALLOWED_OBJECT_ACE *o = (ACCESS_ALLOWED_OBJECT_ACE *)h;
        BYTE *p = (BYTE *)&o->ObjectType;
        if (o->Flags & ACE_OBJECT_TYPE_PRESENT)
            p += sizeof(GUID);
        if (o->Flags & ACE_INHERITED_OBJECT_TYPE_PRESENT)
            p += sizeof(GUID);
        return (PSID)p;
    }
    default:
        return NULL;
    }
}

/* 1 when an allow ACE (explicit or inherited, of any allow type) names a SID
 * the container's token may match (sbx_win_sid_may_reach_container: its own,
 * ALL [RESTRICTED] APPLICATION PACKAGES, any package or capability SID): the
 * container could open path. -1 when unknown (the caller then fails closed). */
static int dacl_exposes(PSID sid, const wchar_t *path)
{
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    ACL_SIZE_INFORMATION info;
    LPSTR mine = NULL;
    DWORD i;
    int exposed = 0;
    if (!ConvertSidToStringSidA(sid, &mine))
        return -1;
    if (GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl,
                              NULL, &sd) != ERROR_SUCCESS) {
        LocalFree(mine);
        return -1;
    }
    /* A NULL DACL grants everyone everything. */
    if (!dacl)
        exposed = 1;
    else if (GetAclInformation(dacl, &info, sizeof info, AclSizeInformation)) {
        for (i = 0; i < info.AceCount && exposed == 0; i++) {
            ACE_HEADER *h;
            PSID s;
            LPSTR text = NULL;
            if (!GetAce(dacl, i, (void **)&h)) {
                exposed = -1;
                break;
            }
            if (!(s = allow_ace_sid(h)))
                continue;
            if (!ConvertSidToStringSidA(s, &text)) {
                exposed = -1;
                break;
            }
            exposed = sbx_win_sid_may_reach_container(text, mine);
            LocalFree(text);
        }
    } else
        exposed = -1;
    LocalFree(sd);
    LocalFree(mine);
    return exposed;
}

/* ---- the ACL lock: one named mutex around every read-modify-write ---- */

/* Global, so runs in other sessions of the same user (ssh, a service) are
 * serialized too, and named per user (sbx_win_acl_lock_name: the user's
 * SID), so another account can neither hold this user's runs up nor be
 * held up by them; created with a DACL for the user and SYSTEM only. An
 * AppContainer cannot reach the Global namespace, so the confined command
 * cannot hold it. A name another account created first is refused
 * (ERROR_ACCESS_DENIED): the run fails closed, naming the lock. */
#define ACL_LOCK_WAIT_MS 60000
#define ACL_LOCK_UNDO_WAIT_MS 300000

static DWORD acl_lock_open(HANDLE *lock)
{
    HANDLE token = NULL;
    BYTE buf[256];
    DWORD n = 0, e = ERROR_SUCCESS;
    LPSTR user = NULL;
    char name[256];
    wchar_t wname[256], sddl[320];
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, FALSE};
    if (*lock)
        return ERROR_SUCCESS;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        return GetLastError();
    if (!GetTokenInformation(token, TokenUser, buf, sizeof buf, &n) ||
        !ConvertSidToStringSidA(((TOKEN_USER *)buf)->User.Sid, &user))
        e = GetLastError();
    CloseHandle(token);
    if (e)
        return e;
    sbx_win_acl_lock_name(name, sizeof name, user);
    MultiByteToWideChar(CP_UTF8, 0, name, -1, wname, 256);
    swprintf(sddl, sizeof sddl / sizeof sddl[0], L"D:P(A;;GA;;;%hs)(A;;GA;;;SY)", user);
    LocalFree(user);
    if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1,
                                                             &sa.lpSecurityDescriptor, NULL))
        return GetLastError();
    *lock = CreateMutexW(&sa, FALSE, wname);
    e = *lock ? ERROR_SUCCESS : GetLastError();
    LocalFree(sa.lpSecurityDescriptor);
    return e;
}

static DWORD acl_lock_take(HANDLE *lock, DWORD wait_ms)
{
    DWORD e = acl_lock_open(lock);
    if (e)
        return e;
    switch (WaitForSingleObject(*lock, wait_ms)) {
    case WAIT_OBJECT_0:
    case WAIT_ABANDONED:
        /* Abandoned: a run died inside an edit. Its journal names that path,
         * so the sweep repairs it; the DACL itself is written in one call. */
        return ERROR_SUCCESS;
    case WAIT_TIMEOUT: return ERROR_TIMEOUT;
    default: return GetLastError();
    }
}

/* ---- the journal file ---- */

/* The DACL of the journal folders: the user and SYSTEM only, protected, so
 * a grant propagated onto %LOCALAPPDATA% (project = home, --add-dir ~) never
 * reaches them and no container can plant or replace a journal. */
static int protect_dir(HANDLE h)
{
    HANDLE token = NULL;
    BYTE buf[256];
    DWORD n = 0;
    LPWSTR user = NULL;
    wchar_t sddl[320];
    PSECURITY_DESCRIPTOR sd = NULL;
    PACL dacl = NULL;
    BOOL present = FALSE, defaulted = FALSE;
    int ok = 0;
    if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
        return 0;
    if (GetTokenInformation(token, TokenUser, buf, sizeof buf, &n) &&
        ConvertSidToStringSidW(((TOKEN_USER *)buf)->User.Sid, &user)) {
        swprintf(sddl, sizeof sddl / sizeof sddl[0], L"D:P(A;OICI;FA;;;%ls)(A;OICI;FA;;;SY)",
                 user);
        if (ConvertStringSecurityDescriptorToSecurityDescriptorW(sddl, SDDL_REVISION_1, &sd,
                                                                 NULL) &&
            GetSecurityDescriptorDacl(sd, &present, &dacl, &defaulted) && present)
            ok = SetSecurityInfo(h, SE_FILE_OBJECT,
                                 DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION,
                                 NULL, NULL, dacl, NULL) == ERROR_SUCCESS;
    }
    if (sd)
        LocalFree(sd);
    if (user)
        LocalFree(user);
    CloseHandle(token);
    return ok;
}

/* Create `dir` if missing, then open it without following a reparse point:
 * 0 (refused) for a junction or symlink (a container that could write the
 * parent may have made one to a folder it controls) or when its DACL cannot
 * be set to protect_dir's. */
static int safe_dir(const wchar_t *dir)
{
    HANDLE h;
    BY_HANDLE_FILE_INFORMATION info;
    int ok;
    CreateDirectoryW(dir, NULL);
    h = CreateFileW(dir, READ_CONTROL | WRITE_DAC | FILE_READ_ATTRIBUTES,
                    FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                    FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return 0;
    ok = GetFileInformationByHandle(h, &info) &&
         (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
         !(info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) && protect_dir(h);
    CloseHandle(h);
    return ok;
}

/* 1 when a root of the plan is `dir` or one of its ancestors (by text; the
 * protected DACL guards against other spellings): a grant there means a
 * container could write near the journals, so they are not used. */
static int dir_under_grant(const sbx_win_plan *plan, const wchar_t *dir)
{
    size_t i;
    char *u = NULL;
    int n = WideCharToMultiByte(CP_UTF8, 0, dir, -1, NULL, 0, NULL, NULL);
    int hit = 0;
    if (n <= 0 || !(u = malloc((size_t)n)))
        return 1;
    WideCharToMultiByte(CP_UTF8, 0, dir, -1, u, n, NULL, NULL);
    for (i = 0; i < plan->n_grants && !hit; i++) {
        const char *g = plan->grants[i].path;
        size_t gl = strlen(g);
        while (gl > 0 && (g[gl - 1] == '\\' || g[gl - 1] == '/'))
            gl--;
        hit = strlen(u) >= gl && sbx_strncasecmp_ascii(u, g, gl) == 0 &&
              (u[gl] == '\0' || u[gl] == '\\' || u[gl] == '/');
    }
    free(u);
    return hit;
}

/* %LOCALAPPDATA%\libsandbox\runs, created as needed, protected and checked
 * (safe_dir); NULL when there is no safe place for it. Never %TEMP%, which
 * every container is granted: a journal there could be planted. With NULL
 * the run neither sweeps (nothing untrusted is read) nor journals (a crash
 * leaves ACEs naming a dead per-run SID, which no token carries): said in
 * the run's warning. */
static wchar_t *journal_dir(const sbx_win_plan *plan)
{
    wchar_t base[MAX_PATH], *dir;
    DWORD n = GetEnvironmentVariableW(L"LOCALAPPDATA", base, MAX_PATH);
    size_t len;
    if (n == 0 || n >= MAX_PATH || !(base[0] && base[1] == L':' && base[2] == L'\\'))
        return NULL;
    len = wcslen(base) + 32;
    dir = malloc(len * sizeof *dir);
    if (!dir)
        return NULL;
    swprintf(dir, len, L"%ls%lslibsandbox", base, base[wcslen(base) - 1] == L'\\' ? L"" : L"\\");
    if (dir_under_grant(plan, dir) || !safe_dir(dir)) {
        free(dir);
        return NULL;
    }
    wcscat(dir, L"\\runs");
    if (!safe_dir(dir)) {
        free(dir);
        return NULL;
    }
    return dir;
}

static DWORD journal_write(struct sbx_win_run *run, const char *what, const char *arg)
{
    sbx_buf b;
    DWORD done = 0, e = ERROR_SUCCESS;
    if (!run->journal)
        return ERROR_SUCCESS;
    sbx_buf_init(&b);
    if (sbx_win_journal_line(&b, what, arg) != 0)
        e = ERROR_INVALID_NAME; /* a control character: the change is not made */
    else if (b.oom)
        e = ERROR_NOT_ENOUGH_MEMORY;
    /* Flushed before the change it records: a crash right after the change
     * must leave the record on disk. */
    else if (!WriteFile(run->journal, b.data, (DWORD)b.len, &done, NULL) || done != b.len ||
             !FlushFileBuffers(run->journal))
        e = GetLastError();
    sbx_buf_free(&b);
    return e;
}

static void journal_open(struct sbx_win_run *run, const wchar_t *dir)
{
    size_t len = wcslen(dir) + wcslen(run->profile) + 16;
    run->journal_path = malloc(len * sizeof(wchar_t));
    if (!run->journal_path)
        return;
    swprintf(run->journal_path, len, L"%ls\\%ls.journal", dir, run->profile);
    /* Shared for reading only while this run lives: a sweeper opens it
     * exclusively, which fails exactly while its owner is alive. Never
     * delete-on-close: a crash must leave it for the sweep. */
    run->journal = CreateFileW(run->journal_path, GENERIC_WRITE, FILE_SHARE_READ, NULL, CREATE_NEW,
                               FILE_ATTRIBUTE_NORMAL, NULL);
    if (run->journal == INVALID_HANDLE_VALUE) {
        run->journal = NULL;
        free(run->journal_path);
        run->journal_path = NULL;
        return;
    }
    if (journal_write(run, "sbx-journal", "1") != ERROR_SUCCESS) {
        CloseHandle(run->journal);
        run->journal = NULL;
        DeleteFileW(run->journal_path);
        free(run->journal_path);
        run->journal_path = NULL;
    }
}

static void journal_close(struct sbx_win_run *run)
{
    if (run->journal) {
        CloseHandle(run->journal);
        run->journal = NULL;
        /* Deleted only when everything it recorded is undone; otherwise it is
         * what lets the next run's sweep finish the undo. */
        if (!run->undo_failed)
            DeleteFileW(run->journal_path);
    }
    free(run->journal_path);
    run->journal_path = NULL;
}

/* ---- struct sbx_win_ops over the real DACLs ---- */

static unsigned op_lock(void *ctx)
{
    struct sbx_win_run *run = ctx;
    /* The undo waits longer: giving up leaves grants in force until the
     * next run's sweep. */
    return (unsigned)acl_lock_take(&run->acl_lock,
                                   run->undoing ? ACL_LOCK_UNDO_WAIT_MS : ACL_LOCK_WAIT_MS);
}

static void op_unlock(void *ctx)
{
    ReleaseMutex(((struct sbx_win_run *)ctx)->acl_lock);
}

static unsigned op_journal(void *ctx, const char *what, const char *path)
{
    return (unsigned)journal_write(ctx, what, path);
}

static unsigned with_path(const char *path, wchar_t **w)
{
    *w = path_to_wide(path);
    return *w ? 0u : (unsigned)ERROR_INVALID_NAME; /* not valid UTF-8 */
}

static unsigned op_grant(void *ctx, const char *path)
{
    struct sbx_win_run *run = ctx;
    wchar_t *w;
    unsigned e = with_path(path, &w);
    if (!e)
        e = injected(run, "grant") ? GetLastError() : set_grant(run->container_sid, w, 1, &run->skipped);
    free(w);
    if (!e)
        trace(run, "grant");
    return e;
}

static unsigned op_revoke(void *ctx, const char *path)
{
    struct sbx_win_run *run = ctx;
    wchar_t *w;
    unsigned e = with_path(path, &w);
    if (!e)
        e = set_grant(run->container_sid, w, 0, &run->skipped);
    free(w);
    trace(run, "revoke");
    return e;
}

static unsigned op_deny(void *ctx, const struct sbx_win_deny *d)
{
    struct sbx_win_run *run = ctx;
    wchar_t *w;
    unsigned e = with_path(d->path, &w);
    if (!e)
        e = injected(run, "deny") ? GetLastError() : set_deny(run->container_sid, w, d, &run->skipped);
    free(w);
    if (!e)
        trace(run, "deny");
    return e;
}

static unsigned op_undeny(void *ctx, const char *path)
{
    struct sbx_win_run *run = ctx;
    wchar_t *w;
    unsigned e = with_path(path, &w);
    if (!e)
        e = remove_denies(run->container_sid, w, &run->skipped);
    free(w);
    trace(run, "undeny");
    return e;
}

static int op_exposed(void *ctx, const char *path)
{
    struct sbx_win_run *run = ctx;
    wchar_t *w = path_to_wide(path);
    int x = w ? dacl_exposes(run->container_sid, w) : -1;
    free(w);
    return x;
}

/* 1 when an inherited allow ACE for the run's SID with the whole grant mask
 * is on path: granting it again would only propagate a second time. */
static int op_covered(void *ctx, const char *path)
{
    struct sbx_win_run *run = ctx;
    wchar_t *w = path_to_wide(path);
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    ACL_SIZE_INFORMATION info;
    DWORD i;
    int covered = 0;
    if (!w)
        return 0;
    if (GetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl,
                              NULL, &sd) == ERROR_SUCCESS) {
        if (dacl && GetAclInformation(dacl, &info, sizeof info, AclSizeInformation)) {
            for (i = 0; i < info.AceCount && !covered; i++) {
                ACCESS_ALLOWED_ACE *a;
                if (GetAce(dacl, i, (void **)&a) && a->Header.AceType == ACCESS_ALLOWED_ACE_TYPE &&
                    (a->Header.AceFlags & INHERITED_ACE) &&
                    (a->Header.AceFlags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)) ==
                        (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE) &&
                    (a->Mask & SBX_WIN_GRANT_MASK) == SBX_WIN_GRANT_MASK &&
                    EqualSid((PSID)&a->SidStart, run->container_sid))
                    covered = 1;
            }
        }
        LocalFree(sd);
    }
    free(w);
    return covered;
}

static void run_ops(struct sbx_win_run *run, struct sbx_win_ops *o)
{
    o->ctx = run;
    o->lock = op_lock;
    o->unlock = op_unlock;
    o->journal = op_journal;
    o->grant = op_grant;
    o->revoke = op_revoke;
    o->deny = op_deny;
    o->undeny = op_undeny;
    o->exposed = op_exposed;
    o->covered = op_covered;
}

/* ---- the loopback exemption ---- */

static void free_ni_list(DWORD n, PSID_AND_ATTRIBUTES list)
{
    DWORD i;
    if (!list)
        return;
    for (i = 0; i < n; i++)
        HeapFree(GetProcessHeap(), 0, list[i].Sid);
    HeapFree(GetProcessHeap(), 0, list);
}

/* Rewrite the loopback-exempt list with `sid` added or removed, under the
 * ACL lock (the list is machine-wide and read-modify-written: two runs
 * would otherwise drop each other's entries). Returns a Windows error. */
static DWORD loopback_update(const struct sbx_win_api *api, HANDLE *lock, PSID sid, int add)
{
    DWORD n = 0, i, m = 0, e;
    PSID_AND_ATTRIBUTES list = NULL, next;
    if (!api->ni_get || !api->ni_set)
        return ERROR_PROC_NOT_FOUND;
    e = acl_lock_take(lock, ACL_LOCK_WAIT_MS);
    if (e)
        return e;
    e = api->ni_get(&n, &list);
    if (e == ERROR_SUCCESS) {
        next = calloc((size_t)n + 1, sizeof *next);
        if (!next)
            e = ERROR_NOT_ENOUGH_MEMORY;
        else {
            for (i = 0; i < n; i++)
                if (!EqualSid(list[i].Sid, sid))
                    next[m++] = list[i];
            if (!add && m == n) {
                /* Not on the list (the add was refused, or a crash came
                 * first): nothing to remove, and no administrator needed. */
                free(next);
                free_ni_list(n, list);
                ReleaseMutex(*lock);
                return ERROR_SUCCESS;
            }
            if (add) {
                next[m].Sid = sid;
                next[m++].Attributes = 0;
            }
            e = api->ni_set(m, next);
            free(next);
        }
        free_ni_list(n, list);
    }
    ReleaseMutex(*lock);
    return e;
}

static void step_loopback(struct sbx_win_run *run)
{
    DWORD e;
    /* Best effort, deliberately not fatal: without the exemption loopback is
     * blocked too, which is stricter than asked, never looser. The outcome is
     * reported as it happened, never assumed. */
    if (!run->plan.loopback_wanted)
        return;
    if (!run->api.ni_get || !run->api.ni_set) {
        run->loopback = SBX_WIN_LOOPBACK_NO_API;
        sbx_warn(run->warning, sizeof run->warning,
                 "loopback is blocked: firewallapi.dll has no NetworkIsolation entry points");
        return;
    }
    journal_write(run, "loopback", NULL);
    e = injected(run, "loopback") ? ERROR_ACCESS_DENIED
                                  : loopback_update(&run->api, &run->acl_lock, run->container_sid, 1);
    if (e == ERROR_SUCCESS) {
        run->loopback = SBX_WIN_LOOPBACK_ADDED;
        trace(run, "loopback");
        return;
    }
    run->loopback = SBX_WIN_LOOPBACK_REFUSED;
    sbx_warn(run->warning, sizeof run->warning,
             "loopback is blocked for this run too: it needs an exemption an administrator grants "
             "(NetworkIsolationSetAppContainerConfig: Windows error %lu)",
             (unsigned long)e);
}

/* ---- the sweep of runs that crashed ---- */

struct sweep_ctx {
    struct sbx_win_api *api;
    HANDLE *lock;
    int fake_container;
};

static unsigned sw_lock(void *ctx)
{
    return (unsigned)acl_lock_take(((struct sweep_ctx *)ctx)->lock, ACL_LOCK_WAIT_MS);
}

static void sw_unlock(void *ctx)
{
    ReleaseMutex(*((struct sweep_ctx *)ctx)->lock);
}

static unsigned sw_purge(void *ctx, const char *path, const char *sid_text)
{
    wchar_t *w = path_to_wide(path), *ws = utf8_to_wide(sid_text);
    PSID sid = NULL;
    unsigned e = 0;
    (void)ctx;
    if (!w || !ws || !ConvertStringSidToSidW(ws, &sid))
        e = ERROR_INVALID_PARAMETER;
    if (!e)
        e = remove_denies(sid, w, NULL);
    if (!e)
        e = set_grant(sid, w, 0, NULL);
    if (sid)
        LocalFree(sid);
    free(w);
    free(ws);
    return e;
}

static unsigned sw_unloopback(void *ctx, const char *sid_text)
{
    struct sweep_ctx *c = ctx;
    wchar_t *ws = utf8_to_wide(sid_text);
    PSID sid = NULL;
    DWORD e;
    if (!ws || !ConvertStringSidToSidW(ws, &sid)) {
        free(ws);
        return ERROR_INVALID_PARAMETER;
    }
    free(ws);
    /* sw_lock is held: the mutex is recursive for this thread. */
    e = loopback_update(c->api, c->lock, sid, 0);
    LocalFree(sid);
    /* No API: no entry could have been made. */
    return e == ERROR_PROC_NOT_FOUND ? 0u : (unsigned)e;
}

static unsigned sw_derive(void *ctx, const char *profile, char *out, size_t size)
{
    struct sweep_ctx *c = ctx;
    wchar_t *w = utf8_to_wide(profile);
    PSID sid = NULL;
    LPSTR text = NULL;
    unsigned e = 0;
    if (!w)
        return ERROR_INVALID_PARAMETER;
    if (c->fake_container) {
        /* The fixed SID of the test build's fake container (step_profile). */
        free(w);
        snprintf(out, size, "S-1-15-2-1-2-3-4-5-6-7");
        return 0;
    }
    /* Without the API no journal can be trusted: it is kept, not acted on. */
    if (!c->api->derive_sid || FAILED(c->api->derive_sid(w, &sid)))
        e = ERROR_PROC_NOT_FOUND;
    else if (!ConvertSidToStringSidA(sid, &text))
        e = GetLastError();
    else if (strlen(text) >= size)
        e = ERROR_INSUFFICIENT_BUFFER;
    else
        memcpy(out, text, strlen(text) + 1);
    if (text)
        LocalFree(text);
    if (sid)
        FreeSid(sid);
    free(w);
    return e;
}

static unsigned sw_unprofile(void *ctx, const char *profile)
{
    struct sweep_ctx *c = ctx;
    wchar_t *w = utf8_to_wide(profile);
    HRESULT hr;
    if (!w)
        return ERROR_INVALID_PARAMETER;
    hr = c->api->delete_profile ? c->api->delete_profile(w) : S_OK;
    free(w);
    if (hr == HRESULT_FROM_WIN32(ERROR_FILE_NOT_FOUND) || hr == HRESULT_FROM_WIN32(ERROR_NOT_FOUND))
        hr = S_OK;
    return FAILED(hr) ? (unsigned)hr : 0u;
}

/* Undo what crashed runs left (their journals, opened exclusively, which
 * succeeds only once the owner is gone). Best effort: a journal that cannot
 * be undone now is kept for the next run. */
static void sweep_stale(struct sbx_win_run *run, const wchar_t *dir)
{
    struct sweep_ctx c = {&run->api, &run->acl_lock, 0};
    struct sbx_win_sweep_ops o = {&c,            sw_lock,      sw_unlock, sw_purge,
                                  sw_unloopback, sw_unprofile, sw_derive};
    size_t dl = wcslen(dir);
    wchar_t *pattern, *file;
    WIN32_FIND_DATAW fd;
    HANDLE find;
#ifdef SBX_TEST_HOOKS
    c.fake_container = run->hooks.fake_container;
#endif
    /* Sized to the directory: a fixed buffer silently cut a long one. */
    pattern = malloc((dl + 16) * sizeof *pattern);
    file = malloc((dl + MAX_PATH + 8) * sizeof *file);
    if (!pattern || !file) {
        free(pattern);
        free(file);
        return;
    }
    swprintf(pattern, dl + 16, L"%ls\\*.journal", dir);
    find = FindFirstFileW(pattern, &fd);
    free(pattern);
    if (find == INVALID_HANDLE_VALUE) {
        free(file);
        return;
    }
    do {
        HANDLE f;
        LARGE_INTEGER size;
        char *text = NULL, name[MAX_PATH * 3 + 1];
        DWORD got = 0;
        struct sbx_win_journal j;
        sandbox_error err;
        int drop = 0;
        swprintf(file, dl + MAX_PATH + 8, L"%ls\\%ls", dir, fd.cFileName);
        if (!WideCharToMultiByte(CP_UTF8, 0, fd.cFileName, -1, name, sizeof name, NULL, NULL))
            continue;
        f = CreateFileW(file, GENERIC_READ, 0, NULL, OPEN_EXISTING,
                        FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
        if (f == INVALID_HANDLE_VALUE)
            continue; /* its run is alive (sharing violation), or not ours */
        if (GetFileSizeEx(f, &size) && size.QuadPart < (1 << 24) &&
            (text = malloc((size_t)size.QuadPart + 1)) != NULL &&
            ReadFile(f, text, (DWORD)size.QuadPart, &got, NULL)) {
            text[got] = '\0';
            if (sbx_win_journal_parse(text, &j, &err) == SANDBOX_OK) {
                /* The name is the file's own: it must be "<profile>.journal". */
                unsigned e = sbx_win_sweep(&j, name, &o);
                /* Invalid: not a run's record (planted?); acted on never. */
                drop = e == 0 || e == SBX_WIN_ERR_INVALID_DATA;
                if (e == SBX_WIN_ERR_INVALID_DATA)
                    trace(run, "sweep-refused");
                sbx_win_journal_free(&j);
            } else
                drop = err.code == SANDBOX_E_INVALID; /* torn before its first change */
        }
        free(text);
        CloseHandle(f);
        if (drop) {
            DeleteFileW(file);
            trace(run, "sweep");
        }
    } while (FindNextFileW(find, &fd));
    FindClose(find);
    free(file);
}

void sbx_win_run_undo(struct sbx_win_run *run)
{
    struct sbx_win_ops ops;
    /* Reverse order of the steps. The job first: closing it kills every
     * process of the run (KILL_ON_JOB_CLOSE), so nothing keeps running with
     * the grants' access while they are being taken away. */
    if (run->job) {
        TerminateJobObject(run->job, 1);
        CloseHandle(run->job);
        run->job = NULL;
    }
    if (run->process) {
        CloseHandle(run->process);
        run->process = NULL;
    }
    /* The undo waits longer for the lock than a start does: giving up here
     * leaves grants in force until the next run's sweep. */
    run->undoing = 1;
    if (run->loopback == SBX_WIN_LOOPBACK_ADDED) {
        if (loopback_update(&run->api, &run->acl_lock, run->container_sid, 0) == ERROR_SUCCESS) {
            run->loopback = SBX_WIN_LOOPBACK_NOT_WANTED;
            trace(run, "unloopback");
        } else
            run->undo_failed = 1;
    }
    if (run->container_sid) {
        run_ops(run, &ops);
        if (sbx_win_undo_acls(&run->plan, &ops, &run->applied) != 0) {
            run->undo_failed = 1;
            trace(run, "undo-failed");
        }
    }
    {
        size_t i;
        for (i = 0; i < SBX_WIN_MAX_CAPS; i++) {
            if (run->cap_sids[i])
                LocalFree(run->cap_sids[i]);
            run->cap_sids[i] = NULL;
        }
    }
    if (run->container_sid) {
        if (run->container_sid_local)
            LocalFree(run->container_sid);
        else
            FreeSid(run->container_sid);
        run->container_sid = NULL;
    }
    if (run->profile_created) {
        /* Kept when ACEs may still name its SID: the sweep deletes it last. */
        if (!run->undo_failed && FAILED(run->api.delete_profile(run->profile)))
            run->undo_failed = 1;
        run->profile_created = 0;
        trace(run, "unprofile");
    }
    journal_close(run);
    if (run->acl_lock) {
        CloseHandle(run->acl_lock);
        run->acl_lock = NULL;
    }
    free(run->app_name);
    run->app_name = NULL;
    free(run->program);
    run->program = NULL;
    api_unload(&run->api);
    sbx_win_plan_free(&run->plan);
}

/* ---- process creation ---- */

/* An inheritable duplicate of fd (or of the parent's std handle for -1), so
 * the caller's own handles keep their inheritance flag. NULL when there is
 * nothing to pass; INVALID_HANDLE_VALUE on error. */
static HANDLE std_handle(int fd, DWORD which)
{
    HANDLE h, dup = NULL;
    h = fd >= 0 ? (HANDLE)_get_osfhandle(fd) : GetStdHandle(which);
    if (h == INVALID_HANDLE_VALUE || h == NULL)
        return fd >= 0 ? INVALID_HANDLE_VALUE : NULL;
    if (!DuplicateHandle(GetCurrentProcess(), h, GetCurrentProcess(), &dup, 0, TRUE,
                         DUPLICATE_SAME_ACCESS))
        return fd >= 0 ? INVALID_HANDLE_VALUE : NULL;
    return dup;
}

/* "K=V\0K=V\0\0" in UTF-16 for CREATE_UNICODE_ENVIRONMENT. */
static wchar_t *env_block(const char *const envp[])
{
    size_t i, len = 1, at = 0;
    wchar_t *block;
    for (i = 0; envp[i]; i++) {
        int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, envp[i], -1, NULL, 0);
        if (n <= 0)
            return NULL;
        len += (size_t)n;
    }
    block = malloc((len + 1) * sizeof *block);
    if (!block)
        return NULL;
    for (i = 0; envp[i]; i++)
        at += (size_t)MultiByteToWideChar(CP_UTF8, 0, envp[i], -1, block + at, (int)(len - at));
    block[at++] = L'\0';
    block[at] = L'\0';
    return block;
}

static int step_process(struct sbx_win_run *run, const char *const envp[],
                        const sandbox_spawn_options *o, sandbox_error *err)
{
    SECURITY_CAPABILITIES sc;
    STARTUPINFOEXW si;
    PROCESS_INFORMATION pi;
    HANDLE std[3], list[3];
    DWORD n_list = 0, n_attrs = 0, flags = EXTENDED_STARTUPINFO_PRESENT | CREATE_SUSPENDED;
    JOBOBJECT_EXTENDED_LIMIT_INFORMATION limits;
    SIZE_T attr_size = 0;
    wchar_t *cmd = NULL, *cwd = NULL, *env = NULL;
    int rc = SANDBOX_OK, i, attrs_ready = 0;
    BOOL ok;

#ifdef SBX_TEST_HOOKS
    if (run->hooks.before_process)
        run->hooks.before_process(run, run->hooks.arg);
#endif
    memset(&si, 0, sizeof si);
    si.StartupInfo.cb = sizeof si;
    std[0] = std_handle(o->stdin_fd, STD_INPUT_HANDLE);
    std[1] = std_handle(o->stdout_fd, STD_OUTPUT_HANDLE);
    std[2] = std_handle(o->stderr_fd, STD_ERROR_HANDLE);
    for (i = 0; i < 3; i++) {
        if (std[i] == INVALID_HANDLE_VALUE)
            rc = sbx_fail(err, SANDBOX_E_INVALID, 0,
                          "a standard stream descriptor given to sandbox_spawn is not open");
        else if (std[i])
            list[n_list++] = std[i];
    }
    if (rc == SANDBOX_OK) {
        si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
        si.StartupInfo.hStdInput = std[0] != INVALID_HANDLE_VALUE ? std[0] : NULL;
        si.StartupInfo.hStdOutput = std[1] != INVALID_HANDLE_VALUE ? std[1] : NULL;
        si.StartupInfo.hStdError = std[2] != INVALID_HANDLE_VALUE ? std[2] : NULL;
        cmd = utf8_to_wide(run->plan.command_line);
        if (o->working_dir)
            cwd = utf8_to_wide(o->working_dir);
        if (envp) {
            env = env_block(envp);
            flags |= CREATE_UNICODE_ENVIRONMENT;
        }
        if (!cmd || (o->working_dir && !cwd) || (envp && !env))
            rc = sbx_fail(err, SANDBOX_E_INVALID, 0,
                          "the command, working directory or environment is not valid UTF-8");
    }

    n_attrs = (run->plan.contained ? 1 : 0) + (n_list ? 1 : 0);
    if (rc == SANDBOX_OK && n_attrs) {
        InitializeProcThreadAttributeList(NULL, n_attrs, 0, &attr_size);
        si.lpAttributeList = malloc(attr_size);
        if (!si.lpAttributeList)
            rc = sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory for the process attributes");
        else if (!InitializeProcThreadAttributeList(si.lpAttributeList, n_attrs, 0, &attr_size))
            rc = win_fail(err, SANDBOX_E_SYSTEM, GetLastError(), "InitializeProcThreadAttributeList");
        else
            attrs_ready = 1;
    }
    if (rc == SANDBOX_OK && run->plan.contained) {
        memset(&sc, 0, sizeof sc);
        sc.AppContainerSid = run->container_sid;
        sc.Capabilities = run->plan.n_caps ? run->caps : NULL;
        sc.CapabilityCount = (DWORD)run->plan.n_caps;
        if (injected(run, "attributes") ||
            !UpdateProcThreadAttribute(si.lpAttributeList, 0,
                                       PROC_THREAD_ATTRIBUTE_SECURITY_CAPABILITIES, &sc, sizeof sc,
                                       NULL, NULL))
            rc = win_fail(err, SANDBOX_E_SYSTEM, GetLastError(),
                          "attaching the AppContainer to the new process");
    }
    /* Only the three stdio handles are inherited, never whatever else the
     * host happens to have marked inheritable. */
    if (rc == SANDBOX_OK && n_list &&
        !UpdateProcThreadAttribute(si.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list,
                                   n_list * sizeof list[0], NULL, NULL))
        rc = win_fail(err, SANDBOX_E_SYSTEM, GetLastError(), "restricting the inherited handles");
    /* The job holds every process of the run: killed when its last handle
     * closes (ours: sandbox_wait, or the launcher dying), and no breakaway
     * (neither BREAKAWAY_OK nor SILENT_BREAKAWAY_OK), so a grandchild cannot
     * outlive the grants or keep running after the profile is gone. */
    if (rc == SANDBOX_OK) {
        memset(&limits, 0, sizeof limits);
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        run->job = injected(run, "job") ? NULL : CreateJobObjectW(NULL, NULL);
        if (!run->job || !SetInformationJobObject(run->job, JobObjectExtendedLimitInformation,
                                                  &limits, sizeof limits))
            rc = win_fail(err, SANDBOX_E_SYSTEM, GetLastError(),
                          "creating the job object that ends the command's process tree");
        else
            trace(run, "job");
    }
    if (rc == SANDBOX_OK) {
        trace(run, "attributes");
        memset(&pi, 0, sizeof pi);
        /* Suspended until it is in the job: it must not start a child first. */
        ok = !injected(run, "process") &&
             CreateProcessW(run->app_name, cmd, NULL, NULL, n_list ? TRUE : FALSE, flags, env, cwd,
                            &si.StartupInfo, &pi);
        if (!ok) {
            DWORD e = GetLastError();
            const char *why = run->program ? sbx_win_program_problem(run->program, getenv("USERPROFILE"),
                                                                     &run->plan)
                                           : NULL;
            /* The command itself could not be started: an exec failure,
             * with the Windows error code kept in sys_errno. */
            rc = win_fail(err, SANDBOX_E_EXEC, e, "CreateProcessW");
            if (run->program)
                sbx_warn(err->message, sizeof err->message, "program: %s%s%s", run->program,
                         why ? ": " : "", why ? why : "");
        } else if (injected(run, "assign") || !AssignProcessToJobObject(run->job, pi.hProcess) ||
                   ResumeThread(pi.hThread) == (DWORD)-1) {
            /* Never let it run outside the job. */
            rc = win_fail(err, SANDBOX_E_SYSTEM, GetLastError(),
                          "putting the command into its job object");
            TerminateProcess(pi.hProcess, 126);
            WaitForSingleObject(pi.hProcess, 5000);
            CloseHandle(pi.hThread);
            CloseHandle(pi.hProcess);
        } else {
            CloseHandle(pi.hThread);
            run->process = pi.hProcess;
            run->pid = pi.dwProcessId;
            trace(run, "process");
        }
    }
    if (attrs_ready)
        DeleteProcThreadAttributeList(si.lpAttributeList);
    free(si.lpAttributeList);
    for (i = 0; i < 3; i++)
        if (std[i] && std[i] != INVALID_HANDLE_VALUE)
            CloseHandle(std[i]);
    free(cmd);
    free(cwd);
    free(env);
    return rc;
}

/* ---- the program: PATH and PATHEXT ---- */

static int host_is_file(void *ctx, const char *path)
{
    wchar_t *w = path_to_wide(path);
    DWORD a;
    (void)ctx;
    if (!w)
        return 0;
    a = GetFileAttributesW(w);
    free(w);
    return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

/* NAME's value in envp (the command's environment), else in ours; malloc'd
 * UTF-8, or NULL. */
static char *env_value(const char *const envp[], const char *name)
{
    size_t n = strlen(name), i;
    wchar_t wname[32], *w;
    DWORD len;
    char *v;
    /* CreateProcessW searches with the caller's PATH whatever the child's
     * environment says; the child's wins here when it has one. */
    for (i = 0; envp && envp[i]; i++)
        if (sbx_strncasecmp_ascii(envp[i], name, n) == 0 && envp[i][n] == '=')
            return sbx_strdup(envp[i] + n + 1);
    MultiByteToWideChar(CP_UTF8, 0, name, -1, wname, 32);
    len = GetEnvironmentVariableW(wname, NULL, 0);
    if (len == 0 || !(w = malloc(len * sizeof *w)))
        return NULL;
    GetEnvironmentVariableW(wname, w, len);
    n = (size_t)WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    v = n ? malloc(n) : NULL;
    if (v)
        WideCharToMultiByte(CP_UTF8, 0, w, -1, v, (int)n, NULL, NULL);
    free(w);
    return v;
}

/* Find the program as cmd.exe would (PATHEXT: npm is npm.cmd), before any
 * change is made, and name it on the command line by its full path, so
 * CreateProcessW searches nothing (not the working directory a confined
 * command may have written to). */
static int step_program(struct sbx_win_run *run, const char *const argv[],
                        const char *const envp[], sandbox_error *err)
{
    char *path = env_value(envp, "PATH"), *pathext = env_value(envp, "PATHEXT"), *search;
    char sys[MAX_PATH * 3] = "", win[MAX_PATH * 3] = "";
    wchar_t w[MAX_PATH];
    const char **copy;
    size_t n = 0;
    int rc;
    /* After PATH, System32 and the Windows directory, which CreateProcessW
     * would also search; never the working directory. */
    if (GetSystemDirectoryW(w, MAX_PATH))
        WideCharToMultiByte(CP_UTF8, 0, w, -1, sys, sizeof sys, NULL, NULL);
    if (GetWindowsDirectoryW(w, MAX_PATH))
        WideCharToMultiByte(CP_UTF8, 0, w, -1, win, sizeof win, NULL, NULL);
    search = malloc((path ? strlen(path) : 0) + strlen(sys) + strlen(win) + 3);
    if (!search) {
        free(path);
        free(pathext);
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while looking up the program");
    }
    sprintf(search, "%s;%s;%s", path ? path : "", sys, win);
    rc = sbx_win_find_program(argv[0], search, pathext, host_is_file, NULL, &run->program, err);
    free(search);
    free(path);
    free(pathext);
    if (rc != SANDBOX_OK)
        return rc;
    /* The verbatim form only when needed: cmd.exe, which runs a .cmd, does
     * not understand "\\?\" paths. */
    run->app_name = strlen(run->program) < MAX_PATH ? utf8_to_wide(run->program)
                                                    : path_to_wide(run->program);
    while (argv[n])
        n++;
    copy = malloc((n + 1) * sizeof *copy);
    if (!run->app_name || !copy) {
        free(copy);
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while naming the program");
    }
    memcpy(copy, argv, (n + 1) * sizeof *copy);
    copy[0] = run->program;
    free(run->plan.command_line);
    run->plan.command_line = sbx_win_command_line(copy, err);
    free(copy);
    return run->plan.command_line ? SANDBOX_OK : err->code;
}

int sbx_win_run_start(struct sbx_win_run *run, const sandbox_policy *policy,
                      const char *const argv[], const char *const envp[],
                      const sandbox_spawn_options *options, sandbox_error *err)
{
    sbx_resolved r;
    int rc;

    if (options->n_keep_fds > 0)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "keeping extra descriptors is not supported on Windows");
    rc = sbx_resolve(policy, SANDBOX_TARGET_WINDOWS, &r, err);
    if (rc != SANDBOX_OK)
        return rc;
    rc = sbx_win_run_start_resolved(run, &r, argv, envp, options, err);
    sbx_resolved_free(&r);
    return rc;
}

int sbx_win_run_start_resolved(struct sbx_win_run *run, const sbx_resolved *r,
                               const char *const argv[], const char *const envp[],
                               const sandbox_spawn_options *options, sandbox_error *err)
{
    int rc;

    if (options->n_keep_fds > 0)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "keeping extra descriptors is not supported on Windows");
    rc = sbx_win_plan_build(r, argv, &run->plan, err);
    if (rc == SANDBOX_OK) {
        /* The walk is done before anything is changed: a directory that
         * cannot be listed refuses the run with nothing to undo. Per run,
         * not per sandbox_plan: only what exists now gets a deny ACE. */
        struct sbx_win_fs fs;
        sbx_win_fs_host(&fs);
        rc = sbx_win_plan_protect(r, &fs, &run->plan, err);
        if (rc != SANDBOX_OK)
            sbx_win_plan_free(&run->plan);
    }
    if (rc != SANDBOX_OK)
        return rc;
    api_load(&run->api);
    /* Not found is an exec error (127) before anything is changed. */
    rc = step_program(run, argv, envp, err);
    /* The order matters for fail-closed: the container exists and holds its
     * grants before the process does, and the process is created last, so an
     * error at any step leaves nothing running. */
    if (rc == SANDBOX_OK && run->plan.contained) {
        rc = step_profile(run, err);
        if (rc == SANDBOX_OK)
            rc = step_capabilities(run, err);
        if (rc == SANDBOX_OK) {
            /* Grants, then denies, each edit under the ACL lock and journaled
             * first; a failure undoes them all (apply.c). */
            struct sbx_win_ops ops;
            run_ops(run, &ops);
            rc = sbx_win_apply_acls(&run->plan, &ops, &run->applied, err);
        }
        if (rc == SANDBOX_OK)
            step_loopback(run);
    }
    if (rc == SANDBOX_OK)
        rc = step_process(run, envp, options, err);
    if (rc != SANDBOX_OK)
        sbx_win_run_undo(run);
    return rc;
}

/* ---- the backend interface ---- */

int sbx_backend_enforce(const sandbox_policy *policy, const char *const argv[],
                        sandbox_result *result)
{
    (void)policy;
    (void)argv;
    /* An AppContainer is fixed when a process is created; the caller's own
     * process cannot enter one. */
    return sbx_fail(&result->error, SANDBOX_E_UNSUPPORTED, 0,
                    "Windows cannot confine a running process; use sandbox_spawn, which starts "
                    "the command inside an AppContainer (the launcher does this)");
}

/* A sandbox_plan on Windows keeps only the resolved policy (plan->resolved):
 * the AppContainer, its grants and deny ACEs belong to one run, and are made
 * and undone around each command. */
int sbx_backend_plan_new(sandbox_plan *plan, sandbox_error *error)
{
    static const char *const probe_argv[] = {"cmd", NULL};
    sbx_win_plan probe;
    int rc;
    if (plan->noop)
        return SANDBOX_OK;
    /* Refuse what Windows cannot enforce (read-only) now, with the error a
     * spawn would give, rather than at every spawn. */
    rc = sbx_win_plan_build(&plan->resolved, probe_argv, &probe, error);
    if (rc == SANDBOX_OK)
        sbx_win_plan_free(&probe);
    return rc;
}

void sbx_backend_plan_free(struct sbx_backend_plan *backend)
{
    (void)backend; /* never made */
}

int sbx_backend_spawn(const sandbox_plan *plan, const char *const argv[],
                      const char *const envp[], const sandbox_spawn_options *options,
                      sandbox_process *process, sandbox_error *error)
{
    struct sbx_win_run *run = calloc(1, sizeof *run);
    int rc;
    if (!run)
        return sbx_fail(error, SANDBOX_E_NOMEM, 0, "out of memory while spawning");
    /* An all-off plan was not resolved (nothing to confine): resolve for
     * the command line alone, as sandbox_spawn always did. */
    rc = plan->noop ? sbx_win_run_start(run, plan->policy, argv, envp, options, error)
                    : sbx_win_run_start_resolved(run, &plan->resolved, argv, envp, options, error);
    if (rc != SANDBOX_OK) {
        free(run);
        return rc;
    }
    if (run->skipped)
        sbx_warn(run->warning, sizeof run->warning,
                 "%lu files or folders under the writable roots kept their permissions (you may "
                 "not change them), so the sandbox cannot open them",
                 run->skipped);
    if (run->applied.n_skipped)
        sbx_warn(run->warning, sizeof run->warning,
                 "%lu protected paths got no deny ACE: they vanished, or you may not change "
                 "their permissions and no ACE lets the sandbox open them",
                 (unsigned long)run->applied.n_skipped);
    if (run->warning[0])
        sbx_warn(process->warning, sizeof process->warning, "%s", run->warning);
    process->pid = (long)run->pid;
    process->handle = run->process;
    process->enforcement = run->plan.contained ? SANDBOX_SELF_APPLIED : SANDBOX_ENFORCED_NOTHING;
    process->backend = run;
    return SANDBOX_OK;
}

int sbx_backend_wait(sandbox_process *process, int *status, sandbox_error *error)
{
    struct sbx_win_run *run = process->backend;
    DWORD code = 0;
    if (!run || !run->process)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "this process was not started by sandbox_spawn");
    if (WaitForSingleObject(run->process, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeProcess(run->process, &code))
        return win_fail(error, SANDBOX_E_SYSTEM, GetLastError(), "waiting for the sandboxed process");
    *status = (int)code;
    /* The command is done: end what it left running (a background server,
     * a detached grandchild) and wait until the job is empty, so nothing of
     * the run still executes when its grants are revoked. */
    if (run->job) {
        JOBOBJECT_BASIC_ACCOUNTING_INFORMATION acct;
        int tries;
        TerminateJobObject(run->job, code);
        for (tries = 0; tries < 1000; tries++) {
            if (!QueryInformationJobObject(run->job, JobObjectBasicAccountingInformation, &acct,
                                           sizeof acct, NULL) ||
                acct.ActiveProcesses == 0)
                break;
            Sleep(10);
        }
    }
    sbx_win_run_undo(run);
    free(run);
    process->backend = NULL;
    process->handle = NULL;
    return SANDBOX_OK;
}

int sbx_backend_collect(sandbox_process *process, struct sbx_outcome_data *d)
{
    (void)process; /* the wait released the run already */
    if (d)
        d->exit_code_only = 1; /* the status is the process exit code */
    return SANDBOX_OK;
}

/* ---- probes ---- */

static int appcontainer_usable(char *why, size_t size)
{
    struct sbx_win_api api;
    int ok;
    if (sbx_win_is_wine()) {
        snprintf(why, size, "running under wine, which does not enforce AppContainers");
        return 0;
    }
    api_load(&api);
    ok = api_has_appcontainer(&api);
    api_unload(&api);
    if (!ok)
        snprintf(why, size, "userenv.dll has no CreateAppContainerProfile (Windows 8 or later is needed)");
    return ok;
}

void sbx_backend_self_test(sandbox_report *report)
{
    char why[256] = "";
    int ok = appcontainer_usable(why, sizeof why);
    strcpy(report->platform, "windows");
    strcpy(report->network.mechanism, "appcontainer");
    strcpy(report->filesystem.mechanism, "appcontainer");
    report->network.available = report->filesystem.available = ok;
    if (ok) {
        snprintf(report->network.detail, sizeof report->network.detail,
                 "a per-run AppContainer without the internetClient, internetClientServer and "
                 "privateNetworkClientServer capabilities; loopback blocked too unless an "
                 "administrator's exemption can be set (tried per run, reported); "
                 "applied by sandbox_spawn only");
        snprintf(report->filesystem.detail, sizeof report->filesystem.detail,
                 "the container SID is granted write access on the writable roots only; "
                 "--no-network alone also confines writes to the working and temp directories "
                 "(stricter than asked)");
    } else {
        snprintf(report->network.detail, sizeof report->network.detail, "not enforced: %s", why);
        snprintf(report->filesystem.detail, sizeof report->filesystem.detail, "not enforced: %s", why);
    }
    snprintf(report->read_only.detail, sizeof report->read_only.detail,
             "not kernel-enforced on Windows: an AppContainer also refuses reads outside its "
             "grants, so read-only mode is refused (exit 126)");
    snprintf(report->internet_only.detail, sizeof report->internet_only.detail,
             "not enforced on Windows yet; refused");
    strcpy(report->protected_paths.mechanism, SBX_WIN_PROTECT_MECHANISM);
    report->protected_paths.available = ok;
    if (ok)
        snprintf(report->protected_paths.detail, sizeof report->protected_paths.detail,
                 "deny ACEs for the container SID on matches in the granted roots and on home "
                 "paths, DELETE denied on their parents; not covered: %s",
                 SBX_WIN_PROTECT_GAPS);
    else
        snprintf(report->protected_paths.detail, sizeof report->protected_paths.detail,
                 "not enforced: %s", why);
}

int sbx_backend_network_available(void)
{
    char why[256];
    return appcontainer_usable(why, sizeof why);
}

int sbx_backend_fs_available(void)
{
    char why[256];
    return appcontainer_usable(why, sizeof why);
}
