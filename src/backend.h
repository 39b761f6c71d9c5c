/* The one dispatch point between the platform-neutral facade and a platform
 * backend. The build compiles exactly one backend (src/linux, src/macos,
 * src/windows or src/none); each defines these functions. */
#ifndef SANDBOX_BACKEND_H
#define SANDBOX_BACKEND_H

#include "internal.h"

/* The policy has already been validated and is not a no-op. */
int sbx_backend_enforce(const sandbox_policy *policy, const char *const argv[],
                        sandbox_result *result);
void sbx_backend_self_test(sandbox_report *report);
int sbx_backend_network_available(void);
int sbx_backend_fs_available(void);

#endif
