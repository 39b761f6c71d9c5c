/* launcher_execvp: see exec.h. */
#define _GNU_SOURCE
#include "exec.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* The file is a script without #!: run it with /bin/sh, as POSIX's execvp. */
static void exec_with_sh(const char *path, char *const argv[])
{
    size_t n = 0;
    char **sh_argv;
    int e;

    while (argv[n])
        n++;
    sh_argv = calloc(n + 2, sizeof *sh_argv);
    if (!sh_argv) {
        errno = ENOEXEC;
        return;
    }
    sh_argv[0] = (char *)"sh";
    sh_argv[1] = (char *)path;
    if (n > 1)
        memcpy(&sh_argv[2], &argv[1], (n - 1) * sizeof *sh_argv);
    execve("/bin/sh", sh_argv, environ);
    e = errno;
    free(sh_argv);
    /* The shell's own failure (EACCES from the sandbox, E2BIG...) is the
     * reason; without a shell at all, the script's ENOEXEC is. */
    errno = e == ENOENT ? ENOEXEC : e;
}

static void exec_one(const char *path, char *const argv[])
{
    execve(path, argv, environ);
    if (errno == ENOEXEC)
        exec_with_sh(path, argv);
}

void launcher_execvp(char *const argv[])
{
    const char *file = argv[0], *p, *end;
    char path[PATH_MAX];
    size_t flen, dlen;
    int saw_eacces = 0;

    if (!file || !*file) {
        errno = ENOENT;
        return;
    }
    if (strchr(file, '/')) {
        exec_one(file, argv);
        return;
    }
    flen = strlen(file);
    p = getenv("PATH");
    if (!p)
        p = "/usr/local/bin:/usr/bin:/bin"; /* as sandbox_spawn */
    for (;; p = end + 1) {
        end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        dlen = (size_t)(end - p);
        /* An empty entry means the current directory. */
        if (dlen + 1 + flen + 1 <= sizeof path) {
            if (dlen) {
                memcpy(path, p, dlen);
                path[dlen++] = '/';
            }
            memcpy(path + dlen, file, flen + 1);
            exec_one(path, argv);
            switch (errno) {
            case EACCES:
                saw_eacces = 1;
                break;
            case ENOENT:
            case ENOTDIR:
            case ENAMETOOLONG:
            case ESTALE:
            case ENODEV:
            case ETIMEDOUT:
                break;
            default:
                return; /* found but failed: stop, as execvp does */
            }
        }
        if (!*end)
            break;
    }
    errno = saw_eacces ? EACCES : ENOENT;
}

int launcher_find_in_path(const char *file, char *buf, size_t size)
{
    const char *p, *end;
    size_t flen, dlen;
    struct stat st;

    if (!file || !*file || (flen = strlen(file)) >= size)
        return 0;
    if (strchr(file, '/')) {
        memcpy(buf, file, flen + 1);
        return 1;
    }
    p = getenv("PATH");
    if (!p)
        p = "/usr/local/bin:/usr/bin:/bin";
    for (;; p = end + 1) {
        end = strchr(p, ':');
        if (!end)
            end = p + strlen(p);
        dlen = (size_t)(end - p);
        if (dlen + 1 + flen + 1 <= size) {
            if (dlen) {
                memcpy(buf, p, dlen);
                buf[dlen++] = '/';
            }
            memcpy(buf + dlen, file, flen + 1);
            if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0)
                return 1;
        }
        if (!*end)
            return 0;
    }
}
