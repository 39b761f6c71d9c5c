/* Per-ABI decoding of the calls a supervised run is notified of: which call
 * a (arch, number) pair is, and where its arguments are. The tables hold
 * both architecture families, so the decoder is one piece of pure code,
 * tested on any host; a foreign ABI never reaches it (the filters kill it). */
#include "sysdecode.h"

#include <stddef.h>
#include <string.h>

#define AUDIT_X86_64 0xc000003eu
#define AUDIT_I386 0x40000003u
#define AUDIT_AARCH64 0xc00000b7u
#define AUDIT_ARM 0x40000028u

#define SBX_AT_FDCWD (-100)
#define SBX_O_CREAT 0100
#define SBX_O_WRONLY 01
#define SBX_O_TRUNC 01000

/* Argument layouts. */
enum layout {
    L_OPEN,      /* path, flags, mode */
    L_CREAT,     /* path, mode */
    L_OPENAT,    /* dirfd, path, flags, mode */
    L_MKDIR,     /* path, mode */
    L_MKDIRAT,   /* dirfd, path, mode */
    L_MKNOD,     /* path, mode, dev */
    L_MKNODAT,   /* dirfd, path, mode, dev */
    L_SYMLINK,   /* target, path */
    L_SYMLINKAT, /* target, dirfd, path */
    L_LINK,      /* old, path */
    L_LINKAT,    /* olddirfd, old, dirfd, path, flags */
    L_RENAME,    /* old, path */
    L_RENAMEAT,  /* olddirfd, old, dirfd, path */
    L_RENAMEAT2, /* olddirfd, old, dirfd, path, flags */
    L_SOCKET,    /* family, type, protocol */
    L_SOCKETCALL, /* call, args in memory */
    L_URING,     /* entries, params */
    L_BIND       /* fd, addr, addrlen */
};

struct entry {
    uint16_t nr;
    uint8_t layout; /* enum layout */
    uint8_t name;   /* enum sbx_sys_name */
};

#define E(nr, l, n) {nr, l, SBX_SYS_##n}
static const struct entry x86_64[] = {
    E(2, L_OPEN, OPEN),       E(85, L_CREAT, CREAT),         E(257, L_OPENAT, OPENAT),
    E(83, L_MKDIR, MKDIR),    E(258, L_MKDIRAT, MKDIRAT),    E(133, L_MKNOD, MKNOD),
    E(259, L_MKNODAT, MKNODAT), E(88, L_SYMLINK, SYMLINK),   E(266, L_SYMLINKAT, SYMLINKAT),
    E(86, L_LINK, LINK),      E(265, L_LINKAT, LINKAT),      E(82, L_RENAME, RENAME),
    E(264, L_RENAMEAT, RENAMEAT), E(316, L_RENAMEAT2, RENAMEAT2), E(41, L_SOCKET, SOCKET),
    E(425, L_URING, IO_URING_SETUP), E(49, L_BIND, BIND),
};
static const struct entry i386[] = {
    E(5, L_OPEN, OPEN),       E(8, L_CREAT, CREAT),          E(295, L_OPENAT, OPENAT),
    E(39, L_MKDIR, MKDIR),    E(296, L_MKDIRAT, MKDIRAT),    E(14, L_MKNOD, MKNOD),
    E(297, L_MKNODAT, MKNODAT), E(83, L_SYMLINK, SYMLINK),   E(304, L_SYMLINKAT, SYMLINKAT),
    E(9, L_LINK, LINK),       E(303, L_LINKAT, LINKAT),      E(38, L_RENAME, RENAME),
    E(302, L_RENAMEAT, RENAMEAT), E(353, L_RENAMEAT2, RENAMEAT2), E(359, L_SOCKET, SOCKET),
    E(102, L_SOCKETCALL, SOCKETCALL), E(425, L_URING, IO_URING_SETUP), E(361, L_BIND, BIND),
};
static const struct entry aarch64[] = {
    E(56, L_OPENAT, OPENAT),  E(34, L_MKDIRAT, MKDIRAT),     E(33, L_MKNODAT, MKNODAT),
    E(36, L_SYMLINKAT, SYMLINKAT), E(37, L_LINKAT, LINKAT),  E(38, L_RENAMEAT, RENAMEAT),
    E(276, L_RENAMEAT2, RENAMEAT2), E(198, L_SOCKET, SOCKET), E(425, L_URING, IO_URING_SETUP),
    E(200, L_BIND, BIND),
};
static const struct entry arm[] = { /* EABI */
    E(5, L_OPEN, OPEN),       E(8, L_CREAT, CREAT),          E(322, L_OPENAT, OPENAT),
    E(39, L_MKDIR, MKDIR),    E(323, L_MKDIRAT, MKDIRAT),    E(14, L_MKNOD, MKNOD),
    E(324, L_MKNODAT, MKNODAT), E(83, L_SYMLINK, SYMLINK),   E(331, L_SYMLINKAT, SYMLINKAT),
    E(9, L_LINK, LINK),       E(330, L_LINKAT, LINKAT),      E(38, L_RENAME, RENAME),
    E(329, L_RENAMEAT, RENAMEAT), E(382, L_RENAMEAT2, RENAMEAT2), E(281, L_SOCKET, SOCKET),
    E(425, L_URING, IO_URING_SETUP), E(282, L_BIND, BIND),
};
#undef E

static const char *const names[SBX_SYS_N_NAMES] = {
    "open",      "creat",  "openat", "mkdir",    "mkdirat",   "mknod",
    "mknodat",   "symlink", "symlinkat", "link", "linkat",    "rename",
    "renameat",  "renameat2", "socket", "socketcall", "io_uring_setup",
    "bind",      "connect",
};

const char *sbx_sys_name(int name)
{
    return name >= 0 && name < SBX_SYS_N_NAMES ? names[name] : "?";
}

#define INT(x) ((int)(uint32_t)(x))
#define MODE(x) ((unsigned)((x)&07777))

int sbx_sys_decode(uint32_t arch, int nr, const uint64_t args[6], struct sbx_syscall *c)
{
    const struct entry *t;
    size_t n, i;
    int compat, layout = -1, name = 0;
    uint64_t a[6];

    switch (arch) {
    case AUDIT_X86_64: t = x86_64; n = sizeof x86_64 / sizeof x86_64[0]; compat = 0; break;
    case AUDIT_I386: t = i386; n = sizeof i386 / sizeof i386[0]; compat = 1; break;
    case AUDIT_AARCH64: t = aarch64; n = sizeof aarch64 / sizeof aarch64[0]; compat = 0; break;
    case AUDIT_ARM: t = arm; n = sizeof arm / sizeof arm[0]; compat = 1; break;
    default: return 0;
    }
    for (i = 0; i < n; i++)
        if (t[i].nr == nr) {
            layout = t[i].layout;
            name = t[i].name;
        }
    if (layout < 0)
        return 0;
    for (i = 0; i < 6; i++)
        a[i] = compat ? (uint32_t)args[i] : args[i];
    memset(c, 0, sizeof *c);
    c->name = name;
    c->compat = compat;
    c->dirfd = c->olddirfd = SBX_AT_FDCWD;
    c->family = c->type = -1;
    switch (layout) {
    case L_OPEN:
        c->op = SBX_OP_OPEN; c->path = a[0]; c->flags = INT(a[1]); c->mode = MODE(a[2]);
        break;
    case L_CREAT:
        c->op = SBX_OP_OPEN; c->path = a[0];
        c->flags = SBX_O_CREAT | SBX_O_WRONLY | SBX_O_TRUNC;
        c->mode = MODE(a[1]);
        break;
    case L_OPENAT:
        c->op = SBX_OP_OPEN; c->dirfd = INT(a[0]); c->path = a[1]; c->flags = INT(a[2]);
        c->mode = MODE(a[3]);
        break;
    case L_MKDIR:
        c->op = SBX_OP_MKDIR; c->path = a[0]; c->mode = MODE(a[1]);
        break;
    case L_MKDIRAT:
        c->op = SBX_OP_MKDIR; c->dirfd = INT(a[0]); c->path = a[1]; c->mode = MODE(a[2]);
        break;
    case L_MKNOD:
        c->op = SBX_OP_MKNOD; c->path = a[0]; c->mode = (unsigned)(uint16_t)a[1];
        c->dev = (unsigned)a[2];
        break;
    case L_MKNODAT:
        c->op = SBX_OP_MKNOD; c->dirfd = INT(a[0]); c->path = a[1];
        c->mode = (unsigned)(uint16_t)a[2]; c->dev = (unsigned)a[3];
        break;
    case L_SYMLINK:
        c->op = SBX_OP_SYMLINK; c->old = a[0]; c->has_old = 1; c->path = a[1];
        break;
    case L_SYMLINKAT:
        c->op = SBX_OP_SYMLINK; c->old = a[0]; c->has_old = 1; c->dirfd = INT(a[1]);
        c->path = a[2];
        break;
    case L_LINK:
        c->op = SBX_OP_LINK; c->old = a[0]; c->has_old = 1; c->path = a[1];
        break;
    case L_LINKAT:
        c->op = SBX_OP_LINK; c->olddirfd = INT(a[0]); c->old = a[1]; c->has_old = 1;
        c->dirfd = INT(a[2]); c->path = a[3]; c->flags = INT(a[4]);
        break;
    case L_RENAME:
        c->op = SBX_OP_RENAME; c->old = a[0]; c->has_old = 1; c->path = a[1];
        break;
    case L_RENAMEAT:
    case L_RENAMEAT2:
        c->op = SBX_OP_RENAME; c->olddirfd = INT(a[0]); c->old = a[1]; c->has_old = 1;
        c->dirfd = INT(a[2]); c->path = a[3];
        c->flags = layout == L_RENAMEAT2 ? INT(a[4]) : 0;
        break;
    case L_SOCKET:
        /* The kernel reads the low 32 bits of each; the type carries its
         * SOCK_NONBLOCK and SOCK_CLOEXEC flags above 0xf. */
        c->op = SBX_OP_SOCKET; c->family = INT(a[0]); c->type = INT(a[1]) & 0xf;
        break;
    case L_SOCKETCALL:
        /* The creation guard's program stops SYS_BIND (2) too: libseccomp
         * gives i386 bind() both spellings. */
        if (a[0] == 2) {
            c->op = SBX_OP_BIND; c->path = a[1]; c->mux = 1;
            break;
        }
        c->op = SBX_OP_SOCKETCALL;
        break;
    case L_BIND:
        c->op = SBX_OP_BIND; c->sockfd = INT(a[0]); c->path = a[1]; c->addrlen = INT(a[2]);
        break;
    default:
        c->op = SBX_OP_IO_URING_SETUP;
        break;
    }
    return 1;
}
