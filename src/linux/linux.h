/* The Linux backend: policy -> plan (may allocate, open files, fail slowly)
 * -> apply (a short list of async-signal-safe system calls).
 *
 * Portable parts (rule tables, rights per Landlock ABI, explain) compile on
 * every host; prepare/apply compile on Linux only. */
#ifndef SANDBOX_LINUX_H
#define SANDBOX_LINUX_H

#include "../internal.h"

#include <stdint.h>
#include <sys/types.h>

/* Same layout as the kernel's struct sock_filter, usable on any host. */
struct sbx_bpf_insn {
    uint16_t code;
    uint8_t jt;
    uint8_t jf;
    uint32_t k;
};

/* Privileged AF_UNIX sockets to close (src/linux/unixep.c). */
struct sbx_unix_ep {
    char *path;       /* as listed */
    char *real;       /* its real path: what the mask covers */
    const char *what; /* static: whose socket it is */
    int named;        /* the host named it (--deny-unix): never left open */
    /* A session bus served through a filtering proxy (dbusproxy.c): the
     * proxy's socket, bound over `real` instead of /dev/null, and an O_PATH
     * descriptor of the inode checked at prepare. NULL and -1 otherwise. */
    char *cover;
    int cover_fd;
};
/* A folder between a listed socket and the writable root it lies in: bound
 * onto itself so that no run can rename it (a mount point: EBUSY) and leave
 * the next run's list pointing at nothing. */
struct sbx_unix_pin {
    char *path;
    int named; /* on the way to a socket the host named: never skipped */
};
struct sbx_unix_list {
    struct sbx_unix_ep *e;
    size_t n;
    struct sbx_unix_pin *pin; /* deepest first */
    size_t n_pin;
};

/* Everything apply needs, built before it runs. */
struct sbx_linux_plan {
    int ruleset_fd;                 /* Landlock ruleset, -1 when there is none */
    uint32_t landlock_flags;        /* flags for landlock_restrict_self */
    uint64_t drop_caps;             /* capabilities to drop (sbx_caps_drop_mask); 0: none */
    const struct sbx_bpf_insn *bpf; /* seccomp program, NULL when there is none */
    unsigned short bpf_len;
    struct sbx_mask_plan *mask;     /* protected paths (mask.c), NULL when none */
    struct sbx_guard *guard;        /* the creation guard (guard.c), NULL when off */
    const struct sbx_bpf_insn *userns_bpf; /* no-userns, stacked; NULL when not asked */
    unsigned short userns_bpf_len;
    int rootfs; /* root's private mount namespace (rootfs.c): enum sbx_rootfs, 0 none */
    int root_nosa; /* root without CAP_SYS_ADMIN: no namespace, descriptors checked */
    /* With rootfs in confined mode: every mount is made read-only but
     * these trees (the writable roots and /dev; /proc until the end),
     * which keep the flags they had, so root changes no file's metadata
     * outside the roots (sbx_rootfs_keep_plan). NULL, 0 otherwise. */
    struct sbx_keep_tree *keep;
    size_t n_keep;
    /* With rootfs: the privileged sockets apply covers in root's namespace
     * (root keeps its DAC capabilities there; without rootfs the masks'
     * user namespace covers them, mask.c). */
    struct sbx_unix_list unix_eps;
    /* What apply grants Landlock once the namespace steps have made it (its
     * inodes are new, so no rule made before the fork can name them):
     * enum sbx_dev_grant, with dev_rights. A plan shared by several
     * commands must not carry it: apply adds the rule to plan->ruleset_fd
     * (sbx_linux_plan_for_command gives each command a ruleset). */
    int dev_grant;
    uint64_t dev_rights;
    int own_ruleset; /* 1: ruleset_fd belongs to this command's copy of a plan */
    /* A supervised run (supervisor.h): the main program without the
     * recorded refusals, and the listener's program; NULL when there is
     * none. How a recorded refusal is answered. */
    const struct sbx_bpf_insn *sup_bpf;
    unsigned short sup_bpf_len;
    const struct sbx_bpf_insn *lsn_bpf;
    unsigned short lsn_bpf_len;
    int deny_action; /* enum sandbox_deny_action */
    int nosock;      /* read-only: a local socket is refused too (EPERM) */
    /* Set per run, never in a shared plan: NULL takes the exec path (one
     * exec, no process stays); else the run is supervised with these. */
    const struct sbx_sup_opts *sup;
    int unconfined; /* with sup: an all-off policy, supervised for its lifecycle only */
};

/* A tree root's namespace keeps as the host mounted it while every other
 * mount becomes read-only: its path and identity when the plan was made. */
struct sbx_keep_tree {
    char *path;
    dev_t dev;
    ino_t ino;
};
/* More is refused when the plan is made: apply keeps them on its stack. */
#define SBX_KEEP_MAX 128

/* Root's namespace: its /dev's device nodes made anew (mknod), or bound
 * from the host's where Landlock rules made before the fork name them. */
enum sbx_rootfs { SBX_ROOTFS_NONE = 0, SBX_ROOTFS_NODES = 1, SBX_ROOTFS_BIND_NODES = 2 };
/* The rule apply adds after the namespace steps. */
enum sbx_dev_grant {
    SBX_DEV_GRANT_NONE = 0,
    SBX_DEV_GRANT_DEV = 1, /* root's new /dev (a tmpfs), its devpts included */
    SBX_DEV_GRANT_PTS = 2  /* the masks' devpts instance on /dev/pts */
};

/* The steps of apply, in order. Reported (with errno) when one fails. */
enum sbx_step {
    SBX_STEP_NONE = 0,
    SBX_STEP_NO_NEW_PRIVS = 1,
    SBX_STEP_CAPS = 2,
    SBX_STEP_LANDLOCK = 3,
    SBX_STEP_SECCOMP = 4,
    SBX_STEP_MASK = 5, /* protected paths: namespace, masks, caps, Landlock lock */
    SBX_STEP_CORE = 6, /* done first: core dumps off (RLIMIT_CORE 0) */
    SBX_STEP_GUARD = 7, /* the creation guard: fork, notify filter, listener */
    SBX_STEP_ROOTFS = 8, /* root: read-only /proc/sys and /sys, a narrowed /dev */
    /* An inherited descriptor that would reach the host's mounts from the
     * private namespace; "errno" is its number (sbx_fds_check). */
    SBX_STEP_FD_DIR = 9,
    SBX_STEP_FD_PATH = 10,
    SBX_STEP_FD_FILE = 11, /* a file the namespace hides or makes read-only */
    SBX_STEP_SUPERVISOR = 12, /* a supervised run without the guard: fork, listener */
    SBX_STEP_LIMITS = 13,     /* the run's cgroup and rlimits (reslimits.c) */
    SBX_STEP_FD_DEV = 14,     /* a block device inherited open: reopened on the host's /dev */
    SBX_STEP_KERNEL_MOUNTS = 15, /* root: another mount of a kernel fs left writable */
    /* Root without CAP_SYS_ADMIN: a descriptor ("errno" its number), the
     * working directory (-1) or the root (-2) on a writable kernel fs. */
    SBX_STEP_FD_KERNEL = 16,
    SBX_STEP_NOSA_DIR = 17,    /* ...: an inherited directory or O_PATH descriptor */
    SBX_STEP_NOSA_FOREIGN = 18 /* ...: cwd or root not in the mount table ("errno") */
};

/* Build the plan. On success the caller owns plan->ruleset_fd (release with
 * sbx_linux_plan_release). `warning` collects best-effort degradations. */
int sbx_linux_prepare(const sandbox_policy *policy, struct sbx_linux_plan *plan, char *warning,
                      size_t warning_size, sandbox_error *err);
/* The part of the plan that depends on the policy and the machine only, for
 * a policy already resolved for Linux: seccomp program, Landlock ruleset,
 * capabilities. plan->mask stays NULL: the protected-path scan reads the
 * files as they are, so it belongs to each command (sbx_mask_prepare); only
 * whether this machine can give the protection is checked here. */
int sbx_linux_prepare_resolved(const sbx_resolved *r, struct sbx_linux_plan *plan, char *warning,
                               size_t warning_size, sandbox_error *err);
void sbx_linux_plan_release(struct sbx_linux_plan *plan);

/* Apply the plan to the calling thread. Async-signal-safe: safe in a child
 * between fork and exec. Returns SBX_STEP_NONE, or the step that failed with
 * its errno in *sys_errno. After a failure the thread may be partly confined:
 * the caller must not run the command. */
int sbx_linux_apply(const struct sbx_linux_plan *plan, int *sys_errno);
/* The same in a child of a multi-threaded process (sandbox_spawn): the
 * creation guard forks with the raw system call, running no atfork handler. */
int sbx_linux_apply_spawned(const struct sbx_linux_plan *plan, int *sys_errno);

/* For one command of a plan shared by several (sandbox_spawn): `run` is a
 * copy of the shared plan; when apply will add a rule to its ruleset (a
 * private devpts instance), give it a ruleset of its own, so the shared one
 * never grows. Release with sbx_linux_plan_for_command_done. */
int sbx_linux_plan_for_command(const sbx_resolved *r, struct sbx_linux_plan *run,
                               sandbox_error *err);
void sbx_linux_plan_for_command_done(struct sbx_linux_plan *run);

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

/* The no-userns program when the policy refuses user namespaces outside
 * read-only mode (whose own program refuses them); NULL otherwise. */
/* The no-userns program whatever the policy (a run whose cgroup must hold
 * a confined command: clone3 ENOSYS). */
int sbx_seccomp_no_userns(const struct sbx_bpf_insn **bpf, unsigned short *len,
                          sandbox_error *err);
int sbx_seccomp_select_userns(const sbx_resolved *r, const struct sbx_bpf_insn **bpf,
                              unsigned short *len, sandbox_error *err);

/* ---- root's mount namespace (src/linux/rootfs.c) ---- */

/* 1 when the command keeps uid 0 in a confining mode (caps are dropped). */
int sbx_rootfs_wanted(uint64_t drop_caps);
/* Whether this process can build the namespace: 1 yes; 0 no, but every
 * mount of a kernel file system is read-only already (a warning says /dev
 * is not narrowed); SANDBOX_E_UNSUPPORTED, err set, when neither. */
int sbx_rootfs_check(char *warning, size_t warning_size, sandbox_error *err);
/* The trees a confined root command's namespace keeps writable: the
 * writable roots (less those beneath another), /dev and, until the masks'
 * maps are written, /proc, each with
 * its identity now. *keep is NULL when there is none; free with
 * sbx_rootfs_keep_free. SANDBOX_OK or an error. */
int sbx_rootfs_keep_plan(const sbx_resolved *r, struct sbx_keep_tree **keep, size_t *n,
                         sandbox_error *err);
void sbx_rootfs_keep_free(struct sbx_keep_tree *keep, size_t n);
/* Enter the namespace and narrow it; `bind_nodes`: bind the host's device
 * nodes instead of making them; with `keep` (n_keep > 0), every mount but
 * those trees read-only. Async-signal-safe. 0, or -1 with *sys_errno set;
 * -2 when another mount of a kernel file system could not be made read-only. */
int sbx_rootfs_apply(int bind_nodes, const struct sbx_keep_tree *keep, size_t n_keep,
                     int *sys_errno);
/* /proc read-only with everything beneath it, in a confined root run with
 * keep: a chmod of a /proc entry is the host's (review r37 F1). Done last,
 * after the masks' user namespace wrote its maps there. Async-signal-safe;
 * 0, or -1 with *sys_errno. */
int sbx_rootfs_proc_read_only(int *sys_errno);
/* Inherited descriptors on the host's memory devices (/dev/null, zero,
 * full, random, urandom) replaced by the command's own, same number and
 * flags: a confined root command cannot change the host's nodes through
 * them. After the namespace steps; async-signal-safe; 0, or -1. */
int sbx_rootfs_own_devices(int *sys_errno);
/* Root without CAP_SYS_ADMIN, which has no namespace of its own: 1 when the
 * working directory (*which -1), the root (-2) or an inherited descriptor
 * (its number) is on a writable kernel file system mount; 2 when an
 * inherited descriptor is a directory or O_PATH; 3 (*which an errno) when
 * the mount table does not list the working directory's and the root's
 * mounts, or cannot be read; 4 when a kernel file system is mounted
 * writable now; 0 when none. Async-signal-safe. */
int sbx_rootfs_nosa_check(int *which);
/* In a mount namespace the caller may change (the masks' user namespace):
 * mount a devpts instance of the command's own over /dev/pts when that is a
 * devpts, so no other terminal of the host has a name. Async-signal-safe;
 * 0, or -1 with *sys_errno set. */
int sbx_rootfs_private_pts(int *sys_errno);
/* In such a namespace where root's step did not run: every mount nodev but
 * /dev itself (made a mount of its own if it was not), so a device node
 * reached through another mount (a bind of the host's /dev elsewhere)
 * does not open. Skipped where "/" is no mount point. Async-signal-safe;
 * 0, or -1 with *sys_errno set. */
int sbx_rootfs_nodev_but_dev(int *sys_errno);
/* For the self-test: how many block devices in /dev a non-root caller can
 * open for reading (the disk group), the first one's path in `first`. 0 for
 * root, whose commands never see them. */
int sbx_rootfs_readable_disks(char *first, size_t first_size);
/* How many macvtap/ipvtap nodes (/dev/tap<digits>, character devices) this
 * process may open for reading or writing, the first one's path in `first`:
 * raw frames through plain read/write, which no seccomp rule can tell from a
 * file. */
int sbx_rootfs_openable_taps(char *first, size_t first_size);

/* ---- Landlock (src/linux/landlock.c) ---- */

/* The ABI version of the running kernel's Landlock, 0 when absent (ENOSYS,
 * EOPNOTSUPP), or a negative errno when the probe failed for another reason
 * (a seccomp profile's EPERM, ENOMEM): confining callers fail closed then,
 * never degrade. *why says why it is absent (for warnings and self-test). */
int sbx_landlock_abi(const char **why);
/* Create and fill the ruleset for the policy. *ruleset_fd is -1 when no
 * Landlock layer is needed, or (confined mode only) when the kernel has none:
 * then a warning is appended. Read-only mode fails instead. */
int sbx_landlock_prepare(const sbx_resolved *r, int *ruleset_fd, uint32_t *restrict_flags,
                         char *warning, size_t warning_size, sandbox_error *err);

/* After the namespace steps: grant `rights` beneath what they made (enum
 * sbx_dev_grant: /dev when it is a tmpfs, /dev/pts when it is a devpts), on
 * the ruleset about to be enforced. Async-signal-safe; 0, or -1 with
 * *sys_errno set. */
int sbx_landlock_grant_dev(int ruleset_fd, int what, uint64_t rights, int *sys_errno);

/* ---- the Landlock plan (src/linux/landlock_rules.c, portable) ---- */

/* What a ruleset handles: a handled right is denied unless a rule grants it. */
struct sbx_landlock_handled {
    uint64_t fs;
    uint64_t net;
    uint64_t scoped;
};

/* One path-beneath rule. Whether the path is a directory is only known when
 * it is opened, so both grants are listed. */
struct sbx_landlock_rule {
    const char *path;     /* borrowed from the resolved policy, or static */
    const char *label;    /* what it is, for explain: "project", "null device"... */
    uint64_t dir_rights;  /* granted when the path is a directory; 0: must not be one */
    uint64_t file_rights; /* granted when it is not a directory */
    int mandatory;        /* 1: missing or unusable is an error; 0: skipped with a warning */
    int device;           /* 1: a /dev entry: skipped silently when missing, never a block device */
    const char *gate;     /* added (a '*' path: expanded) only when this exists; NULL: always */
    int root;             /* a writable root: 1, or 2 for the shared /tmp (may hold the home);
                           * opened without following links and checked by identity; a
                           * read root from the home or the host likewise 1 */
    int system;           /* an OS tree: skipped silently when this machine lacks it */
    int others;           /* for root, only what every account may read (landlock.c walks) */
};

/* When the terminal on fds 0-2 gets a rule of its own. */
enum sbx_ll_terminal {
    SBX_LL_TERMINAL_NONE = 0,
    SBX_LL_TERMINAL_REQUIRED = 1, /* read-only: with /dev/tty; an unnamed terminal is an error */
    SBX_LL_TERMINAL_IF_NAMED = 2  /* confined: outside /dev/pts only, skipped when unnamed */
};

struct sbx_landlock_plan {
    int abi;                             /* the ABI the plan was computed for */
    struct sbx_landlock_handled handled; /* all zero: no Landlock layer at all */
    struct sbx_landlock_rule *rules;
    size_t n_rules;
    int terminal; /* enum sbx_ll_terminal: also grant the terminal on fds 0-2 */
};

/* The rights handled for this ABI (0..7, higher is treated as 7), filesystem
 * mode and network mode. All zero when no Landlock layer is wanted. */
void sbx_landlock_handled_for(int abi, int filesystem, int network,
                              struct sbx_landlock_handled *h);
/* The rights a rule grants the terminal device in read-only mode. */
uint64_t sbx_landlock_terminal_rights(int abi);
/* Compute the whole plan for `r` on a kernel with Landlock ABI `abi` (0 when
 * absent; `why` then says why). Returns SANDBOX_OK, with a warning appended
 * when a best-effort layer degrades to nothing; SANDBOX_E_UNSUPPORTED when
 * read-only mode cannot be enforced on this ABI; SANDBOX_E_NOMEM. */
int sbx_landlock_plan_build(const sbx_resolved *r, int abi, const char *why,
                            struct sbx_landlock_plan *plan, char *warning, size_t warning_size,
                            sandbox_error *err);
void sbx_landlock_plan_free(struct sbx_landlock_plan *plan);
/* Explain the plan as it would be on ABI `abi`; `abi_note` says where that
 * number comes from ("this kernel", "assumed: not a Linux host"). */
void sbx_landlock_explain_abi(const sbx_resolved *r, int abi, const char *why,
                              const char *abi_note, int json, sbx_buf *out);
/* Append the names of the rights in `mask` ("write_file,make_dir"). kind is
 * 0 for filesystem, 1 for network, 2 for scopes. */
void sbx_landlock_rights_names(int kind, uint64_t mask, int json, sbx_buf *out);

/* ---- capabilities (src/linux/caps_rules.c, portable; src/linux/caps.c) ---- */

/* Bit n is capability n (the kernel's numbering, linux/capability.h). */
#define SBX_CAP_BIT(n) (1ULL << (n))
#define SBX_CAPS_ALL (~0ULL)
/* What a root command keeps in confined and network-denied modes: file
 * ownership and permission overrides, signals, changing uid/gid, low ports,
 * mlock, audit records. docs/landlock.md weighs every capability. */
#define SBX_CAPS_KEEP                                                                              \
    (SBX_CAP_BIT(0) /* chown */ | SBX_CAP_BIT(1) /* dac_override */ |                            \
     SBX_CAP_BIT(3) /* fowner */ | SBX_CAP_BIT(4) /* fsetid */ | SBX_CAP_BIT(5) /* kill */ |       \
     SBX_CAP_BIT(6) /* setgid */ | SBX_CAP_BIT(7) /* setuid */ |                                 \
     SBX_CAP_BIT(10) /* net_bind_service */ | SBX_CAP_BIT(14) /* ipc_lock */ |                   \
     SBX_CAP_BIT(29) /* audit_write */)

/* The capabilities to drop for a mode: SBX_CAPS_ALL in read-only mode,
 * ~SBX_CAPS_KEEP when the network is denied or the filesystem confined, 0
 * otherwise. */
uint64_t sbx_caps_drop_mask(int filesystem, int network);
/* "sys_admin" for 21; NULL past the last capability this library names. */
const char *sbx_cap_name(int cap);
void sbx_caps_explain(const sbx_resolved *r, int json, sbx_buf *out);

/* Drop the capabilities in `mask` from the inheritable, permitted, effective
 * and ambient sets, then check they are gone. Call only with no_new_privs set:
 * that, not the bounding set, keeps an exec from regaining them, so a partial
 * mask leaves the bounding set unchanged. SBX_CAPS_ALL also empties the
 * bounding set and sets and locks the securebits (when CAP_SETPCAP is
 * effective) so an exec as uid 0 regains nothing. A caller holding none of
 * them (an ordinary user) changes nothing and succeeds. Async-signal-safe.
 * Returns 0 or an errno. */
int sbx_caps_drop(uint64_t mask);
/* 1 when the calling thread holds any capability of `mask` in its
 * effective, permitted or inheritable set (or they cannot be read). */
int sbx_caps_held(uint64_t mask);

/* ---- privileged AF_UNIX endpoints (src/linux/unixep.c) ---- */

/* The privileged sockets that exist now (the default list, the D-Bus
 * addresses of the environment, the host's --deny-unix), less the host's
 * --allow-unix, when writes are confined; an empty list otherwise; with the
 * folders to pin on their way (l->pin). SANDBOX_E_REFUSED for a socket with
 * a second name the mask would miss, and for a listed (or allowed) path
 * whose lookup passes through a name a command could rename or replace. */
int sbx_unix_endpoints(const sbx_resolved *r, struct sbx_unix_list *l, sandbox_error *err);
void sbx_unix_list_free(struct sbx_unix_list *l);
/* Serve each session bus of `l` this user owns through a filtering proxy
 * where one can be had (dbusproxy.c); the others stay covered by
 * /dev/null. Starts a proxy when none runs yet: call it for a launch only,
 * never for --explain or a self-test. */
void sbx_unix_proxy_buses(const sbx_resolved *r, struct sbx_unix_list *l);

/* dbusproxy.c */
#define SBX_DBUS_PROXY_BIN "/usr/bin/xdg-dbus-proxy"
int sbx_dbus_proxy_installed(void);
/* Find (or start) the proxy for the bus at `bus_real` in the private folder
 * `dir`, waiting until `deadline` at most: 0 with its socket path and an O_PATH descriptor of it, or -1 with
 * `why`. */
int sbx_dbus_proxy_find(const char *dir, const char *bus_real, long long deadline, char **cover,
                        int *cover_fd, char *why, size_t why_size);
/* The deadline for all of one launch's proxies (monotonic ms). */
long long sbx_dbus_deadline(void);
/* The hash in a proxy's name: the bus's real path and the filter. */
uint64_t sbx_dbus_proxy_hash(const char *bus_real);
/* Async-signal-safe: a descriptor of this mount namespace's own reaching the
 * checked inode, named in `src` ("/proc/self/fd/N"), or -1 (then cover with
 * /dev/null). */
int sbx_dbus_cover_open(const char *cover, int cover_fd, char *src, size_t size);
/* A supervised run's stand-ins for the closed sockets (issue 20's records):
 * listening sockets of the supervisor's own, each bound over one masked
 * name instead of /dev/null. The supervisor accepts, records who connected
 * to which name, and closes at once, reading nothing. Made by apply in the
 * process that forks the supervisor; the command's side closes them. */
#define SBX_COVER_MAX 32
struct sbx_covers {
    int n;
    int fd[SBX_COVER_MAX];           /* listening, close-on-exec, non-blocking */
    const char *path[SBX_COVER_MAX]; /* the masked name (the plan's string) */
};
/* Cover the socket at `target` with a new listener of `c`'s. Only a socket,
 * and only where the command could connect to what is there (`may_connect`,
 * the caller's access check with the command's credentials, made before any
 * user namespace: a refused connect stays refused, unrecorded). Async-
 * signal-safe. 0, or -1: not made (NULL c, full, gone, no room in /tmp or
 * /dev/shm): the caller covers it with /dev/null, closed as well, and the
 * connect is not recorded. */
int sbx_unix_cover(struct sbx_covers *c, const char *target, int may_connect);
/* Cover each socket of `l` with /dev/null, read-only, nodev, in the
 * calling process's own mount namespace (root's: rootfs.c), or with a
 * listener of `cov` (non-NULL in a supervised run). Async-signal-safe. 0,
 * or -1 with *sys_errno. */
int sbx_unix_mask_apply(const struct sbx_unix_list *l, struct sbx_covers *cov, int *sys_errno);
/* Bind each folder of l->pin onto itself (with what is mounted below it,
 * the masks included), after the masks. Async-signal-safe. 0, or -1 with
 * *sys_errno. */
int sbx_unix_pin_apply(const struct sbx_unix_list *l, int *sys_errno);
/* The endpoints for --explain (text, or a JSON member starting with ','). */
void sbx_unix_explain(const sbx_resolved *r, int json, sbx_buf *out);
/* 1 when a D-Bus address of the environment names an abstract socket, its
 * variable's name into *var: the bus a mask cannot close. */
int sbx_unix_dbus_abstract(const char **var);
/* What this machine closes, for --self-test: available when the abstract
 * scope (Landlock ABI 6) and the masks (`masks_ok`: a namespace can be
 * made) both hold. */
int sbx_unix_self_test(int abi, int masks_ok, const char *masks_why, char *detail,
                       size_t size);

/* ---- protected paths (src/linux/mask.c) ---- */

struct sbx_mask_plan;
#define SBX_LINUX_PROTECT_MECHANISM                                                              \
    "existing matches under the project, added and working directories (by real path) and "    \
    "home (the account's and $HOME) are masked in a private mount namespace at launch; "       \
    "symlinks that lead out of those directories are followed (4 links, 64 trees) and what "   \
    "they reach is masked; .git is mounted read-only; names created later "                     \
    "that match a read-write pattern are refused by the creation guard (not in read-only "      \
    "mode, which creates nothing)"
#define SBX_LINUX_PROTECT_GAPS                                                                   \
    "existing matches in other roots such as the temp directories, names created by other "    \
    "processes while the command runs, AF_UNIX socket names, a new .git, hard links outside "  \
    "the scanned directories (warned), committed copies in git's history (the index is "       \
    "warned about); inherited descriptors are checked, ones received later are not"
/* Scan the roots and home for protected paths and record the mounts that
 * hide them; with `endpoints`, also the privileged sockets (unixep.c; 0
 * where root's namespace covers them). *plan stays NULL when there is
 * nothing to mask. Fails with SANDBOX_E_UNSUPPORTED when this machine
 * cannot give the protection. */
int sbx_mask_prepare(const sbx_resolved *r, struct sbx_mask_plan **plan, int endpoints,
                     char *warning, size_t warning_size, sandbox_error *err);
/* SANDBOX_OK when r protects nothing or this machine can give the protection;
 * else SANDBOX_E_UNSUPPORTED saying why (the refusal sbx_mask_prepare gives). */
int sbx_mask_check(const sbx_resolved *r, sandbox_error *err);
void sbx_mask_free(struct sbx_mask_plan *plan);
/* 1 when `path` (len bytes, real) is a write-protected path, a symlink git
 * follows on the way to one, or an ancestor of either: moving it, renaming
 * onto it, or creating it while missing, is refused. */
int sbx_mask_fixed_under(const struct sbx_mask_plan *plan, const char *path, size_t len);
/* 1 when `path` (len bytes, real) is at or below a repository the scan
 * found (a .git, writable or read-only, or a bare one) or another read-only
 * bind: the guard's repository rule leaves names made there to the mount. */
/* 1 when a mask (a protected file or directory covered in the namespace)
 * is `path` or lies below it: such a directory is never renamed, or its
 * secrets would leave the scanned roots with it (review of the REFER grant). */
int sbx_mask_masks_under(const struct sbx_mask_plan *plan, const char *path, size_t len);
int sbx_mask_known_dir(const struct sbx_mask_plan *plan, const char *path, size_t len);
/* Enter a private user+mount namespace, mount the masks, drop every
 * capability and lock the mounts with a Landlock domain. Async-signal-safe;
 * call after no_new_privs. Returns 0, or -1 with *sys_errno set. NULL: no-op. */
/* keep_ptrace: CAP_SYS_PTRACE stays in the user namespace for a guard's
 * supervisor, whose command side drops it after the fork (supervisor.c). */
/* cov: a supervised run's stand-ins for the closed sockets (NULL: /dev/null). */
int sbx_mask_apply(const struct sbx_mask_plan *plan, int nodev, int proc_ro, int keep_ptrace,
                   struct sbx_covers *cov, int *sys_errno);
/* After entering a private mount namespace (masks, root's rootfs): refuse a
 * descriptor that survives exec and is a directory or O_PATH, or a regular
 * file the namespace masks or makes read-only, since it still names the
 * host's mounts, where nothing is masked or read-only (issue 18): reopened
 * through /proc/self/fd it reads the secret or writes .git/config. Files the
 * view shows as they are, pipes, ttys and sockets stay. `plan` (may be NULL)
 * names the masked and read-only paths; `keep` (n_keep > 0) the trees root's
 * namespace left as they were while it made every other mount read-only:
 * a file outside them is read-only in the view for that reason alone, and
 * reopening it for writing is Landlock's to refuse. Async-signal-safe.
 * Returns SBX_STEP_NONE, or SBX_STEP_FD_DIR/_FD_PATH/_FD_FILE with the fd in
 * *sys_errno. */
int sbx_fds_check(const struct sbx_mask_plan *plan, const struct sbx_keep_tree *keep,
                  size_t n_keep, int *sys_errno);
/* For --explain on this host: what the git index of the project's and the
 * working directory's repositories tracks that is protected (committed
 * secrets stay readable through git's object store). Text: a line under the
 * protected paths; JSON: a "committed_protected" member (leading comma). */
void sbx_mask_explain_committed(const sbx_resolved *r, int json, sbx_buf *out);
/* Entries in the plan, split by kind (any pointer may be NULL). */
size_t sbx_mask_count(const struct sbx_mask_plan *plan, size_t *files, size_t *dirs,
                      size_t *readonly);
/* Entry i of the plan: its path (NULL past the end), kind (enum mask_how)
 * and whether it is a bare repository. For tests that compare two plans. */
const char *sbx_mask_entry(const struct sbx_mask_plan *plan, size_t i, int *how, int *bare);
/* 1 when this machine can give protected paths; detail says what or why not. */
int sbx_mask_available(char *detail, size_t detail_size);

/* ---- the creation guard (src/linux/guard.c) ---- */

struct sbx_guard;
struct sbx_sup_opts; /* src/linux/supervisor.h */
/* When r wants the guard (sbx_sc_guard_wanted): check this machine can give
 * it (SANDBOX_E_UNSUPPORTED naming why) and copy the patterns into
 * plan->guard. Else leave it NULL. */
int sbx_guard_prepare(const sbx_resolved *r, struct sbx_linux_plan *plan, sandbox_error *err);
void sbx_guard_free(struct sbx_guard *guard);
/* 1 when the kernel can run the guard; detail says what or why not. */
int sbx_guard_available(char *detail, size_t detail_size);

/* ---- supervised runs (src/linux/supervisor.c) ---- */

/* The programs of a supervised run for r (sbx_sc_supervised_variant,
 * sbx_sc_notify_variant) into plan->sup_bpf and plan->lsn_bpf. */
int sbx_seccomp_select_supervised(const sbx_resolved *r, int guard, struct sbx_linux_plan *plan,
                                  sandbox_error *err);
/* 1 when this kernel can supervise a run: seccomp user notification, and
 * (or a warning says the command could signal its supervisor) Landlock's
 * signal scoping; detail says what or why not. */
int sbx_supervisor_available(char *detail, size_t detail_size);

/* ---- explain helpers (portable) ---- */
void sbx_seccomp_explain(const sbx_resolved *r, int json, sbx_buf *out);
/* The creation guard's program: "null" (JSON) or nothing when it is off. */
void sbx_seccomp_explain_guard(const sbx_resolved *r, int json, sbx_buf *out);
void sbx_seccomp_explain_userns(const sbx_resolved *r, int json, sbx_buf *out);
/* A supervised run's programs and the refusals it records; "null" (JSON)
 * when the policy has no seccomp program. */
void sbx_seccomp_explain_supervised(const sbx_resolved *r, int json, sbx_buf *out);
void sbx_landlock_explain(const sbx_resolved *r, int json, sbx_buf *out);

/* Call visit(fd, ctx) for each open descriptor from `from` up, stopping at
 * the first nonzero answer, which is returned (0 when none): /proc/self/fd
 * where it can be read, else every number below RLIMIT_NOFILE (capped). Raw
 * getdents64, no allocation: async-signal-safe, for a spawned child. */
int sbx_fd_each(int from, int (*visit)(int fd, void *ctx), void *ctx);

#endif
