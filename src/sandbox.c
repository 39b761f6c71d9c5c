/* The facade: validate, then hand over to the one backend this build has. */
#include "backend.h"

#include <stdlib.h>
#include <string.h>

const char *sandbox_version(void)
{
    return SANDBOX_VERSION_STRING;
}

void sandbox_free(void *ptr)
{
    free(ptr);
}

static void result_reset(sandbox_result *r)
{
    r->enforcement = SANDBOX_ENFORCED_NOTHING;
    r->argv = NULL;
    r->warning[0] = '\0';
    sbx_error_clear(&r->error);
}

void sandbox_result_clear(sandbox_result *r)
{
    size_t i;
    if (!r)
        return;
    if (r->argv) {
        for (i = 0; r->argv[i]; i++)
            free(r->argv[i]);
        free(r->argv);
    }
    result_reset(r);
}

int sandbox_enforce(const sandbox_policy *policy, const char *const argv[], sandbox_result *result)
{
    if (!result)
        return SANDBOX_E_INVALID;
    result_reset(result);
    if (!policy)
        return sbx_fail(&result->error, SANDBOX_E_INVALID, 0, "no policy was given");
    if (!argv || !argv[0] || !argv[0][0])
        return sbx_fail(&result->error, SANDBOX_E_INVALID, 0, "no command was given");
    if (sbx_policy_is_noop(policy))
        return SANDBOX_OK; /* an all-off policy enforces nothing, on every platform */
    return sbx_backend_enforce(policy, argv, result);
}

void sandbox_spawn_options_init(sandbox_spawn_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->stdin_fd = o->stdout_fd = o->stderr_fd = -1;
}

int sandbox_spawn(const sandbox_policy *policy, const char *const argv[], const char *const envp[],
                  const sandbox_spawn_options *options, sandbox_process *process,
                  sandbox_error *error)
{
    sandbox_spawn_options defaults;
    sbx_error_clear(error);
    if (!policy || !process)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "spawn needs a policy and a process");
    if (!argv || !argv[0] || !argv[0][0])
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no command was given");
    if (!options) {
        sandbox_spawn_options_init(&defaults);
        options = &defaults;
    }
    memset(process, 0, sizeof *process);
    return sbx_backend_spawn(policy, argv, envp, options, process, error);
}

int sandbox_wait(sandbox_process *process, int *status, sandbox_error *error)
{
    sbx_error_clear(error);
    if (!process || !status || process->pid <= 0)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no spawned process to wait for");
    return sbx_backend_wait(process, status, error);
}

int sandbox_self_test(sandbox_report *report)
{
    if (!report)
        return SANDBOX_E_INVALID;
    memset(report, 0, sizeof *report);
    strcpy(report->network.mechanism, "none");
    strcpy(report->filesystem.mechanism, "none");
    strcpy(report->read_only.mechanism, "none");
    strcpy(report->internet_only.mechanism, "none");
    strcpy(report->protected_paths.mechanism, "none");
    sbx_backend_self_test(report);
    return SANDBOX_OK;
}

int sandbox_network_killswitch_available(void)
{
    return sbx_backend_network_available();
}

int sandbox_fs_confinement_available(void)
{
    return sbx_backend_fs_available();
}

int sandbox_explain(const sandbox_policy *policy, const char *const argv[], int target, int json,
                    char **out, sandbox_error *err)
{
    sbx_resolved r;
    sbx_buf b;
    int rc;

    sbx_error_clear(err);
    if (!out)
        return sbx_fail(err, SANDBOX_E_INVALID, 0, "no output pointer was given");
    *out = NULL;
    if (!policy || !argv)
        return sbx_fail(err, SANDBOX_E_INVALID, 0, "explain needs a policy and an argv array");
    if (target < SANDBOX_TARGET_HOST || target > SANDBOX_TARGET_WINDOWS)
        return sbx_fail(err, SANDBOX_E_INVALID, 0, "unknown target %d", target);
    rc = sbx_resolve(policy, target, &r, err);
    if (rc != SANDBOX_OK)
        return rc;
    sbx_buf_init(&b);
    switch (r.target) {
    case SANDBOX_TARGET_MACOS: rc = sbx_macos_explain(&r, argv, json, &b, err); break;
    case SANDBOX_TARGET_WINDOWS: rc = sbx_windows_explain(&r, argv, json, &b, err); break;
    default: rc = sbx_linux_explain(&r, argv, json, &b, err); break;
    }
    sbx_resolved_free(&r);
    if (rc == SANDBOX_OK) {
        *out = sbx_buf_take(&b);
        if (!*out)
            rc = sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while explaining the policy");
    }
    sbx_buf_free(&b);
    return rc;
}
