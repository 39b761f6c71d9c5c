/* The records of a supervised run: adding one in the supervisor, reading
 * them back in the host. See records.h for why shared memory. */
#include "records.h"
#include "sysdecode.h"

#include <string.h>

void sbx_rec_init(struct sbx_rec_area *a)
{
    /* The mapping is fresh (zero pages): only the header is written, so the
     * records and the arena cost nothing until used. */
    a->magic = SBX_REC_MAGIC;
    a->version = SBX_REC_VERSION;
    a->n = a->dropped = a->arena_used = a->flags = a->leftovers = a->cpu_ms = 0;
    a->status = a->fail_errno = 0;
    a->fail_step = 0;
}

static size_t bounded_len(const char *s, size_t max)
{
    size_t n = 0;
    while (s && n < max && s[n])
        n++;
    return n;
}

static int same(const struct sbx_rec_area *a, const struct sbx_rec *r, const struct sbx_rec_in *in,
                const char *comm, const char *path, size_t plen)
{
    return r->kind == in->kind && r->action == in->action && r->name == in->name &&
           r->compat == in->compat && r->family == in->family && r->type == in->type &&
           (strncmp(r->comm, comm, sizeof r->comm) == 0 || !r->comm[0] || !comm[0]) &&
           r->path_len == plen &&
           (plen == 0 || memcmp(a->arena + r->path_off, path, plen) == 0);
}

void sbx_rec_add(struct sbx_rec_area *a, const struct sbx_rec_in *in)
{
    char comm[16];
    const char *path = in->path ? in->path : "";
    size_t plen = bounded_len(path, 4096), clen = bounded_len(in->comm, sizeof comm - 1);
    uint32_t i;
    struct sbx_rec *r;

    if (!a)
        return;
    memset(comm, 0, sizeof comm);
    if (clen)
        memcpy(comm, in->comm, clen);
    for (i = 0; i < a->n && i < SBX_REC_MAX; i++)
        if (same(a, &a->recs[i], in, comm, path, plen)) {
            if (a->recs[i].count < UINT32_MAX)
                a->recs[i].count++;
            /* A process gone before its name was read has none: the name
             * is a label, so it joins the record of the same act (two
             * connects of one quick command were two records), and the
             * record takes the name once one is known. */
            if (!a->recs[i].comm[0])
                memcpy(a->recs[i].comm, comm, sizeof comm);
            return;
        }
    /* Counted, never silently lost: the outcome says how many were not kept. */
    if (a->n >= SBX_REC_MAX || plen > SBX_REC_ARENA - a->arena_used) {
        if (a->dropped < UINT32_MAX)
            a->dropped++;
        return;
    }
    r = &a->recs[a->n];
    memset(r, 0, sizeof *r);
    r->kind = (uint16_t)in->kind;
    r->action = (uint16_t)in->action;
    r->name = (uint16_t)in->name;
    r->compat = (uint16_t)in->compat;
    r->family = in->family;
    r->type = in->type;
    r->pid = (int32_t)in->pid;
    r->count = 1;
    memcpy(r->comm, comm, sizeof r->comm);
    r->path_off = a->arena_used;
    r->path_len = (uint32_t)plen;
    if (plen)
        memcpy(a->arena + a->arena_used, path, plen);
    a->arena_used += (uint32_t)plen;
    a->n++;
}

int sbx_rec_valid(const struct sbx_rec_area *a)
{
    return a && a->magic == SBX_REC_MAGIC && a->version == SBX_REC_VERSION &&
           a->n <= SBX_REC_MAX && a->arena_used <= SBX_REC_ARENA;
}

int sbx_rec_get(const struct sbx_rec_area *a, uint32_t i, struct sbx_rec *out, const char **path)
{
    if (!sbx_rec_valid(a) || i >= a->n)
        return 0;
    /* One copy, then checks on the copy: the values used are the ones checked. */
    memcpy(out, &a->recs[i], sizeof *out);
    out->comm[sizeof out->comm - 1] = '\0';
    if (out->kind < SBX_REC_SOCKET || out->kind > SBX_REC_UNIX ||
        out->action < SBX_ACT_SIGSYS || out->action > SBX_ACT_CLOSED ||
        out->name >= SBX_SYS_N_NAMES || out->count == 0 || out->path_len > 4096 ||
        out->path_off > SBX_REC_ARENA || out->path_len > SBX_REC_ARENA - out->path_off)
        return 0;
    *path = out->path_len ? a->arena + out->path_off : NULL;
    return 1;
}
