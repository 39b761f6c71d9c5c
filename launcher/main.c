/* sandbox-exec-launcher: parse flags, build a policy, enforce it, exec.
 *
 * Exit codes: the command's own status once it runs; 126 when confinement
 * cannot be applied (the command never runs) or the command cannot be
 * executed; 127 when the command is not found; 2 for bad usage. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#  include <unistd.h>
#endif

#define PROG "sandbox-exec-launcher"
#define EXIT_USAGE 2
#define EXIT_CANNOT_RUN 126
#define EXIT_NOT_FOUND 127

static const char usage_line[] =
    "usage: " PROG " [--no-network] [--confine-fs] [--sandbox] [--read-only]\n"
    "       [--project DIR] [--add-dir DIR]... [--workdir DIR] [--net-eperm] [--] CMD [ARGS...]\n"
    "       " PROG " --self-test [--json]\n"
    "       " PROG " --explain [--json] [--target linux|macos|windows] [policy flags] [--] CMD...\n";

static const char help_text[] =
    "Run CMD under an operating-system sandbox. With no mode flag, --sandbox applies.\n"
    "\n"
    "Modes:\n"
    "  --no-network       no internet or other remote sockets (local AF_UNIX stays)\n"
    "  --confine-fs       writes only beneath the project, added directories, the\n"
    "                     working directory, the temp directory, /tmp and /dev\n"
    "  --sandbox          both of the above (the default)\n"
    "  --read-only        the fixed read-only profile: no writes, no metadata changes,\n"
    "                     no sockets, no IPC, no capabilities; never degraded\n"
    "Policy:\n"
    "  --project DIR      the project root (default: the working directory)\n"
    "  --add-dir DIR      another writable directory (repeatable)\n"
    "  --workdir DIR      the working directory to allow (default: the current one)\n"
    "  --net-eperm        refused sockets fail with EPERM instead of killing with SIGSYS\n"
    "Other actions:\n"
    "  --self-test        print what this machine enforces (--json for JSON)\n"
    "  --explain          print what would be enforced and the exact argv; run nothing\n"
    "  --target T         with --explain: linux, macos or windows (default: this host)\n"
    "  --version, --help\n"
    "\n"
    "Exit status: the command's own; 126 when the sandbox cannot be applied (the\n"
    "command did not run) or CMD cannot be executed; 127 when CMD is not found;\n"
    "2 for bad usage.\n";

/* One line saying what is wrong (`what` then `arg`), then the usage. */
static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, PROG ": %s%s\n%s", what, arg, usage_line);
    return EXIT_USAGE;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void print_capability(const char *name, const sandbox_capability *c, int json, int last)
{
    if (json) {
        printf("\"%s\":{\"available\":%s,\"mechanism\":", name, c->available ? "true" : "false");
        json_string(c->mechanism);
        printf(",\"detail\":");
        json_string(c->detail);
        printf("}%s", last ? "" : ",");
    } else {
        printf("%-16s %-4s %s: %s\n", name, c->available ? "yes" : "no", c->mechanism, c->detail);
    }
}

static int self_test(int json)
{
    sandbox_report r;
    sandbox_self_test(&r);
    if (json) {
        printf("{\"version\":\"%s\",\"platform\":", sandbox_version());
        json_string(r.platform);
        printf(",\"landlock_abi\":%d,", r.landlock_abi);
    } else {
        printf("libsandbox %s on %s", sandbox_version(), r.platform);
        if (r.landlock_abi)
            printf(" (Landlock ABI %d)", r.landlock_abi);
        printf("\n");
    }
    print_capability("network", &r.network, json, 0);
    print_capability("filesystem", &r.filesystem, json, 0);
    print_capability("read_only", &r.read_only, json, 0);
    print_capability("internet_only", &r.internet_only, json, 0);
    print_capability("protected_paths", &r.protected_paths, json, 1);
    if (json)
        printf("}\n");
    return 0;
}

#ifdef _WIN32
/* Windows cannot confine a running process, so the launcher creates the
 * confined child itself, waits, and passes its exit code on. Takes `policy`. */
static int run_spawned(sandbox_policy *policy, char **cmd)
{
    sandbox_process proc;
    sandbox_error err;
    int status = 0, rc;
    rc = sandbox_spawn(policy, (const char *const *)cmd, NULL, NULL, &proc, &err);
    sandbox_policy_free(policy);
    if (rc != SANDBOX_OK) {
        /* Fail closed: nothing ran, and any grants were already undone. */
        fprintf(stderr, PROG ": %s\n", err.message);
        return EXIT_CANNOT_RUN;
    }
    if (sandbox_wait(&proc, &status, &err) != SANDBOX_OK) {
        fprintf(stderr, PROG ": %s\n", err.message);
        return EXIT_CANNOT_RUN;
    }
    return status;
}
#endif

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
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int main(int argc, char **argv)
{
    sandbox_policy *policy;
    sandbox_result result;
    int i, rc, missing = 0;
    int want_net = 0, want_fs = 0, want_ro = 0, explain = 0, json = 0, self = 0, eperm = 0;
    int target = SANDBOX_TARGET_HOST;
    const char *project = NULL, *workdir = NULL, *v;
    char **cmd;

    policy = sandbox_policy_new();
    if (!policy) {
        fprintf(stderr, PROG ": out of memory\n");
        return EXIT_CANNOT_RUN;
    }
    for (i = 1; i < argc; i++) {
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
        } else if (strcmp(a, "--net-eperm") == 0) {
            eperm = 1;
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
        sandbox_policy_free(policy);
        return self_test(json);
    }
    if (!explain && !cmd[0]) {
        sandbox_policy_free(policy);
        return usage_error("no command given", "");
    }
    if (!want_net && !want_fs && !want_ro)
        want_net = want_fs = 1; /* secure by default */
    if ((project && sandbox_policy_set_project_root(policy, project) != SANDBOX_OK) ||
        (workdir && sandbox_policy_set_working_dir(policy, workdir) != SANDBOX_OK)) {
        sandbox_policy_free(policy);
        return usage_error("--project and --workdir need an absolute directory", "");
    }
    sandbox_policy_set_network(policy, want_net || want_ro ? SANDBOX_NETWORK_DENY
                                                           : SANDBOX_NETWORK_ALLOW);
    sandbox_policy_set_filesystem(policy, want_ro   ? SANDBOX_FS_READ_ONLY
                                          : want_fs ? SANDBOX_FS_CONFINED
                                                    : SANDBOX_FS_UNRESTRICTED);
    if (eperm)
        sandbox_policy_set_deny_action(policy, SANDBOX_DENY_EPERM);

    if (explain) {
        sandbox_error err;
        char *text = NULL;
        rc = sandbox_explain(policy, (const char *const *)cmd, target, json, &text, &err);
        sandbox_policy_free(policy);
        if (rc != SANDBOX_OK) {
            fprintf(stderr, PROG ": %s\n", err.message);
            return EXIT_CANNOT_RUN;
        }
        fputs(text, stdout);
        sandbox_free(text);
        return 0;
    }

#ifdef _WIN32
    (void)result;
    return run_spawned(policy, cmd);
#else
    rc = sandbox_enforce(policy, (const char *const *)cmd, &result);
    sandbox_policy_free(policy);
    if (rc != SANDBOX_OK) {
        /* Fail closed: the command never runs unconfined. */
        fprintf(stderr, PROG ": %s\n", result.error.message);
        return EXIT_CANNOT_RUN;
    }
    if (result.warning[0])
        fprintf(stderr, PROG ": warning: %s\n", result.warning);
    if (result.enforcement == SANDBOX_EXEC_ARGV)
        cmd = result.argv;
    execvp(cmd[0], cmd);
    rc = errno;
    fprintf(stderr, PROG ": cannot run '%s': %s\n", cmd[0], strerror(rc));
    return rc == ENOENT || rc == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
#endif
}
