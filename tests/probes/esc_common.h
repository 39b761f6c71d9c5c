/* Shared by the escape probes (tests/escape/): one outcome line and an exit
 * status. Exit 0: the operation succeeded ("ok"); 1: refused, with the errno
 * name printed ("refused EPERM"); 2: not available on this machine; 3: usage.
 * Death by a signal is the filter's verdict and is read by the caller. */
#ifndef SBX_ESC_COMMON_H
#define SBX_ESC_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *esc_errno_name(int e)
{
    switch (e) {
    case EPERM: return "EPERM";
    case EACCES: return "EACCES";
    case ENOSYS: return "ENOSYS";
    case EINVAL: return "EINVAL";
    case EBADF: return "EBADF";
    case ENOTTY: return "ENOTTY";
    case EFAULT: return "EFAULT";
    case EIO: return "EIO";
    case ESRCH: return "ESRCH";
    case ENOENT: return "ENOENT";
    case EOPNOTSUPP: return "EOPNOTSUPP";
    case ECONNREFUSED: return "ECONNREFUSED";
    default: return "other";
    }
}

/* Report the result of one call: rc >= 0 is success. */
static int esc_report(const char *what, long rc, int e)
{
    if (rc >= 0) {
        printf("%s: ok\n", what);
        return 0;
    }
    printf("%s: refused %s (%s)\n", what, esc_errno_name(e), strerror(e));
    return 1;
}

/* Make the call, then read errno: never in one argument list, whose
 * evaluation order C leaves open. */
#define ESC_RETURN(what, call)                 \
    do {                                       \
        long esc_rc_ = (long)(call);           \
        int esc_errno_ = errno;                \
        return esc_report(what, esc_rc_, esc_errno_); \
    } while (0)

static int esc_usage(const char *u)
{
    fprintf(stderr, "usage: %s\n", u);
    return 3;
}

#endif
