/* Time sandbox_scan_hardlinks() over one tree: bench/hardlink.sh drives it.
 * usage: scan_hardlinks DIR RUNS   prints "files dirs best_seconds median_seconds" */
#define _POSIX_C_SOURCE 200809L
#include "sandbox.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    sandbox_policy *p;
    sandbox_scan_report rep;
    double t[64];
    int runs, i, rc = 0;
    if (argc != 3 || (runs = atoi(argv[2])) < 1 || runs > 64) {
        fprintf(stderr, "usage: scan_hardlinks DIR RUNS(1-64)\n");
        return 2;
    }
    p = sandbox_policy_new();
    /* The tree is the project, the working directory and the scratch, so
     * exactly it is walked. */
    if (!p || sandbox_policy_set_class(p, SANDBOX_CLASS_PROJECT) ||
        sandbox_policy_set_project_root(p, argv[1]) || sandbox_policy_set_working_dir(p, argv[1]) ||
        sandbox_policy_set_temp_dir(p, argv[1]))
        return 2;
    for (i = 0; i < runs; i++) {
        double t0 = now();
        rc = sandbox_scan_hardlinks(p, &rep);
        t[i] = now() - t0;
        if (rc != SANDBOX_OK && rc != SANDBOX_E_REFUSED) {
            fprintf(stderr, "scan failed: %s\n", rep.error.message);
            return 1;
        }
        if (i < runs - 1)
            sandbox_scan_report_clear(&rep);
    }
    qsort(t, (size_t)runs, sizeof t[0], cmp);
    printf("%llu %llu %.6f %.6f %zu\n", rep.files, rep.directories, t[0], t[runs / 2],
           rep.n_outside);
    sandbox_scan_report_clear(&rep);
    sandbox_policy_free(p);
    return 0;
}
