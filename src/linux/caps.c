/* Drop capabilities, even as uid 0, so they cannot be regained. Raw system
 * calls only (no libcap, no allocation), so this runs between fork and exec.
 *
 * What keeps a dropped capability from coming back through execve is
 * no_new_privs, always set before this runs: with it the kernel caps the
 * permitted set after any exec at the one before it (cap_bprm_creds_from_file
 * intersects the new permitted set with the old one under
 * LSM_UNSAFE_NO_NEW_PRIVS), so no uid-0 rule, setuid bit or file capability
 * adds one. capset takes the dropped ones out of the effective, permitted
 * and inheritable sets (and so out of ambient), and CAP_SETPCAP goes with
 * them, so the inheritable set cannot be widened again.
 *
 * A partial drop (confined and network-denied modes) therefore leaves the
 * bounding set unchanged: shrinking it would add nothing, and costs one
 * PR_CAPBSET_DROP, a credential commit, per dropped capability (31 on a
 * current kernel, most of a root launch's capability step).
 * tests/linux/test_rootcaps_launcher.sh proves it: a binary carrying file
 * capabilities for dropped ones, run as root inside, gets none of them.
 *
 * Dropping everything (read-only mode) still empties the bounding set and
 * sets and locks the securebits when CAP_SETPCAP allows: that mode promises
 * every set empty, the bounding set included, a second wall beside
 * no_new_privs. Without CAP_SETPCAP (an unprivileged caller) the bounding set
 * and the securebits cannot change, and need not: no_new_privs is the wall. */
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

/* The masks are 64 bits: capabilities 0..63, two 32-bit capget words. The
 * loops stop at the kernel's last one (EINVAL) long before. */
#define SBX_CAP_LIMIT 64

/* Only when everything is dropped: NOROOT would also strip the kept
 * capabilities from every exec as root, which a partial drop must not do. */
#define SBX_SECUREBITS                                                                             \
    (SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |                               \
     SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |       \
     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)

static int get_caps(struct __user_cap_data_struct data[2])
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    return syscall(SYS_capget, &hdr, data) == 0 ? 0 : errno;
}

/* The bits of `mask` still present in the effective, permitted or
 * inheritable set (ambient is always a subset of permitted and inheritable). */
static uint64_t held(const struct __user_cap_data_struct data[2], uint64_t mask)
{
    uint64_t lo = (uint64_t)(data[0].effective | data[0].permitted | data[0].inheritable);
    uint64_t hi = (uint64_t)(data[1].effective | data[1].permitted | data[1].inheritable);
    return (lo | hi << 32) & mask;
}

int sbx_caps_held(uint64_t mask)
{
    struct __user_cap_data_struct data[2];
    /* Unknown is held: the caller then takes the careful path. */
    if (get_caps(data) != 0)
        return 1;
    return held(data, mask) != 0;
}

int sbx_caps_drop(uint64_t mask)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    uint32_t keep_lo = (uint32_t)~mask, keep_hi = (uint32_t)(~mask >> 32);
    int e, cap, setpcap, all = mask == SBX_CAPS_ALL;
    long bits;

    /* The partial drop's safety rests on no_new_privs (see the top): refuse
     * to run without it rather than leave a dropped capability reachable by
     * exec. One flag read; it commits no credential. */
    if (!all && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
        return EPERM;
    e = get_caps(data);
    if (e != 0)
        return e;
    setpcap = (data[CAP_SETPCAP / 32].effective & (1U << (CAP_SETPCAP % 32))) != 0;

    /* Only when everything goes, and while CAP_SETPCAP is still effective:
     * the bounding set, so no exec (uid 0, setuid root, file capabilities)
     * could reach any capability even without no_new_privs... */
    if (all && setpcap) {
        for (cap = 0; cap < SBX_CAP_LIMIT; cap++) {
            if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
                if (errno == EINVAL)
                    break; /* past the kernel's last capability */
                return errno;
            }
        }
        /* ...and the securebits, locked, so uid 0 is not special at exec and
         * nothing can turn that back on. A partial drop leaves both: see the
         * top of this file for why the bounding set adds nothing there, and
         * the securebits can only change with CAP_SETPCAP, dropped below, so
         * they are frozen as they are. */
        if (prctl(PR_SET_SECUREBITS, SBX_SECUREBITS, 0, 0, 0) != 0)
            return errno;
    }
    /* Ambient before the sets it depends on; needs no capability. A partial
     * drop needs no call: capset below takes the dropped ones out of the
     * permitted and inheritable sets, and the kernel keeps ambient inside both. */
    if (all && prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0)
        return errno;
    /* Last, since it removes CAP_SETPCAP itself: lowering is always allowed. */
    data[0].effective &= keep_lo;
    data[0].permitted &= keep_lo;
    data[0].inheritable &= keep_lo;
    data[1].effective &= keep_hi;
    data[1].permitted &= keep_hi;
    data[1].inheritable &= keep_hi;
    if (syscall(SYS_capset, &hdr, data) != 0)
        return errno;

    /* Verify instead of trusting: anything left is a failure. */
    e = get_caps(data);
    if (e != 0)
        return e;
    if (held(data, mask))
        return EPERM;
    /* The bounding set is not read back: each PR_CAPBSET_DROP above either
     * returned 0, which the kernel only does once the bit is gone, or failed
     * the whole step. Re-reading every capability cost a syscall each on
     * every root launch and could not see anything the drops had not. */
    if (all && setpcap) {
        bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
        if (bits < 0 || (bits & SBX_SECUREBITS) != SBX_SECUREBITS)
            return EPERM;
    }
    return 0;
}
