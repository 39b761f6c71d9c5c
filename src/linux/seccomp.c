/* Placeholder until the seccomp filter lands: every request for a filter is
 * refused, so the launcher fails closed. */
#include "linux.h"

#include <stdio.h>

int sbx_seccomp_select(const sbx_resolved *r, const struct sbx_bpf_insn **bpf, unsigned short *len,
                       sandbox_error *err)
{
    (void)r;
    *bpf = NULL;
    *len = 0;
    return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0, "the seccomp filter is not built yet");
}

int sbx_seccomp_available(char *detail, size_t detail_size)
{
    snprintf(detail, detail_size, "the seccomp filter is not built yet");
    return 0;
}
