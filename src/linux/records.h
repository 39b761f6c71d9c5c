/* The records of a supervised run (src/linux/records.c): what the supervisor
 * learned from the kernel's notifications, kept in memory the host mapped
 * (MAP_SHARED | MAP_ANONYMOUS) before the supervisor existed. The supervisor
 * writes it, the host reads it after the supervisor has exited. No pipe: a
 * host that never reads cannot make the supervisor block, and the command,
 * which execs away from the mapping, can neither write nor read it. */
#ifndef SANDBOX_LINUX_RECORDS_H
#define SANDBOX_LINUX_RECORDS_H

#include "../outcome.h"

#include <stddef.h>
#include <stdint.h>

#define SBX_REC_MAGIC 0x52584253u /* "SBXR" */
#define SBX_REC_VERSION 1u
#define SBX_REC_MAX 1024u              /* distinct records kept; the rest are counted */
#define SBX_REC_ARENA (512u * 1024u)   /* bytes for the records' paths */

struct sbx_rec {
    uint16_t kind;   /* enum sbx_rec_kind */
    uint16_t action; /* enum sbx_rec_action */
    uint16_t name;   /* enum sbx_sys_name */
    uint16_t compat; /* 1: the 32-bit ABI */
    int32_t family, type; /* socket(); -1 otherwise */
    int32_t pid;          /* the process of the first such refusal */
    uint32_t count;       /* identical refusals (any pid) */
    char comm[16];        /* the calling thread's name, NUL-terminated */
    uint32_t path_off, path_len; /* in the arena; path_len 0: none */
};

struct sbx_rec_area {
    uint32_t magic, version;
    uint32_t n;          /* records in recs[] */
    uint32_t dropped;    /* refusals not kept: over SBX_REC_MAX, or the arena full */
    uint32_t arena_used;
    uint32_t flags;      /* enum sbx_run_flag */
    int32_t status;      /* the command's wait status, once ENDED */
    uint32_t leftovers;  /* processes ended after the command itself had exited */
    uint32_t cpu_ms;     /* the command's CPU time in ms, once ENDED */
    uint32_t fail_step;  /* enum sbx_sup_fail, once SUP_FAILED */
    int32_t fail_errno;  /* its errno */
    struct sbx_rec recs[SBX_REC_MAX];
    char arena[SBX_REC_ARENA];
};

/* What the supervisor knows of one refusal. */
struct sbx_rec_in {
    int kind, action, name, compat, family, type;
    long pid;
    const char *comm; /* may be NULL */
    const char *path; /* may be NULL */
};

/* Prepare a fresh area (the host, before the supervisor starts). */
void sbx_rec_init(struct sbx_rec_area *a);
/* Add one refusal: a record identical but for the pid is counted instead.
 * Async-signal-safe, no allocation (the supervisor). NULL area: no-op. */
void sbx_rec_add(struct sbx_rec_area *a, const struct sbx_rec_in *r);

/* The host's reading of an area the supervisor may have scribbled on: every
 * field is checked before use. 1 when the area is valid; record i is then
 * read with sbx_rec_get, which fails (0) for a record that is not. */
int sbx_rec_valid(const struct sbx_rec_area *a);
int sbx_rec_get(const struct sbx_rec_area *a, uint32_t i, struct sbx_rec *out, const char **path);

#endif
