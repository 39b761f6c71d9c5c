/* The cost of one step of root's namespace (src/linux/rootfs.c,
 * nodev_from_root): mount_setattr(MOUNT_ATTR_NODEV, AT_RECURSIVE) on "/",
 * against a bare fork + exec + wait of /bin/true timed in the same run and
 * interleaved with it, so the ratio holds under load.
 *
 *   nodev_step [-n ROUNDS]     (as root; in a mount namespace of its own)
 *
 * Prints the medians in µs and the step's median as a fraction of bare's,
 * with the number of mounts it walked. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_mount_setattr
#  define SYS_mount_setattr 442
#endif

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int n = argc == 3 && strcmp(argv[1], "-n") == 0 ? atoi(argv[2]) : 500, i, mounts = 0, c;
    double *step, *bare;
    uint64_t attr[4] = {0x4 /* MOUNT_ATTR_NODEV */, 0, 0, 0};
    FILE *f;

    if (n < 1 || !(step = calloc((size_t)n, sizeof *step)) || !(bare = calloc((size_t)n, sizeof *bare)))
        return 2;
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        perror("nodev_step: a private mount namespace (run as root)");
        return 77;
    }
    if ((f = fopen("/proc/self/mountinfo", "r"))) {
        while ((c = fgetc(f)) != EOF)
            mounts += c == '\n';
        fclose(f);
    }
    for (i = 0; i < n; i++) {
        double t = now_us();
        pid_t pid = fork();
        if (pid == 0) {
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        waitpid(pid, NULL, 0);
        bare[i] = now_us() - t;
        /* Clear, then set: the set is what a launch pays. */
        attr[0] = 0;
        attr[1] = 0x4;
        syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, attr, sizeof attr);
        attr[0] = 0x4;
        attr[1] = 0;
        t = now_us();
        if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, attr, sizeof attr) != 0) {
            perror("mount_setattr");
            return 1;
        }
        step[i] = now_us() - t;
    }
    qsort(step, (size_t)n, sizeof *step, cmp);
    qsort(bare, (size_t)n, sizeof *bare, cmp);
    printf("nodev on %d mounts: median %.1f µs (min %.1f); bare fork+exec /bin/true: median %.0f µs "
           "(min %.0f); step / bare = %.4f (medians), %d rounds\n",
           mounts, step[n / 2], step[0], bare[n / 2], bare[0], step[n / 2] / bare[n / 2], n);
    return 0;
}
