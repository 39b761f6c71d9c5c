/* Fail-closed behaviour of the AppContainer backend, checkable under wine:
 * an AppContainer step that fails (injected, or refused by wine) returns an
 * error, undoes every grant already made, and starts no process. Built
 * against the hooks-enabled test copy of the library. */
#include "harness.h"
#include "windows/win.h"

#include <io.h>

struct dirs {
    char base[MAX_PATH], proj[MAX_PATH], extra[MAX_PATH], tmp[MAX_PATH], marker[MAX_PATH];
};

static void make_dirs(struct dirs *d, const char *tag)
{
    char t[MAX_PATH];
    GetTempPathA(sizeof t, t);
    snprintf(d->base, sizeof d->base, "%ssbx-failclosed-%lu-%s", t,
             (unsigned long)GetCurrentProcessId(), tag);
    snprintf(d->proj, sizeof d->proj, "%s\\proj", d->base);
    snprintf(d->extra, sizeof d->extra, "%s\\extra", d->base);
    snprintf(d->tmp, sizeof d->tmp, "%s\\tmp", d->base);
    snprintf(d->marker, sizeof d->marker, "%s\\ran", d->proj);
    CreateDirectoryA(d->base, NULL);
    CreateDirectoryA(d->proj, NULL);
    CreateDirectoryA(d->extra, NULL);
    CreateDirectoryA(d->tmp, NULL);
    DeleteFileA(d->marker);
}

static void remove_dirs(const struct dirs *d)
{
    DeleteFileA(d->marker);
    RemoveDirectoryA(d->proj);
    RemoveDirectoryA(d->extra);
    RemoveDirectoryA(d->tmp);
    RemoveDirectoryA(d->base);
}

static sandbox_policy *confined(const struct dirs *d, int net)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_policy_set_network(p, net);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, d->proj);
    sandbox_policy_set_working_dir(p, d->proj);
    sandbox_policy_set_temp_dir(p, d->tmp);
    sandbox_policy_add_writable_dir(p, d->extra);
    return p;
}

/* Count space-separated words equal to `w` in a trace. */
static int count_word(const char *trace, const char *w)
{
    size_t n = strlen(w);
    int count = 0;
    const char *p = trace;
    while ((p = strstr(p, w)) != NULL) {
        if ((p == trace || p[-1] == ' ') && (p[n] == ';' || p[n] == '\0'))
            count++;
        p += n;
    }
    return count;
}

/* Start `cmd /c type nul > marker` with one step made to fail. */
static int run_with(const struct dirs *d, int net, const char *fail_step, int fake,
                    struct sbx_win_run *run, sandbox_error *err)
{
    char redirect[MAX_PATH + 32];
    const char *argv[] = {"cmd.exe", "/c", redirect, NULL};
    sandbox_spawn_options o;
    sandbox_policy *p = confined(d, net);
    int rc;
    snprintf(redirect, sizeof redirect, "type nul > %s", d->marker);
    sandbox_spawn_options_init(&o);
    memset(run, 0, sizeof *run);
    run->hooks.fail_step = fail_step;
    run->hooks.fake_container = fake;
    rc = sbx_win_run_start(run, p, argv, NULL, &o, err);
    sandbox_policy_free(p);
    Sleep(50); /* a process that did start would have written the marker by now */
    return rc;
}

static int exists(const char *path)
{
    return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

static void check_failed_cleanly(struct sbx_harness *h, const struct dirs *d, int rc,
                                 const struct sbx_win_run *run, int grants_made)
{
    CHECK(h, rc != SANDBOX_OK);
    CHECK(h, run->process == NULL);
    CHECK_INT(h, run->n_granted, 0);
    CHECK_INT(h, count_word(run->hooks.trace, "grant"), grants_made);
    CHECK_INT(h, count_word(run->hooks.trace, "revoke"), grants_made);
    CHECK(h, count_word(run->hooks.trace, "process") == 0);
    CHECK(h, !exists(d->marker));
}

static void test_failed_process_creation_revokes_every_grant(struct sbx_harness *h)
{
    struct dirs d;
    struct sbx_win_run run;
    sandbox_error err;
    int rc;
    make_dirs(&d, "process");
    rc = run_with(&d, SANDBOX_NETWORK_DENY, "process", 1, &run, &err);
    printf("    trace: %s\n", run.hooks.trace);
    check_failed_cleanly(h, &d, rc, &run, 3);
    remove_dirs(&d);
}

static void test_failed_attribute_revokes_every_grant(struct sbx_harness *h)
{
    struct dirs d;
    struct sbx_win_run run;
    sandbox_error err;
    int rc;
    make_dirs(&d, "attr");
    rc = run_with(&d, SANDBOX_NETWORK_ALLOW, "attributes", 1, &run, &err);
    check_failed_cleanly(h, &d, rc, &run, 3);
    CHECK(h, strstr(err.message, "AppContainer") != NULL);
    remove_dirs(&d);
}

static void test_failed_grant_undoes_nothing_more_and_runs_nothing(struct sbx_harness *h)
{
    struct dirs d;
    struct sbx_win_run run;
    sandbox_error err;
    int rc;
    make_dirs(&d, "grant");
    rc = run_with(&d, SANDBOX_NETWORK_DENY, "grant", 1, &run, &err);
    check_failed_cleanly(h, &d, rc, &run, 0);
    CHECK_INT(h, err.code, SANDBOX_E_SYSTEM);
    remove_dirs(&d);
}

static void test_failed_profile_or_capability_runs_nothing(struct sbx_harness *h)
{
    struct dirs d;
    struct sbx_win_run run;
    sandbox_error err;
    make_dirs(&d, "profile");
    check_failed_cleanly(h, &d, run_with(&d, SANDBOX_NETWORK_DENY, "profile", 1, &run, &err),
                         &run, 0);
    check_failed_cleanly(h, &d, run_with(&d, SANDBOX_NETWORK_ALLOW, "capabilities", 1, &run, &err),
                         &run, 0);
    remove_dirs(&d);
}

static void test_refused_loopback_exemption_is_not_fatal_but_never_looser(struct sbx_harness *h)
{
    struct dirs d;
    struct sbx_win_run run;
    sandbox_error err;
    int rc;
    make_dirs(&d, "loopback");
    /* The process step still fails at the end (wine, or the injected error),
     * but the loopback step itself does not stop the run. */
    rc = run_with(&d, SANDBOX_NETWORK_DENY, "loopback", 1, &run, &err);
    CHECK(h, count_word(run.hooks.trace, "loopback") == 0);
    CHECK(h, count_word(run.hooks.trace, "grant") == 3);
    if (rc == SANDBOX_OK) {
        /* Real Windows with a working AppContainer: wait undoes the run. */
        WaitForSingleObject(run.process, INFINITE);
        sbx_win_run_undo(&run);
    }
    CHECK_INT(h, count_word(run.hooks.trace, "revoke"), 3);
    remove_dirs(&d);
}

/* Without any injection, wine refuses the SECURITY_CAPABILITIES attribute:
 * the real fail-closed path. On real Windows the run succeeds instead. */
static void test_unenforceable_container_starts_no_process(struct sbx_harness *h)
{
    struct dirs d;
    struct sbx_win_run run;
    sandbox_error err;
    int rc;
    if (!sbx_win_is_wine()) {
        printf("    not wine: covered by live_enforce\n");
        return;
    }
    make_dirs(&d, "wine");
    rc = run_with(&d, SANDBOX_NETWORK_DENY, NULL, 1, &run, &err);
    printf("    wine says: %s\n", err.message);
    check_failed_cleanly(h, &d, rc, &run, 3);
    remove_dirs(&d);
}

static void test_missing_appcontainer_api_fails_closed(struct sbx_harness *h)
{
    struct dirs d;
    sandbox_process proc;
    sandbox_error err;
    sandbox_policy *p;
    char redirect[MAX_PATH + 32];
    const char *argv[] = {"cmd.exe", "/c", redirect, NULL};
    if (!sbx_win_is_wine()) {
        printf("    not wine: the API exists here\n");
        return;
    }
    make_dirs(&d, "api");
    snprintf(redirect, sizeof redirect, "type nul > %s", d.marker);
    p = confined(&d, SANDBOX_NETWORK_DENY);
    CHECK_INT(h, sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_E_UNSUPPORTED);
    CHECK(h, strstr(err.message, "CreateAppContainerProfile") != NULL);
    Sleep(50);
    CHECK(h, !exists(d.marker));
    sandbox_policy_free(p);
    remove_dirs(&d);
}

static void test_missing_root_is_a_path_error(struct sbx_harness *h)
{
    struct dirs d;
    struct sbx_win_run run;
    sandbox_error err;
    int rc;
    make_dirs(&d, "missing");
    RemoveDirectoryA(d.extra);
    rc = run_with(&d, SANDBOX_NETWORK_DENY, NULL, 1, &run, &err);
    CHECK_INT(h, rc, SANDBOX_E_PATH);
    CHECK(h, strstr(err.message, d.extra) != NULL);
    CHECK(h, run.process == NULL);
    CHECK_INT(h, count_word(run.hooks.trace, "grant"), count_word(run.hooks.trace, "revoke"));
    CHECK(h, !exists(d.marker));
    remove_dirs(&d);
}

static void test_unsupported_modes_are_refused_by_spawn(struct sbx_harness *h)
{
    const char *argv[] = {"cmd.exe", "/c", "exit 0", NULL};
    sandbox_policy *p = sandbox_policy_new();
    sandbox_process proc;
    sandbox_error err;
    int keep = 5;
    sandbox_spawn_options o;
    sandbox_policy_set_filesystem(p, SANDBOX_FS_READ_ONLY);
    CHECK_INT(h, sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_E_UNSUPPORTED);
    CHECK(h, strstr(err.message, "read-only") != NULL);
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_network(p, SANDBOX_NETWORK_INTERNET_ONLY);
    CHECK_INT(h, sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_E_UNSUPPORTED);
    sandbox_policy_set_network(p, SANDBOX_NETWORK_DENY);
    sandbox_spawn_options_init(&o);
    o.keep_fds = &keep;
    o.n_keep_fds = 1;
    CHECK_INT(h, sandbox_spawn(p, argv, NULL, &o, &proc, &err), SANDBOX_E_UNSUPPORTED);
    sandbox_policy_free(p);
}

static void test_unconfined_spawn_and_wait_return_the_exit_code(struct sbx_harness *h)
{
    const char *argv[] = {"cmd.exe", "/c", "exit 7", NULL};
    const char *envp[] = {"SBX_TEST=1", NULL};
    sandbox_policy *p = sandbox_policy_new();
    sandbox_process proc;
    sandbox_error err;
    int status = -1;
    /* The all-off policy: no container, but the same spawn/wait path. */
    CHECK_INT(h, sandbox_spawn(p, argv, NULL, NULL, &proc, &err), SANDBOX_OK);
    CHECK_INT(h, proc.enforcement, SANDBOX_ENFORCED_NOTHING);
    CHECK_INT(h, sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    CHECK_INT(h, status, 7);
    CHECK_INT(h, sandbox_spawn(p, argv, envp, NULL, &proc, &err), SANDBOX_OK);
    CHECK_INT(h, sandbox_wait(&proc, &status, &err), SANDBOX_OK);
    CHECK_INT(h, status, 7);
    sandbox_policy_free(p);
}

/* The launcher (argv[1]) refuses what it cannot enforce with 126. */
static int launcher_status(const char *launcher, const char *args)
{
    char line[1024];
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    DWORD code = 1000;
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    snprintf(line, sizeof line, "\"%s\" %s", launcher, args);
    if (!CreateProcessA(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi))
        return -1;
    WaitForSingleObject(pi.hProcess, INFINITE);
    GetExitCodeProcess(pi.hProcess, &code);
    CloseHandle(pi.hProcess);
    CloseHandle(pi.hThread);
    return (int)code;
}

static const char *g_launcher;

static void test_launcher_fails_closed_with_126(struct sbx_harness *h)
{
    if (!g_launcher) {
        printf("    no launcher path given\n");
        return;
    }
    CHECK_INT(h, launcher_status(g_launcher, "--read-only -- cmd.exe /c exit 0"), 126);
    if (sbx_win_is_wine())
        CHECK_INT(h, launcher_status(g_launcher, "--sandbox -- cmd.exe /c exit 0"), 126);
    CHECK_INT(h, launcher_status(g_launcher, "--frobnicate"), 2);
}

int main(int argc, char **argv)
{
    struct sbx_harness h = {0, 0, 0};
    g_launcher = argc > 1 ? argv[1] : NULL;
    RUN(&h, test_failed_process_creation_revokes_every_grant);
    RUN(&h, test_failed_attribute_revokes_every_grant);
    RUN(&h, test_failed_grant_undoes_nothing_more_and_runs_nothing);
    RUN(&h, test_failed_profile_or_capability_runs_nothing);
    RUN(&h, test_refused_loopback_exemption_is_not_fatal_but_never_looser);
    RUN(&h, test_unenforceable_container_starts_no_process);
    RUN(&h, test_missing_appcontainer_api_fails_closed);
    RUN(&h, test_missing_root_is_a_path_error);
    RUN(&h, test_unsupported_modes_are_refused_by_spawn);
    RUN(&h, test_unconfined_spawn_and_wait_return_the_exit_code);
    RUN(&h, test_launcher_fails_closed_with_126);
    return sbx_harness_finish(&h);
}
