/* The seccomp rule table and its explanation. Portable: pure data and text.
 * tools/bpfgen.c turns this table into the BPF programs the library loads;
 * see docs/seccomp.md for the reasoning behind each rule. */
#include "seccomp_rules.h"

/* ---- socket families ---- */

/* The only families a --no-network command may create. An allowlist, because
 * a denylist would let through the next family a kernel adds. */
static const struct sbx_sc_family local_families[] = {
    {1, "AF_UNIX", "local IPC: nscd, D-Bus, X11, ssh-agent, build servers"},
    {16, "AF_NETLINK", "kernel interfaces: getaddrinfo's interface query, `ip addr`, udev"},
};
const struct sbx_sc_family_set sbx_sc_local_families = {
    local_families, sizeof local_families / sizeof local_families[0]};

/* The families that always kill (or EPERM under the switch), even where all
 * others only fail: they are the internet. */
static const struct sbx_sc_family inet_families[] = {
    {2, "AF_INET", "the internet (IPv4)"},
    {10, "AF_INET6", "the internet (IPv6)"},
};
const struct sbx_sc_family_set sbx_sc_inet_families = {
    inet_families, sizeof inet_families / sizeof inet_families[0]};

/* ioctl request numbers: the same encoding on x86 and the generic (arm) ABI. */
#define SBX_TIOCSTI 0x5412u
#define SBX_TIOCLINUX 0x541cu
#define SBX_FS_IOC_SETFLAGS 0x40086602u   /* _IOW('f', 2, long) */
#define SBX_FS_IOC32_SETFLAGS 0x40046602u /* _IOW('f', 2, int) */
#define SBX_FS_IOC_FSSETXATTR 0x401c5820u /* _IOW('X', 32, struct fsxattr) */
/* btrfs subvolumes: _IOW(0x94, N, 4096-byte args), the same on every ABI */
#define SBX_BTRFS_IOC_SNAP_CREATE 0x50009401u
#define SBX_BTRFS_IOC_SUBVOL_CREATE 0x5000940eu
#define SBX_BTRFS_IOC_SNAP_DESTROY 0x5000940fu
#define SBX_BTRFS_IOC_SNAP_CREATE_V2 0x50009417u
#define SBX_BTRFS_IOC_SUBVOL_CREATE_V2 0x50009418u
#define SBX_BTRFS_IOC_SNAP_DESTROY_V2 0x5000943fu
#define SBX_O_ACCMODE 0x3u
#define SBX_O_TRUNC 0x200u /* 01000 on x86 and arm */
#define SBX_SYS_SOCKET 1u  /* socketcall's first argument for socket() */
#define SBX_O_CREAT 0x40u  /* 0100 on x86 and arm */
/* linux/loop.h: LOOP_* are 0x4C00-0x4C0A, LOOP_CTL_* 0x4C80-0x4C82, no size
 * or direction bits; the mask takes the whole 'L' 0x00-0xff block. */
#define SBX_LOOP_IOC_MASK 0xffffff00u
#define SBX_LOOP_IOC 0x4c00u
#define SBX_TUNSETIFF 0x400454cau   /* _IOW('T', 202, int) */
#define SBX_TUNSETQUEUE 0x400454d9u /* _IOW('T', 217, int) */
#define SBX_RLIMIT_CORE 4u
#define SBX_CLONE_NEWUSER 0x10000000u
#define SBX_PRIO_PROCESS 0u
#define SBX_IOPRIO_WHO_PROCESS 1u

#define NET SBX_SC_NET
#define NOSOCK SBX_SC_NOSOCK
#define FS SBX_SC_FS
#define RO SBX_SC_RO
#define TTY SBX_SC_TTY
#define CREATE SBX_SC_CREATE
#define KERNEL SBX_SC_KERNEL
#define USERNS SBX_SC_USERNS
#define PROCS SBX_SC_PROCS

#define ALWAYS(g, name, act, why)                                                                  \
    {g, SBX_SC_ABI_ALL, name, SBX_SC_ALWAYS, 0, 0, 0, NULL, act, "", why, 0}
#define MASKED(g, name, argn, m, v, act, what, why)                                              \
    {g, SBX_SC_ABI_ALL, name, SBX_SC_ARG_MASKED, argn, m, v, NULL, act, what, why, 0}
/* arg `argn` is not `v`: "not the caller itself" when v is 0 */
#define NOT(g, name, argn, v, what, why)                                                           \
    {g, SBX_SC_ABI_ALL, name, SBX_SC_ARG_NE, argn, 0, v, NULL, SBX_SC_EPERM, what, why, 0}

/* Order matters only for reading: the generator gives each rule its own
 * condition, and no two rules with different actions can match one call,
 * but one: read-only's prlimit64 of another pid's RLIMIT_CORE, EPERM or
 * no-op, both of which change nothing (the unit test pins the no-op). */
const struct sbx_sc_rule sbx_sc_rules[] = {
    /* -- network deny -- */
    {NET, SBX_SC_ABI_ALL, "socket", SBX_SC_FAMILY_NOT_IN, 0, 0, 0, &sbx_sc_local_families, SBX_SC_DENY_NET,
     "domain is not a local family",
     "only local families may be created; every other value, future families included, "
     "is refused", 0},
    /* read-only: not even a local socket, and the internet still kills */
    {NOSOCK, SBX_SC_ABI_DIRECT_SOCKET, "socket", SBX_SC_FAMILY_IN, 0, 0, 0,
     &sbx_sc_inet_families, SBX_SC_DENY_NET, "domain is AF_INET or AF_INET6",
     "the internet is refused as under --no-network", 0},
    {NOSOCK, SBX_SC_ABI_MUX_SOCKET, "socket", SBX_SC_ALWAYS, 0, 0, 0, NULL, SBX_SC_DENY_NET,
     "the ABI is i386, whatever the domain",
     "libseccomp gives socket() and socketcall(SYS_SOCKET) one action on i386, so the "
     "stricter one applies to every family", 0},
    {NOSOCK, SBX_SC_ABI_DIRECT_SOCKET, "socket", SBX_SC_FAMILY_NOT_IN, 0, 0, 0, &sbx_sc_inet_families, SBX_SC_EPERM_REC,
     "domain is any other family", "read-only mode allows no socket at all", 0},
    /* i386 socketcall(SYS_SOCKET, args): the family is in memory a filter cannot
     * read, so the whole call is refused. Modern 32-bit libcs use socket(2). */
    MASKED(NET | NOSOCK, "socketcall", 0, 0xffffffffu, SBX_SYS_SOCKET, SBX_SC_DENY_NET,
           "call is SYS_SOCKET (i386 multiplexer)",
           "the family lives in memory, so no socket can be allowed through it"),
    ALWAYS(NOSOCK, "socketpair", SBX_SC_EPERM, "read-only mode allows no socket at all"),
    /* io_uring: IORING_OP_SOCKET and IORING_OP_OPENAT act without the syscalls
     * this filter sees; an inherited ring is refused by io_uring_enter. */
    ALWAYS(NET | NOSOCK | FS | RO | CREATE, "io_uring_setup", SBX_SC_EPERM_REC,
           "io_uring creates sockets and opens files without socket(2)/open(2)"),
    ALWAYS(NET | NOSOCK | FS | RO | CREATE, "io_uring_enter", SBX_SC_EPERM,
           "an inherited ring could still submit work"),
    ALWAYS(NET | NOSOCK | FS | RO | CREATE, "io_uring_register", SBX_SC_EPERM,
           "an inherited ring could still be reconfigured"),

    /* -- confined filesystem: truncation that Landlock (without TRUNCATE) lets through -- */
    MASKED(FS, "open", 1, SBX_O_ACCMODE | SBX_O_TRUNC, SBX_O_TRUNC, SBX_SC_EACCES,
           "flags are O_RDONLY|O_TRUNC",
           "truncates a file Landlock only checked for reading"),
    MASKED(FS, "openat", 2, SBX_O_ACCMODE | SBX_O_TRUNC, SBX_O_TRUNC, SBX_SC_EACCES,
           "flags are O_RDONLY|O_TRUNC",
           "truncates a file Landlock only checked for reading"),
    MASKED(FS, "open_by_handle_at", 2, SBX_O_ACCMODE | SBX_O_TRUNC, SBX_O_TRUNC, SBX_SC_EACCES,
           "flags are O_RDONLY|O_TRUNC",
           "truncates a file Landlock only checked for reading"),
    ALWAYS(FS | CREATE, "openat2", SBX_SC_ENOSYS,
           "its flags are in memory; ENOSYS makes libcs fall back to openat"),
    ALWAYS(FS, "truncate", SBX_SC_EPERM, "truncation by path is not checked by Landlock here"),
    ALWAYS(FS, "truncate64", SBX_SC_EPERM,
           "truncation by path is not checked by Landlock here"),
    /* -- confined filesystem and the creation guard: btrfs subvolume ioctls
     * make and remove names in the directory the descriptor names, and
     * Landlock does not check them; a snapshot also copies every file of a
     * subvolume the user owns, masked ones included -- */
    MASKED(FS | CREATE, "ioctl", 1, 0xffffffffu, SBX_BTRFS_IOC_SNAP_CREATE, SBX_SC_EPERM,
           "request is BTRFS_IOC_SNAP_CREATE", "a snapshot: a new name, files copied"),
    MASKED(FS | CREATE, "ioctl", 1, 0xffffffffu, SBX_BTRFS_IOC_SNAP_CREATE_V2, SBX_SC_EPERM,
           "request is BTRFS_IOC_SNAP_CREATE_V2", "a snapshot: a new name, files copied"),
    MASKED(FS | CREATE, "ioctl", 1, 0xffffffffu, SBX_BTRFS_IOC_SUBVOL_CREATE, SBX_SC_EPERM,
           "request is BTRFS_IOC_SUBVOL_CREATE", "a new subvolume: a name Landlock never sees"),
    MASKED(FS | CREATE, "ioctl", 1, 0xffffffffu, SBX_BTRFS_IOC_SUBVOL_CREATE_V2, SBX_SC_EPERM,
           "request is BTRFS_IOC_SUBVOL_CREATE_V2", "a new subvolume: a name Landlock never sees"),
    MASKED(FS | CREATE, "ioctl", 1, 0xffffffffu, SBX_BTRFS_IOC_SNAP_DESTROY, SBX_SC_EPERM,
           "request is BTRFS_IOC_SNAP_DESTROY", "removes a subvolume Landlock never checks"),
    MASKED(FS | CREATE, "ioctl", 1, 0xffffffffu, SBX_BTRFS_IOC_SNAP_DESTROY_V2, SBX_SC_EPERM,
           "request is BTRFS_IOC_SNAP_DESTROY_V2", "removes a subvolume Landlock never checks"),

    /* -- read-only: no metadata change -- */
    ALWAYS(RO, "chmod", SBX_SC_EPERM, "file modes are metadata"),
    ALWAYS(RO, "fchmod", SBX_SC_EPERM, "file modes are metadata"),
    ALWAYS(RO, "fchmodat", SBX_SC_EPERM, "file modes are metadata"),
    ALWAYS(RO, "fchmodat2", SBX_SC_EPERM, "file modes are metadata"),
    ALWAYS(RO, "chown", SBX_SC_EPERM, "ownership is metadata"),
    ALWAYS(RO, "fchown", SBX_SC_EPERM, "ownership is metadata"),
    ALWAYS(RO, "lchown", SBX_SC_EPERM, "ownership is metadata"),
    ALWAYS(RO, "fchownat", SBX_SC_EPERM, "ownership is metadata"),
    ALWAYS(RO, "chown32", SBX_SC_EPERM, "ownership is metadata on 32-bit ids"),
    ALWAYS(RO, "fchown32", SBX_SC_EPERM, "ownership is metadata on 32-bit ids"),
    ALWAYS(RO, "lchown32", SBX_SC_EPERM, "ownership is metadata on 32-bit ids"),
    ALWAYS(RO, "setxattr", SBX_SC_EPERM, "extended attributes are metadata"),
    ALWAYS(RO, "lsetxattr", SBX_SC_EPERM, "extended attributes are metadata"),
    ALWAYS(RO, "fsetxattr", SBX_SC_EPERM, "extended attributes are metadata"),
    ALWAYS(RO, "removexattr", SBX_SC_EPERM, "extended attributes are metadata"),
    ALWAYS(RO, "lremovexattr", SBX_SC_EPERM, "extended attributes are metadata"),
    ALWAYS(RO, "fremovexattr", SBX_SC_EPERM, "extended attributes are metadata"),
    ALWAYS(RO, "utime", SBX_SC_EPERM, "timestamps are metadata"),
    ALWAYS(RO, "utimes", SBX_SC_EPERM, "timestamps are metadata"),
    ALWAYS(RO, "futimesat", SBX_SC_EPERM, "timestamps are metadata"),
    ALWAYS(RO, "utimensat", SBX_SC_EPERM, "timestamps are metadata"),
    ALWAYS(RO, "utimensat_time64", SBX_SC_EPERM, "timestamps are metadata, 32-bit ABI"),
    MASKED(RO, "ioctl", 1, 0xffffffffu, SBX_FS_IOC_SETFLAGS, SBX_SC_EPERM,
           "request is FS_IOC_SETFLAGS", "chattr: immutable, append-only, ..."),
    MASKED(RO, "ioctl", 1, 0xffffffffu, SBX_FS_IOC32_SETFLAGS, SBX_SC_EPERM,
           "request is FS_IOC32_SETFLAGS", "chattr from 32-bit programs"),
    MASKED(RO, "ioctl", 1, 0xffffffffu, SBX_FS_IOC_FSSETXATTR, SBX_SC_EPERM,
           "request is FS_IOC_FSSETXATTR", "xfs-style inode flags and project ids"),
    /* -- read-only: no channel to a process outside -- */
    ALWAYS(RO, "shmget", SBX_SC_EPERM, "System V shared memory outlives the command"),
    ALWAYS(RO, "shmat", SBX_SC_EPERM, "System V shared memory"),
    ALWAYS(RO, "shmdt", SBX_SC_EPERM, "System V shared memory"),
    ALWAYS(RO, "shmctl", SBX_SC_EPERM, "System V shared memory"),
    ALWAYS(RO, "semget", SBX_SC_EPERM, "System V semaphores"),
    ALWAYS(RO, "semop", SBX_SC_EPERM, "System V semaphores"),
    ALWAYS(RO, "semtimedop", SBX_SC_EPERM, "System V semaphores"),
    ALWAYS(RO, "semtimedop_time64", SBX_SC_EPERM, "System V semaphores, 32-bit ABI"),
    ALWAYS(RO, "semctl", SBX_SC_EPERM, "System V semaphores"),
    ALWAYS(RO, "msgget", SBX_SC_EPERM, "System V message queues"),
    ALWAYS(RO, "msgsnd", SBX_SC_EPERM, "System V message queues"),
    ALWAYS(RO, "msgrcv", SBX_SC_EPERM, "System V message queues"),
    ALWAYS(RO, "msgctl", SBX_SC_EPERM, "System V message queues"),
    ALWAYS(RO, "ipc", SBX_SC_EPERM, "the i386 System V multiplexer"),
    ALWAYS(RO, "mq_open", SBX_SC_EPERM, "POSIX message queues are files in mqueuefs"),
    ALWAYS(RO, "mq_unlink", SBX_SC_EPERM, "POSIX message queues"),
    ALWAYS(RO, "mq_timedsend", SBX_SC_EPERM, "POSIX message queues"),
    ALWAYS(RO, "mq_timedsend_time64", SBX_SC_EPERM, "POSIX message queues, 32-bit ABI"),
    ALWAYS(RO, "mq_timedreceive", SBX_SC_EPERM, "POSIX message queues"),
    ALWAYS(RO, "mq_timedreceive_time64", SBX_SC_EPERM, "POSIX message queues, 32-bit ABI"),
    ALWAYS(RO, "mq_notify", SBX_SC_EPERM, "POSIX message queues"),
    ALWAYS(RO, "mq_getsetattr", SBX_SC_EPERM, "POSIX message queues"),
    /* -- read-only: kernel attack surface nothing read-only needs -- */
    ALWAYS(RO, "bpf", SBX_SC_EPERM, "loads programs into the kernel"),
    ALWAYS(RO, "perf_event_open", SBX_SC_EPERM, "observes other processes and the kernel"),
    ALWAYS(RO, "userfaultfd", SBX_SC_EPERM, "a classic exploit primitive"),
    ALWAYS(RO, "personality", SBX_SC_EPERM, "READ_IMPLIES_EXEC and layout changes"),

    /* -- read-only and every supervised run: no effect on a process outside
     * (a supervisor with RLIMIT_CPU 0 dies, one reniced to 19 starves). 0 is
     * the caller itself; any other target, its own threads included, is
     * refused, because a filter cannot tell its own pid from an outside one.
     * prlimit64 in the creation guard's own program too: with protected paths
     * and no mode there is no supervised main program (issue 18) -- */
    NOT(PROCS | CREATE, "prlimit64", 0, 0, "pid is not 0 (the caller)",
        "a CPU or memory limit on an outside process kills it (the supervisor too)"),
    NOT(PROCS, "setpriority", 0, SBX_PRIO_PROCESS, "which is not PRIO_PROCESS",
        "a process group or a whole user's processes reach outside"),
    NOT(PROCS, "setpriority", 1, 0, "who is not 0 (the caller)", "renice of an outside process"),
    NOT(PROCS, "sched_setaffinity", 0, 0, "pid is not 0 (the caller)",
        "taskset of an outside process"),
    NOT(PROCS, "sched_setscheduler", 0, 0, "pid is not 0 (the caller)",
        "chrt of an outside process"),
    NOT(PROCS, "sched_setparam", 0, 0, "pid is not 0 (the caller)",
        "scheduling priority of an outside process"),
    NOT(PROCS, "sched_setattr", 0, 0, "pid is not 0 (the caller)",
        "scheduling policy of an outside process"),
    NOT(PROCS, "ioprio_set", 0, SBX_IOPRIO_WHO_PROCESS, "which is not IOPRIO_WHO_PROCESS",
        "a process group or a whole user's processes reach outside"),
    NOT(PROCS, "ioprio_set", 1, 0, "who is not 0 (the caller)", "ionice of an outside process"),
    NOT(PROCS, "migrate_pages", 0, 0, "pid is not 0 (the caller)",
        "moves an outside process's memory between NUMA nodes"),
    NOT(PROCS, "move_pages", 0, 0, "pid is not 0 (the caller)",
        "moves an outside process's memory between NUMA nodes"),

    /* -- confined filesystem and read-only: the keyrings outlive the command
     * and hold other programs' secrets (a Kerberos KEYRING ccache) -- */
    ALWAYS(FS, "add_key", SBX_SC_EPERM, "the user's keyrings are shared, persistent state"),
    ALWAYS(FS, "request_key", SBX_SC_EPERM, "the user's keyrings are shared, persistent state"),
    ALWAYS(FS, "keyctl", SBX_SC_EPERM, "the user's keyrings are shared, persistent state"),

    /* -- every confining mode: kernel surfaces no command needs -- */
    MASKED(KERNEL, "ioctl", 1, SBX_LOOP_IOC_MASK, SBX_LOOP_IOC, SBX_SC_EPERM,
           "request is 0x4C00-0x4CFF (LOOP_*, LOOP_CTL_*)",
           "rebinds a loop device under a mounted filesystem, or makes new ones"),
    MASKED(KERNEL, "ioctl", 1, 0xffffffffu, SBX_TUNSETIFF, SBX_SC_EPERM, "request is TUNSETIFF",
           "attaches to a tun/tap device: raw IP without socket(2)"),
    MASKED(KERNEL, "ioctl", 1, 0xffffffffu, SBX_TUNSETQUEUE, SBX_SC_EPERM,
           "request is TUNSETQUEUE", "attaches a queue of a multi-queue tun/tap device"),
    /* the mount API: detached mounts are trees no path check has seen */
    ALWAYS(KERNEL, "open_tree", SBX_SC_EPERM, "clones a mount tree into a descriptor"),
    ALWAYS(KERNEL, "move_mount", SBX_SC_EPERM, "attaches a detached mount"),
    ALWAYS(KERNEL, "fsopen", SBX_SC_EPERM, "creates a filesystem context"),
    ALWAYS(KERNEL, "fsconfig", SBX_SC_EPERM, "configures a filesystem context"),
    ALWAYS(KERNEL, "fsmount", SBX_SC_EPERM, "turns a filesystem context into a mount"),
    ALWAYS(KERNEL, "fspick", SBX_SC_EPERM, "reconfigures an existing mount"),
    ALWAYS(KERNEL, "mount_setattr", SBX_SC_EPERM, "changes mount flags and id mappings"),
    /* RLIMIT_CORE is 1 (see src/linux/backend.c): the one value that stops
     * core_pattern pipe helpers too, so the command may not change it. A
     * no-op rather than EPERM: ASan and many daemons set 0 at start and die
     * or complain when that fails, and 1 already gives what they ask for. */
    MASKED(KERNEL, "setrlimit", 0, 0xffffffffu, SBX_RLIMIT_CORE, SBX_SC_NOOP,
           "resource is RLIMIT_CORE", "a limit of 0 would hand cores to a pipe helper"),
    {KERNEL, SBX_SC_ABI_ALL, "prlimit64", SBX_SC_ARG_MASKED, 1, 0xffffffffu, SBX_RLIMIT_CORE,
     NULL, SBX_SC_NOOP, "resource is RLIMIT_CORE and a new limit is given",
     "a limit of 0 would hand cores to a pipe helper", 3},

    /* -- read-only, or the policy switch: no new user namespace. Most kernel
     * privilege escalations start in one; clone3's flags are in memory, so
     * it gets ENOSYS and libcs fall back to clone -- */
    MASKED(USERNS, "unshare", 0, SBX_CLONE_NEWUSER, SBX_CLONE_NEWUSER, SBX_SC_EPERM,
           "flags have CLONE_NEWUSER", "a new user namespace"),
    MASKED(USERNS, "clone", 0, SBX_CLONE_NEWUSER, SBX_CLONE_NEWUSER, SBX_SC_EPERM,
           "flags have CLONE_NEWUSER", "a child in a new user namespace"),
    ALWAYS(USERNS, "clone3", SBX_SC_ENOSYS, "its flags are in memory; ENOSYS makes libcs fall "
                                            "back to clone"),
    MASKED(USERNS, "setns", 1, SBX_CLONE_NEWUSER, SBX_CLONE_NEWUSER, SBX_SC_EPERM,
           "nstype has CLONE_NEWUSER", "joins an existing user namespace"),
    MASKED(USERNS, "setns", 1, 0xffffffffu, 0, SBX_SC_EPERM, "nstype is 0 (any)",
           "could be a user namespace"),

    /* -- every mode: terminal input injection -- */
    MASKED(TTY, "ioctl", 1, 0xffffffffu, SBX_TIOCSTI, SBX_SC_EPERM, "request is TIOCSTI",
           "pushes keystrokes into the terminal's input, run by the shell after exit"),
    MASKED(TTY, "ioctl", 1, 0xffffffffu, SBX_TIOCLINUX, SBX_SC_EPERM, "request is TIOCLINUX",
           "console selection paste is terminal input injection"),

    /* -- the creation guard (src/linux/guard.c): every call that creates a
     * name stops until the guard has read the name; a protected last
     * component gets EACCES, anything else is performed by the guard itself
     * (never let through after the check: another thread could rewrite the
     * path in between). openat2 and io_uring above are refused here too, so
     * the guard holds in modes whose main program lacks them. -- */
    MASKED(CREATE, "open", 1, SBX_O_CREAT, SBX_O_CREAT, SBX_SC_NOTIFY, "flags have O_CREAT",
           "may create a name"),
    MASKED(CREATE, "openat", 2, SBX_O_CREAT, SBX_O_CREAT, SBX_SC_NOTIFY, "flags have O_CREAT",
           "may create a name"),
    ALWAYS(CREATE, "creat", SBX_SC_NOTIFY, "creates a name"),
    ALWAYS(CREATE, "mkdir", SBX_SC_NOTIFY, "creates a name"),
    ALWAYS(CREATE, "mkdirat", SBX_SC_NOTIFY, "creates a name"),
    ALWAYS(CREATE, "mknod", SBX_SC_NOTIFY, "creates a name (mkfifo too)"),
    ALWAYS(CREATE, "mknodat", SBX_SC_NOTIFY, "creates a name (mkfifo too)"),
    ALWAYS(CREATE, "symlink", SBX_SC_NOTIFY, "creates a name"),
    ALWAYS(CREATE, "symlinkat", SBX_SC_NOTIFY, "creates a name"),
    ALWAYS(CREATE, "link", SBX_SC_NOTIFY, "creates a name"),
    ALWAYS(CREATE, "linkat", SBX_SC_NOTIFY, "creates a name (an O_TMPFILE file's too)"),
    ALWAYS(CREATE, "rename", SBX_SC_NOTIFY, "gives a file a new name"),
    ALWAYS(CREATE, "renameat", SBX_SC_NOTIFY, "gives a file a new name"),
    ALWAYS(CREATE, "renameat2", SBX_SC_NOTIFY, "gives a file a new name (or swaps two)"),
    /* Every family stops, not only AF_UNIX: the address is in memory. The
     * guard performs the others as given (issue 18, F3). */
    ALWAYS(CREATE, "bind", SBX_SC_NOTIFY,
           "an AF_UNIX path socket is a new name (objects, refs, .env.x as sockets)"),
    ALWAYS(CREATE, "landlock_restrict_self", SBX_SC_EPERM,
           "the guard creates names in its own Landlock domain; a stricter domain the command "
           "added for itself would not bind what the guard does for it"),
};
const size_t sbx_sc_n_rules = sizeof sbx_sc_rules / sizeof sbx_sc_rules[0];

/* Reviewed against the kernel's syscall tables up to Linux 6.18 (listns, 470).
 * libseccomp 2.5.4 knows numbers up to 456. */
const struct sbx_sc_newer sbx_sc_newer[] = {
    {457, "statmount", 0},       {458, "listmount", 0},     {459, "lsm_get_self_attr", 0},
    {460, "lsm_set_self_attr", 0}, {461, "lsm_list_modules", 0}, {462, "mseal", 0},
    {463, "setxattrat", RO},     {464, "getxattrat", 0},    {465, "listxattrat", 0},
    {466, "removexattrat", RO},  {467, "open_tree_attr", KERNEL}, {468, "file_getattr", 0},
    {469, "file_setattr", RO},   {470, "listns", 0},
};
const size_t sbx_sc_n_newer = sizeof sbx_sc_newer / sizeof sbx_sc_newer[0];

/* Read-only mode's ioctls. A request changes state only on the descriptor it
 * is given, and a read-only command can open nothing for writing but the
 * discard devices and its own terminal, so these are the terminal's, the
 * descriptor's own flags, and queries. Numbers as on x86 and the generic ABI
 * (the same); a 32-bit program's FS_IOC32_* are listed with them. */
const struct sbx_sc_ioctl sbx_sc_ro_ioctls[] = {
    {0x5401u, "TCGETS", "reads the terminal's modes"},
    {0x5402u, "TCSETS", "modes of the command's own terminal (less, vim); the shell resets them"},
    {0x5403u, "TCSETSW", "as TCSETS, after output drains"},
    {0x5404u, "TCSETSF", "as TCSETS, input flushed"},
    {0x802c542au, "TCGETS2", "reads the terminal's modes (termios2)"},
    {0x402c542bu, "TCSETS2", "as TCSETS (termios2)"},
    {0x402c542cu, "TCSETSW2", "as TCSETSW (termios2)"},
    {0x402c542du, "TCSETSF2", "as TCSETSF (termios2)"},
    {0x5409u, "TCSBRK", "tcdrain: waits for output"},
    {0x540au, "TCXONC", "flow control of the command's own output"},
    {0x540bu, "TCFLSH", "discards unread input of its own terminal"},
    {0x540fu, "TIOCGPGRP", "job control query"},
    {0x5410u, "TIOCSPGRP", "job control of an interactive shell, within its own session"},
    {0x5411u, "TIOCOUTQ", "queue size query"},
    {0x5413u, "TIOCGWINSZ", "window size query"},
    {0x5415u, "TIOCMGET", "modem line query"},
    {0x541bu, "FIONREAD", "bytes ready to read"},
    {0x5421u, "FIONBIO", "non-blocking flag of the descriptor"},
    {0x5424u, "TIOCGETD", "line discipline query"},
    {0x5429u, "TIOCGSID", "session query"},
    {0x5450u, "FIONCLEX", "close-on-exec flag of the descriptor"},
    {0x5451u, "FIOCLEX", "close-on-exec flag of the descriptor"},
    {0x5460u, "FIOQSIZE", "size query"},
    {0x00000002u, "FIGETBSZ", "block size query"},
    {0x80086601u, "FS_IOC_GETFLAGS", "lsattr"},
    {0x80046601u, "FS_IOC32_GETFLAGS", "lsattr from 32-bit programs"},
    {0x80087601u, "FS_IOC_GETVERSION", "inode generation query"},
    {0x80047601u, "FS_IOC32_GETVERSION", "inode generation query, 32-bit"},
    {0x801c581fu, "FS_IOC_FSGETXATTR", "xfs-style flags query"},
    {0xc020660bu, "FS_IOC_FIEMAP", "extent map query (cp --sparse, filefrag)"},
    {0x81009431u, "FS_IOC_GETFSLABEL", "filesystem label query"},
    {0x80111500u, "FS_IOC_GETFSUUID", "filesystem UUID query"},
    {0x80045200u, "RNDGETENTCNT", "entropy count query"},
};
const size_t sbx_sc_n_ro_ioctls = sizeof sbx_sc_ro_ioctls / sizeof sbx_sc_ro_ioctls[0];
const uint32_t sbx_sc_last_reviewed_nr = 470;

const struct sbx_sc_archfam_info sbx_sc_archfams[SBX_SC_N_ARCHFAMS] = {
    /* x32 numbers (bit 30) go on to libseccomp's program, which kills them. */
    {"x86_64", "x86_64", "x86", 0xc000003eu, 0x40000003u, 0x40000000u, 0, 16, 54},
    /* ARM private syscalls (set_tls, cacheflush) live at 0x0f0000 and up. */
    {"aarch64", "aarch64", "arm", 0xc00000b7u, 0x40000028u, 0, 0x0f0000u, 29, 54},
};

/* ---- variants ---- */

static const struct {
    const char *name;
    unsigned groups;
    int eperm;
    int guarded;
    int kind; /* enum sbx_sc_kind */
} variants[SBX_SC_N_VARIANTS] = {
    [SBX_SC_V_CONFINED] = {"confined", FS | TTY | KERNEL, 0, 0, 0},
    [SBX_SC_V_NET] = {"net", NET | TTY | KERNEL, 0, 0, 0},
    [SBX_SC_V_NET_EPERM] = {"net-eperm", NET | TTY | KERNEL, 1, 0, 0},
    [SBX_SC_V_NET_CONFINED] = {"net-confined", NET | FS | TTY | KERNEL, 0, 0, 0},
    [SBX_SC_V_NET_CONFINED_EPERM] = {"net-confined-eperm", NET | FS | TTY | KERNEL, 1, 0, 0},
    [SBX_SC_V_READ_ONLY] = {"read-only", RO | PROCS | NOSOCK | FS | TTY | KERNEL | USERNS, 0, 1, 0},
    [SBX_SC_V_READ_ONLY_EPERM] = {"read-only-eperm",
                                  RO | PROCS | NOSOCK | FS | TTY | KERNEL | USERNS, 1, 1, 0},
    [SBX_SC_V_CREATE_NOTIFY] = {"create-notify", CREATE, 0, 0, SBX_SC_K_NOTIFY},
    [SBX_SC_V_NO_USERNS] = {"no-userns", USERNS, 0, 0, 0},
    [SBX_SC_V_CONFINED_SUP] = {"confined-supervised", FS | TTY | KERNEL | PROCS, 0, 0,
                               SBX_SC_K_SUPERVISED},
    [SBX_SC_V_NET_SUP] = {"net-supervised", NET | TTY | KERNEL | PROCS, 0, 0,
                          SBX_SC_K_SUPERVISED},
    [SBX_SC_V_NET_CONFINED_SUP] = {"net-confined-supervised", NET | FS | TTY | KERNEL | PROCS, 0,
                                   0, SBX_SC_K_SUPERVISED},
    [SBX_SC_V_READ_ONLY_SUP] = {"read-only-supervised",
                                RO | PROCS | NOSOCK | FS | TTY | KERNEL | USERNS, 0, 1,
                                SBX_SC_K_SUPERVISED},
    [SBX_SC_V_NOTIFY_CONFINED] = {"notify-confined", FS, 0, 0, SBX_SC_K_NOTIFY},
    [SBX_SC_V_NOTIFY_NET] = {"notify-net", NET, 0, 0, SBX_SC_K_NOTIFY},
    [SBX_SC_V_NOTIFY_READ_ONLY] = {"notify-read-only", NOSOCK, 0, 0, SBX_SC_K_NOTIFY},
    [SBX_SC_V_CREATE_NOTIFY_NET] = {"create-notify-net", CREATE | NET, 0, 0, SBX_SC_K_NOTIFY},
};

unsigned sbx_sc_variant_groups(int v)
{
    return v >= 0 && v < SBX_SC_N_VARIANTS ? variants[v].groups : 0;
}

int sbx_sc_variant_kind(int v)
{
    return v >= 0 && v < SBX_SC_N_VARIANTS ? variants[v].kind : SBX_SC_K_PLAIN;
}

int sbx_sc_variant_eperm(int v)
{
    return v >= 0 && v < SBX_SC_N_VARIANTS && variants[v].eperm;
}

int sbx_sc_variant_guarded(int v)
{
    return v >= 0 && v < SBX_SC_N_VARIANTS && variants[v].guarded;
}

int sbx_sc_newer_refused(const struct sbx_sc_newer *n, int v)
{
    return (n->refused_in & sbx_sc_variant_groups(v)) != 0;
}

int sbx_sc_variant_has_guard(int v)
{
    size_t i;
    if (sbx_sc_variant_guarded(v))
        return 1;
    for (i = 0; i < sbx_sc_n_newer; i++)
        if (sbx_sc_newer_refused(&sbx_sc_newer[i], v))
            return 1;
    return 0;
}

const char *sbx_sc_variant_name(int v)
{
    return v >= 0 && v < SBX_SC_N_VARIANTS ? variants[v].name : "none";
}

int sbx_sc_variant_for(const sbx_resolved *r, const char **why)
{
    int eperm = r->deny_action == SANDBOX_DENY_EPERM;

    *why = "";
    if (r->filesystem == SANDBOX_FS_READ_ONLY)
        return eperm ? SBX_SC_V_READ_ONLY_EPERM : SBX_SC_V_READ_ONLY;
    if (r->network == SANDBOX_NETWORK_INTERNET_ONLY) {
        /* Fail closed: telling loopback from the internet needs address
         * rules seccomp cannot express. */
        *why = "internet-only network is not enforceable on Linux yet (seccomp cannot tell "
               "loopback from the internet); use --no-network or allow the network";
        return -2;
    }
    if (r->network == SANDBOX_NETWORK_DENY) {
        if (r->filesystem == SANDBOX_FS_CONFINED)
            return eperm ? SBX_SC_V_NET_CONFINED_EPERM : SBX_SC_V_NET_CONFINED;
        return eperm ? SBX_SC_V_NET_EPERM : SBX_SC_V_NET;
    }
    if (r->filesystem == SANDBOX_FS_CONFINED)
        return SBX_SC_V_CONFINED;
    return -1;
}

int sbx_sc_guard_wanted(const sbx_resolved *r)
{
    size_t i;
    if (r->target != SANDBOX_TARGET_LINUX || r->filesystem == SANDBOX_FS_READ_ONLY)
        return 0;
    /* Every pattern is refused at creation (a new .vscode, issue 23), and a
     * write-protected .git keeps any directory from becoming a repository
     * (src/linux/guard.c, the repository rule): all need the guard. */
    for (i = 0; i < r->n_protect; i++)
        if (r->protect[i].pattern)
            return 1;
    return 0;
}

int sbx_sc_supervised_variant(int plain)
{
    switch (plain) {
    case SBX_SC_V_CONFINED:
        return SBX_SC_V_CONFINED_SUP;
    case SBX_SC_V_NET:
    case SBX_SC_V_NET_EPERM:
        return SBX_SC_V_NET_SUP;
    case SBX_SC_V_NET_CONFINED:
    case SBX_SC_V_NET_CONFINED_EPERM:
        return SBX_SC_V_NET_CONFINED_SUP;
    case SBX_SC_V_READ_ONLY:
    case SBX_SC_V_READ_ONLY_EPERM:
        return SBX_SC_V_READ_ONLY_SUP;
    default:
        return -1;
    }
}

int sbx_sc_notify_variant(int plain, int guard)
{
    switch (plain) {
    case SBX_SC_V_NET:
    case SBX_SC_V_NET_EPERM:
    case SBX_SC_V_NET_CONFINED:
    case SBX_SC_V_NET_CONFINED_EPERM:
        return guard ? SBX_SC_V_CREATE_NOTIFY_NET : SBX_SC_V_NOTIFY_NET;
    case SBX_SC_V_READ_ONLY:
    case SBX_SC_V_READ_ONLY_EPERM:
        return SBX_SC_V_NOTIFY_READ_ONLY; /* read-only creates nothing: no guard */
    case SBX_SC_V_CONFINED:
        return guard ? SBX_SC_V_CREATE_NOTIFY : SBX_SC_V_NOTIFY_CONFINED;
    default:
        return guard ? SBX_SC_V_CREATE_NOTIFY : -1;
    }
}

int sbx_sc_rule_recorded(const struct sbx_sc_rule *rule)
{
    return rule->action == SBX_SC_DENY_NET || rule->action == SBX_SC_EPERM_REC;
}

int sbx_sc_rule_in_variant(const struct sbx_sc_rule *rule, int v, int *action)
{
    unsigned groups = sbx_sc_variant_groups(v);
    int rec = sbx_sc_rule_recorded(rule);

    *action = rule->action;
    if (!(rule->groups & groups))
        return 0;
    switch (sbx_sc_variant_kind(v)) {
    case SBX_SC_K_SUPERVISED:
        return !rec; /* left to the listener's program */
    case SBX_SC_K_NOTIFY:
        if (rec) {
            *action = SBX_SC_NOTIFY;
            return 1;
        }
        /* The guard's own refusals (openat2, io_uring, Landlock) stay:
         * some modes have no main program to refuse them. */
        return (rule->groups & groups & SBX_SC_CREATE) != 0;
    default:
        return 1;
    }
}

/* ---- explain ---- */

static const char *group_name(unsigned g)
{
    switch (g) {
    case SBX_SC_NET:
        return "network";
    case SBX_SC_NOSOCK:
        return "no-sockets";
    case SBX_SC_FS:
        return "truncation";
    case SBX_SC_RO:
        return "read-only";
    case SBX_SC_CREATE:
        return "creation-guard";
    case SBX_SC_KERNEL:
        return "kernel";
    case SBX_SC_USERNS:
        return "no-user-namespaces";
    case SBX_SC_PROCS:
        return "other-processes";
    default:
        return "terminal";
    }
}

static const char *action_name(int action, int eperm)
{
    switch (action) {
    case SBX_SC_DENY_NET:
        return eperm ? "EPERM" : "kill-process";
    case SBX_SC_EPERM:
    case SBX_SC_EPERM_REC:
        return "EPERM";
    case SBX_SC_EACCES:
        return "EACCES";
    case SBX_SC_NOTIFY:
        return "notify-guard";
    case SBX_SC_NOOP:
        return "no-op";
    default:
        return "ENOSYS";
    }
}

/* "AF_UNIX, AF_NETLINK" */
static void add_families(sbx_buf *out, const struct sbx_sc_family_set *set, int json)
{
    size_t i;
    for (i = 0; i < set->n; i++) {
        if (i)
            sbx_buf_add(out, json ? "," : ", ");
        if (json)
            sbx_buf_json_str(out, set->items[i].name);
        else
            sbx_buf_add(out, set->items[i].name);
    }
}

static void explain_rule_text(sbx_buf *out, const struct sbx_sc_rule *rule, int eperm)
{
    sbx_buf_printf(out, "      %-14s %-13s", rule->syscall, action_name(rule->action, eperm));
    if (rule->match == SBX_SC_FAMILY_NOT_IN || rule->match == SBX_SC_FAMILY_IN) {
        sbx_buf_add(out, rule->match == SBX_SC_FAMILY_IN ? "when domain is one of "
                                                         : "when domain is not one of ");
        add_families(out, rule->families, 0);
    } else if (rule->what[0]) {
        sbx_buf_printf(out, "when %s", rule->what);
    } else {
        sbx_buf_add(out, "always");
    }
    sbx_buf_printf(out, " (%s)\n", rule->why);
}

static void explain_rule_json(sbx_buf *out, const struct sbx_sc_rule *rule, int eperm)
{
    sbx_buf_add(out, "{\"syscall\":");
    sbx_buf_json_str(out, rule->syscall);
    sbx_buf_printf(out, ",\"action\":\"%s\",\"when\":", action_name(rule->action, eperm));
    if (rule->match == SBX_SC_FAMILY_NOT_IN || rule->match == SBX_SC_FAMILY_IN) {
        sbx_buf_add(out, rule->match == SBX_SC_FAMILY_IN ? "{\"domain_in\":["
                                                         : "{\"domain_not_in\":[");
        add_families(out, rule->families, 1);
        sbx_buf_add(out, "]}");
    } else if (rule->match == SBX_SC_ARG_MASKED || rule->match == SBX_SC_ARG_NE) {
        if (rule->match == SBX_SC_ARG_NE)
            sbx_buf_printf(out, "{\"arg\":%u,\"not\":%lu,\"text\":", rule->arg,
                           (unsigned long)rule->value);
        else if (rule->and_nonzero)
            sbx_buf_printf(out, "{\"arg\":%u,\"mask\":%lu,\"value\":%lu,\"nonzero_arg\":%d,"
                                "\"text\":",
                           rule->arg, (unsigned long)rule->mask, (unsigned long)rule->value,
                           rule->and_nonzero - 1);
        else
            sbx_buf_printf(out, "{\"arg\":%u,\"mask\":%lu,\"value\":%lu,\"text\":", rule->arg,
                           (unsigned long)rule->mask, (unsigned long)rule->value);
        sbx_buf_json_str(out, rule->what);
        sbx_buf_add(out, "}");
    } else {
        sbx_buf_add(out, "\"always\"");
    }
    sbx_buf_add(out, ",\"why\":");
    sbx_buf_json_str(out, rule->why);
    sbx_buf_add(out, "}");
}

static void explain_newer(sbx_buf *out, int v, int json)
{
    size_t i;
    int first = 1, guarded = sbx_sc_variant_guarded(v);
    if (json) {
        sbx_buf_printf(out, ",\"newer_syscalls\":{\"last_reviewed\":%lu,\"eperm\":[",
                       (unsigned long)sbx_sc_last_reviewed_nr);
        for (i = 0; i < sbx_sc_n_newer; i++) {
            if (!sbx_sc_newer_refused(&sbx_sc_newer[i], v))
                continue;
            if (!first)
                sbx_buf_add(out, ",");
            first = 0;
            sbx_buf_json_str(out, sbx_sc_newer[i].name);
        }
        sbx_buf_printf(out, "],\"above_last_reviewed\":\"%s\"}", guarded ? "ENOSYS" : "allow");
        return;
    }
    sbx_buf_add(out, "    newer than libseccomp's table: EPERM for");
    for (i = 0; i < sbx_sc_n_newer; i++)
        if (sbx_sc_newer_refused(&sbx_sc_newer[i], v))
            sbx_buf_printf(out, " %s", sbx_sc_newer[i].name);
    if (guarded)
        sbx_buf_printf(out, "; ENOSYS for every syscall above %lu (the last one reviewed)\n",
                       (unsigned long)sbx_sc_last_reviewed_nr);
    else
        sbx_buf_add(out, "\n");
}

static void explain_ioctls(sbx_buf *out, int json)
{
    size_t i;
    sbx_buf_add(out, json ? ",\"ioctl_allowlist\":[" : "    ioctl: EPERM for every request but");
    for (i = 0; i < sbx_sc_n_ro_ioctls; i++) {
        if (json) {
            if (i)
                sbx_buf_add(out, ",");
            sbx_buf_json_str(out, sbx_sc_ro_ioctls[i].name);
        } else {
            sbx_buf_printf(out, " %s", sbx_sc_ro_ioctls[i].name);
        }
    }
    sbx_buf_add(out, json ? "]" : " (terminal, descriptor flags, queries)\n");
}

/* The rules of variant v in the groups `only`, each under the first of those
 * groups that holds it, with the verdict a command sees: the written action
 * (the kill or EPERM a supervisor carries out for a recorded rule, too). */
static void explain_groups(sbx_buf *out, int v, unsigned only, int json)
{
    unsigned groups = sbx_sc_variant_groups(v) & only, g;
    int eperm = sbx_sc_variant_eperm(v), first = 1, action;
    size_t i;

    for (g = 1; g <= SBX_SC_LAST_GROUP; g <<= 1) {
        int first_rule = 1;
        if (!(groups & g))
            continue;
        if (json) {
            sbx_buf_printf(out, "%s{\"name\":\"%s\",\"rules\":[", first ? "" : ",",
                           group_name(g));
        } else {
            sbx_buf_printf(out, "    %s:\n", group_name(g));
        }
        first = 0;
        for (i = 0; i < sbx_sc_n_rules; i++) {
            const struct sbx_sc_rule *rule = &sbx_sc_rules[i];
            /* A rule shared by several groups is listed under the first one. */
            if (!(rule->groups & g) || (rule->groups & groups & (g - 1)) ||
                !sbx_sc_rule_in_variant(rule, v, &action))
                continue;
            if (json) {
                if (!first_rule)
                    sbx_buf_add(out, ",");
                explain_rule_json(out, rule, eperm);
            } else {
                explain_rule_text(out, rule, eperm);
            }
            first_rule = 0;
        }
        if (json)
            sbx_buf_add(out, "]}");
    }
}

void sbx_seccomp_explain(const sbx_resolved *r, int json, sbx_buf *out)
{
    const char *why;
    int v = sbx_sc_variant_for(r, &why);

    if (v < 0) {
        if (json) {
            sbx_buf_add(out, "null");
        } else if (v == -2) {
            sbx_buf_printf(out, "  seccomp: cannot enforce: %s\n", why);
        } else {
            sbx_buf_add(out, "  seccomp: no filter\n");
        }
        return;
    }
    if (json) {
        sbx_buf_printf(out, "{\"program\":\"%s\",\"default\":\"allow\","
                            "\"foreign_arch\":\"kill-process\",\"x32\":\"kill-process\","
                            "\"groups\":[",
                       sbx_sc_variant_name(v));
    } else {
        sbx_buf_printf(out, "  seccomp (program %s): every other syscall allowed; "
                            "a foreign architecture or x32 syscall kills the process\n",
                       sbx_sc_variant_name(v));
    }
    explain_groups(out, v, ~0u, json);
    if (json)
        sbx_buf_add(out, "]");
    if (sbx_sc_variant_has_guard(v))
        explain_newer(out, v, json);
    if (sbx_sc_variant_guarded(v))
        explain_ioctls(out, json);
    if (json)
        sbx_buf_add(out, "}");
}

void sbx_seccomp_explain_guard(const sbx_resolved *r, int json, sbx_buf *out)
{
    const char *why;
    int v = sbx_sc_notify_variant(sbx_sc_variant_for(r, &why), 1);
    if (!sbx_sc_guard_wanted(r)) {
        if (json)
            sbx_buf_add(out, "null");
        return;
    }
    if (json) {
        sbx_buf_printf(out, "{\"program\":\"%s\",\"default\":\"allow\","
                            "\"foreign_arch\":\"kill-process\",\"x32\":\"kill-process\","
                            "\"refuses\":\"EACCES for a name matching a read-write "
                            "protected pattern\",\"groups\":[",
                       sbx_sc_variant_name(v));
    } else {
        sbx_buf_printf(out, "  creation guard (seccomp program %s, stacked last, with a "
                            "user-notification listener): the run's supervisor (a process "
                            "sandbox_spawn starts, the launcher's child) stays as the command's "
                            "parent and performs every call below itself; a new name matching "
                            "a read-write protected pattern gets EACCES and is recorded\n",
                       sbx_sc_variant_name(v));
    }
    explain_groups(out, v, SBX_SC_CREATE, json);
    if (json)
        sbx_buf_add(out, "]}");
}

/* --no-user-namespaces without --read-only: a program of its own, stacked
 * (sbx_seccomp_select_userns); read-only has these rules in its main one. */
void sbx_seccomp_explain_userns(const sbx_resolved *r, int json, sbx_buf *out)
{
    const int v = SBX_SC_V_NO_USERNS;
    if (!r->deny_userns || r->filesystem == SANDBOX_FS_READ_ONLY) {
        if (json)
            sbx_buf_add(out, "null");
        return;
    }
    if (json) {
        sbx_buf_printf(out, "{\"program\":\"%s\",\"default\":\"allow\","
                            "\"foreign_arch\":\"kill-process\",\"x32\":\"kill-process\","
                            "\"groups\":[",
                       sbx_sc_variant_name(v));
    } else {
        sbx_buf_printf(out, "  no user namespaces (seccomp program %s, stacked): every other "
                            "syscall allowed\n",
                       sbx_sc_variant_name(v));
    }
    explain_groups(out, v, ~0u, json);
    if (json)
        sbx_buf_add(out, "]}");
}

/* A supervised run (sandbox_spawn with supervision, the launcher's --report,
 * --timeout, --outcome-fd, --keep-background, and every run with the
 * creation guard): which main program replaces the one above, and which
 * refusals the listener's program hands to the supervisor to record. The
 * verdicts stay those of the main program above. */
void sbx_seccomp_explain_supervised(const sbx_resolved *r, int json, sbx_buf *out)
{
    const char *why;
    int plain = sbx_sc_variant_for(r, &why), guard = sbx_sc_guard_wanted(r);
    int sup = sbx_sc_supervised_variant(plain), n = sbx_sc_notify_variant(plain, guard);
    int eperm = r->deny_action == SANDBOX_DENY_EPERM, first = 1, action;
    size_t i;

    if (plain == -2 || (sup < 0 && n < 0)) {
        if (json)
            sbx_buf_add(out, "null");
        else if (plain != -2)
            sbx_buf_add(out, "  supervised run: no seccomp program; the supervisor keeps the "
                             "lifecycle only (signals, timeout, the process tree)\n");
        return;
    }
    if (json) {
        sbx_buf_add(out, "{\"program\":");
        if (sup >= 0)
            sbx_buf_printf(out, "\"%s\"", sbx_sc_variant_name(sup));
        else
            sbx_buf_add(out, "null");
        sbx_buf_printf(out, ",\"listener\":\"%s\",\"recorded\":[", sbx_sc_variant_name(n));
    } else {
        sbx_buf_printf(out, "  supervised run (--report, --timeout, --outcome-fd, "
                            "--keep-background, protected paths): program %s%s%s, with "
                            "%s stacked last on a user-notification listener; the supervisor "
                            "records each refusal below (pid, command name, syscall, family) "
                            "and then answers as the program above would:\n",
                       sup >= 0 ? sbx_sc_variant_name(sup) : "(none)",
                       sup >= 0 ? " instead of " : "",
                       sup >= 0 ? sbx_sc_variant_name(plain) : "", sbx_sc_variant_name(n));
    }
    for (i = 0; i < sbx_sc_n_rules; i++) {
        const struct sbx_sc_rule *rule = &sbx_sc_rules[i];
        if (!sbx_sc_rule_recorded(rule) || !sbx_sc_rule_in_variant(rule, n, &action))
            continue;
        if (json) {
            if (!first)
                sbx_buf_add(out, ",");
            explain_rule_json(out, rule, eperm);
        } else {
            explain_rule_text(out, rule, eperm);
        }
        first = 0;
    }
    if (json)
        sbx_buf_add(out, "]}");
}
