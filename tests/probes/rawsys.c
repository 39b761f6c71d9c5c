/* Probe: one raw system call by name, on the native ABI or (x86_64) the
 * i386 ABI through `int $0x80`, so a test can drive every rule of the seccomp
 * tables with exactly the call the rule names (tests/linux/test_rule_table.sh).
 *   rawsys 64|32 NAME [ARG...]
 * ARG: i:N  an integer (strtoul, base 0)
 *      s:T  a pointer to the string T (in 32-bit addressable memory)
 *      b:   a pointer to a zeroed 4096-byte buffer (likewise)
 *      d:P  a descriptor: open(P, O_RDONLY) (a directory is fine)
 *      u:   a descriptor: a new AF_UNIX stream socket
 *      a:P  a pointer to a struct sockaddr_un naming the path P (low memory)
 * The number comes from libseccomp's tables for that ABI; NAME "nr:N" is
 * the number N itself, for calls newer than those tables (the same number
 * on both ABIs since Linux 5.1). Exit 0: the call
 * returned >= 0 ("ok N"); 1: it failed ("errno N"); 2: NAME does not exist on
 * that ABI, or the ABI is not available here; 3: usage. Death by a signal is
 * the filter's verdict, read by the caller. For setrlimit and prlimit64 it
 * also prints RLIMIT_CORE before and after the call (a second line, "core S/H -> S/H"), so
 * the filters' silent no-op on RLIMIT_CORE can be told from a real change. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#if defined(__x86_64__)
static long int80(long nr, long a, long b, long c, long d, long e)
{
    long ret;
    __asm__ volatile("int $0x80"
                     : "=a"(ret)
                     : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
                     : "memory");
    return ret;
}
#endif

int main(int argc, char **argv)
{
    long a[6] = {0};
    int i, nr, compat;
    char *low;
    size_t used = 0;
    long ret;
    struct rlimit core0 = {0, 0}, core1 = {0, 0};
    int show_core;

    if (argc < 3 || argc > 9 || (strcmp(argv[1], "64") != 0 && strcmp(argv[1], "32") != 0)) {
        fprintf(stderr, "usage: rawsys 64|32 NAME [i:N|s:TEXT|b:|d:PATH|u:|a:PATH]...\n");
        return 3;
    }
    compat = strcmp(argv[1], "32") == 0;
#if !defined(__x86_64__)
    if (compat) {
        printf("no i386 ABI on this architecture\n");
        return 2;
    }
#endif
    if (strncmp(argv[2], "nr:", 3) == 0)
        nr = atoi(argv[2] + 3);
    else
        nr = seccomp_syscall_resolve_name_arch(compat ? SCMP_ARCH_X86 : SCMP_ARCH_NATIVE, argv[2]);
    if (nr < 0) {
        printf("%s does not exist on this ABI\n", argv[2]);
        return 2;
    }
    /* Arguments live below 4 GiB so the i386 kernel can read them. */
    low = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    if (low == MAP_FAILED) {
        perror("mmap");
        return 3;
    }
    for (i = 3; i < argc; i++) {
        const char *v = argv[i] + 2;
        if (strncmp(argv[i], "i:", 2) == 0) {
            a[i - 3] = (long)strtoul(v, NULL, 0);
        } else if (strncmp(argv[i], "s:", 2) == 0 && used + strlen(v) + 1 < 8192) {
            strcpy(low + used, v);
            a[i - 3] = (long)(low + used);
            used += strlen(v) + 1;
        } else if (strcmp(argv[i], "b:") == 0) {
            a[i - 3] = (long)(low + 8192 + 4096 * (i - 3));
        } else if (strcmp(argv[i], "u:") == 0) {
            int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
            if (fd < 0) {
                printf("socket: errno %d\n", errno);
                return 3;
            }
            a[i - 3] = fd;
        } else if (strncmp(argv[i], "a:", 2) == 0 && strlen(v) < sizeof(struct sockaddr_un) - 2 &&
                   used + sizeof(struct sockaddr_un) < 8192) {
            struct sockaddr_un su;
            memset(&su, 0, sizeof su);
            su.sun_family = AF_UNIX;
            strcpy(su.sun_path, v);
            memcpy(low + used, &su, sizeof su);
            a[i - 3] = (long)(low + used);
            used += sizeof su;
        } else if (strncmp(argv[i], "d:", 2) == 0) {
            int fd = open(v, O_RDONLY | O_CLOEXEC);
            if (fd < 0) {
                printf("open %s: errno %d\n", v, errno);
                return 3;
            }
            a[i - 3] = fd;
        } else {
            fprintf(stderr, "rawsys: bad argument %s\n", argv[i]);
            return 3;
        }
    }
    show_core = strcmp(argv[2], "setrlimit") == 0 || strcmp(argv[2], "prlimit64") == 0;
    if (show_core && getrlimit(RLIMIT_CORE, &core0) != 0) {
        perror("getrlimit");
        return 3;
    }
#if defined(__x86_64__)
    if (compat) {
        if (argc > 8) {
            fprintf(stderr, "rawsys: at most 5 arguments on the i386 ABI\n");
            return 3;
        }
        ret = int80(nr, a[0], a[1], a[2], a[3], a[4]);
        if (ret < 0 && ret > -4096) {
            errno = (int)-ret;
            ret = -1;
        }
    } else
#endif
        ret = syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (ret < 0)
        printf("errno %d (%s)\n", errno, strerror(errno));
    else
        printf("ok %ld\n", ret);
    if (show_core) {
        if (getrlimit(RLIMIT_CORE, &core1) != 0) {
            perror("getrlimit");
            return 3;
        }
        printf("core %llu/%llu -> %llu/%llu\n", (unsigned long long)core0.rlim_cur,
               (unsigned long long)core0.rlim_max, (unsigned long long)core1.rlim_cur,
               (unsigned long long)core1.rlim_max);
    }
    return ret < 0 ? 1 : 0;
}
