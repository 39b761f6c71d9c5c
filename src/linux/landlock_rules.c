/* Placeholder for the portable Landlock rule computation. */
#include "linux.h"

void sbx_landlock_explain(const sbx_resolved *r, int json, sbx_buf *out)
{
    (void)r;
    sbx_buf_add(out, json ? "null" : "  landlock: not built yet\n");
}
