/* sandbox_spawn on Linux: the parts tests and the benchmark reach directly. */
#ifndef SANDBOX_LINUX_SPAWN_H
#define SANDBOX_LINUX_SPAWN_H

#include "linux.h"

/* Steps the spawned child performs around sbx_linux_apply(), numbered apart
 * from enum sbx_step so both fit in one report. */
enum sbx_spawn_step {
    SBX_SPAWN_STEP_STDIO = 101,
    SBX_SPAWN_STEP_CHDIR = 102,
    SBX_SPAWN_STEP_FDS = 103,
    SBX_SPAWN_STEP_EXEC = 104
};

/* How the child is created. */
enum sbx_spawn_mode {
    SBX_SPAWN_DEFAULT = 0, /* clone(CLONE_VM|CLONE_VFORK); fork under ASan */
    SBX_SPAWN_FORK = 1,    /* plain fork(): for comparison in tests and the bench */
    SBX_SPAWN_VFORK = 2    /* clone(CLONE_VM|CLONE_VFORK) */
};

/* Start argv with an already prepared plan (NULL: apply nothing). The caller
 * keeps ownership of the plan. Same contract as sandbox_spawn(). */
int sbx_linux_spawn_plan(const struct sbx_linux_plan *plan, int mode, const char *const argv[],
                         const char *const envp[], const sandbox_spawn_options *options,
                         sandbox_process *process, sandbox_error *error);

#endif
