/* The Linux backend: policy -> plan (may allocate, open files, fail slowly)
 * -> apply (a short list of async-signal-safe system calls).
 *
 * Portable parts (rule tables, rights per Landlock ABI, explain) compile on
 * every host; prepare/apply compile on Linux only. */
#ifndef SANDBOX_LINUX_H
#define SANDBOX_LINUX_H

#include "../internal.h"

#include <stdint.h>

/* Same layout as the kernel's struct sock_filter, usable on any host. */
struct sbx_bpf_insn {
    uint16_t code;
    uint8_t jt;
    uint8_t jf;
    uint32_t k;
};

/* Everything apply needs, built before it runs. */
struct sbx_linux_plan {
    int ruleset_fd;                 /* Landlock ruleset, -1 when there is none */
    uint32_t landlock_flags;        /* flags for landlock_restrict_self */
    int drop_caps;                  /* read-only: empty every capability set */
    const struct sbx_bpf_insn *bpf; /* seccomp program, NULL when there is none */
    unsigned short bpf_len;
};

/* The steps of apply, in order. Reported (with errno) when one fails. */
enum sbx_step {
    SBX_STEP_NONE = 0,
    SBX_STEP_NO_NEW_PRIVS = 1,
    SBX_STEP_CAPS = 2,
    SBX_STEP_LANDLOCK = 3,
    SBX_STEP_SECCOMP = 4
};

/* Build the plan. On success the caller owns plan->ruleset_fd (release with
 * sbx_linux_plan_release). `warning` collects best-effort degradations. */
int sbx_linux_prepare(const sandbox_policy *policy, struct sbx_linux_plan *plan, char *warning,
                      size_t warning_size, sandbox_error *err);
void sbx_linux_plan_release(struct sbx_linux_plan *plan);

/* Apply the plan to the calling thread. Async-signal-safe: safe in a child
 * between fork and exec. Returns SBX_STEP_NONE, or the step that failed with
 * its errno in *sys_errno. After a failure the thread may be partly confined:
 * the caller must not run the command. */
int sbx_linux_apply(const struct sbx_linux_plan *plan, int *sys_errno);

/* Turn a failed step into an error a person can act on. */
int sbx_linux_step_error(int step, int sys_errno, sandbox_error *err);

/* ---- seccomp (src/linux/seccomp.c) ---- */

/* Pick the prebuilt program for this policy and this machine's architecture.
 * Sets the program to NULL and its length to 0 when the policy needs no filter. Fails with
 * SANDBOX_E_UNSUPPORTED when no program exists for this architecture. */
int sbx_seccomp_select(const sbx_resolved *r, const struct sbx_bpf_insn **bpf, unsigned short *len,
                       sandbox_error *err);
/* 1 when a program exists for this architecture and the kernel has seccomp
 * filters with SECCOMP_RET_KILL_PROCESS; detail says why not. Installs nothing. */
int sbx_seccomp_available(char *detail, size_t detail_size);

/* ---- Landlock (src/linux/landlock.c) ---- */

/* The ABI version of the running kernel's Landlock, 0 when absent; *why says
 * why it is absent (for warnings and self-test). */
int sbx_landlock_abi(const char **why);
/* Create and fill the ruleset for the policy. *ruleset_fd is -1 when no
 * Landlock layer is needed, or (confined mode only) when the kernel has none:
 * then a warning is appended. Read-only mode fails instead. */
int sbx_landlock_prepare(const sbx_resolved *r, int *ruleset_fd, uint32_t *restrict_flags,
                         char *warning, size_t warning_size, sandbox_error *err);

/* ---- capabilities (src/linux/caps.c) ---- */

/* Empty the bounding, ambient, inheritable, permitted and effective sets and
 * lock the securebits, so an exec as uid 0 regains nothing. Async-signal-safe.
 * Returns 0 or an errno. */
int sbx_caps_drop_all(void);

/* ---- explain helpers (portable) ---- */
void sbx_seccomp_explain(const sbx_resolved *r, int json, sbx_buf *out);
void sbx_landlock_explain(const sbx_resolved *r, int json, sbx_buf *out);

#endif
