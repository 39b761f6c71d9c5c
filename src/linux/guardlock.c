/* One creation at a time across every guarded run of the user (issues 18,
 * 23; review of 2 December, F1, F2). Each run's guard checks a name and
 * makes it as one step, so within a run no check sees a folder half
 * changed; two runs on one project are two guards, and each checked a
 * folder the other was changing (a HEAD completed by sockets from both; a
 * package moved out of node_modules while the other made .claude in it).
 * So every guard holds one lock around each check and the call it guards:
 * a record lock on ~/.libsandbox/guard.lock. The file is opened with the
 * plan, before any confinement (the supervisor runs in the command's
 * Landlock domain, which cannot open it), and the lock is a process's own
 * (F_SETLK, not an open file description's): runs forked from one plan
 * share the descriptor, never the lock. The supervisor never opens the
 * file again (closing any descriptor of it would drop the lock).
 *
 * Why there: the directory is the user's own, mode 0700, and no root of any
 * sandbox may reach it (resolve.c), so a confined command cannot replace
 * the file (Landlock) nor open it for writing, which a write lock needs. It
 * can open it for reading and hold a read lock, which stalls other runs'
 * guards: a wait is bounded (SBX_GUARD_LOCK_MS), and a call that cannot get
 * the lock fails with EAGAIN rather than go unchecked. An account without a
 * home of its own runs without the lock (docs/threat-model.md).
 *
 * The home's lock is one user's: runs of two users on one project (root's
 * and the user's), or of an account without a home of its own, each raced
 * the other (review of 2 December, F2: a repository made of two runs'
 * sockets in 87 iterations). So a guard also takes an exclusive flock on
 * the project's root directory, which every user's run of that project
 * opens: before the home's lock, always, so no two guards wait on each
 * other in a cycle (each holds at most one project's lock, and takes the
 * home's last), and a lock held on one project stalls only its runs. flock's lock belongs to an open file description, so each
 * supervisor uses a description of its own, opened from the plan's
 * descriptor ("." beneath it), never a shared one; a worker closes its copy. */
#define _GNU_SOURCE
#include "supervisor.h"
#include "../scanindex.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long a guard waits for another run's guard before the call fails:
 * a holder keeps the lock for one call (microseconds), never across a wait. */
#define SBX_GUARD_LOCK_MS 10000

static const char lock_name[] = "guard.lock";

int sbx_guard_lock_open(const sbx_resolved *r)
{
    char *dir = sbx_index_home(r);
    int dfd = sbx_index_open_dir(dir), fd = -1;
    struct stat st;

    free(dir);
    if (dfd < 0)
        return -1;
    fd = openat(dfd, lock_name, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    close(dfd);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static int set_lock(int fd, short type)
{
    struct flock fl;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 1;
    return fcntl(fd, F_SETLK, &fl);
}

int sbx_guard_project_open(const sbx_resolved *r)
{
    const char *dir = r->project_root ? r->project_root : r->working_dir;
    return dir ? openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
}

int sbx_guard_project_reopen(int fd)
{
    return fd < 0 ? -1 : openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

int sbx_guard_lock_take(struct sbx_sup *s)
{
    struct timespec start, now;
    int proj = s->plock_fd < 0, e;
    if (!sbx_guard_lock_any(s) || s->glock_held)
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        /* The project's first: one held on a project (a denial of service)
         * then stalls that project's runs only, not the user's others. */
        if (!proj && flock(s->plock_fd, LOCK_EX | LOCK_NB) == 0)
            proj = 1;
        else if (!proj && errno != EWOULDBLOCK && errno != EINTR)
            return errno;
        if (proj && (s->glock_fd < 0 || set_lock(s->glock_fd, F_WRLCK) == 0)) {
            s->glock_held = 1;
            return 0;
        }
        if (proj && errno != EAGAIN && errno != EACCES && errno != EINTR) {
            e = errno;
            if (s->plock_fd >= 0)
                (void)flock(s->plock_fd, LOCK_UN);
            return e;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 >
            SBX_GUARD_LOCK_MS) {
            if (proj && s->plock_fd >= 0)
                (void)flock(s->plock_fd, LOCK_UN);
            return EAGAIN;
        }
        /* Another run's guard is in the middle of one call: the timers and
         * the host's death are still seen meanwhile. */
        if (sbx_sup_wait(s, 1))
            return EINTR;
    }
}

void sbx_guard_lock_drop(struct sbx_sup *s)
{
    if (!s->glock_held)
        return;
    if (s->plock_fd >= 0)
        (void)flock(s->plock_fd, LOCK_UN);
    if (s->glock_fd >= 0)
        (void)set_lock(s->glock_fd, F_UNLCK);
    s->glock_held = 0;
}
