/* A tiny classic-BPF interpreter for seccomp programs, for checking them:
 * tools/bpfgen.c's build-time comparison of the tree and the linear program,
 * and the unit tests. Never part of the library.
 * It runs a program against one struct seccomp_data (laid out as on a
 * little-endian machine) and returns the action word, or SIM_BAD when the
 * program does something a seccomp filter may not (bad opcode, jump out of
 * range, read out of bounds, fall off the end). */
#ifndef SBX_TEST_BPF_SIM_H
#define SBX_TEST_BPF_SIM_H

#include <stdint.h>
#include <string.h>

#include "linux/linux.h"

#define SIM_BAD 0xdeadbeefu
#define SIM_RET_KILL_PROCESS 0x80000000u
#define SIM_RET_ALLOW 0x7fff0000u
#define SIM_RET_ERRNO(e) (0x00050000u | (uint32_t)(e))

struct sim_data {
    uint32_t nr;
    uint32_t arch;
    uint64_t ip;
    uint64_t args[6];
};

static inline uint32_t sim_load(const struct sim_data *d, uint32_t off, int *ok)
{
    unsigned char bytes[sizeof(struct sim_data)];
    uint32_t v;
    /* Field by field, so the layout does not depend on the test host. */
    memcpy(bytes, &d->nr, 4);
    memcpy(bytes + 4, &d->arch, 4);
    memcpy(bytes + 8, &d->ip, 8);
    memcpy(bytes + 16, d->args, sizeof d->args);
    if (off % 4 || off + 4 > sizeof bytes) {
        *ok = 0;
        return 0;
    }
    memcpy(&v, bytes + off, 4);
    return v;
}

/* Run `prog` over `d`. *steps receives the number of instructions executed. */
static inline uint32_t sim_run(const struct sbx_bpf_insn *prog, size_t len,
                               const struct sim_data *d, size_t *steps)
{
    uint32_t a = 0, x = 0, mem[16] = {0};
    size_t pc = 0, n = 0;
    int ok = 1;

    while (pc < len) {
        const struct sbx_bpf_insn *i = &prog[pc];
        uint32_t src = (i->code & 0x08) ? x : i->k; /* BPF_X or BPF_K */
        n++;
        switch (i->code & 0x07) { /* class */
        case 0x00:                /* LD */
            if (i->code == 0x20)
                a = sim_load(d, i->k, &ok);
            else if (i->code == 0x00)
                a = i->k;
            else if (i->code == 0x60 && i->k < 16)
                a = mem[i->k];
            else if (i->code == 0x80)
                a = sizeof(struct sim_data);
            else
                return SIM_BAD;
            break;
        case 0x01: /* LDX */
            if (i->code == 0x01)
                x = i->k;
            else if (i->code == 0x61 && i->k < 16)
                x = mem[i->k];
            else if (i->code == 0x81)
                x = sizeof(struct sim_data);
            else
                return SIM_BAD;
            break;
        case 0x02: /* ST */
            if (i->k >= 16)
                return SIM_BAD;
            mem[i->k] = a;
            break;
        case 0x03: /* STX */
            if (i->k >= 16)
                return SIM_BAD;
            mem[i->k] = x;
            break;
        case 0x04: /* ALU */
            switch (i->code & 0xf0) {
            case 0x00: a += src; break;
            case 0x10: a -= src; break;
            case 0x20: a *= src; break;
            case 0x30: if (!src) return SIM_BAD; a /= src; break;
            case 0x40: a |= src; break;
            case 0x50: a &= src; break;
            case 0x60: a = src < 32 ? a << src : 0; break;
            case 0x70: a = src < 32 ? a >> src : 0; break;
            case 0x80: a = (uint32_t)-a; break;
            case 0xa0: a ^= src; break;
            default: return SIM_BAD;
            }
            break;
        case 0x05: { /* JMP */
            int taken;
            if ((i->code & 0xf0) == 0x00) {
                if ((size_t)i->k >= len - pc - 1)
                    return SIM_BAD;
                pc += 1 + i->k;
                continue;
            }
            switch (i->code & 0xf0) {
            case 0x10: taken = a == src; break;
            case 0x20: taken = a > src; break;
            case 0x30: taken = a >= src; break;
            case 0x40: taken = (a & src) != 0; break;
            default: return SIM_BAD;
            }
            if ((size_t)(taken ? i->jt : i->jf) >= len - pc - 1)
                return SIM_BAD;
            pc += 1 + (taken ? i->jt : i->jf);
            continue;
        }
        case 0x06: /* RET */
            if (steps)
                *steps = n;
            if (!ok)
                return SIM_BAD;
            return (i->code & 0x18) == 0x10 ? a : i->k; /* BPF_A or BPF_K */
        case 0x07: /* MISC */
            if (i->code == 0x07)
                x = a; /* TAX */
            else if (i->code == 0x87)
                a = x; /* TXA */
            else
                return SIM_BAD;
            break;
        }
        if (!ok)
            return SIM_BAD;
        pc++;
    }
    return SIM_BAD;
}

#endif
