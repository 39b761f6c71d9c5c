/* Probe: create a socket through the 32-bit (i386) ABI from a 64-bit process,
 * with `int $0x80`, or through the x32 ABI (syscall number | 0x40000000).
 *   sock_compat direct FAMILY      i386 socket(2), number 359
 *   sock_compat socketcall FAMILY  i386 socketcall(SYS_SOCKET, args)
 *   sock_compat x32 FAMILY         x32 socket(2)
 * FAMILY is a number (1 unix, 2 inet, 10 inet6). Exit 0: created; 1: refused
 * (errno printed); 2: the ABI is not available here; 3: usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
static long int80(long nr, long a, long b, long c)
{
    long ret;
    /* The compat entry zeroes r8-r11 on the way back. */
    __asm__ volatile("int $0x80"
                     : "=a"(ret)
                     : "a"(nr), "b"(a), "c"(b), "d"(c)
                     : "memory", "r8", "r9", "r10", "r11");
    return ret;
}
#endif

int main(int argc, char **argv)
{
#if defined(__x86_64__)
    long family, ret;
    if (argc != 3) {
        fprintf(stderr, "usage: sock_compat direct|socketcall|x32 FAMILY\n");
        return 3;
    }
    family = strtol(argv[2], NULL, 0);
    if (strcmp(argv[1], "direct") == 0) {
        ret = int80(359, family, 1 /* SOCK_STREAM */, 0);
    } else if (strcmp(argv[1], "socketcall") == 0) {
        /* The i386 kernel reads the argument array through a 32-bit pointer. */
        unsigned int *args = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
        if (args == MAP_FAILED) {
            perror("mmap");
            return 2;
        }
        args[0] = (unsigned int)family;
        args[1] = 1;
        args[2] = 0;
        ret = int80(102, 1 /* SYS_SOCKET */, (long)(unsigned long)args, 0);
    } else if (strcmp(argv[1], "x32") == 0) {
        ret = syscall(41 | 0x40000000L, family, 1, 0);
        ret = ret < 0 ? -errno : ret;
    } else {
        return 3;
    }
    if (ret >= 0) {
        printf("created\n");
        return 0;
    }
    printf("errno %ld (%s)\n", -ret, strerror((int)-ret));
    return -ret == ENOSYS ? 2 : 1;
#else
    (void)argc;
    (void)argv;
    printf("the i386 and x32 ABIs exist only on x86_64\n");
    return 2;
#endif
}
