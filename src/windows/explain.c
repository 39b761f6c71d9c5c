/* Placeholder for the portable AppContainer plan. */
#include "../internal.h"

int sbx_windows_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                        sandbox_error *err)
{
    (void)r;
    (void)argv;
    (void)json;
    (void)out;
    return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0, "the Windows plan is not built yet");
}
