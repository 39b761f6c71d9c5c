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
        SetLastError(ERROR_ACCESS_DENIED);
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

static int step_profile(struct sbx_win_run *run, sandbox_error *err)
{
    unsigned int rnd = 0;
    LARGE_INTEGER now;
    HRESULT hr;

#ifdef SBX_TEST_HOOKS
    if (run->hooks.fake_container) {
        /* A well-formed AppContainer SID that no profile owns. */
        if (injected(run, "profile") ||
            !ConvertStringSidToSidW(L"S-1-15-2-1-2-3-4-5-6-7", &run->container_sid))
            return win_fail(err, SANDBOX_E_SYSTEM, GetLastError(), "creating the AppContainer profile");
        run->container_sid_local = 1;
        trace(run, "profile");
        return SANDBOX_OK;
    }
#endif
    if (!api_has_appcontainer(&run->api))
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "this Windows has no AppContainer support (CreateAppContainerProfile is "
                        "missing from userenv.dll; Windows 8 or later is needed); refusing to run "
                        "the command unconfined");
    /* A fresh name per run: the SID is then ours alone, so revoking "every ACE
     * for this SID" can never touch another run's grants, and a profile left
     * by a crash grants nothing to later runs. */
    QueryPerformanceCounter(&now);
    if (rand_s(&rnd) != 0)
        return sbx_fail(err, SANDBOX_E_SYSTEM, 0, "no random number for the AppContainer name");
    swprintf(run->profile, sizeof run->profile / sizeof run->profile[0], L"libsandbox.%lx.%llx.%x",
             (unsigned long)GetCurrentProcessId(), (unsigned long long)now.QuadPart, rnd);
    if (injected(run, "profile"))
        return win_fail(err, SANDBOX_E_SYSTEM, GetLastError(), "creating the AppContainer profile");
    hr = run->api.create_profile(run->profile, L"libsandbox run", L"libsandbox per-run sandbox",
                                 NULL, 0, &run->container_sid);
    if (FAILED(hr))
        return win_fail(err, SANDBOX_E_SYSTEM, (DWORD)hr, "CreateAppContainerProfile");
    run->profile_created = 1;
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

/* Merge one entry for `sid` into the DACL of `path`: read, SetEntriesInAclW,
 * write back. Grants, revocations and denies differ only in the entry. */
static DWORD apply_ace(const wchar_t *path, PSID sid, DWORD mask, ACCESS_MODE mode,
                       DWORD inheritance)
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
        /* The cast: the API takes a non-const path but does not write it. */
        rc = SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
                                   NULL, new_dacl, NULL);
        LocalFree(new_dacl);
    }
    LocalFree(sd);
    return rc;
}

/* Add (grant) or remove (revoke) the container's ACE on one root. Revoking
 * removes every explicit ACE for this SID rather than restoring a saved DACL:
 * a snapshot would also undo changes other runs or the user made meanwhile. */
static DWORD set_grant(struct sbx_win_run *run, const wchar_t *path, int grant)
{
    return apply_ace(path, run->container_sid, SBX_WIN_GRANT_MASK,
                     grant ? GRANT_ACCESS : REVOKE_ACCESS,
                     grant ? SUB_CONTAINERS_AND_OBJECTS_INHERIT : NO_INHERITANCE);
}

static int step_grants(struct sbx_win_run *run, sandbox_error *err)
{
    size_t i, n = run->plan.n_grants;
    run->grant_paths = calloc(n ? n : 1, sizeof *run->grant_paths);
    if (!run->grant_paths)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while granting the roots");
    for (i = 0; i < n; i++) {
        const char *path = run->plan.grants[i].path;
        DWORD rc;
        run->grant_paths[i] = utf8_to_wide(path);
        if (!run->grant_paths[i])
            return sbx_fail(err, SANDBOX_E_PATH, 0, "the path '%s' is not valid UTF-8", path);
        rc = injected(run, "grant") ? ERROR_ACCESS_DENIED : set_grant(run, run->grant_paths[i], 1);
        if (rc != ERROR_SUCCESS) {
            win_fail(err, rc == ERROR_FILE_NOT_FOUND || rc == ERROR_PATH_NOT_FOUND ? SANDBOX_E_PATH
                                                                                 : SANDBOX_E_SYSTEM,
                     rc, "granting the sandbox write access to a writable root");
            sbx_warn(err->message, sizeof err->message, "root: %s", path);
            return err->code;
        }
        run->n_granted = i + 1;
        trace(run, "grant");
    }
    return SANDBOX_OK;
}

/* ---- protected paths: deny ACEs ---- */

static DWORD set_deny(struct sbx_win_run *run, const wchar_t *path, const struct sbx_win_deny *d)
{
    /* Inherited below a protected directory, so files created in it later
     * (a new hook under .git\hooks) are denied too; a parent's DELETE is for
     * the directory itself only. */
    DWORD inheritance = d->is_dir && d->kind != SBX_WIN_DENY_PARENT
                            ? SUB_CONTAINERS_AND_OBJECTS_INHERIT
                            : NO_INHERITANCE;
    return apply_ace(path, run->container_sid, sbx_win_deny_mask(d->kind), DENY_ACCESS,
                     inheritance);
}

/* Remove every explicit deny ACE for our SID, and nothing else. Filtered by
 * hand rather than with REVOKE_ACCESS: that mode is documented for allow
 * ACEs, and a grant on the same directory (a root that is also a parent of a
 * match) must outlive its deny until the grants are revoked. */
static DWORD remove_denies(struct sbx_win_run *run, const wchar_t *path)
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
            EqualSid((PSID)&((ACCESS_DENIED_ACE *)h)->SidStart, run->container_sid)) {
            found = 1;
            continue;
        }
        if (!AddAce(next, ACL_REVISION, MAXDWORD, h, h->AceSize)) {
            rc = GetLastError();
            goto done;
        }
    }
    if (found)
        rc = SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
                                   NULL, next, NULL);
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

static int step_denies(struct sbx_win_run *run, sandbox_error *err)
{
    size_t i, n = run->plan.n_denies;
    if (n == 0)
        return SANDBOX_OK;
    run->deny_paths = calloc(n, sizeof *run->deny_paths);
    if (!run->deny_paths)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while protecting paths");
    for (i = 0; i < n; i++) {
        const char *path = run->plan.denies[i].path;
        DWORD rc;
        run->deny_paths[i] = utf8_to_wide(path);
        if (!run->deny_paths[i])
            return sbx_fail(err, SANDBOX_E_PATH, 0, "the path '%s' is not valid UTF-8", path);
        rc = injected(run, "deny") ? ERROR_ACCESS_DENIED
                                   : set_deny(run, run->deny_paths[i], &run->plan.denies[i]);
        if (rc != ERROR_SUCCESS) {
            /* Fail closed: a secret we could not deny must not be readable
             * by a command that was told it is protected. A file that
             * vanished since the plan is refused too (it may have moved). */
            win_fail(err, rc == ERROR_FILE_NOT_FOUND || rc == ERROR_PATH_NOT_FOUND ? SANDBOX_E_PATH
                                                                                 : SANDBOX_E_SYSTEM,
                     rc, "denying the sandbox access to a protected path");
            sbx_warn(err->message, sizeof err->message, "path: %s", path);
            return err->code;
        }
        run->n_denied = i + 1;
        trace(run, "deny");
    }
    return SANDBOX_OK;
}

static void free_ni_list(DWORD n, PSID_AND_ATTRIBUTES list)
{
    DWORD i;
    if (!list)
        return;
    for (i = 0; i < n; i++)
        HeapFree(GetProcessHeap(), 0, list[i].Sid);
    HeapFree(GetProcessHeap(), 0, list);
}

/* Rewrite the loopback-exempt list with our SID added or removed. The list is
 * machine-wide and read-modify-write, so only our own SID is ever touched. */
static int loopback_update(struct sbx_win_run *run, int add)
{
    DWORD n = 0, i, m = 0;
    PSID_AND_ATTRIBUTES list = NULL, next;
    int ok;
    if (!run->api.ni_get || !run->api.ni_set || run->api.ni_get(&n, &list) != ERROR_SUCCESS)
        return 0;
    next = calloc((size_t)n + 1, sizeof *next);
    if (!next) {
        free_ni_list(n, list);
        return 0;
    }
    for (i = 0; i < n; i++)
        if (!EqualSid(list[i].Sid, run->container_sid))
            next[m++] = list[i];
    if (add) {
        next[m].Sid = run->container_sid;
        next[m++].Attributes = 0;
    }
    ok = run->api.ni_set(m, next) == ERROR_SUCCESS;
    free(next);
    free_ni_list(n, list);
    return ok;
}

static void step_loopback(struct sbx_win_run *run)
{
    /* Best effort, deliberately not fatal: without the exemption loopback is
     * blocked too, which is stricter than asked, never looser. Changing the
     * list usually needs an administrator. */
    if (!run->plan.loopback_exempt || injected(run, "loopback"))
        return;
    if (loopback_update(run, 1)) {
        run->loopback_added = 1;
        trace(run, "loopback");
    }
}

void sbx_win_run_undo(struct sbx_win_run *run)
{
    size_t i;
    /* Reverse order of the steps. */
    if (run->process) {
        CloseHandle(run->process);
        run->process = NULL;
    }
    if (run->loopback_added && loopback_update(run, 0)) {
        run->loopback_added = 0;
        trace(run, "unloopback");
    }
    /* Denies before grants: the reverse of the order they were made in. */
    while (run->n_denied > 0) {
        run->n_denied--;
        remove_denies(run, run->deny_paths[run->n_denied]);
        trace(run, "undeny");
    }
    if (run->deny_paths) {
        for (i = 0; i < run->plan.n_denies; i++)
            free(run->deny_paths[i]);
        free(run->deny_paths);
        run->deny_paths = NULL;
    }
    while (run->n_granted > 0) {
        run->n_granted--;
        set_grant(run, run->grant_paths[run->n_granted], 0);
        trace(run, "revoke");
    }
    if (run->grant_paths) {
        for (i = 0; i < run->plan.n_grants; i++)
            free(run->grant_paths[i]);
        free(run->grant_paths);
        run->grant_paths = NULL;
    }
    for (i = 0; i < SBX_WIN_MAX_CAPS; i++) {
        if (run->cap_sids[i])
            LocalFree(run->cap_sids[i]);
        run->cap_sids[i] = NULL;
    }
    if (run->container_sid) {
        if (run->container_sid_local)
            LocalFree(run->container_sid);
        else
            FreeSid(run->container_sid);
        run->container_sid = NULL;
    }
    if (run->profile_created) {
        run->api.delete_profile(run->profile);
        run->profile_created = 0;
        trace(run, "unprofile");
    }
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
    DWORD n_list = 0, n_attrs = 0, flags = EXTENDED_STARTUPINFO_PRESENT;
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
    if (rc == SANDBOX_OK) {
        trace(run, "attributes");
        memset(&pi, 0, sizeof pi);
        ok = !injected(run, "process") &&
             CreateProcessW(NULL, cmd, NULL, NULL, n_list ? TRUE : FALSE, flags, env, cwd,
                            &si.StartupInfo, &pi);
        if (!ok) {
            DWORD e = GetLastError();
            /* The command itself could not be started: an exec failure,
             * with the Windows error code kept in sys_errno. */
            rc = win_fail(err, SANDBOX_E_EXEC, e, "CreateProcessW");
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
    /* The order matters for fail-closed: the container exists and holds its
     * grants before the process does, and the process is created last, so an
     * error at any step leaves nothing running. */
    if (run->plan.contained) {
        rc = step_profile(run, err);
        if (rc == SANDBOX_OK)
            rc = step_capabilities(run, err);
        if (rc == SANDBOX_OK)
            rc = step_grants(run, err);
        if (rc == SANDBOX_OK)
            rc = step_denies(run, err);
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
    sbx_win_run_undo(run);
    free(run);
    process->backend = NULL;
    process->handle = NULL;
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
                 "privateNetworkClientServer capabilities; loopback exempted when permitted; "
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
