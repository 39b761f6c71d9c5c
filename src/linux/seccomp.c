/* Choosing the prebuilt seccomp program for this machine, and checking that
 * the kernel can load it. Linux only. The programs themselves are generated at
 * build time by tools/bpfgen.c from the table in seccomp_rules.c. */
#define _GNU_SOURCE
#include "seccomp_rules.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#  define SBX_SC_HOST_FAMILY SBX_SC_X86_64
#elif defined(__aarch64__) && !defined(__ILP32__)
#  define SBX_SC_HOST_FAMILY SBX_SC_AARCH64
#endif

int sbx_seccomp_select(const sbx_resolved *r, const struct sbx_bpf_insn **bpf, unsigned short *len,
                       sandbox_error *err)
{
    const struct sbx_sc_program *p;
    const char *why;
    int v;

    *bpf = NULL;
    *len = 0;
    v = sbx_sc_variant_for(r, &why);
    if (v == -1)
        return SANDBOX_OK;
    if (v < 0)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0, "%s", why);
#ifdef SBX_SC_HOST_FAMILY
    p = sbx_sc_find(SBX_SC_HOST_FAMILY, v);
#else
    p = NULL;
#endif
    /* Fail closed: without a program for this ABI nothing would be enforced. */
    if (!p)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "no seccomp program is built for this CPU architecture (only x86_64 "
                        "and aarch64 are supported): the command was not run");
    *bpf = p->insns;
    *len = p->len;
    return SANDBOX_OK;
}

int sbx_seccomp_select_userns(const sbx_resolved *r, const struct sbx_bpf_insn **bpf,
                              unsigned short *len, sandbox_error *err)
{
    const struct sbx_sc_program *p = NULL;

    *bpf = NULL;
    *len = 0;
    if (!r->deny_userns || r->filesystem == SANDBOX_FS_READ_ONLY)
        return SANDBOX_OK;
#ifdef SBX_SC_HOST_FAMILY
    p = sbx_sc_find(SBX_SC_HOST_FAMILY, SBX_SC_V_NO_USERNS);
#endif
    if (!p)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "no seccomp program is built for this CPU architecture (only x86_64 "
                        "and aarch64 are supported): the command was not run");
    *bpf = p->insns;
    *len = p->len;
    return SANDBOX_OK;
}

int sbx_seccomp_no_userns(const struct sbx_bpf_insn **bpf, unsigned short *len,
                          sandbox_error *err)
{
    sbx_resolved r;
    memset(&r, 0, sizeof r);
    r.deny_userns = 1;
    r.filesystem = SANDBOX_FS_CONFINED;
    return sbx_seccomp_select_userns(&r, bpf, len, err);
}

int sbx_seccomp_select_supervised(const sbx_resolved *r, int guard, struct sbx_linux_plan *plan,
                                  sandbox_error *err)
{
    const struct sbx_sc_program *sup = NULL, *lsn = NULL;
    const char *why;
    int plain = sbx_sc_variant_for(r, &why), vs, vl;

    plan->sup_bpf = plan->lsn_bpf = NULL;
    plan->sup_bpf_len = plan->lsn_bpf_len = 0;
    plan->deny_action = r->deny_action;
    plan->nosock = r->filesystem == SANDBOX_FS_READ_ONLY;
    if (plain == -2)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0, "%s", why);
    vs = sbx_sc_supervised_variant(plain);
    vl = sbx_sc_notify_variant(plain, guard);
#ifdef SBX_SC_HOST_FAMILY
    sup = vs >= 0 ? sbx_sc_find(SBX_SC_HOST_FAMILY, vs) : NULL;
    lsn = vl >= 0 ? sbx_sc_find(SBX_SC_HOST_FAMILY, vl) : NULL;
#endif
    /* Fail closed: a supervised run without its programs would enforce less. */
    if ((vs >= 0 && !sup) || (vl >= 0 && !lsn))
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "no seccomp program is built for this CPU architecture (only x86_64 "
                        "and aarch64 are supported): the command was not run");
    if (sup) {
        plan->sup_bpf = sup->insns;
        plan->sup_bpf_len = sup->len;
    }
    if (lsn) {
        plan->lsn_bpf = lsn->insns;
        plan->lsn_bpf_len = lsn->len;
    }
    return SANDBOX_OK;
}

int sbx_seccomp_available(char *detail, size_t detail_size)
{
#ifdef SBX_SC_HOST_FAMILY
    unsigned int action = SECCOMP_RET_KILL_PROCESS;
    /* Asks only whether the action exists; installs nothing. */
    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) {
        int e = errno;
        snprintf(detail, detail_size,
                 "the kernel cannot kill a process from a seccomp filter (%s): needs Linux "
                 "4.14+ with CONFIG_SECCOMP_FILTER",
                 strerror(e));
        return 0;
    }
    snprintf(detail, detail_size,
             "seccomp-bpf for %s and its 32-bit ABI: only local socket families (AF_UNIX, "
             "AF_NETLINK); internet sockets kill the process; programs built with %s",
             sbx_sc_archfams[SBX_SC_HOST_FAMILY].name, sbx_sc_generator);
    return 1;
#else
    snprintf(detail, detail_size,
             "no seccomp program is built for this CPU architecture (only x86_64 and aarch64)");
    return 0;
#endif
}
