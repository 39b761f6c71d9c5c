/* Make (or remove) a node_modules-like tree fast, for bench/preflight.sh.
 *
 *   gentree make DIR PACKAGES FILES   DIR/node_modules/pNNNNN/fNNN.js, empty,
 *                                     plus a src/ with a .env, a key and a
 *                                     .git, and two hard-linked files inside
 *   gentree rm DIR                    remove DIR and everything beneath it
 *
 * System calls relative to directory descriptors, no shell, no stat per
 * file: 1M files take seconds, not minutes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int die(const char *what, const char *name)
{
    fprintf(stderr, "gentree: %s %s: %s\n", what, name, strerror(errno));
    exit(1);
}

static int sub(int at, const char *name)
{
    int fd;
    if (mkdirat(at, name, 0755) != 0 && errno != EEXIST)
        die("mkdir", name);
    fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        die("open", name);
    return fd;
}

static void file(int at, const char *name, const char *text)
{
    int fd = openat(at, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        die("create", name);
    if (text && write(fd, text, strlen(text)) < 0)
        die("write", name);
    close(fd);
}

static int make(const char *dir, long packages, long files)
{
    char name[64];
    long p, f;
    int root, nm, src;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        die("mkdir", dir);
    root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        die("open", dir);
    nm = sub(root, "node_modules");
    for (p = 0; p < packages; p++) {
        int pd;
        snprintf(name, sizeof name, "p%05ld", p);
        pd = sub(nm, name);
        for (f = 0; f < files; f++) {
            int fd;
            snprintf(name, sizeof name, "f%03ld.js", f);
            fd = openat(pd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            if (fd < 0)
                die("create", name);
            close(fd);
        }
        close(pd);
    }
    /* What the scans look for: secrets to mask, a repository, and a file
     * with a second name inside the project (not refused). */
    src = sub(root, "src");
    file(src, ".env", "TOKEN=1\n");
    file(src, "server.key", "k\n");
    file(src, "main.js", "\n");
    if (linkat(src, "main.js", src, "main-copy.js", 0) != 0 && errno != EEXIST)
        die("link", "main-copy.js");
    close(sub(root, ".git"));
    close(src);
    close(nm);
    close(root);
    return 0;
}

static void rm_at(int at, const char *name)
{
    int fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d;
    struct dirent *de;
    if (fd < 0) {
        if (unlinkat(at, name, 0) != 0 && errno != ENOENT)
            die("unlink", name);
        return;
    }
    d = fdopendir(fd);
    if (!d)
        die("list", name);
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (de->d_type == DT_DIR)
            rm_at(dirfd(d), de->d_name);
        else if (unlinkat(dirfd(d), de->d_name, 0) != 0 && errno != ENOENT) {
            if (errno == EISDIR)
                rm_at(dirfd(d), de->d_name);
            else
                die("unlink", de->d_name);
        }
    }
    closedir(d);
    if (unlinkat(at, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        die("rmdir", name);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "make") == 0)
        return make(argv[2], atol(argv[3]), atol(argv[4]));
    if (argc == 3 && strcmp(argv[1], "rm") == 0) {
        rm_at(AT_FDCWD, argv[2]);
        return 0;
    }
    fprintf(stderr, "usage: gentree make DIR PACKAGES FILES | gentree rm DIR\n");
    return 2;
}
