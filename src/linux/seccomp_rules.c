/* Placeholder for the portable seccomp rule table. */
#include "linux.h"

void sbx_seccomp_explain(const sbx_resolved *r, int json, sbx_buf *out)
{
    (void)r;
    sbx_buf_add(out, json ? "null" : "  seccomp: not built yet\n");
}
