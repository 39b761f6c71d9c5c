/* Per-ABI decoding of the system calls a supervised run is notified of
 * (src/linux/sysdecode.c): the creation guard's calls, refused sockets and
 * io_uring setup, on the native and the compat ABI. Pure: no system call,
 * no allocation; async-signal-safe, and compiled on every host. */
#ifndef SANDBOX_LINUX_SYSDECODE_H
#define SANDBOX_LINUX_SYSDECODE_H

#include <stdint.h>

/* What a call does, whatever its spelling on an ABI. */
enum sbx_sys_op {
    SBX_OP_OPEN,      /* open, creat, openat */
    SBX_OP_MKDIR,
    SBX_OP_MKNOD,
    SBX_OP_SYMLINK,
    SBX_OP_LINK,
    SBX_OP_RENAME,
    SBX_OP_SOCKET,     /* socket(2): family and type are in registers */
    SBX_OP_SOCKETCALL, /* i386 socketcall(SYS_SOCKET): the family is in memory */
    SBX_OP_IO_URING_SETUP,
    SBX_OP_BIND /* bind(2), or i386 socketcall(SYS_BIND) with its arguments in memory */
};

/* The syscall names records carry (an index, so that a record read back by
 * another process holds no pointer). */
enum sbx_sys_name {
    SBX_SYS_OPEN, SBX_SYS_CREAT, SBX_SYS_OPENAT, SBX_SYS_MKDIR, SBX_SYS_MKDIRAT, SBX_SYS_MKNOD,
    SBX_SYS_MKNODAT, SBX_SYS_SYMLINK, SBX_SYS_SYMLINKAT, SBX_SYS_LINK, SBX_SYS_LINKAT,
    SBX_SYS_RENAME, SBX_SYS_RENAMEAT, SBX_SYS_RENAMEAT2, SBX_SYS_SOCKET, SBX_SYS_SOCKETCALL,
    SBX_SYS_IO_URING_SETUP, SBX_SYS_BIND, SBX_SYS_CONNECT,
    SBX_SYS_N_NAMES
};

/* One call, decoded. Integer arguments are read as the kernel reads them (32
 * bits); pointers keep 32 bits on the compat ABI. */
struct sbx_syscall {
    int op;     /* enum sbx_sys_op */
    int name;   /* enum sbx_sys_name */
    int compat; /* 1: the 32-bit ABI (i386, arm) */
    int dirfd, olddirfd;
    uint64_t path, old; /* addresses in the command */
    int has_old;
    int flags;
    unsigned mode;
    unsigned dev;
    int family, type; /* SBX_OP_SOCKET; -1 otherwise */
    /* SBX_OP_BIND: the socket, the address (`path`) and its length; with
     * `mux`, `path` is instead where socketcall's three 32-bit arguments
     * (fd, address, length) are, in the command's memory. */
    int sockfd;
    int addrlen;
    int mux;
};

/* Decode (arch, nr, args) as seccomp_data gives them. 1 when the call is
 * one the supervisor serves, 0 otherwise (a foreign arch, an unknown number:
 * the caller answers ENOSYS). */
int sbx_sys_decode(uint32_t arch, int nr, const uint64_t args[6], struct sbx_syscall *c);
/* "openat", "socket"...; "?" for an unknown index. */
const char *sbx_sys_name(int name);

#endif
