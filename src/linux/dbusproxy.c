/* The session bus through a filtering proxy (issue 20).
 *
 * The bus is a deputy: org.freedesktop.systemd1 starts units outside the
 * sandbox, the Secret Service hands out passwords. Covered by /dev/null it
 * is closed whole, and notifications go with it. Instead, where Debian's
 * xdg-dbus-proxy is installed, the bus's name in the command's mount
 * namespace is covered by the socket of a proxy that passes the bus itself
 * (names, Hello, a name lookup) and org.freedesktop.Notifications only.
 *
 * A proxy takes 10-40 ms to start, ten times a launch: one is kept per
 * user, bus and filter, in a private folder of the user's runtime
 * directory, started by the first launch that needs it and found by the
 * next (a connect). What answers at its name is checked before use: a
 * process of this user, running the proxy binary, in the launcher's own
 * mount namespace, with the launcher's own seccomp filters and
 * no_new_privs (a command in any sandbox has one filter more, and often
 * another mount namespace: a wider listener one planted there is not
 * taken). The checked socket is
 * held open by an O_PATH descriptor; apply binds the inode it reaches, or
 * /dev/null when the name reaches another one by then. Anything wrong
 * closes the bus whole, as before. docs/unix-endpoints.md. */
#define _GNU_SOURCE
#include "linux.h"
#include "supervisor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What passes: the bus driver always does (xdg-dbus-proxy's --filter), and
 * the notification interface at its one object, calls and the signals it
 * sends back. Not --talk: that opens the whole connection owning the name,
 * every object and interface, by its unique name too, and that connection
 * is gnome-shell or plasmashell on a desktop (review r67 F3). */
static const char *const proxy_filter[] = {
    "--filter",
    "--call=org.freedesktop.Notifications=org.freedesktop.Notifications.*@/org/freedesktop/"
    "Notifications",
    "--broadcast=org.freedesktop.Notifications=org.freedesktop.Notifications.*@/org/freedesktop/"
    "Notifications"};
#define N_FILTER (sizeof proxy_filter / sizeof proxy_filter[0])

/* How long a launch waits, in all, for the proxies of all its buses: the
 * lock, then one it started (measured: 10-40 ms). A command can hold the
 * lock and stop a new proxy before it binds (review r68 F1). */
#define START_WAIT_MS 3000

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long sbx_dbus_deadline(void)
{
    return now_ms() + START_WAIT_MS;
}

int sbx_dbus_proxy_installed(void)
{
    return access(SBX_DBUS_PROXY_BIN, X_OK) == 0;
}

/* The proxy's name: one per bus and filter, so a run never reaches a proxy
 * started with another filter (FNV-1a). */
uint64_t sbx_dbus_proxy_hash(const char *bus_real)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i;
    const char *s;
    for (i = 0; i <= N_FILTER; i++) {
        for (s = i == 0 ? bus_real : proxy_filter[i - 1]; *s; s++) {
            h ^= (unsigned char)*s;
            h *= 0x100000001b3ULL;
        }
        h ^= 0xff; /* a separator no path holds */
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* `unix:path=` with D-Bus's escaping: bytes outside [-0-9A-Za-z_/.\*] as %xx. */
static int bus_address(const char *path, char *out, size_t size)
{
    static const char plain[] = "-_/.\\*";
    size_t o = (size_t)snprintf(out, size, "unix:path=");
    for (; *path; path++) {
        unsigned char c = (unsigned char)*path;
        int keep = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                   memchr(plain, c, sizeof plain - 1) != NULL;
        if (o + 4 >= size)
            return -1;
        if (keep)
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, 4, "%%%02x", c);
    }
    out[o] = '\0';
    return 0;
}

static int same_link(const char *a, const char *b)
{
    char x[PATH_MAX], y[PATH_MAX];
    ssize_t n = readlink(a, x, sizeof x - 1), m = readlink(b, y, sizeof y - 1);
    if (n <= 0 || m <= 0)
        return 0;
    x[n] = '\0';
    y[m] = '\0';
    return strcmp(x, y) == 0;
}

/* The confinement a process carries: its seccomp filter count (the mode
 * where the kernel does not count) and no_new_privs, from its status. A
 * command in any sandbox has at least one filter more than its launcher. */
static int confinement(const char *status_path, char *out, size_t size)
{
    char buf[4096], *line;
    size_t o = 0;
    int filters = 0;
    if (sbx_read_small(status_path, buf, sizeof buf) <= 0)
        return -1;
    out[0] = '\0';
    for (line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        size_t len = strcspn(line, "\n");
        int f = strncmp(line, "Seccomp_filters:", 16) == 0;
        /* Stopped (a command can signal it): its queue fills, its clients
         * hang. Not usable; the bus closes instead. */
        if (strncmp(line, "State:\tT", 8) == 0 || strncmp(line, "State:\tt", 8) == 0)
            return -1;
        if (f || strncmp(line, "Seccomp:", 8) == 0 || strncmp(line, "NoNewPrivs:", 11) == 0) {
            filters |= f;
            if (o + len + 2 >= size)
                return -1;
            memcpy(out + o, line, len);
            o += len;
            out[o++] = ';';
            out[o] = '\0';
        }
    }
    return filters || strstr(out, "Seccomp:") ? 0 : -1;
}

static int same_confinement(pid_t pid)
{
    char p[64], a[256], b[256];
    snprintf(p, sizeof p, "/proc/%ld/status", (long)pid);
    return confinement(p, a, sizeof a) == 0 && confinement("/proc/self/status", b, sizeof b) == 0 &&
           strcmp(a, b) == 0;
}

enum { AT_OK, AT_ABSENT, AT_FOREIGN };

/* Connect to the socket at `sock` through an O_PATH descriptor (so the
 * check and the later bind are about one inode) and check who listens.
 * AT_OK leaves the descriptor in *fd_out. */
static int attempt(const char *sock, int *fd_out, pid_t *pid_out, char *why, size_t why_size)
{
    struct sockaddr_un a;
    struct ucred cr;
    struct stat st;
    socklen_t len = sizeof cr;
    char p[64], q[64], exe[PATH_MAX];
    ssize_t n;
    int fd, s, rc = AT_FOREIGN;

    *fd_out = -1;
    fd = openat(AT_FDCWD, sock, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? AT_ABSENT : AT_FOREIGN;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return AT_FOREIGN;
    }
    if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid()) {
        snprintf(why, why_size, "%s is not a socket of this user", sock);
        close(fd);
        /* A file left in our private folder: replaced; anything else stays. */
        return S_ISREG(st.st_mode) && st.st_uid == geteuid() ? AT_ABSENT : AT_FOREIGN;
    }
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "/proc/self/fd/%d", fd);
    /* Non-blocking: a proxy that stopped accepting (stopped by a signal,
     * out of descriptors) has a full queue, and a blocking connect would
     * wait forever (review r67 F1). EAGAIN: not usable, the bus closes. */
    s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0) {
        snprintf(why, why_size, "socket: %s", strerror(errno));
        close(fd);
        return AT_FOREIGN;
    }
    if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
        rc = errno == ECONNREFUSED ? AT_ABSENT : AT_FOREIGN;
        snprintf(why, why_size, "connect %s: %s", sock, strerror(errno));
    } else if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0 || cr.pid <= 0) {
        snprintf(why, why_size, "%s: no peer credentials", sock);
    } else if (cr.uid != geteuid()) {
        snprintf(why, why_size, "%s is served by uid %lu", sock, (unsigned long)cr.uid);
    } else {
        snprintf(p, sizeof p, "/proc/%ld/exe", (long)cr.pid);
        n = readlink(p, exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        snprintf(q, sizeof q, "/proc/%ld/ns/mnt", (long)cr.pid);
        if (strcmp(exe, SBX_DBUS_PROXY_BIN) != 0)
            snprintf(why, why_size, "%s is served by %s (pid %ld), not %s", sock,
                     exe[0] ? exe : "an unreadable program", (long)cr.pid, SBX_DBUS_PROXY_BIN);
        else if (!same_link(q, "/proc/self/ns/mnt"))
            snprintf(why, why_size,
                     "%s is served by a proxy in another mount namespace (pid %ld: perhaps "
                     "started inside a sandbox)",
                     sock, (long)cr.pid);
        else if (!same_confinement(cr.pid))
            snprintf(why, why_size,
                     "%s is served by a stopped proxy, or one under a seccomp filter or "
                     "no_new_privs the launcher does not have (pid %ld: started inside a "
                     "sandbox)",
                     sock, (long)cr.pid);
        else
            rc = AT_OK;
    }
    close(s);
    if (rc == AT_OK) {
        *fd_out = fd;
        if (pid_out)
            *pid_out = cr.pid;
    } else {
        close(fd);
    }
    return rc;
}

/* fork without the host's pthread_atfork handlers, which may wait on locks
 * other threads held (a library host may have threads): the children only
 * fork again and exec. */
static pid_t raw_fork(void)
{
#ifdef SYS_fork
    return (pid_t)syscall(SYS_fork);
#else
    return (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

/* Start a proxy detached from the caller (its own session, reparented to
 * init): it outlives the launch and serves the next ones. Only
 * async-signal-safe calls between fork and exec (a host may have threads). */
static int start(const char *addr, const char *sock, pid_t *proxy)
{
    char *argv[3 + N_FILTER + 1], *envp[1] = {NULL};
    long max_fd = sysconf(_SC_OPEN_MAX);
    size_t i;
    int st, p[2];
    pid_t pid;

    argv[0] = (char *)SBX_DBUS_PROXY_BIN;
    argv[1] = (char *)addr;
    argv[2] = (char *)sock;
    for (i = 0; i < N_FILTER; i++)
        argv[3 + i] = (char *)proxy_filter[i];
    argv[3 + N_FILTER] = NULL;
    if (max_fd < 0 || max_fd > 65536)
        max_fd = 65536;
    *proxy = -1;
    /* The middle child reports the proxy's pid: one that never answers is
     * killed, not left behind (review r68 F2). */
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid = raw_fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        struct sigaction dfl;
        sigset_t none;
        int sig, nul;
        pid_t g;
        if (setsid() < 0 || (g = raw_fork()) < 0)
            _exit(0);
        if (g > 0) {
            ssize_t w = write(p[1], &g, sizeof g);
            _exit(w == (ssize_t)sizeof g ? 0 : 1);
        }
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (sig = 1; sig < 65; sig++)
            (void)sigaction(sig, &dfl, NULL);
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        nul = openat(AT_FDCWD, "/dev/null", O_RDWR);
        if (nul < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
            _exit(127);
        if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0)
            for (sig = 3; sig < max_fd; sig++)
                (void)close(sig);
        umask(077);
        if (chdir("/") != 0)
            _exit(127);
        execve(SBX_DBUS_PROXY_BIN, argv, envp);
        _exit(127);
    }
    close(p[1]);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (read(p[0], proxy, sizeof *proxy) != (ssize_t)sizeof *proxy)
        *proxy = -1;
    close(p[0]);
    return 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The bus a checked proxy serves, from its command line (argv[1], D-Bus
 * escaped; argv[2] must be `sock`), and only when its name is the one this
 * library gives that bus with this filter: 0, or -1 for anything else. */
static int proxy_bus(pid_t pid, const char *sock, char *bus, size_t size)
{
    char p[64], cmd[3 * PATH_MAX + 64], name[32];
    const char *a1, *a2, *in, *slash;
    size_t o = 0;
    long n;
    snprintf(p, sizeof p, "/proc/%ld/cmdline", (long)pid);
    if ((n = sbx_read_small(p, cmd, sizeof cmd)) <= 0)
        return -1;
    a1 = memchr(cmd, '\0', (size_t)n);
    if (!a1 || a1 + 1 >= cmd + n)
        return -1;
    a1++;
    a2 = a1 + strlen(a1) + 1;
    if (a2 >= cmd + n || strcmp(a2, sock) != 0 || strncmp(a1, "unix:path=", 10) != 0)
        return -1;
    for (in = a1 + 10; *in; in++) {
        unsigned v;
        if (o + 1 >= size)
            return -1;
        if (*in == '%') {
            int hi = hexval(in[1]), lo = hi < 0 ? -1 : hexval(in[2]);
            if (lo < 0 || (v = (unsigned)(hi * 16 + lo)) == 0)
                return -1;
            bus[o++] = (char)v;
            in += 2;
        } else {
            bus[o++] = *in;
        }
    }
    bus[o] = '\0';
    slash = strrchr(sock, '/');
    snprintf(name, sizeof name, "dbus-%016llx", (unsigned long long)sbx_dbus_proxy_hash(bus));
    return slash && strcmp(slash + 1, name) == 0 ? 0 : -1;
}

/* Is a bus gone: nothing at its name, no socket, or a socket nobody
 * listens on. A full queue or any other answer counts as there. */
static int bus_gone(const char *bus)
{
    struct sockaddr_un a;
    struct stat st;
    int s, gone;
    if (lstat(bus, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR;
    if (!S_ISSOCK(st.st_mode))
        return 1;
    if (strlen(bus) >= sizeof a.sun_path)
        return 0;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    memcpy(a.sun_path, bus, strlen(bus) + 1);
    s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0)
        return 0;
    gone = connect(s, (struct sockaddr *)&a, sizeof a) != 0 && errno == ECONNREFUSED;
    close(s);
    return gone;
}

/* Proxies of buses that are gone stay otherwise: a dbus-run-session per
 * job leaves one each (review r67 F4). A launch that has just started a
 * proxy (a new bus appeared) ends the others in the folder whose bus no
 * longer answers: each checked as a proxy is before use (ours, this
 * user's, this mount namespace, this confinement), serving the bus its
 * name stands for, pinned by a pidfd and checked again before the signal,
 * and only under its lock, so no launch is starting one there meanwhile.
 * Its socket goes with it; the empty lock file stays. */
static void reap_gone(const char *dir, const char *keep)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        char sock[PATH_MAX], lock[PATH_MAX + 8], why[256], bus[PATH_MAX], again[PATH_MAX];
        pid_t pid = -1;
        int fd, lk, pfd;
        if (strncmp(e->d_name, "dbus-", 5) != 0 || strlen(e->d_name) != 21 ||
            (size_t)snprintf(sock, sizeof sock, "%s/%s", dir, e->d_name) >= sizeof sock ||
            strcmp(sock, keep) == 0)
            continue;
        snprintf(lock, sizeof lock, "%s.lock", sock);
        lk = openat(AT_FDCWD, lock, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
        if (lk < 0)
            continue;
        if (flock(lk, LOCK_EX | LOCK_NB) != 0) {
            close(lk);
            continue;
        }
        if (attempt(sock, &fd, &pid, why, sizeof why) == AT_OK) {
            close(fd);
            if (proxy_bus(pid, sock, bus, sizeof bus) == 0 && bus_gone(bus) &&
                (pfd = (int)syscall(SYS_pidfd_open, (long)pid, 0)) >= 0) {
                if (proxy_bus(pid, sock, again, sizeof again) == 0 && strcmp(bus, again) == 0 &&
                    syscall(SYS_pidfd_send_signal, pfd, SIGKILL, NULL, 0) == 0)
                    (void)unlink(sock);
                close(pfd);
            }
        }
        close(lk);
    }
    closedir(d);
}

int sbx_dbus_proxy_find(const char *dir, const char *bus_real, long long deadline, char **cover,
                        int *cover_fd, char *why, size_t why_size)
{
    char sock[PATH_MAX], lock[PATH_MAX + 8], addr[3 * PATH_MAX + 16];
    struct stat st;
    int rc, fd = -1, lk;
    pid_t proxy;

    *cover = NULL;
    *cover_fd = -1;
    why[0] = '\0';
    if (!sbx_dbus_proxy_installed()) {
        snprintf(why, why_size, "%s is not installed", SBX_DBUS_PROXY_BIN);
        return -1;
    }
    if (bus_address(bus_real, addr, sizeof addr) != 0 ||
        (size_t)snprintf(sock, sizeof sock, "%s/dbus-%016llx", dir,
                         (unsigned long long)sbx_dbus_proxy_hash(bus_real)) >=
            sizeof((struct sockaddr_un *)0)->sun_path) {
        snprintf(why, why_size, "the proxy's socket path under %s is too long", dir);
        return -1;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(why, why_size, "mkdir %s: %s", dir, strerror(errno));
        return -1;
    }
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0) {
        snprintf(why, why_size, "%s is not a private folder of this user (mode 0700)", dir);
        return -1;
    }
    rc = attempt(sock, &fd, NULL, why, why_size);
    if (rc == AT_ABSENT) {
        /* One launch starts it; one that waited on the lock finds it. */
        snprintf(lock, sizeof lock, "%s.lock", sock);
        lk = openat(AT_FDCWD, lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        /* Bounded: a command can read the lock file, and hold a shared
         * lock on it for as long as it likes (review r67 F2). */
        while (lk >= 0 && flock(lk, LOCK_EX | LOCK_NB) != 0) {
            struct timespec ts = {0, 2000000};
            if (errno != EWOULDBLOCK || now_ms() >= deadline) {
                close(lk);
                lk = -1;
                errno = errno == EWOULDBLOCK ? ETIMEDOUT : errno;
                break;
            }
            nanosleep(&ts, NULL);
        }
        if (lk < 0) {
            snprintf(why, why_size, "lock %s: %s", lock, strerror(errno));
            return -1;
        }
        rc = attempt(sock, &fd, NULL, why, why_size);
        if (rc == AT_ABSENT) {
            (void)unlink(sock);
            if (start(addr, sock, &proxy) != 0) {
                snprintf(why, why_size, "cannot start %s: %s", SBX_DBUS_PROXY_BIN,
                         strerror(errno));
            } else {
                while (rc == AT_ABSENT && now_ms() < deadline) {
                    struct timespec ts = {0, 2000000};
                    nanosleep(&ts, NULL);
                    rc = attempt(sock, &fd, NULL, why, why_size);
                }
                if (rc == AT_ABSENT)
                    snprintf(why, why_size, "%s did not answer at %s within %d ms",
                             SBX_DBUS_PROXY_BIN, sock, START_WAIT_MS);
                if (rc == AT_OK)
                    reap_gone(dir, sock);
                /* Ours, and useless (stopped, say): not left running. */
                if (rc != AT_OK && proxy > 0)
                    (void)kill(proxy, SIGKILL);
            }
        }
        close(lk);
    }
    if (rc != AT_OK)
        return -1;
    *cover = sbx_strdup(sock);
    if (!*cover) {
        close(fd);
        snprintf(why, why_size, "out of memory");
        return -1;
    }
    *cover_fd = fd;
    return 0;
}

/* Between fork and exec, in the command's new mount namespace: a
 * descriptor of this namespace's own (a bind from the caller's old one is
 * refused) that reaches the inode checked at prepare, its name in `src`;
 * -1 when the proxy's name now reaches another inode or none. */
int sbx_dbus_cover_open(const char *cover, int cover_fd, char *src, size_t size)
{
    static const char pre[] = "/proc/self/fd/";
    struct stat a, b;
    char digits[16];
    size_t n = 0, i;
    int fd, v;
    if (!cover || cover_fd < 0 || size < sizeof pre + sizeof digits || fstat(cover_fd, &a) != 0)
        return -1;
    fd = openat(AT_FDCWD, cover, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &b) != 0 || !S_ISSOCK(b.st_mode) || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino) {
        close(fd);
        return -1;
    }
    for (v = fd; n == 0 || v > 0; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    memcpy(src, pre, sizeof pre - 1);
    for (i = 0; i < n; i++)
        src[sizeof pre - 1 + i] = digits[n - 1 - i];
    src[sizeof pre - 1 + n] = '\0';
    return fd;
}
