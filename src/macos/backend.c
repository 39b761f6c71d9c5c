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
#include <fcntl.h>
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

/* Whether this macOS accepts the plan's profile: sandbox-exec is run with
 * the same profile and parameters on /usr/bin/true. An operation or filter
 * this release does not know makes sandbox-exec exit 65 before the command
 * starts, which a caller would take for the command's own status; checked
 * first, a rejected profile is an error (exit 126) instead. The cost is one
 * short process per confined command. Returns SANDBOX_OK, or an error with
 * sandbox-exec's first line of complaint. */
static int profile_accepted(const sbx_seatbelt_plan *plan, sandbox_error *err)
{
    size_t n = 3 + 2 * plan->n_params + 1, i, len = 0;
    char **argv = calloc(n + 2, sizeof *argv);
    char why[256];
    posix_spawn_file_actions_t fa;
    int pipefd[2], rc, status = 0;
    pid_t pid;
    ssize_t got;

    if (!argv)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while checking the profile");
    for (i = 0; i < n; i++)
        argv[i] = plan->argv[i]; /* sandbox-exec -p PROFILE [-D K=V]... -- */
    argv[n] = "/usr/bin/true";
    if (pipe(pipefd) != 0) {
        free(argv);
        return sbx_fail(err, SANDBOX_E_SYSTEM, errno, "cannot check the profile: pipe: %s",
                        strerror(errno));
    }
    rc = posix_spawn_file_actions_init(&fa);
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc)
        rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (!rc)
        rc = posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
    if (!rc)
        rc = posix_spawn_file_actions_addclose(&fa, pipefd[0]);
    if (!rc)
        rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pipefd[1]);
    free(argv);
    if (rc) {
        close(pipefd[0]);
        return sbx_fail(err, SANDBOX_E_EXEC, rc, "cannot run %s to check the profile: %s",
                        SBX_SANDBOX_EXEC, strerror(rc));
    }
    while (len < sizeof why - 1 &&
           ((got = read(pipefd[0], why + len, sizeof why - 1 - len)) > 0 ||
            (got < 0 && errno == EINTR)))
        if (got > 0)
            len += (size_t)got;
    close(pipefd[0]);
    why[len] = '\0';
    why[strcspn(why, "\n")] = '\0';
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return SANDBOX_OK;
    return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                    "this macOS rejects the Seatbelt profile (sandbox-exec exit %d: %s); "
                    "refusing to run the command unconfined",
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1, why[0] ? why : "no message");
}

/* --self-test: compile the profile of one mode, as enforcing would. */
static int mode_accepted(int network, int fs, int klass, int protect, char *why, size_t why_len)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_error err;
    sbx_resolved r;
    sbx_seatbelt_plan plan;
    int rc = p ? SANDBOX_OK : SANDBOX_E_NOMEM;
    static const char *const none[] = {NULL};

    memset(&err, 0, sizeof err);
    if (rc == SANDBOX_OK)
        rc = sandbox_policy_set_network(p, network);
    if (rc == SANDBOX_OK)
        rc = sandbox_policy_set_filesystem(p, fs);
    if (rc == SANDBOX_OK && klass >= 0)
        rc = sandbox_policy_set_class(p, klass);
    if (rc == SANDBOX_OK && protect)
        rc = sandbox_policy_protect_defaults(p);
    if (rc == SANDBOX_OK)
        rc = sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err);
    if (rc == SANDBOX_OK) {
        rc = sbx_seatbelt_plan_build(&r, none, sbx_macos_canon_host, &plan, &err);
        sbx_resolved_free(&r);
        if (rc == SANDBOX_OK) {
            rc = profile_accepted(&plan, &err);
            sbx_seatbelt_plan_free(&plan);
        }
    }
    sandbox_policy_free(p);
    snprintf(why, why_len, "%s", rc == SANDBOX_OK ? "" : err.message[0] ? err.message : "error");
    return rc == SANDBOX_OK;
}

/* Mark a capability unavailable when its profile does not compile here. */
static void require_profile(sandbox_capability *c, const char *mode, int network, int fs, int klass,
                            int protect)
{
    char why[200];
    if (!c->available || mode_accepted(network, fs, klass, protect, why, sizeof why))
        return;
    c->available = 0;
    snprintf(c->detail, sizeof c->detail, "the %s profile is rejected by this macOS: %s", mode,
             why);
}

void sbx_backend_self_test(sandbox_report *report)
{
    int ok = have_sandbox_exec();
    const char *missing = SBX_SANDBOX_EXEC " is missing: nothing can be confined on this Mac";
    strcpy(report->platform, "macos");
    capability(&report->network, ok,
               "deny-default profile: no IP, DNS refused by socket and by "
               "com.apple.dnssd.service, local AF_UNIX spared (not under a class); launchd "
               "jobs, LaunchServices, Apple events and the keychain refused; EPERM", missing);
    capability(&report->filesystem, ok,
               "deny-default profile: writes only beneath the writable roots and the user "
               "cache beside TMPDIR, each by its literal and canonical (realpath) path; "
               "refused writes fail with EPERM", missing);
    capability(&report->read_only, ok,
               "fixed deny-default profile: reads, exec, sysctl reads, own-process info and "
               "signals, /dev/null, /dev/zero, own descriptors and the terminal, opendirectoryd "
               "and cfprefsd only",
               missing);
    capability(&report->internet_only, ok,
               "outbound IP allowed, localhost refused, nothing may listen; 0.0.0.0, other "
               "127/8 spellings, v4-mapped loopback and the Mac's LAN address cannot be named "
               "(Seatbelt names only * or localhost)",
               missing);
    /* Same door as everything else: the deny rules are part of the profile
     * sandbox-exec installs, so they are available exactly when it exists. */
    capability(&report->protected_paths, ok,
               "deny rules last in the profile: names as case-insensitive "
               "regexes over whole components, home paths by literal and canonical "
               "spelling; not covered: "
               SBX_MACOS_PROTECT_GAPS,
               missing);
    /* Every profile once, compiled by this macOS: an operation or filter it
     * does not know would otherwise surface only when a command runs. */
    require_profile(&report->network, "--no-network", SANDBOX_NETWORK_DENY,
                    SANDBOX_FS_UNRESTRICTED, -1, 0);
    require_profile(&report->filesystem, "--confine-fs", SANDBOX_NETWORK_ALLOW,
                    SANDBOX_FS_CONFINED, -1, 0);
    require_profile(&report->filesystem, "--sandbox", SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED,
                    -1, 0);
    require_profile(&report->network, "--class offline", SANDBOX_NETWORK_DENY,
                    SANDBOX_FS_CONFINED, SANDBOX_CLASS_OFFLINE, 0);
    require_profile(&report->read_only, "--read-only", SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY,
                    -1, 0);
    require_profile(&report->internet_only, "--internet-only", SANDBOX_NETWORK_INTERNET_ONLY,
                    SANDBOX_FS_CONFINED, SANDBOX_CLASS_BUILD, 0);
    require_profile(&report->protected_paths, "--protect-secrets", SANDBOX_NETWORK_DENY,
                    SANDBOX_FS_CONFINED, -1, 1);
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
    if (rc == SANDBOX_OK && (rc = profile_accepted(plan, err)) != SANDBOX_OK)
        sbx_seatbelt_plan_free(plan);
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
        if (rc == SANDBOX_OK && (rc = profile_accepted(&plan, error)) != SANDBOX_OK)
            sbx_seatbelt_plan_free(&plan);
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

int sbx_backend_collect(sandbox_process *process, struct sbx_outcome_data *d)
{
    (void)process;
    (void)d; /* no supervisor here: the status is all there is */
    return SANDBOX_OK;
}
