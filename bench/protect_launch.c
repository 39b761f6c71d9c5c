/* Launch cost of protected paths: fork, (scan + mask), exec /bin/true, wait.
 * Built and run by bench/protect.sh against the library's internals, so it
 * measures the mechanism even before the launcher can confine.
 * usage: protect_launch PROJECT ITERATIONS
 * Plain and protected launches alternate, so a busy machine slows both alike. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/linux.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One launch; returns its wall time in µs, or a negative value on failure. */
static double launch(const char *proj, int protect)
{
    int status;
    double t0 = now_us();
    pid_t pid = fork();
    if (pid == 0) {
        if (protect) {
            sandbox_policy *p = sandbox_policy_new();
            sbx_resolved r;
            sandbox_error err;
            struct sbx_mask_plan *m = NULL;
            char w[512] = "";
            int e;
            sandbox_policy_set_project_root(p, proj);
            sandbox_policy_protect_defaults(p);
            if (sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err) != SANDBOX_OK ||
                sbx_mask_prepare(&r, &m, 1, w, sizeof w, &err) != SANDBOX_OK) {
                fprintf(stderr, "prepare: %s\n", err.message);
                _exit(126);
            }
            if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || sbx_mask_apply(m, 1, 0, &e) != 0)
                _exit(126);
        }
        execl("/bin/true", "true", (char *)NULL);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    return now_us() - t0;
}

static void report(const char *name, double *t, int n)
{
    qsort(t, (size_t)n, sizeof *t, cmp);
    printf("%s %.0f %.0f %.0f\n", name, t[n / 2], t[n / 10], t[n * 9 / 10]);
}

int main(int argc, char **argv)
{
    int n, i;
    double *plain, *prot;
    if (argc != 3)
        return 2;
    n = atoi(argv[2]);
    plain = calloc((size_t)n, sizeof *plain);
    prot = calloc((size_t)n, sizeof *prot);
    if (n < 1 || !plain || !prot || chdir(argv[1]) != 0)
        return 2;
    for (i = 0; i < n; i++) {
        plain[i] = launch(argv[1], 0);
        prot[i] = launch(argv[1], 1);
        if (plain[i] < 0 || prot[i] < 0) {
            fprintf(stderr, "a launch failed\n");
            return 1;
        }
    }
    report("plain", plain, n);
    report("protect", prot, n);
    return 0;
}
