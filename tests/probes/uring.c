/* Probe: io_uring, the route to sockets and files that bypasses socket(2)
 * and open(2).
 *   uring setup    io_uring_setup only
 *   uring socket   set up a ring and create an AF_INET socket with
 *                  IORING_OP_SOCKET (Linux 5.19+)
 * Exit 0: done; 1: refused (errno printed); 2: not available on this kernel
 * (or disabled by sysctl kernel.io_uring_disabled); 3: usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_io_uring_setup
#  define SYS_io_uring_setup 425
#  define SYS_io_uring_enter 426
#endif

static int report(const char *what)
{
    printf("%s: errno %d (%s)\n", what, errno, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    struct io_uring_params p;
    struct io_uring_sqe *sqes;
    struct io_uring_cqe *cqe;
    unsigned char *sq, *cq;
    unsigned *sq_tail, *sq_array, *cq_head, *cq_tail;
    long fd, n;

    if (argc != 2)
        return 3;
    memset(&p, 0, sizeof p);
    fd = syscall(SYS_io_uring_setup, 4, &p);
    if (fd < 0) {
        if (errno == ENOSYS)
            return printf("io_uring is not built into this kernel\n"), 2;
        return report("io_uring_setup");
    }
    if (strcmp(argv[1], "setup") == 0)
        return printf("created\n"), 0;
    sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
              MAP_SHARED | MAP_POPULATE, (int)fd, IORING_OFF_SQ_RING);
    cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
              PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, (int)fd, IORING_OFF_CQ_RING);
    sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
                MAP_SHARED | MAP_POPULATE, (int)fd, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED)
        return report("mmap");
    sq_tail = (unsigned *)(sq + p.sq_off.tail);
    sq_array = (unsigned *)(sq + p.sq_off.array);
    cq_head = (unsigned *)(cq + p.cq_off.head);
    cq_tail = (unsigned *)(cq + p.cq_off.tail);
    memset(&sqes[0], 0, sizeof sqes[0]);
    sqes[0].opcode = IORING_OP_SOCKET;
    sqes[0].fd = AF_INET;
    sqes[0].off = SOCK_STREAM;
    sq_array[0] = 0;
    __atomic_store_n(sq_tail, 1, __ATOMIC_RELEASE);
    n = syscall(SYS_io_uring_enter, (int)fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0);
    if (n < 0)
        return report("io_uring_enter");
    if (__atomic_load_n(cq_tail, __ATOMIC_ACQUIRE) == *cq_head)
        return printf("no completion\n"), 1;
    cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
    if (cqe->res == -EINVAL)
        return printf("IORING_OP_SOCKET is not supported by this kernel\n"), 2;
    if (cqe->res < 0) {
        errno = -cqe->res;
        return report("IORING_OP_SOCKET");
    }
    printf("created an AF_INET socket (fd %d) without socket(2)\n", cqe->res);
    return 0;
}
