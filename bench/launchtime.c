/* Interleaved launch timing: what a sequential tool (hyperfine) cannot give
 * on a shared machine, where load drifts between one command's runs and the
 * next command's.
 *
 *   launchtime [-n ROUNDS] [-b BATCH] [-o OUT.tsv] NAME=CMD [NAME=CMD...]
 *
 * CMD is split on spaces and run with fork+execve (no shell, no PATH search:
 * give absolute paths). Each round runs BATCH launches of every command in
 * turn, the order shuffled per round; a command's figure for the round is
 * its batch mean. Printed: per command, the median over rounds of its batch
 * mean ÷ the first command's batch mean in the same round, the 25th-75th
 * percentile of that ratio, the same for CPU time (user+sys of the child from
 * wait4), and the first command's median wall time in ms. Any command that
 * does not exit 0 stops the run (exit 1). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct cmd {
    const char *name;
    char *argv[64];
    double *wall, *cpu; /* per round: batch mean, seconds */
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

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[(int)(p * (n - 1) + 0.5)];
}

/* One launch; returns the child's CPU seconds, or -1 on failure. */
static double launch(struct cmd *c)
{
    struct rusage ru;
    int status;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execve(c->argv[0], c->argv, environ);
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "launchtime: %s exited with status %d\n", c->name,
                WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return -1;
    }
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    int rounds = 40, batch = 25, opt, nc = 0, r, i, b, k;
    struct cmd cmds[32];
    int order[32];
    const char *out = NULL;
    FILE *f = stdout;

    while ((opt = getopt(argc, argv, "n:b:o:")) != -1) {
        if (opt == 'n')
            rounds = atoi(optarg);
        else if (opt == 'b')
            batch = atoi(optarg);
        else if (opt == 'o')
            out = optarg;
        else
            goto usage;
    }
    if (optind >= argc || rounds < 1 || batch < 1)
        goto usage;
    for (i = optind; i < argc && nc < 32; i++, nc++) {
        char *eq = strchr(argv[i], '='), *tok, *save = NULL;
        int a = 0;
        if (!eq)
            goto usage;
        *eq = '\0';
        cmds[nc].name = argv[i];
        for (tok = strtok_r(eq + 1, " ", &save); tok && a < 63; tok = strtok_r(NULL, " ", &save))
            cmds[nc].argv[a++] = tok;
        cmds[nc].argv[a] = NULL;
        cmds[nc].wall = calloc((size_t)rounds, sizeof(double));
        cmds[nc].cpu = calloc((size_t)rounds, sizeof(double));
        if (a == 0 || !cmds[nc].wall || !cmds[nc].cpu)
            goto usage;
    }
    srand((unsigned)getpid());
    for (i = 0; i < nc; i++) /* warm up: page cache, dentries */
        for (b = 0; b < 10; b++)
            if (launch(&cmds[i]) < 0)
                return 1;
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < nc; i++)
            order[i] = i;
        for (i = nc - 1; i > 0; i--) {
            int j = rand() % (i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (k = 0; k < nc; k++) {
            struct cmd *c = &cmds[order[k]];
            double t0 = now(), cpu = 0, x;
            for (b = 0; b < batch; b++) {
                if ((x = launch(c)) < 0)
                    return 1;
                cpu += x;
            }
            c->wall[r] = (now() - t0) / batch;
            c->cpu[r] = cpu / batch;
        }
    }
    if (out && !(f = fopen(out, "w"))) {
        perror(out);
        return 1;
    }
    {
        double *w = malloc(sizeof(double) * (size_t)rounds), *cp = malloc(sizeof(double) * (size_t)rounds);
        double *bw = malloc(sizeof(double) * (size_t)rounds), base_ms;
        for (r = 0; r < rounds; r++)
            bw[r] = cmds[0].wall[r];
        base_ms = pct(bw, rounds, 0.5) * 1e3;
        for (i = 0; i < nc; i++) {
            for (r = 0; r < rounds; r++) {
                w[r] = cmds[i].wall[r] / cmds[0].wall[r];
                cp[r] = cmds[0].cpu[r] > 0 ? cmds[i].cpu[r] / cmds[0].cpu[r] : 0;
            }
            fprintf(f, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", cmds[i].name,
                    pct(w, rounds, 0.5), pct(w, rounds, 0.25), pct(w, rounds, 0.75),
                    pct(cp, rounds, 0.5), pct(cp, rounds, 0.25), pct(cp, rounds, 0.75), base_ms);
        }
    }
    if (out)
        fclose(f);
    return 0;
usage:
    fprintf(stderr, "usage: launchtime [-n ROUNDS] [-b BATCH] [-o OUT.tsv] NAME=CMD...\n");
    return 2;
}
