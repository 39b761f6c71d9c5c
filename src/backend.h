/* The one dispatch point between the platform-neutral facade and a platform
 * backend. The build compiles exactly one backend (src/linux, src/macos,
 * src/windows or src/none); each defines these functions. */
#ifndef SANDBOX_BACKEND_H
#define SANDBOX_BACKEND_H

#include "internal.h"

/* The policy has already been validated and is not a no-op. */
int sbx_backend_enforce(const sandbox_policy *policy, const char *const argv[],
                        sandbox_result *result);
int sbx_backend_spawn(const sandbox_policy *policy, const char *const argv[],
                      const char *const envp[], const sandbox_spawn_options *options,
                      sandbox_process *process, sandbox_error *error);
int sbx_backend_wait(sandbox_process *process, int *status, sandbox_error *error);
void sbx_backend_self_test(sandbox_report *report);
int sbx_backend_network_available(void);
int sbx_backend_fs_available(void);

#endif
