/* Bench helper: run a command under only the library's Landlock ruleset
 * (no seccomp), so the cost of Landlock itself can be measured before the
 * launcher can apply --confine-fs.
 *
 *   landlock_run none|confined PROJECT -- CMD [ARGS...]
 *   landlock_run confined+truncate|confined+truncate+ioctl PROJECT -- CMD...
 *
 * The +truncate variants handle the rights the design leaves out, granted
 * again beneath every root, to show what they cost on open-heavy work. */
#define _GNU_SOURCE
#include "linux/landlock.h"
#include "linux/linux.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

static int extra_ruleset(const sbx_resolved *r, uint64_t extra)
{
    struct sbx_landlock_handled h;
    struct sbx_ll_ruleset_attr attr;
    size_t i;
    int fd;

    sbx_landlock_handled_for(SBX_LL_ABI_MAX, SANDBOX_FS_CONFINED, SANDBOX_NETWORK_ALLOW, &h);
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = h.fs | extra;
    fd = sbx_ll_create_ruleset(&attr, sizeof attr, 0);
    if (fd < 0)
        return -1;
    for (i = 0; i < r->n_roots; i++) {
        struct sbx_ll_path_beneath_attr pb;
        struct stat st;
        int pfd = open(r->roots[i].path, O_PATH | O_CLOEXEC);
        if (pfd < 0)
            continue;
        fstat(pfd, &st);
        pb.parent_fd = pfd;
        pb.allowed_access = S_ISDIR(st.st_mode) ? attr.handled_access_fs
                                                : attr.handled_access_fs & SBX_LL_FS_FILE_RIGHTS;
        if (sbx_ll_add_rule(fd, SBX_LL_RULE_PATH_BENEATH, &pb, 0) != 0)
            return -1;
        close(pfd);
    }
    return fd;
}

int main(int argc, char **argv)
{
    sandbox_policy *p;
    sbx_resolved r;
    sandbox_error err;
    char warning[512] = "";
    uint32_t flags = 0;
    uint64_t extra = 0;
    int fd = -1;

    if (argc < 5 || strcmp(argv[3], "--") != 0) {
        fprintf(stderr, "usage: landlock_run MODE PROJECT -- CMD...\n");
        return 2;
    }
    if (strcmp(argv[1], "none") == 0) {
        execvp(argv[4], argv + 4);
        return 127;
    }
    p = sandbox_policy_new();
    sandbox_policy_set_filesystem(p, SANDBOX_FS_CONFINED);
    sandbox_policy_set_project_root(p, argv[2]);
    if (!p || sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err) != SANDBOX_OK) {
        fprintf(stderr, "landlock_run: cannot resolve the policy\n");
        return 126;
    }
    if (strcmp(argv[1], "confined+truncate") == 0)
        extra = SBX_LL_FS_TRUNCATE;
    else if (strcmp(argv[1], "confined+truncate+ioctl") == 0)
        extra = SBX_LL_FS_TRUNCATE | SBX_LL_FS_IOCTL_DEV;
    if (extra)
        fd = extra_ruleset(&r, extra);
    else if (sbx_landlock_prepare(&r, &fd, &flags, warning, sizeof warning, &err) != SANDBOX_OK)
        fd = -1;
    if (fd < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || sbx_ll_restrict_self(fd, flags)) {
        fprintf(stderr, "landlock_run: cannot apply the ruleset: %s\n", strerror(errno));
        return 126;
    }
    close(fd);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
    execvp(argv[4], argv + 4);
    return 127;
}
