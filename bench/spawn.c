#define _GNU_SOURCE
/* sandbox_spawn (and sandbox_spawn_plan, from a plan made once) against plain
 * fork+execve and posix_spawn, for /bin/true.
 *
 *   bench_spawn [-n ROUNDS] [-b BATCH] [-m HEAP_MB]
 *
 * The methods are interleaved in batches (BATCH spawns of one method, then the
 * next), so drift in the machine's load hits all of them alike; each method's
 * figure is the median of its batch means. -m touches a heap of that size
 * first, as a large host would have: fork copies its page tables, a
 * vfork-style child does not. Prints a Markdown table on stdout. */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/spawn.h"

extern char **environ;

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static const char *const true_argv[] = {"/bin/true", NULL};

static int fork_exec(void *arg)
{
    pid_t pid = fork();
    int status;
    (void)arg;
    if (pid == 0) {
        execve("/bin/true", (char *const *)true_argv, environ);
        _exit(127);
    }
    waitpid(pid, &status, 0);
    return status;
}

static int posix_spawn_once(void *arg)
{
    pid_t pid;
    int status;
    (void)arg;
    if (posix_spawn(&pid, "/bin/true", NULL, NULL, (char *const *)true_argv, environ) != 0)
        return -1;
    waitpid(pid, &status, 0);
    return status;
}

struct sbx_arg {
    const sandbox_policy *policy;
    int mode;                           /* -1: the public sandbox_spawn; -2: sandbox_spawn_plan */
    const struct sbx_linux_plan *plan;  /* internals: a prepared plan, or NULL */
    const sandbox_plan *splan;          /* mode -2: the public plan, made once */
    const sandbox_spawn_options *opts;  /* public modes: NULL, or a supervised run */
};

static int sbx_once(void *arg)
{
    struct sbx_arg *a = arg;
    sandbox_process proc;
    sandbox_error err;
    sandbox_spawn_options o;
    int status;
    memset(&proc, 0, sizeof proc);
    if (a->mode == -2) {
        if (sandbox_spawn_plan(a->splan, true_argv, NULL, a->opts, &proc, &err) != SANDBOX_OK) {
            fprintf(stderr, "bench_spawn: %s\n", err.message);
            exit(1);
        }
    } else if (a->mode < 0) {
        if (sandbox_spawn(a->policy, true_argv, NULL, a->opts, &proc, &err) != SANDBOX_OK) {
            fprintf(stderr, "bench_spawn: %s\n", err.message);
            exit(1);
        }
    } else {
        sandbox_spawn_options_init(&o);
        if (sbx_linux_spawn_plan(a->plan, a->mode, true_argv, NULL, &o, &proc, &err) !=
            SANDBOX_OK) {
            fprintf(stderr, "bench_spawn: %s\n", err.message);
            exit(1);
        }
    }
    sandbox_wait(&proc, &status, &err);
    return status;
}

struct method {
    const char *name;
    int (*run)(void *);
    void *arg;
    double *means;
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rounds = 30, batch = 50, heap_mb = 0, opt, i, r, b, nm = 0;
    struct method m[12];
    struct sbx_arg off = {NULL, -1, NULL, NULL, NULL}, net = {NULL, -1, NULL, NULL, NULL},
                   both = {NULL, -1, NULL, NULL, NULL};
    struct sbx_arg off_fork = {NULL, SBX_SPAWN_FORK, NULL, NULL, NULL},
                   ll = {NULL, SBX_SPAWN_DEFAULT, NULL, NULL, NULL};
    struct sbx_arg net_plan = {NULL, -2, NULL, NULL, NULL}, both_plan = {NULL, -2, NULL, NULL, NULL};
    struct sbx_arg both_sup = {NULL, -1, NULL, NULL, NULL}, both_plan_sup = {NULL, -2, NULL, NULL, NULL};
    sandbox_spawn_options sup;
    struct sbx_linux_plan ll_plan;
    const char *why;
    sandbox_policy *p_off, *p_net, *p_both;
    sandbox_plan *plan_net = NULL, *plan_both = NULL;
    sandbox_error plan_err;
    double base, base_min;

    while ((opt = getopt(argc, argv, "n:b:m:")) != -1) {
        if (opt == 'n')
            rounds = atoi(optarg);
        else if (opt == 'b')
            batch = atoi(optarg);
        else if (opt == 'm')
            heap_mb = atoi(optarg);
        else {
            fprintf(stderr, "usage: bench_spawn [-n ROUNDS] [-b BATCH] [-m HEAP_MB]\n");
            return 2;
        }
    }
    if (heap_mb > 0) {
        size_t size = (size_t)heap_mb << 20;
        char *heap = malloc(size);
        if (!heap)
            return 1;
        memset(heap, 1, size); /* touched, so its pages are mapped */
    }
    p_off = sandbox_policy_new();
    p_net = sandbox_policy_new();
    p_both = sandbox_policy_new();
    sandbox_policy_set_network(p_net, SANDBOX_NETWORK_DENY);
    sandbox_policy_set_network(p_both, SANDBOX_NETWORK_DENY);
    sandbox_policy_set_filesystem(p_both, SANDBOX_FS_CONFINED);
    off.policy = p_off;
    net.policy = p_net;
    both.policy = p_both;

    m[nm++] = (struct method){"fork + execve (baseline)", fork_exec, NULL, NULL};
    m[nm++] = (struct method){"posix_spawn", posix_spawn_once, NULL, NULL};
    m[nm++] = (struct method){"sandbox_spawn, all-off policy", sbx_once, &off, NULL};
    m[nm++] = (struct method){"sandbox_spawn internals, fork mode, no plan", sbx_once, &off_fork, NULL};
    if (sbx_landlock_abi(&why) > 0) {
        /* Until the seccomp backend lands, the confined path can still be
         * measured: the Landlock part of the plan, applied in the child. */
        sbx_resolved res;
        sandbox_error err;
        char warning[256] = "";
        sandbox_policy *p_fs = sandbox_policy_new();
        sandbox_policy_set_filesystem(p_fs, SANDBOX_FS_CONFINED);
        memset(&ll_plan, 0, sizeof ll_plan);
        ll_plan.ruleset_fd = -1;
        if (sbx_resolve(p_fs, SANDBOX_TARGET_LINUX, &res, &err) == SANDBOX_OK &&
            sbx_landlock_prepare(&res, &ll_plan.ruleset_fd, &ll_plan.landlock_flags, warning,
                                 sizeof warning, &err) == SANDBOX_OK) {
            ll.plan = &ll_plan;
            m[nm++] = (struct method){"sandbox_spawn internals, Landlock plan (no_new_privs + "
                                      "restrict_self)", sbx_once, &ll, NULL};
        }
        sbx_resolved_free(&res);
    }
    /* Each policy twice: prepared at every spawn, and from a plan made once
     * here, outside the timed loop (what a host running many commands does). */
    if (sandbox_network_killswitch_available()) {
        m[nm++] = (struct method){"sandbox_spawn, --no-network", sbx_once, &net, NULL};
        if (sandbox_plan_new(p_net, &plan_net, &plan_err) != SANDBOX_OK) {
            fprintf(stderr, "bench_spawn: %s\n", plan_err.message);
            return 1;
        }
        net_plan.splan = plan_net;
        m[nm++] = (struct method){"sandbox_spawn_plan, --no-network", sbx_once, &net_plan, NULL};
    }
    if (sandbox_network_killswitch_available() && sandbox_fs_confinement_available()) {
        m[nm++] = (struct method){"sandbox_spawn, --sandbox", sbx_once, &both, NULL};
        if (sandbox_plan_new(p_both, &plan_both, &plan_err) != SANDBOX_OK) {
            fprintf(stderr, "bench_spawn: %s\n", plan_err.message);
            return 1;
        }
        both_plan.splan = plan_both;
        m[nm++] = (struct method){"sandbox_spawn_plan, --sandbox", sbx_once, &both_plan, NULL};
        /* Supervised (issue 19's launch-cost goal): a supervisor process
         * between the host and the command, its listener and signal scope. */
        sandbox_spawn_options_init(&sup);
        sup.supervise = 1;
        both_sup.policy = p_both;
        both_sup.opts = &sup;
        m[nm++] = (struct method){"sandbox_spawn, --sandbox, supervised", sbx_once, &both_sup, NULL};
        both_plan_sup.splan = plan_both;
        both_plan_sup.opts = &sup;
        m[nm++] = (struct method){"sandbox_spawn_plan, --sandbox, supervised", sbx_once,
                                  &both_plan_sup, NULL};
    }
    for (i = 0; i < nm; i++)
        m[i].means = calloc((size_t)rounds, sizeof(double));

    for (i = 0; i < nm; i++) /* warm up: page cache, dynamic loader */
        for (b = 0; b < 20; b++)
            m[i].run(m[i].arg);
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < nm; i++) {
            double t0 = now_us();
            for (b = 0; b < batch; b++)
                if (m[i].run(m[i].arg) != 0) {
                    fprintf(stderr, "bench_spawn: %s: /bin/true failed\n", m[i].name);
                    return 1;
                }
            m[i].means[r] = (now_us() - t0) / batch;
        }
    }
    /* The median shows the typical cost on this (shared) machine; the best
     * batch is the least disturbed by other load, so its ratio is the
     * steadier measure of what the method itself costs. */
    printf("| method | median µs | ratio (median) | best batch µs | ratio (best) |\n"
           "|---|---:|---:|---:|---:|\n");
    qsort(m[0].means, (size_t)rounds, sizeof(double), cmp_double);
    base = m[0].means[rounds / 2];
    base_min = m[0].means[0];
    for (i = 0; i < nm; i++) {
        double med;
        if (i)
            qsort(m[i].means, (size_t)rounds, sizeof(double), cmp_double);
        med = m[i].means[rounds / 2];
        printf("| %s | %.1f | %.2f× | %.1f | %.2f× |\n", m[i].name, med, med / base,
               m[i].means[0], m[i].means[0] / base_min);
    }
    printf("\n%d rounds × %d spawns per method, interleaved; heap touched before: %d MiB; "
           "network kill-switch %s, filesystem confinement %s.\n",
           rounds, batch, heap_mb, sandbox_network_killswitch_available() ? "available" : "NOT available",
           sandbox_fs_confinement_available() ? "available" : "NOT available");
    sandbox_plan_free(plan_net);
    sandbox_plan_free(plan_both);
    return 0;
}
