/* Privileged AF_UNIX endpoints (issue 20): the local daemons that act
 * outside the sandbox for whoever connects (a container engine is root on
 * the host; the systemd managers and the D-Bus buses start units and talk
 * to the Secret Service; snapd installs software).
 *
 * Which of them exist is decided here, at prepare time, by stat; mask.c
 * covers each one with /dev/null in the command's private mount namespace,
 * so connect() and sendto() reach a device, not a socket (ECONNREFUSED).
 * The kernel resolves that path at every call: no check of the caller's
 * memory, nothing a second thread can race. docs/unix-endpoints.md says why
 * this and not a seccomp check, and what stays open. */
#define _GNU_SOURCE
#include "linux.h"
#include "supervisor.h" /* sbx_put_dec */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef SYS_openat2
#  define SYS_openat2 437
#endif

/* Where a template's path starts: the root, a runtime directory, a home. */
enum ep_base { EP_ROOT, EP_RUNTIME, EP_HOME };

struct ep_template {
    int base;
    const char *path;
    const char *what;
};

static const char session_bus[] = "D-Bus session bus";

/* The default list. ssh-agent and gpg-agent are not here on purpose: git
 * over ssh and commit signing keep working (an agent signs, it never runs a
 * command outside). */
static const struct ep_template ep_list[] = {
    {EP_ROOT, "/run/docker.sock", "Docker engine (root on the host)"},
    {EP_ROOT, "/var/run/docker.sock", "Docker engine (root on the host)"},
    {EP_ROOT, "/run/containerd/containerd.sock", "containerd"},
    {EP_ROOT, "/run/containerd/containerd.sock.ttrpc", "containerd (ttrpc)"},
    {EP_ROOT, "/run/k3s/containerd/containerd.sock", "k3s containerd"},
    {EP_ROOT, "/run/podman/podman.sock", "Podman service"},
    {EP_ROOT, "/run/buildkit/buildkitd.sock", "BuildKit daemon"},
    {EP_ROOT, "/run/crio/crio.sock", "CRI-O"},
    {EP_ROOT, "/run/cri-dockerd.sock", "cri-dockerd"},
    {EP_ROOT, "/var/lib/lxd/unix.socket", "LXD"},
    {EP_ROOT, "/var/snap/lxd/common/lxd/unix.socket", "LXD (snap)"},
    {EP_ROOT, "/var/lib/incus/unix.socket", "Incus"},
    {EP_ROOT, "/run/libvirt/libvirt-sock", "libvirt (system)"},
    {EP_ROOT, "/run/snapd.socket", "snapd (installs software)"},
    {EP_ROOT, "/run/systemd/private", "systemd system manager (private socket)"},
    {EP_ROOT, "/run/dbus/system_bus_socket", "D-Bus system bus"},
    {EP_RUNTIME, "/docker.sock", "rootless Docker"},
    {EP_RUNTIME, "/podman/podman.sock", "rootless Podman service"},
    {EP_RUNTIME, "/buildkit/buildkitd.sock", "rootless BuildKit"},
    {EP_RUNTIME, "/containerd-rootless/containerd.sock", "rootless containerd"},
    {EP_RUNTIME, "/libvirt/libvirt-sock", "libvirt (session)"},
    {EP_RUNTIME, "/systemd/private", "systemd user manager (private socket)"},
    {EP_RUNTIME, "/bus", session_bus},
    {EP_RUNTIME, "/keyring/control", "GNOME Keyring control"},
    {EP_HOME, "/.docker/run/docker.sock", "Docker Desktop"},
    {EP_HOME, "/.docker/desktop/docker.sock", "Docker Desktop"},
    {EP_HOME, "/.colima/default/docker.sock", "Colima"},
    {EP_HOME, "/.rd/docker.sock", "Rancher Desktop"},
};

#define EP_DBUS_NAMES 2
static const char *const dbus_vars[EP_DBUS_NAMES] = {"DBUS_SESSION_BUS_ADDRESS",
                                                     "DBUS_SYSTEM_BUS_ADDRESS"};

void sbx_unix_list_free(struct sbx_unix_list *l)
{
    size_t i;
    for (i = 0; i < l->n; i++) {
        free(l->e[i].path);
        free(l->e[i].real);
        free(l->e[i].cover);
        if (l->e[i].cover_fd >= 0)
            close(l->e[i].cover_fd);
    }
    free(l->e);
    for (i = 0; i < l->n_pin; i++)
        free(l->pin[i].path);
    free(l->pin);
    memset(l, 0, sizeof *l);
}

/* ---- where a listed path leads, and what a command could change on the way ----
 *
 * A mask covers the socket's real name, and a mount point cannot be renamed
 * or removed. But the list is made again at every launch from the names the
 * host gave, and a command may rename a folder above the socket, or replace
 * a symlink (or a folder a "..' leaves) on the way, when that name lies in a
 * folder it can write: the next launch then finds nothing, or another
 * socket, and the daemon answers at its new name (review of issue 20, F4).
 * So the lookup is walked here name by name: each real folder on the way
 * whose parent a command can write is pinned (bound onto itself: EBUSY on
 * rename), and a changeable name that is not on the real path (a symlink,
 * a folder ".." leaves) refuses the launch. */

/* Identities of the writable roots (dev, ino): a folder lies in one when it
 * or a folder above it is one, whichever mount spells it. */
struct ep_roots {
    dev_t *dev;
    ino_t *ino;
    size_t n;
};

static int roots_load(const sbx_resolved *r, struct ep_roots *rt)
{
    size_t i;
    memset(rt, 0, sizeof *rt);
    if (r->n_roots == 0)
        return 0;
    /* Two slots each: /dev stands for its two scratch folders. */
    rt->dev = malloc(2 * r->n_roots * sizeof *rt->dev);
    rt->ino = malloc(2 * r->n_roots * sizeof *rt->ino);
    if (!rt->dev || !rt->ino)
        return ENOMEM;
    for (i = 0; i < r->n_roots; i++) {
        /* Of /dev only these take new names (landlock_rules.c). */
        static const char *const dev_scratch[] = {"/dev/shm", "/dev/mqueue"};
        int dev = r->roots[i].kind == SBX_ROOT_DEV;
        size_t k, n_paths = dev ? 2 : 1;
        for (k = 0; k < n_paths; k++) {
            struct stat st;
            const char *path = dev ? dev_scratch[k] : r->roots[i].path;
            /* A root that does not exist yet (a cache made at launch)
             * holds no socket now. */
            if (path && stat(path, &st) == 0) {
                rt->dev[rt->n] = st.st_dev;
                rt->ino[rt->n] = st.st_ino;
                rt->n++;
            }
        }
    }
    return 0;
}

static void roots_free(struct ep_roots *rt)
{
    free(rt->dev);
    free(rt->ino);
    memset(rt, 0, sizeof *rt);
}

static int is_root(const struct ep_roots *rt, const struct stat *st)
{
    size_t i;
    for (i = 0; i < rt->n; i++)
        if (rt->dev[i] == st->st_dev && rt->ino[i] == st->st_ino)
            return 1;
    return 0;
}

/* Can a command rename or replace the entry `e` of the folder `dir` (whose
 * stat is `d`, inside a writable root)? Landlock grants it there; DAC must
 * too: root's is kept (docs/landlock.md); the folder's owner can always
 * (chmod is no Landlock right: a 0555 folder of its own is made writable,
 * a sticky bit cleared); others need write and search on the folder, and in
 * a sticky one (/tmp) to own the entry. */
static int can_change(const char *dir, const struct stat *d, const struct stat *e)
{
    uid_t me = geteuid();
    if (me == 0 || d->st_uid == me)
        return 1;
    if (faccessat(AT_FDCWD, dir[0] ? dir : "/", W_OK | X_OK, AT_EACCESS) != 0)
        return 0;
    return !(d->st_mode & S_ISVTX) || e->st_uid == me;
}

#define EP_WALK_DEPTH 64
#define EP_WALK_LINKS 40

struct ep_walk {
    char real[PATH_MAX]; /* the real path reached ("" is "/"), or the deepest folder found */
    int found;           /* every name was found: real is the path's real path */
    struct stat st;      /* the last entry's, when found */
    /* The first name a command could change that is not on the real path
     * (a symlink, a folder ".." leaves), or "". */
    char changeable[PATH_MAX];
    /* Real folders on the way whose parent a command can write: the pins
     * (those still on the real path at the end), deepest last. */
    char *cand[EP_WALK_DEPTH];
    size_t n_cand;
    int overflow; /* too deep or too many links to judge: treated as changeable */
    /* A folder of the caller's own whose lookup failed other than ENOENT or
     * ENOTDIR (a mode without search permission, an ACL), or "": its owner
     * can undo that from inside (chmod is no Landlock right). */
    char hidden[PATH_MAX];
};

static void walk_free(struct ep_walk *w)
{
    size_t i;
    for (i = 0; i < w->n_cand; i++)
        free(w->cand[i]);
    w->n_cand = 0;
}

/* Look `path` up as the kernel would, one name at a time (lstat), keeping
 * for each folder of the current real path whether it lies in a writable
 * root. ENOMEM or 0; an unresolvable path is !found, not an error. */
static int walk(const struct ep_roots *rt, const char *path, struct ep_walk *w)
{
    char rest[2 * PATH_MAX + 2], next[PATH_MAX], comp[NAME_MAX + 1];
    int inside[EP_WALK_DEPTH + 1];
    struct stat dirst[EP_WALK_DEPTH + 1];
    size_t depth = 0, len = 0, links = 0, i;
    const char *p;

    memset(w, 0, sizeof *w);
    if (!path || path[0] != '/' || strlen(path) >= sizeof rest)
        return 0;
    if (lstat("/", &dirst[0]) != 0)
        return 0;
    inside[0] = is_root(rt, &dirst[0]);
    strcpy(rest, path);
    for (;;) {
        size_t n;
        struct stat st;
        int changeable;
        p = rest;
        while (*p == '/')
            p++;
        if (!*p) {
            w->found = 1;
            break;
        }
        n = strcspn(p, "/");
        if (n > NAME_MAX)
            break;
        memcpy(comp, p, n);
        comp[n] = '\0';
        memmove(rest, p + n, strlen(p + n) + 1);
        if (strcmp(comp, ".") == 0)
            continue;
        if (strcmp(comp, "..") == 0) {
            /* The real path so far has no symlink: its parent is lexical. */
            if (depth > 0) {
                while (len > 0 && w->real[len - 1] != '/')
                    len--;
                if (len > 0)
                    len--;
                w->real[len] = '\0';
                depth--;
            }
            continue;
        }
        if (len + 1 + n >= sizeof w->real)
            break;
        w->real[len] = '/';
        memcpy(w->real + len + 1, comp, n + 1);
        if (lstat(w->real, &st) != 0) {
            int why = errno;
            w->real[len] = '\0';
            /* (Truncation only shortens the message.) */
            if (why != ENOENT && why != ENOTDIR && dirst[depth].st_uid == geteuid() &&
                snprintf(w->hidden, sizeof w->hidden, "%s (%s)", w->real[0] ? w->real : "/",
                         strerror(why)) < 0)
                strcpy(w->hidden, "/");
            break;
        }
        w->real[len] = '\0';
        changeable = inside[depth] && can_change(w->real, &dirst[depth], &st);
        w->real[len] = '/';
        if (S_ISLNK(st.st_mode)) {
            ssize_t got;
            if (changeable && !w->changeable[0])
                snprintf(w->changeable, sizeof w->changeable, "%s", w->real);
            if (++links > EP_WALK_LINKS) {
                w->overflow = 1;
                break;
            }
            got = readlink(w->real, next, sizeof next - 1);
            w->real[len] = '\0';
            if (got <= 0 || (size_t)got + strlen(rest) + 2 >= sizeof rest)
                break;
            next[got] = '\0';
            /* The target, then what was left; an absolute one starts over. */
            memmove(rest + got + 1, rest, strlen(rest) + 1);
            memcpy(rest, next, (size_t)got);
            rest[got] = '/';
            if (next[0] == '/') {
                len = 0;
                depth = 0;
                w->real[0] = '\0';
            }
            continue;
        }
        len += 1 + n;
        w->st = st;
        if (S_ISDIR(st.st_mode)) {
            if (depth + 1 > EP_WALK_DEPTH) {
                w->overflow = 1;
                break;
            }
            depth++;
            dirst[depth] = st;
            inside[depth] = inside[depth - 1] || is_root(rt, &st);
            if (changeable) {
                if (w->n_cand == EP_WALK_DEPTH) {
                    w->overflow = 1;
                    break;
                }
                w->cand[w->n_cand] = sbx_strdup(w->real);
                if (!w->cand[w->n_cand])
                    return ENOMEM;
                w->n_cand++;
            }
        } else if (rest[strspn(rest, "/")] != '\0') {
            break; /* a file with names after it: ENOTDIR */
        }
    }
    if (w->overflow && !w->changeable[0])
        snprintf(w->changeable, sizeof w->changeable, "%s (too deep to judge)", path);
    /* A changeable folder the lookup left again (".."): off the real path. */
    for (i = 0; i < w->n_cand && !w->changeable[0]; i++) {
        size_t cl = strlen(w->cand[i]);
        if (!(strncmp(w->real, w->cand[i], cl) == 0 && (w->real[cl] == '/' || w->real[cl] == '\0')))
            snprintf(w->changeable, sizeof w->changeable, "%s", w->cand[i]);
    }
    if (!w->real[0])
        strcpy(w->real, "/");
    return 0;
}

/* Add the pins of a walk that ended at a listed socket (the socket itself
 * is masked, not pinned). ENOMEM or 0. */
static int add_pins(struct sbx_unix_list *l, const struct ep_walk *w, int named)
{
    size_t i, j;
    for (i = w->n_cand; i-- > 0;) {
        const char *c = w->cand[i];
        struct sbx_unix_pin *g;
        for (j = 0; j < l->n_pin && strcmp(l->pin[j].path, c) != 0; j++)
            ;
        if (j < l->n_pin) {
            l->pin[j].named |= named;
            continue;
        }
        g = realloc(l->pin, (l->n_pin + 1) * sizeof *g);
        if (!g)
            return ENOMEM;
        l->pin = g;
        g[l->n_pin].path = sbx_strdup(c);
        if (!g[l->n_pin].path)
            return ENOMEM;
        g[l->n_pin].named = named;
        l->n_pin++;
    }
    return 0;
}

/* Outcomes of consider() beyond 0 and ENOMEM. */
enum { EP_LINKED = -1, EP_CHANGEABLE = -2, EP_ALLOW_CHANGEABLE = -3, EP_HIDDEN = -4 };

/* Does an --allow-unix path reach `real`? 1, 0, or EP_ALLOW_CHANGEABLE
 * (the host's name for it passes through a name a command could replace:
 * a symlink planted at it would reopen any socket), with the name in `bad`. */
static int listed(const struct ep_roots *rt, char *const *list, size_t n, const char *real,
                  char *bad, size_t bad_size, int *e)
{
    size_t i;
    for (i = 0; i < n; i++) {
        struct ep_walk w;
        int same;
        if ((*e = walk(rt, list[i], &w)) != 0) {
            walk_free(&w);
            return 0;
        }
        same = w.found && strcmp(w.real, real) == 0;
        if (same && w.changeable[0]) {
            snprintf(bad, bad_size, "%s", w.changeable);
            walk_free(&w);
            return EP_ALLOW_CHANGEABLE;
        }
        walk_free(&w);
        if (same || strcmp(list[i], real) == 0)
            return 1;
    }
    return 0;
}

/* The mount id of `path` itself (no link followed), or 0. */
static unsigned long long mnt_id(const char *path)
{
    struct statx st;
    if (syscall(SYS_statx, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT |
                AT_STATX_DONT_SYNC, STATX_MNT_ID, &st) != 0 || !(st.stx_mask & STATX_MNT_ID))
        return 0;
    return st.stx_mnt_id;
}

/* 1 when [s, end) ends with `tag` and 16 lowercase hex digits, their
 * value in *val. */
static int ends_tag_hex(const char *s, const char *end, const char *tag, uint64_t *val)
{
    size_t t = strlen(tag), k;
    const char *hex = end - 16;
    if ((size_t)(end - s) < t + 16 || memcmp(hex - t, tag, t) != 0)
        return 0;
    *val = 0;
    for (k = 0; k < 16; k++) {
        const char *d = hex[k] ? strchr("0123456789abcdef", hex[k]) : NULL;
        if (!d)
            return 0;
        *val = *val << 4 | (uint64_t)(d - "0123456789abcdef");
    }
    return 1;
}

/* 1 when the socket at `real` was closed by a launcher of ours that encloses
 * this one: the root of a mount of its own, bound from a supervised run's
 * stand-in (sbx_unix_cover: a name ".sbx-cover-" and 16 hex digits, since
 * unlinked) or from the filtering proxy of a session bus (a name
 * "libsandbox/dbus-" and 16 hex digits in the runtime directory,
 * dbusproxy.c), as /proc/self/mountinfo shows it. Only a mount puts that
 * there, and a command inside a sandbox cannot mount: the enclosing launcher
 * made it (or root, or the user outside every sandbox), and a nested
 * launcher could not mount over it (Landlock forbids mounts): taken for one
 * of its own, every nested run exited 126 (review r72 F2; with a proxied
 * session bus, every nested launch). 1: a stand-in, closed already (a
 * connect reaches the enclosing run's supervisor, never the daemon). 2: the
 * proxy of this very bus with this launcher's filter (its name is their
 * hash): the bus, filtered as this launcher would, which only a bus this
 * launcher would proxy may take (review r76 F1: a nested --deny-unix of the
 * bus was dropped). 0: neither. */
static int enclosing_standin(const char *real)
{
    static const char tail[] = "//deleted";
    char dir[PATH_MAX], line[PATH_MAX + 256];
    const char *slash = strrchr(real, '/');
    unsigned long long id = mnt_id(real), up;
    FILE *f;
    int found = 0;
    if (!id || !slash || (size_t)(slash - real) >= sizeof dir)
        return 0;
    memcpy(dir, real, (size_t)(slash - real));
    dir[slash == real ? 1 : slash - real] = '\0';
    if (slash == real)
        dir[0] = '/';
    up = mnt_id(dir);
    if (!up || up == id)
        return 0; /* not a mount root: no stand-in */
    f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        char *sp1 = strchr(line, ' '), *root, *end, *del;
        uint64_t hex;
        int deleted;
        if (!sp1 || strtoull(line, NULL, 10) != id)
            continue;
        /* "ID PARENT MAJ:MIN ROOT MOUNTPOINT ...": the root is field 4. */
        root = strchr(sp1 + 1, ' ');
        root = root ? strchr(root + 1, ' ') : NULL;
        end = root ? strchr(root + 1, ' ') : NULL;
        if (!end)
            break;
        root++;
        del = end - (sizeof tail - 1);
        deleted = del >= root && memcmp(del, tail, sizeof tail - 1) == 0;
        if (deleted && ends_tag_hex(root, del, "/.sbx-cover-", &hex))
            found = 1;
        else if (ends_tag_hex(root, deleted ? del : end, "/libsandbox/dbus-", &hex) &&
                 hex == sbx_dbus_proxy_hash(real))
            found = 2;
        break;
    }
    fclose(f);
    return found;
}

/* 1 when `path` names no socket, by a lookup that followed no symlink (see
 * consider()); 0 when only the walk can tell. */
static int quick_absent(const char *path)
{
    struct open_how how;
    struct stat st;
    int fd, gone;

    memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_NO_SYMLINKS;
    fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR;
    gone = fstat(fd, &st) == 0 && !S_ISSOCK(st.st_mode);
    close(fd);
    return gone;
}

/* Add `path` if it is an existing socket that is not allowed and not there
 * yet, with the folders to pin on its way. `strict`: the name counts even
 * when nothing is there now (the host named it, or a D-Bus address): a
 * changeable name on its way refuses, since a command could have pointed
 * it away already. 0, ENOMEM, or an EP_* outcome (`bad`: the name). */
static int consider(const sbx_resolved *r, const struct ep_roots *rt, struct sbx_unix_list *l,
                    const char *path, const char *what, int strict, int named, char *bad,
                    size_t bad_size)
{
    struct sbx_unix_ep *g;
    struct ep_walk w;
    size_t i;
    int e, a;
    /* Most names of the default list have nothing there (the daemon is not
     * installed): one lookup by the kernel answers that where the walk below
     * takes one call per component. Only a lookup that met no symlink at all
     * (RESOLVE_NO_SYMLINKS: a link, a /proc magic link included, is ELOOP)
     * is sure to end where the walk would: a link's text can lead the walk
     * elsewhere than the kernel goes (a target ending in "/", a /proc/PID/root
     * into another mount namespace; review r74). ENOENT or ENOTDIR then means
     * every folder on the way was searched (an unsearchable one fails first,
     * EACCES, and goes to the walk's hidden-folder check), and a name there
     * that is no socket is skipped by the walk too. Only for the default
     * list: a name the host gave counts even when absent. */
    if (!strict && path && path[0] == '/' && quick_absent(path))
        return 0;
    e = walk(rt, path, &w);
    if (e != 0)
        goto out;
    /* Not "no daemon there": one run could have hidden it from the next. */
    if (!w.found && w.hidden[0]) {
        snprintf(bad, bad_size, "%s", w.hidden);
        e = EP_HIDDEN;
        goto out;
    }
    if (!w.found || !S_ISSOCK(w.st.st_mode)) {
        if (strict && w.changeable[0]) {
            snprintf(bad, bad_size, "%s", w.changeable);
            e = EP_CHANGEABLE;
        }
        goto out;
    }
    a = listed(rt, r->allow_unix, r->n_allow_unix, w.real, bad, bad_size, &e);
    if (e != 0 || a == 1)
        goto out;
    switch (enclosing_standin(w.real)) {
    case 1:
        goto out;
    case 2:
        if (!named && what == session_bus)
            goto out;
        break;
    default:
        break;
    }
    if (a == EP_ALLOW_CHANGEABLE) {
        e = a;
        goto out;
    }
    if (w.changeable[0]) {
        snprintf(bad, bad_size, "%s", w.changeable);
        e = EP_CHANGEABLE;
        goto out;
    }
    for (i = 0; i < l->n; i++)
        if (strcmp(l->e[i].real, w.real) == 0) {
            l->e[i].named |= named;
            e = add_pins(l, &w, named);
            goto out;
        }
    g = realloc(l->e, (l->n + 1) * sizeof *g);
    if (!g) {
        e = ENOMEM;
        goto out;
    }
    l->e = g;
    g[l->n].path = sbx_strdup(path);
    g[l->n].real = sbx_strdup(w.real);
    g[l->n].what = what;
    g[l->n].named = named;
    g[l->n].cover = NULL;
    g[l->n].cover_fd = -1;
    if (!g[l->n].path || !g[l->n].real) {
        free(g[l->n].path);
        free(g[l->n].real);
        e = ENOMEM;
        goto out;
    }
    l->n++;
    e = add_pins(l, &w, named);
    /* A second name of the socket would reach the daemon past the mask,
     * which covers one name only; a hard link to a socket is rare enough to
     * refuse with a reason. (A command cannot make one: the masked name
     * links across mounts, EXDEV.) */
    if (e == 0 && w.st.st_nlink > 1)
        e = EP_LINKED;
out:
    walk_free(&w);
    return e;
}

/* The next unix:path= socket of a D-Bus address at or after *cursor,
 * unescaped (%XX), into buf; *cursor moves past its entry. 0 when no
 * further entry names one. Every entry counts: a client tries them in turn,
 * so a stale first path must not leave the live second one open (review of
 * issue 20). Abstract sockets are Landlock's (ABI 6 scopes them). */
static int dbus_next_path(const char **cursor, char *buf, size_t size)
{
    const char *s = *cursor;
    while (s && *s) {
        const char *end = strchr(s, ';');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        const char *next = end ? end + 1 : NULL;
        if (len > 5 && strncmp(s, "unix:", 5) == 0) {
            const char *k = s + 5;
            while (k < s + len) {
                const char *comma = memchr(k, ',', (size_t)(s + len - k));
                const char *stop = comma ? comma : s + len;
                if ((size_t)(stop - k) > 5 && strncmp(k, "path=", 5) == 0) {
                    size_t o = 0;
                    for (k += 5; k < stop && o + 1 < size; k++) {
                        if (*k == '%' && stop - k >= 3) {
                            char hex[3] = {k[1], k[2], 0};
                            buf[o++] = (char)strtol(hex, NULL, 16);
                            k += 2;
                        } else {
                            buf[o++] = *k;
                        }
                    }
                    buf[o] = '\0';
                    *cursor = next;
                    if (o > 0 && buf[0] == '/')
                        return 1;
                    break;
                }
                k = stop + 1;
            }
        }
        s = next;
        *cursor = next;
    }
    return 0;
}

/* The runtime directories whose sockets are listed: $XDG_RUNTIME_DIR and
 * /run/user/<euid>; for root every /run/user/<uid> too, since root's DAC
 * capabilities open other users' 0700 runtime directories, and their
 * managers and rootless engines act as those users (review of issue 20).
 * Returns the count (at most `max`). */
static size_t runtime_dirs(char (*rt)[PATH_MAX], size_t max)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    size_t n = 0, i;
    char own[PATH_MAX];
    DIR *d;
    struct dirent *e;
    if (xdg && xdg[0] == '/' && strlen(xdg) < PATH_MAX)
        strcpy(rt[n++], xdg);
    snprintf(own, sizeof own, "/run/user/%lu", (unsigned long)geteuid());
    if (n == 0 || strcmp(rt[0], own) != 0)
        strcpy(rt[n++], own);
    if (geteuid() != 0 || (d = opendir("/run/user")) == NULL)
        return n;
    while (n < max && (e = readdir(d)) != NULL) {
        char cand[PATH_MAX];
        if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
            strspn(e->d_name, "0123456789") != strlen(e->d_name))
            continue;
        snprintf(cand, sizeof cand, "/run/user/%s", e->d_name);
        for (i = 0; i < n && strcmp(rt[i], cand) != 0; i++)
            ;
        if (i == n)
            strcpy(rt[n++], cand);
    }
    closedir(d);
    return n;
}

int sbx_unix_endpoints(const sbx_resolved *r, struct sbx_unix_list *l, sandbox_error *err)
{
    enum { MAX_RT = 64 };
    char (*runtime)[PATH_MAX], path[PATH_MAX + 64], bad[PATH_MAX + 32];
    const char *homes[2], *spelled = NULL, *what = NULL;
    struct ep_roots rt;
    size_t i, b, n_rt = 0;
    int e = 0, rc = SANDBOX_OK;

    memset(l, 0, sizeof *l);
    memset(&rt, 0, sizeof rt);
    bad[0] = '\0';
    /* Read-only refuses every socket of its own; an unconfined
     * filesystem promises nothing here. */
    if (r->filesystem != SANDBOX_FS_CONFINED)
        return SANDBOX_OK;
    runtime = malloc(MAX_RT * sizeof *runtime);
    if (!runtime || roots_load(r, &rt) != 0) {
        free(runtime);
        roots_free(&rt);
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing sockets");
    }
    n_rt = runtime_dirs(runtime, MAX_RT);
    homes[0] = r->home_dir;
    homes[1] = r->home_alt;
    /* The default list counts where a socket is: a daemon that is not
     * running leaves nothing to close, and its runtime directory is listed
     * by its real name (/run/user/UID) as well. */
    for (i = 0; e == 0 && i < sizeof ep_list / sizeof ep_list[0]; i++) {
        const struct ep_template *t = &ep_list[i];
        size_t n_base = t->base == EP_ROOT ? 1 : t->base == EP_RUNTIME ? n_rt : 2;
        for (b = 0; e == 0 && b < n_base; b++) {
            const char *base = t->base == EP_ROOT      ? ""
                               : t->base == EP_RUNTIME ? runtime[b]
                                                       : homes[b];
            if (!base || (t->base == EP_HOME && base[0] != '/'))
                continue;
            snprintf(path, sizeof path, "%s%s", base, t->path);
            spelled = path;
            what = t->what;
            e = consider(r, &rt, l, path, t->what, 0, 0, bad, sizeof bad);
        }
    }
    free(runtime);
    /* A bus address and a --deny-unix path are the host's own names: one
     * a command could already have pointed away (a symlink replaced) must
     * not read as "no daemon there". */
    for (i = 0; e == 0 && i < EP_DBUS_NAMES; i++) {
        const char *cursor = getenv(dbus_vars[i]);
        what = i == 0 ? session_bus : "D-Bus system bus";
        while (e == 0 && dbus_next_path(&cursor, path, sizeof path)) {
            spelled = path;
            e = consider(r, &rt, l, path, what, 1, 0, bad, sizeof bad);
        }
    }
    for (i = 0; e == 0 && i < r->n_deny_unix; i++) {
        spelled = r->deny_unix[i];
        what = "added with --deny-unix";
        e = consider(r, &rt, l, r->deny_unix[i], what, 1, 1, bad, sizeof bad);
    }
    roots_free(&rt);
    if (e == ENOMEM)
        rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while listing sockets");
    else if (e == EP_LINKED && l->e && l->n > 0) /* (consider() added it last) */
        rc = sbx_fail(err, SANDBOX_E_REFUSED, 0,
                      "the socket %s (%s) has another name (a hard link), which its mask "
                      "would not cover; remove the other link, or reopen the socket with "
                      "--allow-unix %s; the command was not run",
                      l->e[l->n - 1].real, l->e[l->n - 1].what, l->e[l->n - 1].path);
    else if (e == EP_CHANGEABLE)
        rc = sbx_fail(err, SANDBOX_E_REFUSED, 0,
                      "the socket path %s (%s) is looked up through %s, a symlink or folder "
                      "in a writable root that a command in the sandbox could replace, so that "
                      "a later run finds nothing there while the daemon answers at its real "
                      "name; name the socket by its real path (no symlink, no ..), or reopen it "
                      "with --allow-unix; the command was not run",
                      spelled, what, bad);
    else if (e == EP_HIDDEN)
        rc = sbx_fail(err, SANDBOX_E_REFUSED, 0,
                      "the socket path %s (%s) cannot be looked up past %s, a folder of yours "
                      "without search permission: a command in the sandbox can change that "
                      "folder's mode, so a daemon's socket hidden there by one run would be "
                      "reachable by the next; restore the folder's mode (chmod u+rx), or name "
                      "the socket with --allow-unix; the command was not run",
                      spelled, what, bad);
    else if (e == EP_ALLOW_CHANGEABLE)
        rc = sbx_fail(err, SANDBOX_E_REFUSED, 0,
                      "an --allow-unix path reaches the socket %s (%s) through %s, a symlink or "
                      "folder in a writable root that a command in the sandbox could replace to "
                      "reopen any other socket; name the socket by its real path; the command "
                      "was not run",
                      spelled, what, bad);
    if (rc != SANDBOX_OK)
        sbx_unix_list_free(l);
    return rc;
}

/* ---- the session bus through a filtering proxy (dbusproxy.c) ---- */

/* Does `real` (a real path) lie in a writable root, or is it one? */
static int in_roots(const struct ep_roots *rt, const char *real)
{
    char p[PATH_MAX];
    struct stat st;
    char *cut;
    if (strlen(real) >= sizeof p)
        return 1;
    strcpy(p, real);
    for (;;) {
        if (stat(p[0] ? p : "/", &st) == 0 && is_root(rt, &st))
            return 1;
        if (!p[0] || !(cut = strrchr(p, '/')))
            return 0;
        *cut = '\0';
    }
}

/* The private folder the proxies live in: "libsandbox" in the user's
 * runtime directory ($XDG_RUNTIME_DIR, else /run/user/EUID), when that is
 * the user's own, mode 0700, and in no writable root (a command could plant
 * a listener there). -1 when there is none. */
static int proxy_dir(const struct ep_roots *rt, char *out, size_t size, char *why, size_t wsize)
{
    const char *cand[2];
    char own[64], real[PATH_MAX];
    struct stat st;
    size_t i;
    snprintf(own, sizeof own, "/run/user/%lu", (unsigned long)geteuid());
    cand[0] = getenv("XDG_RUNTIME_DIR");
    cand[1] = own;
    snprintf(why, wsize, "no runtime directory of this user (XDG_RUNTIME_DIR, %s)", own);
    for (i = 0; i < 2; i++) {
        if (!cand[i] || cand[i][0] != '/' || !realpath(cand[i], real))
            continue;
        if (lstat(real, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
            (st.st_mode & 077) != 0) {
            snprintf(why, wsize, "the runtime directory %s is not this user's own with mode 0700",
                     real);
            continue;
        }
        if (in_roots(rt, real)) {
            snprintf(why, wsize, "the runtime directory %s lies in a writable root", real);
            continue;
        }
        if ((size_t)snprintf(out, size, "%s/libsandbox", real) >= size)
            continue;
        return 0;
    }
    return -1;
}

void sbx_unix_proxy_buses(const sbx_resolved *r, struct sbx_unix_list *l)
{
    char dir[PATH_MAX], why[PATH_MAX + 128];
    struct ep_roots rt;
    struct stat st;
    size_t i;
    int have_dir = -1;
    long long deadline = sbx_dbus_deadline();
    for (i = 0; i < l->n; i++) {
        struct sbx_unix_ep *e = &l->e[i];
        /* A bus the host named with --deny-unix stays closed whole; one of
         * another user (root sees every /run/user) too. */
        if (e->what != session_bus || e->named || e->cover || lstat(e->real, &st) != 0 ||
            st.st_uid != geteuid())
            continue;
        if (have_dir < 0) {
            if (roots_load(r, &rt) != 0) {
                roots_free(&rt);
                return;
            }
            have_dir = proxy_dir(&rt, dir, sizeof dir, why, sizeof why) == 0;
            roots_free(&rt);
        }
        if (have_dir)
            (void)sbx_dbus_proxy_find(dir, e->real, deadline, &e->cover, &e->cover_fd, why,
                                      sizeof why);
    }
}

int sbx_unix_pin_apply(const struct sbx_unix_list *l, int *sys_errno)
{
    size_t i;
    for (i = 0; i < l->n_pin; i++) {
        /* Recursive: a plain bind would hide what is mounted below (the
         * masks, another file system) and, in a user namespace, is refused
         * over locked mounts. After the masks, so the copy carries them and
         * a working directory entered before still meets them. */
        if (mount(l->pin[i].path, l->pin[i].path, NULL, MS_BIND | MS_REC, NULL) != 0) {
            if (errno == ENOENT && !l->pin[i].named)
                continue; /* gone with its socket since the list was made */
            *sys_errno = errno;
            return -1;
        }
    }
    return 0;
}

/* "/proc/self/fd/N" (async-signal-safe). */
static void fd_name(char *buf, int fd)
{
    static const char pre[] = "/proc/self/fd/";
    memcpy(buf, pre, sizeof pre - 1);
    sbx_put_dec(buf + sizeof pre - 1, (unsigned long)fd);
}

/* Bind the listener `fd`, bound at `name`, over `target`: from the inode
 * at the name, once it is shown to be the listener's own. A process of the
 * same account (another sandboxed command: /tmp is writable to it) may swap
 * the name for a link to the closed socket itself between the bind and the
 * mount (review r72 F1), so the inode is pinned (O_PATH, no link followed),
 * then connected to through that descriptor: it is ours only when our own
 * listener then holds a connection from this process. The mount takes the
 * pinned inode, never the name again. Async-signal-safe. 0, or -1. */
static int cover_mount(int fd, const char *name, const char *target, const struct stat *orig)
{
    struct sockaddr_un a;
    struct stat st, now;
    int p, c, i, ok = 0;
    p = openat(AT_FDCWD, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (p < 0)
        return -1;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    fd_name(a.sun_path, p);
    c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fstat(p, &st) == 0 && S_ISSOCK(st.st_mode) && c >= 0 &&
        connect(c, (const struct sockaddr *)&a, sizeof a) == 0) {
        /* Others may have connected first: ours is the one from this pid. */
        for (i = 0; i < 16 && !ok; i++) {
            struct ucred cred;
            socklen_t len = sizeof cred;
            int x = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
            if (x < 0)
                break;
            ok = getsockopt(x, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
                 cred.pid == getpid();
            close(x);
        }
    }
    if (c >= 0)
        close(c);
    if (ok)
        ok = mount(a.sun_path, target, NULL, MS_BIND, NULL) == 0;
    /* The closed socket's own mode and owner (root may give them; in the
     * masks' namespace the owner stays the caller's): a command that drops
     * to another account meets the access check it would have met, not the
     * 0700 of the fresh name (review r73b F4). */
    if (ok) {
        (void)chown(a.sun_path, orig->st_uid, orig->st_gid);
        (void)chmod(a.sun_path, orig->st_mode & 07777);
        /* The fresh name goes now, and must be the last name of the inode:
         * renamed away after the pin (review r73a F1), it would stay as a
         * name of the listener, and the mount would no longer show a
         * stand-in's unlinked name to a nested launcher (126 there). So it
         * goes only while it is still the socket's: exchanged meanwhile (by
         * a process of the same account, or root, in /tmp), the socket
         * keeps another name, which the mount shows once that one went
         * too (a nested launch exited 126: CI, beside test_unix_endpoints'
         * name-swap check). Either way the mount is undone: /dev/null. */
        ok = fstatat(AT_FDCWD, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && fstat(p, &st) == 0 &&
             now.st_dev == st.st_dev && now.st_ino == st.st_ino && unlink(name) == 0;
        if (!ok || fstat(p, &st) != 0 || st.st_nlink != 0) {
            (void)umount2(target, MNT_DETACH);
            ok = 0;
        }
    }
    close(p);
    return ok ? 0 : -1;
}

int sbx_unix_cover(struct sbx_covers *c, const char *target, int may_connect)
{
    /* Bound first at a fresh name of the caller's own: bind makes the name
     * or fails (EADDRINUSE), never following what is there. Mode 0700 for
     * the moment it has that name; the name goes once the mount holds the
     * socket, and the mount point then cannot be renamed, unlinked or
     * linked, as /dev/null's could not. */
    static const char *const base[] = {"/tmp/.sbx-cover-", "/dev/shm/.sbx-cover-"};
    struct sockaddr_un a;
    struct stat st;
    unsigned long long rnd;
    mode_t um;
    size_t b;
    int fd, k, h;
    if (!c || !may_connect || c->n >= SBX_COVER_MAX || lstat(target, &st) != 0 ||
        !S_ISSOCK(st.st_mode))
        return -1;
    fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    um = umask(077);
    for (b = 0; b < sizeof base / sizeof base[0]; b++) {
        for (k = 0; k < 8; k++) {
            char *p;
            memset(&a, 0, sizeof a);
            a.sun_family = AF_UNIX;
            p = a.sun_path + strlen(base[b]);
            memcpy(a.sun_path, base[b], strlen(base[b]));
            /* Unguessable: another account cannot take the names first. */
            if (syscall(SYS_getrandom, &rnd, sizeof rnd, 0) != (long)sizeof rnd)
                rnd = ((unsigned long long)getpid() << 20) ^ ((unsigned long long)c->n << 8) ^
                      (unsigned long long)k;
            for (h = 0; h < 16; h++)
                *p++ = "0123456789abcdef"[(rnd >> (60 - 4 * h)) & 15];
            *p = '\0';
            if (bind(fd, (const struct sockaddr *)&a, sizeof a) == 0)
                goto bound;
            if (errno != EADDRINUSE)
                break;
        }
    }
    umask(um);
    close(fd);
    return -1;
bound:
    umask(um);
    /* On success cover_mount has unlinked the fresh name itself. */
    if (listen(fd, 64) != 0 || cover_mount(fd, a.sun_path, target, &st) != 0) {
        unlink(a.sun_path);
        close(fd);
        return -1;
    }
    c->fd[c->n] = fd;
    c->path[c->n] = target;
    c->n++;
    return 0;
}

int sbx_unix_mask_apply(const struct sbx_unix_list *l, struct sbx_covers *cov, int *sys_errno)
{
    size_t i;
    for (i = 0; i < l->n; i++) {
        /* nodev: the device cannot be opened either; read-only: nothing
         * to write. The mount point cannot be renamed, unlinked or linked. */
        char src[48];
        int fd = sbx_dbus_cover_open(l->e[i].cover, l->e[i].cover_fd, src, sizeof src);
        if (fd >= 0) {
            /* The filtering proxy's socket instead: nothing to remount (a
             * connect needs no write access to the mount). */
            int ok = mount(src, l->e[i].real, NULL, MS_BIND, NULL);
            close(fd);
            if (ok == 0)
                continue;
        }
        /* A supervised run: the supervisor's stand-in, which records. */
        if (cov && !l->e[i].named && sbx_unix_cover(cov, l->e[i].real,
                                  faccessat(AT_FDCWD, l->e[i].real, W_OK, AT_EACCESS) == 0) == 0)
            continue;
        if (mount("/dev/null", l->e[i].real, NULL, MS_BIND, NULL) != 0) {
            /* Gone since the list was made (a daemon stopped; a plan reused
             * later): nothing answers there. One the host named stays a
             * request that must hold: fail closed. */
            if (errno == ENOENT && !l->e[i].named)
                continue;
            *sys_errno = errno;
            return -1;
        }
        if (mount(NULL, l->e[i].real, NULL,
                  MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
            *sys_errno = errno;
            return -1;
        }
    }
    return sbx_unix_pin_apply(l, sys_errno);
}

/* An entry "unix:abstract=NAME" (or a listenable "unix:tmpdir=", which a
 * server turns into an abstract name on Linux) of a D-Bus address. */
static int dbus_has_abstract(const char *addr)
{
    const char *s = addr;
    while (s && *s) {
        const char *end = strchr(s, ';');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len > 5 && strncmp(s, "unix:", 5) == 0) {
            const char *k = s + 5;
            while (k < s + len) {
                const char *comma = memchr(k, ',', (size_t)(s + len - k));
                const char *stop = comma ? comma : s + len;
                if ((size_t)(stop - k) > 9 && strncmp(k, "abstract=", 9) == 0)
                    return 1;
                k = stop + 1;
            }
        }
        s = end ? end + 1 : NULL;
    }
    return 0;
}

int sbx_unix_dbus_abstract(const char **var)
{
    size_t i;
    for (i = 0; i < EP_DBUS_NAMES; i++)
        if (dbus_has_abstract(getenv(dbus_vars[i]))) {
            *var = dbus_vars[i];
            return 1;
        }
    return 0;
}

/* How abstract sockets fare under `r` on a kernel with Landlock `abi`. */
enum { ABS_SCOPED, ABS_ALLOWED, ABS_NO_ABI, ABS_X11 };
static int abstract_state(const sbx_resolved *r, int abi)
{
    if (r->allow_abstract_unix == 2)
        return ABS_X11;
    if (r->allow_abstract_unix)
        return ABS_ALLOWED;
    return abi >= 6 ? ABS_SCOPED : ABS_NO_ABI;
}

/* How a session bus is served (--explain, --self-test): a prediction, no
 * proxy is started for it. */
static const char *proxy_note(const struct sbx_unix_ep *e, int bare)
{
    struct stat st;
    if (e->named)
        return bare ? "none: named with --deny-unix, closed whole"
                    : "    closed whole: named with --deny-unix\n";
    if (lstat(e->real, &st) != 0 || st.st_uid != geteuid())
        return bare ? "none: another user's bus, closed whole"
                    : "    closed whole: another user's bus\n";
    if (!sbx_dbus_proxy_installed())
        return bare ? "none: " SBX_DBUS_PROXY_BIN " is not installed, closed whole"
                    : "    closed whole: " SBX_DBUS_PROXY_BIN " is not installed (apt-get "
                      "install xdg-dbus-proxy filters it instead)\n";
    return bare ? "xdg-dbus-proxy: the bus itself and the notification interface answer"
                : "    served through xdg-dbus-proxy when the runtime directory is private "
                  "(0700, in no writable root): the bus itself (names, a lookup) and the "
                  "notification interface of org.freedesktop.Notifications answer; systemd, "
                  "the Secret Service, the portals and everything else do not\n";
}

void sbx_unix_explain(const sbx_resolved *r, int json, sbx_buf *out)
{
    struct sbx_unix_list l;
    sandbox_error err;
    const char *why = "", *var = NULL;
    size_t i;
    int abi, abs;
    memset(&err, 0, sizeof err);
    if (r->filesystem != SANDBOX_FS_CONFINED)
        return;
    /* A list that cannot be made refuses the launch: said so, not "none"
     * (review r74b). */
    if (sbx_unix_endpoints(r, &l, &err) != SANDBOX_OK) {
        memset(&l, 0, sizeof l);
        if (json) {
            sbx_buf_add(out, ",\"unix_endpoints\":{\"refused\":");
            sbx_buf_json_str(out, err.message);
            sbx_buf_add(out, "}");
        } else {
            sbx_buf_printf(out, "privileged local sockets: the launch is REFUSED (exit 126): %s\n",
                           err.message);
        }
        return;
    }
    abi = sbx_landlock_abi(&why);
    abs = abstract_state(r, abi);
    if (json) {
        sbx_buf_add(out, ",\"unix_endpoints\":{\"mechanism\":\"masked in a private mount "
                         "namespace\",\"closed\":[");
        for (i = 0; i < l.n; i++) {
            sbx_buf_add(out, i ? ",{\"path\":" : "{\"path\":");
            sbx_buf_json_str(out, l.e[i].real);
            sbx_buf_add(out, ",\"what\":");
            sbx_buf_json_str(out, l.e[i].what);
            if (l.e[i].what == session_bus) {
                sbx_buf_add(out, ",\"proxy\":");
                sbx_buf_json_str(out, proxy_note(&l.e[i], 1));
            }
            sbx_buf_add(out, "}");
        }
        sbx_buf_add(out, "],\"open\":[\"ssh-agent\",\"gpg-agent\",\"every other socket\"],");
        sbx_buf_printf(out, "\"abstract\":{\"closed\":%s,\"how\":",
                       abs == ABS_SCOPED ? "true" : "false");
        sbx_buf_json_str(out, abs == ABS_SCOPED    ? "Landlock scope (ABI 6): only the "
                                                     "sandbox's own abstract sockets answer"
                              : abs == ABS_ALLOWED ? "open: the host allowed them (--allow-unix @)"
                              : abs == ABS_X11
                                  ? "open: DISPLAY names a local X display, which libxcb reaches "
                                    "through its abstract socket first"
                                                   : "open: this kernel's Landlock is older "
                                                     "than ABI 6, which scopes them");
        if (sbx_unix_dbus_abstract(&var)) {
            sbx_buf_add(out, ",\"dbus_abstract\":");
            sbx_buf_json_str(out, var);
        }
        sbx_buf_add(out, "}}");
    } else {
        sbx_buf_add(out, "privileged local sockets (masked in a private mount namespace: connect "
                         "and sendto fail with ECONNREFUSED; in a supervised run a connect is "
                         "accepted by the supervisor's stand-in, recorded and closed at once):\n");
        if (l.n == 0)
            sbx_buf_add(out, "  none of the known ones exists on this machine now\n");
        for (i = 0; i < l.n; i++) {
            sbx_buf_printf(out, "  closed %s (%s)\n", l.e[i].real, l.e[i].what);
            if (l.e[i].what == session_bus)
                sbx_buf_add(out, proxy_note(&l.e[i], 0));
        }
        for (i = 0; i < l.n_pin; i++)
            sbx_buf_printf(out, "  pinned %s (a folder above a closed socket in a writable root: "
                                "the command cannot rename it)\n",
                           l.pin[i].path);
        sbx_buf_add(out, "  open: ssh-agent and gpg-agent (git over ssh, signing), and every "
                         "other socket; --allow-unix PATH reopens one, --deny-unix PATH adds "
                         "one\n");
        sbx_buf_add(out, abs == ABS_SCOPED
                             ? "  abstract sockets (@name): closed by the Landlock scope (ABI "
                               "6), but the command's own; --allow-unix @ reopens them all\n"
                         : abs == ABS_ALLOWED
                             ? "  abstract sockets (@name): open, the host allowed them "
                               "(--allow-unix @)\n"
                         : abs == ABS_X11
                             ? "  abstract sockets (@name): OPEN, DISPLAY names a local X "
                               "display (libxcb tries its abstract socket first and does not "
                               "fall back when refused); start without DISPLAY, or "
                               "--drop-env DISPLAY, to close them\n"
                             : "  abstract sockets (@name): OPEN, this kernel's Landlock is "
                               "older than ABI 6 (Linux 6.12), which scopes them\n");
        if (abs != ABS_SCOPED && sbx_unix_dbus_abstract(&var))
            sbx_buf_printf(out, "  %s names an abstract socket: that bus stays reachable\n",
                           var);
    }
    sbx_unix_list_free(&l);
}

int sbx_unix_self_test(int abi, int masks_ok, const char *masks_why, char *detail, size_t size)
{
    sbx_resolved r;
    struct sbx_unix_list l;
    sandbox_error err;
    const char *var = NULL;
    size_t i, n_known = sizeof ep_list / sizeof ep_list[0];

    memset(&r, 0, sizeof r);
    memset(&err, 0, sizeof err);
    r.filesystem = SANDBOX_FS_CONFINED;
    r.home_dir = getenv("HOME");
    if (sbx_unix_endpoints(&r, &l, &err) != SANDBOX_OK)
        memset(&l, 0, sizeof l);
    detail[0] = '\0';
    sbx_warn(detail, size, "abstract sockets: %s",
             abi < 6 ? "OPEN (needs Landlock ABI 6, Linux 6.12)"
             : sbx_x_display_in_use(getenv("DISPLAY"))
                 ? "OPEN while DISPLAY names a local X display (libxcb needs its abstract "
                   "socket); closed by the Landlock scope without one"
                 : "closed (Landlock scope, ABI 6; the command's own answer)");
    if ((abi < 6 || sbx_x_display_in_use(getenv("DISPLAY"))) && sbx_unix_dbus_abstract(&var))
        sbx_warn(detail, size, "%s is abstract: that bus stays open", var);
    sbx_warn(detail, size, "path sockets: %s", masks_ok ? "masked" : "NOT masked for this user");
    if (!masks_ok && masks_why && masks_why[0])
        sbx_warn(detail, size, "%s", masks_why);
    /* The list's known paths, then the ones present now (buses included). */
    sbx_warn(detail, size, "%zu present of %zu known", l.n, n_known);
    for (i = 0; i < l.n; i++)
        sbx_warn(detail, size, "%s (%s%s%s)", l.e[i].real, l.e[i].what,
                 l.e[i].what == session_bus ? "; proxy " : "",
                 l.e[i].what == session_bus ? proxy_note(&l.e[i], 1) : "");
    sbx_unix_list_free(&l);
    return abi >= 6 && masks_ok;
}
