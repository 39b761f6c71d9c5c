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

static double once(const struct sbx_linux_plan *plan)
{
    double t0 = now();
    int status, e;
    pid_t pid = fork();
    if (pid < 0)
        exit(1);
    if (pid == 0)
        _exit(sbx_linux_apply(plan, &e) == SBX_STEP_NONE ? 0 : 126);
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "rootfs_apply: apply failed\n");
        exit(1);
    }
    return now() - t0;
}

int main(int argc, char **argv)
{
    int pairs = 400, opt, mode, i;
    double *with, *without, *diff;

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
    with = calloc((size_t)pairs, sizeof *with);
    without = calloc((size_t)pairs, sizeof *without);
    diff = calloc((size_t)pairs, sizeof *diff);
    printf("| mode | with: min / q1 / median µs | without | difference: min / q1 / median µs |\n"
           "|---|---:|---:|---:|\n");
    for (mode = 0; mode < 4; mode++) {
        struct sbx_linux_plan plan, off;
        char warning[512];
        sandbox_error err;
        sandbox_policy *p = sandbox_policy_new();
        sandbox_policy_set_network(p, mode == 1 ? SANDBOX_NETWORK_ALLOW : SANDBOX_NETWORK_DENY);
        sandbox_policy_set_filesystem(p, mode == 0   ? SANDBOX_FS_UNRESTRICTED
                                         : mode == 3 ? SANDBOX_FS_READ_ONLY
                                                     : SANDBOX_FS_CONFINED);
        if (sbx_linux_prepare(p, &plan, warning, sizeof warning, &err) != SANDBOX_OK) {
            fprintf(stderr, "rootfs_apply: %s\n", err.message);
            return 1;
        }
        if (!plan.rootfs) {
            fprintf(stderr, "rootfs_apply: %s makes no namespace here\n", mode_names[mode]);
            return 1;
        }
        off = plan;
        off.rootfs = 0;
        for (i = 0; i < 20; i++)
            once(&plan), once(&off);
        for (i = 0; i < pairs; i++) {
            if (i % 2) {
                with[i] = once(&plan);
                without[i] = once(&off);
            } else {
                without[i] = once(&off);
                with[i] = once(&plan);
            }
            diff[i] = with[i] - without[i];
        }
        qsort(with, (size_t)pairs, sizeof *with, cmp);
        qsort(without, (size_t)pairs, sizeof *without, cmp);
        qsort(diff, (size_t)pairs, sizeof *diff, cmp);
        printf("| %s | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f | %.0f / %.0f / %.0f |\n",
               mode_names[mode], with[0] * 1e6, with[pairs / 4] * 1e6, with[pairs / 2] * 1e6,
               without[0] * 1e6, without[pairs / 4] * 1e6, without[pairs / 2] * 1e6,
               (with[0] - without[0]) * 1e6, diff[pairs / 4] * 1e6, diff[pairs / 2] * 1e6);
        sbx_linux_plan_release(&plan);
        sandbox_policy_free(p);
    }
    printf("\n%d interleaved pairs per mode; \"difference: min\" is min(with) - min(without).\n",
           pairs);
    return 0;
}
