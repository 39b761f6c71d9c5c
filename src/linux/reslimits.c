/* Resource limits of a supervised run (reslimits.h).
 *
 * Memory and processes are limits on the whole run, so they belong to a
 * cgroup: the run gets a cgroup v2 of its own under the caller's, where the
 * caller may create one (root, or a delegated subtree) and the controller is
 * enabled for its children. Without one, memory falls back to RLIMIT_DATA
 * per process (private writable memory: what an allocation grows; RLIMIT_AS
 * would also count the address space runtimes reserve without using -- Go,
 * Java, V8 and ASan reserve gigabytes -- and refuse them at start). A process
 * limit has no safe fallback: RLIMIT_NPROC counts every process of the real
 * uid on the machine (the user's desktop too) and is ignored for uid 0, so
 * --limit-pids without a cgroup fails closed. CPU time, file size and
 * descriptors are per-process rlimits, whatever the cgroup: they mean
 * exactly what was asked (cpu.max is a rate, not a total).
 *
 * cgroup v1 is not used: its hierarchies belong to whoever set the machine
 * up (here the VM runner's memory cgroup), a v1 pids or memory group of the
 * run's own would need root and a second cleanup per controller, and
 * cgroup.kill does not exist there. */
#define _GNU_SOURCE
#include "reslimits.h"
#include "linux.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SBX_CAP_SYS_RESOURCE 24
#define SBX_CAP_SYS_ADMIN 21

/* The run's cgroup is only safe inside a cgroup namespace rooted at it:
 * otherwise its owner (root, or a delegated subtree's user) moves a process
 * out with clone3(CLONE_INTO_CGROUP) and a descriptor of an outer cgroup, a
 * call no Landlock rule sees. Creating the namespace needs CAP_SYS_ADMIN. */
static const char cg_ns_why[] =
    "a cgroup of the run's own needs CAP_SYS_ADMIN to put the command in a cgroup namespace "
    "rooted at it (without one the command could leave it with clone3(CLONE_INTO_CGROUP))";

static const char *const limit_names[SBX_N_LIMITS] = {NULL,        "memory",    "pids",
                                                      "cpu",       "file-size", "open-files"};

/* ---- the caller's cgroup v2 ---- */

/* Read a small file (the host's side: stdio is fine here). */
static int read_text(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "re");
    size_t n;
    if (!f)
        return -1;
    n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    return 0;
}

static int write_text(const char *dir, const char *file, const char *text)
{
    char p[768];
    int fd, e;
    ssize_t n;
    snprintf(p, sizeof p, "%s/%s", dir, file);
    fd = openat(AT_FDCWD, p, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    n = write(fd, text, strlen(text));
    e = n < 0 ? errno : 0;
    close(fd);
    return e;
}

/* "memory" is a word of the space-separated list in dir/file. */
static int has_word(const char *dir, const char *file, const char *word)
{
    char p[768], buf[512], *tok, *save = NULL;
    snprintf(p, sizeof p, "%s/%s", dir, file);
    if (read_text(p, buf, sizeof buf) != 0)
        return 0;
    for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
        if (strcmp(tok, word) == 0)
            return 1;
    return 0;
}

/* The caller's own cgroup v2 directory: the cgroup2 mount of this mount
 * namespace joined with the "0::" line of /proc/self/cgroup. 0 or -1 with
 * `why` set. */
static int own_cgroup(char *dir, size_t size, char *why, size_t wsize)
{
    char line[1024], mnt[256] = "", rel[400] = "";
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f) {
        snprintf(why, wsize, "/proc/self/cgroup cannot be read (%s)", strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "0::", 3) == 0) {
            snprintf(rel, sizeof rel, "%.399s", line + 3);
            rel[strcspn(rel, "\n")] = '\0';
        }
    fclose(f);
    if (!rel[0]) {
        snprintf(why, wsize, "this process is in no cgroup v2 hierarchy");
        return -1;
    }
    f = fopen("/proc/self/mountinfo", "re");
    if (!f) {
        snprintf(why, wsize, "/proc/self/mountinfo cannot be read (%s)", strerror(errno));
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        /* id parent maj:min root mountpoint options... - fstype source ... */
        char root[256], point[256], *dash = strstr(line, " - ");
        if (!dash || strncmp(dash + 3, "cgroup2 ", 8) != 0)
            continue;
        if (sscanf(line, "%*s %*s %*s %255s %255s", root, point) == 2 &&
            strcmp(root, "/") == 0 && !strchr(point, '\\')) {
            snprintf(mnt, sizeof mnt, "%s", point);
            break;
        }
    }
    fclose(f);
    if (!mnt[0]) {
        snprintf(why, wsize, "no cgroup v2 hierarchy is mounted");
        return -1;
    }
    if (snprintf(dir, size, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel) >= (int)size) {
        snprintf(why, wsize, "the cgroup path is too long");
        return -1;
    }
    return 0;
}

/* Can the children of `dir` get `ctrl`? Enables it when the parent has it
 * and the kernel lets us (root's cgroup, or an empty delegated one). */
static int child_controller(const char *dir, const char *ctrl)
{
    char plus[32];
    if (has_word(dir, "cgroup.subtree_control", ctrl))
        return 1;
    if (!has_word(dir, "cgroup.controllers", ctrl))
        return 0;
    snprintf(plus, sizeof plus, "+%s", ctrl);
    return write_text(dir, "cgroup.subtree_control", plus) == 0;
}

/* Without changing anything: would child_controller succeed? Enabling
 * needs the cgroup writable and, but for a hierarchy's root, empty of
 * processes (cgroup v2's "no internal processes" rule). */
static int could_enable(const char *dir, const char *ctrl)
{
    char p[768], buf[16];
    if (access(dir, W_OK) != 0)
        return 0;
    if (has_word(dir, "cgroup.subtree_control", ctrl))
        return 1;
    if (!has_word(dir, "cgroup.controllers", ctrl))
        return 0;
    snprintf(p, sizeof p, "%s/cgroup.type", dir);
    if (access(p, F_OK) != 0)
        return 1; /* the root cgroup has no type file */
    snprintf(p, sizeof p, "%s/cgroup.procs", dir);
    return read_text(p, buf, sizeof buf) == 0 && buf[0] == '\0';
}

void sbx_limits_plan(const unsigned long long want[SBX_N_LIMITS], struct sbx_limits *l)
{
    char dir[512];
    int w, mem_cg = 0, pids_cg = 0;

    memset(l, 0, sizeof *l);
    l->cg_procs = l->cg_kill = -1;
    for (w = 1; w < SBX_N_LIMITS; w++) {
        l->want[w] = want[w];
        l->any |= want[w] != 0;
    }
    if (!l->any)
        return;
    if (own_cgroup(dir, sizeof dir, l->cg_why, sizeof l->cg_why) == 0) {
        mem_cg = could_enable(dir, "memory");
        pids_cg = could_enable(dir, "pids");
        if (access(dir, W_OK) != 0)
            snprintf(l->cg_why, sizeof l->cg_why,
                     "the caller's cgroup %s is not writable (no delegated subtree)", dir);
        else if (!mem_cg || !pids_cg)
            snprintf(l->cg_why, sizeof l->cg_why,
                     "the caller's cgroup %s cannot give a child cgroup the %s controller%s", dir,
                     !mem_cg && !pids_cg ? "memory and pids" : !pids_cg ? "pids" : "memory",
                     !mem_cg && !pids_cg ? "s" : "");
    }
    if ((mem_cg || pids_cg) && !sbx_caps_held(1ULL << SBX_CAP_SYS_ADMIN)) {
        mem_cg = pids_cg = 0;
        snprintf(l->cg_why, sizeof l->cg_why, "%s", cg_ns_why);
    }
    if (want[SANDBOX_LIMIT_MEMORY])
        l->mech[SANDBOX_LIMIT_MEMORY] = mem_cg ? SBX_LM_CGROUP : SBX_LM_RLIMIT;
    if (want[SANDBOX_LIMIT_PIDS])
        l->mech[SANDBOX_LIMIT_PIDS] = pids_cg ? SBX_LM_CGROUP : SBX_LM_NONE;
    for (w = SANDBOX_LIMIT_CPU; w < SBX_N_LIMITS; w++)
        if (want[w])
            l->mech[w] = SBX_LM_RLIMIT;
}

static void cg_remove(struct sbx_limits *l)
{
    int i;
    if (!l->cg_path[0])
        return;
    /* Empty it first: nothing may outlive the run in a cgroup we drop. */
    for (i = 0; i < 200 && rmdir(l->cg_path) != 0 && errno == EBUSY; i++) {
        struct timespec ms = {0, 1000000};
        sbx_limits_kill(l);
        nanosleep(&ms, NULL);
    }
    l->cg_path[0] = '\0';
}

static void close_fds(struct sbx_limits *l)
{
    if (l->cg_procs >= 0)
        close(l->cg_procs);
    if (l->cg_kill >= 0)
        close(l->cg_kill);
    l->cg_procs = l->cg_kill = -1;
}

/* Remove the empty cgroups of runs whose launcher died (SIGKILL leaves no
 * time for sbx_limits_release): only ours by name (sandbox-run-PID-USEC),
 * owned by this uid, whose PID is gone. rmdir refuses a populated one. */
static void remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    struct stat st;
    char p[768], *end;
    long pid;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "sandbox-run-", 12) != 0)
            continue;
        pid = strtol(e->d_name + 12, &end, 10);
        if (pid <= 0 || *end != '-' || end[1] < '0' || end[1] > '9')
            continue;
        (void)strtol(end + 1, &end, 10);
        if (*end != '\0')
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid())
            (void)rmdir(p);
    }
    closedir(d);
}

int sbx_limits_prepare(const unsigned long long want[SBX_N_LIMITS], struct sbx_limits *l,
                       sandbox_error *err)
{
    char dir[512], p[768], val[32];
    struct timespec now;
    int e;

    sbx_limits_plan(want, l);
    if (!l->any)
        return SANDBOX_OK;
    if (want[SANDBOX_LIMIT_MEMORY] && want[SANDBOX_LIMIT_MEMORY] < 1024ULL * 1024ULL)
        return sbx_fail(err, SANDBOX_E_INVALID, 0,
                        "a memory limit below 1 MiB cannot run any program");
    /* A cgroup whenever memory or processes are limited and one can be made
     * (the tree end with cgroup.kill comes with it). */
    if ((want[SANDBOX_LIMIT_MEMORY] || want[SANDBOX_LIMIT_PIDS]) &&
        sbx_caps_held(1ULL << SBX_CAP_SYS_ADMIN) &&
        own_cgroup(dir, sizeof dir, l->cg_why, sizeof l->cg_why) == 0) {
        int mem_ok = !want[SANDBOX_LIMIT_MEMORY] || child_controller(dir, "memory");
        int pids_ok = !want[SANDBOX_LIMIT_PIDS] || child_controller(dir, "pids");
        remove_stale(dir);
        clock_gettime(CLOCK_MONOTONIC, &now);
        snprintf(l->cg_path, sizeof l->cg_path, "%s/sandbox-run-%ld-%ld", dir, (long)getpid(),
                 (long)(now.tv_sec * 1000000 + now.tv_nsec / 1000));
        if (mkdir(l->cg_path, 0755) != 0) {
            snprintf(l->cg_why, sizeof l->cg_why, "cannot create a cgroup under %s: %s", dir,
                     strerror(errno));
            l->cg_path[0] = '\0';
        } else {
            snprintf(p, sizeof p, "%s/cgroup.procs", l->cg_path);
            l->cg_procs = openat(AT_FDCWD, p, O_WRONLY | O_CLOEXEC);
            e = l->cg_procs < 0 ? errno : 0;
            snprintf(p, sizeof p, "%s/cgroup.kill", l->cg_path);
            /* 5.14+; the pidfd walk otherwise */
            l->cg_kill = openat(AT_FDCWD, p, O_WRONLY | O_CLOEXEC);
            l->mech[SANDBOX_LIMIT_MEMORY] = want[SANDBOX_LIMIT_MEMORY]
                                                ? (mem_ok ? SBX_LM_CGROUP : SBX_LM_RLIMIT)
                                                : SBX_LM_NONE;
            l->mech[SANDBOX_LIMIT_PIDS] = want[SANDBOX_LIMIT_PIDS] && pids_ok ? SBX_LM_CGROUP
                                                                              : SBX_LM_NONE;
            if (!e && l->mech[SANDBOX_LIMIT_MEMORY] == SBX_LM_CGROUP) {
                snprintf(val, sizeof val, "%llu", want[SANDBOX_LIMIT_MEMORY]);
                e = write_text(l->cg_path, "memory.max", val);
                /* Swap would let the run grow past memory.max on disk. */
                snprintf(p, sizeof p, "%s/memory.swap.max", l->cg_path);
                if (!e && access(p, F_OK) == 0)
                    e = write_text(l->cg_path, "memory.swap.max", "0");
            }
            if (!e && l->mech[SANDBOX_LIMIT_PIDS] == SBX_LM_CGROUP) {
                snprintf(val, sizeof val, "%llu", want[SANDBOX_LIMIT_PIDS]);
                e = write_text(l->cg_path, "pids.max", val);
            }
            if (e) {
                close_fds(l);
                cg_remove(l);
                return sbx_fail(err, SANDBOX_E_SYSTEM, e,
                                "cannot set up the run's cgroup under %s: %s", dir, strerror(e));
            }
            if (!mem_ok || !pids_ok)
                snprintf(l->cg_why, sizeof l->cg_why,
                         "the caller's cgroup %s cannot give its children the %s controller",
                         dir, !pids_ok ? "pids" : "memory");
        }
    }
    if (want[SANDBOX_LIMIT_PIDS] && l->mech[SANDBOX_LIMIT_PIDS] != SBX_LM_CGROUP) {
        char why[sizeof l->cg_why];
        memcpy(why, l->cg_why, sizeof why);
        sbx_limits_release(l);
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "a process limit needs a cgroup of the run's own with the pids "
                        "controller (RLIMIT_NPROC counts all of the user's processes): %s; run "
                        "as root, or in a delegated cgroup (systemd-run --user --scope -p "
                        "Delegate=yes), or without the process limit",
                        why[0] ? why : "none");
    }
    return SANDBOX_OK;
}

/* ---- the command's side and the supervisor's (async-signal-safe) ---- */

/* Set one limit, soft and hard, never above what the caller has (lowering
 * is always allowed, without CAP_SYS_RESOURCE too). 0 or an errno. */
static int set_one(int resource, int w, unsigned long long want)
{
    struct rlimit rl, old;
    rl.rlim_cur = rl.rlim_max = (rlim_t)want;
    /* CPU: SIGXCPU at the limit, which says why; SIGKILL a second later
     * for a command that catches it. */
    if (w == SANDBOX_LIMIT_CPU)
        rl.rlim_max = rl.rlim_cur + 1;
    if (getrlimit(resource, &old) == 0 && old.rlim_max != RLIM_INFINITY) {
        if (rl.rlim_max > old.rlim_max)
            rl.rlim_max = old.rlim_max;
        if (rl.rlim_cur > rl.rlim_max)
            rl.rlim_cur = rl.rlim_max;
    }
    return setrlimit(resource, &rl) != 0 ? errno : 0;
}

int sbx_limits_enter_fds(const struct sbx_limits *l)
{
    if (!l || l->mech[SANDBOX_LIMIT_OPEN_FILES] != SBX_LM_RLIMIT)
        return 0;
    return set_one(RLIMIT_NOFILE, SANDBOX_LIMIT_OPEN_FILES, l->want[SANDBOX_LIMIT_OPEN_FILES]);
}

int sbx_limits_enter(const struct sbx_limits *l)
{
    static const int res[SBX_N_LIMITS] = {-1, RLIMIT_DATA, -1, RLIMIT_CPU, RLIMIT_FSIZE,
                                          RLIMIT_NOFILE};
    int w, e;

    if (!l || !l->any)
        return 0;
    /* Into the cgroup first: from here every process the command makes is
     * counted and ended with it. */
    if (l->cg_procs >= 0 && write(l->cg_procs, "0", 1) != 1)
        return errno;
    /* Then a cgroup namespace rooted at it: the kernel refuses a
     * cgroup.procs write or a clone3(CLONE_INTO_CGROUP) whose target lies
     * outside the namespace's root, so nothing the command starts can leave
     * the run's cgroup. A confined command has no CAP_SYS_ADMIN left: its
     * stacked no-userns filter refuses clone3 instead (ns_optional, set by
     * the spawn); anything else fails closed. */
    if (l->cg_procs >= 0 && unshare(CLONE_NEWCGROUP) != 0 &&
        !(l->ns_optional && errno == EPERM))
        return errno;
    for (w = 1; w < SBX_N_LIMITS; w++) {
        /* Descriptors last (sbx_limits_enter_fds): the supervisor's
         * handover still needs a few of its own. */
        if (l->mech[w] != SBX_LM_RLIMIT || res[w] < 0 || w == SANDBOX_LIMIT_OPEN_FILES)
            continue;
        if ((e = set_one(res[w], w, l->want[w])) != 0)
            return e;
    }
    /* Without CAP_SYS_RESOURCE no descendant can raise a hard limit; without
     * no_new_privs a setuid program could bring it back. The confining
     * modes drop it already; an all-off policy with limits does here. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    return sbx_caps_drop(1ULL << SBX_CAP_SYS_RESOURCE);
}

void sbx_limits_kill(const struct sbx_limits *l)
{
    if (l && l->cg_kill >= 0)
        (void)pwrite(l->cg_kill, "1", 1, 0);
}

/* ---- after the run ---- */

static unsigned long long event(const char *dir, const char *file, const char *key)
{
    char p[768], buf[1024], *s;
    size_t k = strlen(key);
    snprintf(p, sizeof p, "%s/%s", dir, file);
    if (read_text(p, buf, sizeof buf) != 0)
        return 0;
    for (s = buf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
        if (strncmp(s, key, k) == 0 && s[k] == ' ')
            return strtoull(s + k + 1, NULL, 10);
    return 0;
}

const char *sbx_limits_reason(const struct sbx_limits *l, int status, uint32_t cpu_ms,
                              int timed_out, int *certain)
{
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    /* Killed by SIGKILL, or a shell's 137 for a child that was. */
    int killed = sig == SIGKILL || code == 128 + SIGKILL;
    unsigned long long cpu_limit_ms = l ? l->want[SANDBOX_LIMIT_CPU] * 1000ULL : 0;
    *certain = 0;
    /* The timeout ended the run (the outcome says "timeout"): a counter
     * that rose before it did not. */
    if (!l || !l->any || timed_out)
        return NULL;
    /* A counter that rose names a limit only when the run failed as that
     * limit fails it: the OOM killer's SIGKILL; a failed fork's non-zero
     * end. A command that survived one refused fork and exited 0 was not
     * ended by a limit. */
    if (killed && l->cg_path[0] && l->mech[SANDBOX_LIMIT_MEMORY] == SBX_LM_CGROUP &&
        event(l->cg_path, "memory.events", "oom_kill") > 0) {
        *certain = sig == SIGKILL;
        return "memory";
    }
    if (status != 0 && l->cg_path[0] && l->mech[SANDBOX_LIMIT_PIDS] == SBX_LM_CGROUP &&
        event(l->cg_path, "pids.events", "max") > 0)
        return "pids";
    /* CPU: SIGXCPU at the soft limit, SIGKILL at the hard one; the
     * command's CPU time at the limit is the kernel's word for either. */
    if (cpu_limit_ms && (sig == SIGXCPU || sig == SIGKILL) && cpu_ms + 50 >= cpu_limit_ms) {
        *certain = 1;
        return "cpu";
    }
    /* From the status only: the kernel's signal of an rlimit, or a shell's
     * 128+N for it. A command can send or exit with those itself. */
    if (cpu_limit_ms && (sig == SIGXCPU || code == 128 + SIGXCPU))
        return "cpu";
    if (l->want[SANDBOX_LIMIT_FILE_SIZE] && (sig == SIGXFSZ || code == 128 + SIGXFSZ))
        return "file-size";
    return NULL;
}

void sbx_limits_release(struct sbx_limits *l)
{
    if (!l)
        return;
    cg_remove(l);
    close_fds(l);
}

/* ---- explain and self-test ---- */

static const char *mech_text(const struct sbx_limits *l, int w)
{
    switch (l->mech[w]) {
    case SBX_LM_CGROUP:
        return w == SANDBOX_LIMIT_MEMORY ? "cgroup v2 memory.max (the whole run; swap 0)"
                                         : "cgroup v2 pids.max (the whole run)";
    case SBX_LM_RLIMIT:
        return w == SANDBOX_LIMIT_MEMORY  ? "RLIMIT_DATA (no delegated cgroup: per-process private data only; shared "
                                                "memory and tmpfs are not counted)"
               : w == SANDBOX_LIMIT_CPU   ? "RLIMIT_CPU (per process: SIGXCPU, SIGKILL 1 s later)"
               : w == SANDBOX_LIMIT_FILE_SIZE ? "RLIMIT_FSIZE (per process: SIGXFSZ or EFBIG)"
                                              : "RLIMIT_NOFILE (per process)";
    default:
        return "cannot be applied here (the run would fail with exit 126)";
    }
}

void sbx_limits_describe(const struct sbx_limits *l, int json, sbx_buf *out)
{
    int w, first = 1;
    if (json)
        sbx_buf_add(out, "[");
    else if (l->any)
        sbx_buf_add(out, "  resource limits (a supervised run; every descendant inherits them and "
                         "none can raise them: CAP_SYS_RESOURCE is dropped under "
                         "no_new_privs):\n");
    for (w = 1; w < SBX_N_LIMITS; w++) {
        if (!l->want[w])
            continue;
        if (json) {
            sbx_buf_printf(out, "%s{\"limit\":\"%s\",\"value\":%llu,\"mechanism\":\"%s\"%s}",
                           first ? "" : ",", limit_names[w], l->want[w],
                           l->mech[w] == SBX_LM_CGROUP   ? "cgroup"
                           : l->mech[w] == SBX_LM_RLIMIT ? "rlimit"
                                                         : "none",
                           w == SANDBOX_LIMIT_MEMORY && l->mech[w] == SBX_LM_RLIMIT
                               ? ",\"not_counted\":\"per-process private data only; shared "
                                 "memory and tmpfs are not counted\""
                               : "");
        } else {
            sbx_buf_printf(out, "    %-10s %llu: %s\n", limit_names[w], l->want[w],
                           mech_text(l, w));
        }
        first = 0;
    }
    if (json)
        sbx_buf_add(out, "]");
    else if (!first && l->cg_why[0] && (l->mech[SANDBOX_LIMIT_MEMORY] == SBX_LM_RLIMIT ||
                                        (l->want[SANDBOX_LIMIT_PIDS] &&
                                         l->mech[SANDBOX_LIMIT_PIDS] != SBX_LM_CGROUP)))
        sbx_buf_printf(out, "    (no cgroup of the run's own: %s)\n", l->cg_why);
}

int sbx_limits_self_test(char *detail, size_t size)
{
    unsigned long long want[SBX_N_LIMITS] = {0, 1ULL << 30, 64, 0, 0, 0};
    struct sbx_limits l;
    sbx_limits_plan(want, &l);
    snprintf(detail, size,
             "memory: %s; processes: %s; CPU time, file size and descriptors: rlimits%s%s",
             l.mech[SANDBOX_LIMIT_MEMORY] == SBX_LM_CGROUP ? "a cgroup v2 per run (memory.max)"
                                                           : "RLIMIT_DATA per process (private data only; "
                                                             "shared memory and tmpfs are not counted)",
             l.mech[SANDBOX_LIMIT_PIDS] == SBX_LM_CGROUP ? "a cgroup v2 per run (pids.max)"
                                                         : "unavailable (--limit-pids exits 126)",
             l.cg_why[0] ? "; " : "", l.cg_why);
    return l.mech[SANDBOX_LIMIT_MEMORY] == SBX_LM_CGROUP || l.mech[SANDBOX_LIMIT_PIDS] == SBX_LM_CGROUP;
}
