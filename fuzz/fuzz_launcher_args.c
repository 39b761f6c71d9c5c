/* Fuzz target: the launcher's command-line parser (launcher/args.c).
 *
 * The input, split at NUL bytes, is argv[1..]. parse_args() must return an
 * exit status it documents (0, 2, 126) or LAUNCHER_PROCEED, and on PROCEED:
 * the command points into argv (no policy for --self-test or --index-watch),
 * a command is present unless --explain was given, at most LAUNCHER_MAX_KEEP_FDS descriptors are kept,
 * all of them >= 0, and the policy explains for the requested target with
 * valid JSON (or fails with a message). Nothing is run: the fuzzer never
 * reaches sandbox_enforce. Absolute paths are moved under a small fixture
 * (fuzz_jail_path): the Windows explain walks the roots. Run with -close_fd_mask=3 (scripts/fuzz.sh):
 * usage errors print. */
#include "fuzz_common.h"

#include "args.h"
#include "json_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *storage, *parts[FUZZ_MAX_STRINGS + 1];
    char *argv[FUZZ_MAX_STRINGS + 2], *jailed[FUZZ_MAX_STRINGS + 1];
    struct launcher_opts o;
    size_t n, i;
    int rc, argc;

    n = fuzz_split(data, size, &storage, parts);
    argv[0] = (char *)"sandbox-exec-launcher";
    for (i = 0; i < n; i++)
        argv[i + 1] = jailed[i] = fuzz_jail_path(parts[i]);
    argv[n + 1] = NULL;
    argc = (int)n + 1;

    rc = parse_args(argc, argv, &o);
    if (rc != LAUNCHER_PROCEED) {
        FUZZ_CHECK(rc == 0 || rc == EXIT_USAGE || rc == EXIT_CANNOT_RUN);
        fuzz_free_all(jailed, n);
        free(storage);
        return 0;
    }
    if (o.self_test || o.index_watch) {
        /* Both ignore every other flag and build no policy. */
        FUZZ_CHECK(o.policy == NULL);
        fuzz_free_all(jailed, n);
        free(storage);
        return 0;
    }
    FUZZ_CHECK(o.policy != NULL);
    FUZZ_CHECK(o.cmd >= argv + 1 && o.cmd <= argv + argc);
    FUZZ_CHECK(o.explain || o.cmd[0] != NULL);
    FUZZ_CHECK(o.n_keep <= LAUNCHER_MAX_KEEP_FDS);
    FUZZ_CHECK(o.n_keep == 0 || o.close_fds);
    for (i = 0; i < o.n_keep; i++)
        FUZZ_CHECK(o.keep_fds[i] >= 0);
    {
        sandbox_error err;
        char *text = NULL;
        int target = o.target == SANDBOX_TARGET_HOST ? SANDBOX_TARGET_LINUX : o.target;
        rc = sandbox_explain(o.policy, (const char *const *)o.cmd, target, 1, &text, &err);
        if (rc == SANDBOX_OK) {
            if (!json_valid(text)) {
                fprintf(stderr, "invalid JSON:\n%s\n", text);
                abort();
            }
            sandbox_free(text);
        } else {
            FUZZ_CHECK(text == NULL && err.message[0]);
        }
    }
    sandbox_policy_free(o.policy);
    fuzz_free_all(jailed, n);
    free(storage);
    return 0;
}
