/* Close inherited descriptors before the command runs.
 *
 * Why: Landlock and seccomp check operations, not descriptors a process
 * already holds. A writable descriptor to a file outside the project, or a
 * socket made before the launcher started, stays usable inside the sandbox
 * (docs/hardening.md). --close-fds closes everything but stdio and the
 * descriptors named with --keep-fd. */
#define _GNU_SOURCE
#include "fds.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#ifndef _WIN32
#  include <sys/resource.h>
#  include <unistd.h>
#endif
#if defined(__linux__)
#  include <sys/syscall.h>
#endif

int launcher_parse_fd(const char *s, int *fd)
{
    char *end;
    long v;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0 || v > INT_MAX)
        return -1;
    *fd = (int)v;
    return 0;
}

#ifndef _WIN32
/* Close [lo, hi]; hi may be UINT_MAX for "every descriptor from lo". */
static int close_span(unsigned lo, unsigned hi)
{
    struct rlimit rl;
    unsigned fd, top;
#if defined(__linux__) && defined(SYS_close_range)
    /* One call on Linux 5.9+, however large the descriptor table. */
    if (syscall(SYS_close_range, lo, hi, 0) == 0)
        return 0;
    if (errno != ENOSYS && errno != EPERM)
        return errno;
#endif
    /* Fallback: every number up to the descriptor limit. Descriptors above a
     * lowered limit cannot exist unless inherited from before the lowering,
     * so the hard limit bounds the walk. */
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return errno;
    top = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > (1u << 20) ? (1u << 20)
                                                                  : (unsigned)rl.rlim_max;
    if (hi > top)
        hi = top;
    for (fd = lo; fd <= hi && fd < top; fd++)
        if (close((int)fd) != 0 && errno != EBADF && errno != EINTR)
            return errno;
    return 0;
}
#endif

int launcher_close_fds(const int *keep, size_t n_keep)
{
#ifdef _WIN32
    (void)keep;
    (void)n_keep;
    return 0; /* Windows: sandbox_spawn passes only the standard handles */
#else
    int sorted[LAUNCHER_MAX_KEEP_FDS];
    size_t i, j, n = 0;
    unsigned lo = 3;
    int e;

    if (n_keep > LAUNCHER_MAX_KEEP_FDS)
        return EINVAL;
    /* The kept numbers above 2, ascending, without duplicates. */
    for (i = 0; i < n_keep; i++) {
        int fd = keep[i], dup = 0;
        for (j = 0; j < n; j++)
            dup |= sorted[j] == fd;
        if (fd < 3 || dup)
            continue;
        for (j = n; j > 0 && sorted[j - 1] > fd; j--)
            sorted[j] = sorted[j - 1];
        sorted[j] = fd;
        n++;
    }
    for (i = 0; i < n; i++) {
        unsigned k = (unsigned)sorted[i];
        if (k > lo && (e = close_span(lo, k - 1)) != 0)
            return e;
        lo = k + 1;
    }
    return close_span(lo, UINT_MAX);
#endif
}
