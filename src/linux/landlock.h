/* Our own Landlock declarations: the three system calls by number and every
 * constant up to ABI 7. Debian 12's kernel headers stop at Linux 6.1 (ABI 2),
 * so nothing here comes from <linux/landlock.h>; the values are the kernel's
 * stable user-space ABI. Portable: the constants compile on any host (explain
 * and the unit tests use them); the syscall wrappers exist on Linux only,
 * for translation units built with _GNU_SOURCE. */
#ifndef SANDBOX_LINUX_LANDLOCK_H
#define SANDBOX_LINUX_LANDLOCK_H

#include <stdint.h>

/* The newest ABI this library knows about. A newer kernel is used at this
 * level: everything is opt-in, so unknown newer rights are simply unused. */
#define SBX_LL_ABI_MAX 7

/* System call numbers: Landlock came after the unified numbering, so they
 * are the same on every architecture. */
#define SBX_NR_landlock_create_ruleset 444
#define SBX_NR_landlock_add_rule 445
#define SBX_NR_landlock_restrict_self 446

/* landlock_create_ruleset() flags. */
#define SBX_LL_CREATE_RULESET_VERSION (1U << 0) /* ABI 1: return the ABI */
#define SBX_LL_CREATE_RULESET_ERRATA (1U << 1)  /* ABI 7: return the errata mask */

/* landlock_add_rule() rule types. */
#define SBX_LL_RULE_PATH_BENEATH 1
#define SBX_LL_RULE_NET_PORT 2 /* ABI 4 */

/* landlock_restrict_self() flags (ABI 7: audit logging controls). */
#define SBX_LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define SBX_LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#define SBX_LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)

/* Filesystem rights. */
#define SBX_LL_FS_EXECUTE (1ULL << 0)
#define SBX_LL_FS_WRITE_FILE (1ULL << 1)
#define SBX_LL_FS_READ_FILE (1ULL << 2)
#define SBX_LL_FS_READ_DIR (1ULL << 3)
#define SBX_LL_FS_REMOVE_DIR (1ULL << 4)
#define SBX_LL_FS_REMOVE_FILE (1ULL << 5)
#define SBX_LL_FS_MAKE_CHAR (1ULL << 6)
#define SBX_LL_FS_MAKE_DIR (1ULL << 7)
#define SBX_LL_FS_MAKE_REG (1ULL << 8)
#define SBX_LL_FS_MAKE_SOCK (1ULL << 9)
#define SBX_LL_FS_MAKE_FIFO (1ULL << 10)
#define SBX_LL_FS_MAKE_BLOCK (1ULL << 11)
#define SBX_LL_FS_MAKE_SYM (1ULL << 12)
#define SBX_LL_FS_REFER (1ULL << 13)     /* ABI 2 */
#define SBX_LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define SBX_LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */

/* Rights that a rule on a non-directory may carry; the rest only make
 * sense beneath a directory (the kernel refuses them on a file). */
#define SBX_LL_FS_FILE_RIGHTS                                                                      \
    (SBX_LL_FS_EXECUTE | SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE | SBX_LL_FS_TRUNCATE |         \
     SBX_LL_FS_IOCTL_DEV)

/* Network rights (ABI 4). */
#define SBX_LL_NET_BIND_TCP (1ULL << 0)
#define SBX_LL_NET_CONNECT_TCP (1ULL << 1)

/* IPC scoping (ABI 6). */
#define SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SBX_LL_SCOPE_SIGNAL (1ULL << 1)

/* The kernel reads only the prefix of this struct that `size` covers, so
 * passing the ABI-1 size to an old kernel is how the newer fields are left
 * out (E2BIG otherwise when they are non-zero). */
struct sbx_ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net; /* ABI 4 */
    uint64_t scoped;             /* ABI 6 */
};

/* Packed exactly like the kernel's struct landlock_path_beneath_attr. */
struct sbx_ll_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct sbx_ll_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

/* The wrappers need syscall(2), which glibc declares only with _GNU_SOURCE;
 * portable users of this header get the constants alone. */
#if defined(__linux__) && defined(_GNU_SOURCE)
#  include <stddef.h>
#  include <sys/syscall.h>
#  include <unistd.h>

/* Thin wrappers: raw system calls, so async-signal-safe. */
static inline int sbx_ll_create_ruleset(const struct sbx_ll_ruleset_attr *attr, size_t size,
                                        uint32_t flags)
{
    return (int)syscall(SBX_NR_landlock_create_ruleset, attr, size, flags);
}

static inline int sbx_ll_add_rule(int ruleset_fd, int rule_type, const void *attr, uint32_t flags)
{
    return (int)syscall(SBX_NR_landlock_add_rule, ruleset_fd, rule_type, attr, flags);
}

static inline int sbx_ll_restrict_self(int ruleset_fd, uint32_t flags)
{
    return (int)syscall(SBX_NR_landlock_restrict_self, ruleset_fd, flags);
}
#endif

#endif
