/* Windows roots are judged by the final path of their handle (issue 16): a
 * directory link to the profile is the profile, however it is spelled. Runs
 * under wine; skips where directory links cannot be made. */
#include "harness.h"
#include "internal.h"

#include <windows.h>

static char base[MAX_PATH], home[MAX_PATH], proj[MAX_PATH], link_[MAX_PATH];

static int resolve_project(const char *project)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_error err;
    sbx_resolved r;
    int rc;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, project);
    sandbox_policy_set_working_dir(p, project);
    sandbox_policy_set_temp_dir(p, proj);
    rc = sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err);
    if (rc == SANDBOX_OK)
        sbx_resolved_free(&r);
    else
        printf("    refused: %s\n", err.message);
    sandbox_policy_free(p);
    return rc;
}

static void test_a_project_inside_the_profile_is_accepted(struct sbx_harness *h)
{
    CHECK_INT(h, resolve_project(proj), SANDBOX_OK);
}

static void test_the_profile_by_its_spellings_is_refused(struct sbx_harness *h)
{
    char s[MAX_PATH + 8];
    CHECK_INT(h, resolve_project(home), SANDBOX_E_PATH);
    snprintf(s, sizeof s, "%s\\.", home);
    CHECK_INT(h, resolve_project(s), SANDBOX_E_PATH);
    snprintf(s, sizeof s, "\\\\?\\%s", home);
    CHECK_INT(h, resolve_project(s), SANDBOX_E_PATH);
}

/* 1 when a file created through the link appears in the profile: the
 * route is real (wine may "create" links that lead nowhere). */
static int link_reaches_home(void)
{
    char probe[MAX_PATH + 16];
    HANDLE f;
    int ok;
    snprintf(probe, sizeof probe, "%s\\probe.txt", link_);
    f = CreateFileA(probe, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (f == INVALID_HANDLE_VALUE)
        return 0;
    CloseHandle(f);
    snprintf(probe, sizeof probe, "%s\\probe.txt", home);
    ok = GetFileAttributesA(probe) != INVALID_FILE_ATTRIBUTES;
    DeleteFileA(probe);
    return ok;
}

static void test_a_directory_link_to_the_profile_is_the_profile(struct sbx_harness *h)
{
    CHECK_INT(h, resolve_project(link_), SANDBOX_E_PATH);
}

int main(void)
{
    struct sbx_harness h = {0, 0, 0};
    char t[MAX_PATH];
    GetTempPathA(sizeof t, t);
    snprintf(base, sizeof base, "%ssbx-roots-%lu", t, (unsigned long)GetCurrentProcessId());
    snprintf(home, sizeof home, "%s\\home", base);
    snprintf(proj, sizeof proj, "%s\\proj", home);
    snprintf(link_, sizeof link_, "%s\\link", base);
    CreateDirectoryA(base, NULL);
    CreateDirectoryA(home, NULL);
    CreateDirectoryA(proj, NULL);
    _putenv_s("USERPROFILE", home);
    RUN(&h, test_a_project_inside_the_profile_is_accepted);
    RUN(&h, test_the_profile_by_its_spellings_is_refused);
    if (CreateSymbolicLinkA(link_, home, SYMBOLIC_LINK_FLAG_DIRECTORY | 0x2 /* unprivileged */) &&
        link_reaches_home())
        RUN(&h, test_a_directory_link_to_the_profile_is_the_profile);
    else
        printf("skip - no working directory link to the profile can be made here\n");
    RemoveDirectoryA(link_);
    RemoveDirectoryA(proj);
    RemoveDirectoryA(home);
    RemoveDirectoryA(base);
    return sbx_harness_finish(&h);
}
