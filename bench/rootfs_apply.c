/* The cost of root's private mount namespace alone (src/linux/rootfs.c):
 * fork, apply a prepared plan, _exit, wait, with plan.rootfs on and off,
 * the two interleaved pair by pair so both see the same load.
 *
 *   rootfs_apply [-n PAIRS]     (as root, in the project directory)
 *
 * Prints, per mode, the minimum, first quartile and median of each side and
 * of the per-pair difference, in µs. The minimum is the best estimate of the
 * cost on an idle machine; the median shows what load adds. The namespace's
 * teardown at exit is included, as in a real launch. */
#ifndef _GNU_SOURCE
#  define _GNU_SOURCE
#endif
#include "linux/linux.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const mode_names[] = {"--no-network", "--confine-fs", "--sandbox", "--read-only"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Wall time of one fork + apply + exit + wait; the child's CPU time (user +
 * system, its exit and the namespace's teardown included: the kernel keeps
 * their sum exact) in *cpu. CPU time is what the other helpers' load on a
 * shared machine disturbs least. */
static double once(const struct sbx_linux_plan *plan, double *cpu)
{
    double t0 = now();
    int status, e;
    struct rusage ru;
    pid_t pid = fork();
    if (pid < 0)
        exit(1);
    if (pid == 0)
        _exit(sbx_linux_apply(plan, &e) == SBX_STEP_NONE ? 0 : 126);
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "rootfs_apply: apply failed\n");
        exit(1);
    }
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return now() - t0;
}

/* As a launch has it: apply adds the rule for the command's /dev to a
 * ruleset of this command's own, made untimed before each run (the shared
 * one would grow by a rule a run). */
static double once_own(const sbx_resolved *r, const struct sbx_linux_plan *plan, double *cpu)
{
    struct sbx_linux_plan run = *plan;
    sandbox_error err;
    double t;

    if (sbx_linux_plan_for_command(r, &run, &err) != SANDBOX_OK) {
        fprintf(stderr, "rootfs_apply: %s\n", err.message);
        exit(1);
    }
    t = once(&run, cpu);
    sbx_linux_plan_for_command_done(&run);
    return t;
}

int main(int argc, char **argv)
{
    int pairs = 400, opt, mode, i, k;
    double *v[4];
    char rows[4][2][160];

    while ((opt = getopt(argc, argv, "n:")) != -1) {
        if (opt != 'n') {
            fprintf(stderr, "usage: rootfs_apply [-n PAIRS]\n");
            return 2;
        }
        pairs = atoi(optarg);
    }
    if (geteuid() != 0 || pairs < 4) {
        fprintf(stderr, "rootfs_apply: run as root (the namespace is made for root only)\n");
        return 77;
    }
    for (k = 0; k < 4; k++)
        v[k] = calloc((size_t)pairs, sizeof *v[k]);
    for (mode = 0; mode < 4; mode++) {
        struct sbx_linux_plan plan, off;
        sbx_resolved r;
        char warning[512];
        sandbox_error err;
        double junk;
        sandbox_policy *p = sandbox_policy_new();
        sandbox_policy_set_network(p, mode == 1 ? SANDBOX_NETWORK_ALLOW : SANDBOX_NETWORK_DENY);
        sandbox_policy_set_filesystem(p, mode == 0   ? SANDBOX_FS_UNRESTRICTED
                                         : mode == 3 ? SANDBOX_FS_READ_ONLY
                                                     : SANDBOX_FS_CONFINED);
        if (sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err) != SANDBOX_OK ||
            sbx_linux_prepare_resolved(&r, &plan, warning, sizeof warning, &err) != SANDBOX_OK) {
            fprintf(stderr, "rootfs_apply: %s\n", err.message);
            return 1;
        }
        if (!plan.rootfs) {
            fprintf(stderr, "rootfs_apply: %s makes no namespace here\n", mode_names[mode]);
            return 1;
        }
        /* Without the namespace there is no /dev of the command's own,
         * and so no rule to add for it. */
        off = plan;
        off.rootfs = 0;
        off.dev_grant = SBX_DEV_GRANT_NONE;
        /* The read-only step belongs to the namespace too. */
        off.keep = NULL;
        off.n_keep = 0;
        for (i = 0; i < 20; i++)
            once_own(&r, &plan, &junk), once(&off, &junk);
        for (i = 0; i < pairs; i++) {
            /* v: wall with, wall without, CPU with, CPU without */
            if (i % 2) {
                v[0][i] = once_own(&r, &plan, &v[2][i]);
                v[1][i] = once(&off, &v[3][i]);
            } else {
                v[1][i] = once(&off, &v[3][i]);
                v[0][i] = once_own(&r, &plan, &v[2][i]);
            }
        }
        for (k = 0; k < 4; k++)
            qsort(v[k], (size_t)pairs, sizeof *v[k], cmp);
        snprintf(rows[mode][0], sizeof rows[mode][0],
                 "| %s | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %.0f / %.0f |\n",
                 mode_names[mode], v[0][0] * 1e6, v[0][pairs / 4] * 1e6, v[0][pairs / 2] * 1e6,
                 v[1][0] * 1e6, v[1][pairs / 4] * 1e6, v[1][pairs / 2] * 1e6,
                 (v[0][0] - v[1][0]) * 1e6, (v[0][pairs / 2] - v[1][pairs / 2]) * 1e6);
        snprintf(rows[mode][1], sizeof rows[mode][1],
                 "| %s | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f |\n", mode_names[mode],
                 v[2][pairs / 4] * 1e6, v[2][pairs / 2] * 1e6, v[3][pairs / 4] * 1e6,
                 v[3][pairs / 2] * 1e6, (v[2][pairs / 4] - v[3][pairs / 4]) * 1e6,
                 (v[2][pairs / 2] - v[3][pairs / 2]) * 1e6);
        sbx_linux_plan_release(&plan);
        sbx_resolved_free(&r);
        sandbox_policy_free(p);
    }
    printf("Wall time, µs:\n\n"
           "| mode | with: min / q1 / median | without: min / q1 / median | difference: min / median |\n"
           "|---|---:|---:|---:|\n");
    for (mode = 0; mode < 4; mode++)
        fputs(rows[mode][0], stdout);
    printf("\nThe child's CPU time (user + system, exit and teardown included), µs:\n\n"
           "| mode | with: q1 / median | without: q1 / median | difference: q1 / median |\n"
           "|---|---:|---:|---:|\n");
    for (mode = 0; mode < 4; mode++)
        fputs(rows[mode][1], stdout);
    printf("\n%d interleaved pairs per mode; a wall difference is of the minima (or the "
           "medians), a CPU difference of the quartiles.\n",
           pairs);
    return 0;
}
