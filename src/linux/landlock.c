/* Placeholder until Landlock lands: no ruleset is available. */
#include "linux.h"

int sbx_landlock_abi(const char **why)
{
    *why = "Landlock support is not built yet";
    return 0;
}

int sbx_landlock_prepare(const sbx_resolved *r, int *ruleset_fd, uint32_t *restrict_flags,
                         char *warning, size_t warning_size, sandbox_error *err)
{
    *ruleset_fd = -1;
    *restrict_flags = 0;
    (void)warning;
    (void)warning_size;
    if (r->filesystem == SANDBOX_FS_UNRESTRICTED)
        return SANDBOX_OK;
    return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0, "Landlock support is not built yet");
}
