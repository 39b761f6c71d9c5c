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
    print_capability("protected_paths", &r.protected_paths, json, 1);
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
 * confined child itself, waits, and passes its exit code on. Takes `policy`. */
static int run_spawned(sandbox_policy *policy, char **cmd)
{
    sandbox_process proc;
    sandbox_error err;
    int status = 0, rc;
    SetConsoleCtrlHandler(outlive_interrupt, TRUE);
    rc = sandbox_spawn(policy, (const char *const *)cmd, NULL, NULL, &proc, &err);
    sandbox_policy_free(policy);
    if (rc != SANDBOX_OK) {
        /* Fail closed: nothing ran, and any grants were already undone. */
        fprintf(stderr, PROG ": %s\n", err.message);
        /* ERROR_FILE_NOT_FOUND (2) and ERROR_PATH_NOT_FOUND (3): the shell's 127. */
        if (rc == SANDBOX_E_EXEC && (err.sys_errno == 2 || err.sys_errno == 3))
            return EXIT_NOT_FOUND;
        return EXIT_CANNOT_RUN;
    }
    /* What really happened to the best-effort parts (the loopback exemption). */
    if (proc.warning[0])
        fprintf(stderr, PROG ": warning: %s\n", proc.warning);
    if (sandbox_wait(&proc, &status, &err) != SANDBOX_OK) {
        fprintf(stderr, PROG ": %s\n", err.message);
        return EXIT_CANNOT_RUN;
    }
    return status;
}
#endif

#ifndef _WIN32
/* --report: the launcher stays as the parent. The child returns -1 and goes
 * on to enforce and exec exactly as without --report; its stderr comes
 * through a pipe so the end of it can be matched against the sandbox's
 * signatures. The parent returns the command's exit status. */
static int run_reported(sandbox_policy *policy)
{
    char tail[4096], buf[4096], line[512];
    size_t tlen = 0;
    ssize_t n;
    int errpipe[2], status = 0;
    struct sigaction ign, old_int, old_quit;
    pid_t pid;

    if (pipe(errpipe) != 0) {
        fprintf(stderr, PROG ": cannot create a pipe: %s\n", strerror(errno));
        return EXIT_CANNOT_RUN;
    }
    /* Like system(): a terminal's ^C and ^\\ are for the command, which gets
     * the dispositions the launcher inherited. */
    ign.sa_handler = SIG_IGN;
    ign.sa_flags = 0;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid = fork();
    if (pid == 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGQUIT, &old_quit, NULL);
        close(errpipe[0]);
        if (dup2(errpipe[1], 2) != 2)
            _exit(EXIT_CANNOT_RUN);
        close(errpipe[1]);
        return -1;
    }
    close(errpipe[1]);
    if (pid < 0) {
        fprintf(stderr, PROG ": cannot start a process: %s\n", strerror(errno));
        close(errpipe[0]);
        return EXIT_CANNOT_RUN;
    }
    while ((n = read(errpipe[0], buf, sizeof buf)) != 0) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        fwrite(buf, 1, (size_t)n, stderr);
        fflush(stderr);
        if ((size_t)n >= sizeof tail - 1) { /* keep the last bytes only */
            memcpy(tail, buf + n - (sizeof tail - 1), sizeof tail - 1);
            tlen = sizeof tail - 1;
        } else {
            if (tlen + (size_t)n > sizeof tail - 1) {
                size_t drop = tlen + (size_t)n - (sizeof tail - 1);
                memmove(tail, tail + drop, tlen - drop);
                tlen -= drop;
            }
            memcpy(tail + tlen, buf, (size_t)n);
            tlen += (size_t)n;
        }
    }
    close(errpipe[0]);
    tail[tlen] = '\0';
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (sandbox_describe_denial(policy, SANDBOX_TARGET_HOST, status, tail, line, sizeof line) ==
            SANDBOX_OK &&
        line[0])
        fprintf(stderr, PROG ": %s\n", line);
    sandbox_policy_free(policy);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
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
    return run_spawned(policy, cmd);
#else
    /* Before enforcing: the library opens (and closes) its own descriptors. */
    if (o.close_fds && (rc = launcher_close_fds(o.keep_fds, o.n_keep)) != 0) {
        sandbox_policy_free(policy);
        fprintf(stderr, PROG ": cannot close inherited descriptors: %s\n", strerror(rc));
        return EXIT_CANNOT_RUN;
    }
    if (o.report && (rc = run_reported(policy)) >= 0)
        return rc;
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
