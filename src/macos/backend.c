/* The macOS backend: Seatbelt through /usr/bin/sandbox-exec. macOS only.
 *
 * Nothing is applied in this process. Enforcing rewrites the argv so that
 * sandbox-exec installs the rendered profile and then execs the command; the
 * profile is inherited by everything the command spawns. The plan itself
 * (profile, parameters, argv) is built by the portable seatbelt.c. */
#define _DARWIN_C_SOURCE
#include "../backend.h"
#include "seatbelt.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* sandbox-exec is the only door to Seatbelt we use; without it nothing can
 * be confined. A regular, executable file at the absolute path we exec. */
static int have_sandbox_exec(void)
{
    struct stat st;
    return stat(SBX_SANDBOX_EXEC, &st) == 0 && S_ISREG(st.st_mode) &&
           access(SBX_SANDBOX_EXEC, X_OK) == 0;
}

int sbx_backend_network_available(void)
{
    return have_sandbox_exec();
}

int sbx_backend_fs_available(void)
{
    return have_sandbox_exec();
}

static void capability(sandbox_capability *c, int available, const char *yes, const char *no)
{
    c->available = available;
    strcpy(c->mechanism, "seatbelt");
    snprintf(c->detail, sizeof c->detail, "%s", available ? yes : no);
}

void sbx_backend_self_test(sandbox_report *report)
{
    int ok = have_sandbox_exec();
    const char *missing = SBX_SANDBOX_EXEC " is missing: nothing can be confined on this Mac";
    strcpy(report->platform, "macos");
    capability(&report->network, ok,
               "allow-default profile with (deny network*); local AF_UNIX spared, DNS refused; "
               "a refused connection fails with EPERM", missing);
    capability(&report->filesystem, ok,
               "deny file-write* outside the writable roots, each matched on its literal and "
               "canonical (realpath) path; refused writes fail with EPERM", missing);
    capability(&report->read_only, ok,
               "fixed deny-default profile: reads, exec, sysctl reads, own-process info and "
               "signals, /dev/null, /dev/zero and the terminal, opendirectoryd and cfprefsd only",
               missing);
    capability(&report->internet_only, ok,
               "outbound IP allowed, loopback refused, nothing may listen; the Mac's own "
               "non-loopback addresses stay reachable (Seatbelt names only * or localhost)",
               missing);
    /* Same door as everything else: the deny rules are part of the profile
     * sandbox-exec installs, so they are available exactly when it exists. */
    capability(&report->protected_paths, ok,
               "deny rules last in the profile: names as case-insensitive "
               "regexes over whole components, home paths by literal and canonical "
               "spelling; not covered: "
               SBX_MACOS_PROTECT_GAPS,
               missing);
}

/* Without sandbox-exec nothing can be confined: refuse. */
static int need_sandbox_exec(sandbox_error *err)
{
    if (have_sandbox_exec())
        return SANDBOX_OK;
    return sbx_fail(err, SANDBOX_E_UNSUPPORTED, ENOENT,
                    "%s is missing, so Seatbelt cannot be applied; refusing to run the "
                    "command unconfined",
                    SBX_SANDBOX_EXEC);
}

/* Resolve for macOS and build the plan, canonicalizing with realpath(3). */
static int plan_for(const sandbox_policy *policy, const char *const argv[],
                    sbx_seatbelt_plan *plan, sandbox_error *err)
{
    sbx_resolved r;
    int rc = need_sandbox_exec(err);
    if (rc != SANDBOX_OK)
        return rc;
    rc = sbx_resolve(policy, SANDBOX_TARGET_MACOS, &r, err);
    if (rc != SANDBOX_OK)
        return rc;
    rc = sbx_seatbelt_plan_build(&r, argv, sbx_macos_canon_host, plan, err);
    sbx_resolved_free(&r);
    return rc;
}

int sbx_backend_enforce(const sandbox_policy *policy, const char *const argv[],
                        sandbox_result *result)
{
    sbx_seatbelt_plan plan;
    int rc = plan_for(policy, argv, &plan, &result->error);
    if (rc != SANDBOX_OK)
        return rc;
    result->argv = sbx_seatbelt_take_argv(&plan);
    result->enforcement = SANDBOX_EXEC_ARGV;
    sbx_seatbelt_plan_free(&plan);
    return SANDBOX_OK;
}

/* Map one descriptor of the child: `fd` becomes `target`, or the parent's
 * `target` is inherited when fd is -1. POSIX_SPAWN_CLOEXEC_DEFAULT closes
 * everything not named here. */
static int map_fd(posix_spawn_file_actions_t *fa, int fd, int target)
{
    if (fd < 0)
        return posix_spawn_file_actions_addinherit_np(fa, target);
    if (fd == target)
        return posix_spawn_file_actions_addinherit_np(fa, target);
    return posix_spawn_file_actions_adddup2(fa, fd, target);
}

/* A sandbox_plan on macOS keeps only the resolved policy (plan->resolved):
 * the profile names the command, so it is rendered at every spawn. */
int sbx_backend_plan_new(sandbox_plan *plan, sandbox_error *error)
{
    return plan->noop ? SANDBOX_OK : need_sandbox_exec(error);
}

void sbx_backend_plan_free(struct sbx_backend_plan *backend)
{
    (void)backend; /* never made */
}

int sbx_backend_spawn(const sandbox_plan *splan, const char *const argv[],
                      const char *const envp[], const sandbox_spawn_options *options,
                      sandbox_process *process, sandbox_error *error)
{
    sbx_seatbelt_plan plan;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none, all;
    char *const *run;
    pid_t pid;
    size_t i;
    int rc, step_rc = 0, noop = splan->noop;

    memset(&plan, 0, sizeof plan);
    if (!noop) {
        /* Checked again: sandbox-exec may have gone since the plan was made. */
        rc = need_sandbox_exec(error);
        if (rc == SANDBOX_OK)
            rc = sbx_seatbelt_plan_build(&splan->resolved, argv, sbx_macos_canon_host, &plan,
                                         error);
        if (rc != SANDBOX_OK)
            return rc;
    }
    run = noop ? (char *const *)argv : plan.argv;

    if (posix_spawn_file_actions_init(&fa) != 0) {
        sbx_seatbelt_plan_free(&plan);
        return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM, "cannot prepare the spawn");
    }
    if (posix_spawnattr_init(&attr) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        sbx_seatbelt_plan_free(&plan);
        return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM, "cannot prepare the spawn");
    }
    /* A clean start: no inherited signal mask or handlers' dispositions, and
     * no descriptor beyond the ones asked for (a leaked fd would be a door
     * out of the sandbox that no profile rule sees). */
    sigemptyset(&none);
    sigfillset(&all);
    step_rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_CLOEXEC_DEFAULT | POSIX_SPAWN_SETSIGMASK |
                                                  POSIX_SPAWN_SETSIGDEF);
    if (!step_rc)
        step_rc = posix_spawnattr_setsigmask(&attr, &none);
    if (!step_rc)
        step_rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (!step_rc)
        step_rc = map_fd(&fa, options->stdin_fd, 0);
    if (!step_rc)
        step_rc = map_fd(&fa, options->stdout_fd, 1);
    if (!step_rc)
        step_rc = map_fd(&fa, options->stderr_fd, 2);
    for (i = 0; !step_rc && i < options->n_keep_fds; i++)
        step_rc = posix_spawn_file_actions_addinherit_np(&fa, options->keep_fds[i]);
    if (!step_rc && options->working_dir)
        step_rc = posix_spawn_file_actions_addchdir_np(&fa, options->working_dir);

    if (!step_rc) {
        char *const *env = envp ? (char *const *)envp : environ;
        /* The rewritten argv starts with an absolute path; an all-off policy
         * runs the caller's command, looked up on PATH like the launcher. */
        step_rc = noop ? posix_spawnp(&pid, run[0], &fa, &attr, run, env)
                       : posix_spawn(&pid, run[0], &fa, &attr, run, env);
        if (step_rc)
            rc = sbx_fail(error, SANDBOX_E_EXEC, step_rc, "cannot start '%s': %s", run[0],
                          strerror(step_rc));
        else
            rc = SANDBOX_OK;
    } else {
        rc = sbx_fail(error, SANDBOX_E_SYSTEM, step_rc, "cannot prepare the spawn: %s",
                      strerror(step_rc));
    }
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    sbx_seatbelt_plan_free(&plan);
    if (rc != SANDBOX_OK)
        return rc;
    process->pid = (long)pid;
    process->handle = NULL;
    process->enforcement = noop ? SANDBOX_ENFORCED_NOTHING : SANDBOX_EXEC_ARGV;
    return SANDBOX_OK;
}

int sbx_backend_wait(sandbox_process *process, int *status, sandbox_error *error)
{
    pid_t got;
    do
        got = waitpid((pid_t)process->pid, status, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return sbx_fail(error, SANDBOX_E_SYSTEM, errno, "waitpid(%ld) failed: %s", process->pid,
                        strerror(errno));
    process->pid = 0;
    return SANDBOX_OK;
}
