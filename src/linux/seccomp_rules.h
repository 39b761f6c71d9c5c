/* The seccomp rule table: one portable description of every rule the Linux
 * backend loads. tools/bpfgen.c compiles it into BPF at build time (with
 * libseccomp), and sbx_seccomp_explain() prints it, so the words can never
 * drift from the program that is loaded. Pure data; compiles on any host. */
#ifndef SANDBOX_SECCOMP_RULES_H
#define SANDBOX_SECCOMP_RULES_H

#include "linux.h"

#include <stddef.h>
#include <stdint.h>

/* Rule groups. A program variant is a set of groups. */
enum sbx_sc_group {
    SBX_SC_NET = 1u << 0,    /* network deny: only local socket families */
    SBX_SC_NOSOCK = 1u << 1, /* read-only: no socket of any family */
    SBX_SC_FS = 1u << 2,     /* confined fs: the truncation routes Landlock leaves open */
    SBX_SC_RO = 1u << 3,     /* read-only: metadata, IPC, keyring, ... */
    SBX_SC_TTY = 1u << 4,    /* every confining mode: terminal input injection */
    SBX_SC_CREATE = 1u << 5, /* the creation guard's own program (src/linux/guard.c) */
    SBX_SC_KERNEL = 1u << 6, /* every confining mode: loop, tun, mount API, core limit */
    SBX_SC_USERNS = 1u << 7, /* no new user namespace: read-only, or the policy switch */
    SBX_SC_PROCS = 1u << 8   /* no effect on another process (limits, priority, CPUs):
                                read-only, and every supervised run (its supervisor) */
};
#define SBX_SC_LAST_GROUP SBX_SC_PROCS

/* What a matching syscall gets. */
enum sbx_sc_action {
    SBX_SC_DENY_NET, /* killed with SIGSYS, or EPERM under SANDBOX_DENY_EPERM */
    SBX_SC_EPERM,
    SBX_SC_EACCES,
    SBX_SC_ENOSYS,
    SBX_SC_NOTIFY, /* stops in the kernel until the creation guard answers */
    SBX_SC_NOOP,   /* returns 0 without doing anything (SECCOMP_RET_ERRNO with 0) */
    SBX_SC_EPERM_REC /* EPERM; in a supervised run the supervisor records it first */
};

/* How a rule looks at the arguments. */
enum sbx_sc_match {
    SBX_SC_ALWAYS,        /* whatever the arguments */
    SBX_SC_ARG_MASKED,    /* (low 32 bits of arg & mask) == value */
    SBX_SC_FAMILY_IN,     /* socket domain (low 32 bits) is one of the set */
    SBX_SC_FAMILY_NOT_IN, /* socket domain is any other value, 64 and above included */
    SBX_SC_ARG_NE         /* the whole 64-bit arg != value: junk above a 32-bit id refuses */
};

/* A set of socket families, with the reason each is in it. */
struct sbx_sc_family {
    uint32_t value;
    const char *name;
    const char *why;
};

struct sbx_sc_family_set {
    const struct sbx_sc_family *items;
    size_t n;
};

/* Which ABIs a rule is compiled for. libseccomp turns a socket() rule on
 * i386 into both the direct syscall and socketcall(SYS_SOCKET), dropping the
 * argument test for the latter; two socket() rules with different actions
 * would then collide there, so such ABIs get one unconditional rule instead. */
enum sbx_sc_abis {
    SBX_SC_ABI_ALL,          /* every ABI */
    SBX_SC_ABI_DIRECT_SOCKET, /* ABIs where socket() is only a direct syscall */
    SBX_SC_ABI_MUX_SOCKET     /* ABIs where libseccomp multiplexes socket() (i386) */
};

struct sbx_sc_rule {
    unsigned groups;     /* enum sbx_sc_group bits this rule belongs to */
    int abis;            /* enum sbx_sc_abis */
    const char *syscall; /* the name libseccomp and the kernel tables use */
    int match;           /* enum sbx_sc_match */
    unsigned arg;        /* the argument compared (ARG_MASKED, FAMILY_*) */
    uint32_t mask, value;
    const struct sbx_sc_family_set *families; /* FAMILY_* */
    int action;          /* enum sbx_sc_action */
    const char *what;    /* the condition in words, for explain ("" = any arguments) */
    const char *why;     /* one line: why the rule exists */
    int and_nonzero;     /* ARG_MASKED only: 1 + an argument that must also be non-zero
                            for the rule to match (0: no second condition) */
};

extern const struct sbx_sc_rule sbx_sc_rules[];
extern const size_t sbx_sc_n_rules;
extern const struct sbx_sc_family_set sbx_sc_local_families; /* allowed under network deny */
extern const struct sbx_sc_family_set sbx_sc_inet_families;  /* killed even in read-only */

/* Syscalls newer than libseccomp's table. A hand-written guard placed before
 * the generated program decides them by number (the same on every supported
 * ABI from 424 on): EPERM in the variants holding one of `refused_in`'s
 * groups; in read-only mode everything above the last one reviewed gets
 * ENOSYS too, so a syscall the table does not know is refused, never allowed. */
struct sbx_sc_newer {
    uint32_t nr;
    const char *name;
    unsigned refused_in; /* groups whose variants refuse it; 0: allowed (reviewed) */
};
extern const struct sbx_sc_newer sbx_sc_newer[];
extern const size_t sbx_sc_n_newer;
extern const uint32_t sbx_sc_last_reviewed_nr;

/* Read-only mode's ioctl allowlist: the newer-syscall guard of the guarded
 * variants compares the low 32 bits of the request (the kernel's `unsigned
 * int cmd`) with these and answers every other request EPERM. */
struct sbx_sc_ioctl {
    uint32_t request;
    const char *name;
    const char *why; /* why it is harmless in read-only mode */
};
extern const struct sbx_sc_ioctl sbx_sc_ro_ioctls[];
extern const size_t sbx_sc_n_ro_ioctls;

/* How a variant uses the rules of its groups. The recorded rules (DENY_NET
 * and EPERM_REC: a refused socket, io_uring setup) are what a person wants
 * named; a supervised run moves them from the main program to the listener's,
 * because the kernel lets any filter's kill or errno win over a notification. */
enum sbx_sc_kind {
    SBX_SC_K_PLAIN,      /* every rule as written: the exec path */
    SBX_SC_K_SUPERVISED, /* a supervised run's main program: recorded rules left out */
    SBX_SC_K_NOTIFY      /* the listener's program: recorded rules notify; the creation
                            guard's rules as written; nothing else */
};

/* Program variants, chosen from the resolved policy. */
enum sbx_sc_variant {
    SBX_SC_V_CONFINED,        /* confined fs, network allowed */
    SBX_SC_V_NET,             /* network deny, fs unrestricted */
    SBX_SC_V_NET_EPERM,
    SBX_SC_V_NET_CONFINED,    /* network deny and confined fs */
    SBX_SC_V_NET_CONFINED_EPERM,
    SBX_SC_V_READ_ONLY,
    SBX_SC_V_READ_ONLY_EPERM,
    /* The creation guard: a second program stacked on the one above (or
     * alone), loaded with a user-notification listener. Never chosen by
     * sbx_sc_variant_for. */
    SBX_SC_V_CREATE_NOTIFY,
    /* No new user namespace: stacked on the main program when the policy
     * asks for it outside read-only mode (which refuses them itself). */
    SBX_SC_V_NO_USERNS,
    /* A supervised run (src/linux/supervisor.c): the main programs without
     * their recorded rules, and the listener's programs that notify them. */
    SBX_SC_V_CONFINED_SUP,
    SBX_SC_V_NET_SUP,
    SBX_SC_V_NET_CONFINED_SUP,
    SBX_SC_V_READ_ONLY_SUP,
    SBX_SC_V_NOTIFY_CONFINED,
    SBX_SC_V_NOTIFY_NET,
    SBX_SC_V_NOTIFY_READ_ONLY,
    SBX_SC_V_CREATE_NOTIFY_NET, /* the creation guard and the network records in one:
                                   the kernel allows one listener per filter chain */
    SBX_SC_N_VARIANTS
};

/* The groups of a variant, whether DENY_NET means EPERM, whether the
 * newer-syscall guard refuses every unreviewed number, whether a guard comes
 * first at all (it also does for a refused newer syscall), and its name
 * ("net", "read-only-eperm"). */
unsigned sbx_sc_variant_groups(int variant);
int sbx_sc_variant_kind(int variant);
int sbx_sc_variant_eperm(int variant);
int sbx_sc_variant_guarded(int variant);
int sbx_sc_variant_has_guard(int variant);
/* 1 when the newer syscall is refused in the variant. */
int sbx_sc_newer_refused(const struct sbx_sc_newer *n, int variant);
const char *sbx_sc_variant_name(int variant);

/* Map a resolved policy to a variant. Returns the variant, -1 when no filter
 * is needed, or -2 when the policy cannot be enforced by seccomp (*why says
 * why). */
int sbx_sc_variant_for(const sbx_resolved *r, const char **why);
/* 1 when the policy needs the creation guard: Linux, a read-write protected
 * pattern, and a filesystem mode that can create names (not read-only). */
int sbx_sc_guard_wanted(const sbx_resolved *r);
/* A supervised run's programs for the plain variant `plain` (-1: none):
 * its main program (-1 when there is none) and its listener's program (-1
 * when nothing is recorded and `guard` is 0). */
int sbx_sc_supervised_variant(int plain);
int sbx_sc_notify_variant(int plain, int guard);
/* 1 when the rule's refusal is recorded in a supervised run. */
int sbx_sc_rule_recorded(const struct sbx_sc_rule *rule);
/* Whether variant `v` holds `rule`, and the action it gives it there
 * (enum sbx_sc_action, SBX_SC_NOTIFY for a recorded rule of a listener's
 * program): the one place the kinds are decided, for bpfgen and explain. */
int sbx_sc_rule_in_variant(const struct sbx_sc_rule *rule, int v, int *action);

/* Architecture families: a native ABI and the compat ABI its kernel runs. */
enum sbx_sc_archfam { SBX_SC_X86_64, SBX_SC_AARCH64, SBX_SC_N_ARCHFAMS };

struct sbx_sc_archfam_info {
    const char *name;        /* "x86_64" */
    const char *native;      /* libseccomp arch names */
    const char *compat;
    uint32_t audit_native;   /* AUDIT_ARCH_* as seccomp_data.arch reports them */
    uint32_t audit_compat;
    uint32_t native_passthru; /* nr >= this skips the guard (x32 bit); 0: none */
    uint32_t compat_passthru; /* nr >= this skips the guard (ARM private); 0: none */
    uint32_t ioctl_native;    /* ioctl's number on each ABI, for the allowlist */
    uint32_t ioctl_compat;
};
extern const struct sbx_sc_archfam_info sbx_sc_archfams[SBX_SC_N_ARCHFAMS];

/* A generated program (the table lives in the build directory). */
struct sbx_sc_program {
    int archfam; /* enum sbx_sc_archfam */
    int variant; /* enum sbx_sc_variant */
    const struct sbx_bpf_insn *insns;
    unsigned short len;
};
extern const struct sbx_sc_program sbx_sc_programs[];
extern const size_t sbx_sc_n_programs;
extern const char sbx_sc_generator[]; /* "libseccomp 2.5.4" */

/* The program for (archfam, variant), or NULL. */
const struct sbx_sc_program *sbx_sc_find(int archfam, int variant);

/* Socket-family expansion used by the generator and the tests: values 0..63
 * are compared one by one; every value >= 64 has a bit from 6 to 31 set, and
 * one rule per bit catches them all. */
#define SBX_SC_FAMILY_EXACT_LIMIT 64u

#endif
