/* Interleaved launch timing: each round runs every command once, rotating
 * the order, with posix_spawn + wait4 (stdout and stderr to /dev/null), and
 * prints the median wall time and the median CPU time (user + system of the
 * command and its children). Ratios between lines of one run are what it is
 * for: a loaded machine inflates every absolute time.
 *   gcc -O2 bench/interleave.c -o /tmp/interleave
 *   RUNS=80 /tmp/interleave "CMD ARGS" "CMD2 ARGS" ...   (space-separated argv) */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
extern char **environ;
static int cmpd(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
static double med(double *v, int n) { qsort(v, n, sizeof *v, cmpd); return v[n / 2]; }
int main(int argc, char **argv)
{
    int runs = atoi(getenv("RUNS") ? getenv("RUNS") : "60"), n = argc - 1, r, i, k;
    char **av[16]; double *wall[16], *cpu[16];
    posix_spawn_file_actions_t fa;
    if (n < 1 || n > 16 || runs < 1) { fprintf(stderr, "usage: RUNS=N interleave CMD... (1 to 16 commands)\n"); return 2; }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    for (i = 0; i < n; i++) {
        char *s = strdup(argv[i + 1]), *t; int m = 0;
        av[i] = calloc(64, sizeof(char *));
        for (t = strtok(s, " "); t; t = strtok(NULL, " ")) av[i][m++] = t;
        wall[i] = calloc(runs, sizeof(double)); cpu[i] = calloc(runs, sizeof(double));
    }
    for (r = -5; r < runs; r++)
        for (k = 0; k < n; k++) {
            struct timespec a, b; struct rusage ru; pid_t pid; int st;
            i = (k + (r < 0 ? 0 : r)) % n;
            clock_gettime(CLOCK_MONOTONIC, &a);
            if (posix_spawn(&pid, av[i][0], &fa, NULL, av[i], environ) != 0) return 2;
            wait4(pid, &st, 0, &ru);
            clock_gettime(CLOCK_MONOTONIC, &b);
            if (st != 0) { fprintf(stderr, "exit %d: %s\n", st, argv[i + 1]); return 1; }
            if (r < 0) continue;
            wall[i][r] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
            cpu[i][r] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
        }
    for (i = 0; i < n; i++)
        printf("%-64s wall %7.2f ms  cpu %6.2f ms\n", argv[i + 1] + (strlen(argv[i + 1]) > 64 ? strlen(argv[i + 1]) - 64 : 0), med(wall[i], runs), med(cpu[i], runs));
    return 0;
}
