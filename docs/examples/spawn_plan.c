/* A host that runs many commands under one policy: prepare it once with
 * sandbox_plan_new, spawn each command from the plan, free it at the end.
 *
 *   cc spawn_plan.c $(pkg-config --cflags --libs sandbox) -o spawn_plan
 *   ./spawn_plan [CMD ARGS...]     (default: sh -c 'echo hello from the sandbox')
 *
 * It runs the command three times from the same plan (a plan may also be
 * shared by several threads at once) and prints how each ended. Exit status:
 * 0 when every run succeeded, else the first failing run's status. */
#define _POSIX_C_SOURCE 200809L
#include <sandbox.h>

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *default_cmd[] = {"sh", "-c", "echo hello from the sandbox", NULL};
    const char *const *cmd = argc > 1 ? (const char *const *)argv + 1 : default_cmd;
    char cwd[4096], line[SANDBOX_DESCRIBE_SIZE], denial[512];
    sandbox_policy *policy = sandbox_policy_new();
    sandbox_plan *plan;
    sandbox_process proc;
    sandbox_error err;
    int run, status, result = 0;

    if (!policy || !getcwd(cwd, sizeof cwd))
        return 1;
    sandbox_policy_set_project_root(policy, cwd);
    if (sandbox_network_killswitch_available()) {
        sandbox_policy_set_network(policy, SANDBOX_NETWORK_DENY);
        sandbox_policy_set_filesystem(policy, SANDBOX_FS_CONFINED);
    } else {
        fprintf(stderr, "warning: this machine cannot confine commands; running them as is\n");
    }
    sandbox_policy_describe(policy, line, sizeof line);
    printf("Sandbox: %s\n", line);
    fflush(stdout);

    /* Once: resolve the roots, build the Landlock ruleset, pick the filter.
     * The plan is a snapshot: the policy may be changed or freed now. */
    if (sandbox_plan_new(policy, &plan, &err) != SANDBOX_OK) {
        fprintf(stderr, "cannot prepare the sandbox: %s (%s)\n", err.message,
                sandbox_strerror(err.code));
        sandbox_policy_free(policy);
        return 126;
    }
    if (sandbox_plan_warning(plan)[0])
        fprintf(stderr, "warning: %s\n", sandbox_plan_warning(plan));

    for (run = 1; run <= 3; run++) {
        fflush(stdout); /* the command writes to the same stdout */
        if (sandbox_spawn_plan(plan, cmd, NULL, NULL, &proc, &err) != SANDBOX_OK) {
            /* Nothing ran. SANDBOX_E_EXEC with ENOENT is "command not found". */
            fprintf(stderr, "run %d: cannot start %s: %s\n", run, cmd[0], err.message);
            result = err.code == SANDBOX_E_EXEC ? 127 : 126;
            break;
        }
        if (sandbox_wait(&proc, &status, &err) != SANDBOX_OK) {
            fprintf(stderr, "run %d: wait: %s\n", run, err.message);
            result = 126;
            break;
        }
        printf("run %d: exit status %d\n", run,
               WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
        if (sandbox_describe_denial(policy, SANDBOX_TARGET_HOST, status, NULL, denial,
                                    sizeof denial) == SANDBOX_OK && denial[0])
            printf("Sandbox: %s\n", denial);
        if (status != 0 && result == 0)
            result = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    }
    sandbox_plan_free(plan);
    sandbox_policy_free(policy);
    return result;
}
