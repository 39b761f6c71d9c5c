/* Read-only mode: leave the process with no capability it could use or
 * regain, even as uid 0. Raw system calls only (no libcap, no allocation),
 * so this runs between fork and exec.
 *
 * Without CAP_SETPCAP (an unprivileged caller) the bounding set and the
 * securebits cannot change, and need not: the permitted set is emptied and
 * no_new_privs, set before this runs, keeps execve from adding anything back
 * (setuid bits and file capabilities are ignored under it). */
#define _GNU_SOURCE
#include "linux.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PR_CAP_AMBIENT
#  define PR_CAP_AMBIENT 47
#  define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* Far above any real capability number; the loop stops at the kernel's
 * last one (EINVAL) long before. */
#define SBX_CAP_LIMIT 128

#define SBX_SECUREBITS                                                                             \
    (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |                               \
     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |       \
     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

static int get_caps(struct __user_cap_data_struct data[2])
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    return syscall(SYS_capget, &hdr, data) == 0 ? 0 : errno;
}

int sbx_caps_drop_all(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    int e, cap, setpcap;
    long bits;

    e = get_caps(data);
    if (e != 0)
        return e;
    setpcap = (data[CAP_SETPCAP / 32].effective & (1U << (CAP_SETPCAP % 32))) != 0;

    /* While CAP_SETPCAP is still effective: the bounding set, so no exec
     * (setuid root or file capabilities) can ever reach a capability... */
    if (setpcap) {
        for (cap = 0; cap < SBX_CAP_LIMIT; cap++) {
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
                if (errno == EINVAL)
                    break; /* past the kernel's last capability */
                return errno;
            }
        }
        /* ...and the securebits, locked, so uid 0 is not special at exec
         * and nothing can turn that back on. */
        if (prctl(PR_SET_SECUREBITS, SBX_SECUREBITS, 0, 0, 0) != 0)
            return errno;
    }
    /* Ambient before the sets it depends on; needs no capability. */
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
        return errno;
    /* Last, since it removes CAP_SETPCAP itself: lowering is always allowed. */
    data[0].effective = data[0].permitted = data[0].inheritable = 0;
    data[1].effective = data[1].permitted = data[1].inheritable = 0;
    if (syscall(SYS_capset, &hdr, data) != 0)
        return errno;

    /* Verify instead of trusting: anything left is a failure. */
    e = get_caps(data);
    if (e != 0)
        return e;
    if (data[0].effective | data[0].permitted | data[0].inheritable | data[1].effective |
        data[1].permitted | data[1].inheritable)
        return EPERM;
    if (setpcap) {
        for (cap = 0; cap < SBX_CAP_LIMIT; cap++) {
            int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
            if (in < 0)
                break;
            if (in > 0)
                return EPERM;
        }
        bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
        if (bits < 0 || (bits & SBX_SECUREBITS) != SBX_SECUREBITS)
            return EPERM;
    }
    return 0;
}
