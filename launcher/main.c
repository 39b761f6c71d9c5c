/* sandbox-exec-launcher: parse flags (launcher/args.c), build a policy,
 * enforce it, exec.
 *
 * Exit codes: the command's own status once it runs; 126 when confinement
 * cannot be applied (the command never runs) or the command cannot be
 * executed; 127 when the command is not found; 2 for bad usage. */
#define _GNU_SOURCE
#include "args.h"
#include "exec.h"
#include "fds.h"
#include "sandbox.h"
#ifndef _WIN32
#  include "supervised.h"
#endif
#include "watch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#  include <signal.h>
#  include <sys/wait.h>
#  include <unistd.h>
#else
#  define WIN32_LEAN_AND_MEAN
#  include <io.h>
#  include <windows.h>
#endif


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
    print_capability("protected_paths", &r.protected_paths, json, 0);
    print_capability("supervised", &r.supervised, json, 0);
    print_capability("limits", &r.limits, json, 0);
    print_capability("unix_endpoints", &r.unix_endpoints, json, !r.network_notes[0]);
    if (json && r.network_notes[0]) {
        printf("\"network_notes\":");
        json_string(r.network_notes);
    } else if (r.network_notes[0]) {
        printf("%-16s %s\n", "network notes", r.network_notes);
    }
    if (json)
        printf("}\n");
    return 0;
}

#ifdef _WIN32
/* Ctrl-C and Ctrl-Break reach every process of the console, the command's
 * included: the launcher outlives them so that sandbox_wait ends the rest of
 * the job and undoes the grants. Closing the console is not ignored: the
 * launcher dies, its job handle closes (KILL_ON_JOB_CLOSE ends the tree), and
 * the next run sweeps the journal it left. */
static BOOL WINAPI outlive_interrupt(DWORD event)
{
    return event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT;
}

/* Windows cannot confine a running process, so the launcher creates the
 * confined child itself, waits, and passes its exit code on. Takes
 * o->policy. --timeout and --keep-background need a supervisor, which only
 * Linux has: the spawn refuses them (126). --outcome-fd gets the status. */
static int run_spawned(const struct launcher_opts *o)
{
    sandbox_policy *policy = o->policy;
    sandbox_spawn_options so;
    sandbox_process proc;
    sandbox_outcome out;
    sandbox_error err;
    int status = 0, rc;
    SetConsoleCtrlHandler(outlive_interrupt, TRUE);
    sandbox_spawn_options_init(&so);
    so.supervise = o->outcome_fd >= 0;
    so.timeout_ms = o->timeout_ms;
    so.keep_background = o->keep_background;
    rc = sandbox_spawn(policy, (const char *const *)o->cmd, NULL, &so, &proc, &err);
    if (rc != SANDBOX_OK) {
        /* Fail closed: nothing ran, and any grants were already undone. */
        sandbox_policy_free(policy);
        fprintf(stderr, PROG ": %s\n", err.message);
        /* ERROR_FILE_NOT_FOUND (2) and ERROR_PATH_NOT_FOUND (3): the shell's 127. */
        if (rc == SANDBOX_E_EXEC && (err.sys_errno == 2 || err.sys_errno == 3))
            return EXIT_NOT_FOUND;
        return EXIT_CANNOT_RUN;
    }
    /* What really happened to the best-effort parts (the loopback exemption). */
    if (proc.warning[0])
        fprintf(stderr, PROG ": warning: %s\n", proc.warning);
    rc = sandbox_wait_outcome(&proc, policy, NULL, &out, &err);
    sandbox_policy_free(policy);
    if (rc != SANDBOX_OK) {
        fprintf(stderr, PROG ": %s\n", err.message);
        return EXIT_CANNOT_RUN;
    }
    status = out.status;
    if (o->outcome_fd >= 0 && out.json) {
        size_t len = strlen(out.json);
        out.json[len] = '\n'; /* one line, as on Linux */
        if (_write(o->outcome_fd, out.json, (unsigned)(len + 1)) != (int)(len + 1))
            fprintf(stderr, PROG ": cannot write the outcome to descriptor %d\n", o->outcome_fd);
        out.json[len] = '\0';
    }
    sandbox_outcome_clear(&out);
    return status;
}
#endif

int main(int argc, char **argv)
{
    struct launcher_opts o;
    sandbox_policy *policy;
    sandbox_result result;
    char **cmd;
    int rc;

    rc = parse_args(argc, argv, &o);
    if (rc != LAUNCHER_PROCEED)
        return rc;
    if (o.self_test)
        return self_test(o.json);
    if (o.index_watch)
        return run_index_watch();
    policy = o.policy;
    cmd = o.cmd;

    if (o.explain) {
        sandbox_error err;
        char *text = NULL;
        rc = sandbox_explain(policy, (const char *const *)cmd, o.target, o.json, &text, &err);
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
    (void)o.report; /* --report is POSIX-only for now: accepted and ignored here */
    return run_spawned(&o);
#else
    /* Before enforcing: the library opens (and closes) its own descriptors. */
    if (o.close_fds && (rc = launcher_close_fds(o.keep_fds, o.n_keep)) != 0) {
        sandbox_policy_free(policy);
        fprintf(stderr, PROG ": cannot close inherited descriptors: %s\n", strerror(rc));
        return EXIT_CANNOT_RUN;
    }
    /* Records, a lifecycle or the creation guard: the supervised run. Else
     * the exec path: one exec, nothing stays. */
    if (launcher_wants_supervision(&o))
        return launcher_run_supervised(&o);
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
    launcher_execvp(cmd);
    rc = errno;
    fprintf(stderr, PROG ": cannot run '%s': %s\n", cmd[0], strerror(rc));
    return rc == ENOENT || rc == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_RUN;
#endif
}
