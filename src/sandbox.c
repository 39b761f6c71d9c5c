/* The facade: validate, then hand over to the one backend this build has. */
#include "backend.h"
#include "describe.h"

#include <errno.h>
#include <stdio.h>
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

/* Internet-only needs a rule on the destination address (loopback and this
 * machine's own addresses refused). Only the macOS profile can say that
 * today; elsewhere a request for it must not quietly become "allow" (too wide)
 * or "deny" (not what was asked), so it fails closed. Drop a platform from
 * this test once its backend enforces the setting. */
static int internet_only_enforced_here(void)
{
#if defined(__APPLE__)
    return 1;
#else
    return 0;
#endif
}

static const char *host_platform_name(void)
{
#if defined(__linux__)
    return "Linux";
#elif defined(_WIN32)
    return "Windows";
#else
    return "this platform";
#endif
}

/* The refusals that depend on the policy alone, before anything is resolved. */
static int check_policy(const sandbox_policy *policy, sandbox_error *err)
{
    if (sbx_effective_network(policy) == SANDBOX_NETWORK_INTERNET_ONLY &&
        !internet_only_enforced_here())
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "internet-only network (internet yes, loopback and this machine's "
                        "own addresses no) is not enforced on %s yet; refusing to run the "
                        "command rather than allow all network. Ask for no network, or "
                        "for the whole network",
                        host_platform_name());
    return SANDBOX_OK;
}

/* The hard-link scan runs only when asked for, and only where there are
 * writable roots a link could widen. */
static int wants_scan(const sandbox_policy *policy)
{
    return policy->scan_hardlinks && policy->filesystem == SANDBOX_FS_CONFINED;
}

/* The hard-link scan over roots resolved for the host. It reads the tree as
 * it is now, so it runs right before every command starts. */
static int scan_preflight(const sbx_resolved *r, const sandbox_policy *policy, sandbox_error *err)
{
    sandbox_scan_report rep;
    int rc;
    memset(&rep, 0, sizeof rep);
    rc = sbx_hardlink_scan(r, policy, &rep);
    if (rc != SANDBOX_OK && err)
        *err = rep.error;
    sandbox_scan_report_clear(&rep);
    return rc;
}

/* The pre-flight checks of sandbox_enforce that do not belong to one
 * backend. Runs before any confinement is applied; the hard-link scan costs
 * nothing unless asked for. */
static int preflight(const sandbox_policy *policy, sandbox_error *err)
{
    sbx_resolved r;
    int rc = check_policy(policy, err);
    if (rc != SANDBOX_OK || !wants_scan(policy))
        return rc;
    rc = sbx_resolve(policy, SANDBOX_TARGET_HOST, &r, err);
    if (rc != SANDBOX_OK)
        return rc;
    rc = scan_preflight(&r, policy, err);
    sbx_resolved_free(&r);
    return rc;
}

int sandbox_scan_hardlinks(const sandbox_policy *policy, sandbox_scan_report *report)
{
    sbx_resolved r;
    int rc;
    if (!report)
        return SANDBOX_E_INVALID;
    memset(report, 0, sizeof *report);
    if (!policy)
        return sbx_fail(&report->error, SANDBOX_E_INVALID, 0, "no policy was given");
    if (policy->filesystem != SANDBOX_FS_CONFINED)
        return SANDBOX_OK; /* no writable roots: nothing a link could widen */
    rc = sbx_resolve(policy, SANDBOX_TARGET_HOST, &r, &report->error);
    if (rc != SANDBOX_OK)
        return rc;
    rc = sbx_hardlink_scan(&r, policy, report);
    sbx_resolved_free(&r);
    return rc;
}

void sandbox_scan_report_clear(sandbox_scan_report *report)
{
    size_t i;
    if (!report)
        return;
    for (i = 0; report->outside && i < report->n_outside; i++)
        free(report->outside[i]);
    free(report->outside);
    memset(report, 0, sizeof *report);
}

int sandbox_enforce(const sandbox_policy *policy, const char *const argv[], sandbox_result *result)
{
    int rc;
    if (!result)
        return SANDBOX_E_INVALID;
    result_reset(result);
    if (!policy)
        return sbx_fail(&result->error, SANDBOX_E_INVALID, 0, "no policy was given");
    if (!argv || !argv[0] || !argv[0][0])
        return sbx_fail(&result->error, SANDBOX_E_INVALID, 0, "no command was given");
    if (sbx_policy_is_noop(policy))
        return SANDBOX_OK; /* an all-off policy enforces nothing, on every platform */
    rc = preflight(policy, &result->error);
    if (rc != SANDBOX_OK)
        return rc;
    return sbx_backend_enforce(policy, argv, result);
}

void sandbox_spawn_options_init(sandbox_spawn_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->stdin_fd = o->stdout_fd = o->stderr_fd = -1;
}

/* ---- plans: prepare once, spawn many ---- */

int sandbox_plan_new(const sandbox_policy *policy, sandbox_plan **out, sandbox_error *error)
{
    sandbox_plan *plan;
    int rc = SANDBOX_OK;

    sbx_error_clear(error);
    if (!out)
        return sbx_fail(error, SANDBOX_E_INVALID, 0,
                        "sandbox_plan_new needs a place to store the plan (plan is NULL)");
    *out = NULL;
    if (!policy)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no policy was given");
    plan = calloc(1, sizeof *plan);
    if (plan)
        plan->policy = sbx_policy_copy(policy);
    if (!plan || !plan->policy) {
        free(plan);
        return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM, "out of memory while preparing the plan");
    }
    /* From here on only the copy is read: the caller may change or free
     * its policy as soon as this returns. */
    plan->noop = sbx_policy_is_noop(plan->policy);
    if (!plan->noop) {
        rc = check_policy(plan->policy, error);
        if (rc == SANDBOX_OK)
            rc = sbx_resolve(plan->policy, SANDBOX_TARGET_HOST, &plan->resolved, error);
    }
    if (rc == SANDBOX_OK)
        rc = sbx_backend_plan_new(plan, error);
    if (rc != SANDBOX_OK) {
        sandbox_plan_free(plan);
        return rc;
    }
    *out = plan;
    return SANDBOX_OK;
}

const char *sandbox_plan_warning(const sandbox_plan *plan)
{
    return plan ? plan->warning : "";
}

void sandbox_plan_free(sandbox_plan *plan)
{
    if (!plan)
        return;
    sbx_backend_plan_free(plan->backend);
    sbx_resolved_free(&plan->resolved);
    sandbox_policy_free(plan->policy);
    free(plan);
}

int sandbox_spawn_plan(const sandbox_plan *plan, const char *const argv[],
                       const char *const envp[], const sandbox_spawn_options *options,
                       sandbox_process *process, sandbox_error *error)
{
    sandbox_spawn_options defaults;
    int rc;

    sbx_error_clear(error);
    if (!plan || !process)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "spawn needs a plan and a process");
    if (!argv || !argv[0] || !argv[0][0])
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no command was given");
    if (!options) {
        sandbox_spawn_options_init(&defaults);
        options = &defaults;
    }
    memset(process, 0, sizeof *process);
    snprintf(process->warning, sizeof process->warning, "%s", plan->warning);
    /* Per spawn, not per plan: a link made after the plan must still be found. */
    if (!plan->noop && wants_scan(plan->policy)) {
        rc = scan_preflight(&plan->resolved, plan->policy, error);
        if (rc != SANDBOX_OK)
            return rc;
    }
    return sbx_backend_spawn(plan, argv, envp, options, process, error);
}

int sandbox_spawn(const sandbox_policy *policy, const char *const argv[], const char *const envp[],
                  const sandbox_spawn_options *options, sandbox_process *process,
                  sandbox_error *error)
{
    sandbox_plan *plan;
    int rc;

    sbx_error_clear(error);
    if (!policy || !process)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "spawn needs a policy and a process");
    if (!argv || !argv[0] || !argv[0][0])
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no command was given");
    memset(process, 0, sizeof *process);
    /* One path for both: a plan made, used once and dropped. */
    rc = sandbox_plan_new(policy, &plan, error);
    if (rc != SANDBOX_OK)
        return rc;
    rc = sandbox_spawn_plan(plan, argv, envp, options, process, error);
    sandbox_plan_free(plan);
    return rc;
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
    if (!report->internet_only.available) {
        if (!report->internet_only.detail[0])
            snprintf(report->internet_only.detail, sizeof report->internet_only.detail,
                     "internet-only network is not enforced on %s yet", host_platform_name());
        sbx_warn(report->internet_only.detail, sizeof report->internet_only.detail,
                 "asking for it fails closed (exit 126), never runs with more network");
    }
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

/* Every target's explain output carries the one-line description, added
 * here once rather than in each target's renderer: "sandbox: ..." as the last
 * text line, and a "describe" member just before the closing "argv" member
 * (or the closing brace), so each renderer's first and last members stay
 * where their tests expect them. For another platform the probes of this
 * machine say nothing, so full support is assumed there. */
static void add_description(const sbx_resolved *r, int host, int json, sbx_buf *b)
{
    struct sbx_avail a = {1, 1, 1, 1, 1};
    char line[SANDBOX_DESCRIBE_SIZE];
    const char *at = NULL, *p;
    sbx_buf out;
    size_t head;

    if (host)
        sbx_describe_probe(&a);
    sbx_describe_render(r, &a, line, sizeof line);
    if (!json) {
        sbx_buf_printf(b, "sandbox: %s\n", line);
        return;
    }
    if (b->oom || !b->data)
        return;
    for (p = b->data; (p = strstr(p, ",\"argv\":[")) != NULL; p++)
        at = p; /* the last one: the top-level member every renderer ends with */
    if (!at)
        at = strrchr(b->data, '}');
    if (!at || at == b->data)
        return;
    head = (size_t)(at - b->data);
    sbx_buf_init(&out);
    sbx_buf_addn(&out, b->data, head);
    sbx_buf_add(&out, ",\"describe\":");
    sbx_buf_json_str(&out, line);
    sbx_buf_addn(&out, b->data + head, b->len - head);
    sbx_buf_free(b);
    *b = out; /* an allocation failure stays sticky in out.oom */
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
    if (rc == SANDBOX_OK)
        add_description(&r, sbx_is_host_target(target), json, &b);
    sbx_resolved_free(&r);
    if (rc == SANDBOX_OK) {
        *out = sbx_buf_take(&b);
        if (!*out)
            rc = sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while explaining the policy");
    }
    sbx_buf_free(&b);
    return rc;
}
