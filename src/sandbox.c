/* The facade: validate, then hand over to the one backend this build has. */
#include "backend.h"
#include "describe.h"
#include "outcome.h"

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
 * writable roots a link could widen. It reads the tree as it is now, so it
 * runs right before every command starts. The Linux backend runs it itself,
 * next to the protected-path scan: one resolve, and one check of the
 * pre-flight index for both (src/scanindex.c). */
static int wants_scan(const sandbox_policy *policy)
{
#if defined(__linux__)
    (void)policy;
    return 0;
#else
    return sbx_hardlink_wanted(policy);
#endif
}

/* Caches or the build class on a confined filesystem: missing caches may
 * have to be made before the launch (src/caches.c). */
static int wants_caches(const sandbox_policy *policy)
{
    return policy->filesystem == SANDBOX_FS_CONFINED &&
           (policy->writable_caches || policy->klass == SANDBOX_CLASS_BUILD);
}

/* Resolve for this host as a launch does: the first-run caches the
 * resolution marked are made, and then resolved again, so they are
 * ordinary roots for the scan and the backend. One resolution when nothing
 * was missing. */
static int resolve_for_launch(const sandbox_policy *policy, sbx_resolved *r, char *warning,
                              size_t warning_size, sandbox_error *err)
{
    int rc = sbx_resolve(policy, SANDBOX_TARGET_HOST, r, err);
    if (rc == SANDBOX_OK && wants_caches(policy) && sbx_caches_make(r, warning, warning_size) > 0) {
        sbx_resolved_free(r);
        rc = sbx_resolve(policy, SANDBOX_TARGET_HOST, r, err);
    }
    return rc;
}

/* The pre-flight steps of sandbox_enforce that do not belong to one
 * backend, before any confinement is applied: first-run caches, then the
 * hard-link scan; neither costs a resolution unless asked for. */
static int preflight(const sandbox_policy *policy, char *warning, size_t warning_size,
                     sandbox_error *err)
{
    sbx_resolved r;
    int rc = check_policy(policy, err);
    if (rc != SANDBOX_OK || (!wants_scan(policy) && !wants_caches(policy)))
        return rc;
    rc = resolve_for_launch(policy, &r, warning, warning_size, err);
    if (rc != SANDBOX_OK)
        return rc;
    if (wants_scan(policy))
        rc = sbx_hardlink_preflight(&r, policy, err);
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

/* The scratch the command's TMPDIR points at, in a mode that confines its
 * writes (with no project, spec 004, the command works there): the temp
 * directory the host set, else /tmp when TMPDIR does not name one. NULL:
 * TMPDIR is left as it is. Unix only: Windows programs read TEMP and TMP,
 * which the host sets. */
static const char *scratch_for_env(const sandbox_policy *policy)
{
#ifdef _WIN32
    (void)policy;
    return NULL;
#else
    const char *t;
    if (policy->filesystem != SANDBOX_FS_CONFINED)
        return NULL;
    if (policy->temp_dir)
        return policy->temp_dir;
    /* An absolute TMPDIR is the scratch already; without one (or with a
     * relative one, which resolution ignores) the scratch is /tmp. */
    t = getenv("TMPDIR");
    return t && t[0] == '/' ? NULL : "/tmp";
#endif
}

/* The environment changes of the policy, made in this process for the exec
 * that follows sandbox_enforce. */
static int apply_env(const sandbox_policy *policy, sandbox_error *err)
{
    const char *tmp = scratch_for_env(policy);
    int e;
    if (!sbx_env_changes(policy, tmp))
        return SANDBOX_OK;
    e = sbx_env_apply(policy, tmp);
    if (e != 0)
        return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                        "cannot change the command's environment (remove the credential "
                        "variables, set TMPDIR): %s; the command was not run",
                        strerror(e));
    return SANDBOX_OK;
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
    /* Before the no-op shortcut, on every platform: limits are held by a
     * supervisor (the run's cgroup, its kill), which sandbox_enforce cannot
     * give, and a policy that asked for them must not run without them. */
    for (rc = SANDBOX_LIMIT_MEMORY; rc <= SANDBOX_LIMIT_OPEN_FILES; rc++)
        if (sandbox_policy_limit(policy, rc))
            return sbx_fail(&result->error, SANDBOX_E_INVALID, 0,
                            "resource limits need a supervised run: sandbox_enforce cannot "
                            "apply them (nothing was applied); start the command with "
                            "sandbox_spawn, or through sandbox-exec-launcher");
    if (sbx_policy_is_noop(policy))
        return apply_env(policy, &result->error); /* no confinement, on every platform */
    rc = preflight(policy, result->warning, sizeof result->warning, &result->error);
    if (rc == SANDBOX_OK)
        rc = sbx_backend_enforce(policy, argv, result);
    /* After the backend: with protected paths it returns in a new child,
     * the one that goes on to exec. */
    if (rc == SANDBOX_OK)
        rc = apply_env(policy, &result->error);
    return rc;
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
            rc = resolve_for_launch(plan->policy, &plan->resolved, plan->warning,
                                    sizeof plan->warning, error);
    }
    if (rc == SANDBOX_OK)
        rc = sbx_backend_plan_new(plan, error);
    if (rc == SANDBOX_OK && !plan->describe) {
        /* A plan that was made gives what it asks for: the line assumes so
         * where the backend did not say otherwise. */
        struct sbx_avail a = {1, 1, 1, 1, 1};
        char line[SANDBOX_DESCRIBE_SIZE];
        if (sbx_describe_render(&plan->resolved, &a, line, sizeof line) == SANDBOX_OK &&
            !(plan->describe = sbx_strdup(line)))
            rc = sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM,
                          "out of memory while preparing the plan");
    }
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
    free(plan->describe);
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
#if !defined(__linux__)
    /* Only Linux has a supervisor to end a tree at a deadline or keep one. */
    if (options->timeout_ms || options->keep_background)
        return sbx_fail(error, SANDBOX_E_UNSUPPORTED, 0,
                        "a timeout and keep_background need a supervised run, which only "
                        "Linux has so far; end the process from the host instead");
    {
        int w;
        for (w = SANDBOX_LIMIT_MEMORY; w <= SANDBOX_LIMIT_OPEN_FILES; w++)
            if (plan->policy->limits[w])
                return sbx_fail(error, SANDBOX_E_UNSUPPORTED, 0,
                                "resource limits need a supervised run, which only Linux has "
                                "so far; run without --limit-* (nothing ran)");
    }
#endif
    snprintf(process->warning, sizeof process->warning, "%s", plan->warning);
    /* Per spawn, not per plan: a link made after the plan must still be found. */
    if (!plan->noop && wants_scan(plan->policy)) {
        rc = sbx_hardlink_preflight(&plan->resolved, plan->policy, error);
        if (rc != SANDBOX_OK)
            return rc;
    }
    if (sbx_env_changes(plan->policy, scratch_for_env(plan->policy))) {
        char *owned = NULL, **env;
        env = sbx_env_filter(plan->policy, envp ? envp : (const char *const *)sbx_environ(),
                             scratch_for_env(plan->policy), &owned);
        if (!env)
            return sbx_fail(error, SANDBOX_E_NOMEM, ENOMEM,
                            "out of memory while preparing the environment");
        rc = sbx_backend_spawn(plan, argv, (const char *const *)env, options, process, error);
        free(env);
        free(owned);
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
    int rc;
    sbx_error_clear(error);
    if (!process || !status || process->pid <= 0)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no spawned process to wait for");
    rc = sbx_backend_wait(process, status, error);
    if (rc == SANDBOX_OK)
        (void)sbx_backend_collect(process, NULL); /* a supervised run's records, unread */
    return rc;
}

int sandbox_wait_outcome(sandbox_process *process, const sandbox_policy *policy,
                         const char *stderr_tail, sandbox_outcome *outcome, sandbox_error *error)
{
    struct sbx_outcome_data d;
    char hedged[512];
    sbx_buf b;
    size_t i;
    int rc, status = 0;

    sbx_error_clear(error);
    if (!outcome)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no outcome to fill");
    memset(outcome, 0, sizeof *outcome);
    outcome->duration = -1;
    if (!process || process->pid <= 0)
        return sbx_fail(error, SANDBOX_E_INVALID, 0, "no spawned process to wait for");
    memset(&d, 0, sizeof d);
    d.duration = -1;
    if (process->warning[0])
        d.warning = sbx_strdup(process->warning); /* NULL (out of memory): no warning */
    rc = sbx_backend_wait(process, &status, error);
    if (rc != SANDBOX_OK) {
        sbx_outcome_free(&d);
        return rc;
    }
    d.status = status;
    rc = sbx_backend_collect(process, &d);
    outcome->status = status;
    /* Hedged words last: labelled not certain, whatever the text says. */
    if (rc == SANDBOX_OK && policy &&
        sbx_describe_denial_recorded(policy, SANDBOX_TARGET_HOST, status, stderr_tail,
                                     !d.supervised || (d.flags & SBX_RUN_NO_LISTENER) ? 0
                                     : d.n_recs                                       ? 2
                                                                                      : 1,
                                     hedged,
                                     sizeof hedged) == SANDBOX_OK &&
        hedged[0]) {
        struct sbx_outcome_rec r;
        memset(&r, 0, sizeof r);
        r.kind = SBX_REC_HEDGED;
        r.family = r.type = -1;
        r.pid = -1;
        r.text = hedged;
        rc = sbx_outcome_add(&d, &r);
    }
    outcome->timed_out = (d.flags & SBX_RUN_TIMED_OUT) != 0;
    outcome->sandbox_failed = !(d.flags & SBX_RUN_SUP_FAILED) ? 0
                              : (d.flags & SBX_RUN_ENDED)     ? SANDBOX_FAILED_AFTER_EXIT
                                                              : SANDBOX_FAILED_RUN;
    outcome->duration = d.duration;
    outcome->n_dropped = d.dropped;
    for (i = 0; i < d.n_recs; i++)
        outcome->n_records += d.recs[i].kind != SBX_REC_HEDGED;
    if (rc == SANDBOX_OK) {
        sbx_outcome_summary(&d, outcome->summary, sizeof outcome->summary);
        sbx_buf_init(&b);
        sbx_outcome_json(&d, &b);
        outcome->json = sbx_buf_take(&b);
        sbx_buf_free(&b);
        if (!outcome->json)
            rc = SANDBOX_E_NOMEM;
    }
    sbx_outcome_free(&d);
    if (rc != SANDBOX_OK)
        return sbx_fail(error, rc, ENOMEM,
                        "out of memory while rendering the outcome (the process was reaped)");
    return SANDBOX_OK;
}

void sandbox_outcome_clear(sandbox_outcome *outcome)
{
    if (!outcome)
        return;
    free(outcome->json);
    memset(outcome, 0, sizeof *outcome);
    outcome->duration = -1;
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
    strcpy(report->supervised.mechanism, "none");
    strcpy(report->limits.mechanism, "none");
    strcpy(report->unix_endpoints.mechanism, "none");
    sbx_backend_self_test(report);
    if (!report->limits.available && !report->limits.detail[0])
        snprintf(report->limits.detail, sizeof report->limits.detail,
                 "resource limits need Linux's supervised run; asking for one fails closed "
                 "(SANDBOX_E_UNSUPPORTED, exit 126)");
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

/* Insert `member` (",\"name\":value") into a JSON explain output just
 * before its closing "argv" member (or the closing brace), so each
 * renderer's first and last members stay where their tests expect them. */
static void insert_member(sbx_buf *b, const char *member)
{
    const char *at = NULL, *p;
    sbx_buf out;
    size_t head;
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
    sbx_buf_add(&out, member);
    sbx_buf_addn(&out, b->data + head, b->len - head);
    sbx_buf_free(b);
    *b = out; /* an allocation failure stays sticky in out.oom */
}

/* Every target's explain output carries the one-line description, added
 * here once rather than in each target's renderer: "sandbox: ..." as the last
 * text line, and a "describe" member before "argv". For another platform the
 * probes of this machine say nothing, so full support is assumed there. */
static void add_description(const sbx_resolved *r, int host, int json, sbx_buf *b)
{
    struct sbx_avail a = {1, 1, 1, 1, 1};
    char line[SANDBOX_DESCRIBE_SIZE];
    sbx_buf m;

    if (host)
        sbx_describe_probe(&a);
    sbx_describe_render(r, &a, line, sizeof line);
    if (!json) {
        sbx_buf_printf(b, "sandbox: %s\n", line);
        return;
    }
    sbx_buf_init(&m);
    sbx_buf_add(&m, ",\"describe\":");
    sbx_buf_json_str(&m, line);
    if (m.oom)
        b->oom = 1;
    else
        insert_member(b, m.data);
    sbx_buf_free(&m);
}

/* What a launch does besides the rules, the same for every target (issue
 * 23): caches it creates, the project it found or has not, notes of the
 * resolution, the environment it changes (names only, never values). Text
 * lines, or a "launch" member. */
static void add_launch(const sbx_resolved *r, const sandbox_policy *p, int host, int json,
                       sbx_buf *b)
{
    const char *tmp = host ? scratch_for_env(p) : NULL;
    size_t i, n;
    sbx_buf m, env;
    sbx_buf_init(&env);
    if (host)
        sbx_env_explain(p, json, &env);
    if (!json) {
        for (i = 0; i < r->n_roots; i++)
            if (r->roots[i].create)
                sbx_buf_printf(b, "creates at launch: %s (a missing cache, made empty with your "
                                  "umask)\n",
                               r->roots[i].path);
        if (r->project_found)
            sbx_buf_printf(b, "project: %s, the git root above the working directory\n",
                           r->project_root);
        if (r->no_project)
            sbx_buf_printf(b, "project: none: %s %s, which is never a project; the command "
                              "writes only in its scratch %s\n",
                           r->project_root, r->no_project, r->temp_dir ? r->temp_dir : "");
        for (i = 0; i < r->n_notes; i++)
            sbx_buf_printf(b, "note: %s\n", r->notes[i]);
        if (env.len)
            sbx_buf_printf(b, "environment: removes %s (names only; values are never shown)\n",
                           env.data);
        if (tmp)
            sbx_buf_printf(b, "environment: TMPDIR=%s\n", tmp);
        if (env.oom)
            b->oom = 1;
        sbx_buf_free(&env);
        return;
    }
    sbx_buf_init(&m);
    sbx_buf_add(&m, ",\"launch\":{\"creates\":[");
    for (i = 0, n = 0; i < r->n_roots; i++) {
        if (!r->roots[i].create)
            continue;
        sbx_buf_add(&m, n++ ? "," : "");
        sbx_buf_json_str(&m, r->roots[i].path);
    }
    sbx_buf_printf(&m, "],\"project_found\":%s,\"no_project\":",
                   r->project_found ? "true" : "false");
    if (r->no_project)
        sbx_buf_json_str(&m, r->no_project);
    else
        sbx_buf_add(&m, "null");
    sbx_buf_add(&m, ",\"notes\":[");
    for (i = 0; i < r->n_notes; i++) {
        sbx_buf_add(&m, i ? "," : "");
        sbx_buf_json_str(&m, r->notes[i]);
    }
    sbx_buf_add(&m, "],\"env_removes\":[");
    if (env.len)
        sbx_buf_add(&m, env.data);
    sbx_buf_add(&m, "],\"tmpdir\":");
    if (tmp)
        sbx_buf_json_str(&m, tmp);
    else
        sbx_buf_add(&m, "null");
    sbx_buf_add(&m, "}");
    if (m.oom || env.oom)
        b->oom = 1;
    else
        insert_member(b, m.data);
    sbx_buf_free(&m);
    sbx_buf_free(&env);
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
    if (rc == SANDBOX_OK) {
        add_launch(&r, policy, sbx_is_host_target(target), json, &b);
        add_description(&r, sbx_is_host_target(target), json, &b);
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
