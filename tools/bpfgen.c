/* bpfgen: compile the seccomp rule table (src/linux/seccomp_rules.c) into
 * ready-to-load classic BPF, once, at build time.
 *
 *   bpfgen --c OUT.c                 write every program for every arch family
 *   bpfgen --pfc VARIANT [ARCHFAM]   print libseccomp's pseudo-code for one
 *                                    program (after the guard, if any)
 *   bpfgen --list                    list variants and arch families
 *
 * The library never links libseccomp: it loads the arrays written here.
 * Every rule is added by name, resolved through the build host's native table:
 * libseccomp translates native numbers by name into each arch of the context,
 * including contexts that do not contain the native arch. */
#define _GNU_SOURCE
#include "linux/seccomp_rules.h"
#include "linux/bpf_sim.h"

#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BPF_MAX 4096 /* the kernel's BPF_MAXINSNS */

/* Classic BPF opcodes used by the guard (the values of linux/filter.h). */
#define OP_LD_W_ABS 0x20
#define OP_JMP_JA 0x05
#define OP_JEQ_K 0x15
#define OP_JGT_K 0x25
#define OP_JGE_K 0x35
#define OP_RET_K 0x06
#define RET_ERRNO(e) (0x00050000u | ((uint32_t)(e)&0xffffu))

struct prog {
    struct sbx_bpf_insn insn[BPF_MAX];
    size_t len;
};

static void die(const char *what, int rc)
{
    fprintf(stderr, "bpfgen: %s: %s\n", what, rc ? strerror(rc < 0 ? -rc : rc) : "failed");
    exit(1);
}

static uint32_t action_of(int action, int eperm)
{
    switch (action) {
    case SBX_SC_DENY_NET:
        return eperm ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_KILL_PROCESS;
    case SBX_SC_EPERM:
    case SBX_SC_EPERM_REC:
        return SCMP_ACT_ERRNO(EPERM);
    case SBX_SC_EACCES:
        return SCMP_ACT_ERRNO(EACCES);
    case SBX_SC_NOOP:
        return SCMP_ACT_ERRNO(0);
    case SBX_SC_NOTIFY:
        /* The kernel lets a USER_NOTIF lose to an ERRNO or KILL of any other
         * filter in the chain, so the main program's refusals still win. */
        return SCMP_ACT_NOTIFY;
    default:
        return SCMP_ACT_ERRNO(ENOSYS);
    }
}

static void add_cmp(scmp_filter_ctx ctx, uint32_t act, int nr, const char *name, unsigned arg,
                    uint64_t mask, uint64_t value)
{
    struct scmp_arg_cmp cmp;
    int rc;
    cmp.arg = arg;
    cmp.op = SCMP_CMP_MASKED_EQ;
    cmp.datum_a = mask;
    cmp.datum_b = value;
    rc = seccomp_rule_add_array(ctx, act, nr, 1, &cmp);
    if (rc != 0) {
        fprintf(stderr, "bpfgen: rule %s(arg%u & %#llx == %#llx)\n", name, arg,
                (unsigned long long)mask, (unsigned long long)value);
        die("seccomp_rule_add", rc);
    }
}

static int in_set(const struct sbx_sc_family_set *set, uint32_t v)
{
    size_t i;
    for (i = 0; i < set->n; i++)
        if (set->items[i].value == v)
            return 1;
    return 0;
}

/* 1 when a value of [base, base + size) is in the set. */
static int block_has(const struct sbx_sc_family_set *set, uint32_t base, uint32_t size)
{
    uint32_t v;
    for (v = base; v < base + size; v++)
        if (in_set(set, v))
            return 1;
    return 0;
}

static void add_rule(scmp_filter_ctx ctx, const struct sbx_sc_rule *r, uint32_t act)
{
    int nr = seccomp_syscall_resolve_name(r->syscall);
    struct scmp_arg_cmp cmps[2];
    uint32_t v;
    unsigned b;
    int rc;

    if (nr == __NR_SCMP_ERROR) {
        fprintf(stderr, "bpfgen: libseccomp does not know the syscall '%s'\n", r->syscall);
        exit(1);
    }
    switch (r->match) {
    case SBX_SC_ALWAYS:
        rc = seccomp_rule_add(ctx, act, nr, 0);
        if (rc != 0) {
            fprintf(stderr, "bpfgen: rule %s\n", r->syscall);
            die("seccomp_rule_add", rc);
        }
        break;
    case SBX_SC_ARG_MASKED:
        /* The upper half of the mask is 0: the kernel reads these int
         * arguments as 32 bits, so junk above them must not matter. */
        if (!r->and_nonzero) {
            add_cmp(ctx, act, nr, r->syscall, r->arg, r->mask, r->value);
            break;
        }
        cmps[0].arg = r->arg;
        cmps[0].op = SCMP_CMP_MASKED_EQ;
        cmps[0].datum_a = r->mask;
        cmps[0].datum_b = r->value;
        cmps[1].arg = (unsigned)(r->and_nonzero - 1);
        cmps[1].op = SCMP_CMP_NE;
        cmps[1].datum_a = 0;
        cmps[1].datum_b = 0;
        rc = seccomp_rule_add_array(ctx, act, nr, 2, cmps);
        if (rc != 0) {
            fprintf(stderr, "bpfgen: rule %s with a second condition\n", r->syscall);
            die("seccomp_rule_add", rc);
        }
        break;
    case SBX_SC_ARG_NE:
        /* All 64 bits: junk above a 32-bit pid makes it "not 0", which only
         * refuses more. */
        cmps[0].arg = r->arg;
        cmps[0].op = SCMP_CMP_NE;
        cmps[0].datum_a = r->value;
        cmps[0].datum_b = 0;
        rc = seccomp_rule_add_array(ctx, act, nr, 1, cmps);
        if (rc != 0) {
            fprintf(stderr, "bpfgen: rule %s(arg%u != %lu)\n", r->syscall, r->arg,
                    (unsigned long)r->value);
            die("seccomp_rule_add", rc);
        }
        break;
    case SBX_SC_FAMILY_IN:
        for (v = 0; v < r->families->n; v++)
            add_cmp(ctx, act, nr, r->syscall, r->arg, 0xffffffffu, r->families->items[v].value);
        break;
    case SBX_SC_FAMILY_NOT_IN:
        /* NE cannot be combined in libseccomp, so the complement is spelled
         * out: the small values as aligned power-of-two blocks free of any
         * allowed family (one masked rule each: 9 instead of 62 for AF_UNIX
         * and AF_NETLINK; the network program shrinks by a third, though
         * launch time did not change measurably), then one rule per high bit
         * for every value >= 64. A block's mask keeps bits 6..31, so it
         * matches only values < 64. */
        for (v = 0; v < SBX_SC_FAMILY_EXACT_LIMIT;) {
            uint32_t size = 1;
            if (in_set(r->families, v)) {
                v++;
                continue;
            }
            while (v % (size * 2) == 0 && v + size * 2 <= SBX_SC_FAMILY_EXACT_LIMIT &&
                   !block_has(r->families, v, size * 2))
                size *= 2;
            add_cmp(ctx, act, nr, r->syscall, r->arg, 0xffffffffu & ~(size - 1), v);
            v += size;
        }
        for (b = 6; b < 32; b++)
            add_cmp(ctx, act, nr, r->syscall, r->arg, 1u << b, 1u << b);
        break;
    default:
        die("unknown match kind", EINVAL);
    }
}

/* 1 when libseccomp multiplexes socket() into socketcall() on this arch. */
static int muxes_socket(uint32_t arch)
{
    int nr = seccomp_syscall_resolve_name_arch(arch, "socket");
    return nr <= -100 && nr >= -120;
}

/* A context holding exactly one arch: libseccomp cannot add a rule to only
 * some arches of a context, so each arch is built alone and then merged. */
static scmp_filter_ctx arch_ctx(uint32_t arch, int variant, int tree)
{
    int eperm = sbx_sc_variant_eperm(variant), action;
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    size_t i;
    int rc, mux = muxes_socket(arch);

    if (!ctx)
        die("seccomp_init", ENOMEM);
    /* A syscall of an arch not in the program (or x32) kills the whole
     * process: a thread-scoped kill would let a multi-threaded program go on. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
    if (rc != 0)
        die("SCMP_FLTATR_ACT_BADARCH", rc);
    /* A binary search over syscall numbers instead of one comparison after
     * another. When a filter is attached, the kernel runs the program once
     * for every syscall number of both ABIs (~940 on x86_64) to find the ones
     * it allows whatever the arguments (seccomp_cache_prepare); through the
     * linear chain that was ~66,000 emulated instructions for the read-only
     * program and most of its ~180 µs load. The tree takes ~23,000. write_c
     * checks the tree against the linear program verdict for verdict. */
    if (tree && (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) != 0)
        die("SCMP_FLTATR_CTL_OPTIMIZE", rc);
    if (arch != seccomp_arch_native()) {
        if ((rc = seccomp_arch_add(ctx, arch)) != 0)
            die("seccomp_arch_add", rc);
        if ((rc = seccomp_arch_remove(ctx, SCMP_ARCH_NATIVE)) != 0)
            die("seccomp_arch_remove", rc);
    }
    for (i = 0; i < sbx_sc_n_rules; i++) {
        const struct sbx_sc_rule *r = &sbx_sc_rules[i];
        int here = seccomp_syscall_resolve_name_arch(arch, r->syscall);
        /* The variant's kind decides (sbx_sc_rule_in_variant): a supervised
         * main program leaves the recorded rules to the listener's program. */
        if (!sbx_sc_rule_in_variant(r, variant, &action))
            continue;
        if ((r->abis == SBX_SC_ABI_DIRECT_SOCKET && mux) ||
            (r->abis == SBX_SC_ABI_MUX_SOCKET && !mux))
            continue;
        /* Not a syscall of this arch (chown32 on x86_64, chmod on aarch64):
         * nothing to filter. Multiplexed ones (-100..-224) are kept. */
        if (here <= -1000)
            continue;
        add_rule(ctx, r, action_of(action, eperm));
    }
    return ctx;
}

static scmp_filter_ctx build_ctx(int fam, int variant, int tree)
{
    const struct sbx_sc_archfam_info *a = &sbx_sc_archfams[fam];
    int rc;
    uint32_t an = seccomp_arch_resolve_name(a->native), ac = seccomp_arch_resolve_name(a->compat);
    scmp_filter_ctx native, compat;

    if (!an || !ac)
        die("libseccomp lacks an architecture", EINVAL);
    native = arch_ctx(an, variant, tree);
    compat = arch_ctx(ac, variant, tree);
    rc = seccomp_merge(native, compat);
    if (rc != 0)
        die("seccomp_merge", rc);
    return native;
}

static void emit(struct prog *p, uint16_t code, uint8_t jt, uint8_t jf, uint32_t k)
{
    if (p->len >= BPF_MAX)
        die("program too long", E2BIG);
    p->insn[p->len].code = code;
    p->insn[p->len].jt = jt;
    p->insn[p->len].jf = jf;
    p->insn[p->len].k = k;
    p->len++;
}

static uint8_t rel(size_t from, size_t to)
{
    if (to <= from || to - from - 1 > 255)
        die("guard jump out of range", ERANGE);
    return (uint8_t)(to - from - 1);
}

/* The guard for syscalls newer than libseccomp's table, and read-only's ioctl
 * allowlist. Decisions other than ioctl's depend only on arch and number, so
 * the kernel's action cache keeps working. Layout:
 *
 *   0  ld  arch
 *   1  jeq native  -> NAT      else 2
 *   2  jeq compat  -> CMP      else PASS  (a foreign arch: the program kills it)
 *   NAT: ld nr; [jge native_passthru -> PASS]; [jeq ioctl -> IOC]; ja COMMON
 *   CMP: ld nr; [jge compat_passthru -> PASS]; [jeq ioctl -> IOC]
 *   COMMON: jeq each refused nr -> EPERM; [jeq -1 -> PASS; jgt last_reviewed -> ENOSYS];
 *           ja PASS
 *   EPERM: ret ERRNO(EPERM)   [ENOSYS: ret ERRNO(ENOSYS)]
 *   [IOC: ld low half of args[1]; jeq each allowed request -> PASS; ret ERRNO(EPERM)]
 *   PASS: libseccomp's program, which begins by loading the arch again.
 * The bracketed parts are read-only's (sbx_sc_variant_guarded) only.
 *
 * Built in two passes: the first measures, the second fills in the jumps. */
static void guard(struct prog *p, int fam, int variant)
{
    const struct sbx_sc_archfam_info *a = &sbx_sc_archfams[fam];
    size_t nat, cmp, common, eperm_at, enosys_at, ioc, pass, i, n_refused = 0, at;
    int all = sbx_sc_variant_guarded(variant); /* ENOSYS above the last reviewed, ioctl list */

    for (i = 0; i < sbx_sc_n_newer; i++)
        n_refused += sbx_sc_newer_refused(&sbx_sc_newer[i], variant) != 0;
    nat = 3;
    cmp = nat + 2 + (a->native_passthru != 0) + (all ? 1 : 0);
    common = cmp + 1 + (a->compat_passthru != 0) + (all ? 1 : 0);
    eperm_at = common + n_refused + (all ? 3 : 1);
    enosys_at = eperm_at + 1;
    ioc = enosys_at + (all ? 1 : 0);
    pass = ioc + (all ? 1 + sbx_sc_n_ro_ioctls + 1 : 0);

    emit(p, OP_LD_W_ABS, 0, 0, 4);
    emit(p, OP_JEQ_K, rel(1, nat), 0, a->audit_native);
    emit(p, OP_JEQ_K, rel(2, cmp), rel(2, pass), a->audit_compat);
    emit(p, OP_LD_W_ABS, 0, 0, 0);
    if (a->native_passthru)
        emit(p, OP_JGE_K, rel(p->len, pass), 0, a->native_passthru);
    if (all)
        emit(p, OP_JEQ_K, rel(p->len, ioc), 0, a->ioctl_native);
    emit(p, OP_JMP_JA, 0, 0, (uint32_t)(common - p->len - 1));
    if (p->len != cmp)
        die("guard layout", EINVAL);
    emit(p, OP_LD_W_ABS, 0, 0, 0);
    if (a->compat_passthru)
        emit(p, OP_JGE_K, rel(p->len, pass), 0, a->compat_passthru);
    if (all)
        emit(p, OP_JEQ_K, rel(p->len, ioc), 0, a->ioctl_compat);
    if (p->len != common)
        die("guard layout", EINVAL);
    for (i = 0; i < sbx_sc_n_newer; i++)
        if (sbx_sc_newer_refused(&sbx_sc_newer[i], variant)) {
            at = p->len;
            emit(p, OP_JEQ_K, rel(at, eperm_at), 0, sbx_sc_newer[i].nr);
        }
    if (all) {
        /* -1 is how a tracer skips a syscall: keep the value it chose. */
        at = p->len;
        emit(p, OP_JEQ_K, rel(at, pass), 0, 0xffffffffu);
        at = p->len;
        emit(p, OP_JGT_K, rel(at, enosys_at), 0, sbx_sc_last_reviewed_nr);
    }
    emit(p, OP_JMP_JA, 0, 0, (uint32_t)(pass - p->len - 1));
    if (p->len != eperm_at)
        die("guard layout", EINVAL);
    emit(p, OP_RET_K, 0, 0, RET_ERRNO(EPERM));
    if (all)
        emit(p, OP_RET_K, 0, 0, RET_ERRNO(ENOSYS));
    if (p->len != ioc)
        die("guard layout", EINVAL);
    if (all) {
        /* ioctl: the low half of the request (offsetof args[1], little endian),
         * which is all the kernel reads; anything not listed is refused. */
        emit(p, OP_LD_W_ABS, 0, 0, 24);
        for (i = 0; i < sbx_sc_n_ro_ioctls; i++) {
            at = p->len;
            emit(p, OP_JEQ_K, rel(at, pass), 0, sbx_sc_ro_ioctls[i].request);
        }
        emit(p, OP_RET_K, 0, 0, RET_ERRNO(EPERM));
    }
    if (p->len != pass)
        die("guard layout", EINVAL);
}

static void build(struct prog *p, int fam, int variant, int tree)
{
    scmp_filter_ctx ctx = build_ctx(fam, variant, tree);
    FILE *f = tmpfile();
    long size = 0; /* clang cannot see that die() does not return */
    int rc;

    p->len = 0;
    if (sbx_sc_variant_has_guard(variant))
        guard(p, fam, variant);
    if (!f)
        die("tmpfile", errno);
    rc = seccomp_export_bpf(ctx, fileno(f));
    if (rc != 0)
        die("seccomp_export_bpf", rc);
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        die("tmpfile", errno);
    if (size % (long)sizeof(struct sbx_bpf_insn) != 0 ||
        (size_t)size / sizeof(struct sbx_bpf_insn) > BPF_MAX - p->len)
        die("program size", E2BIG);
    if (fread(&p->insn[p->len], 1, (size_t)size, f) != (size_t)size)
        die("reading the program back", EIO);
    /* The guard jumps to the generated program's first instruction and leaves
     * A holding the syscall number, so that program must reload the arch. */
    if (p->insn[p->len].code != OP_LD_W_ABS || p->insn[p->len].k != 4)
        die("libseccomp's program does not start by loading the arch", EINVAL);
    p->len += (size_t)size / sizeof(struct sbx_bpf_insn);
    fclose(f);
    seccomp_release(ctx);
}

/* The verdict of a program for (arch, nr, args), by the interpreter the unit
 * tests use; a program the interpreter rejects stops the build. */
static uint32_t run(const struct prog *p, uint32_t arch, uint32_t nr, const uint64_t args[6])
{
    struct sim_data d;
    uint32_t v;
    memset(&d, 0, sizeof d);
    d.nr = nr;
    d.arch = arch;
    memcpy(d.args, args, sizeof d.args);
    v = sim_run(p->insn, p->len, &d, NULL);
    if (v == SIM_BAD)
        die("verdict check: the program is not valid classic BPF", EINVAL);
    return v;
}

/* The argument sets the verdict check tries: fixed ones (zeros, ones, all
 * bits, junk in the upper halves) and, for every argument rule of the table,
 * its matching value, the value with the lowest masked bit flipped (a near
 * miss) and the value with junk in the upper half, each in that rule's
 * argument, so that every rule's taken and not-taken branches are run. */
#define MAX_ARGSETS 512
static size_t argsets_for(uint64_t sets[][6])
{
    static const uint64_t fixed[][6] = {
        {0, 0, 0, 0, 0, 0},
        {1, 1, 1, 1, 1, 1},
        {0xffffffff00000001ull, 0xffffffff00000200ull, 0xffffffff00000241ull, 0, 0, 0},
        {0xffffffffffffffffull, 0xffffffffffffffffull, 0xffffffffffffffffull,
         0xffffffffffffffffull, 0xffffffffffffffffull, 0xffffffffffffffffull},
    };
    size_t n = 0, i, k;

    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        memcpy(sets[n++], fixed[i], sizeof fixed[i]);
    for (i = 0; i < sbx_sc_n_rules; i++) {
        const struct sbx_sc_rule *r = &sbx_sc_rules[i];
        uint64_t v[3];
        if (r->match != SBX_SC_ARG_MASKED && r->match != SBX_SC_ARG_NE)
            continue;
        v[0] = r->value;
        v[1] = r->value ^ (r->mask & (0u - r->mask)); /* lowest mask bit flipped */
        v[2] = 0xffffffff00000000ull | r->value; /* every upper bit set */
        for (k = 0; k < 3; k++) {
            if (n >= MAX_ARGSETS)
                die("too many argument sets", E2BIG);
            memset(sets[n], 0, sizeof sets[n]);
            sets[n][r->arg] = v[k];
            if (r->and_nonzero)
                sets[n][r->and_nonzero - 1] = k == 0 ? 0x1000 : 0;
            n++;
        }
    }
    return n;
}

/* The tree must decide exactly as the linear chain does: every number below
 * 4096, -1 and the x32 range, on both ABIs and a foreign one, with the
 * argument sets above; then every socket family below 256 and each single
 * bit above, for the numbers below 600. */
static void same_verdicts(const struct prog *tree, const struct prog *linear, int fam)
{
    static uint64_t argsets[MAX_ARGSETS][6];
    static const uint32_t extra[] = {0xffffffffu, 0x40000000u, 0x40000001u, 0x40000029u,
                                     0x400001ffu, 0x7fffffffu, 0x80000000u, 0x000f0000u,
                                     0x000f0005u};
    const struct sbx_sc_archfam_info *a = &sbx_sc_archfams[fam];
    uint32_t arches[3] = {a->audit_native, a->audit_compat, 0x12345678u}, nr, f;
    uint64_t args[6];
    size_t s, i, ai, n_sets = argsets_for(argsets);

    for (ai = 0; ai < 3; ai++) {
        for (s = 0; s < n_sets; s++) {
            for (nr = 0; nr < 4096; nr++)
                if (run(tree, arches[ai], nr, argsets[s]) != run(linear, arches[ai], nr, argsets[s]))
                    die("the tree and the linear program disagree", EINVAL);
            for (i = 0; i < sizeof extra / sizeof extra[0]; i++)
                if (run(tree, arches[ai], extra[i], argsets[s]) !=
                    run(linear, arches[ai], extra[i], argsets[s]))
                    die("the tree and the linear program disagree", EINVAL);
        }
        memset(args, 0, sizeof args);
        for (nr = 0; nr < 600; nr++)
            for (f = 0; f < 256 + 24; f++) {
                args[0] = f < 256 ? f : 1ull << (f - 256 + 8);
                if (run(tree, arches[ai], nr, args) != run(linear, arches[ai], nr, args))
                    die("the tree and the linear program disagree", EINVAL);
            }
    }
}

static int write_c(const char *path)
{
    static struct prog p, linear;
    const struct scmp_version *ver = seccomp_version();
    FILE *out = fopen(path, "w");
    int fam, v;
    size_t i;

    if (!out)
        die(path, errno);
    fprintf(out, "/* Generated by tools/bpfgen.c from src/linux/seccomp_rules.c with "
                 "libseccomp %u.%u.%u.\n * Do not edit; rebuild instead. */\n",
            ver->major, ver->minor, ver->micro);
    fprintf(out, "#include \"linux/seccomp_rules.h\"\n\n");
    fprintf(out, "const char sbx_sc_generator[] = \"libseccomp %u.%u.%u\";\n\n", ver->major,
            ver->minor, ver->micro);
    for (fam = 0; fam < SBX_SC_N_ARCHFAMS; fam++)
        for (v = 0; v < SBX_SC_N_VARIANTS; v++) {
            build(&p, fam, v, 1);
            build(&linear, fam, v, 0);
            same_verdicts(&p, &linear, fam);
            fprintf(out, "static const struct sbx_bpf_insn prog_%d_%d[%zu] = { /* %s %s */\n",
                    fam, v, p.len, sbx_sc_archfams[fam].name, sbx_sc_variant_name(v));
            for (i = 0; i < p.len; i++)
                fprintf(out, "    {0x%02x, %u, %u, 0x%08lx},\n", p.insn[i].code, p.insn[i].jt,
                        p.insn[i].jf, (unsigned long)p.insn[i].k);
            fprintf(out, "};\n");
        }
    fprintf(out, "\nconst struct sbx_sc_program sbx_sc_programs[] = {\n");
    for (fam = 0; fam < SBX_SC_N_ARCHFAMS; fam++)
        for (v = 0; v < SBX_SC_N_VARIANTS; v++)
            fprintf(out,
                    "    {%d, %d, prog_%d_%d, (unsigned short)(sizeof prog_%d_%d / "
                    "sizeof prog_%d_%d[0])},\n",
                    fam, v, fam, v, fam, v, fam, v);
    fprintf(out, "};\nconst size_t sbx_sc_n_programs = sizeof sbx_sc_programs / "
                 "sizeof sbx_sc_programs[0];\n\n");
    fprintf(out, "const struct sbx_sc_program *sbx_sc_find(int archfam, int variant)\n{\n"
                 "    size_t i;\n    for (i = 0; i < sbx_sc_n_programs; i++)\n"
                 "        if (sbx_sc_programs[i].archfam == archfam && "
                 "sbx_sc_programs[i].variant == variant)\n"
                 "            return &sbx_sc_programs[i];\n    return NULL;\n}\n");
    if (fclose(out) != 0)
        die(path, errno);
    return 0;
}

static int find_variant(const char *name)
{
    int v;
    for (v = 0; v < SBX_SC_N_VARIANTS; v++)
        if (strcmp(sbx_sc_variant_name(v), name) == 0)
            return v;
    return -1;
}

static int find_fam(const char *name)
{
    int f;
    for (f = 0; f < SBX_SC_N_ARCHFAMS; f++)
        if (strcmp(sbx_sc_archfams[f].name, name) == 0)
            return f;
    return -1;
}

int main(int argc, char **argv)
{
    int v, fam = SBX_SC_X86_64;
    scmp_filter_ctx ctx;

    if (argc == 3 && strcmp(argv[1], "--c") == 0)
        return write_c(argv[2]);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (v = 0; v < SBX_SC_N_VARIANTS; v++)
            printf("variant %s\n", sbx_sc_variant_name(v));
        for (fam = 0; fam < SBX_SC_N_ARCHFAMS; fam++)
            printf("archfam %s\n", sbx_sc_archfams[fam].name);
        return 0;
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "--pfc") == 0) {
        v = find_variant(argv[2]);
        if (argc == 4)
            fam = find_fam(argv[3]);
        if (v < 0 || fam < 0) {
            fprintf(stderr, "bpfgen: unknown variant or arch family (see --list)\n");
            return 2;
        }
        if (sbx_sc_variant_guarded(v))
            printf("# preceded by the newer-syscall guard: EPERM for the refused syscalls "
                   "newer than libseccomp's table, ENOSYS above %lu\n",
                   (unsigned long)sbx_sc_last_reviewed_nr);
        else if (sbx_sc_variant_has_guard(v))
            printf("# preceded by the newer-syscall guard: EPERM for the refused syscalls "
                   "newer than libseccomp's table\n");
        fflush(stdout);
        ctx = build_ctx(fam, v, 1);
        v = seccomp_export_pfc(ctx, 1);
        seccomp_release(ctx);
        return v == 0 ? 0 : 1;
    }
    fprintf(stderr, "usage: bpfgen --c OUT.c | --pfc VARIANT [x86_64|aarch64] | --list\n");
    return 2;
}
