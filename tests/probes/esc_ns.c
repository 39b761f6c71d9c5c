/* Probe: a new user namespace plus a mount, to get around Landlock.
 *   esc_ns unshare DIR   unshare(USER|NS), then mount a tmpfs on DIR and
 *                        create DIR/escaped in it
 *   esc_ns clone3 DIR    the same from a child made by clone3(USER|NS), whose
 *                        flags live in memory where seccomp cannot read them
 * Prints the first step that failed. Exit 0: the file was created on the new
 * mount; 1: a step was refused; 2: namespaces are unavailable here. */
#define _GNU_SOURCE
#include "esc_common.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static uid_t outer_uid;
static gid_t outer_gid;

#ifndef SYS_clone3
#  define SYS_clone3 435
#endif

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    ssize_t n;
    if (fd < 0)
        return -1;
    n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Map our outer ids to the same numbers inside the new user namespace. */
static int map_self(void)
{
    char line[64];
    snprintf(line, sizeof line, "%ld %ld 1\n", (long)outer_uid, (long)outer_uid);
    if (write_file("/proc/self/uid_map", line) != 0)
        return -1;
    if (write_file("/proc/self/setgroups", "deny") != 0 && errno != ENOENT)
        return -1;
    snprintf(line, sizeof line, "%ld %ld 1\n", (long)outer_gid, (long)outer_gid);
    return write_file("/proc/self/gid_map", line);
}

/* In the new namespaces: make mounts private, mount, write. Returns the
 * exit status to report (and prints the step). */
static int mount_and_write(const char *dir)
{
    char path[4096];
    int fd;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return esc_report("mount --make-rprivate", -1, errno);
    if (mount("none", dir, "tmpfs", 0, "size=64k") != 0)
        return esc_report("mount tmpfs", -1, errno);
    /* Files on the new mount need our id mapped (else EOVERFLOW). */
    if (map_self() != 0)
        return esc_report("write uid_map", -1, errno);
    snprintf(path, sizeof path, "%s/escaped", dir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return esc_report("create on the new mount", -1, errno);
    close(fd);
    return esc_report("userns+mount", 0, 0);
}

int main(int argc, char **argv)
{
    const unsigned long ns = CLONE_NEWUSER | CLONE_NEWNS;
    if (argc != 3)
        return esc_usage("esc_ns unshare|clone3 DIR");
    outer_uid = geteuid();
    outer_gid = getegid();
    fflush(stdout);
    if (strcmp(argv[1], "unshare") == 0) {
        if (unshare((int)ns) != 0) {
            if (errno == EINVAL) {
                printf("unshare: user namespaces unavailable\n");
                return 2;
            }
            return esc_report("unshare(USER|NS)", -1, errno);
        }
        return mount_and_write(argv[2]);
    }
    if (strcmp(argv[1], "clone3") == 0) {
        struct clone_args ca;
        long pid;
        int status;
        memset(&ca, 0, sizeof ca);
        ca.flags = ns;
        ca.exit_signal = SIGCHLD;
        pid = syscall(SYS_clone3, &ca, sizeof ca);
        if (pid < 0)
            return esc_report("clone3(USER|NS)", -1, errno);
        if (pid == 0) {
            int rc = mount_and_write(argv[2]);
            fflush(stdout);
            _exit(rc);
        }
        if (waitpid((pid_t)pid, &status, 0) < 0 || !WIFEXITED(status))
            return 1;
        return WEXITSTATUS(status);
    }
    return esc_usage("esc_ns unshare|clone3 DIR");
}
