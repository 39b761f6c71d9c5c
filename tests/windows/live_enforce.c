/* Live AppContainer enforcement: needs real Windows 10 or later. Under wine
 * (which enforces nothing) or without AppContainer support it skips with 77;
 * it never passes there.
 *
 * The test copies itself into the project directory (an AppContainer can
 * only run what it can read) and re-runs as a child that tries one thing:
 *   live_enforce --child write PATH      exit 0, or the Windows error
 *   live_enforce --child connect IP PORT exit 0, or the WSA error */
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

int main(int argc, char **argv)
{
    struct sbx_harness h = {0, 0, 0};
    sandbox_report rep;
    char t[MAX_PATH];
    if (argc >= 3 && strcmp(argv[1], "--child") == 0)
        return child(argc, argv);
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

    DeleteFileA(g_child);
    RemoveDirectoryA(g_proj);
    RemoveDirectoryA(g_tmp);
    RemoveDirectoryA(g_out);
    RemoveDirectoryA(g_added);
    RemoveDirectoryA(g_base);
    return sbx_harness_finish(&h);
}
