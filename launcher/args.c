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
    "       [--project DIR] [--add-dir DIR]... [--workdir DIR] [--scratch DIR] [--net-eperm]\n"
    "       [--no-user-namespaces]\n"
    "       [--scan-hardlinks | --no-scan-hardlinks] [--allow-hardlink PATH]...\n"
    "       [--protect-secrets] [--protect PATTERN]... [--report] [--close-fds]\n"
    "       [--keep-fd N]... [--] CMD [ARGS...]\n"
    "       " PROG " --self-test [--json]\n"
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
    "Classes (each implies --confine-fs and the hard-link scan; docs/classes.md):\n"
    "  --class project    the project, working directory and scratch (the default)\n"
    "  --class research   the scratch directory only\n"
    "  --class build      project + package caches (npm pip cargo go gradle maven bun)\n"
    "  --class offline    as project, and never any network\n"
    "  --class media      the --output folder and the scratch; never any network\n"
    "  --tool-server      a stdio tool server: its working directory and scratch,\n"
    "                     network allowed unless a network flag says otherwise\n"
    "Policy:\n"
    "  --project DIR      the project root (default: the working directory)\n"
    "  --add-dir DIR      another writable directory (repeatable)\n"
    "  --workdir DIR      the working directory to allow (default: the current one)\n"
    "  --scratch DIR      the scratch (temp) directory (default: $TMPDIR, else /tmp)\n"
    "  --output DIR       the one output folder of --class media\n"
    "  --writable-caches  the per-user caches (~/.cache; macOS ~/Library/Caches too)\n"
    "                     no root may be /, the home or an ancestor, or pass a symlink\n"
    "                     inside another root or /tmp: refused with 126 (--explain shows\n"
    "                     what each root resolved to)\n"
    "  --net-eperm        refused sockets fail with EPERM instead of killing with SIGSYS\n"
    "  --no-user-namespaces  the command may not create or join a user namespace (Linux;\n"
    "                     always so with --read-only)\n"
    "Pre-flight:\n"
    "  --scan-hardlinks   refuse to start (126) when a writable root holds a hard link\n"
    "                     to a file outside the roots; --no-scan-hardlinks to skip\n"
    "  --allow-hardlink PATH  accept that file's, or that folder's, links (repeatable)\n"
    "  --protect-secrets  neither read nor write .env*, private keys, ~/.ssh, ~/.aws and\n"
    "                     the other default secrets; .git readable but not writable\n"
    "  --protect PATTERN  also protect PATTERN (a name, a/b, or ~/path; * and ? allowed)\n"
    "Descriptors:\n"
    "  --close-fds        close every inherited descriptor but stdin, stdout, stderr\n"
    "                     (an open file or socket is not re-checked by the sandbox)\n"
    "  --keep-fd N        keep descriptor N open too (repeatable; implies --close-fds)\n"
    "Outcome:\n"
    "  --report           run CMD as a child and, when it fails in a way that points at\n"
    "                     the sandbox, say so in one line on stderr (CMD's stderr is\n"
    "                     then a pipe); exit with CMD's status, 128+N for signal N\n"
    "Other actions:\n"
    "  --self-test        print what this machine enforces (--json for JSON)\n"
    "  --explain          print what would be enforced and the exact argv; run nothing\n"
    "  --target T         with --explain: linux, macos or windows (default: this host)\n"
    "  --version, --help\n"
    "\n"
    "Exit status: the command's own; 126 when the sandbox cannot be applied or a\n"
    "pre-flight check refused (the command did not run) or CMD cannot be executed;\n"
    "127 when CMD is not found; 2 for bad usage.\n";

static const struct {
    const char *name;
    int klass;
} classes[] = {
    {"project", SANDBOX_CLASS_PROJECT}, {"research", SANDBOX_CLASS_RESEARCH},
    {"build", SANDBOX_CLASS_BUILD},     {"offline", SANDBOX_CLASS_OFFLINE},
    {"media", SANDBOX_CLASS_MEDIA},     {"tool-server", SANDBOX_CLASS_TOOL_SERVER},
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
    int i, missing = 0, report = 0;
    int want_net = 0, want_fs = 0, want_ro = 0, explain = 0, json = 0, self = 0, eperm = 0;
    int no_userns = 0;
    int want_inet = 0, klass = -1, tool_server = 0, caches = 0, scan = -1;
    int target = SANDBOX_TARGET_HOST;
    size_t k, n_keep = 0;
    int close_fds = 0;
    const char *project = NULL, *workdir = NULL, *scratch = NULL, *output = NULL, *v;
    char **cmd;

    memset(out, 0, sizeof *out);
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
        } else if (strcmp(a, "--net-eperm") == 0) {
            eperm = 1;
        } else if (strcmp(a, "--no-user-namespaces") == 0) {
            no_userns = 1;
        } else if (strcmp(a, "--report") == 0) {
            report = 1;
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
    out->close_fds = close_fds;
    out->n_keep = n_keep;
    return LAUNCHER_PROCEED;
}
