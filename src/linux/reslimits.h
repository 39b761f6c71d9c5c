/* Resource limits of a supervised run (src/linux/reslimits.c; docs/api.md,
 * "Resource limits"). The host prepares them before the spawn: a cgroup of
 * the run's own where the caller may create one, rlimits for the rest. The
 * command's side enters them between the supervisor's fork and the exec;
 * the supervisor ends the whole cgroup with cgroup.kill; the host reads
 * which limit was reached and removes the cgroup after the run. */
#ifndef SANDBOX_LINUX_LIMITS_H
#define SANDBOX_LINUX_LIMITS_H

#include "../internal.h"

#include <stddef.h>
#include <stdint.h>

enum sbx_limit_mech {
    SBX_LM_NONE = 0,
    SBX_LM_CGROUP = 1, /* the run's cgroup v2: memory.max, pids.max */
    SBX_LM_RLIMIT = 2  /* a per-process rlimit, inherited by every descendant */
};

struct sbx_limits {
    unsigned long long want[SBX_N_LIMITS]; /* by enum sandbox_limit; 0: none */
    int mech[SBX_N_LIMITS];                /* enum sbx_limit_mech */
    int any;                               /* 1: some limit is set */
    int cg_procs;     /* the run's cgroup.procs (write "0" to join), -1: no cgroup */
    int cg_kill;      /* its cgroup.kill (Linux 5.14+), -1: none */
    int ns_optional;  /* 1: a filter refuses clone3, so the cgroup namespace may
                         fail (a confined command lacks CAP_SYS_ADMIN) */
    char cg_path[700]; /* its directory, "" when none */
    char cg_why[800];  /* why there is no cgroup (for explain and errors) */
};

/* Decide the mechanism of each limit in `want` and, where memory or
 * processes are limited and the caller may, create the run's cgroup with
 * them written. SANDBOX_OK, or an error when a limit cannot be applied at
 * all (nothing is left behind then). */
int sbx_limits_prepare(const unsigned long long want[SBX_N_LIMITS], struct sbx_limits *l,
                       sandbox_error *err);
/* Only decide, creating nothing: for --explain and --self-test. */
void sbx_limits_plan(const unsigned long long want[SBX_N_LIMITS], struct sbx_limits *l);
/* The command's side, after the supervisor's fork and before the filters:
 * join the cgroup, set the rlimits (soft and hard), and drop
 * CAP_SYS_RESOURCE under no_new_privs so no descendant can raise them.
 * Async-signal-safe. 0 or an errno. */
int sbx_limits_enter(const struct sbx_limits *l);
/* The descriptor limit, last of the command's side (after the supervisor's
 * handover has made its descriptors): a small limit must not stop the
 * listener's creation. Async-signal-safe. 0 or an errno. */
int sbx_limits_enter_fds(const struct sbx_limits *l);
/* The supervisor: SIGKILL everything in the run's cgroup (a no-op without
 * one). Async-signal-safe. */
void sbx_limits_kill(const struct sbx_limits *l);
/* After the run: which limit ended it ("memory", "pids", "cpu",
 * "file-size"; NULL when none, and always when the timeout fired), from the
 * command's wait status and CPU time (cpu_ms) with the cgroup's counters:
 * a counter that rose names a limit only when the status says the run
 * failed by it. *certain 1: the kernel's own word (an OOM kill with the
 * command SIGKILLed, a SIGKILL with the CPU time at the limit). */
const char *sbx_limits_reason(const struct sbx_limits *l, int status, uint32_t cpu_ms,
                              int timed_out, int *certain);
/* Close the descriptors and remove the cgroup (its processes killed first). */
void sbx_limits_release(struct sbx_limits *l);
/* One line per limit set, how this machine applies it (explain, self-test). */
void sbx_limits_describe(const struct sbx_limits *l, int json, sbx_buf *out);
/* Where the cgroup path stands on this machine, for --self-test: 1 when
 * memory or processes get a cgroup. */
int sbx_limits_self_test(char *detail, size_t size);

#endif
