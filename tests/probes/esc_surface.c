/* Probe: the kernel surfaces of issue 17, one route each.
 *   esc_surface rewrite PATH      read PATH, write the same bytes back (sysctl, /sys)
 *   esc_surface rofs PATH         "ro" or "rw": the mount PATH is on
 *   esc_surface blkread PATH      read 512 bytes of a block device
 *   esc_surface loopctl FD        LOOP_CTL_GET_FREE on an inherited /dev/loop-control
 *   esc_surface loopcap FD        LOOP_SET_CAPACITY on an inherited loop device
 *   esc_surface tunattach NAME [FD]  TUNSETIFF to an existing tun device (FD: inherited)
 *   esc_surface tapwrite PATH     one broadcast Ethernet frame (after macvtap's 10-byte
 *                                 virtio-net header) written to a macvtap/ipvtap node
 *   esc_surface core              RLIMIT_CORE "core=SOFT/HARD", setrlimit to 0 (which must
 *                                 succeed), then "after=SOFT/HARD"
 *   esc_surface keyring           add_key to the user keyring (then unlink it)
 *   esc_surface ns-open-tree      unshare(USER|NS), then open_tree(OPEN_TREE_CLONE) of "/"
 *   esc_surface ns-fsopen         unshare(USER|NS), then fsopen("tmpfs")
 *   esc_surface userns            unshare(CLONE_NEWUSER) alone
 *   esc_surface other PID WHAT    WHAT = prlimit | renice | taskset | chrt | ionice on PID,
 *                                 each setting the value PID already has
 *   esc_surface deny NR ERRNO CMD...  run CMD under a filter failing syscall NR with ERRNO
 *   esc_surface fioasync | fionread   FIOASYNC(0) / FIONREAD on fd 0 (a pipe): a request
 *                                 off read-only's ioctl allowlist, and one on it
 *   esc_surface fusehang DIR [UID]  mount a FUSE file system on DIR whose server never
 *                                 answers (a hung NFS or sshfs server), print "mounted",
 *                                 then wait until killed; with UID, owned by that user
 *                                 and without allow_other (root is refused there: EACCES)
 *   esc_surface exchange DIR A B  swap DIR/A and DIR/B (RENAME_EXCHANGE) as fast as it can,
 *                                 until killed: a racer no script loop matches
 * Exit 0: succeeded; 1: refused (errno printed); 2: not available here. */
#define _GNU_SOURCE
#include "esc_common.h"

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/loop.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_open_tree
#  define SYS_open_tree 428
#endif
#ifndef SYS_fsopen
#  define SYS_fsopen 430
#endif

static int report(const char *what, long rc)
{
    int e = errno;
    if (rc < 0 && e == EROFS) {
        printf("%s: refused EROFS (%s)\n", what, strerror(e));
        return 1;
    }
    return esc_report(what, rc, e);
}

static int rewrite(const char *path)
{
    char buf[4096];
    ssize_t n;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return report("open for reading", -1);
    n = read(fd, buf, sizeof buf);
    close(fd);
    if (n <= 0)
        return report("read", -1);
    fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return report("open for writing", -1);
    n = write(fd, buf, (size_t)n);
    close(fd);
    return report("write back", n);
}

/* A new user and mount namespace. The id maps are best effort: a confined
 * command may not write them, and it holds every capability there anyway. */
static int in_userns(void)
{
    char map[64];
    int fd, uid = (int)getuid(), gid = (int)getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return report("unshare(USER|NS)", -1);
    fd = open("/proc/self/setgroups", O_WRONLY);
    if (fd >= 0) {
        (void)!write(fd, "deny", 4);
        close(fd);
    }
    snprintf(map, sizeof map, "0 %d 1", uid);
    if ((fd = open("/proc/self/uid_map", O_WRONLY)) >= 0) {
        (void)!write(fd, map, strlen(map));
        close(fd);
    }
    snprintf(map, sizeof map, "0 %d 1", gid);
    if ((fd = open("/proc/self/gid_map", O_WRONLY)) >= 0) {
        (void)!write(fd, map, strlen(map));
        close(fd);
    }
    return 0;
}

static int other(pid_t pid, const char *what)
{
    if (strcmp(what, "prlimit") == 0) {
        struct rlimit cur;
        if (prlimit(pid, RLIMIT_CPU, NULL, &cur) != 0)
            return report("prlimit get", -1);
        ESC_RETURN("prlimit set", prlimit(pid, RLIMIT_CPU, &cur, NULL));
    }
    if (strcmp(what, "renice") == 0) {
        int prio;
        errno = 0;
        prio = getpriority(PRIO_PROCESS, (id_t)pid);
        if (prio == -1 && errno)
            return report("getpriority", -1);
        ESC_RETURN("setpriority", setpriority(PRIO_PROCESS, (id_t)pid, prio));
    }
    if (strcmp(what, "taskset") == 0) {
        cpu_set_t set;
        if (sched_getaffinity(pid, sizeof set, &set) != 0)
            return report("sched_getaffinity", -1);
        ESC_RETURN("sched_setaffinity", sched_setaffinity(pid, sizeof set, &set));
    }
    if (strcmp(what, "chrt") == 0) {
        struct sched_param sp;
        int pol = sched_getscheduler(pid);
        if (pol < 0 || sched_getparam(pid, &sp) != 0)
            return report("sched_getscheduler", -1);
        ESC_RETURN("sched_setscheduler", sched_setscheduler(pid, pol, &sp));
    }
    if (strcmp(what, "ionice") == 0) {
        long prio = syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, pid);
        if (prio < 0)
            return report("ioprio_get", -1);
        ESC_RETURN("ioprio_set", syscall(SYS_ioprio_set, 1, pid, prio));
    }
    return esc_usage("esc_surface other PID prlimit|renice|taskset|chrt|ionice");
}

static int deny(long nr, int e, char **cmd)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)e & 0xffff)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
        return report("seccomp", -1);
    execvp(cmd[0], cmd);
    return report("exec", -1);
}

int main(int argc, char **argv)
{
    const char *w = argc >= 2 ? argv[1] : "";
    if (strcmp(w, "rewrite") == 0 && argc == 3)
        return rewrite(argv[2]);
    if (strcmp(w, "rofs") == 0 && argc == 3) {
        struct statvfs st;
        if (statvfs(argv[2], &st) != 0)
            return report("statvfs", -1);
        printf("%s\n", st.f_flag & ST_RDONLY ? "ro" : "rw");
        return 0;
    }
    if (strcmp(w, "exchange") == 0 && argc == 5) {
        if (chdir(argv[2]) != 0)
            return report("chdir", -1);
        for (;;)
            if (syscall(SYS_renameat2, AT_FDCWD, argv[3], AT_FDCWD, argv[4], 2 /* EXCHANGE */) != 0)
                return report("renameat2", -1);
    }
    if (strcmp(w, "fusehang") == 0 && (argc == 3 || argc == 4)) {
        char opts[128];
        int fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            printf("open /dev/fuse: %s\n", strerror(errno));
            return 2;
        }
        snprintf(opts, sizeof opts, "fd=%d,rootmode=40755,user_id=%s,group_id=0%s", fd,
                 argc == 4 ? argv[3] : "0", argc == 4 ? "" : ",allow_other");
        if (mount("hung", argv[2], "fuse.hung", 0, opts) != 0) {
            printf("mount fuse: %s\n", strerror(errno));
            return 2;
        }
        printf("mounted\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    if (strcmp(w, "blkread") == 0 && argc == 3) {
        char buf[512];
        int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return report("open", -1);
        ESC_RETURN("read", read(fd, buf, sizeof buf));
    }
    if (strcmp(w, "loopctl") == 0 && argc == 3)
        ESC_RETURN("LOOP_CTL_GET_FREE", ioctl(atoi(argv[2]), LOOP_CTL_GET_FREE));
    if (strcmp(w, "loopcap") == 0 && argc == 3)
        ESC_RETURN("LOOP_SET_CAPACITY", ioctl(atoi(argv[2]), LOOP_SET_CAPACITY, 0));
    if (strcmp(w, "tunattach") == 0 && (argc == 3 || argc == 4)) {
        struct ifreq ifr;
        int fd = argc == 4 ? atoi(argv[3]) : open("/dev/net/tun", O_RDWR | O_CLOEXEC);
        if (fd < 0)
            return report("open /dev/net/tun", -1);
        memset(&ifr, 0, sizeof ifr);
        ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", argv[2]);
        ESC_RETURN("TUNSETIFF", ioctl(fd, TUNSETIFF, &ifr));
    }
    if (strcmp(w, "tapwrite") == 0 && argc == 3) {
        /* virtio_net_hdr (all zero: no offload), then dst ff:ff..., src
         * 02:00:00:00:00:01 (locally administered), type ARP, 28 zero bytes. */
        unsigned char frame[10 + 14 + 28] = {0};
        int fd = open(argv[2], O_RDWR | O_CLOEXEC);
        if (fd < 0)
            return report("open", -1);
        memset(frame + 10, 0xff, 6);
        frame[16] = 0x02;
        frame[21] = 0x01;
        frame[22] = 0x08;
        frame[23] = 0x06;
        ESC_RETURN("write frame", write(fd, frame, sizeof frame));
    }
    if (strcmp(w, "core") == 0) {
        struct rlimit r, zero = {0, 0};
        if (getrlimit(RLIMIT_CORE, &r) != 0)
            return report("getrlimit", -1);
        printf("core=%llu/%llu\n", (unsigned long long)r.rlim_cur,
               (unsigned long long)r.rlim_max);
        if (setrlimit(RLIMIT_CORE, &zero) != 0)
            return report("setrlimit(RLIMIT_CORE, 0)", -1);
        if (getrlimit(RLIMIT_CORE, &r) != 0)
            return report("getrlimit", -1);
        printf("after=%llu/%llu\n", (unsigned long long)r.rlim_cur,
               (unsigned long long)r.rlim_max);
        return 0;
    }
    if (strcmp(w, "keyring") == 0) {
        long k = syscall(SYS_add_key, "user", "sbx-escape-probe", "x", 1, -4 /* user keyring */);
        int e = errno;
        if (k >= 0)
            syscall(SYS_keyctl, 9 /* KEYCTL_UNLINK */, k, -4);
        errno = e;
        return report("add_key", k);
    }
    if (strcmp(w, "ns-open-tree") == 0) {
        int rc = in_userns();
        if (rc)
            return rc;
        ESC_RETURN("open_tree", syscall(SYS_open_tree, AT_FDCWD, "/",
                                           1 /* OPEN_TREE_CLONE */ | AT_RECURSIVE));
    }
    if (strcmp(w, "ns-fsopen") == 0) {
        int rc = in_userns();
        if (rc)
            return rc;
        ESC_RETURN("fsopen", syscall(SYS_fsopen, "tmpfs", 0));
    }
    if (strcmp(w, "userns") == 0)
        ESC_RETURN("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
    if (strcmp(w, "other") == 0 && argc == 4)
        return other((pid_t)atoi(argv[2]), argv[3]);
    if (strcmp(w, "fioasync") == 0) {
        int off = 0;
        ESC_RETURN("FIOASYNC", ioctl(0, FIOASYNC, &off));
    }
    if (strcmp(w, "fionread") == 0) {
        int n = 0;
        ESC_RETURN("FIONREAD", ioctl(0, FIONREAD, &n));
    }
    if (strcmp(w, "deny") == 0 && argc >= 5)
        return deny(atol(argv[2]), atoi(argv[3]), argv + 4);
    return esc_usage("esc_surface rewrite|rofs|blkread|loopctl|loopcap|tunattach|tapwrite|core|keyring|"
                     "ns-open-tree|ns-fsopen|userns|other|deny|fioasync|fionread ...");
}
