/* Probe: create one socket with the raw socket syscall and report.
 *   sock FAMILY TYPE [PROTO] [--junk]
 *   sock pair           socketpair(AF_UNIX, SOCK_STREAM)
 * FAMILY is a name (unix inet inet6 netlink packet vsock bluetooth can tipc
 * rds xdp alg) or a number; TYPE is stream, dgram, raw, seqpacket or a number.
 * --junk sets the upper 32 bits of the domain register (the kernel ignores
 * them). Exit 0: created; 1: refused (errno printed); 2: this kernel lacks the
 * family or type; 3: usage. Death by SIGSYS is the filter's verdict. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static const struct {
    const char *name;
    long value;
} families[] = {
    {"unix", AF_UNIX}, {"inet", AF_INET},      {"inet6", AF_INET6}, {"netlink", AF_NETLINK},
    {"packet", 17},    {"vsock", 40},          {"bluetooth", 31},   {"can", 29},
    {"tipc", 30},      {"rds", 21},            {"xdp", 44},         {"alg", 38},
}, types[] = {
    {"stream", SOCK_STREAM}, {"dgram", SOCK_DGRAM}, {"raw", SOCK_RAW}, {"seqpacket", SOCK_SEQPACKET},
};

static long lookup(const char *s, int fam)
{
    size_t i, n = fam ? sizeof families / sizeof families[0] : sizeof types / sizeof types[0];
    for (i = 0; i < n; i++)
        if (strcmp(s, fam ? families[i].name : types[i].name) == 0)
            return fam ? families[i].value : types[i].value;
    return strtol(s, NULL, 0);
}

int main(int argc, char **argv)
{
    unsigned long domain;
    long type, proto = 0, fd;
    int junk = argc > 1 && strcmp(argv[argc - 1], "--junk") == 0;

    if (argc == 2 && strcmp(argv[1], "pair") == 0) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0) {
            printf("created\n");
            return 0;
        }
        printf("errno %d (%s)\n", errno, strerror(errno));
        return 1;
    }
    if (argc - junk < 3) {
        fprintf(stderr, "usage: sock FAMILY TYPE [PROTO] [--junk]\n");
        return 3;
    }
    domain = (unsigned long)lookup(argv[1], 1);
    type = lookup(argv[2], 0);
    if (argc - junk > 3)
        proto = strtol(argv[3], NULL, 0);
    if (junk && sizeof(long) == 8)
        domain |= (unsigned long)0x5a5a5a5aUL << 16 << 16;
    fd = syscall(SYS_socket, domain, type, proto);
    if (fd >= 0) {
        printf("created\n");
        return 0;
    }
    printf("errno %d (%s)\n", errno, strerror(errno));
    return errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT ? 2 : 1;
}
