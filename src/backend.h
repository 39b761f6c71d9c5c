/* The one dispatch point between the platform-neutral facade and a platform
 * backend. The build compiles exactly one backend (src/linux, src/macos,
 * src/windows or src/none); each defines these functions. */
#ifndef SANDBOX_BACKEND_H
#define SANDBOX_BACKEND_H

#include "internal.h"

/* What a backend prepares once per plan; each backend defines it. */
struct sbx_backend_plan;
struct sbx_outcome_data; /* src/outcome.h */

/* A prepared policy (sandbox_plan_new). Built by the facade, then by the
 * backend; never written after sandbox_plan_new returns, so any number of
 * threads may spawn from it at once. */
struct sandbox_plan {
    sandbox_policy *policy;   /* a deep copy: the snapshot (hard-link allowlist, flags) */
    int noop;                 /* the policy asks for nothing: spawn without a sandbox */
    sbx_resolved resolved;    /* resolved for the host at creation; empty when noop */
    struct sbx_backend_plan *backend; /* NULL when the backend keeps nothing */
    char warning[512];        /* best-effort degradations found at creation */
    char *describe;           /* the Sandbox line for a run's outcome (allocated) */
};

/* The policy has already been validated and is not a no-op. */
int sbx_backend_enforce(const sandbox_policy *policy, const char *const argv[],
                        sandbox_result *result);
/* Fill plan->backend (and plan->warning) from plan->resolved; called for
 * every plan, a no-op one included (plan->noop). */
int sbx_backend_plan_new(sandbox_plan *plan, sandbox_error *error);
void sbx_backend_plan_free(struct sbx_backend_plan *backend);
/* Start argv from a plan. Arguments are checked and process->warning holds
 * the plan's warning already; the backend appends its own. The plan is only
 * read: this runs concurrently with other spawns from the same plan. */
int sbx_backend_spawn(const sandbox_plan *plan, const char *const argv[],
                      const char *const envp[], const sandbox_spawn_options *options,
                      sandbox_process *process, sandbox_error *error);
int sbx_backend_wait(sandbox_process *process, int *status, sandbox_error *error);
/* After sbx_backend_wait succeeded: what the backend knows of the run for
 * its outcome (records, timing), into d when d is not NULL; then release
 * what process->backend held for it. SANDBOX_OK or SANDBOX_E_NOMEM. */
int sbx_backend_collect(sandbox_process *process, struct sbx_outcome_data *d);
void sbx_backend_self_test(sandbox_report *report);
int sbx_backend_network_available(void);
int sbx_backend_fs_available(void);

#endif
