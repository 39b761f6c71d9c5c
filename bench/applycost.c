/* What each part of the launcher's own work costs, in units of one bare
 * launch (fork + execve + wait of /bin/true) measured in the same run.
 *
 *   applycost [-n ROUNDS] [-b BATCH]      (run it in the project directory)
 *
 * Variants, interleaved in batches (the order shuffled per round):
 *   bare launch          fork, execve /bin/true, wait: the unit
 *   fork+exit            fork, _exit, wait
 *   prepare MODE         in this process: resolve the policy (getcwd, realpath),
 *                        choose the prebuilt filter, build the Landlock ruleset
 *                        (O_PATH opens, add_rule), then release it
 *   fork+apply MODE      fork; the child applies a prepared plan (no_new_privs,
 *                        caps, landlock_restrict_self, seccomp) and _exits
 *   fork+apply+exec MODE the same, then execve /bin/true: the whole kernel
 *                        side of a launch, minus the launcher's own exec
 *   fork+apply MODE, without root's namespace   (as root only) the same plan
 *                        with the private mount namespace of rootfs.c left out
 * Prints a Markdown table: median µs (for scale) and the median ratio to the
 * bare launch of the same round. Uses the library's internal Linux API. */
#ifndef _GNU_SOURCE
#  define _GNU_SOURCE
#endif
#include "linux/linux.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

enum kind { BARE, FORK_EXIT, PREPARE, APPLY, APPLY_EXEC };
static const char *const mode_names[] = {"--no-network", "--confine-fs", "--sandbox", "--read-only"};

struct variant {
    char name[64];
    enum kind kind;
    sandbox_policy *policy;
    struct sbx_linux_plan plan;
    double *t;
};

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

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static sandbox_policy *policy_for(int mode)
{
    sandbox_policy *p = sandbox_policy_new();
    if (!p)
        exit(1);
    sandbox_policy_set_network(p, mode == 1 ? SANDBOX_NETWORK_ALLOW : SANDBOX_NETWORK_DENY);
    sandbox_policy_set_filesystem(p, mode == 0   ? SANDBOX_FS_UNRESTRICTED
                                     : mode == 3 ? SANDBOX_FS_READ_ONLY
                                                 : SANDBOX_FS_CONFINED);
    return p;
}

static void once(struct variant *v)
{
    static char *const true_argv[] = {"/bin/true", NULL};
    char warning[512];
    sandbox_error err;
    int status, e;
    pid_t pid;

    if (v->kind == PREPARE) {
        struct sbx_linux_plan plan;
        if (sbx_linux_prepare(v->policy, &plan, warning, sizeof warning, &err) != SANDBOX_OK) {
            fprintf(stderr, "applycost: %s\n", err.message);
            exit(1);
        }
        sbx_linux_plan_release(&plan);
        return;
    }
    pid = fork();
    if (pid < 0)
        exit(1);
    if (pid == 0) {
        if (v->kind == APPLY || v->kind == APPLY_EXEC)
            if (sbx_linux_apply(&v->plan, &e) != SBX_STEP_NONE)
                _exit(126);
        if (v->kind == FORK_EXIT || v->kind == APPLY)
            _exit(0);
        execve("/bin/true", true_argv, environ);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "applycost: %s failed\n", v->name);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    int rounds = 30, batch = 20, opt, nv = 0, r, i, k, b;
    struct variant v[24];
    int order[24];
    char warning[512];
    sandbox_error err;

    while ((opt = getopt(argc, argv, "n:b:")) != -1) {
        if (opt == 'n')
            rounds = atoi(optarg);
        else if (opt == 'b')
            batch = atoi(optarg);
        else {
            fprintf(stderr, "usage: applycost [-n ROUNDS] [-b BATCH]\n");
            return 2;
        }
    }
    memset(v, 0, sizeof v);
    v[nv].kind = BARE, snprintf(v[nv++].name, sizeof v[0].name, "bare launch (the unit)");
    v[nv].kind = FORK_EXIT, snprintf(v[nv++].name, sizeof v[0].name, "fork+exit");
    for (i = 0; i < 4; i++) {
        enum kind kinds[] = {PREPARE, APPLY, APPLY_EXEC};
        const char *what[] = {"prepare", "fork+apply", "fork+apply+exec"};
        for (k = 0; k < 3; k++) {
            v[nv].kind = kinds[k];
            v[nv].policy = policy_for(i);
            snprintf(v[nv].name, sizeof v[0].name, "%s %s", what[k], mode_names[i]);
            if (kinds[k] != PREPARE &&
                sbx_linux_prepare(v[nv].policy, &v[nv].plan, warning, sizeof warning, &err) !=
                    SANDBOX_OK) {
                fprintf(stderr, "applycost: %s: %s\n", v[nv].name, err.message);
                return 1;
            }
            nv++;
            /* As root: the same apply without its private mount namespace
             * (src/linux/rootfs.c), so the difference is what it costs. */
            if (kinds[k] == APPLY && v[nv - 1].plan.rootfs) {
                v[nv] = v[nv - 1];
                v[nv].plan.rootfs = 0;
                snprintf(v[nv].name, sizeof v[0].name, "fork+apply %s, without root's namespace",
                         mode_names[i]);
                nv++;
            }
        }
    }
    for (i = 0; i < nv; i++) {
        v[i].t = calloc((size_t)rounds, sizeof(double));
        for (b = 0; b < 10; b++)
            once(&v[i]);
    }
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < nv; i++)
            order[i] = i;
        for (i = nv - 1; i > 0; i--) {
            int j = rand() % (i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (k = 0; k < nv; k++) {
            double t0 = now();
            for (b = 0; b < batch; b++)
                once(&v[order[k]]);
            v[order[k]].t[r] = (now() - t0) / batch;
        }
    }
    printf("| step | median µs (for scale) | in bare launches |\n|---|---:|---:|\n");
    {
        double *ratio = calloc((size_t)rounds, sizeof(double));
        double *base = calloc((size_t)rounds, sizeof(double)), bmed;
        for (r = 0; r < rounds; r++)
            base[r] = v[0].t[r];
        bmed = median(base, rounds); /* sorts its copy; v[0].t keeps the round order */
        for (i = 0; i < nv; i++) {
            double m;
            for (r = 0; r < rounds; r++)
                ratio[r] = v[i].t[r] / v[0].t[r];
            m = median(ratio, rounds);
            printf("| %s | %.1f | %.3f |\n", v[i].name, m * bmed * 1e6, m);
        }
    }
    printf("\n%d rounds × %d per variant, interleaved.\n", rounds, batch);
    return 0;
}
