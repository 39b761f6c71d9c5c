/* Bench helper: N rounds of stat + open(O_RDONLY) + close over the files of
 * a tree made by bench/landlock.sh (DIR/dNNN/fNNN, FILES_PER_DIR per dir). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    char path[512];
    struct stat st;
    long i, n, per;
    int fd;

    if (argc != 4) {
        fprintf(stderr, "usage: statloop DIR N FILES_PER_DIR\n");
        return 2;
    }
    n = atol(argv[2]);
    per = atol(argv[3]);
    for (i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/d%03ld/f%03ld", argv[1], i / per, i % per);
        if (stat(path, &st) != 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
            perror(path);
            return 1;
        }
        close(fd);
    }
    return 0;
}
