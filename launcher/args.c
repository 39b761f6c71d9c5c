/* The launcher's command line: flags to a policy and a command, with every
 * usage check. Kept apart from main() so it can be fuzzed
 * (fuzz/fuzz_launcher_args.c) without running anything. */
#define _GNU_SOURCE
#include "args.h"
#include "fds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_line[] =
    "usage: " PROG " [--no-network | --internet-only] [--confine-fs] [--sandbox] [--read-only]\n"
    "       [--class NAME | --tool-server] [--writable-caches] [--output DIR]\n"
    "       [--project DIR] [--add-dir DIR]... [--add-read DIR]... [--workdir DIR]\n"
    "       [--scratch DIR] [--net-eperm]\n"
    "       [--no-user-namespaces]\n"
    "       [--scan-hardlinks | --no-scan-hardlinks] [--allow-hardlink PATH]...\n"
    "       [--no-scan-index]\n"
    "       [--protect-secrets] [--protect PATTERN]... [--protect-write PATTERN]...\n"
    "       [--unprotect PATTERN]... [--git-writable]\n"
    "       [--scrub-env] [--keep-env NAME]... [--drop-env NAME]...\n"
    "       [--allow-unix PATH|@]... [--deny-unix PATH]...\n"
    "       [--close-fds] [--keep-fd N]...\n"
    "       [--report] [--outcome-fd N] [--timeout SECONDS] [--keep-background]\n"
    "       [--limit-memory SIZE] [--limit-pids N] [--limit-cpu SECONDS]\n"
    "       [--limit-file-size SIZE] [--limit-open-files N]\n"
    "       [--] CMD [ARGS...]\n"
    "       " PROG " --self-test [--json]\n"
    "       " PROG " --index-watch\n"
    "       " PROG " --explain [--json] [--target linux|macos|windows] [policy flags] [--] CMD...\n";

static const char help_text[] =
    "Run CMD under an operating-system sandbox. With no mode flag, --sandbox applies.\n"
    "\n"
    "Modes:\n"
    "  --no-network       no internet or other remote sockets (local AF_UNIX stays)\n"
    "  --internet-only    the internet, but not loopback or this machine's addresses\n"
    "                     (macOS; elsewhere refused with exit 126 until enforced)\n"
    "  --confine-fs       writes only beneath the writable roots of the class\n"
    "  --sandbox          --no-network and --confine-fs (the default)\n"
    "  --read-only        the fixed read-only profile: no writes, no metadata changes,\n"
    "                     no sockets, no IPC, no capabilities; never degraded\n"
    "Classes (each implies --confine-fs and the hard-link scan; docs/classes.md). What\n"
    "each writes; every class but --tool-server also reads only the OS, toolchains in\n"
    "the home (not their credentials), the project, working directory and scratch:\n"
    "  --class project    the project, working directory and scratch (the default)\n"
    "  --class research   the scratch directory only\n"
    "  --class build      project + package caches (npm pip cargo go gradle maven bun\n"
    "                     pnpm yarn ccache conda), made first when missing\n"
    "  --class offline    as project, and never any network\n"
    "  --class media      the --output folder and the scratch; never any network; reads\n"
    "                     only the OS, the project and the output folder\n"
    "  --tool-server      a stdio tool server: its working directory and scratch,\n"
    "                     network allowed unless a network flag says otherwise\n"
    "Policy:\n"
    "  --project DIR      the project root (default: the git root above the working\n"
    "                     directory, else the working directory; the home, /, ~/Library\n"
    "                     or a package store is never one: the command then writes\n"
    "                     only its scratch; a working directory outside the project\n"
    "                     is not writable)\n"
    "  --add-dir DIR      another writable directory (repeatable)\n"
    "  --add-read DIR     another directory a class may read (repeatable; never / or\n"
    "                     the home; no effect without a class)\n"
    "  --workdir DIR      the working directory to allow (default: the current one)\n"
    "  --scratch DIR      the scratch (temp) directory (default: $TMPDIR, else /tmp)\n"
    "  --output DIR       the one output folder of --class media\n"
    "  --writable-caches  the per-user caches (~/.cache; macOS ~/Library/Caches too),\n"
    "                     made first when missing (only below your home)\n"
    "                     no root may be /, the home or an ancestor, or pass a symlink\n"
    "                     inside another root or /tmp: refused with 126 (--explain shows\n"
    "                     what each root resolved to)\n"
    "  --net-eperm        refused sockets fail with EPERM instead of killing with SIGSYS.\n"
    "                     Toolchains that probe the network need it: under the SIGSYS\n"
    "                     default, getaddrinfo(\"localhost\") dies where /etc/hosts lists\n"
    "                     127.0.0.1 and ::1 (glibc's UDP sorting probes), and\n"
    "                     pip --version and python3 -m venv die of urllib3's IPv6 probe\n"
    "  --no-user-namespaces  the command may not create or join a user namespace (Linux;\n"
    "                     always so with --read-only)\n"
    "Pre-flight:\n"
    "  --scan-hardlinks   refuse to start (126) when a writable root holds a hard link\n"
    "                     to a file outside the roots; --no-scan-hardlinks to skip\n"
    "  --allow-hardlink PATH  accept that file's, or that folder's, links (repeatable)\n"
    "  --no-scan-index    scan in full at every launch: do not reuse what an earlier\n"
    "                     scan saw (kept in ~/.libsandbox, checked against every\n"
    "                     directory's stamps before it is trusted)\n"
    "  --protect-secrets  neither read nor write .env*, private keys, ~/.ssh, ~/.aws and\n"
    "                     the other default secrets; .git readable but not writable\n"
    "                     (also write-protected: .vscode .idea .mcp.json .claude .codex\n"
    "                     .cursor .gemini .devcontainer, and no new one is made)\n"
    "  --protect PATTERN  also protect PATTERN (a name, a/b, or ~/path; * and ? allowed)\n"
    "  --protect-write PATTERN  readable, but neither writable nor created\n"
    "  --unprotect PATTERN  drop PATTERN from the protected set (after all others)\n"
    "  --git-writable     .git writable for git add and commit; its hooks, config and\n"
    "                     whatever else makes git run code stay read-only\n"
    "Environment:\n"
    "  --scrub-env        remove credential variables (*_TOKEN, *_SECRET, *_PASSWORD,\n"
    "                     *_API_KEY, AWS keys...; --explain lists the names, never values)\n"
    "  --keep-env NAME    keep NAME although it looks like a credential (repeatable)\n"
    "  --drop-env NAME    remove NAME too (repeatable; e.g. SSH_AUTH_SOCK)\n"
    "Local daemons (Linux, confined writes: --confine-fs, --sandbox, every class):\n"
    "                     the sockets of daemons that act outside the sandbox are\n"
    "                     closed (connect fails with ECONNREFUSED; in a supervised\n"
    "                     run it is closed at once and recorded): Docker, containerd,\n"
    "                     Podman, BuildKit, CRI-O, LXD, Incus, libvirt, snapd, the\n"
    "                     systemd managers' private sockets, the D-Bus buses, the\n"
    "                     keyring's control; ssh-agent and gpg-agent stay open\n"
    "                     (--explain lists what is closed on this machine)\n"
    "                     Abstract sockets (@name) made outside the sandbox are\n"
    "                     closed too, where Landlock has ABI 6 (Linux 6.12)\n"
    "  --allow-unix PATH  leave that socket open (e.g. /run/docker.sock for docker\n"
    "                     build; repeatable)\n"
    "  --allow-unix @     leave every abstract socket open (a D-Bus bus at\n"
    "                     unix:abstract=; one @name alone cannot be reopened)\n"
    "  --deny-unix PATH   close that socket too (repeatable)\n"
    "Descriptors:\n"
    "  --close-fds        close every inherited descriptor but stdin, stdout, stderr\n"
    "                     (an open file or socket is not re-checked by the sandbox)\n"
    "  --keep-fd N        keep descriptor N open too (repeatable; implies --close-fds)\n"
    "Outcome and lifecycle (Linux; each makes the run supervised: the launcher stays\n"
    "and a supervisor process records what the sandbox refuses, passes SIGTERM,\n"
    "SIGINT and SIGHUP on to CMD, ends the run if the launcher's parent dies, and\n"
    "ends what CMD leaves running when it exits; protected paths are supervised too):\n"
    "  --report           when CMD fails in a way that points at the sandbox, say so\n"
    "                     in one line on stderr (certain when the kernel reported the\n"
    "                     refusal, \"probably\" when only text points at it; CMD's\n"
    "                     stderr is then a pipe); with the hard-link scan, also name\n"
    "                     the links to outside files that appeared while it ran;\n"
    "                     exit with CMD's status, 128+N for signal N\n"
    "  --outcome-fd N     when the run ends, write one JSON object to descriptor N\n"
    "                     (schema 1, docs/api.md): exit code or signal, duration, the\n"
    "                     Sandbox line, and each refusal (certain, or hedged); CMD\n"
    "                     never gets descriptor N\n"
    "  --timeout SECONDS  end CMD and everything it started after SECONDS (decimals\n"
    "                     and an s, m or h suffix allowed): SIGTERM, SIGKILL 2 s\n"
    "                     later; exit 124, as timeout(1)\n"
    "  --keep-background  when CMD exits, let what it started finish (the launcher\n"
    "                     stays until the last one exits) instead of ending it\n"
    "Resource limits (Linux; each makes the run supervised; SIZE is bytes or N with\n"
    "a K, M or G suffix, 1024-based; --explain says how this machine applies each):\n"
    "  --limit-memory SIZE     memory of the whole run: a cgroup of its own where the\n"
    "                          caller may create one, else RLIMIT_DATA: per-process\n"
    "                          private data only; shared memory and tmpfs are not\n"
    "                          counted (a warning says so)\n"
    "  --limit-pids N          processes and threads of the whole run at once (needs\n"
    "                          a cgroup of its own: without one, exit 126)\n"
    "  --limit-cpu SECONDS     CPU time per process (SIGXCPU, SIGKILL 1 s later)\n"
    "  --limit-file-size SIZE  largest file a process may write (EFBIG or SIGXFSZ)\n"
    "  --limit-open-files N    open descriptors per process\n"
    "                          No process of the run can raise a limit; the outcome's\n"
    "                          \"limit\" names the one that ended it\n"
    "Other actions:\n"
    "  --self-test        print what this machine enforces (--json for JSON)\n"
    "  --index-watch      keep the pre-flight index vouched for until a signal: watch\n"
    "                     the directories it lists, so warm launches skip their\n"
    "                     per-directory check (one per user and session)\n"
    "  --explain          print what would be enforced and the exact argv; run nothing\n"
    "  --target T         with --explain: linux, macos or windows (default: this host)\n"
    "  --version, --help\n"
    "\n"
    "Exit status: the command's own; 124 when --timeout ended it; 126 when the\n"
    "sandbox cannot be applied or a pre-flight check refused (the command did not\n"
    "run) or CMD cannot be executed; 127 when CMD is not found; 2 for bad usage.\n";

static const struct {
    const char *name;
    int klass;
} classes[] = {
    {"project", SANDBOX_CLASS_PROJECT}, {"research", SANDBOX_CLASS_RESEARCH},
    {"build", SANDBOX_CLASS_BUILD},     {"offline", SANDBOX_CLASS_OFFLINE},
    {"media", SANDBOX_CLASS_MEDIA},     {"tool-server", SANDBOX_CLASS_TOOL_SERVER},
};

/* "1.5", "90s", "10m", "2h": milliseconds, at most a year. 0: no timeout. */
static int parse_duration(const char *s, unsigned long long *ms)
{
    unsigned long long whole = 0, frac = 0, scale = 1000, unit = 1000;
    int digits = 0, nonzero = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if ((whole = whole * 10 + (unsigned long long)(*p - '0')) > 366ULL * 86400)
            return -1;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
            nonzero |= *p != '0';
            if (scale > 1) {
                scale /= 10;
                frac += (unsigned long long)(*p - '0') * scale;
            }
        }
    if (!digits)
        return -1;
    switch (*p) {
    case '\0': case 's': break;
    case 'm': unit = 60ULL * 1000; break;
    case 'h': unit = 3600ULL * 1000; break;
    default: return -1;
    }
    if (*p && p[1])
        return -1;
    *ms = whole * unit + frac * unit / 1000;
    /* Below a millisecond is not "no timeout" (0): the smallest one. */
    if (*ms == 0 && nonzero)
        *ms = 1;
    if (*ms > 366ULL * 86400 * 1000)
        return -1;
    return 0;
}

/* "512", "256K", "64M", "2G" (1024-based): a positive count that fits in 63
 * bits. `units`: whether the K/M/G suffixes are allowed. */
static int parse_count(const char *s, int units, unsigned long long *out)
{
    unsigned long long v = 0, mul = 1;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (1ULL << 62) / 10)
            return -1;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    if (units && *p) {
        switch (*p++) {
        case 'K': case 'k': mul = 1ULL << 10; break;
        case 'M': case 'm': mul = 1ULL << 20; break;
        case 'G': case 'g': mul = 1ULL << 30; break;
        default: return -1;
        }
    }
    if (*p || v == 0 || v > (1ULL << 62) / mul)
        return -1;
    *out = v * mul;
    return 0;
}

static const struct {
    const char *flag;
    int which, units;
    const char *need;
} limit_flags[] = {
    {"--limit-memory", SANDBOX_LIMIT_MEMORY, 1, "a size (bytes, or N with K, M or G), got "},
    {"--limit-pids", SANDBOX_LIMIT_PIDS, 0, "a positive number of processes, got "},
    {"--limit-cpu", SANDBOX_LIMIT_CPU, 0, "a positive whole number of CPU seconds, got "},
    {"--limit-file-size", SANDBOX_LIMIT_FILE_SIZE, 1,
     "a size (bytes, or N with K, M or G), got "},
    {"--limit-open-files", SANDBOX_LIMIT_OPEN_FILES, 0, "a positive number of descriptors, got "},
};

/* One line saying what is wrong (`what` then `arg`), then the usage. */
static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, PROG ": %s%s\n%s", what, arg, usage_line);
    return EXIT_USAGE;
}

/* Accepts "--name VALUE" and "--name=VALUE". Returns the value, or NULL when
 * argv[*i] is not this option. Sets *missing when the value is absent. */
static const char *option_value(char **argv, int argc, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    if (strncmp(argv[*i], name, n) != 0)
        return NULL;
    if (argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (argv[*i][n] != '\0')
        return NULL;
    if (*i + 1 >= argc || !argv[*i + 1]) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int parse_args(int argc, char **argv, struct launcher_opts *out)
{
    sandbox_policy *policy;
    int i, missing = 0, report = 0, git_writable = 0, keep_background = 0, outcome_fd = -1;
    unsigned long long timeout_ms = 0;
    const char *unprotect[64]; /* applied after every other pattern */
    size_t n_unprotect = 0;
    int want_net = 0, want_fs = 0, want_ro = 0, explain = 0, json = 0, self = 0, eperm = 0;
    int no_userns = 0;
    int want_inet = 0, klass = -1, tool_server = 0, caches = 0, scan = -1, no_index = 0, watch = 0;
    int target = SANDBOX_TARGET_HOST;
    size_t k, n_keep = 0;
    int close_fds = 0;
    const char *project = NULL, *workdir = NULL, *scratch = NULL, *output = NULL, *v;
    char **cmd;

    memset(out, 0, sizeof *out);
    out->outcome_fd = -1;
    policy = sandbox_policy_new();
    if (!policy) {
        fprintf(stderr, PROG ": out of memory\n");
        return EXIT_CANNOT_RUN;
    }
    for (i = 1; i < argc && argv[i]; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("%s\n%s", usage_line, help_text);
            sandbox_policy_free(policy);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf(PROG " %s\n", sandbox_version());
            sandbox_policy_free(policy);
            return 0;
        } else if (strcmp(a, "--no-network") == 0) {
            want_net = 1;
        } else if (strcmp(a, "--confine-fs") == 0) {
            want_fs = 1;
        } else if (strcmp(a, "--sandbox") == 0) {
            want_net = want_fs = 1;
        } else if (strcmp(a, "--read-only") == 0) {
            want_ro = 1;
        } else if (strcmp(a, "--internet-only") == 0) {
            want_inet = 1;
        } else if (strcmp(a, "--tool-server") == 0) {
            tool_server = 1;
        } else if (strcmp(a, "--writable-caches") == 0) {
            caches = 1;
        } else if (strcmp(a, "--scan-hardlinks") == 0) {
            scan = 1;
        } else if (strcmp(a, "--no-scan-hardlinks") == 0) {
            scan = 0;
        } else if (strcmp(a, "--no-scan-index") == 0) {
            no_index = 1;
        } else if (strcmp(a, "--net-eperm") == 0) {
            eperm = 1;
        } else if (strcmp(a, "--no-user-namespaces") == 0) {
            no_userns = 1;
        } else if (strcmp(a, "--report") == 0) {
            report = 1;
        } else if (strcmp(a, "--keep-background") == 0) {
            keep_background = 1;
        } else if ((v = option_value(argv, argc, &i, "--outcome-fd", &missing)) != NULL) {
            if (launcher_parse_fd(v, &outcome_fd) != 0 || outcome_fd < 3) {
                sandbox_policy_free(policy);
                return usage_error("--outcome-fd needs a descriptor number above 2, got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--timeout", &missing)) != NULL) {
            if (parse_duration(v, &timeout_ms) != 0) {
                sandbox_policy_free(policy);
                return usage_error("--timeout needs a number of seconds (1.5, 90s, 10m, 2h), "
                                   "got ", v);
            }
        } else if (strncmp(a, "--limit-", 8) == 0) {
            unsigned long long val = 0;
            size_t l;
            for (l = 0; l < sizeof limit_flags / sizeof limit_flags[0]; l++)
                if ((v = option_value(argv, argc, &i, limit_flags[l].flag, &missing)) != NULL ||
                    missing)
                    break;
            if (missing || l == sizeof limit_flags / sizeof limit_flags[0]) {
                sandbox_policy_free(policy);
                return usage_error(missing ? "this option needs a value: " : "unknown option ",
                                   a);
            }
            if (parse_count(v, limit_flags[l].units, &val) != 0) {
                char what[96];
                sandbox_policy_free(policy);
                snprintf(what, sizeof what, "%s needs %s", limit_flags[l].flag,
                         limit_flags[l].need);
                return usage_error(what, v);
            }
            sandbox_policy_set_limit(policy, limit_flags[l].which, val);
        } else if (strcmp(a, "--close-fds") == 0) {
            close_fds = 1;
        } else if ((v = option_value(argv, argc, &i, "--keep-fd", &missing)) != NULL) {
            if (n_keep == LAUNCHER_MAX_KEEP_FDS ||
                launcher_parse_fd(v, &out->keep_fds[n_keep]) != 0) {
                sandbox_policy_free(policy);
                return usage_error("--keep-fd needs a descriptor number (at most 64 of them), "
                                   "got ", v);
            }
            n_keep++;
            close_fds = 1; /* naming what to keep means closing the rest */
        } else if (strcmp(a, "--self-test") == 0) {
            self = 1;
        } else if (strcmp(a, "--index-watch") == 0) {
            watch = 1;
        } else if (strcmp(a, "--explain") == 0) {
            explain = 1;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if ((v = option_value(argv, argc, &i, "--project", &missing)) != NULL) {
            project = v;
        } else if ((v = option_value(argv, argc, &i, "--workdir", &missing)) != NULL) {
            workdir = v;
        } else if ((v = option_value(argv, argc, &i, "--add-dir", &missing)) != NULL) {
            if (sandbox_policy_add_writable_dir(policy, v) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--add-dir needs an absolute directory, got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--add-read", &missing)) != NULL) {
            if (sandbox_policy_add_readable_dir(policy, v) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--add-read needs an absolute directory, got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--scratch", &missing)) != NULL) {
            scratch = v;
        } else if ((v = option_value(argv, argc, &i, "--output", &missing)) != NULL) {
            output = v;
        } else if ((v = option_value(argv, argc, &i, "--allow-hardlink", &missing)) != NULL) {
            if (sandbox_policy_allow_hardlink(policy, v) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--allow-hardlink needs an absolute path, got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--class", &missing)) != NULL) {
            for (k = 0; k < sizeof classes / sizeof classes[0]; k++)
                if (strcmp(v, classes[k].name) == 0)
                    break;
            if (k == sizeof classes / sizeof classes[0]) {
                sandbox_policy_free(policy);
                return usage_error("--class must be project, research, build, offline, media "
                                   "or tool-server, not ",
                                   v);
            }
            klass = classes[k].klass;
        } else if (strcmp(a, "--protect-secrets") == 0) {
            sandbox_policy_protect_defaults(policy);
        } else if ((v = option_value(argv, argc, &i, "--protect", &missing)) != NULL) {
            if (sandbox_policy_add_protected(policy, v, SANDBOX_PROTECT_ALL) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--protect needs a relative name pattern or ~/path, got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--protect-write", &missing)) != NULL) {
            if (sandbox_policy_add_protected(policy, v, SANDBOX_PROTECT_WRITE) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--protect-write needs a relative name pattern or ~/path, "
                                   "got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--unprotect", &missing)) != NULL) {
            if (n_unprotect == sizeof unprotect / sizeof unprotect[0]) {
                sandbox_policy_free(policy);
                return usage_error("too many --unprotect (at most 64), at ", v);
            }
            unprotect[n_unprotect++] = v;
        } else if (strcmp(a, "--git-writable") == 0) {
            git_writable = 1;
        } else if (strcmp(a, "--scrub-env") == 0) {
            sandbox_policy_set_scrub_env(policy, 1);
        } else if ((v = option_value(argv, argc, &i, "--keep-env", &missing)) != NULL) {
            if (sandbox_policy_keep_env(policy, v) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--keep-env needs a variable name (no '='), got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--drop-env", &missing)) != NULL) {
            if (sandbox_policy_drop_env(policy, v) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--drop-env needs a variable name (no '='), got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--allow-unix", &missing)) != NULL) {
            if (sandbox_policy_allow_unix(policy, v) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                if (v[0] == '@')
                    return usage_error(
                        "--allow-unix cannot reopen one abstract socket: they are closed by a "
                        "Landlock scope, which is all or nothing; --allow-unix @ reopens every "
                        "one; got ",
                        v);
                return usage_error("--allow-unix needs an absolute socket path or @, got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--deny-unix", &missing)) != NULL) {
            if (sandbox_policy_deny_unix(policy, v) != SANDBOX_OK) {
                sandbox_policy_free(policy);
                return usage_error("--deny-unix needs an absolute socket path, got ", v);
            }
        } else if ((v = option_value(argv, argc, &i, "--target", &missing)) != NULL) {
            if (strcmp(v, "linux") == 0)
                target = SANDBOX_TARGET_LINUX;
            else if (strcmp(v, "macos") == 0)
                target = SANDBOX_TARGET_MACOS;
            else if (strcmp(v, "windows") == 0)
                target = SANDBOX_TARGET_WINDOWS;
            else {
                sandbox_policy_free(policy);
                return usage_error("--target must be linux, macos or windows, not ", v);
            }
        } else {
            sandbox_policy_free(policy);
            return usage_error(missing ? "this option needs a value: " : "unknown option ", a);
        }
        if (missing) {
            sandbox_policy_free(policy);
            return usage_error("this option needs a value: ", a);
        }
    }
    cmd = argv + i;

    if (watch) {
        /* --index-watch ignores everything else. */
        sandbox_policy_free(policy);
        out->index_watch = 1;
        return LAUNCHER_PROCEED;
    }
    /* After every pattern was added, whatever the order of the flags: a
     * repository writable but for its code, then what the host takes out. */
    if (git_writable && sandbox_policy_add_protected(policy, ".git", SANDBOX_PROTECT_GIT) !=
                            SANDBOX_OK) {
        sandbox_policy_free(policy);
        fprintf(stderr, PROG ": out of memory\n");
        return EXIT_CANNOT_RUN;
    }
    for (k = 0; k < n_unprotect; k++) {
        if (sandbox_policy_remove_protected(policy, unprotect[k]) != SANDBOX_OK) {
            sandbox_policy_free(policy);
            return usage_error("--unprotect names a pattern that is not protected: ",
                               unprotect[k]);
        }
    }

    if (self) {
        /* --self-test ignores everything else. */
        sandbox_policy_free(policy);
        out->self_test = 1;
        out->json = json;
        return LAUNCHER_PROCEED;
    }
    if (!explain && !cmd[0]) {
        sandbox_policy_free(policy);
        return usage_error("no command given", "");
    }
    if (tool_server) {
        if (klass >= 0 && klass != SANDBOX_CLASS_TOOL_SERVER) {
            sandbox_policy_free(policy);
            return usage_error("--tool-server is a class of its own; drop --class", "");
        }
        klass = SANDBOX_CLASS_TOOL_SERVER;
    }
    if (klass == SANDBOX_CLASS_TOOL_SERVER)
        tool_server = 1;
    if (want_inet && want_net) {
        sandbox_policy_free(policy);
        return usage_error("--internet-only contradicts --no-network and --sandbox", "");
    }
    if (want_ro && (klass >= 0 || caches || output || want_inet)) {
        sandbox_policy_free(policy);
        return usage_error("--read-only is a fixed profile: it takes no class, caches, "
                           "output or network grant", "");
    }
    if (want_inet && (klass == SANDBOX_CLASS_OFFLINE || klass == SANDBOX_CLASS_MEDIA)) {
        sandbox_policy_free(policy);
        return usage_error("--internet-only contradicts a class that never has network", "");
    }
    if (klass == SANDBOX_CLASS_MEDIA && !output) {
        sandbox_policy_free(policy);
        return usage_error("--class media needs its output folder: --output DIR", "");
    }
    if (!want_net && !want_fs && !want_ro && !want_inet) {
        /* Secure by default; a tool server keeps its network (spec 003). */
        want_fs = 1;
        want_net = !tool_server;
    }
    /* A class, caches and an output folder only mean something with
     * confined writes. */
    if (klass >= 0 || caches || output)
        want_fs = 1;
    if ((project && sandbox_policy_set_project_root(policy, project) != SANDBOX_OK) ||
        (workdir && sandbox_policy_set_working_dir(policy, workdir) != SANDBOX_OK) ||
        (scratch && sandbox_policy_set_temp_dir(policy, scratch) != SANDBOX_OK) ||
        (output && sandbox_policy_set_output_dir(policy, output) != SANDBOX_OK)) {
        sandbox_policy_free(policy);
        return usage_error("--project, --workdir, --scratch and --output need an absolute "
                           "directory", "");
    }
    sandbox_policy_set_network(policy, want_net || want_ro ? SANDBOX_NETWORK_DENY
                                       : want_inet         ? SANDBOX_NETWORK_INTERNET_ONLY
                                                           : SANDBOX_NETWORK_ALLOW);
    sandbox_policy_set_filesystem(policy, want_ro   ? SANDBOX_FS_READ_ONLY
                                          : want_fs ? SANDBOX_FS_CONFINED
                                                    : SANDBOX_FS_UNRESTRICTED);
    /* After network and filesystem: a class may force both. */
    if (klass >= 0)
        sandbox_policy_set_class(policy, klass);
    if (caches)
        sandbox_policy_set_writable_caches(policy, 1);
    if (scan >= 0)
        sandbox_policy_set_scan_hardlinks(policy, scan);
    if (no_index)
        sandbox_policy_set_scan_index(policy, 0);
    if (eperm)
        sandbox_policy_set_deny_action(policy, SANDBOX_DENY_EPERM);
    if (no_userns)
        sandbox_policy_set_deny_user_namespaces(policy, 1);

    out->policy = policy;
    out->cmd = cmd;
    out->explain = explain;
    out->json = json;
    out->target = target;
    out->report = report;
    /* The scan is on in every class unless switched off, and runs only
     * where writes are confined (src/sandbox.c). */
    out->scan_after = report && !want_ro && (scan == 1 || (scan < 0 && klass >= 0));
    out->timeout_ms = timeout_ms;
    out->outcome_fd = outcome_fd;
    out->keep_background = keep_background;
    out->close_fds = close_fds;
    out->n_keep = n_keep;
    return LAUNCHER_PROCEED;
}
