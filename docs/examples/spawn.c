/* A host starting a confined command with sandbox_spawn, from any thread.
 *
 *   cc spawn.c $(pkg-config --cflags --libs sandbox) -o spawn
 *   ./spawn [CMD ARGS...]          (default: sh -c 'echo hello from the sandbox')
 *
 * It prints the one-line Sandbox description, runs the command supervised
 * (Linux: records of what the sandbox refused, a timeout for the whole
 * process tree) with its stderr captured, relays the output, and says when
 * the way the command ended points at the sandbox, certain when the kernel
 * reported it. Exit status: the command's, 128+N for signal N, 124 when the
 * timeout ended it. */
#define _POSIX_C_SOURCE 200809L
#include <sandbox.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The host owns the "warned already" flag (one per process). */
static int warned_unavailable;

int main(int argc, char **argv)
{
    const char *default_cmd[] = {"sh", "-c", "echo hello from the sandbox", NULL};
    const char *const *cmd = argc > 1 ? (const char *const *)argv + 1 : default_cmd;
    char cwd[4096], line[SANDBOX_DESCRIBE_SIZE], tail[4096];
    sandbox_policy *policy = sandbox_policy_new();
    sandbox_spawn_options opts;
    sandbox_process proc;
    sandbox_outcome outcome;
    sandbox_error err;
    const char *warning;
    int errpipe[2], status, timed_out;
    size_t len = 0;
    ssize_t n;

    if (!policy || !getcwd(cwd, sizeof cwd))
        return 1;
    sandbox_policy_set_project_root(policy, cwd);
    sandbox_policy_set_network(policy, SANDBOX_NETWORK_DENY);
    sandbox_policy_set_filesystem(policy, SANDBOX_FS_CONFINED);

    /* A machine that cannot enforce the policy: warn once, then run the
     * command without confinement rather than not at all (spec 000's choice
     * for hosts; a stricter host would refuse here instead). */
    warning = sandbox_unavailable_warning(policy, &warned_unavailable);
    if (warning)
        fprintf(stderr, "warning: %s\n", warning);
    if (!sandbox_network_killswitch_available()) {
        sandbox_policy_set_network(policy, SANDBOX_NETWORK_ALLOW);
        sandbox_policy_set_filesystem(policy, SANDBOX_FS_UNRESTRICTED);
    }
    sandbox_policy_describe(policy, line, sizeof line);
    printf("Sandbox: %s\n", line);
    fflush(stdout);

    if (pipe(errpipe) != 0)
        return 1;
    sandbox_spawn_options_init(&opts);
    opts.stderr_fd = errpipe[1];
    opts.supervise = 1;        /* records of refusals, from the kernel */
    opts.timeout_ms = 600000;  /* ten minutes for the command and all it starts */
#ifndef __linux__
    opts.timeout_ms = 0;       /* only Linux supervises */
#endif
    if (sandbox_spawn(policy, cmd, NULL, &opts, &proc, &err) != SANDBOX_OK) {
        /* Nothing ran. SANDBOX_E_EXEC with ENOENT is "command not found". */
        fprintf(stderr, "cannot start %s: %s (%s)\n", cmd[0], err.message,
                sandbox_strerror(err.code));
        return err.code == SANDBOX_E_EXEC ? 127 : 126;
    }
    if (proc.warning[0])
        fprintf(stderr, "warning: %s\n", proc.warning);
    close(errpipe[1]); /* the child has its own copy */

    /* Relay stderr and keep its end for the denial check. */
    while ((n = read(errpipe[0], tail + len, sizeof tail - 1 - len)) > 0) {
        fwrite(tail + len, 1, (size_t)n, stderr);
        len += (size_t)n;
        if (len > sizeof tail / 2) { /* keep the most recent half */
            memmove(tail, tail + len - sizeof tail / 4, sizeof tail / 4);
            len = sizeof tail / 4;
        }
    }
    tail[len] = '\0';
    close(errpipe[0]);

    /* The outcome: the status, and what the sandbox refused (JSON in
     * outcome.json, docs/api.md); its summary is certain when it says
     * "blocked by", hedged when it says "probably". */
    if (sandbox_wait_outcome(&proc, policy, tail, &outcome, &err) != SANDBOX_OK) {
        fprintf(stderr, "wait: %s\n", err.message);
        return 126;
    }
    if (outcome.summary[0])
        printf("Sandbox: %s\n", outcome.summary);
    status = outcome.status;
    timed_out = outcome.timed_out;
    sandbox_outcome_clear(&outcome);
    sandbox_policy_free(policy);
    if (timed_out)
        return 124;
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
