/* --index-watch: keep the pre-flight index vouched for (sandbox_index_watch)
 * until a signal, then say how many launches it answered. A host starts it
 * once per session, next to the launches it makes. */
#define _GNU_SOURCE
#include "watch.h"
#include "args.h"

#include <stdio.h>
#ifndef _WIN32
#  include <fcntl.h>
#  include <signal.h>
#  include <unistd.h>
#endif

#ifdef _WIN32
int run_index_watch(void)
{
    fprintf(stderr, PROG ": --index-watch: the pre-flight index exists on Linux only\n");
    return EXIT_CANNOT_RUN;
}
#else
/* The write end of the pipe the watcher stops on: what a signal handler
 * may touch (write(2) is async-signal-safe). */
static volatile int stop_fd = -1;

static void on_signal(int sig)
{
    char c = 1;
    (void)sig;
    if (stop_fd >= 0 && write(stop_fd, &c, 1) < 0)
        return;
}

int run_index_watch(void)
{
    unsigned long long asked = 0, vouched = 0;
    struct sigaction sa;
    sandbox_error err;
    int p[2], rc;

    if (pipe2(p, O_CLOEXEC) != 0) {
        perror(PROG ": --index-watch: pipe");
        return EXIT_CANNOT_RUN;
    }
    stop_fd = p[1];
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sa.sa_handler = on_signal;
    if (sigaction(SIGTERM, &sa, NULL) != 0 || sigaction(SIGINT, &sa, NULL) != 0 ||
        sigaction(SIGHUP, &sa, NULL) != 0) {
        perror(PROG ": --index-watch: sigaction");
        return EXIT_CANNOT_RUN;
    }
    rc = sandbox_index_watch(p[0], &asked, &vouched, &err);
    if (rc != SANDBOX_OK) {
        fprintf(stderr, PROG ": %s\n", err.message);
        return EXIT_CANNOT_RUN;
    }
    fprintf(stderr, PROG ": index watcher stopped: %llu launches asked, %llu vouched for\n", asked,
            vouched);
    return 0;
}
#endif
