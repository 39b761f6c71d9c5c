#define _POSIX_C_SOURCE 200809L
/* Pins the generated seccomp programs: every variant, both arch families,
 * run in a BPF simulator against a table of (arch, syscall, arguments,
 * expected action). A libseccomp upgrade that changes behaviour fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "linux/bpf_sim.h"
#include "linux/seccomp_rules.h"

#define AUDIT_X86_64 0xc000003eu
#define AUDIT_I386 0x40000003u
#define AUDIT_AARCH64 0xc00000b7u
#define AUDIT_ARM 0x40000028u

#define KILL SIM_RET_KILL_PROCESS
#define ALLOW SIM_RET_ALLOW
#define EPERM_ SIM_RET_ERRNO(1)
#define EACCES_ SIM_RET_ERRNO(13)
#define ENOSYS_ SIM_RET_ERRNO(38)
#define NOTIFY 0x7fc00000u /* SECCOMP_RET_USER_NOTIF */
#define NOOP SIM_RET_ERRNO(0) /* returns 0, does nothing */
#define NETDENY 0xfffffff0u /* kill, or EPERM in the *-eperm variants */

/* Variant sets. */
#define B(v) (1u << (v))
#define V_CONF B(SBX_SC_V_CONFINED)
#define V_NETONLY (B(SBX_SC_V_NET) | B(SBX_SC_V_NET_EPERM))
#define V_NETCONF (B(SBX_SC_V_NET_CONFINED) | B(SBX_SC_V_NET_CONFINED_EPERM))
#define V_NET (V_NETONLY | V_NETCONF)
#define V_RO (B(SBX_SC_V_READ_ONLY) | B(SBX_SC_V_READ_ONLY_EPERM))
#define V_DENY (V_NET | V_RO)
#define V_FS (V_CONF | V_NETCONF | V_RO)
#define V_NOTRO (V_CONF | V_NET)
#define V_NOTFS V_NETONLY
#define V_ALL (V_CONF | V_NET | V_RO)
#define V_GUARD (B(SBX_SC_V_CREATE_NOTIFY) | B(SBX_SC_V_CREATE_NOTIFY_NET))
#define V_USERNS B(SBX_SC_V_NO_USERNS)
/* A supervised run: main programs without the recorded refusals, and the
 * listener's programs that notify them. */
#define V_SUP_RO B(SBX_SC_V_READ_ONLY_SUP)
#define V_SUP_NET (B(SBX_SC_V_NET_SUP) | B(SBX_SC_V_NET_CONFINED_SUP))
#define V_SUP_FS (B(SBX_SC_V_CONFINED_SUP) | B(SBX_SC_V_NET_CONFINED_SUP) | V_SUP_RO)
#define V_SUP (V_SUP_NET | V_SUP_FS)
#define V_LSN_NET (B(SBX_SC_V_NOTIFY_NET) | B(SBX_SC_V_CREATE_NOTIFY_NET))
#define V_LSN_RO B(SBX_SC_V_NOTIFY_READ_ONLY)
#define V_LSN_PLAIN (B(SBX_SC_V_NOTIFY_NET) | B(SBX_SC_V_NOTIFY_CONFINED) | V_LSN_RO)
#define V_LSN (V_LSN_PLAIN | V_GUARD)

#define HI(x) ((uint64_t)(x) << 32)

struct sc_case {
    const char *name;
    unsigned variants;
    uint32_t arch;
    uint32_t nr;
    uint64_t a0, a1, a2;
    uint32_t want;
};

/* x86_64 and its i386 compat ABI. */
static const struct sc_case x86_cases[] = {
    {"inet stream socket", V_DENY, AUDIT_X86_64, 41, 2, 1, 0, NETDENY},
    {"inet socket allowed when only confined", V_CONF, AUDIT_X86_64, 41, 2, 1, 0, ALLOW},
    {"inet6 datagram socket", V_DENY, AUDIT_X86_64, 41, 10, 2, 0, NETDENY},
    {"inet raw socket", V_DENY, AUDIT_X86_64, 41, 2, 3, 0, NETDENY},
    {"inet with junk upper bits", V_DENY, AUDIT_X86_64, 41, 2 | HI(1), 1, 0, NETDENY},
    {"inet6 with all upper bits", V_DENY, AUDIT_X86_64, 41, 10 | HI(0xffffffffu), 1, 0, NETDENY},
    {"unix with junk upper bits stays allowed", V_NET | V_CONF, AUDIT_X86_64, 41, 1 | HI(2), 1,
     0, ALLOW},
    {"unix socket", V_NET, AUDIT_X86_64, 41, 1, 1, 0, ALLOW},
    {"netlink socket", V_NET, AUDIT_X86_64, 41, 16, 3, 0, ALLOW},
    {"unix socket in read-only", V_RO, AUDIT_X86_64, 41, 1, 1, 0, EPERM_},
    {"netlink socket in read-only", V_RO, AUDIT_X86_64, 41, 16, 3, 0, EPERM_},
    {"unspec", V_NET, AUDIT_X86_64, 41, 0, 1, 0, NETDENY},
    {"packet", V_NET, AUDIT_X86_64, 41, 17, 3, 0, NETDENY},
    {"packet in read-only", V_RO, AUDIT_X86_64, 41, 17, 3, 0, EPERM_},
    {"can", V_NET, AUDIT_X86_64, 41, 29, 3, 0, NETDENY},
    {"bluetooth", V_NET, AUDIT_X86_64, 41, 31, 1, 0, NETDENY},
    {"alg", V_NET, AUDIT_X86_64, 41, 38, 5, 0, NETDENY},
    {"vsock", V_NET, AUDIT_X86_64, 41, 40, 1, 0, NETDENY},
    {"xdp", V_NET, AUDIT_X86_64, 41, 44, 3, 0, NETDENY},
    {"family 63", V_NET, AUDIT_X86_64, 41, 63, 1, 0, NETDENY},
    {"family 64 (a future family)", V_NET, AUDIT_X86_64, 41, 64, 1, 0, NETDENY},
    {"family 65", V_NET, AUDIT_X86_64, 41, 65, 1, 0, NETDENY},
    {"family 1000", V_NET, AUDIT_X86_64, 41, 1000, 1, 0, NETDENY},
    {"family 0x80000000", V_NET, AUDIT_X86_64, 41, 0x80000000u, 1, 0, NETDENY},
    {"family -1", V_NET, AUDIT_X86_64, 41, 0xffffffffu, 1, 0, NETDENY},
    {"family 1000 in read-only", V_RO, AUDIT_X86_64, 41, 1000, 1, 0, EPERM_},
    {"family 66 in read-only is not inet", V_RO, AUDIT_X86_64, 41, 66, 1, 0, EPERM_},
    {"x32 socket", V_ALL, AUDIT_X86_64, 41 | 0x40000000u, 2, 1, 0, KILL},
    {"x32 getpid", V_ALL, AUDIT_X86_64, 39 | 0x40000000u, 0, 0, 0, KILL},
    {"x32 socket with the x32-only number", V_ALL, AUDIT_X86_64, 0x40000000u | 530, 0, 0, 0, KILL},
    {"a foreign arch", V_ALL, AUDIT_AARCH64, 172, 0, 0, 0, KILL},
    {"a foreign 32-bit arch", V_ALL, AUDIT_ARM, 20, 0, 0, 0, KILL},
    {"socketpair", V_NET | V_CONF, AUDIT_X86_64, 53, 1, 1, 0, ALLOW},
    {"socketpair in read-only", V_RO, AUDIT_X86_64, 53, 1, 1, 0, EPERM_},
    {"io_uring_setup", V_ALL, AUDIT_X86_64, 425, 8, 0, 0, EPERM_},
    {"io_uring_enter", V_ALL, AUDIT_X86_64, 426, 3, 1, 0, EPERM_},
    {"io_uring_register", V_ALL, AUDIT_X86_64, 427, 3, 0, 0, EPERM_},
    {"i386 io_uring_setup", V_ALL, AUDIT_I386, 425, 8, 0, 0, EPERM_},
    /* i386 */
    {"i386 socket inet", V_DENY, AUDIT_I386, 359, 2, 1, 0, NETDENY},
    {"i386 socket inet6", V_DENY, AUDIT_I386, 359, 10, 1, 0, NETDENY},
    {"i386 socket packet", V_NET, AUDIT_I386, 359, 17, 3, 0, NETDENY},
    {"i386 socket unix", V_NET | V_CONF, AUDIT_I386, 359, 1, 1, 0, ALLOW},
    {"i386 socket unix in read-only", V_RO, AUDIT_I386, 359, 1, 1, 0, NETDENY},
    {"i386 socket family 4096", V_NET, AUDIT_I386, 359, 4096, 1, 0, NETDENY},
    {"i386 socketcall SYS_SOCKET", V_DENY, AUDIT_I386, 102, 1, 0x1000, 0, NETDENY},
    {"i386 socketcall SYS_SOCKET when only confined", V_CONF, AUDIT_I386, 102, 1, 0x1000, 0, ALLOW},
    {"i386 socketcall SYS_CONNECT", V_ALL, AUDIT_I386, 102, 3, 0x1000, 0, ALLOW},
    {"i386 socketcall SYS_SOCKETPAIR", V_NET, AUDIT_I386, 102, 8, 0x1000, 0, ALLOW},
    {"i386 socketcall SYS_SOCKETPAIR in read-only", V_RO, AUDIT_I386, 102, 8, 0x1000, 0, EPERM_},
    {"i386 socketpair", V_RO, AUDIT_I386, 360, 1, 1, 0, EPERM_},
    /* truncation in confined mode */
    {"openat O_RDONLY|O_TRUNC", V_FS, AUDIT_X86_64, 257, 0xffffff9cu, 0x1000, 0x200, EACCES_},
    {"openat O_RDONLY|O_TRUNC|O_CREAT", V_FS, AUDIT_X86_64, 257, 0xffffff9cu, 0x1000, 0x240, EACCES_},
    {"openat O_RDONLY|O_TRUNC, junk upper bits", V_FS, AUDIT_X86_64, 257, 0, 0x1000, 0x200 | HI(7),
     EACCES_},
    {"openat O_RDONLY|O_TRUNC without fs confinement", V_NOTFS, AUDIT_X86_64, 257, 0, 0x1000,
     0x200, ALLOW},
    {"openat O_WRONLY|O_TRUNC (Landlock checks it)", V_ALL, AUDIT_X86_64, 257, 0, 0x1000, 0x201, ALLOW},
    {"openat O_RDWR|O_TRUNC", V_ALL, AUDIT_X86_64, 257, 0, 0x1000, 0x202, ALLOW},
    {"openat O_RDONLY", V_ALL, AUDIT_X86_64, 257, 0, 0x1000, 0, ALLOW},
    {"open O_RDONLY|O_TRUNC", V_FS, AUDIT_X86_64, 2, 0x1000, 0x200, 0, EACCES_},
    {"open O_RDONLY", V_ALL, AUDIT_X86_64, 2, 0x1000, 0, 0, ALLOW},
    {"i386 open O_RDONLY|O_TRUNC", V_FS, AUDIT_I386, 5, 0x1000, 0x200, 0, EACCES_},
    {"i386 openat O_RDONLY|O_TRUNC", V_FS, AUDIT_I386, 295, 0, 0x1000, 0x8200, EACCES_},
    {"open_by_handle_at O_RDONLY|O_TRUNC", V_FS, AUDIT_X86_64, 304, 3, 0x1000, 0x200, EACCES_},
    {"truncate", V_FS, AUDIT_X86_64, 76, 0x1000, 0, 0, EPERM_},
    {"truncate without fs confinement", V_NOTFS, AUDIT_X86_64, 76, 0x1000, 0, 0, ALLOW},
    {"ftruncate stays allowed", V_ALL, AUDIT_X86_64, 77, 3, 0, 0, ALLOW},
    {"i386 truncate", V_FS, AUDIT_I386, 92, 0x1000, 0, 0, EPERM_},
    {"i386 truncate64", V_FS, AUDIT_I386, 193, 0x1000, 0, 0, EPERM_},
    {"openat2", V_FS, AUDIT_X86_64, 437, 0, 0x1000, 0x2000, ENOSYS_},
    {"i386 openat2", V_FS, AUDIT_I386, 437, 0, 0x1000, 0x2000, ENOSYS_},
    /* btrfs subvolume ioctls: names Landlock does not check */
    {"BTRFS_IOC_SNAP_CREATE_V2", V_FS | V_GUARD, AUDIT_X86_64, 16, 3, 0x50009417, 0x1000, EPERM_},
    {"BTRFS_IOC_SUBVOL_CREATE", V_FS | V_GUARD, AUDIT_X86_64, 16, 3, 0x5000940e, 0x1000, EPERM_},
    {"BTRFS_IOC_SNAP_DESTROY_V2", V_FS | V_GUARD, AUDIT_X86_64, 16, 3, 0x5000943f, 0x1000, EPERM_},
    {"i386 BTRFS_IOC_SNAP_CREATE", V_FS | V_GUARD, AUDIT_I386, 54, 3, 0x50009401, 0x1000, EPERM_},
    {"BTRFS_IOC_SNAP_CREATE, junk upper bits", V_FS, AUDIT_X86_64, 16, 3, 0x50009401 | HI(3), 0x1000,
     EPERM_},
    {"BTRFS_IOC_SNAP_CREATE without fs confinement", V_NOTFS, AUDIT_X86_64, 16, 3, 0x50009401, 0x1000,
     ALLOW},
    /* terminal injection */
    {"TIOCSTI", V_ALL, AUDIT_X86_64, 16, 0, 0x5412, 0x1000, EPERM_},
    {"TIOCSTI with junk upper bits", V_ALL, AUDIT_X86_64, 16, 0, 0x5412 | HI(1), 0x1000, EPERM_},
    {"TIOCLINUX", V_ALL, AUDIT_X86_64, 16, 0, 0x541c, 0x1000, EPERM_},
    {"i386 TIOCSTI", V_ALL, AUDIT_I386, 54, 0, 0x5412, 0x1000, EPERM_},
    {"TCGETS", V_ALL, AUDIT_X86_64, 16, 0, 0x5401, 0x1000, ALLOW},
    {"FIONREAD", V_ALL, AUDIT_X86_64, 16, 0, 0x541b, 0x1000, ALLOW},
    /* read-only */
    {"FS_IOC_SETFLAGS", V_RO, AUDIT_X86_64, 16, 3, 0x40086602, 0x1000, EPERM_},
    {"FS_IOC_SETFLAGS allowed elsewhere", V_NOTRO, AUDIT_X86_64, 16, 3, 0x40086602, 0x1000, ALLOW},
    {"FS_IOC32_SETFLAGS", V_RO, AUDIT_X86_64, 16, 3, 0x40046602, 0x1000, EPERM_},
    {"FS_IOC_FSSETXATTR", V_RO, AUDIT_X86_64, 16, 3, 0x401c5820, 0x1000, EPERM_},
    {"FS_IOC_GETFLAGS", V_ALL, AUDIT_X86_64, 16, 3, 0x80086601, 0x1000, ALLOW},
    {"i386 FS_IOC32_SETFLAGS", V_RO, AUDIT_I386, 54, 3, 0x40046602, 0x1000, EPERM_},
    {"chmod", V_RO, AUDIT_X86_64, 90, 0, 0, 0, EPERM_},
    {"chmod allowed elsewhere", V_NOTRO, AUDIT_X86_64, 90, 0, 0, 0, ALLOW},
    {"fchmod", V_RO, AUDIT_X86_64, 91, 0, 0, 0, EPERM_},
    {"fchmodat", V_RO, AUDIT_X86_64, 268, 0, 0, 0, EPERM_},
    {"fchmodat2", V_RO, AUDIT_X86_64, 452, 0, 0, 0, EPERM_},
    {"i386 fchmodat2", V_RO, AUDIT_I386, 452, 0, 0, 0, EPERM_},
    {"chown", V_RO, AUDIT_X86_64, 92, 0, 0, 0, EPERM_},
    {"fchown", V_RO, AUDIT_X86_64, 93, 0, 0, 0, EPERM_},
    {"lchown", V_RO, AUDIT_X86_64, 94, 0, 0, 0, EPERM_},
    {"fchownat", V_RO, AUDIT_X86_64, 260, 0, 0, 0, EPERM_},
    {"i386 chown32", V_RO, AUDIT_I386, 212, 0, 0, 0, EPERM_},
    {"i386 fchown32", V_RO, AUDIT_I386, 207, 0, 0, 0, EPERM_},
    {"i386 lchown32", V_RO, AUDIT_I386, 198, 0, 0, 0, EPERM_},
    {"i386 chown (16-bit)", V_RO, AUDIT_I386, 182, 0, 0, 0, EPERM_},
    {"setxattr", V_RO, AUDIT_X86_64, 188, 0, 0, 0, EPERM_},
    {"lsetxattr", V_RO, AUDIT_X86_64, 189, 0, 0, 0, EPERM_},
    {"fsetxattr", V_RO, AUDIT_X86_64, 190, 0, 0, 0, EPERM_},
    {"getxattr stays allowed", V_ALL, AUDIT_X86_64, 191, 0, 0, 0, ALLOW},
    {"removexattr", V_RO, AUDIT_X86_64, 197, 0, 0, 0, EPERM_},
    {"lremovexattr", V_RO, AUDIT_X86_64, 198, 0, 0, 0, EPERM_},
    {"fremovexattr", V_RO, AUDIT_X86_64, 199, 0, 0, 0, EPERM_},
    {"utime", V_RO, AUDIT_X86_64, 132, 0, 0, 0, EPERM_},
    {"utimes", V_RO, AUDIT_X86_64, 235, 0, 0, 0, EPERM_},
    {"futimesat", V_RO, AUDIT_X86_64, 261, 0, 0, 0, EPERM_},
    {"utimensat", V_RO, AUDIT_X86_64, 280, 0, 0, 0, EPERM_},
    {"i386 utimensat_time64", V_RO, AUDIT_I386, 412, 0, 0, 0, EPERM_},
    {"shmget", V_RO, AUDIT_X86_64, 29, 0, 0, 0, EPERM_},
    {"shmat", V_RO, AUDIT_X86_64, 30, 0, 0, 0, EPERM_},
    {"shmctl", V_RO, AUDIT_X86_64, 31, 0, 0, 0, EPERM_},
    {"shmdt", V_RO, AUDIT_X86_64, 67, 0, 0, 0, EPERM_},
    {"semget", V_RO, AUDIT_X86_64, 64, 0, 0, 0, EPERM_},
    {"semop", V_RO, AUDIT_X86_64, 65, 0, 0, 0, EPERM_},
    {"semctl", V_RO, AUDIT_X86_64, 66, 0, 0, 0, EPERM_},
    {"semtimedop", V_RO, AUDIT_X86_64, 220, 0, 0, 0, EPERM_},
    {"msgget", V_RO, AUDIT_X86_64, 68, 0, 0, 0, EPERM_},
    {"msgsnd", V_RO, AUDIT_X86_64, 69, 0, 0, 0, EPERM_},
    {"msgrcv", V_RO, AUDIT_X86_64, 70, 0, 0, 0, EPERM_},
    {"msgctl", V_RO, AUDIT_X86_64, 71, 0, 0, 0, EPERM_},
    {"i386 ipc multiplexer", V_RO, AUDIT_I386, 117, 23, 0, 0, EPERM_},
    {"i386 shmget", V_RO, AUDIT_I386, 395, 0, 0, 0, EPERM_},
    {"i386 semtimedop_time64", V_RO, AUDIT_I386, 420, 0, 0, 0, EPERM_},
    {"mq_open", V_RO, AUDIT_X86_64, 240, 0, 0, 0, EPERM_},
    {"mq_unlink", V_RO, AUDIT_X86_64, 241, 0, 0, 0, EPERM_},
    {"mq_timedsend", V_RO, AUDIT_X86_64, 242, 0, 0, 0, EPERM_},
    {"mq_timedreceive", V_RO, AUDIT_X86_64, 243, 0, 0, 0, EPERM_},
    {"mq_notify", V_RO, AUDIT_X86_64, 244, 0, 0, 0, EPERM_},
    {"mq_getsetattr", V_RO, AUDIT_X86_64, 245, 0, 0, 0, EPERM_},
    {"i386 mq_timedsend_time64", V_RO, AUDIT_I386, 418, 0, 0, 0, EPERM_},
    {"add_key", V_RO, AUDIT_X86_64, 248, 0, 0, 0, EPERM_},
    {"request_key", V_RO, AUDIT_X86_64, 249, 0, 0, 0, EPERM_},
    {"keyctl", V_RO, AUDIT_X86_64, 250, 0, 0, 0, EPERM_},
    {"bpf", V_RO, AUDIT_X86_64, 321, 0, 0, 0, EPERM_},
    {"perf_event_open", V_RO, AUDIT_X86_64, 298, 0, 0, 0, EPERM_},
    {"userfaultfd", V_RO, AUDIT_X86_64, 323, 0, 0, 0, EPERM_},
    {"personality", V_RO, AUDIT_X86_64, 135, 0xffffffffu, 0, 0, EPERM_},
    {"keyctl allowed under the network deny alone", V_NOTFS, AUDIT_X86_64, 250, 0, 0, 0, ALLOW},
    {"keyctl in confined mode", V_FS, AUDIT_X86_64, 250, 0, 0, 0, EPERM_},
    {"add_key in confined mode", V_FS, AUDIT_X86_64, 248, 0, 0, 0, EPERM_},
    {"request_key in confined mode", V_FS, AUDIT_X86_64, 249, 0, 0, 0, EPERM_},
    {"i386 keyctl in confined mode", V_FS, AUDIT_I386, 288, 0, 0, 0, EPERM_},
    /* every confining mode: loop devices */
    {"LOOP_SET_FD", V_ALL, AUDIT_X86_64, 16, 3, 0x4c00, 4, EPERM_},
    {"LOOP_CLR_FD", V_ALL, AUDIT_X86_64, 16, 3, 0x4c01, 0, EPERM_},
    {"LOOP_CHANGE_FD", V_ALL, AUDIT_X86_64, 16, 3, 0x4c06, 4, EPERM_},
    {"LOOP_CONFIGURE", V_ALL, AUDIT_X86_64, 16, 3, 0x4c0a, 0x1000, EPERM_},
    {"LOOP_CONFIGURE, junk upper bits", V_ALL, AUDIT_X86_64, 16, 3, 0x4c0a | HI(9), 0x1000, EPERM_},
    {"LOOP_CTL_ADD", V_ALL, AUDIT_X86_64, 16, 3, 0x4c80, 8, EPERM_},
    {"LOOP_CTL_GET_FREE", V_ALL, AUDIT_X86_64, 16, 3, 0x4c82, 0, EPERM_},
    {"i386 LOOP_SET_FD", V_ALL, AUDIT_I386, 54, 3, 0x4c00, 4, EPERM_},
    {"0x4d00 is no loop request", V_NOTRO, AUDIT_X86_64, 16, 3, 0x4d00, 0, ALLOW},
    {"a sized 'L' request is no loop request", V_NOTRO, AUDIT_X86_64, 16, 3, 0x80044c00, 0, ALLOW},
    /* every confining mode: tun/tap */
    {"TUNSETIFF", V_ALL, AUDIT_X86_64, 16, 3, 0x400454ca, 0x1000, EPERM_},
    {"TUNSETQUEUE", V_ALL, AUDIT_X86_64, 16, 3, 0x400454d9, 0x1000, EPERM_},
    {"i386 TUNSETIFF", V_ALL, AUDIT_I386, 54, 3, 0x400454ca, 0x1000, EPERM_},
    {"TUNGETIFF stays allowed", V_NOTRO, AUDIT_X86_64, 16, 3, 0x800454d2, 0x1000, ALLOW},
    {"TUNSETIFF without a sandbox program", V_GUARD, AUDIT_X86_64, 16, 3, 0x400454ca, 0, ALLOW},
    /* every confining mode: the mount API */
    {"open_tree", V_ALL, AUDIT_X86_64, 428, 0xffffff9cu, 0x1000, 1, EPERM_},
    {"move_mount", V_ALL, AUDIT_X86_64, 429, 3, 0x1000, 0xffffff9cu, EPERM_},
    {"fsopen", V_ALL, AUDIT_X86_64, 430, 0x1000, 0, 0, EPERM_},
    {"fsconfig", V_ALL, AUDIT_X86_64, 431, 3, 0, 0, EPERM_},
    {"fsmount", V_ALL, AUDIT_X86_64, 432, 3, 0, 0, EPERM_},
    {"fspick", V_ALL, AUDIT_X86_64, 433, 0xffffff9cu, 0x1000, 0, EPERM_},
    {"mount_setattr", V_ALL, AUDIT_X86_64, 442, 0xffffff9cu, 0x1000, 0, EPERM_},
    {"i386 open_tree", V_ALL, AUDIT_I386, 428, 0, 0, 0, EPERM_},
    {"i386 open_tree_attr", V_ALL, AUDIT_I386, 467, 0, 0, 0, EPERM_},
    /* every confining mode: RLIMIT_CORE stays 1 */
    {"setrlimit RLIMIT_CORE", V_ALL, AUDIT_X86_64, 160, 4, 0x1000, 0, NOOP},
    {"setrlimit RLIMIT_CORE, junk upper bits", V_ALL, AUDIT_X86_64, 160, 4 | HI(1), 0x1000, 0,
     NOOP},
    {"setrlimit RLIMIT_NOFILE", V_ALL, AUDIT_X86_64, 160, 7, 0x1000, 0, ALLOW},
    {"prlimit64 sets RLIMIT_CORE", V_ALL, AUDIT_X86_64, 302, 0, 4, 0x1000, NOOP},
    {"prlimit64 reads RLIMIT_CORE", V_ALL, AUDIT_X86_64, 302, 0, 4, 0, ALLOW},
    {"prlimit64 sets RLIMIT_NOFILE of itself", V_ALL, AUDIT_X86_64, 302, 0, 7, 0x1000, ALLOW},
    {"i386 setrlimit RLIMIT_CORE", V_ALL, AUDIT_I386, 75, 4, 0x1000, 0, NOOP},
    {"i386 prlimit64 sets RLIMIT_CORE", V_ALL, AUDIT_I386, 340, 0, 4, 0x1000, NOOP},
    /* read-only: ioctl is an allowlist */
    {"FS_IOC_SET_ENCRYPTION_POLICY in read-only", V_RO, AUDIT_X86_64, 16, 3, 0x800c6613, 0x1000,
     EPERM_},
    {"FS_IOC_SET_ENCRYPTION_POLICY elsewhere", V_NOTRO, AUDIT_X86_64, 16, 3, 0x800c6613, 0x1000,
     ALLOW},
    {"FS_IOC_ENABLE_VERITY in read-only", V_RO, AUDIT_X86_64, 16, 3, 0x40806685, 0x1000, EPERM_},
    {"FS_IOC_ADD_ENCRYPTION_KEY in read-only", V_RO, AUDIT_X86_64, 16, 3, 0xc0506617, 0x1000,
     EPERM_},
    {"FS_IOC_REMOVE_ENCRYPTION_KEY in read-only", V_RO, AUDIT_X86_64, 16, 3, 0xc0406618, 0x1000,
     EPERM_},
    {"EXT4_IOC_MIGRATE in read-only", V_RO, AUDIT_X86_64, 16, 3, 0x6609, 0, EPERM_},
    {"BTRFS_IOC_SUBVOL_SETFLAGS in read-only", V_RO, AUDIT_X86_64, 16, 3, 0x4008941a, 0x1000,
     EPERM_},
    {"FIOASYNC in read-only", V_RO, AUDIT_X86_64, 16, 3, 0x5452, 0x1000, EPERM_},
    {"TIOCSWINSZ in read-only", V_RO, AUDIT_X86_64, 16, 0, 0x5414, 0x1000, EPERM_},
    {"TCSETS in read-only", V_RO, AUDIT_X86_64, 16, 0, 0x5402, 0x1000, ALLOW},
    {"TCGETS with junk upper bits in read-only", V_RO, AUDIT_X86_64, 16, 0, 0x5401 | HI(3), 0x1000,
     ALLOW},
    {"TIOCGWINSZ in read-only", V_RO, AUDIT_X86_64, 16, 0, 0x5413, 0x1000, ALLOW},
    {"FIOCLEX in read-only", V_RO, AUDIT_X86_64, 16, 3, 0x5451, 0, ALLOW},
    {"FS_IOC_FIEMAP in read-only", V_RO, AUDIT_X86_64, 16, 3, 0xc020660b, 0x1000, ALLOW},
    {"TIOCSTI stays refused in read-only", V_RO, AUDIT_X86_64, 16, 0, 0x5412, 0x1000, EPERM_},
    {"i386 FS_IOC32_GETFLAGS in read-only", V_RO, AUDIT_I386, 54, 3, 0x80046601, 0x1000, ALLOW},
    {"i386 FS_IOC_SET_ENCRYPTION_POLICY in read-only", V_RO, AUDIT_I386, 54, 3, 0x800c6613, 0,
     EPERM_},
    {"i386 TCGETS in read-only", V_RO, AUDIT_I386, 54, 0, 0x5401, 0x1000, ALLOW},
    /* read-only: no effect on other processes */
    {"prlimit64 of another process", V_RO, AUDIT_X86_64, 302, 1234, 0, 0x1000, EPERM_},
    /* Two rules match here (another pid; RLIMIT_CORE with a new limit): libseccomp
     * decides by the two-argument one. Either answer changes nothing. */
    {"prlimit64 of another process's RLIMIT_CORE in read-only", V_RO, AUDIT_X86_64, 302, 1234, 4,
     0x1000, NOOP},
    {"prlimit64 of another process's RLIMIT_CORE: no-op elsewhere", V_NOTRO, AUDIT_X86_64, 302, 1234,
     4, 0x1000, NOOP},
    {"prlimit64 of another process elsewhere", V_NOTRO, AUDIT_X86_64, 302, 1234, 7, 0x1000, ALLOW},
    {"prlimit64 pid with junk upper bits", V_RO, AUDIT_X86_64, 302, HI(1), 7, 0, EPERM_},
    {"setpriority of itself", V_ALL, AUDIT_X86_64, 141, 0, 0, 5, ALLOW},
    {"setpriority of another process", V_RO, AUDIT_X86_64, 141, 0, 1234, 5, EPERM_},
    {"setpriority of its process group", V_RO, AUDIT_X86_64, 141, 1, 0, 5, EPERM_},
    {"setpriority of its user", V_RO, AUDIT_X86_64, 141, 2, 0, 5, EPERM_},
    {"setpriority of another process elsewhere", V_NOTRO, AUDIT_X86_64, 141, 0, 1234, 5, ALLOW},
    {"sched_setaffinity of another process", V_RO, AUDIT_X86_64, 203, 1234, 8, 0x1000, EPERM_},
    {"sched_setaffinity of itself", V_ALL, AUDIT_X86_64, 203, 0, 8, 0x1000, ALLOW},
    {"sched_setscheduler of another process", V_RO, AUDIT_X86_64, 144, 1234, 0, 0x1000, EPERM_},
    {"sched_setparam of another process", V_RO, AUDIT_X86_64, 142, 1234, 0x1000, 0, EPERM_},
    {"sched_setattr of another process", V_RO, AUDIT_X86_64, 314, 1234, 0x1000, 0, EPERM_},
    {"sched_setattr of itself", V_ALL, AUDIT_X86_64, 314, 0, 0x1000, 0, ALLOW},
    {"ioprio_set of itself", V_ALL, AUDIT_X86_64, 251, 1, 0, 0x4004, ALLOW},
    {"ioprio_set of another process", V_RO, AUDIT_X86_64, 251, 1, 1234, 0x4004, EPERM_},
    {"ioprio_set of its user", V_RO, AUDIT_X86_64, 251, 3, 0, 0x4004, EPERM_},
    {"migrate_pages of another process", V_RO, AUDIT_X86_64, 256, 1234, 8, 0x1000, EPERM_},
    {"move_pages of another process", V_RO, AUDIT_X86_64, 279, 1234, 1, 0x1000, EPERM_},
    {"move_pages of itself", V_ALL, AUDIT_X86_64, 279, 0, 1, 0x1000, ALLOW},
    {"i386 sched_setaffinity of another process", V_RO, AUDIT_I386, 241, 1234, 8, 0, EPERM_},
    /* read-only and the switch: no new user namespace */
    {"unshare CLONE_NEWUSER", V_RO | V_USERNS, AUDIT_X86_64, 272, 0x10000000, 0, 0, EPERM_},
    {"unshare CLONE_NEWUSER|CLONE_NEWNS", V_RO | V_USERNS, AUDIT_X86_64, 272, 0x10020000, 0, 0,
     EPERM_},
    {"unshare CLONE_NEWUSER allowed elsewhere", V_NOTRO, AUDIT_X86_64, 272, 0x10000000, 0, 0, ALLOW},
    {"unshare CLONE_NEWNS", V_ALL | V_USERNS, AUDIT_X86_64, 272, 0x20000, 0, 0, ALLOW},
    {"clone CLONE_NEWUSER", V_RO | V_USERNS, AUDIT_X86_64, 56, 0x10000011, 0, 0, EPERM_},
    {"clone of a plain child", V_ALL | V_USERNS, AUDIT_X86_64, 56, 0x1200011, 0, 0, ALLOW},
    {"clone3", V_RO | V_USERNS, AUDIT_X86_64, 435, 0x1000, 88, 0, ENOSYS_},
    {"clone3 allowed elsewhere", V_NOTRO, AUDIT_X86_64, 435, 0x1000, 88, 0, ALLOW},
    {"setns into a user namespace", V_RO | V_USERNS, AUDIT_X86_64, 308, 3, 0x10000000, 0, EPERM_},
    {"setns of any type", V_RO | V_USERNS, AUDIT_X86_64, 308, 3, 0, 0, EPERM_},
    {"setns into a network namespace", V_USERNS, AUDIT_X86_64, 308, 3, 0x40000000, 0, ALLOW},
    {"i386 clone CLONE_NEWUSER", V_RO | V_USERNS, AUDIT_I386, 120, 0x10000011, 0, 0, EPERM_},
    {"i386 unshare CLONE_NEWUSER", V_RO | V_USERNS, AUDIT_I386, 310, 0x10000000, 0, 0, EPERM_},
    {"no-userns: socket allowed", V_USERNS, AUDIT_X86_64, 41, 2, 1, 0, ALLOW},
    {"no-userns: x32 kills", V_USERNS, AUDIT_X86_64, 0x40000000u | 272, 0x10000000, 0, 0, KILL},
    /* syscalls newer than libseccomp's table */
    {"statmount allowed", V_ALL, AUDIT_X86_64, 457, 0, 0, 0, ALLOW},
    {"mseal allowed", V_ALL, AUDIT_X86_64, 462, 0, 0, 0, ALLOW},
    {"setxattrat refused", V_RO, AUDIT_X86_64, 463, 0, 0, 0, EPERM_},
    {"getxattrat allowed", V_ALL, AUDIT_X86_64, 464, 0, 0, 0, ALLOW},
    {"removexattrat refused", V_RO, AUDIT_X86_64, 466, 0, 0, 0, EPERM_},
    {"open_tree_attr refused", V_ALL, AUDIT_X86_64, 467, 0, 0, 0, EPERM_},
    {"file_getattr allowed", V_ALL, AUDIT_X86_64, 468, 0, 0, 0, ALLOW},
    {"file_setattr refused", V_RO, AUDIT_X86_64, 469, 0, 0, 0, EPERM_},
    {"listns allowed", V_ALL, AUDIT_X86_64, 470, 0, 0, 0, ALLOW},
    {"a syscall newer than the table", V_RO, AUDIT_X86_64, 471, 0, 0, 0, ENOSYS_},
    {"a much newer syscall", V_RO, AUDIT_X86_64, 1000, 0, 0, 0, ENOSYS_},
    {"newer syscalls pass outside read-only", V_NOTRO, AUDIT_X86_64, 471, 0, 0, 0, ALLOW},
    {"i386 setxattrat refused", V_RO, AUDIT_I386, 463, 0, 0, 0, EPERM_},
    {"i386 newer syscall", V_RO, AUDIT_I386, 471, 0, 0, 0, ENOSYS_},
    {"i386 syscall -1 (a tracer's skip) passes the guard", V_ALL, AUDIT_I386, 0xffffffffu, 0, 0, 0, ALLOW},
    {"i386 huge number", V_RO, AUDIT_I386, 0x50000000u, 0, 0, 0, ENOSYS_},
    {"x32 still killed in read-only", V_RO, AUDIT_X86_64, 0x40000000u | 463, 0, 0, 0, KILL},
    {"syscall -1 (ptrace-skipped) stays allowed", V_ALL, AUDIT_X86_64, 0xffffffffu, 0, 0, 0, ALLOW},
    /* ordinary work */
    {"getpid", V_ALL, AUDIT_X86_64, 39, 0, 0, 0, ALLOW},
    {"read", V_ALL, AUDIT_X86_64, 0, 3, 0x7fff0000, 4096, ALLOW},
    {"write", V_ALL, AUDIT_X86_64, 1, 1, 0x7fff0000, 10, ALLOW},
    {"i386 getpid", V_ALL, AUDIT_I386, 20, 0, 0, 0, ALLOW},
    {"i386 read", V_ALL, AUDIT_I386, 3, 0, 0, 0, ALLOW},
    {"connect on an inherited socket", V_ALL, AUDIT_X86_64, 42, 3, 0x1000, 16, ALLOW},
    /* the creation guard (create-notify): names stop for the guard */
    {"guard: open O_CREAT", V_GUARD, AUDIT_X86_64, 2, 0, 0x41, 0644, NOTIFY},
    {"guard: open O_CREAT, junk above", V_GUARD, AUDIT_X86_64, 2, 0, 0x41 | HI(1), 0, NOTIFY},
    {"guard: open read-only", V_GUARD, AUDIT_X86_64, 2, 0, 0, 0, ALLOW},
    {"guard: open O_WRONLY|O_TRUNC without O_CREAT", V_GUARD, AUDIT_X86_64, 2, 0, 0x201, 0, ALLOW},
    {"guard: openat O_CREAT", V_GUARD, AUDIT_X86_64, 257, 0, 0, 0x241, NOTIFY},
    {"guard: openat O_TMPFILE passes", V_GUARD, AUDIT_X86_64, 257, 0, 0, 0x410002, ALLOW},
    {"guard: creat", V_GUARD, AUDIT_X86_64, 85, 0, 0, 0, NOTIFY},
    {"guard: mkdir", V_GUARD, AUDIT_X86_64, 83, 0, 0, 0, NOTIFY},
    {"guard: mknodat", V_GUARD, AUDIT_X86_64, 259, 0, 0, 0, NOTIFY},
    {"guard: symlink", V_GUARD, AUDIT_X86_64, 88, 0, 0, 0, NOTIFY},
    {"guard: linkat", V_GUARD, AUDIT_X86_64, 265, 0, 0, 0, NOTIFY},
    {"guard: rename", V_GUARD, AUDIT_X86_64, 82, 0, 0, 0, NOTIFY},
    {"guard: renameat2", V_GUARD, AUDIT_X86_64, 316, 0, 0, 0, NOTIFY},
    {"guard: openat2", V_GUARD, AUDIT_X86_64, 437, 0, 0, 0, ENOSYS_},
    {"guard: io_uring_setup is recorded", V_GUARD, AUDIT_X86_64, 425, 0, 0, 0, NOTIFY},
    {"guard: landlock_restrict_self", V_GUARD, AUDIT_X86_64, 446, 0, 0, 0, EPERM_},
    {"guard: read", V_GUARD, AUDIT_X86_64, 0, 0, 0, 0, ALLOW},
    {"guard: x32 open kills", V_GUARD, AUDIT_X86_64, 0x40000002u, 0, 0x41, 0, KILL},
    {"guard: i386 open O_CREAT", V_GUARD, AUDIT_I386, 5, 0, 0x41, 0, NOTIFY},
    {"guard: i386 open read-only", V_GUARD, AUDIT_I386, 5, 0, 0, 0, ALLOW},
    {"guard: i386 creat", V_GUARD, AUDIT_I386, 8, 0, 0, 0, NOTIFY},
    {"guard: i386 openat O_CREAT", V_GUARD, AUDIT_I386, 295, 0, 0, 0x40, NOTIFY},
    {"guard: i386 renameat2", V_GUARD, AUDIT_I386, 353, 0, 0, 0, NOTIFY},
    {"guard: bind (a socket's path is a name)", V_GUARD, AUDIT_X86_64, 49, 3, 0, 0, NOTIFY},
    {"guard: i386 bind", V_GUARD, AUDIT_I386, 361, 3, 0, 0, NOTIFY},
    {"guard: i386 socketcall(SYS_BIND)", V_GUARD, AUDIT_I386, 102, 2, 0, 0, NOTIFY},
    {"guard: i386 socketcall(SYS_CONNECT) passes", V_GUARD, AUDIT_I386, 102, 3, 0, 0, ALLOW},
    {"supervised: bind passes without the guard", V_SUP, AUDIT_X86_64, 49, 3, 0, 0, ALLOW},
    {"guard: foreign arch kills", V_GUARD, AUDIT_AARCH64, 56, 0, 0, 0x40, KILL},
    {"supervised: inet socket left to the listener", V_SUP, AUDIT_X86_64, 41, 2, 1, 0, ALLOW},
    {"supervised: unix socket in read-only left to the listener", V_SUP_RO, AUDIT_X86_64, 41, 1,
     1, 0, ALLOW},
    {"supervised: socketpair in read-only stays refused", V_SUP_RO, AUDIT_X86_64, 53, 1, 1, 0,
     EPERM_},
    {"supervised: io_uring_setup left to the listener", V_SUP, AUDIT_X86_64, 425, 8, 0, 0, ALLOW},
    {"supervised: io_uring_enter stays refused", V_SUP, AUDIT_X86_64, 426, 3, 1, 0, EPERM_},
    {"supervised: TIOCSTI", V_SUP, AUDIT_X86_64, 16, 0, 0x5412, 0, EPERM_},
    {"supervised: prlimit64 of another process", V_SUP, AUDIT_X86_64, 302, 1234, 7, 0x1000,
     EPERM_},
    {"supervised: prlimit64 of itself", V_SUP, AUDIT_X86_64, 302, 0, 7, 0x1000, ALLOW},
    {"supervised: setrlimit RLIMIT_CORE", V_SUP, AUDIT_X86_64, 160, 4, 0x1000, 0, NOOP},
    {"supervised: setpriority of another process", V_SUP, AUDIT_X86_64, 141, 0, 1234, 5, EPERM_},
    {"supervised: nice, setpriority of itself", V_SUP, AUDIT_X86_64, 141, 0, 0, 5, ALLOW},
    {"supervised: sched_setaffinity of another process", V_SUP, AUDIT_X86_64, 203, 1234, 8, 0,
     EPERM_},
    {"supervised: chmod in read-only", V_SUP_RO, AUDIT_X86_64, 90, 0, 0, 0, EPERM_},
    {"supervised: open O_RDONLY|O_TRUNC", V_SUP_FS, AUDIT_X86_64, 2, 0, 0x200, 0, EACCES_},
    {"supervised: a newer syscall in read-only", V_SUP_RO, AUDIT_X86_64, 471, 0, 0, 0, ENOSYS_},
    {"supervised: open_tree", V_SUP, AUDIT_X86_64, 428, 0, 0, 0, EPERM_},
    {"supervised: i386 socket inet", V_SUP, AUDIT_I386, 359, 2, 1, 0, ALLOW},
    {"supervised: i386 socketcall SYS_SOCKET", V_SUP_NET | V_SUP_RO, AUDIT_I386, 102, 1, 0, 0,
     ALLOW},
    {"supervised: foreign arch kills", V_SUP | V_LSN, AUDIT_AARCH64, 198, 2, 1, 0, KILL},
    {"supervised: x32 kills", V_SUP | V_LSN, AUDIT_X86_64, 0x40000029u, 2, 1, 0, KILL},
    {"supervised: read", V_SUP | V_LSN, AUDIT_X86_64, 0, 0, 0, 0, ALLOW},
    {"listener: inet socket is recorded", V_LSN_NET | V_LSN_RO, AUDIT_X86_64, 41, 2, 1, 0,
     NOTIFY},
    {"listener: inet6 with junk upper bits is recorded", V_LSN_NET | V_LSN_RO, AUDIT_X86_64, 41,
     10 | HI(3), 1, 0, NOTIFY},
    {"listener: unix socket passes", V_LSN_NET, AUDIT_X86_64, 41, 1, 1, 0, ALLOW},
    {"listener: netlink socket passes", V_LSN_NET, AUDIT_X86_64, 41, 16, 3, 0, ALLOW},
    {"listener: packet socket is recorded", V_LSN_NET, AUDIT_X86_64, 41, 17, 3, 0, NOTIFY},
    {"listener: family 64 is recorded", V_LSN_NET, AUDIT_X86_64, 41, 64, 1, 0, NOTIFY},
    {"listener: unix socket in read-only is recorded", V_LSN_RO, AUDIT_X86_64, 41, 1, 1, 0,
     NOTIFY},
    {"listener: sockets pass in confined-only", B(SBX_SC_V_NOTIFY_CONFINED) |
     B(SBX_SC_V_CREATE_NOTIFY), AUDIT_X86_64, 41, 2, 1, 0, ALLOW},
    {"listener: io_uring_setup is recorded", V_LSN, AUDIT_X86_64, 425, 8, 0, 0, NOTIFY},
    {"listener: i386 io_uring_setup is recorded", V_LSN, AUDIT_I386, 425, 8, 0, 0, NOTIFY},
    {"listener: io_uring_enter is the main program's", V_LSN_PLAIN, AUDIT_X86_64, 426, 3, 1, 0,
     ALLOW},
    {"listener: TIOCSTI is the main program's", V_LSN, AUDIT_X86_64, 16, 0, 0x5412, 0, ALLOW},
    {"listener: socketpair is the main program's", V_LSN, AUDIT_X86_64, 53, 1, 1, 0, ALLOW},
    {"listener: openat O_CREAT passes without the guard", V_LSN_PLAIN, AUDIT_X86_64, 257, 0, 0,
     0x241, ALLOW},
    {"listener: i386 socket inet is recorded", V_LSN_NET | V_LSN_RO, AUDIT_I386, 359, 2, 1, 0,
     NOTIFY},
    {"listener: i386 socketcall SYS_SOCKET is recorded", V_LSN_NET | V_LSN_RO, AUDIT_I386, 102, 1,
     0, 0, NOTIFY},
};

/* aarch64 and its arm compat ABI. */
static const struct sc_case arm_cases[] = {
    {"inet socket", V_DENY, AUDIT_AARCH64, 198, 2, 1, 0, NETDENY},
    {"inet6 with junk upper bits", V_DENY, AUDIT_AARCH64, 198, 10 | HI(5), 1, 0, NETDENY},
    {"unix with junk upper bits", V_NET | V_CONF, AUDIT_AARCH64, 198, 1 | HI(5), 1, 0, ALLOW},
    {"netlink", V_NET, AUDIT_AARCH64, 198, 16, 3, 0, ALLOW},
    {"unix in read-only", V_RO, AUDIT_AARCH64, 198, 1, 1, 0, EPERM_},
    {"vsock", V_NET, AUDIT_AARCH64, 198, 40, 1, 0, NETDENY},
    {"family 64", V_NET, AUDIT_AARCH64, 198, 64, 1, 0, NETDENY},
    {"socketpair in read-only", V_RO, AUDIT_AARCH64, 199, 1, 1, 0, EPERM_},
    {"a foreign arch", V_ALL, AUDIT_X86_64, 39, 0, 0, 0, KILL},
    {"i386 on an arm program", V_ALL, AUDIT_I386, 20, 0, 0, 0, KILL},
    {"arm socket inet", V_DENY, AUDIT_ARM, 281, 2, 1, 0, NETDENY},
    {"arm socket unix", V_NET | V_CONF, AUDIT_ARM, 281, 1, 1, 0, ALLOW},
    {"arm socket unix in read-only", V_RO, AUDIT_ARM, 281, 1, 1, 0, EPERM_},
    {"arm socket packet", V_NET, AUDIT_ARM, 281, 17, 1, 0, NETDENY},
    {"arm socketpair in read-only", V_RO, AUDIT_ARM, 288, 1, 1, 0, EPERM_},
    {"io_uring_setup", V_ALL, AUDIT_AARCH64, 425, 8, 0, 0, EPERM_},
    {"arm io_uring_enter", V_ALL, AUDIT_ARM, 426, 8, 0, 0, EPERM_},
    {"openat O_RDONLY|O_TRUNC", V_FS, AUDIT_AARCH64, 56, 0, 0x1000, 0x200, EACCES_},
    {"openat O_WRONLY|O_TRUNC", V_ALL, AUDIT_AARCH64, 56, 0, 0x1000, 0x201, ALLOW},
    {"arm open O_RDONLY|O_TRUNC", V_FS, AUDIT_ARM, 5, 0x1000, 0x200, 0, EACCES_},
    {"truncate", V_FS, AUDIT_AARCH64, 45, 0, 0, 0, EPERM_},
    {"arm truncate64", V_FS, AUDIT_ARM, 193, 0, 0, 0, EPERM_},
    {"openat2", V_FS, AUDIT_AARCH64, 437, 0, 0, 0, ENOSYS_},
    {"TIOCSTI", V_ALL, AUDIT_AARCH64, 29, 0, 0x5412, 0, EPERM_},
    {"BTRFS_IOC_SUBVOL_CREATE_V2", V_FS | V_GUARD, AUDIT_AARCH64, 29, 3, 0x50009418, 0, EPERM_},
    {"arm TIOCSTI", V_ALL, AUDIT_ARM, 54, 0, 0x5412, 0, EPERM_},
    {"fchmodat", V_RO, AUDIT_AARCH64, 53, 0, 0, 0, EPERM_},
    {"fchmodat allowed elsewhere", V_NOTRO, AUDIT_AARCH64, 53, 0, 0, 0, ALLOW},
    {"setxattr", V_RO, AUDIT_AARCH64, 5, 0, 0, 0, EPERM_},
    {"shmget", V_RO, AUDIT_AARCH64, 194, 0, 0, 0, EPERM_},
    {"mq_open", V_RO, AUDIT_AARCH64, 180, 0, 0, 0, EPERM_},
    {"arm chmod", V_RO, AUDIT_ARM, 15, 0, 0, 0, EPERM_},
    {"arm chown32", V_RO, AUDIT_ARM, 212, 0, 0, 0, EPERM_},
    {"arm shmget", V_RO, AUDIT_ARM, 307, 0, 0, 0, EPERM_},
    {"FS_IOC_SETFLAGS", V_RO, AUDIT_AARCH64, 29, 3, 0x40086602, 0, EPERM_},
    {"FS_IOC_ENABLE_VERITY in read-only", V_RO, AUDIT_AARCH64, 29, 3, 0x40806685, 0, EPERM_},
    {"TCGETS in read-only", V_RO, AUDIT_AARCH64, 29, 0, 0x5401, 0, ALLOW},
    {"arm FS_IOC_SET_ENCRYPTION_POLICY in read-only", V_RO, AUDIT_ARM, 54, 3, 0x800c6613, 0, EPERM_},
    {"arm TCGETS in read-only", V_RO, AUDIT_ARM, 54, 0, 0x5401, 0, ALLOW},
    {"setxattrat refused", V_RO, AUDIT_AARCH64, 463, 0, 0, 0, EPERM_},
    {"open_tree", V_ALL, AUDIT_AARCH64, 428, 0, 0, 0, EPERM_},
    {"open_tree_attr", V_ALL, AUDIT_AARCH64, 467, 0, 0, 0, EPERM_},
    {"arm fsopen", V_ALL, AUDIT_ARM, 430, 0, 0, 0, EPERM_},
    {"LOOP_CONFIGURE", V_ALL, AUDIT_AARCH64, 29, 3, 0x4c0a, 0, EPERM_},
    {"TUNSETIFF", V_ALL, AUDIT_AARCH64, 29, 3, 0x400454ca, 0, EPERM_},
    {"setrlimit RLIMIT_CORE", V_ALL, AUDIT_AARCH64, 164, 4, 0x1000, 0, NOOP},
    {"prlimit64 sets RLIMIT_CORE", V_ALL, AUDIT_AARCH64, 261, 0, 4, 0x1000, NOOP},
    {"prlimit64 of another process", V_RO, AUDIT_AARCH64, 261, 1234, 7, 0x1000, EPERM_},
    {"keyctl in confined mode", V_FS, AUDIT_AARCH64, 219, 0, 0, 0, EPERM_},
    {"clone CLONE_NEWUSER", V_RO | V_USERNS, AUDIT_AARCH64, 220, 0x10000011, 0, 0, EPERM_},
    {"unshare CLONE_NEWUSER", V_RO | V_USERNS, AUDIT_AARCH64, 97, 0x10000000, 0, 0, EPERM_},
    {"clone3", V_RO | V_USERNS, AUDIT_AARCH64, 435, 0x1000, 88, 0, ENOSYS_},
    {"arm clone CLONE_NEWUSER", V_RO | V_USERNS, AUDIT_ARM, 120, 0x10000011, 0, 0, EPERM_},
    {"newer syscall", V_RO, AUDIT_AARCH64, 471, 0, 0, 0, ENOSYS_},
    {"arm newer syscall", V_RO, AUDIT_ARM, 471, 0, 0, 0, ENOSYS_},
    {"syscall -1 (a tracer's skip) passes the guard", V_ALL, AUDIT_AARCH64, 0xffffffffu, 0, 0, 0, ALLOW},
    {"arm set_tls passes the guard", V_ALL, AUDIT_ARM, 0x0f0005, 0, 0, 0, ALLOW},
    {"getpid", V_ALL, AUDIT_AARCH64, 172, 0, 0, 0, ALLOW},
    {"arm getpid", V_ALL, AUDIT_ARM, 20, 0, 0, 0, ALLOW},
    {"guard: openat O_CREAT", V_GUARD, AUDIT_AARCH64, 56, 0, 0, 0x40, NOTIFY},
    {"guard: openat read-only", V_GUARD, AUDIT_AARCH64, 56, 0, 0, 0, ALLOW},
    {"guard: mkdirat", V_GUARD, AUDIT_AARCH64, 34, 0, 0, 0, NOTIFY},
    {"guard: renameat2", V_GUARD, AUDIT_AARCH64, 276, 0, 0, 0, NOTIFY},
    {"guard: bind", V_GUARD, AUDIT_AARCH64, 200, 3, 0, 0, NOTIFY},
    {"guard: arm bind", V_GUARD, AUDIT_ARM, 282, 3, 0, 0, NOTIFY},
    {"guard: arm open O_CREAT", V_GUARD, AUDIT_ARM, 5, 0, 0x40, 0, NOTIFY},
    {"guard: arm mkdir", V_GUARD, AUDIT_ARM, 39, 0, 0, 0, NOTIFY},
    {"supervised: inet socket left to the listener", V_SUP, AUDIT_AARCH64, 198, 2, 1, 0, ALLOW},
    {"supervised: arm socket inet", V_SUP, AUDIT_ARM, 281, 2, 1, 0, ALLOW},
    {"supervised: io_uring_setup left to the listener", V_SUP, AUDIT_AARCH64, 425, 8, 0, 0,
     ALLOW},
    {"supervised: prlimit64 of another process", V_SUP, AUDIT_AARCH64, 261, 1234, 7, 0x1000,
     EPERM_},
    {"supervised: getpid", V_SUP | V_LSN, AUDIT_AARCH64, 172, 0, 0, 0, ALLOW},
    {"listener: inet socket is recorded", V_LSN_NET | V_LSN_RO, AUDIT_AARCH64, 198, 2, 1, 0,
     NOTIFY},
    {"listener: unix socket passes", V_LSN_NET, AUDIT_AARCH64, 198, 1, 1, 0, ALLOW},
    {"listener: arm socket inet is recorded", V_LSN_NET | V_LSN_RO, AUDIT_ARM, 281, 2, 1, 0,
     NOTIFY},
    {"listener: arm io_uring_setup is recorded", V_LSN, AUDIT_ARM, 425, 8, 0, 0, NOTIFY},
};

static uint32_t expected(uint32_t want, int variant)
{
    if (want == NETDENY)
        return sbx_sc_variant_eperm(variant) ? EPERM_ : KILL;
    return want;
}

static void run_cases(int fam, const struct sc_case *cases, size_t n)
{
    int v;
    size_t i;
    int failures = 0;

    for (v = 0; v < SBX_SC_N_VARIANTS; v++) {
        const struct sbx_sc_program *p = sbx_sc_find(fam, v);
        assert_non_null(p);
        for (i = 0; i < n; i++) {
            struct sim_data d;
            uint32_t got, want;
            if (!(cases[i].variants & B(v)))
                continue;
            memset(&d, 0, sizeof d);
            d.arch = cases[i].arch;
            d.nr = cases[i].nr;
            d.args[0] = cases[i].a0;
            d.args[1] = cases[i].a1;
            d.args[2] = cases[i].a2;
            got = sim_run(p->insns, p->len, &d, NULL);
            want = expected(cases[i].want, v);
            if (got != want) {
                printf("%s/%s: %s: got %#x, want %#x\n", sbx_sc_archfams[fam].name,
                       sbx_sc_variant_name(v), cases[i].name, got, want);
                failures++;
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* The socket family rules are generated as aligned blocks of values and one
 * rule per high bit, not value by value: sweep every family below 4096, every
 * single high bit, and each with junk in the upper half, on the native ABI of
 * both arch families. Network variants allow exactly AF_UNIX and AF_NETLINK;
 * read-only refuses every family, internet ones as in the network variants. */
static void test_every_socket_family_gets_the_allowlist_verdict(void **state)
{
    static const struct {
        int fam;
        uint32_t arch, nr;
    } natives[] = {{SBX_SC_X86_64, AUDIT_X86_64, 41}, {SBX_SC_AARCH64, AUDIT_AARCH64, 198}};
    static const uint64_t junk[] = {0, HI(1), HI(0xdeadbeefu), HI(0xffffffffu)};
    size_t a, j;
    int v, failures = 0;
    uint64_t dom;
    (void)state;
    for (a = 0; a < sizeof natives / sizeof natives[0]; a++) {
        for (v = 0; v < SBX_SC_N_VARIANTS; v++) {
            const struct sbx_sc_program *p = sbx_sc_find(natives[a].fam, v);
            int net = (V_NET & B(v)) != 0, ro = (V_RO & B(v)) != 0;
            int sup = (V_SUP & B(v)) != 0, lsn_net = (V_LSN_NET & B(v)) != 0;
            int lsn_ro = (V_LSN_RO & B(v)) != 0;
            if (!net && !ro && !sup && !lsn_net && !lsn_ro)
                continue;
            for (dom = 0; dom < 4096 + 32; dom++) {
                /* below 4096 every value; then 1<<b for every bit b */
                uint32_t low = dom < 4096 ? (uint32_t)dom : 1u << (dom - 4096);
                for (j = 0; j < sizeof junk / sizeof junk[0]; j++) {
                    struct sim_data d;
                    uint32_t got, want;
                    int inet = low == 2 || low == 10, local = low == 1 || low == 16;
                    memset(&d, 0, sizeof d);
                    d.arch = natives[a].arch;
                    d.nr = natives[a].nr;
                    d.args[0] = low | junk[j];
                    d.args[1] = 1;
                    got = sim_run(p->insns, p->len, &d, NULL);
                    if (sup)
                        want = ALLOW; /* the listener's program decides */
                    else if (lsn_ro)
                        want = NOTIFY;
                    else if (lsn_net)
                        want = local ? ALLOW : NOTIFY;
                    else if (ro)
                        want = inet ? expected(NETDENY, v) : EPERM_;
                    else
                        want = local ? ALLOW : expected(NETDENY, v);
                    if (got != want && failures++ < 10)
                        printf("%s/%s: family %#x junk %#llx: got %#x, want %#x\n",
                               sbx_sc_archfams[natives[a].fam].name, sbx_sc_variant_name(v), low,
                               (unsigned long long)(junk[j] >> 32), got, want);
                }
            }
        }
    }
    assert_int_equal(failures, 0);
}

/* What a supervised run loads is the plain program split in two, rule by
 * rule: the main program keeps every rule but the recorded ones (and adds
 * the other-processes rules that protect the supervisor), and the
 * listener's program holds exactly the recorded ones (plus, with the guard,
 * the creation guard's own). The verdicts above check the programs; this
 * checks that nothing was lost in the split. */
static void test_a_supervised_run_splits_the_plain_program(void **state)
{
    static const int plains[] = {SBX_SC_V_CONFINED,       SBX_SC_V_NET,
                                 SBX_SC_V_NET_EPERM,      SBX_SC_V_NET_CONFINED,
                                 SBX_SC_V_NET_CONFINED_EPERM, SBX_SC_V_READ_ONLY,
                                 SBX_SC_V_READ_ONLY_EPERM};
    size_t i, k;
    int failures = 0, guard, a_plain, a_sup, a_lsn;
    (void)state;
    for (k = 0; k < sizeof plains / sizeof plains[0]; k++) {
        int p = plains[k], sup = sbx_sc_supervised_variant(p);
        assert_true(sup >= 0);
        assert_int_equal(sbx_sc_variant_kind(sup), SBX_SC_K_SUPERVISED);
        for (guard = 0; guard < 2; guard++) {
            int lsn = sbx_sc_notify_variant(p, guard);
            int ro = p == SBX_SC_V_READ_ONLY || p == SBX_SC_V_READ_ONLY_EPERM;
            assert_true(lsn >= 0);
            assert_int_equal(sbx_sc_variant_kind(lsn), SBX_SC_K_NOTIFY);
            for (i = 0; i < sbx_sc_n_rules; i++) {
                const struct sbx_sc_rule *r = &sbx_sc_rules[i];
                int in_p = sbx_sc_rule_in_variant(r, p, &a_plain);
                int in_s = sbx_sc_rule_in_variant(r, sup, &a_sup);
                int in_l = sbx_sc_rule_in_variant(r, lsn, &a_lsn);
                int rec = sbx_sc_rule_recorded(r), procs = (r->groups & SBX_SC_PROCS) != 0;
                int guard_rule = guard && !ro && (r->groups & SBX_SC_CREATE);
                if (in_s != ((in_p && !rec) || (procs && !rec)) ||
                    (in_s && a_sup != r->action) ||
                    in_l != ((in_p && rec) || guard_rule) ||
                    (in_l && rec && a_lsn != SBX_SC_NOTIFY) ||
                    (in_l && !rec && a_lsn != r->action)) {
                    printf("%s -> %s + %s: rule %s (%s): plain %d, main %d, listener %d\n",
                           sbx_sc_variant_name(p), sbx_sc_variant_name(sup),
                           sbx_sc_variant_name(lsn), r->syscall, r->what, in_p, in_s, in_l);
                    failures++;
                }
            }
        }
    }
    /* The guard alone, with no main program at all. */
    assert_int_equal(sbx_sc_supervised_variant(-1), -1);
    assert_int_equal(sbx_sc_notify_variant(-1, 0), -1);
    assert_int_equal(sbx_sc_notify_variant(-1, 1), SBX_SC_V_CREATE_NOTIFY);
    assert_int_equal(failures, 0);
}

static void test_x86_64_programs_match_the_table(void **state)
{
    (void)state;
    run_cases(SBX_SC_X86_64, x86_cases, sizeof x86_cases / sizeof x86_cases[0]);
}

static void test_aarch64_programs_match_the_table(void **state)
{
    (void)state;
    run_cases(SBX_SC_AARCH64, arm_cases, sizeof arm_cases / sizeof arm_cases[0]);
}

/* Every program fits the kernel's limit and, for every syscall number on
 * every arch it names, ends in a return without leaving the program. */
static void test_every_program_is_well_formed_and_fits(void **state)
{
    size_t i;
    uint32_t nr;
    (void)state;
    assert_int_equal(sbx_sc_n_programs, SBX_SC_N_ARCHFAMS * SBX_SC_N_VARIANTS);
    for (i = 0; i < sbx_sc_n_programs; i++) {
        const struct sbx_sc_program *p = &sbx_sc_programs[i];
        const struct sbx_sc_archfam_info *a = &sbx_sc_archfams[p->archfam];
        assert_true(p->len > 0 && p->len <= 4096);
        for (nr = 0; nr < 1100; nr++) {
            struct sim_data d;
            memset(&d, 0, sizeof d);
            d.nr = nr;
            d.arch = a->audit_native;
            assert_int_not_equal(sim_run(p->insns, p->len, &d, NULL), SIM_BAD);
            d.arch = a->audit_compat;
            assert_int_not_equal(sim_run(p->insns, p->len, &d, NULL), SIM_BAD);
        }
    }
}

/* The kernel caches "always allow" per syscall number only when the action
 * never depends on the arguments. Outside the few argument-checking rules,
 * two very different argument sets must give the same action. */
static int looks_at_args(int fam, uint32_t arch, uint32_t nr)
{
    /* socket, ioctl, open, openat, open_by_handle_at (and i386's socketcall),
     * then setrlimit, prlimit64, unshare, clone, setns, setpriority,
     * sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr,
     * ioprio_set, migrate_pages, move_pages */
    static const uint32_t x86_64_nrs[] = {41,  16,  2,   257, 304, 160, 302, 272, 56,
                                          308, 141, 203, 144, 142, 314, 251, 256, 279};
    static const uint32_t i386_nrs[] = {359, 102, 54,  5,   295, 342, 75,  340, 310, 120,
                                        346, 97,  241, 156, 154, 351, 289, 294, 317};
    static const uint32_t aarch64_nrs[] = {198, 29,  56,  265, 164, 261, 97,  220, 268,
                                           140, 122, 119, 118, 274, 30,  238, 239};
    static const uint32_t arm_nrs[] = {281, 54,  5,   322, 371, 75,  369, 337, 120,
                                       375, 97,  241, 156, 154, 380, 314, 400, 344};
    const uint32_t *list;
    size_t n, i;
    if (fam == SBX_SC_X86_64) {
        list = arch == AUDIT_X86_64 ? x86_64_nrs : i386_nrs;
        n = arch == AUDIT_X86_64 ? sizeof x86_64_nrs / sizeof x86_64_nrs[0]
                                 : sizeof i386_nrs / sizeof i386_nrs[0];
    } else {
        list = arch == AUDIT_AARCH64 ? aarch64_nrs : arm_nrs;
        n = arch == AUDIT_AARCH64 ? sizeof aarch64_nrs / sizeof aarch64_nrs[0]
                                  : sizeof arm_nrs / sizeof arm_nrs[0];
    }
    for (i = 0; i < n; i++)
        if (list[i] == nr)
            return 1;
    return 0;
}

static void test_other_syscalls_do_not_depend_on_arguments(void **state)
{
    size_t i;
    uint32_t nr;
    int k;
    (void)state;
    for (i = 0; i < sbx_sc_n_programs; i++) {
        const struct sbx_sc_program *p = &sbx_sc_programs[i];
        const struct sbx_sc_archfam_info *a = &sbx_sc_archfams[p->archfam];
        for (k = 0; k < 2; k++) {
            uint32_t arch = k ? a->audit_compat : a->audit_native;
            for (nr = 0; nr < 600; nr++) {
                struct sim_data d1, d2;
                if (looks_at_args(p->archfam, arch, nr))
                    continue;
                memset(&d1, 0, sizeof d1);
                memset(&d2, 0xa5, sizeof d2);
                d1.arch = d2.arch = arch;
                d1.nr = d2.nr = nr;
                if (sim_run(p->insns, p->len, &d1, NULL) != sim_run(p->insns, p->len, &d2, NULL)) {
                    printf("%s/%s: nr %u on arch %#x depends on its arguments\n", a->name,
                           sbx_sc_variant_name(p->variant), nr, arch);
                    fail();
                }
            }
        }
    }
}

/* A common syscall is decided in a handful of instructions (before the
 * kernel's cache even applies). */
static void test_common_syscalls_are_decided_quickly(void **state)
{
    size_t i, steps = 0;
    (void)state;
    for (i = 0; i < sbx_sc_n_programs; i++) {
        const struct sbx_sc_program *p = &sbx_sc_programs[i];
        struct sim_data d;
        if (p->archfam != SBX_SC_X86_64)
            continue;
        memset(&d, 0, sizeof d);
        d.arch = AUDIT_X86_64;
        d.nr = 0; /* read */
        assert_int_equal(sim_run(p->insns, p->len, &d, &steps), ALLOW);
        printf("%s: read(2) decided in %zu instructions of %u\n", sbx_sc_variant_name(p->variant),
               steps, p->len);
        assert_true(steps < 80);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_socket_family_gets_the_allowlist_verdict),
        cmocka_unit_test(test_a_supervised_run_splits_the_plain_program),
        cmocka_unit_test(test_x86_64_programs_match_the_table),
        cmocka_unit_test(test_aarch64_programs_match_the_table),
        cmocka_unit_test(test_every_program_is_well_formed_and_fits),
        cmocka_unit_test(test_other_syscalls_do_not_depend_on_arguments),
        cmocka_unit_test(test_common_syscalls_are_decided_quickly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
