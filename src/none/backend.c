/* The backend for platforms without one: confinement requested is refused, so
 * a launcher fails closed instead of running the command unconfined. */
#include "../backend.h"

#include <string.h>

int sbx_backend_enforce(const sandbox_policy *policy, const char *const argv[],
                        sandbox_result *result)
{
    (void)policy;
    (void)argv;
    return sbx_fail(&result->error, SANDBOX_E_UNSUPPORTED, 0,
                    "this platform has no sandbox backend; refusing to run the command unconfined");
}

void sbx_backend_self_test(sandbox_report *report)
{
    strcpy(report->platform, "other");
    strcpy(report->network.detail, "no sandbox backend for this platform");
    strcpy(report->filesystem.detail, "no sandbox backend for this platform");
    strcpy(report->read_only.detail, "no sandbox backend for this platform");
}

int sbx_backend_network_available(void)
{
    return 0;
}

int sbx_backend_fs_available(void)
{
    return 0;
}

int sbx_backend_plan_new(sandbox_plan *plan, sandbox_error *error)
{
    (void)plan;
    return sbx_fail(error, SANDBOX_E_UNSUPPORTED, 0, "sandbox_spawn is not available on this platform yet");
}

void sbx_backend_plan_free(struct sbx_backend_plan *backend)
{
    (void)backend; /* never made: plan_new refuses */
}

int sbx_backend_spawn(const sandbox_plan *plan, const char *const argv[],
                      const char *const envp[], const sandbox_spawn_options *options,
                      sandbox_process *process, sandbox_error *error)
{
    (void)plan;
    (void)argv;
    (void)envp;
    (void)options;
    (void)process;
    return sbx_fail(error, SANDBOX_E_UNSUPPORTED, 0, "sandbox_spawn is not available on this platform yet");
}

int sbx_backend_wait(sandbox_process *process, int *status, sandbox_error *error)
{
    (void)process;
    (void)status;
    return sbx_fail(error, SANDBOX_E_UNSUPPORTED, 0, "sandbox_wait is not available on this platform yet");
}

int sbx_backend_collect(sandbox_process *process, struct sbx_outcome_data *d)
{
    (void)process;
    (void)d; /* no supervisor here: the status is all there is */
    return SANDBOX_OK;
}
