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
 *   - /dev replaced by a small tmpfs holding the character devices commands
 *     use (nodes of its own, made with the host's numbers, mode and owner;
 *     in read-only mode bind mounts of the host's, whose inodes the Landlock
 *     rules made before the fork name), /dev/shm and /dev/mqueue, a devpts
 *     instance of its own (no other terminal of the host is reachable), and
 *     the usual symlinks: no block device, loop-control, tun, fuse or mem.
 *     The backend grants the new /dev to Landlock once it exists;
 *   - every mount but the new /dev nodev (nodev_from_root): a device node
 *     reached any other way (a bind of the host's /dev elsewhere, a node
 *     mknod'd in a chroot) does not open;
 *   - in confined mode, every mount read-only but the writable roots and
 *     /dev, which keep the flags they had (harden_mounts; /proc last, after
 *     the masks' maps): root owns
 *     the system's files, and Landlock does not cover chmod, chown, times
 *     or extended attributes;
 *   - the working directory entered again by path, through the new mounts.
 * Mounts copied into any namespace the command creates later are locked
 * (the kernel refuses to unmount or re-enable them), a new proc or sysfs is
 * refused as "too revealing", and the capabilities to remount are dropped
 * right after. Async-signal-safe: only system calls, no allocation. */
#define _GNU_SOURCE
#include "linux.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/stat.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
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
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#  define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef SYS_statmount
#  define SYS_statmount 457
#endif
#ifndef SYS_listmount
#  define SYS_listmount 458
#endif
#ifndef MOUNT_ATTR_RDONLY
#  define MOUNT_ATTR_RDONLY 0x00000001
#endif
#ifndef MOUNT_ATTR_NODEV
#  define MOUNT_ATTR_NODEV 0x00000004
#endif
#ifndef STATX_ATTR_MOUNT_ROOT
#  define STATX_ATTR_MOUNT_ROOT 0x00002000
#endif
/* statx's unique mount id (Linux 6.8), the one statmount takes. */
#define SBX_STATX_MNT_ID_UNIQUE 0x00004000U

#ifndef DEVPTS_SUPER_MAGIC
#  define DEVPTS_SUPER_MAGIC 0x1cd1
#endif

/* struct mount_attr: attr_set, attr_clr, propagation, userns_fd. */
#define SBX_MOUNT_ATTR_READ_ONLY {MOUNT_ATTR_RDONLY, 0, 0, 0}
#define SBX_MOUNT_ATTR_NODEV {MOUNT_ATTR_NODEV, 0, 0, 0}
#define SBX_MOUNT_ATTR_NODEV_RDONLY {MOUNT_ATTR_NODEV | MOUNT_ATTR_RDONLY, 0, 0, 0}
#define SBX_MOUNT_ATTR_DEV {0, MOUNT_ATTR_NODEV, 0, 0}

/* What the new /dev holds. Character devices and directories of them only;
 * kvm, dri and the NVIDIA nodes are there when the machine has them. A tree
 * that is a mount point (shm, mqueue) is moved, not copied: fewer mounts to
 * make and to tear down at exit. pts is not among them: the host's devpts
 * holds every terminal of the user (a tmux pane, another window), so the
 * command gets a devpts instance of its own (private_pts). */
enum {
    DEV_NODE,
    DEV_TREE,       /* scratch space (shm, mqueue): stays nodev */
    DEV_TREE_NODES, /* a directory of device nodes (dri): device access kept */
    DEV_NVIDIA      /* looked for only after nvidiactl */
};
static const struct {
    const char *name;
    int kind;
} dev_binds[] = {
    {"null", DEV_NODE},   {"zero", DEV_NODE},     {"full", DEV_NODE},
    {"random", DEV_NODE}, {"urandom", DEV_NODE},  {"tty", DEV_NODE},
    {"kvm", DEV_NODE},    {"nvidiactl", DEV_NODE}, {"nvidia-uvm", DEV_NVIDIA},
    {"nvidia-uvm-tools", DEV_NVIDIA}, {"nvidia-modeset", DEV_NVIDIA},
    {"shm", DEV_TREE},    {"mqueue", DEV_TREE},
    {"dri", DEV_TREE_NODES},
};
#define N_DEV_BINDS (sizeof dev_binds / sizeof dev_binds[0])
/* nvidia0, nvidia1...: found by name, as the Landlock device list does. */
#define MAX_GPUS 16

static const char *const dev_links[][2] = {
    /* The new instance's own multiplexer: a bound host ptmx node would look
     * for "pts" beside its old dentry and allocate in the host's instance. */
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

/* Mount ids a scan must find in the table (mountinfo's first field). */
struct mount_ids {
    unsigned long long id[3];
    int n;
    unsigned seen;
    unsigned long long proc_id; /* the mount "/proc" resolves to now, or 0 */
    int gone; /* kernel mounts skipped (apply): no path reached them */
};
static int kernel_mounts_scan(int apply, char *found, size_t found_size, struct mount_ids *ids,
                              int *sys_errno);
static int kernel_magic(unsigned long t);
/* What ns_mounts counts: mounts writable, and kernel settings writable but
 * the proc at /proc. */
struct ns_count {
    unsigned long long proc_id;
    size_t writable, kernel;
};
static int ns_mounts(struct ns_count *c, int *sys_errno);
static int mount_id_of(int dirfd, const char *path, unsigned long long *id);

/* The parts of /proc through which uid 0 alone, without CAP_SYS_ADMIN,
 * changes the host: sysctls, the SysRq trigger (a crash), interrupt
 * affinity, ACPI wakeup; container runtimes mount each read-only (Docker's
 * and the OCI default's readonly and masked paths). Absent is as good. */
static const char *const proc_needs_ro[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq",
                                            "/proc/bus", "/proc/fs", "/proc/acpi"};

int sbx_rootfs_check(char *warning, size_t warning_size, sandbox_error *err)
{
    char other[PATH_MAX + 32] = "";
    struct stat st;
    size_t i;
    int e = 0;
    if (has_sys_admin())
        return 1;
    /* A container that withheld CAP_SYS_ADMIN from its root has, as a rule,
     * mounted the kernel's settings read-only itself: accept only that. */
    for (i = 0; i < sizeof proc_needs_ro / sizeof proc_needs_ro[0]; i++)
        if (lstat(proc_needs_ro[i], &st) == 0 && !read_only_mount(proc_needs_ro[i]))
            return sbx_fail(err, SANDBOX_E_UNSUPPORTED, EPERM,
                            "running as root without CAP_SYS_ADMIN, and %s is writable: the "
                            "sandbox cannot make it read-only, and a root command could change "
                            "the host's kernel through it (kernel.core_pattern runs a program "
                            "outside every sandbox); mount it read-only, run the launcher as a "
                            "normal user, or with CAP_SYS_ADMIN; the command was not run",
                            proc_needs_ro[i]);
    /* Every mount of a kernel file system, /sys and those beneath /sys and
     * /proc included (a writable cgroup under a read-only /sys, binfmt_misc
     * under a read-only /proc/sys: review r41 F1), and a /host/proc
     * elsewhere (review r40 F3); /proc itself only through the paths above. */
    if (kernel_mounts_scan(0, other, sizeof other, NULL, &e) != 0 && !other[0])
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, e,
                        "running as root without CAP_SYS_ADMIN, and /proc/self/mountinfo %s%s%s: "
                        "the sandbox cannot tell whether a kernel file system is mounted "
                        "writable, and a root command could write the kernel's settings through "
                        "it; mount this pid namespace's proc on /proc, run the launcher as a "
                        "normal user, or with CAP_SYS_ADMIN; the command was not run",
                        e == EMEDIUMTYPE ? "is not a proc file system's"
                        : e == EXDEV     ? "is not this process's (another table bound over it)"
                                         : "cannot be read (",
                        e == EMEDIUMTYPE || e == EXDEV ? "" : strerror(e),
                        e == EMEDIUMTYPE || e == EXDEV ? "" : ")");
    if (other[0])
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, e,
                        "running as root without CAP_SYS_ADMIN, and %s is mounted writable: the "
                        "sandbox cannot make it read-only, and a root command could write the "
                        "kernel's settings through it; mount it read-only, run the launcher as a "
                        "normal user, or with CAP_SYS_ADMIN; the command was not run",
                        other);
    /* And by mount id: the table leaves out a mount whose folder was
     * moved out of its parent mount's root (review r52 X3). */
    {
        struct ns_count nc;
        int r;
        memset(&nc, 0, sizeof nc);
        if (mount_id_of(AT_FDCWD, "/proc", &nc.proc_id) != 0)
            nc.proc_id = 0;
        r = ns_mounts(&nc, &e);
        if (r < 0 || (r == 0 && nc.kernel))
            return sbx_fail(err, SANDBOX_E_UNSUPPORTED, r < 0 ? e : ENOLINK,
                            "running as root without CAP_SYS_ADMIN, and %s%s%s: a root command "
                            "could write the kernel's settings through it; run the launcher as a "
                            "normal user, or with CAP_SYS_ADMIN; the command was not run",
                            r < 0 ? "the mounts cannot be listed by id (" : "a kernel file system "
                            "is mounted writable where /proc/self/mountinfo does not list it (a "
                            "folder above it moved out of its parent mount's root, as out of a "
                            "bound project)",
                            r < 0 ? strerror(e) : "", r < 0 ? ")" : "");
    }
    sbx_warn(warning, warning_size,
             "running as root without CAP_SYS_ADMIN: /dev is not narrowed, so block "
             "devices readable here stay readable (the kernel's settings are read-only already)");
    return 0;
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
    size_t n;
};

/* "nvidia" and digits only. getdents64, not readdir: no allocation here. */
static void find_gpus(struct gpus *g)
{
    char buf[4096];
    long got;
    int dir = openat(AT_FDCWD, "/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

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

/* A devpts instance of the command's own on /dev/pts: the ptys it opens
 * through /dev/ptmx are its own, numbered from 0, and none of the host's
 * (other terminal windows, tmux panes: OSC 52 sets their clipboard, a fake
 * prompt can be drawn, their keystrokes read) has a name here. The command's
 * inherited terminal stays usable through its descriptors and /dev/tty, but
 * ttyname() finds no name for it (`tty` says "not a tty"). A kernel without
 * Unix98 ptys (ENODEV) has none to hide. */
static int mount_pts(const char *options, int *sys_errno)
{
    *sys_errno = 0;
    if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, options) == 0 ||
        errno == ENODEV)
        return 0;
    return fail(sys_errno);
}

int sbx_rootfs_private_pts(int *sys_errno)
{
    struct statfs st;

    /* Only over a devpts: where /dev/pts is something else (or absent),
     * there is no host terminal there to hide. No gid= option: a user
     * namespace maps only the caller's own group. */
    *sys_errno = 0;
    if (statfs("/dev/pts", &st) != 0 || st.f_type != DEVPTS_SUPER_MAGIC)
        return 0;
    return mount_pts("newinstance,ptmxmode=0666,mode=0620", sys_errno);
}

/* Device access back on one mount (a descriptor from open_tree): only on
 * what the new /dev is meant to hold. EPERM: the host's mount was nodev
 * already and that is locked here (a user namespace); it stays so, which
 * only ever takes access away. */
static int allow_devices(int tree)
{
    uint64_t attr[4] = SBX_MOUNT_ATTR_DEV;
    return syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, attr, sizeof attr) == 0 ||
                   errno == EPERM
               ? 0
               : -1;
}

/* One character device of the new /dev, `st` being the host's node: a node
 * of its own (mknod, the same device number, mode and owner: no mount to
 * make, nor to tear down at exit), or a bind of the host's node where the
 * inode matters (read-only mode, whose Landlock rules, made before the
 * fork, name the host's null, zero, full and tty) or mknod is refused (a
 * user namespace, a device cgroup). The caller set the umask to 0. */
static int put_node(int old, int newdev, const char *name, const struct stat *st, int bind,
                    int *sys_errno)
{
    int tree;

    if (!bind) {
        if (mknodat(newdev, name, S_IFCHR | (st->st_mode & 0777), st->st_rdev) == 0)
            return (st->st_uid == geteuid() && st->st_gid == getegid()) ||
                           fchownat(newdev, name, st->st_uid, st->st_gid, AT_SYMLINK_NOFOLLOW) == 0
                       ? 0
                       : fail(sys_errno);
        if (errno != EPERM)
            return fail(sys_errno);
    }
    /* Through the descriptor of the old /dev, which the tmpfs covers now. */
    tree = (int)syscall(SYS_open_tree, old, name, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (tree < 0)
        return fail(sys_errno);
    /* The clone has the old /dev's flags, nodev since nodev_everywhere:
     * this node is one the command is meant to open. */
    if (allow_devices(tree) != 0 || mknodat(newdev, name, S_IFREG | 0600, 0) != 0 ||
        syscall(SYS_move_mount, tree, "", newdev, name, MOVE_MOUNT_F_EMPTY_PATH) != 0) {
        fail(sys_errno);
        close(tree);
        return -1;
    }
    close(tree);
    return 0;
}

static int narrow_dev(int bind_nodes, int *sys_errno)
{
    int trees[N_DEV_BINDS], old, newdev = -1, rc = -1, nvidia = 0, ok = 1;
    struct stat nodes[N_DEV_BINDS], gst[MAX_GPUS];
    struct gpus g;
    mode_t mask;
    size_t i;

    for (i = 0; i < N_DEV_BINDS; i++) {
        trees[i] = -1;
        nodes[i].st_mode = 0; /* not a character device: left out */
    }
    g.n = 0;
    old = openat(AT_FDCWD, "/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (old < 0)
        return errno == ENOENT ? 0 : fail(sys_errno);
    /* Before the tmpfs covers /dev, while the old entries still have a
     * path: each node's type, mode and owner; a handle on each tree, moved
     * or copied below. Anything but a character device is left out. */
    for (i = 0; i < N_DEV_BINDS; i++) {
        if (dev_binds[i].kind == DEV_NVIDIA && !nvidia)
            continue;
        if (dev_binds[i].kind != DEV_TREE && dev_binds[i].kind != DEV_TREE_NODES) {
            if (fstatat(old, dev_binds[i].name, &nodes[i], AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno != ENOENT && errno != ENOTDIR) {
                    fail(sys_errno);
                    goto out;
                }
                nodes[i].st_mode = 0;
                continue;
            }
            if (S_ISCHR(nodes[i].st_mode) && strcmp(dev_binds[i].name, "nvidiactl") == 0) {
                nvidia = 1;
                find_gpus(&g);
            }
            continue;
        }
        trees[i] = (int)syscall(SYS_open_tree, old, dev_binds[i].name, OPEN_TREE_CLOEXEC);
        if (trees[i] < 0 && errno != ENOENT && errno != ENOTDIR) {
            fail(sys_errno);
            goto out;
        }
    }
    for (i = 0; i < g.n; i++)
        if (fstatat(old, g.name[i], &gst[i], AT_SYMLINK_NOFOLLOW) != 0)
            gst[i].st_mode = 0;
    /* nosuid, noexec; not nodev: the nodes are the devices. */
    if (mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=16k,nr_inodes=64") !=
        0) {
        fail(sys_errno);
        goto out;
    }
    newdev = openat(AT_FDCWD, "/dev", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (newdev < 0) {
        fail(sys_errno);
        goto out;
    }
    /* The host's modes as they are (null 0666, kvm 0660...), not the umask's. */
    mask = umask(0);
    for (i = 0; ok && i < N_DEV_BINDS; i++)
        if (S_ISCHR(nodes[i].st_mode))
            ok = put_node(old, newdev, dev_binds[i].name, &nodes[i], bind_nodes, sys_errno) == 0;
    for (i = 0; ok && i < g.n; i++)
        if (S_ISCHR(gst[i].st_mode))
            ok = put_node(old, newdev, g.name[i], &gst[i], bind_nodes, sys_errno) == 0;
    umask(mask);
    if (!ok)
        goto out;
    for (i = 0; i < N_DEV_BINDS; i++) {
        if (trees[i] < 0)
            continue;
        /* The mount point: an empty directory of the tmpfs. */
        if (mkdirat(newdev, dev_binds[i].name, 0755) != 0) {
            fail(sys_errno);
            goto out;
        }
        if (syscall(SYS_move_mount, trees[i], "", newdev, dev_binds[i].name,
                    MOVE_MOUNT_F_EMPTY_PATH) == 0) {
            /* A mount point: moved, with the nodev nodev_everywhere gave it. */
            if (dev_binds[i].kind == DEV_TREE_NODES && allow_devices(trees[i]) != 0) {
                fail(sys_errno);
                goto out;
            }
            continue;
        }
        {
            /* EINVAL: a plain directory of the old /dev; copy it instead. */
            int tree = (int)syscall(SYS_open_tree, trees[i], "",
                                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
                                        AT_RECURSIVE);
            if (tree < 0) {
                fail(sys_errno);
                goto out;
            }
            close(trees[i]);
            trees[i] = tree;
            if (dev_binds[i].kind == DEV_TREE_NODES && allow_devices(tree) != 0) {
                fail(sys_errno);
                goto out;
            }
        }
        if (syscall(SYS_move_mount, trees[i], "", newdev, dev_binds[i].name,
                    MOVE_MOUNT_F_EMPTY_PATH) != 0) {
            fail(sys_errno);
            goto out;
        }
    }
    for (i = 0; i < sizeof dev_links / sizeof dev_links[0]; i++)
        if (symlinkat(dev_links[i][1], newdev, dev_links[i][0]) != 0) {
            fail(sys_errno);
            goto out;
        }
    /* gid 5 is tty, as the host's devpts has it; a user namespace (root in
     * a rootless container) that does not map it refuses the option. */
    if (mkdirat(newdev, "pts", 0755) != 0 ||
        (mount_pts("newinstance,ptmxmode=0666,mode=0620,gid=5", sys_errno) != 0 &&
         (*sys_errno != EINVAL || mount_pts("newinstance,ptmxmode=0666,mode=0620", sys_errno) != 0))) {
        if (*sys_errno == 0)
            fail(sys_errno);
        goto out;
    }
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
    if (newdev >= 0)
        close(newdev);
    close(old);
    return rc;
}

/* Every top-level directory of /proc but the processes' (digits, self,
 * thread-self: the command's own files, uid_map included, stay writable):
 * sys, irq (smp_affinity), bus (PCI config space), fs, acpi, driver, tty and
 * whatever a kernel adds later. Found by name, so a new one is covered.
 * The listing stops at the first process: the kernel lists every other
 * entry before them (fs/proc/root.c, proc_root_readdir: proc_readdir, then
 * proc_pid_readdir, which starts with self and thread-self), and listing
 * the processes builds an inode for each, most of the step's cost on a
 * busy machine. */
static int proc_dirs_read_only(int *sys_errno)
{
    /* 2048: about the other entries' size, so the call that reaches the
     * processes lists few of them (6 µs here against 40 for them all). */
    char buf[2048], path[sizeof "/proc/" + NAME_MAX];
    long got;
    int dir = openat(AT_FDCWD, "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), done = 0;

    if (dir < 0)
        return errno == ENOENT ? 0 : fail(sys_errno);
    while (!done && (got = syscall(SYS_getdents64, dir, buf, sizeof buf)) > 0) {
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
            if (name[0] >= '0' && name[0] <= '9') {
                done = 1;
                break;
            }
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
    if (!done && got < 0) {
        fail(sys_errno);
        close(dir);
        return -1;
    }
    close(dir);
    return 0;
}

/* Every mount from "/" down nodev: a block device or another terminal's
 * pty reached through a second mount of the host's /dev (`mount --rbind
 * /dev chroot/dev`, as arch-chroot, schroot and pbuilder make), or a node
 * mknod'd in a chroot before the launch, no longer opens (EACCES), whatever
 * its mode and whatever Landlock allows (reads are not Landlock's in most
 * modes, and uid 0 passes every mode check). The new /dev, made after
 * this, is the one mount where devices open: its tmpfs and devpts are new
 * mounts, and the few binds of the host's nodes get device access back
 * (allow_devices). A mount the host makes later and that propagates here
 * arrives without nodev (docs/threat-model.md). */
static int nodev_from_root(int *sys_errno)
{
    uint64_t attr[4] = SBX_MOUNT_ATTR_NODEV;
    return syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, attr, sizeof attr) == 0
               ? 0
               : fail(sys_errno);
}

/* Where "." is: its mount and inode. */
static int here(struct statx *st)
{
    return (int)syscall(SYS_statx, AT_FDCWD, ".", AT_SYMLINK_NOFOLLOW, STATX_INO | STATX_MNT_ID,
                        st);
}

/* A chroot into a plain directory: "/" is no mount point, so the propagation
 * of the mount that holds it cannot be changed through "/" (EINVAL), and
 * that mount, shared with the host's on most systems, would carry every
 * mount made below back into the host's namespace (a tmpfs over the
 * chroot's /dev, seen by the host, outliving the command). This namespace
 * is the launcher's alone and it still holds CAP_SYS_CHROOT: step out to
 * the namespace's own root (chroot into a subdirectory, then ".." past the
 * old root until ".." stays on the same mount and inode), there make every
 * mount private, and come back through descriptors taken first; the root
 * is then a clone (enter_root_clone). The command runs only after the
 * return; any failure is the step's error. */
static int namespace_private_from_root(int *sys_errno)
{
    static const char *const below[] = {"proc", "dev", "sys"};
    const char *sub = NULL;
    struct statx a, b;
    struct stat st;
    int root, cwd, i, rc = -1;
    size_t k;

    root = openat(AT_FDCWD, "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return fail(sys_errno);
    cwd = openat(AT_FDCWD, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (cwd < 0) {
        fail(sys_errno);
        close(root);
        return -1;
    }
    /* A directory below "/" to step out through: one of those the mounts
     * below go on (links followed, as the mounts will follow them). Not
     * just any: an automount point would be triggered. None of them: no
     * mount will be made, so nothing can propagate. */
    for (k = 0; !sub && k < sizeof below / sizeof below[0]; k++)
        if (fstatat(root, below[k], &st, 0) == 0 && S_ISDIR(st.st_mode))
            sub = below[k];
    if (!sub) {
        /* No way out that triggers nothing: and without one the mount that
         * holds this root cannot be made nodev, so a node mknod'd here
         * would open. Refused rather than run with the disks reachable. */
        errno = ENOTDIR;
        fail(sys_errno);
        goto out;
    }
    if (fchdir(root) != 0 || chroot(sub) != 0) {
        fail(sys_errno);
        goto out;
    }
    /* The working directory is now above the root: ".." is not stopped. */
    for (i = 0;; i++) {
        if (i == 4096 || here(&a) != 0 || chdir("..") != 0 || here(&b) != 0) {
            if (i == 4096)
                errno = ELOOP;
            fail(sys_errno);
            goto back;
        }
        if (a.stx_mnt_id == b.stx_mnt_id && a.stx_ino == b.stx_ino &&
            a.stx_dev_major == b.stx_dev_major && a.stx_dev_minor == b.stx_dev_minor)
            break;
    }
    /* From the namespace's root: the chroot's mounts and the one holding it. */
    if (chroot(".") != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        fail(sys_errno);
        goto back;
    }
    rc = 0;
back:
    /* Back into the chroot, whatever happened: the same mount and directory. */
    if ((fchdir(root) != 0 || chroot(".") != 0) && rc == 0)
        rc = fail(sys_errno);
out:
    if (fchdir(cwd) != 0 && rc == 0)
        rc = fail(sys_errno);
    close(cwd);
    close(root);
    return rc;
}

/* A chroot into a plain directory: its root is a folder of a mount that
 * also holds what lies beside it, and a kernel mount staged there (a
 * sibling build root's proc) is in neither mountinfo nor listmount, both
 * bounded by the root. Renamed into the chroot during the run, it was
 * writable (review r52 C2: --no-network wrote core_pattern). The command
 * gets a recursive clone of its root instead, put over it and entered:
 * it holds the mounts below the root at this moment and nothing else, so
 * a mount out of reach now can never come within reach, whatever is
 * renamed later, and one moved out of reach after this is still below the
 * clone's root mount, where the last check asks by id. The mounts are
 * private already: the clone is too. The working directory is entered
 * again by its path. */
static int enter_root_clone(int *sys_errno)
{
    char cwd[PATH_MAX + 1];
    long n = syscall(SYS_getcwd, cwd, sizeof cwd);
    int fd, rc = 0;

    if (n <= 0 || cwd[0] != '/') {
        *sys_errno = n < 0 ? errno : ENOENT;
        return -1;
    }
    fd = (int)syscall(SYS_open_tree, AT_FDCWD, "/",
                      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (fd < 0)
        return fail(sys_errno);
    if (syscall(SYS_move_mount, fd, "", AT_FDCWD, "/", MOVE_MOUNT_F_EMPTY_PATH) != 0 ||
        fchdir(fd) != 0 || chroot(".") != 0 || chdir(cwd) != 0)
        rc = fail(sys_errno);
    close(fd);
    return rc;
}

/* The working directory was entered before the mounts: through it, relative
 * names would still reach what they cover (cd /proc/sys, then
 * kernel/core_pattern past the read-only bind; cd /dev, then ./loop0). Enter
 * it again by path, now through the mounts. */
static int reenter_cwd(int *sys_errno)
{
    char cwd[PATH_MAX + 1];
    long n = syscall(SYS_getcwd, cwd, sizeof cwd);

    if (n <= 0 || cwd[0] != '/') {
        /* "(unreachable)": outside the root; ENOENT: removed. */
        *sys_errno = n < 0 ? errno : ENOENT;
        return -1;
    }
    return chdir(cwd) == 0 ? 0 : fail(sys_errno);
}

/* Kept in every confined root run: /dev, which root's step narrows itself,
 * keeping /dev/shm and mqueue writable; /proc until the masks' user
 * namespace has written its maps there. Then /proc is made read-only too
 * (sbx_rootfs_proc_read_only): its entries are the kernel's one copy (a
 * chmod of /proc/slabinfo or of /proc/self/net/dev is the host's, review
 * r37 F1). The command's own /proc/self files (oom_score_adj, comm) are
 * read-only with it: Landlock lets a process write those. */
static const char *const always[] = {"/dev", "/proc"};
#define N_ALWAYS (sizeof always / sizeof always[0])

static int add_keep(struct sbx_keep_tree *k, size_t *n, const char *path, sandbox_error *err)
{
    struct stat st;
    int e;

    if (lstat(path, &st) != 0) {
        e = errno;
        /* Nothing there: Landlock skipped it too (a warning said so). */
        if (e == ENOENT || e == ENOTDIR)
            return SANDBOX_OK;
        return sbx_fail(err, SANDBOX_E_PATH, e,
                        "cannot stat %s, which a root command's namespace keeps writable: %s; "
                        "the command was not run",
                        path, strerror(e));
    }
    if (*n == SBX_KEEP_MAX)
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "more than %d writable roots for a command run as root: its namespace "
                        "keeps at most that many trees writable; give fewer roots, or run the "
                        "command as a normal user; the command was not run",
                        (int)(SBX_KEEP_MAX - N_ALWAYS));
    k[*n].path = strdup(path);
    if (!k[*n].path)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while planning root's mounts");
    k[*n].dev = st.st_dev;
    k[*n].ino = st.st_ino;
    (*n)++;
    return SANDBOX_OK;
}

void sbx_rootfs_keep_free(struct sbx_keep_tree *keep, size_t n)
{
    size_t i;
    for (i = 0; keep && i < n; i++)
        free(keep[i].path);
    free(keep);
}

int sbx_rootfs_keep_plan(const sbx_resolved *r, struct sbx_keep_tree **keep, size_t *n,
                         sandbox_error *err)
{
    struct sbx_keep_tree *k;
    size_t i, j, got = 0;
    int rc = SANDBOX_OK;

    *keep = NULL;
    *n = 0;
    if (r->filesystem != SANDBOX_FS_CONFINED)
        return SANDBOX_OK;
    k = calloc(r->n_roots + N_ALWAYS, sizeof *k);
    if (!k)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while planning root's mounts");
    for (i = 0; rc == SANDBOX_OK && i < N_ALWAYS; i++)
        rc = add_keep(k, &got, always[i], err);
    for (i = 0; rc == SANDBOX_OK && i < r->n_roots; i++) {
        const char *path = r->roots[i].path;
        int nested = r->roots[i].kind == SBX_ROOT_DEV;
        /* A tree inside another comes with the other's copy. The paths
         * are resolved, so a prefix is containment. */
        for (j = 0; !nested && j < N_ALWAYS; j++)
            nested = sbx_path_within(r->target, path, always[j]);
        for (j = 0; !nested && j < r->n_roots; j++)
            nested = j != i && r->roots[j].kind != SBX_ROOT_DEV &&
                     sbx_path_within(r->target, path, r->roots[j].path);
        if (!nested)
            rc = add_keep(k, &got, path, err);
    }
    if (rc != SANDBOX_OK) {
        sbx_rootfs_keep_free(k, got);
        return rc;
    }
    *keep = k;
    *n = got;
    return SANDBOX_OK;
}

/* The trees that keep their flags: each cloned, with everything mounted
 * beneath it, before the read-only step, and put back over itself after
 * it. Opened again here, in this namespace, without following a link, and
 * taken only while it is still what the plan saw: a tree swapped since (a
 * link planted on the path by a process still running) stays read-only,
 * and Landlock, whose rule names the inode the plan saw, refuses writing
 * there anyway. A clone is taken after every mount became a slave: it is a
 * slave too, so nothing made beneath it reaches the host. */
static int take_keeps(const struct sbx_keep_tree *keep, size_t n, int *at, int *tree,
                      int *sys_errno)
{
    const uint64_t nodev[4] = SBX_MOUNT_ATTR_NODEV;
    struct stat st;
    size_t i;

    for (i = 0; i < n; i++) {
        at[i] = openat(AT_FDCWD, keep[i].path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
        if (at[i] < 0) {
            if (errno == ENOENT || errno == ENOTDIR)
                continue;
            return fail(sys_errno);
        }
        if (fstat(at[i], &st) != 0)
            return fail(sys_errno);
        if (st.st_dev != keep[i].dev || st.st_ino != keep[i].ino) {
            close(at[i]);
            at[i] = -1;
            continue;
        }
        tree[i] = (int)syscall(SYS_open_tree, at[i], "",
                               OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE);
        /* Writable, not a way to devices: nodev like every other mount. */
        if (tree[i] < 0 || syscall(SYS_mount_setattr, tree[i], "", AT_EMPTY_PATH | AT_RECURSIVE,
                                   nodev, 4 * sizeof *nodev) != 0)
            return fail(sys_errno);
    }
    return 0;
}

static int put_keeps(size_t n, const int *at, const int *tree, int *sys_errno)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (tree[i] >= 0 && syscall(SYS_move_mount, tree[i], "", at[i], "",
                                    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
            return fail(sys_errno);
    return 0;
}

/* Every mount nodev, and with keep read-only but the kept trees: root
 * owns the system's files, and Landlock does not cover chmod, chown,
 * extended attributes or times, so a read-only mount is what refuses
 * `chmod 0666 /etc/passwd` (EROFS) outside the roots. */
static int harden_mounts(const struct sbx_keep_tree *keep, size_t n, int *sys_errno)
{
    uint64_t ro[4] = SBX_MOUNT_ATTR_NODEV_RDONLY;
    int at[SBX_KEEP_MAX], tree[SBX_KEEP_MAX];
    size_t i;
    int rc = -1;

    if (n > SBX_KEEP_MAX) {
        *sys_errno = E2BIG;
        return -1;
    }
    for (i = 0; i < n; i++)
        at[i] = tree[i] = -1;
    if (n == 0)
        return nodev_from_root(sys_errno);
    if (take_keeps(keep, n, at, tree, sys_errno) != 0)
        goto out;
    if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, ro, sizeof ro) != 0) {
        fail(sys_errno);
        goto out;
    }
    rc = put_keeps(n, at, tree, sys_errno);
out:
    for (i = 0; i < n; i++) {
        if (tree[i] >= 0)
            close(tree[i]);
        if (at[i] >= 0)
            close(at[i]);
    }
    return rc;
}

/* The memory devices a host hands over (stdin from /dev/null, stdout to
 * it) name the host's /dev, on a writable mount: through them root could
 * fchmod or fchown the host's /dev/null, for every user (review r37 F2).
 * Each is replaced, under the same number, by the same device opened in
 * the command's own /dev, with the same access mode and flags: these
 * devices keep no state, so nothing else changes. */
static int reopen_mem_device(int fd, void *ctx)
{
    static const char *const names[] = {NULL,        NULL, NULL,         "/dev/null",
                                        NULL,        "/dev/zero",       NULL,
                                        "/dev/full", "/dev/random",     "/dev/urandom"};
    struct stat st, now;
    int fl, nfd, *e = ctx;
    unsigned mi;

    fl = fcntl(fd, F_GETFD);
    if (fl < 0 || (fl & FD_CLOEXEC))
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 1)
        return 0;
    mi = minor(st.st_rdev);
    if (mi >= sizeof names / sizeof names[0] || !names[mi])
        return 0;
    fl = fcntl(fd, F_GETFL);
    if (fl < 0) {
        *e = errno;
        return -1;
    }
    nfd = openat(AT_FDCWD, names[mi],
                 (fl & (O_ACCMODE | O_APPEND | O_NONBLOCK)) | O_CLOEXEC | O_NOCTTY);
    if (nfd < 0) {
        *e = errno;
        return -1;
    }
    if (fstat(nfd, &now) != 0 || !S_ISCHR(now.st_mode) || now.st_rdev != st.st_rdev ||
        dup3(nfd, fd, 0) < 0) {
        *e = errno ? errno : ENXIO;
        close(nfd);
        return -1;
    }
    close(nfd);
    return 0;
}

int sbx_rootfs_own_devices(int *sys_errno)
{
    int e = 0;
    *sys_errno = 0;
    if (sbx_fd_each(0, reopen_mem_device, &e) != 0) {
        *sys_errno = e ? e : ENXIO;
        return -1;
    }
    return 0;
}

int sbx_rootfs_proc_read_only(int *sys_errno)
{
    uint64_t ro[4] = SBX_MOUNT_ATTR_READ_ONLY;
    if (syscall(SYS_mount_setattr, AT_FDCWD, "/proc", AT_RECURSIVE, ro, sizeof ro) == 0)
        return 0;
    /* No proc there (a chroot without it): nothing to protect. */
    if (errno == ENOENT)
        return 0;
    *sys_errno = errno;
    return -1;
}

/* File systems that are the kernel's own interfaces: through a writable
 * mount of one, uid 0 sets sysctls (core_pattern runs a helper outside every
 * sandbox), registers binfmt handlers, writes device and cgroup settings
 * (a cpuset mount is listed as cgroup), security policy, the NFS server's
 * and the cache allocator's controls, a hypervisor's. */
static const char *const kernel_fs[] = {
    "proc",      "sysfs",   "securityfs", "debugfs",    "tracefs", "configfs",
    "cgroup",    "cgroup2", "bpf",        "pstore",     "efivarfs", "binfmt_misc",
    "fusectl",   "selinuxfs", "smackfs",  "nfsd",       "rpc_pipefs", "resctrl",
    "xenfs",     "s390_hypfs"};

/* Makes the mount numbered `id` in mountinfo read-only through `path`,
 * with what is beneath it: 0 done; 1 when `path` does not reach it now
 * (removed, covered by a later mount, or a folder above it renamed or
 * exchanged since the table was read); -1 on another error. The check and
 * the change go through one descriptor, so a rename between them cannot
 * turn the change onto another mount. Where the kernel cannot say which
 * mount a path is on (before Linux 5.8), the path is taken as reaching it. */
static int read_only_by_path(const char *path, const char *id, int *sys_errno)
{
    uint64_t ro[4] = SBX_MOUNT_ATTR_READ_ONLY;
    struct statx st;
    char *end;
    unsigned long long want = strtoull(id, &end, 10);
    int rc, fd = openat(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 1 : fail(sys_errno);
    if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
                STATX_MNT_ID, &st) != 0) {
        rc = fail(sys_errno);
    } else if ((st.stx_mask & STATX_MNT_ID) && *end == '\0' && st.stx_mnt_id != want) {
        rc = 1;
    } else {
        rc = (int)syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, ro, sizeof ro);
        if (rc != 0)
            rc = fail(sys_errno);
    }
    close(fd);
    return rc;
}

/* One line of /proc/self/mountinfo: a writable mount of a kernel file
 * system other than /proc itself, anywhere (a /host/proc, a proc file bound
 * over /proc/uptime or /proc/1/fdinfo: review r42 F2), is made read-only,
 * with whatever is mounted beneath it (apply); or, in a check (no namespace
 * of root's to make it read-only in), named in `found` and 1 returned. A line
 * cut short (`whole` 0) is enough when its type is complete: the fields
 * needed come before the long ones. The mount point's \ooo escapes are
 * undone in place. */
static int kernel_mount_line(char *line, int whole, int apply, char *found, size_t found_size,
                             struct mount_ids *ids, int *sys_errno)
{
    char *f[6], *sep, *type, *end, *r, *w;
    unsigned long long id = strtoull(line, &end, 10);
    size_t i, k;
    for (i = 0; *end == ' ' && i < (size_t)ids->n; i++)
        if (ids->id[i] == id)
            ids->seen |= 1u << i;
    for (i = 0, r = line; i < 6; i++) {
        f[i] = r;
        r = strchr(r, ' ');
        if (!r)
            goto cut;
        *r++ = '\0';
    }
    /* Optional fields, if any, then "- TYPE SOURCE OPTIONS". */
    sep = strncmp(r, "- ", 2) == 0 ? r - 1 : strstr(r, " - ");
    if (!sep)
        goto cut;
    type = sep + 3;
    end = strchr(type, ' ');
    if (end)
        *end = '\0';
    else if (!whole)
        goto cut;
    for (k = 0; k < sizeof kernel_fs / sizeof kernel_fs[0]; k++)
        if (strcmp(type, kernel_fs[k]) == 0)
            break;
    if (k == sizeof kernel_fs / sizeof kernel_fs[0])
        return 0;
    for (r = w = f[4]; *r; w++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
            r[3] >= '0' && r[3] <= '7') {
            *w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 4;
        } else {
            *w = *r++;
        }
    }
    *w = '\0';
    /* /proc itself: through the paths made read-only (apply) or required
     * so (check). Read-only already: whatever is beneath has its own line
     * (after apply: all of /sys and the /proc directories). */
    /* Only the proc "/proc" resolves to: one stacked beneath it is another
     * proc, reached from a working directory inside it (review r45 F1). */
    if (f[4][0] != '/' ||
        (strcmp(f[4], "/proc") == 0 && strcmp(type, "proc") == 0 && id == ids->proc_id) ||
        strncmp(f[5], "rw", 2) != 0 || (f[5][2] != ',' && f[5][2] != '\0'))
        return 0;
    /* A check leaves it to no namespace: a mount since covered is still
     * reached through a working directory inside it (review r42 F1). */
    if (!apply) {
        if (!found[0])
            snprintf(found, found_size, "%s (%s)", f[4], type);
        return 1;
    }
    k = (size_t)read_only_by_path(f[4], f[0], sys_errno);
    if (k != 1)
        return (int)k; /* done, or failed */
    /* No path reaches it now: removed, covered by a later mount, or a
     * folder above it renamed (review r45 F2) or exchanged with another
     * (review r46 G1) since the table was read, by anyone who may write
     * there (a concurrent command did, and the proc in the project stayed
     * writable). Counted: kernel_mounts_read_only deals with it. */
    ids->gone++;
    return 0;
cut:
    if (whole)
        return 0; /* not a mount line: nothing to act on */
    /* Its type is past the part read: a path beyond PATH_MAX. */
    errno = ENAMETOOLONG;
    return fail(sys_errno);
}

/* Every other mount of a kernel file system read-only: a build root's proc
 * inside the project, a container's /host/sys (review r40 F3: the copy of
 * /proc/sys in the project wrote the host's kernel.domainname, and so could
 * core_pattern, in every mode). Read with read(2) into a buffer of its own:
 * no allocation on this path. */
/* A check's finding (1) is remembered, not returned, until the table has
 * been read whole and found to be this process's own. */
static int scan_line(char *line, int whole, int apply, char *found, size_t found_size,
                     struct mount_ids *ids, int *hit, int *sys_errno)
{
    int rc = kernel_mount_line(line, whole, apply, found, found_size, ids, sys_errno);
    if (rc == 1 && !apply) {
        *hit = 1;
        return 0;
    }
    return rc;
}

static int mount_id_of(int dirfd, const char *path, unsigned long long *id)
{
    struct statx st;
    if (syscall(SYS_statx, dirfd, path, AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
                STATX_MNT_ID, &st) != 0)
        return -1;
    if (!(st.stx_mask & STATX_MNT_ID)) {
        errno = ENOSYS;
        return -1;
    }
    *id = st.stx_mnt_id;
    return 0;
}

static int kernel_mounts_scan(int apply, char *found, size_t found_size, struct mount_ids *ids,
                              int *sys_errno)
{
    struct mount_ids own;
    int hit = 0;
    /* A line's start up to its type holds two paths of up to PATH_MAX, each
     * up to four times as long with \ooo escapes. */
    char buf[8 * PATH_MAX + 1024], *start, *nl;
    size_t have = 0, rest;
    ssize_t n;
    struct statfs fs;
    int rc = -1, skip = 0, fd = openat(AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);

    /* No table is no proof that none is mounted (review r43 F1: /proc
     * covered, or another pid namespace's, while a writable proc sat in the
     * project), nor is a table that is not proc's own (a copy in a tmpfs
     * over /proc). ENOENT and EMEDIUMTYPE name the two. */
    if (fd < 0)
        return fail(sys_errno);
    if (fstatfs(fd, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC) {
        close(fd);
        errno = EMEDIUMTYPE;
        return fail(sys_errno);
    }
    /* Nor one that is not this process's: another process's table bound
     * over ours lists another namespace (review r44 F2). Mount ids are
     * unique across namespaces, and ours must list the mount this file was
     * opened through. Where the kernel cannot say (before 5.8), nothing. */
    if (!ids) {
        memset(&own, 0, sizeof own);
        ids = &own;
    }
    if (ids->n < 3 && mount_id_of(fd, "", &ids->id[ids->n]) == 0)
        ids->n++;
    if (mount_id_of(AT_FDCWD, "/proc", &ids->proc_id) != 0)
        ids->proc_id = 0;
    for (;;) {
        n = read(fd, buf + have, sizeof buf - 1 - have);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = fail(sys_errno);
            break;
        }
        rc = 0;
        have += (size_t)n;
        buf[have] = '\0';
        start = buf;
        while ((nl = memchr(start, '\n', have - (size_t)(start - buf))) != NULL) {
            *nl = '\0';
            if (skip)
                skip = 0; /* the end of a line cut short, acted on already */
            else if ((rc = scan_line(start, 1, apply, found, found_size, ids, &hit,
                                     sys_errno)) != 0)
                goto out;
            start = nl + 1;
        }
        rest = have - (size_t)(start - buf);
        if (n == 0) {
            if (rest && !skip)
                rc = scan_line(start, 1, apply, found, found_size, ids, &hit, sys_errno);
            /* Judged once the whole table is read: a writable mount named
             * in another namespace's table may not exist in this one. */
            if (rc == 0 && ids->seen != (1u << ids->n) - 1) {
                if (found)
                    found[0] = '\0';
                errno = EXDEV; /* not this mount namespace's table, or not all of it */
                rc = fail(sys_errno);
            } else if (rc == 0) {
                rc = hit;
            }
            goto out;
        }
        if (rest == sizeof buf - 1) {
            /* One line longer than the buffer (a file system's options:
             * overlayfs lists its layers): its start is enough. */
            if (!skip && (rc = scan_line(start, 0, apply, found, found_size, ids, &hit,
                                         sys_errno)) != 0)
                goto out;
            skip = 1;
            rest = 0;
        }
        memmove(buf, start, rest);
        have = rest;
    }
out:
    close(fd);
    return rc;
}

/* Field `n` (0-based) of the mountinfo line [line, end): its start, its
 * length in *len; NULL past the last. */
static const char *mi_field(const char *line, const char *end, int n, size_t *len)
{
    const char *p = line, *q;
    for (;;) {
        q = memchr(p, ' ', (size_t)(end - p));
        if (!q)
            q = end;
        if (n-- == 0) {
            *len = (size_t)(q - p);
            return p;
        }
        if (q == end)
            return NULL;
        p = q + 1;
    }
}

/* The next line of the table [t, t + n) after [*p, *e) (from the first
 * when *p is NULL): 1 with it in [*p, *e), 0 past the last. */
static int mi_next(const char *t, size_t n, const char **p, const char **e)
{
    /* cppcheck-suppress uninitvar ; *e is read only after a first line set it */
    const char *s = *p ? *e + 1 : t;
    if (s >= t + n)
        return 0;
    *p = s;
    *e = memchr(s, '\n', (size_t)(t + n - s));
    if (!*e)
        *e = t + n;
    return 1;
}

/* The line of mount `id` in the table [t, t + n), or NULL; *end its end. */
static const char *mi_line(const char *t, size_t n, unsigned long long id, const char **end)
{
    const char *p = NULL;
    char *num_end;
    while (mi_next(t, n, &p, end))
        if (strtoull(p, &num_end, 10) == id && *num_end == ' ')
            return p;
    return NULL;
}

static unsigned long long mi_num(const char *line, const char *end, int n)
{
    size_t len;
    const char *f = mi_field(line, end, n, &len);
    return f ? strtoull(f, NULL, 10) : 0;
}

/* The table read whole into memory of its own (no allocator: this runs
 * between fork and exec), for the proof above. */
#define SBX_MOUNTINFO_MAX (64u << 20)
static int mountinfo_whole(char **table, size_t *size, int *sys_errno)
{
    char *t = mmap(NULL, SBX_MOUNTINFO_MAX, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    size_t have = 0;
    ssize_t r;
    int fd;
    if (t == MAP_FAILED)
        return fail(sys_errno);
    fd = openat(AT_FDCWD, "/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        munmap(t, SBX_MOUNTINFO_MAX);
        return fail(sys_errno);
    }
    while (have < SBX_MOUNTINFO_MAX && (r = read(fd, t + have, SBX_MOUNTINFO_MAX - have)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            close(fd);
            munmap(t, SBX_MOUNTINFO_MAX);
            return fail(sys_errno);
        }
        have += (size_t)r;
    }
    close(fd);
    if (have == SBX_MOUNTINFO_MAX) {
        munmap(t, SBX_MOUNTINFO_MAX);
        errno = EFBIG;
        return fail(sys_errno);
    }
    *table = t;
    *size = have;
    return 0;
}

/* The mount point of a line, its \\ooo escapes undone, into `out`
 * (PATH_MAX); 0 if it does not fit. */
static int mi_path(const char *line, const char *end, char *out)
{
    size_t len, i, o = 0;
    const char *f = mi_field(line, end, 4, &len);
    if (!f || !len || f[0] != '/')
        return 0;
    for (i = 0; i < len && o < PATH_MAX - 1; o++) {
        if (f[i] == '\\' && i + 3 < len && f[i + 1] >= '0' && f[i + 1] <= '3' && f[i + 2] >= '0' &&
            f[i + 2] <= '7' && f[i + 3] >= '0' && f[i + 3] <= '7') {
            out[o] = (char)((f[i + 1] - '0') * 64 + (f[i + 2] - '0') * 8 + (f[i + 3] - '0'));
            i += 4;
        } else {
            out[o] = f[i++];
        }
    }
    out[o] = '\0';
    return i == len;
}

/* Whether a line's mount is writable; whether it is of a kernel file
 * system of kernel_fs. */
static int mi_writable(const char *line, const char *end)
{
    size_t len;
    const char *f = mi_field(line, end, 5, &len);
    return f && len >= 2 && f[0] == 'r' && f[1] == 'w' && (len == 2 || f[2] == ',');
}

/* The file system type of a line (after its " - "), its length in *len;
 * NULL when the line has none. */
static const char *mi_type(const char *line, const char *end, size_t *len)
{
    const char *sep = line, *type, *te;
    for (;;) {
        sep = memchr(sep, ' ', (size_t)(end - sep));
        if (!sep || end - sep < 3)
            return NULL;
        if (sep[1] == '-' && sep[2] == ' ')
            break;
        sep++;
    }
    type = sep + 3;
    te = memchr(type, ' ', (size_t)(end - type));
    *len = (size_t)((te ? te : end) - type);
    return type;
}

static int mi_kernel(const char *line, const char *end)
{
    size_t k, len = 0;
    const char *type = mi_type(line, end, &len);
    if (!type)
        return 0;
    for (k = 0; k < sizeof kernel_fs / sizeof kernel_fs[0]; k++)
        if (strlen(kernel_fs[k]) == len && memcmp(kernel_fs[k], type, len) == 0)
            return 1;
    return 0;
}

/* A descriptor on the root of mount `id` through `path`, or -1 when the
 * path does not reach it now (checked on the descriptor itself; errno
 * EXDEV), or cannot be opened or asked (that call's errno). */
static int mount_root_fd(const char *path, unsigned long long id)
{
    struct statx st;
    int e, fd = openat(AT_FDCWD, path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* The mount id only, from what is cached: a FUSE or NFS server that
     * does not answer would hang the launch here (review r49 H1). */
    if (syscall(SYS_statx, fd, "", AT_EMPTY_PATH | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
                STATX_MNT_ID, &st) != 0) {
        e = errno; /* EACCES: another user's FUSE mount */
        close(fd);
        errno = e;
        return -1;
    }
    if (!(st.stx_mask & STATX_MNT_ID) || st.stx_mnt_id != id ||
        !(st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
        !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
        close(fd);
        errno = EXDEV;
        return -1;
    }
    return fd;
}

/* Writable kernel mounts no path reached, twice: covered by a later mount,
 * or a folder above them renamed or exchanged all the while. Whether one is
 * covered cannot be told from the table (review r47: its lines are drawn
 * one at a time, a rename between two made a reachable proc look covered,
 * and a mount stacked in the chain was taken for a cover). So no verdict:
 * the nearest mount above it that a path does reach is made read-only with
 * everything beneath it (the kernel walks mounts, not names, so covered or
 * not it is reached), and then every mount that was writable and is no
 * kernel setting is made writable again, each through a descriptor checked
 * to be that mount. What a rename keeps out of reach stays read-only (a
 * concurrent renamer can make a launch's roots read-only, never a kernel
 * mount writable). Last, the table read anew must list no writable kernel
 * mount at all but the proc at /proc. */
/* The proc at /proc, exempt (the paths beneath it are made read-only). */
static int mi_proc_root(const char *line, const char *end, unsigned long long proc_id)
{
    size_t len;
    const char *f = mi_field(line, end, 4, &len);
    const char *sep = f ? memmem(f, (size_t)(end - f), " - proc ", 8) : NULL;
    return strtoull(line, NULL, 10) == proc_id && f && len == 5 && memcmp(f, "/proc", 5) == 0 &&
           sep;
}

/* Whether a line is a mount to make writable again: writable when listed,
 * and no kernel setting (or the proc at /proc). */
static int mi_restorable(const char *line, const char *end, unsigned long long proc_id)
{
    return mi_writable(line, end) && (!mi_kernel(line, end) || mi_proc_root(line, end, proc_id));
}

/* listmount's request, and the offsets of struct statmount's fields
 * (Linux 6.8): Debian 12's headers have neither. */
struct sbx_mnt_id_req {
    uint32_t size, spare;
    uint64_t mnt_id, param;
};
#define SBX_LSMT_ROOT 0xffffffffffffffffull
#define SBX_STATMOUNT_BASIC 0x3u /* STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC */
#define SBX_SM_MASK 8          /* __u64 mask */
#define SBX_SM_SB_MAGIC 24     /* __u64 sb_magic */
#define SBX_SM_MNT_PARENT 48   /* __u64 mnt_parent_id */
#define SBX_SM_MNT_ID_OLD 56   /* __u32 mnt_id_old, mountinfo's */
#define SBX_SM_MNT_ATTR 64     /* __u64 mnt_attr */

static uint64_t sm_u64(const unsigned char *sm, size_t off)
{
    uint64_t v;
    memcpy(&v, sm + off, sizeof v);
    return v;
}

static uint32_t sm_u32(const unsigned char *sm, size_t off)
{
    uint32_t v;
    memcpy(&v, sm + off, sizeof v);
    return v;
}

/* Every mount of this namespace by id (Linux 6.8+), not from the text
 * table: mountinfo leaves out a mount whose mount point was moved out of
 * its parent's root, by a rename through another mount of the same file
 * system (review r51 X1: a proc beneath a bind of a subfolder, its folder
 * moved out of the bind during the launch and back after, was never seen
 * and stayed writable). 0 counted; 1 when the kernel or a filter has no
 * listmount (the table is then all there is); -1 failed. */
static int ns_mounts(struct ns_count *c, int *sys_errno)
{
    uint64_t ids[256];
    struct sbx_mnt_id_req req = {sizeof req, 0, SBX_LSMT_ROOT, 0}, q;
    unsigned char sm[512]; /* struct statmount; the kernel writes what fits */
    long n, i;
    c->writable = c->kernel = 0;
    for (;;) {
        n = syscall(SYS_listmount, &req, ids, sizeof ids / sizeof ids[0], 0);
        if (n < 0 && req.param == 0 && (errno == ENOSYS || errno == EPERM))
            return 1;
        if (n < 0)
            return fail(sys_errno);
        for (i = 0; i < n; i++) {
            q.size = sizeof q;
            q.spare = 0;
            q.mnt_id = ids[i];
            q.param = SBX_STATMOUNT_BASIC;
            memset(sm, 0, sizeof sm);
            if (syscall(SYS_statmount, &q, sm, sizeof sm, 0) != 0) {
                if (errno == ENOSYS || errno == EPERM)
                    return 1; /* a filter that knows listmount only */
                return fail(sys_errno);
            }
            if ((sm_u64(sm, SBX_SM_MASK) & SBX_STATMOUNT_BASIC) != SBX_STATMOUNT_BASIC) {
                errno = EOPNOTSUPP;
                return fail(sys_errno);
            }
            if (sm_u64(sm, SBX_SM_MNT_ATTR) & MOUNT_ATTR_RDONLY)
                continue;
            c->writable++;
            /* By the mount's own flag, as the table's scan: a superblock
             * read-only now may be remounted writable from elsewhere. */
            if (kernel_magic((unsigned long)sm_u64(sm, SBX_SM_SB_MAGIC)) &&
                sm_u32(sm, SBX_SM_MNT_ID_OLD) != c->proc_id)
                c->kernel++;
        }
        if (n < (long)(sizeof ids / sizeof ids[0]))
            return 0;
        req.param = ids[n - 1];
    }
}

/* The unique id (Linux 6.8+) of the mount `fd`/`path` is on; 0 when the
 * kernel has none. */
static unsigned long long unique_mount_id(int fd, const char *path)
{
    struct statx st;
    memset(&st, 0, sizeof st);
    if (syscall(SYS_statx, fd, path, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
                SBX_STATX_MNT_ID_UNIQUE, &st) != 0 ||
        !(st.stx_mask & SBX_STATX_MNT_ID_UNIQUE))
        return 0;
    return st.stx_mnt_id;
}

/* listmount lists only the mounts a path from the root reaches. A mount
 * whose mount point was moved out of the root mount's root (a container's
 * "/" that is a bind of a directory rootfs; a folder above a proc renamed
 * out through the host's path) is in neither list, yet this namespace got
 * a copy of it, which a rename back during the run brings within reach,
 * writable (review r53 N2: `--no-network` wrote core_pattern). Every mount
 * of this namespace, reachable or not, is asked by id instead: after the
 * unshare they were copied in one go, so their ids run from the root
 * mount's on, up to a mount made now, and with CAP_SYS_ADMIN statmount
 * answers for every mount of the namespace (ENOENT: another namespace's
 * id). Any writable kernel file system below the root mount, other than
 * the proc at /proc, refuses the launch (ENOLINK): the launcher cannot
 * name it to make it read-only. The mounts listmount lists are among them:
 * this replaces its last count. 0 clean; 1 unknowable (before 6.8, or a
 * filter that refuses the calls); -1 refused or failed. A chroot into a
 * plain directory runs in a clone of its root (enter_root_clone), whose
 * root mount is what this sweeps below. */
static int unreached_kernel_mounts(unsigned long long proc_id, int *sys_errno)
{
    unsigned char sm[512]; /* struct statmount; the kernel writes what fits */
    struct sbx_mnt_id_req q;
    unsigned long long root, last, id, up;
    int fd;

    root = unique_mount_id(AT_FDCWD, "/");
    /* A mount made now: no id of this namespace's is above it (nothing
     * arrives from outside since the mounts became private). In a user
     * namespace "/" holds locked mounts, and only a recursive clone may be
     * taken (EINVAL): then one of /proc, a few mounts. */
    fd = (int)syscall(SYS_open_tree, AT_FDCWD, "/", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (fd < 0 && errno == EINVAL)
        fd = (int)syscall(SYS_open_tree, AT_FDCWD, "/proc",
                          OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (fd < 0)
        return errno == ENOSYS || errno == EPERM || errno == EINVAL || errno == ENOENT
                   ? 1
                   : fail(sys_errno);
    last = unique_mount_id(fd, "");
    close(fd);
    if (!root || !last || last <= root)
        return 1;
    for (id = root; id < last; id++) {
        q.size = sizeof q;
        q.spare = 0;
        q.mnt_id = id;
        q.param = SBX_STATMOUNT_BASIC;
        memset(sm, 0, sizeof sm);
        if (syscall(SYS_statmount, &q, sm, sizeof sm, 0) != 0) {
            if (errno == ENOENT)
                continue;
            if (errno == ENOSYS || errno == EPERM)
                return 1;
            return fail(sys_errno);
        }
        if ((sm_u64(sm, SBX_SM_MASK) & SBX_STATMOUNT_BASIC) != SBX_STATMOUNT_BASIC) {
            errno = EOPNOTSUPP;
            return fail(sys_errno);
        }
        if ((sm_u64(sm, SBX_SM_MNT_ATTR) & MOUNT_ATTR_RDONLY) ||
            !kernel_magic((unsigned long)sm_u64(sm, SBX_SM_SB_MAGIC)) ||
            sm_u32(sm, SBX_SM_MNT_ID_OLD) == proc_id)
            continue;
        /* The root mount, or below it: up its parents to it, however deep
         * (review r55 F1: a climb that gave up after 4,096 parents let a
         * proc under a stack of 4,200 mounts through). A parent's id is
         * below its child's here (the copy made parents first, and the
         * launcher's clones went onto older mounts): a chain that does not
         * fall, or a parent not found, is refused, never passed. */
        for (up = id; up >= root;) {
            if (up == root) {
                errno = ENOLINK;
                return fail(sys_errno);
            }
            q.mnt_id = up;
            memset(sm, 0, sizeof sm);
            if (syscall(SYS_statmount, &q, sm, sizeof sm, 0) != 0 ||
                sm_u64(sm, SBX_SM_MNT_PARENT) >= up) {
                errno = ENOLINK;
                return fail(sys_errno);
            }
            up = sm_u64(sm, SBX_SM_MNT_PARENT);
        }
    }
    return 0;
}

/* The mounts a restore round missed: their ids, sorted, each with its
 * line in the latest table (NULL: gone or restored) and a hash of the
 * mount point it had in the first table, and whether it has shown
 * another since (a rename above it). */
struct missed {
    unsigned long long *id, *mp;
    const char **line, **end;
    unsigned char *moved;
    size_t n;
};

static long missed_find(const struct missed *m, unsigned long long id)
{
    size_t lo = 0, hi = m->n, mid;
    while (lo < hi) {
        mid = lo + (hi - lo) / 2;
        if (m->id[mid] == id)
            return (long)mid;
        if (m->id[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

/* Shell sort, the mount point hashes alongside: qsort may allocate, and
 * this runs between fork and exec. */
static void missed_sort(struct missed *m)
{
    size_t gap, i, j;
    unsigned long long v, h;
    for (gap = m->n / 2; gap > 0; gap = gap == 2 ? 1 : gap * 5 / 11)
        for (i = gap; i < m->n; i++) {
            v = m->id[i];
            h = m->mp[i];
            for (j = i; j >= gap && m->id[j - gap] > v; j -= gap) {
                m->id[j] = m->id[j - gap];
                m->mp[j] = m->mp[j - gap];
            }
            m->id[j] = v;
            m->mp[j] = h;
        }
}

/* FNV-1a of a line's mount point field. */
static unsigned long long mi_mp_hash(const char *line, const char *end)
{
    size_t len = 0, i;
    const char *f = mi_field(line, end, 4, &len);
    unsigned long long h = 1469598103934665603ull;
    for (i = 0; f && i < len; i++)
        h = (h ^ (unsigned char)f[i]) * 1099511628211ull;
    return h;
}

/* Whether a line is another user's FUSE mount without allow_other: root
 * is refused there (EACCES) and cannot use it. Read from the mount's own
 * line, never from where a path walk was refused (review r50 E1: a
 * renamer swapped such a mount into a cache's path). */
static int mi_foreign_fuse(const char *line, const char *end)
{
    const char *type, *te, *src, *opt, *u;
    size_t tl = 0;
    type = mi_type(line, end, &tl);
    te = type ? type + tl : NULL;
    if (!te || te >= end)
        return 0;
    if (!((tl == 4 && memcmp(type, "fuse", 4) == 0) || (tl == 7 && memcmp(type, "fuseblk", 7) == 0) ||
          (tl > 5 && memcmp(type, "fuse.", 5) == 0)))
        return 0;
    src = te + 1;
    opt = memchr(src, ' ', (size_t)(end - src));
    if (!opt)
        return 0;
    opt++;
    if (memmem(opt, (size_t)(end - opt), "allow_other", 11))
        return 0;
    u = memmem(opt, (size_t)(end - opt), "user_id=", 8);
    return u && (u == opt || u[-1] == ',') && strtoull(u + 8, NULL, 10) != 0;
}

/* Makes the mount of line [l, e) writable again through its path, checked
 * to be that mount: 0 done or not to be tried (another user's FUSE mount
 * that refuses root, which root cannot use anyway); 1 missed; -1 failed. */
static int restore_one(const char *l, const char *e, unsigned long long id, int *sys_errno)
{
    uint64_t rw[4] = {0, MOUNT_ATTR_RDONLY, 0, 0};
    char path[PATH_MAX];
    int fd, rc = 0;
    if (!mi_path(l, e, path))
        return 1;
    fd = mount_root_fd(path, id);
    if (fd < 0)
        return errno == EACCES && mi_foreign_fuse(l, e) ? 0 : 1;
    if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH, rw, sizeof rw) != 0)
        rc = fail(sys_errno);
    close(fd);
    return rc;
}

/* The missed mounts' lines in the table [t, t + n), in one pass over it
 * (review r49 T1: a lookup per mount made each round cost n squared). A
 * mount point other than the first marks a mount moved. Gone or writable
 * already: no line. */
static void missed_lines(struct missed *m, const char *t, size_t n)
{
    const char *p = NULL, *e;
    size_t i;
    long at;
    for (i = 0; i < m->n; i++)
        m->line[i] = NULL;
    while (mi_next(t, n, &p, &e))
        if ((at = missed_find(m, strtoull(p, NULL, 10))) >= 0) {
            m->line[at] = p;
            m->end[at] = e;
            if (mi_mp_hash(p, e) != m->mp[at])
                m->moved[at] = 1;
        }
    /* No line: its mount point moved out of its parent's root (no one
     * else unmounts in this private namespace): a miss, and moved
     * (review r51 X2: taken as gone, a cache stayed read-only). */
    for (i = 0; i < m->n; i++)
        if (!m->line[i])
            m->moved[i] = 1;
}

/* One more try for each missed mount; those missed again stay. */
static int restore_round(struct missed *m, const char *t, size_t n, int *sys_errno)
{
    size_t i, k;
    int r;
    missed_lines(m, t, n);
    for (i = 0, k = 0; i < m->n; i++) {
        r = !m->line[i]                           ? 1
            : mi_writable(m->line[i], m->end[i]) ? 0
                                                  : restore_one(m->line[i], m->end[i], m->id[i], sys_errno);
        if (r < 0)
            return -1;
        if (r > 0) {
            m->id[k] = m->id[i];
            m->mp[k] = m->mp[i];
            m->moved[k++] = m->moved[i];
        }
    }
    m->n = k;
    return 0;
}

/* Whether mount point field [y, y + yl) is [z, z + zl) or a folder above it. */
static int mp_above(const char *y, size_t yl, const char *z, size_t zl)
{
    if (yl == zl)
        return memcmp(y, z, yl) == 0;
    return yl < zl && (yl == 1 ? y[0] == '/' : memcmp(y, z, yl) == 0 && z[yl] == '/');
}

/* Whether the table shows the mount of line [l, e) out of every path's
 * reach: it, or a mount it hangs from, has a mount on its root at the
 * same place, or a sibling mounted on the same folder or one above it (a
 * build root's /dev/shm under a tmpfs over the root: review r50 W1). Drawn
 * from names, line by line: asked only of a mount whose own mount point
 * stayed the same through every read (review r50 C2: a rename between
 * two lines made a reachable cache read as stacked). */
static int mi_hidden(const char *t, size_t n, const char *l, const char *e)
{
    const char *p, *pe, *z, *y;
    size_t zl = 0, yl = 0;
    unsigned long long zid, zpar;
    int depth;
    for (depth = 0; depth < 64; depth++) {
        zid = strtoull(l, NULL, 10);
        zpar = mi_num(l, e, 1);
        z = mi_field(l, e, 4, &zl);
        if (!z)
            return 0;
        for (p = NULL; mi_next(t, n, &p, &pe);) {
            unsigned long long ypar = mi_num(p, pe, 1);
            if (p == l || (ypar != zid && ypar != zpar))
                continue;
            y = mi_field(p, pe, 4, &yl);
            if (y && (ypar == zid ? yl == zl && memcmp(y, z, zl) == 0 : mp_above(y, yl, z, zl)))
                return 1;
        }
        if (zpar == zid || !(l = mi_line(t, n, zpar, &e)))
            return 0;
    }
    return 0;
}

static int unreached_read_only(unsigned long long proc_id, int *sys_errno)
{
    uint64_t ro[4] = SBX_MOUNT_ATTR_READ_ONLY;
    char path[PATH_MAX], *t, *now;
    const char *p, *e, *cl, *ce;
    size_t n, n_now, cap, size, i;
    unsigned long long c;
    struct ns_count nc;
    struct missed m;
    int fd, depth, rc = 0, round, r;

    if (mountinfo_whole(&t, &n, sys_errno) != 0)
        return -1;
    /* Every writable mount is to be made writable again by its line: one
     * the table leaves out would stay read-only, silently (review r51 X2).
     * Mounts change here only by this process's hand; names do not. */
    memset(&nc, 0, sizeof nc);
    nc.proc_id = proc_id;
    r = ns_mounts(&nc, sys_errno);
    if (r < 0) {
        munmap(t, SBX_MOUNTINFO_MAX);
        return -1;
    }
    if (r == 0) {
        cap = 0;
        for (p = NULL; mi_next(t, n, &p, &e);)
            cap += mi_writable(p, e);
        if (cap != nc.writable) {
            munmap(t, SBX_MOUNTINFO_MAX);
            errno = EAGAIN;
            return fail(sys_errno);
        }
    }
    for (p = NULL; rc == 0 && mi_next(t, n, &p, &e);) {
        if (!mi_kernel(p, e) || !mi_writable(p, e) || mi_proc_root(p, e, proc_id))
            continue;
        /* Up its chain of parents to one a path reaches. */
        for (depth = 0, c = mi_num(p, e, 1), fd = -1; depth < 64 && fd < 0; depth++) {
            cl = mi_line(t, n, c, &ce);
            if (!cl || !mi_path(cl, ce, path))
                break;
            fd = mount_root_fd(path, c);
            if (fd < 0) {
                if (mi_num(cl, ce, 1) == c)
                    break;
                c = mi_num(cl, ce, 1);
            }
        }
        if (fd >= 0) {
            if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, ro, sizeof ro) != 0)
                rc = fail(sys_errno);
            close(fd);
        } else {
            /* The chain leaves the table: a chroot, whose own mount is not
             * listed and cannot be made writable again from inside
             * (review r48 C1: making all read-only from the namespace's
             * root left the chroot's project read-only). Refused, saying
             * so: such a mount is seen from outside the chroot only. */
            errno = ENXIO;
            rc = fail(sys_errno);
        }
    }
    /* Writable again: what was writable and is no kernel setting, each
     * through a descriptor checked to be that mount. A path a rename made
     * miss is tried again from a new read of the table (review r48 D1, D2:
     * a cache in the project and a host mount elsewhere stayed read-only,
     * silently, beside a build renaming folders), only those (r49 T1). One
     * still missed after sixteen reads, and not shown covered, would stay
     * read-only where the host had it writable: refused, not run with it
     * silently read-only (r49 R1). */
    cap = 0;
    for (p = NULL; mi_next(t, n, &p, &e);)
        cap += mi_restorable(p, e, proc_id);
    size = cap * (2 * sizeof *m.id + 2 * sizeof *m.line + 1);
    memset(&m, 0, sizeof m);
    m.id = cap ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
               : NULL;
    if (m.id == MAP_FAILED) {
        munmap(t, SBX_MOUNTINFO_MAX);
        return fail(sys_errno);
    }
    m.mp = m.id + cap;
    m.line = (const char **)(m.mp + cap);
    m.end = m.line + cap;
    m.moved = (unsigned char *)(m.end + cap);
    for (p = NULL; rc == 0 && mi_next(t, n, &p, &e);) {
        if (!mi_restorable(p, e, proc_id))
            continue;
        c = strtoull(p, NULL, 10);
        r = restore_one(p, e, c, sys_errno);
        if (r < 0)
            rc = -1;
        else if (r > 0) {
            m.mp[m.n] = mi_mp_hash(p, e);
            m.id[m.n++] = c;
        }
    }
    munmap(t, SBX_MOUNTINFO_MAX);
    missed_sort(&m);
    /* Every round runs while any is missed, even one that looks covered:
     * a covered mount's mount point stays the same through sixteen reads,
     * a renamed one's does not. */
    for (round = 1; rc == 0 && m.n && round < 16; round++) {
        if (mountinfo_whole(&now, &n_now, sys_errno) != 0) {
            rc = -1;
            break;
        }
        rc = restore_round(&m, now, n_now, sys_errno);
        munmap(now, SBX_MOUNTINFO_MAX);
    }
    /* Still missed: it stays read-only only when its mount point never
     * changed and the last table shows it out of every path's reach;
     * anything else is a renamer at work, and refused. */
    if (rc == 0 && m.n) {
        if (mountinfo_whole(&now, &n_now, sys_errno) != 0) {
            rc = -1;
        } else {
            missed_lines(&m, now, n_now);
            for (i = 0; rc == 0 && i < m.n; i++)
                if (!m.line[i] || m.moved[i] || !mi_hidden(now, n_now, m.line[i], m.end[i])) {
                    errno = EAGAIN;
                    rc = fail(sys_errno);
                }
            munmap(now, SBX_MOUNTINFO_MAX);
        }
    }
    if (cap)
        munmap(m.id, size);
    if (rc != 0)
        return rc;
    /* Last: no writable kernel mount but the proc at /proc. */
    if (mountinfo_whole(&t, &n, sys_errno) != 0)
        return -1;
    for (p = NULL; rc == 0 && mi_next(t, n, &p, &e);)
        if (mi_kernel(p, e) && mi_writable(p, e) && !mi_proc_root(p, e, proc_id)) {
            errno = ESTALE;
            rc = fail(sys_errno);
        }
    munmap(t, SBX_MOUNTINFO_MAX);
    return rc;
}

static int kernel_mounts_read_only(int *sys_errno)
{
    struct mount_ids ids, again;
    struct ns_count nc;
    int r;
    memset(&ids, 0, sizeof ids);
    memset(&again, 0, sizeof again);
    if (kernel_mounts_scan(1, NULL, 0, &ids, sys_errno) != 0)
        return -1;
    /* One no path reached: once more, from a new read (a folder renamed
     * back meanwhile), then what is still unreached. */
    if (ids.gone) {
        if (kernel_mounts_scan(1, NULL, 0, &again, sys_errno) != 0)
            return -1;
        if (again.gone && unreached_read_only(again.proc_id, sys_errno) != 0)
            return -1;
        ids.proc_id = again.proc_id;
    }
    /* Last, by mount id: no kernel setting writable but the proc at /proc,
     * the mounts the table leaves out included (review r51 X1), and those
     * no path from the root reaches (r53 N2). */
    r = unreached_kernel_mounts(ids.proc_id, sys_errno);
    if (r <= 0)
        return r;
    memset(&nc, 0, sizeof nc);
    nc.proc_id = ids.proc_id;
    r = ns_mounts(&nc, sys_errno);
    if (r < 0)
        return -1;
    if (r == 0 && nc.kernel) {
        errno = ENOLINK;
        return fail(sys_errno);
    }
    return 0;
}

/* The kernel file systems of kernel_fs, by statfs's magic number. */
static int kernel_magic(unsigned long t)
{
    static const unsigned long magic[] = {
        PROC_SUPER_MAGIC, SYSFS_MAGIC,     SECURITYFS_MAGIC, DEBUGFS_MAGIC,
        TRACEFS_MAGIC,    0x62656570 /* configfs */, CGROUP_SUPER_MAGIC, CGROUP2_SUPER_MAGIC,
        BPF_FS_MAGIC,     PSTOREFS_MAGIC,  EFIVARFS_MAGIC,   BINFMTFS_MAGIC,
        0x65735543 /* fusectl */, SELINUX_MAGIC, SMACK_MAGIC, 0x6e667364 /* nfsd */,
        0x67596969 /* rpc_pipefs */, RDTGROUP_SUPER_MAGIC, XENFS_SUPER_MAGIC};
    size_t i;
    for (i = 0; i < sizeof magic / sizeof magic[0]; i++)
        if (t == magic[i])
            return 1;
    return 0;
}

/* Whether an open file is on a writable mount of a kernel file system. */
static int kernel_writable(int fd)
{
    struct statfs fs;
    struct statvfs vfs;
    return fstatfs(fd, &fs) == 0 && kernel_magic((unsigned long)fs.f_type) &&
           fstatvfs(fd, &vfs) == 0 && !(vfs.f_flag & ST_RDONLY);
}

/* An inherited descriptor: 1 on a writable kernel file system, 2 a
 * directory or O_PATH (relative names from it reach whatever namespace it
 * was opened in: review r44 F1), as fd + 1 in the low bits. */
static int nosa_visit(int fd, void *ctx)
{
    struct stat st;
    int fl = fcntl(fd, F_GETFD), *kind = ctx, fm;
    if (fl < 0 || (fl & FD_CLOEXEC))
        return 0;
    fm = fcntl(fd, F_GETFL);
    if (kernel_writable(fd))
        *kind = 1;
    else if ((fm >= 0 && (fm & O_PATH)) || (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)))
        *kind = 2;
    else
        return 0;
    return fd + 1;
}

int sbx_rootfs_nosa_check(int *which)
{
    struct mount_ids ids = {{0}, 0, 0, 0, 0};
    char other[PATH_MAX + 32] = "";
    int fd, hit = -1, n, kind = 0, e = 0;
    static const char *const dirs[] = {".", "/"};
    size_t i;
    for (i = 0; hit < 0 && i < sizeof dirs / sizeof dirs[0]; i++) {
        fd = openat(AT_FDCWD, dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0 && kernel_writable(fd))
            hit = (int)i;
        if (fd >= 0)
            close(fd);
    }
    if (hit >= 0) {
        *which = -1 - hit;
        return 1;
    }
    /* The working directory and the root on mounts of this namespace's
     * table, which the plan's check found read-only (a directory of
     * another namespace, entered by setns or through /proc/PID/root, would
     * reach its mounts: review r44 F1); the table read again, here. */
    for (i = 0; i < 2; i++)
        if (mount_id_of(AT_FDCWD, dirs[i], &ids.id[ids.n]) == 0)
            ids.n++;
    if (kernel_mounts_scan(0, other, sizeof other, &ids, &e) != 0) {
        *which = other[0] ? EBUSY : e;
        return other[0] ? 4 : 3;
    }
    /* The mounts the table leaves out too (review r52 X3). */
    {
        struct ns_count nc;
        int r;
        memset(&nc, 0, sizeof nc);
        nc.proc_id = ids.proc_id;
        r = ns_mounts(&nc, &e);
        if (r < 0) {
            *which = e;
            return 3;
        }
        if (r == 0 && nc.kernel) {
            *which = ENOLINK;
            return 4;
        }
    }
    n = sbx_fd_each(0, nosa_visit, &kind);
    if (n > 0) {
        *which = n - 1;
        return kind;
    }
    return 0;
}

int sbx_rootfs_apply(int bind_nodes, const struct sbx_keep_tree *keep, size_t n_keep,
                     int *sys_errno)
{
    uint64_t attr[4] = SBX_MOUNT_ATTR_READ_ONLY;
    size_t i;

    *sys_errno = 0;
    if (unshare(CLONE_NEWNS) != 0)
        return fail(sys_errno);
    /* Before any mount: nothing done below may propagate back to the host,
     * and nothing the host mounts later arrives here: it would come with its
     * own flags, writable and with devices opening (a proc with core_pattern,
     * a devtmpfs, a binfmt_misc beneath /proc/sys: reviews of issue 17 F3 and
     * r41 F2). EINVAL: "/" is not a mount point (a chroot). */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        if (errno != EINVAL)
            return fail(sys_errno);
        if (namespace_private_from_root(sys_errno) != 0 || enter_root_clone(sys_errno) != 0)
            return -1;
    }
    if (harden_mounts(keep, n_keep, sys_errno) != 0)
        return -1;
    /* /sys is a mount point already: EINVAL means it is not (no sysfs there). */
    if (syscall(SYS_mount_setattr, AT_FDCWD, "/sys", AT_RECURSIVE, attr, sizeof attr) != 0 &&
        errno != ENOENT && errno != EINVAL)
        return fail(sys_errno);
    /* Before the binds of /proc's paths below: they would cover what is
     * mounted beneath them (a binfmt_misc beneath /proc/sys on systemd's
     * hosts), which no path would then reach (review r48). */
    if (kernel_mounts_read_only(sys_errno) != 0)
        return -2;
    for (i = 0; i < sizeof proc_ro / sizeof proc_ro[0]; i++)
        if (bind_read_only(proc_ro[i], sys_errno) != 0)
            return -1;
    if (proc_dirs_read_only(sys_errno) != 0)
        return -1;
    if (narrow_dev(bind_nodes, sys_errno) != 0)
        return -1;
    return reenter_cwd(sys_errno);
}

int sbx_rootfs_nodev_but_dev(int *sys_errno)
{
    uint64_t dev[4] = SBX_MOUNT_ATTR_DEV;
    struct statx st;

    *sys_errno = 0;
    /* /dev keeps its devices only if it is a mount of its own: a plain
     * directory of "/" (a chroot's) is made one first, a bind onto itself. */
    if (syscall(SYS_statx, AT_FDCWD, "/dev", AT_SYMLINK_NOFOLLOW, 0, &st) == 0 &&
        S_ISDIR(st.stx_mode) && (st.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) &&
        !(st.stx_attributes & STATX_ATTR_MOUNT_ROOT)) {
        int tree = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev",
                                OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
        if (tree < 0)
            return fail(sys_errno);
        if (syscall(SYS_move_mount, tree, "", AT_FDCWD, "/dev", MOVE_MOUNT_F_EMPTY_PATH) != 0) {
            fail(sys_errno);
            close(tree);
            return -1;
        }
        close(tree);
    }
    if (nodev_from_root(sys_errno) != 0) {
        /* "/" is no mount point (a chroot into a plain directory): the
         * mount that holds it cannot be reached from here; nodev is not
         * applied (docs/threat-model.md), the masks still are. */
        if (*sys_errno != EINVAL)
            return -1;
        *sys_errno = 0;
        return 0;
    }
    /* Not recursive: /dev/shm and the like stay nodev; its devpts is about
     * to be covered by the command's own instance. */
    if (syscall(SYS_mount_setattr, AT_FDCWD, "/dev", 0, dev, sizeof dev) != 0 && errno != ENOENT &&
        errno != EPERM /* nodev on the host already, locked: it stays so */)
        return fail(sys_errno);
    return 0;
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

/* The character majors the kernel gave macvtap and ipvtap, from the
 * "Character devices:" part of /proc/devices ("246 macvtap"); none when
 * neither module is loaded, and then no node of theirs can open. */
static size_t tap_majors(unsigned *maj, size_t cap)
{
    char buf[4096];
    size_t len = 0, n = 0;
    ssize_t got;
    const char *line, *next = NULL;
    int fd = openat(AT_FDCWD, "/proc/devices", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    while (len < sizeof buf - 1 && (got = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += (size_t)got;
    close(fd);
    buf[len] = 0;
    for (line = buf; *line && n < cap; line = next ? next + 1 : line + strlen(line)) {
        unsigned m = 0;
        const char *c = line;
        next = strchr(line, '\n');
        if (strncmp(line, "Block devices:", 14) == 0)
            break;
        while (*c == ' ')
            c++;
        if (*c < '0' || *c > '9')
            continue;
        while (*c >= '0' && *c <= '9')
            m = m * 10 + (unsigned)(*c++ - '0');
        if (strncmp(c, " macvtap\n", 9) == 0 || strncmp(c, " ipvtap\n", 8) == 0)
            maj[n++] = m;
    }
    return n;
}

struct tap_scan {
    unsigned maj[2];
    size_t n_maj;
    int found;
    char *first;
    size_t first_size;
};

/* Every character device below `dir` (the path `path`, `depth` levels
 * left) with one of the majors and that this process may open. Symlinks
 * are not followed: their targets are in /dev too. pts holds only ptys. */
static void find_taps(int dir, const char *path, int depth, struct tap_scan *t)
{
    struct dirent *de;
    DIR *d = fdopendir(dir);

    if (!d) {
        close(dir);
        return;
    }
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        size_t k;
        int hit = 0;
        if (de->d_name[0] == '.' || de->d_type == DT_LNK ||
            (depth == 3 && strcmp(de->d_name, "pts") == 0))
            continue;
        if (de->d_type == DT_DIR && depth > 0) {
            char sub[PATH_MAX];
            int fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd >= 0 && (size_t)snprintf(sub, sizeof sub, "%s/%s", path, de->d_name) < sizeof sub)
                find_taps(fd, sub, depth - 1, t);
            else if (fd >= 0)
                close(fd);
            continue;
        }
        if ((de->d_type != DT_CHR && de->d_type != DT_UNKNOWN) ||
            fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISCHR(st.st_mode))
            continue;
        for (k = 0; k < t->n_maj; k++)
            hit |= major(st.st_rdev) == t->maj[k];
        /* Either way is the network: write sends frames, read receives them. */
        if (!hit || (faccessat(dirfd(d), de->d_name, R_OK, AT_EACCESS) != 0 &&
                     faccessat(dirfd(d), de->d_name, W_OK, AT_EACCESS) != 0))
            continue;
        if (t->found++ == 0)
            snprintf(t->first, t->first_size, "%s/%s", path, de->d_name);
    }
    closedir(d);
}

int sbx_rootfs_openable_taps(char *first, size_t first_size)
{
    struct tap_scan t;
    int dir;

    first[0] = 0;
    memset(&t, 0, sizeof t);
    t.first = first;
    t.first_size = first_size;
    /* By device number, not by name: devtmpfs calls a node tap<ifindex>,
     * but root may make one under any name (mknod, a udev rule). Nothing to
     * look for, and no directory walk, while neither module is loaded. */
    t.n_maj = tap_majors(t.maj, sizeof t.maj / sizeof t.maj[0]);
    if (t.n_maj == 0)
        return 0;
    dir = openat(AT_FDCWD, "/dev", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0)
        find_taps(dir, "/dev", 3, &t);
    return t.found;
}
