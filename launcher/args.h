/* The launcher's command-line parser (launcher/args.c). */
#ifndef SANDBOX_LAUNCHER_ARGS_H
#define SANDBOX_LAUNCHER_ARGS_H

#include "sandbox.h"
#include "fds.h"

#include <stddef.h>

#define PROG "sandbox-exec-launcher"
#define EXIT_USAGE 2
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

/* parse_args() returns this when the launcher should go on. */
#define LAUNCHER_PROCEED (-1)

struct launcher_opts {
    sandbox_policy *policy; /* built from the flags; NULL for --self-test */
    char **cmd;             /* points into argv; may be empty for --explain */
    int self_test;          /* --self-test: print the report, nothing else */
    int index_watch;        /* --index-watch: run the index watcher, nothing else */
    int explain;
    int json;
    int target;             /* enum sandbox_target, for --explain */
    int report;             /* --report: stay the parent and explain a denial */
    int scan_after;         /* --report with the hard-link scan: scan again at exit */
    unsigned long long timeout_ms; /* --timeout, 0: none */
    int outcome_fd;         /* --outcome-fd N, -1: none */
    int keep_background;    /* --keep-background */
    int close_fds;          /* --close-fds, or implied by --keep-fd */
    int keep_fds[LAUNCHER_MAX_KEEP_FDS];
    size_t n_keep;
};

/*
 * Parse the command line into `out`. Returns LAUNCHER_PROCEED with `out`
 * filled (free out->policy with sandbox_policy_free), or the exit status the
 * launcher must return at once: 0 after --help or --version (printed to
 * stdout), EXIT_USAGE after a usage error (one line and the usage on stderr),
 * EXIT_CANNOT_RUN when out of memory. Nothing is left to free then.
 */
int parse_args(int argc, char **argv, struct launcher_opts *out);

#endif
