/* The cost of a run's own cgroup (issue 27; src/linux/reslimits.c), apart
 * from the noise of a whole launch: N rounds of fork + wait of a child that
 * exits at once (the baseline), against N rounds that also make a cgroup v2
 * under DIR, open its cgroup.procs and cgroup.kill, have the child join it,
 * and remove it after the wait -- what a limited run adds. Interleaved in
 * batches; prints the median per-round time of each and their ratio.
 *   cgroup_cost DIR [ROUNDS] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int one(const char *dir, int with_cgroup, int i)
{
    char path[512], p[600];
    int procs = -1, kill_fd = -1, st;
    pid_t pid;
    if (with_cgroup) {
        snprintf(path, sizeof path, "%s/sbx-bench-%d-%d", dir, (int)getpid(), i);
        if (mkdir(path, 0755) != 0)
            return -1;
        snprintf(p, sizeof p, "%s/cgroup.procs", path);
        procs = open(p, O_WRONLY | O_CLOEXEC);
        snprintf(p, sizeof p, "%s/cgroup.kill", path);
        kill_fd = open(p, O_WRONLY | O_CLOEXEC);
        if (procs < 0)
            return -1;
    }
    pid = fork();
    if (pid == 0) {
        if (procs >= 0 && write(procs, "0", 1) != 1)
            _exit(1);
        _exit(0);
    }
    waitpid(pid, &st, 0);
    if (with_cgroup) {
        close(procs);
        if (kill_fd >= 0)
            close(kill_fd);
        if (rmdir(path) != 0)
            return -1;
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = argc > 2 ? atoi(argv[2]) : 40, batch = 25, r, k, w;
    double *t[2], t0;
    if (argc < 2 || rounds < 1) {
        fprintf(stderr, "usage: cgroup_cost DIR [ROUNDS]\n");
        return 2;
    }
    t[0] = calloc((size_t)rounds, sizeof(double));
    t[1] = calloc((size_t)rounds, sizeof(double));
    for (r = 0; r < rounds; r++)
        for (w = 0; w < 2; w++) {
            t0 = now_ms();
            for (k = 0; k < batch; k++)
                if (one(argv[1], w, r * batch + k) != 0) {
                    perror("cgroup_cost");
                    return 1;
                }
            t[w][r] = (now_ms() - t0) / batch;
        }
    qsort(t[0], (size_t)rounds, sizeof(double), cmp);
    qsort(t[1], (size_t)rounds, sizeof(double), cmp);
    printf("fork+wait\t%.4f\nfork+wait+cgroup\t%.4f\nratio\t%.3f\nadded_ms\t%.4f\n",
           t[0][rounds / 2], t[1][rounds / 2], t[1][rounds / 2] / t[0][rounds / 2],
           t[1][rounds / 2] - t[0][rounds / 2]);
    return 0;
}
