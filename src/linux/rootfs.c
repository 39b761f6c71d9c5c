/* Root's view of the kernel: a private mount namespace for a command that
 * runs as uid 0 in a confining mode.
 *
 * Most sysctls, /sys and the block devices check only that the caller is
 * uid 0, not a capability, so dropping capabilities leaves them writable (a
 * `|helper` in kernel.core_pattern runs outside every filter) and the disks
 * readable beneath every mask. The launcher still has CAP_SYS_ADMIN here, so
 * the command gets its own mount namespace, without a user namespace:
 *   - /proc/sysrq-trigger and every top-level directory of /proc that is
 *     not a process's (sys, irq, bus, fs, acpi, driver, tty...) bound
 *     read-only, /sys made read-only with everything mounted beneath it;
 *   - /dev replaced by a small tmpfs holding bind mounts of the character
 *     devices commands use (the same inodes, so the Landlock rules made
 *     before the fork still match), /dev/pts, /dev/shm and /dev/mqueue, and
 *     the usual symlinks: no block device, loop-control, tun, fuse or mem.
 * Mounts copied into any namespace the command creates later are locked
 * (the kernel refuses to unmount or re-enable them), a new proc or sysfs is
 * refused as "too revealing", and the capabilities to remount are dropped
 * right after. Async-signal-safe: only system calls, no allocation. */
#define _GNU_SOURCE
#include "linux.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree
#  define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#  define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#  define SYS_mount_setattr 442
#endif
#ifndef OPEN_TREE_CLOEXEC
#  define OPEN_TREE_CLOEXEC O_CLOEXEC
#endif
#ifndef OPEN_TREE_CLONE
#  define OPEN_TREE_CLONE 1
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#  define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef MOUNT_ATTR_RDONLY
#  define MOUNT_ATTR_RDONLY 0x00000001
#endif

/* struct mount_attr: attr_set, attr_clr, propagation, userns_fd. */
#define SBX_MOUNT_ATTR_READ_ONLY {MOUNT_ATTR_RDONLY, 0, 0, 0}

/* What the new /dev holds. Character devices and directories of them only;
 * kvm, dri and the NVIDIA nodes are there when the machine has them. A tree
 * that is a mount point (pts, shm, mqueue) is moved, not copied: fewer
 * mounts to make and to tear down at exit. */
enum { DEV_NODE, DEV_TREE, DEV_NVIDIA /* looked for only after nvidiactl */ };
static const struct {
    const char *name;
    int kind;
} dev_binds[] = {
    {"null", DEV_NODE},   {"zero", DEV_NODE},     {"full", DEV_NODE},
    {"random", DEV_NODE}, {"urandom", DEV_NODE},  {"tty", DEV_NODE},
    {"kvm", DEV_NODE},    {"nvidiactl", DEV_NODE}, {"nvidia-uvm", DEV_NVIDIA},
    {"nvidia-uvm-tools", DEV_NVIDIA}, {"nvidia-modeset", DEV_NVIDIA},
    {"pts", DEV_TREE},    {"shm", DEV_TREE},      {"mqueue", DEV_TREE},
    {"dri", DEV_TREE},
};
#define N_DEV_BINDS (sizeof dev_binds / sizeof dev_binds[0])
/* nvidia0, nvidia1...: found by name, as the Landlock device list does. */
#define MAX_GPUS 16

static const char *const dev_links[][2] = {
    /* A bound ptmx node would look for "pts" beside its old dentry. */
    {"ptmx", "pts/ptmx"},
    {"fd", "/proc/self/fd"},
    {"stdin", "/proc/self/fd/0"},
    {"stdout", "/proc/self/fd/1"},
    {"stderr", "/proc/self/fd/2"},
};

/* /proc files that uid 0 could otherwise write and that reach past the
 * command; the directories are found by name below (proc_dirs_read_only). */
static const char *const proc_ro[] = {"/proc/sysrq-trigger"};
/* Top-level /proc directories left writable: pressure's writes arm a PSI
 * trigger that belongs to the open file, not a host setting. */
static const char *const proc_rw[] = {"pressure"};

int sbx_rootfs_wanted(uint64_t drop_caps)
{
    /* Only a command that keeps uid 0 needs it; any confining mode drops
     * capabilities, and that is what makes the uid-only checks matter. */
    return drop_caps != 0 && geteuid() == 0;
}

static int has_sys_admin(void)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capget, &h, d) != 0)
        return 0;
    return (d[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32)) & 1;
}

static int read_only_mount(const char *path)
{
    struct statvfs st;
    return statvfs(path, &st) != 0 || (st.f_flag & ST_RDONLY);
}

int sbx_rootfs_check(char *warning, size_t warning_size, sandbox_error *err)
{
    if (has_sys_admin())
        return 1;
    /* A container that withheld CAP_SYS_ADMIN from its root has, as a rule,
     * mounted /proc/sys and /sys read-only itself: accept only that. */
    if (read_only_mount("/proc/sys") && read_only_mount("/sys")) {
        sbx_warn(warning, warning_size,
                 "running as root without CAP_SYS_ADMIN: /dev is not narrowed, so block "
                 "devices readable here stay readable (/proc/sys and /sys are read-only already)");
        return 0;
    }
    return sbx_fail(err, SANDBOX_E_UNSUPPORTED, EPERM,
                    "running as root without CAP_SYS_ADMIN, and /proc/sys or /sys is writable: "
                    "the sandbox cannot make them read-only, and a root command could write "
                    "kernel.core_pattern; run the launcher as a normal user, or with "
                    "CAP_SYS_ADMIN; the command was not run");
}

static int fail(int *sys_errno)
{
    *sys_errno = errno;
    return -1;
}

/* Bind `path` onto itself read-only, with everything mounted beneath it. */
static int bind_read_only(const char *path, int *sys_errno)
{
    uint64_t attr[4] = SBX_MOUNT_ATTR_READ_ONLY;
    int fd = (int)syscall(SYS_open_tree, AT_FDCWD, path,
                          OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (fd < 0)
        return errno == ENOENT ? 0 : fail(sys_errno);
    if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, attr, sizeof attr) != 0 ||
        syscall(SYS_move_mount, fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH) != 0) {
        fail(sys_errno);
        close(fd);
        return -1;
    }
    close(fd);
    return 0;
}

struct gpus {
    char name[MAX_GPUS][16];
    int fd[MAX_GPUS];
    size_t n;
};

/* "nvidia" and digits only. getdents64, not readdir: no allocation here. */
static void find_gpus(struct gpus *g)
{
    char buf[4096];
    long got;
    int dir = open("/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    g->n = 0;
    if (dir < 0)
        return;
    while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        long at = 0;
        while (at < got) {
            /* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name */
            unsigned short reclen;
            unsigned char type = (unsigned char)buf[at + 18];
            const char *name = buf + at + 19, *c = name + 6;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            at += reclen;
            if (strncmp(name, "nvidia", 6) != 0 || !*c || type != DT_CHR ||
                strlen(name) >= sizeof g->name[0] || g->n >= MAX_GPUS)
                continue;
            while (*c >= '0' && *c <= '9')
                c++;
            if (!*c)
                memcpy(g->name[g->n++], name, strlen(name) + 1);
        }
    }
    close(dir);
}

static int narrow_dev(int *sys_errno)
{
    int trees[N_DEV_BINDS], old, newdev, rc = -1, nvidia = 0;
    struct gpus g;
    size_t i, k;

    for (i = 0; i < N_DEV_BINDS; i++)
        trees[i] = -1;
    g.n = 0;
    old = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (old < 0)
        return errno == ENOENT ? 0 : fail(sys_errno);
    /* Before the tmpfs covers /dev, when the old nodes still have a path:
     * a clone of each node; a handle on each tree, moved or cloned below. */
    for (i = 0; i < N_DEV_BINDS; i++) {
        if (dev_binds[i].kind == DEV_NVIDIA && g.n == 0 && !nvidia)
            continue;
        trees[i] = (int)syscall(SYS_open_tree, old, dev_binds[i].name,
                                OPEN_TREE_CLOEXEC |
                                    (dev_binds[i].kind == DEV_TREE ? 0 : OPEN_TREE_CLONE));
        if (trees[i] < 0 && errno != ENOENT && errno != ENOTDIR) {
            fail(sys_errno);
            goto out;
        }
        if (trees[i] >= 0 && strcmp(dev_binds[i].name, "nvidiactl") == 0) {
            nvidia = 1;
            find_gpus(&g);
            for (k = 0; k < g.n; k++)
                g.fd[k] = (int)syscall(SYS_open_tree, old, g.name[k],
                                       OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
        }
    }
    /* nosuid, noexec; not nodev: the binds beneath are the devices. */
    if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=16k,nr_inodes=64") !=
        0) {
        fail(sys_errno);
        goto out;
    }
    newdev = open("/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (newdev < 0) {
        fail(sys_errno);
        goto out;
    }
    for (i = 0; i < N_DEV_BINDS; i++) {
        int made;
        if (trees[i] < 0)
            continue;
        /* The mount point: an empty file or directory of the tmpfs. */
        made = dev_binds[i].kind == DEV_TREE ? mkdirat(newdev, dev_binds[i].name, 0755)
                                             : mknodat(newdev, dev_binds[i].name, S_IFREG | 0600, 0);
        if (made == 0 && dev_binds[i].kind == DEV_TREE &&
            syscall(SYS_move_mount, trees[i], "", newdev, dev_binds[i].name,
                    MOVE_MOUNT_F_EMPTY_PATH) == 0)
            continue; /* a mount point: moved */
        if (made == 0 && dev_binds[i].kind == DEV_TREE) {
            /* EINVAL: a plain directory of the old /dev; copy it instead. */
            int tree = (int)syscall(SYS_open_tree, trees[i], "",
                                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
                                        AT_RECURSIVE);
            if (tree < 0) {
                fail(sys_errno);
                close(newdev);
                goto out;
            }
            close(trees[i]);
            trees[i] = tree;
        }
        if (made != 0 || syscall(SYS_move_mount, trees[i], "", newdev, dev_binds[i].name,
                                 MOVE_MOUNT_F_EMPTY_PATH) != 0) {
            fail(sys_errno);
            close(newdev);
            goto out;
        }
    }
    for (i = 0; i < g.n; i++) {
        if (g.fd[i] < 0)
            continue;
        if (mknodat(newdev, g.name[i], S_IFREG | 0600, 0) != 0 ||
            syscall(SYS_move_mount, g.fd[i], "", newdev, g.name[i], MOVE_MOUNT_F_EMPTY_PATH) != 0) {
            fail(sys_errno);
            close(newdev);
            goto out;
        }
    }
    for (i = 0; i < sizeof dev_links / sizeof dev_links[0]; i++)
        if (symlinkat(dev_links[i][1], newdev, dev_links[i][0]) != 0) {
            fail(sys_errno);
            close(newdev);
            goto out;
        }
    close(newdev);
    /* Read-only: nothing new appears in /dev (device nodes stay usable). */
    if (mount(NULL, "/dev", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) != 0) {
        fail(sys_errno);
        goto out;
    }
    rc = 0;
out:
    for (i = 0; i < N_DEV_BINDS; i++)
        if (trees[i] >= 0)
            close(trees[i]);
    for (i = 0; i < g.n; i++)
        if (g.fd[i] >= 0)
            close(g.fd[i]);
    close(old);
    return rc;
}

/* Every top-level directory of /proc but the processes' (digits, self,
 * thread-self: the command's own files, uid_map included, stay writable):
 * sys, irq (smp_affinity), bus (PCI config space), fs, acpi, driver, tty and
 * whatever a kernel adds later. Found by name, so a new one is covered. */
static int proc_dirs_read_only(int *sys_errno)
{
    char buf[2048], path[64];
    long got;
    int dir = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (dir < 0)
        return errno == ENOENT ? 0 : fail(sys_errno);
    while ((got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
        long at = 0;
        while (at < got) {
            /* struct linux_dirent64: u64 ino, s64 off, u16 reclen, u8 type, name */
            unsigned short reclen;
            unsigned char type = (unsigned char)buf[at + 18];
            const char *name = buf + at + 19;
            size_t i, len = strlen(name);
            int skip = type != DT_DIR || (name[0] >= '0' && name[0] <= '9') || name[0] == '.' ||
                       strcmp(name, "self") == 0 || strcmp(name, "thread-self") == 0 ||
                       len + sizeof "/proc/" > sizeof path;
            memcpy(&reclen, buf + at + 16, sizeof reclen);
            at += reclen;
            for (i = 0; !skip && i < sizeof proc_rw / sizeof proc_rw[0]; i++)
                skip = strcmp(name, proc_rw[i]) == 0;
            if (skip)
                continue;
            memcpy(path, "/proc/", 6);
            memcpy(path + 6, name, len + 1);
            if (bind_read_only(path, sys_errno) != 0) {
                close(dir);
                return -1;
            }
        }
    }
    if (got < 0) {
        fail(sys_errno);
        close(dir);
        return -1;
    }
    close(dir);
    return 0;
}

int sbx_rootfs_apply(int *sys_errno)
{
    uint64_t attr[4] = SBX_MOUNT_ATTR_READ_ONLY;
    size_t i;

    if (unshare(CLONE_NEWNS) != 0)
        return fail(sys_errno);
    /* Before any mount: nothing done below may propagate back to the host,
     * while the host's new mounts still appear here. */
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
        return fail(sys_errno);
    for (i = 0; i < sizeof proc_ro / sizeof proc_ro[0]; i++)
        if (bind_read_only(proc_ro[i], sys_errno) != 0)
            return -1;
    if (proc_dirs_read_only(sys_errno) != 0)
        return -1;
    /* /sys is a mount point already: EINVAL means it is not (no sysfs there). */
    if (syscall(SYS_mount_setattr, AT_FDCWD, "/sys", AT_RECURSIVE, attr, sizeof attr) != 0 &&
        errno != ENOENT && errno != EINVAL)
        return fail(sys_errno);
    return narrow_dev(sys_errno);
}

int sbx_rootfs_readable_disks(char *first, size_t first_size)
{
    struct dirent *de;
    DIR *d;
    int n = 0;

    first[0] = 0;
    if (geteuid() == 0 || !(d = opendir("/dev")))
        return 0;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (de->d_type != DT_BLK && de->d_type != DT_UNKNOWN)
            continue;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISBLK(st.st_mode) ||
            faccessat(dirfd(d), de->d_name, R_OK, AT_EACCESS) != 0)
            continue;
        if (n++ == 0)
            snprintf(first, first_size, "/dev/%s", de->d_name);
    }
    closedir(d);
    return n;
}
