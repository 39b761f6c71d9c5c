/* First-run caches (issue 23): the missing cache directories of the build
 * class and of --writable-caches are made before a launch, so that the first
 * `pip install`, `cargo build`, `go build` or `npm install` on a fresh home
 * can fill them; the home itself stays unwritable, so without this the tool
 * fails to create its cache.
 *
 * What may be created is decided by resolve.c: the same check every root
 * passes, plus a place below a home, inside exactly its cache subtrees, to
 * be made in a directory of the caller's own. Here it is made by a walk that
 * trusts no path: every component of the canonical path is opened from its
 * parent's descriptor with O_NOFOLLOW, and mkdirat never follows a link, so a
 * symlink planted since the check (by a command of an earlier launch that is
 * still running) stops the walk instead of redirecting it. Only directories
 * are made, empty, with the caller's umask and ownership. */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32

/* Windows keeps dropping missing caches (src/presets.c): nothing to make. */
int sbx_caches_mkdirs(const char *path, const char *base)
{
    (void)path;
    (void)base;
    return ENOSYS;
}

int sbx_caches_make(const sbx_resolved *r, char *warning, size_t warning_size)
{
    (void)r;
    (void)warning;
    (void)warning_size;
    return 0;
}

#else

#  include <fcntl.h>
#  include <limits.h>
#  include <sys/stat.h>
#  include <unistd.h>

#  ifndef O_DIRECTORY
#    define O_DIRECTORY 0
#  endif
#  ifndef NAME_MAX
#    define NAME_MAX 255
#  endif

int sbx_caches_mkdirs(const char *path, const char *base)
{
    size_t bl = strlen(base);
    char comp[NAME_MAX + 1];
    const char *p;
    int fd, next, e = 0;

    /* `base` must be a leading part of `path`, component-wise. */
    if (path[0] != '/' || base[0] != '/' || strncmp(path, base, bl) != 0 ||
        (bl > 1 && path[bl] != '/' && path[bl] != '\0'))
        return EINVAL;
    fd = openat(AT_FDCWD, "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    for (p = path; *p == '/'; p++)
        ;
    while (*p) {
        size_t n = strcspn(p, "/");
        /* Components of `base` exist (the check saw them); only the rest
         * is made. */
        int make = (size_t)(p - path) >= bl;
        if (n > NAME_MAX) {
            e = ENAMETOOLONG;
            break;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        if (make && mkdirat(fd, comp, 0777) != 0 && errno != EEXIST) {
            e = errno;
            break;
        }
        /* Why O_NOFOLLOW on every component: the path is canonical, so any
         * symlink on it now was put there after the check. */
        next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            e = errno;
            break;
        }
        close(fd);
        fd = next;
        for (p += n; *p == '/'; p++)
            ;
    }
    close(fd);
    return e;
}

int sbx_caches_make(const sbx_resolved *r, char *warning, size_t warning_size)
{
    size_t i;
    int made = 0, e;
    for (i = 0; i < r->n_roots; i++) {
        const struct sbx_root *root = &r->roots[i];
        if (!root->create || !root->create_from)
            continue;
        e = sbx_caches_mkdirs(root->path, root->create_from);
        /* Not an error: the root is then skipped, as a missing cache was
         * before, and the tool says what it could not write. */
        if (e != 0 && warning)
            sbx_warn(warning, warning_size, "cache %s could not be created: %s", root->path,
                     strerror(e));
        made += e == 0;
    }
    return made;
}

#endif
