/* Live AppContainer enforcement: needs real Windows 10 or later. Under wine
 * (which enforces nothing) or without AppContainer support it skips with 77;
 * it never passes there.
 *
 * The test copies itself into the project directory (an AppContainer can
 * only run what it can read) and re-runs as a child that tries one thing:
 *   live_enforce --child write PATH      exit 0, or the Windows error
 *   live_enforce --child read PATH       exit 0, or the Windows error
 *   live_enforce --child connect IP PORT exit 0, or the WSA error
 *   live_enforce --child spawn-late PATH start "late PATH", then sleep 30 s
 *   live_enforce --child late PATH       sleep 3 s, then create PATH
 * argv[1] is the launcher (ctest passes it). */
#include "harness.h"
#include "windows/win.h"

#include <aclapi.h>
#include <sddl.h>
#include <winsock2.h>

static char g_exe[MAX_PATH];
static char g_base[MAX_PATH], g_proj[MAX_PATH], g_tmp[MAX_PATH], g_out[MAX_PATH],
    g_added[MAX_PATH], g_child[MAX_PATH];
/* A public address that answers on TCP 443; only used when this machine
 * itself can reach it unconfined. */
#define REMOTE_IP "1.1.1.1"
#define REMOTE_PORT 443

static int child(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[2], "write") == 0) {
        HANDLE f = CreateFileA(argv[3], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
        if (f == INVALID_HANDLE_VALUE)
            return (int)GetLastError();
        CloseHandle(f);
        DeleteFileA(argv[3]);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[2], "read") == 0) {
        HANDLE f = CreateFileA(argv[3], GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, 0, NULL);
        if (f == INVALID_HANDLE_VALUE)
            return (int)GetLastError();
        CloseHandle(f);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[2], "spawn-late") == 0) {
        char line[3 * MAX_PATH], self[MAX_PATH];
        STARTUPINFOA si;
        PROCESS_INFORMATION pi;
        GetModuleFileNameA(NULL, self, sizeof self);
        memset(&si, 0, sizeof si);
        si.cb = sizeof si;
        snprintf(line, sizeof line, "\"%s\" --child late \"%s\"", self, argv[3]);
        if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
            return (int)GetLastError();
        CloseHandle(pi.hThread);
        CloseHandle(pi.hProcess);
        Sleep(30000);
        return 0;
    }
    if (argc >= 4 && strcmp(argv[2], "late") == 0) {
        HANDLE f;
        Sleep(3000);
        f = CreateFileA(argv[3], GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
        if (f == INVALID_HANDLE_VALUE)
            return (int)GetLastError();
        CloseHandle(f);
        return 0;
    }
    if (argc >= 5 && strcmp(argv[2], "connect") == 0) {
        WSADATA wsa;
        struct sockaddr_in sa;
        SOCKET s;
        int rc = 0;
        if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0)
            return 1;
        s = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
        if (s == INVALID_SOCKET)
            return WSAGetLastError();
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_port = htons((unsigned short)atoi(argv[4]));
        sa.sin_addr.s_addr = inet_addr(argv[3]);
        if (connect(s, (struct sockaddr *)&sa, sizeof sa) != 0)
            rc = WSAGetLastError();
        closesocket(s);
        WSACleanup();
        return rc;
    }
    return 2;
}

static int run_child(sandbox_policy *p, const char *op, const char *a, const char *b)
{
    const char *argv[] = {g_child, "--child", op, a, b, NULL};
    sandbox_process proc;
    sandbox_error err;
    int status = -1;
    if (sandbox_spawn(p, argv, NULL, NULL, &proc, &err) != SANDBOX_OK) {
        printf("    spawn failed: %s\n", err.message);
        return -1;
    }
    if (sandbox_wait(&proc, &status, &err) != SANDBOX_OK) {
        printf("    wait failed: %s\n", err.message);
        return -1;
    }
    return status;
}

static sandbox_policy *policy(int net, int fs)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_policy_set_network(p, net);
    sandbox_policy_set_filesystem(p, fs);
    sandbox_policy_set_project_root(p, g_proj);
    sandbox_policy_set_working_dir(p, g_proj);
    sandbox_policy_set_temp_dir(p, g_tmp);
    sandbox_policy_add_writable_dir(p, g_added);
    return p;
}

static int can_reach_internet(void)
{
    char *argv[] = {g_exe, "--child", "connect", REMOTE_IP, "443", NULL};
    return child(5, argv) == 0;
}

/* AppContainer ACEs (S-1-15-2-...) explicitly on `path`. */
static int container_aces(const char *path)
{
    PACL dacl = NULL;
    PSECURITY_DESCRIPTOR sd = NULL;
    DWORD i;
    int n = 0;
    if (GetNamedSecurityInfoA(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl,
                              NULL, &sd) != ERROR_SUCCESS || !dacl)
        return -1;
    for (i = 0; i < dacl->AceCount; i++) {
        ACCESS_ALLOWED_ACE *ace;
        LPSTR s = NULL;
        if (!GetAce(dacl, i, (void **)&ace) || ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE ||
            (ace->Header.AceFlags & INHERITED_ACE))
            continue;
        if (ConvertSidToStringSidA((PSID)&ace->SidStart, &s)) {
            if (strncmp(s, "S-1-15-2-", 9) == 0 && strlen(s) > 20)
                n++;
            LocalFree(s);
        }
    }
    LocalFree(sd);
    return n;
}

static void test_confined_writes_only_beneath_the_roots(struct sbx_harness *h)
{
    char inside[MAX_PATH], outside[MAX_PATH];
    char *direct[] = {g_exe, "--child", "write", outside, NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    snprintf(inside, sizeof inside, "%s\\inside.txt", g_proj);
    snprintf(outside, sizeof outside, "%s\\outside.txt", g_out);
    CHECK_INT(h, child(4, direct), 0); /* the probe can succeed unconfined */
    CHECK_INT(h, run_child(p, "write", inside, NULL), 0);
    CHECK_INT(h, run_child(p, "write", outside, NULL), ERROR_ACCESS_DENIED);
    sandbox_policy_free(p);
}

static void test_no_network_alone_is_stricter_added_dir_not_writable(struct sbx_harness *h)
{
    char inside[MAX_PATH], added[MAX_PATH];
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED);
    snprintf(inside, sizeof inside, "%s\\inside.txt", g_proj);
    snprintf(added, sizeof added, "%s\\added.txt", g_added);
    CHECK_INT(h, run_child(p, "write", inside, NULL), 0);
    CHECK_INT(h, run_child(p, "write", added, NULL), ERROR_ACCESS_DENIED);
    sandbox_policy_free(p);
}

static void test_network_deny_refuses_internet_connect(struct sbx_harness *h)
{
    sandbox_policy *p;
    if (!can_reach_internet()) {
        printf("    skipped: this machine cannot reach %s:%d unconfined\n", REMOTE_IP, REMOTE_PORT);
        return;
    }
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    CHECK_INT(h, run_child(p, "connect", REMOTE_IP, "443"), WSAEACCES);
    sandbox_policy_free(p);
}

static void test_confine_fs_alone_grants_the_network_back(struct sbx_harness *h)
{
    sandbox_policy *p;
    if (!can_reach_internet()) {
        printf("    skipped: this machine cannot reach %s:%d unconfined\n", REMOTE_IP, REMOTE_PORT);
        return;
    }
    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED);
    CHECK_INT(h, run_child(p, "connect", REMOTE_IP, "443"), 0);
    sandbox_policy_free(p);
}

static void test_wait_revokes_the_grants(struct sbx_harness *h)
{
    char inside[MAX_PATH];
    int before = container_aces(g_proj);
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    snprintf(inside, sizeof inside, "%s\\inside.txt", g_proj);
    CHECK_INT(h, run_child(p, "write", inside, NULL), 0);
    CHECK_INT(h, container_aces(g_proj), before);
    CHECK_INT(h, container_aces(g_tmp), 0);
    sandbox_policy_free(p);
}


/* ---- issue 22: tools, the job, nothing left behind, parallel runs, junctions ---- */

static const char *g_launcher;

/* Run a command line unconfined, wait, return its exit code (-1: not started). */
static int run_plain(const char *line_in)
{
    char line[4096];
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    DWORD code = (DWORD)-1;
    snprintf(line, sizeof line, "%s", line_in);
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, CREATE_NO_WINDOW, NULL, NULL, &si, &pi))
        return -1;
    WaitForSingleObject(pi.hProcess, INFINITE);
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    return (int)code;
}

static int run_argv(sandbox_policy *p, const char *const argv[], char *why, size_t size)
{
    sandbox_process proc;
    sandbox_error err;
    int status = -1;
    why[0] = '\0';
    if (sandbox_spawn(p, argv, NULL, NULL, &proc, &err) != SANDBOX_OK) {
        snprintf(why, size, "%s", err.message);
        return -1;
    }
    if (sandbox_wait(&proc, &status, &err) != SANDBOX_OK) {
        snprintf(why, size, "%s", err.message);
        return -1;
    }
    return status;
}

static void test_everyday_tools_start_in_the_container(struct sbx_harness *h)
{
    static const char *const cmd[] = {"cmd", "/c", "exit 0", NULL};
    static const char *const ps[] = {"powershell", "-NoProfile", "-Command", "exit 0", NULL};
    static const char *const git[] = {"git", "status", NULL};
    static const char *const node[] = {"node", "-e", "0", NULL};
    static const char *const py[] = {"python", "-c", "0", NULL};
    const char *const *tools[] = {cmd, ps, git, node, py};
    char line[MAX_PATH + 64], why[600];
    size_t i;
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    snprintf(line, sizeof line, "git -C \"%s\" init -q", g_proj);
    run_plain(line); /* for `git status`; a missing git is reported below */
    for (i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        int st = run_argv(p, tools[i], why, sizeof why);
        if (st == -1 && strstr(why, "was not found")) {
            printf("    %s: not installed here, skipped\n", tools[i][0]);
            continue;
        }
        if (st == -1 && (strstr(why, "App Execution Alias") || strstr(why, "user's profile"))) {
            /* Expected to fail; the error must say why (issue 22). */
            printf("    %s: refused with the cause named: %s\n", tools[i][0], why);
            continue;
        }
        if (st != 0)
            printf("    %s: status %d %s\n", tools[i][0], st, why);
        CHECK_INT(h, st, 0);
    }
    sandbox_policy_free(p);
}

static int exists(const char *path)
{
    return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

static void test_grandchild_dies_with_a_killed_launcher(struct sbx_harness *h)
{
    char marker[MAX_PATH], line[4 * MAX_PATH];
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    if (!g_launcher) {
        printf("    no launcher path given\n");
        return;
    }
    snprintf(marker, sizeof marker, "%s\\late.txt", g_proj);
    DeleteFileA(marker);
    /* The control: unconfined, the grandchild outlives a killed parent. */
    snprintf(line, sizeof line, "\"%s\" --child spawn-late \"%s\"", g_child, marker);
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    CHECK(h, CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    Sleep(1000);
    TerminateProcess(pi.hProcess, 1);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    Sleep(4000);
    CHECK(h, exists(marker));
    DeleteFileA(marker);
    /* Through the launcher: killing it closes the job, which ends the tree. */
    snprintf(line, sizeof line,
             "\"%s\" --sandbox --project \"%s\" --workdir \"%s\" -- \"%s\" --child spawn-late \"%s\"",
             g_launcher, g_proj, g_proj, g_child, marker);
    CHECK(h, CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi));
    Sleep(1500);
    TerminateProcess(pi.hProcess, 1);
    CloseHandle(pi.hThread);
    CloseHandle(pi.hProcess);
    Sleep(4000);
    CHECK(h, !exists(marker));
}

/* icacls /save of the whole test tree, into `out`. */
static int save_acls(const char *out)
{
    char line[3 * MAX_PATH];
    snprintf(line, sizeof line, "icacls \"%s\" /save \"%s\" /t /q", g_base, out);
    return run_plain(line);
}

static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb, ca, cb;
    while (same) {
        ca = fgetc(fa);
        cb = fgetc(fb);
        if (ca != cb)
            same = 0;
        if (ca == EOF || cb == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static int count_matching(const char *pattern)
{
    WIN32_FIND_DATAA fd;
    HANDLE f = FindFirstFileA(pattern, &fd);
    int n = 0;
    if (f == INVALID_HANDLE_VALUE)
        return 0;
    do
        n++;
    while (FindNextFileA(f, &fd));
    FindClose(f);
    return n;
}

static void test_nothing_is_left_behind(struct sbx_harness *h)
{
    char before[MAX_PATH], after[MAX_PATH], env[MAX_PATH], git[MAX_PATH], inside[MAX_PATH];
    char local[MAX_PATH], packages[MAX_PATH + 32], journals[MAX_PATH + 32];
    int n_packages, n_journals;
    HANDLE f;
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    GetTempPathA(sizeof before, before);
    strcpy(after, before);
    strcat(before, "sbx-acl-before.txt");
    strcat(after, "sbx-acl-after.txt");
    snprintf(env, sizeof env, "%s\\.env", g_proj);
    snprintf(git, sizeof git, "%s\\.git", g_proj);
    snprintf(inside, sizeof inside, "%s\\inside.txt", g_proj);
    f = CreateFileA(env, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (f != INVALID_HANDLE_VALUE)
        CloseHandle(f);
    CreateDirectoryA(git, NULL);
    GetEnvironmentVariableA("LOCALAPPDATA", local, sizeof local);
    snprintf(packages, sizeof packages, "%s\\Packages\\libsandbox.*", local);
    snprintf(journals, sizeof journals, "%s\\libsandbox\\runs\\*.journal", local);
    n_packages = count_matching(packages);
    n_journals = count_matching(journals);
    CHECK_INT(h, save_acls(before), 0);
    sandbox_policy_protect_defaults(p);
    CHECK_INT(h, run_child(p, "read", env, NULL), ERROR_ACCESS_DENIED); /* the deny held */
    CHECK_INT(h, run_child(p, "write", inside, NULL), 0);
    CHECK_INT(h, save_acls(after), 0);
    /* icacls /save before and after: identical, so no ACE of the runs is left
     * anywhere in the tree (explicit or inherited). */
    CHECK(h, same_file(before, after));
    /* No profile (each lives in %LOCALAPPDATA%\Packages\<name>) and no journal. */
    CHECK_INT(h, count_matching(packages), n_packages);
    CHECK_INT(h, count_matching(journals), n_journals);
    DeleteFileA(before);
    DeleteFileA(after);
    DeleteFileA(env);
    RemoveDirectoryA(git);
    sandbox_policy_free(p);
}

/* Review of issue 22, finding 1: the journal folder has a protected DACL
 * (the user and SYSTEM only), so no grant's propagation reaches it and no
 * container can plant a journal; a planted one (a file whose name is not
 * its profile's) is deleted unread by the next run, and the file it names
 * keeps its DACL. */
static void test_journal_folder_is_protected_and_a_planted_journal_is_refused(
    struct sbx_harness *h)
{
    char local[MAX_PATH], runs[MAX_PATH + 32], planted[MAX_PATH + 64], text[2 * MAX_PATH];
    char env[MAX_PATH], before[MAX_PATH], after[MAX_PATH];
    PSECURITY_DESCRIPTOR sd = NULL;
    PACL dacl = NULL;
    SECURITY_DESCRIPTOR_CONTROL ctl = 0;
    DWORD rev = 0, n, attrs;
    HANDLE f;
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    GetEnvironmentVariableA("LOCALAPPDATA", local, sizeof local);
    snprintf(runs, sizeof runs, "%s\\libsandbox\\runs", local);
    snprintf(env, sizeof env, "%s\\.env", g_proj);
    f = CreateFileA(env, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (f != INVALID_HANDLE_VALUE)
        CloseHandle(f);
    CHECK_INT(h, run_child(p, "write", env, NULL), 0); /* creates the folder */
    attrs = GetFileAttributesA(runs);
    CHECK(h, attrs != INVALID_FILE_ATTRIBUTES && !(attrs & FILE_ATTRIBUTE_REPARSE_POINT));
    CHECK_INT(h, (int)GetNamedSecurityInfoA(runs, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
                                            NULL, &dacl, NULL, &sd),
              0);
    CHECK(h, sd && GetSecurityDescriptorControl(sd, &ctl, &rev) && (ctl & SE_DACL_PROTECTED));
    if (dacl) {
        DWORD i;
        for (i = 0; i < dacl->AceCount; i++) {
            ACCESS_ALLOWED_ACE *ace;
            LPSTR s = NULL;
            if (GetAce(dacl, i, (void **)&ace) && ConvertSidToStringSidA((PSID)&ace->SidStart, &s)) {
                CHECK(h, strncmp(s, "S-1-15-", 7) != 0); /* no container can open it */
                LocalFree(s);
            }
        }
    }
    if (sd)
        LocalFree(sd);
    /* Plant one (as the user: a container cannot) and check it is refused. */
    snprintf(planted, sizeof planted, "%s\\libsandbox.review-planted.journal", runs);
    snprintf(text, sizeof text,
             "sbx-journal 1\nprofile libsandbox.someone-else\nsid S-1-15-2-1-2-3-4-5-6-7\n"
             "deny %s\ndeny \\\\127.0.0.1\\c$\\sbx-review\n",
             env);
    f = CreateFileA(planted, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    CHECK(h, f != INVALID_HANDLE_VALUE);
    WriteFile(f, text, (DWORD)strlen(text), &n, NULL);
    CloseHandle(f);
    GetTempPathA(sizeof before, before);
    strcpy(after, before);
    strcat(before, "sbx-review-before.txt");
    strcat(after, "sbx-review-after.txt");
    CHECK_INT(h, save_acls(before), 0);
    CHECK_INT(h, run_child(p, "write", env, NULL), 0);
    CHECK(h, !exists(planted));
    CHECK_INT(h, save_acls(after), 0);
    CHECK(h, same_file(before, after));
    DeleteFileA(before);
    DeleteFileA(after);
    DeleteFileA(env);
    sandbox_policy_free(p);
}

/* Finding 8: while a run lives, its ACL lock is named for the user's SID;
 * the old machine-wide name is not used. */
static void test_acl_lock_is_named_for_the_user(struct sbx_harness *h)
{
    char out[MAX_PATH];
    const char *argv[] = {g_child, "--child", "write", out, NULL, NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    sandbox_process proc;
    sandbox_error err;
    HANDLE token = NULL, m;
    BYTE buf[256];
    DWORD n = 0;
    LPSTR user = NULL;
    char name[256];
    int status = -1;
    snprintf(out, sizeof out, "%s\\lock-probe.txt", g_proj);
    OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token);
    CHECK(h, token && GetTokenInformation(token, TokenUser, buf, sizeof buf, &n) &&
                 ConvertSidToStringSidA(((TOKEN_USER *)buf)->User.Sid, &user));
    if (token)
        CloseHandle(token);
    if (!user) {
        sandbox_policy_free(p);
        return;
    }
    snprintf(name, sizeof name, "Global\\libsandbox-acl-%s", user);
    LocalFree(user);
    CHECK_INT(h, sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
    m = OpenMutexA(SYNCHRONIZE, FALSE, name);
    CHECK(h, m != NULL);
    if (m)
        CloseHandle(m);
    m = OpenMutexA(SYNCHRONIZE, FALSE, "Global\\libsandbox-acl");
    CHECK(h, m == NULL);
    if (m)
        CloseHandle(m);
    CHECK_INT(h, sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    sandbox_policy_free(p);
}

/* Finding 3: a grant that is the home by its 8.3 name still gets the home
 * secrets denied. A stand-in home under the test folder (USERPROFILE),
 * granted by its short name; skipped where the volume makes no 8.3 names. */
static void test_home_granted_by_its_short_name_keeps_npmrc_denied(struct sbx_harness *h)
{
    char home[MAX_PATH], shorthome[MAX_PATH], npmrc[MAX_PATH], old[MAX_PATH];
    DWORD had;
    HANDLE f;
    sandbox_policy *p;
    snprintf(home, sizeof home, "%s\\a long home name", g_base);
    CreateDirectoryA(home, NULL);
    snprintf(npmrc, sizeof npmrc, "%s\\.npmrc", home);
    f = CreateFileA(npmrc, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (f != INVALID_HANDLE_VALUE)
        CloseHandle(f);
    if (!GetShortPathNameA(home, shorthome, sizeof shorthome) ||
        _stricmp(shorthome, home) == 0) {
        printf("    no 8.3 name on this volume: skipped\n");
        DeleteFileA(npmrc);
        RemoveDirectoryA(home);
        return;
    }
    had = GetEnvironmentVariableA("USERPROFILE", old, sizeof old);
    SetEnvironmentVariableA("USERPROFILE", home);
    p = sandbox_policy_new();
    sandbox_policy_set_network(p, SANDBOX_NETWORK_DENY);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, shorthome);
    sandbox_policy_set_working_dir(p, shorthome);
    sandbox_policy_set_temp_dir(p, g_tmp);
    sandbox_policy_protect_defaults(p);
    CHECK_INT(h, run_child(p, "read", npmrc, NULL), ERROR_ACCESS_DENIED);
    SetEnvironmentVariableA("USERPROFILE", had ? old : NULL);
    sandbox_policy_free(p);
    DeleteFileA(npmrc);
    RemoveDirectoryA(home);
}

struct parallel {
    char env[MAX_PATH];
    int status;
};

static DWORD WINAPI one_protected_run(void *arg)
{
    struct parallel *r = arg;
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    sandbox_policy_protect_defaults(p);
    r->status = run_child(p, "read", r->env, NULL);
    sandbox_policy_free(p);
    return 0;
}

static void test_twenty_parallel_runs_keep_every_deny(struct sbx_harness *h)
{
    struct parallel runs[20];
    HANDLE threads[20];
    char env[MAX_PATH];
    int i, denied = 0;
    HANDLE f;
    snprintf(env, sizeof env, "%s\\.env", g_proj);
    f = CreateFileA(env, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (f != INVALID_HANDLE_VALUE)
        CloseHandle(f);
    /* The control: unconfined, the file reads. */
    {
        char *direct[] = {g_exe, "--child", "read", env, NULL};
        CHECK_INT(h, child(4, direct), 0);
    }
    for (i = 0; i < 20; i++) {
        strcpy(runs[i].env, env);
        runs[i].status = -2;
        threads[i] = CreateThread(NULL, 0, one_protected_run, &runs[i], 0, NULL);
    }
    WaitForMultipleObjects(20, threads, TRUE, INFINITE);
    for (i = 0; i < 20; i++) {
        CloseHandle(threads[i]);
        if (runs[i].status == ERROR_ACCESS_DENIED)
            denied++;
        else
            printf("    run %d: status %d\n", i, runs[i].status);
    }
    /* Each run's grant propagation and the others' denies interleave; the
     * ACL lock keeps every deny in force for its run. */
    CHECK_INT(h, denied, 20);
    CHECK_INT(h, container_aces(g_proj), 0);
    DeleteFileA(env);
}

static void test_junction_to_an_outside_folder_is_not_granted(struct sbx_harness *h)
{
    char link[MAX_PATH], line[3 * MAX_PATH], through[MAX_PATH];
    char *direct[] = {g_exe, "--child", "write", through, NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    snprintf(link, sizeof link, "%s\\outlink", g_proj);
    snprintf(through, sizeof through, "%s\\x.txt", link);
    snprintf(line, sizeof line, "cmd /c mklink /J \"%s\" \"%s\"", link, g_out);
    if (run_plain(line) != 0) {
        printf("    skipped: mklink /J failed\n");
        sandbox_policy_free(p);
        return;
    }
    CHECK_INT(h, child(4, direct), 0); /* the junction works unconfined */
    CHECK_INT(h, run_child(p, "write", through, NULL), ERROR_ACCESS_DENIED);
    CHECK_INT(h, container_aces(g_out), 0);
    RemoveDirectoryA(link); /* removes the junction, not its target */
    sandbox_policy_free(p);
}

static void test_temp_entry_whose_dacl_cannot_be_changed_does_not_refuse_the_run(
    struct sbx_harness *h)
{
    char locked[MAX_PATH], line[2 * MAX_PATH], inside[MAX_PATH], why[600];
    const char *argv[] = {g_child, "--child", "read", locked, NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    HANDLE f;
    int st;
    snprintf(locked, sizeof locked, "%s\\.env.locked", g_tmp);
    snprintf(inside, sizeof inside, "%s\\inside.txt", g_proj);
    f = CreateFileA(locked, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (f != INVALID_HANDLE_VALUE)
        CloseHandle(f);
    /* OWNER RIGHTS with read only: the owner loses its implicit WRITE_DAC,
     * as for a file another account (an elevated installer) left in %TEMP%. */
    snprintf(line, sizeof line, "icacls \"%s\" /grant *S-1-3-4:(R)", locked);
    if (run_plain(line) != 0) {
        printf("    skipped: icacls could not set OWNER RIGHTS\n");
        sandbox_policy_free(p);
        return;
    }
    sandbox_policy_protect_defaults(p);
    /* Neither the grant's propagation nor the deny can change it: the run
     * still starts, and the container cannot open the file either. */
    st = run_argv(p, argv, why, sizeof why);
    if (st == -1)
        printf("    refused: %s\n", why);
    CHECK_INT(h, st, ERROR_ACCESS_DENIED);
    CHECK_INT(h, run_child(p, "write", inside, NULL), 0);
    DeleteFileA(locked); /* FILE_DELETE_CHILD on the temp root */
    sandbox_policy_free(p);
}

int main(int argc, char **argv)
{
    struct sbx_harness h = {0, 0, 0};
    sandbox_report rep;
    char t[MAX_PATH];
    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return child(argc, argv);
    g_launcher = argc > 1 ? argv[1] : NULL;
    if (sbx_win_is_wine())
        SBX_SKIP("wine does not enforce AppContainers; run this on real Windows");
    sandbox_self_test(&rep);
    if (!rep.network.available)
        SBX_SKIP(rep.network.detail);

    GetModuleFileNameA(NULL, g_exe, sizeof g_exe);
    GetTempPathA(sizeof t, t);
    snprintf(g_base, sizeof g_base, "%ssbx-live-%lu", t, (unsigned long)GetCurrentProcessId());
    snprintf(g_proj, sizeof g_proj, "%s\\proj", g_base);
    snprintf(g_tmp, sizeof g_tmp, "%s\\tmp", g_base);
    snprintf(g_out, sizeof g_out, "%s\\outside", g_base);
    snprintf(g_added, sizeof g_added, "%s\\added", g_base);
    snprintf(g_child, sizeof g_child, "%s\\live_child.exe", g_proj);
    CreateDirectoryA(g_base, NULL);
    CreateDirectoryA(g_proj, NULL);
    CreateDirectoryA(g_tmp, NULL);
    CreateDirectoryA(g_out, NULL);
    CreateDirectoryA(g_added, NULL);
    if (!CopyFileA(g_exe, g_child, FALSE))
        SBX_SKIP("cannot copy the test program into the project directory");

    RUN(&h, test_confined_writes_only_beneath_the_roots);
    RUN(&h, test_no_network_alone_is_stricter_added_dir_not_writable);
    RUN(&h, test_network_deny_refuses_internet_connect);
    RUN(&h, test_confine_fs_alone_grants_the_network_back);
    RUN(&h, test_wait_revokes_the_grants);
    RUN(&h, test_everyday_tools_start_in_the_container);
    RUN(&h, test_grandchild_dies_with_a_killed_launcher);
    RUN(&h, test_nothing_is_left_behind);
    RUN(&h, test_twenty_parallel_runs_keep_every_deny);
    RUN(&h, test_junction_to_an_outside_folder_is_not_granted);
    RUN(&h, test_temp_entry_whose_dacl_cannot_be_changed_does_not_refuse_the_run);
    RUN(&h, test_journal_folder_is_protected_and_a_planted_journal_is_refused);
    RUN(&h, test_acl_lock_is_named_for_the_user);
    RUN(&h, test_home_granted_by_its_short_name_keeps_npmrc_denied);

    DeleteFileA(g_child);
    {
        char late[MAX_PATH];
        snprintf(late, sizeof late, "%s\\late.txt", g_proj);
        DeleteFileA(late);
    }
    RemoveDirectoryA(g_proj);
    RemoveDirectoryA(g_tmp);
    RemoveDirectoryA(g_out);
    RemoveDirectoryA(g_added);
    RemoveDirectoryA(g_base);
    return sbx_harness_finish(&h);
}
