/* Fuzz target: the policy builder, sbx_resolve and sandbox_explain for every
 * target, in text and JSON.
 *
 * The input is a little program: byte 0 holds the network, filesystem and
 * deny-action values, byte 1 the class, writable caches, the hard-link scan
 * and the default protected set (out-of-range values included, so the
 * setters' range checks are exercised); then NUL-separated strings, each
 * starting with an opcode byte that says which setter gets the rest (project
 * root, added dir, working dir, temp dir, output dir, allowed hard link,
 * protected pattern of either kind, removal of a pattern) or that it is the
 * command. Paths are moved under a small fixture (fuzz_jail_path): the
 * Windows explain walks the roots it names on this host. Invariants:
 *   - setters refuse exactly the empty and relative paths and bad values;
 *   - sbx_resolve lists no root twice and none of them empty;
 *   - sandbox_explain succeeds or fails with a message, and its JSON output
 *     is one valid JSON value (fuzz/json_check.h). */
#include "fuzz_common.h"

#include "internal.h"
#include "json_check.h"

static int absolute(const char *p)
{
    if (p[0] == '/')
        return 1;
    if (((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z')) && p[1] == ':' &&
        (p[2] == '\\' || p[2] == '/'))
        return 1;
    return p[0] == '\\' && p[1] == '\\';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *storage, *parts[FUZZ_MAX_STRINGS + 1];
    const char *cmd[FUZZ_MAX_STRINGS + 1];
    size_t n, i, n_cmd = 0;
    sandbox_policy *policy;
    int net, fs, deny, rc, target, json;

    int klass;
    if (size < 2)
        return 0;
    net = (data[0] & 0x07) - 1; /* -1 .. 6 */
    fs = ((data[0] >> 3) & 0x07) - 1;
    deny = ((data[0] >> 6) & 0x03) - 1;
    policy = sandbox_policy_new();
    FUZZ_CHECK(policy != NULL);
    rc = sandbox_policy_set_network(policy, net);
    FUZZ_CHECK((rc == SANDBOX_OK) == (net >= 0 && net <= 2));
    rc = sandbox_policy_set_filesystem(policy, fs);
    FUZZ_CHECK((rc == SANDBOX_OK) == (fs >= 0 && fs <= 2));
    rc = sandbox_policy_set_deny_action(policy, deny);
    FUZZ_CHECK((rc == SANDBOX_OK) == (deny == 0 || deny == 1));
    klass = (data[1] & 0x07) - 1; /* -1 .. 6: -1 and 6 are not classes */
    if (klass >= 0) {
        rc = sandbox_policy_set_class(policy, klass);
        FUZZ_CHECK((rc == SANDBOX_OK) == (klass <= SANDBOX_CLASS_TOOL_SERVER));
    }
    rc = sandbox_policy_set_writable_caches(policy, (data[1] >> 3) & 0x03);
    FUZZ_CHECK((rc == SANDBOX_OK) == (((data[1] >> 3) & 0x03) <= 1));
    sandbox_policy_set_scan_hardlinks(policy, (data[1] >> 5) & 0x01);
    if (data[1] & 0x40)
        FUZZ_CHECK(sandbox_policy_protect_defaults(policy) == SANDBOX_OK);

    n = fuzz_split(data + 2, size - 2, &storage, parts);
    for (i = 0; i < n; i++) {
        const char *s = parts[i];
        if (!s[0])
            continue;
        char *jp;
        switch ((unsigned char)s[0] % 10) {
        case 0:
        case 1:
        case 2:
        case 3:
        case 4:
        case 5:
            jp = fuzz_jail_path(s + 1);
            switch ((unsigned char)s[0] % 10) {
            case 0: rc = sandbox_policy_set_project_root(policy, jp); break;
            case 1: rc = sandbox_policy_add_writable_dir(policy, jp); break;
            case 2: rc = sandbox_policy_set_working_dir(policy, jp); break;
            case 3: rc = sandbox_policy_set_temp_dir(policy, jp); break;
            case 4: rc = sandbox_policy_set_output_dir(policy, jp); break;
            default: rc = sandbox_policy_allow_hardlink(policy, jp); break;
            }
            free(jp);
            break;
        case 6:
        case 7:
            /* Patterns have their own grammar: only the call must be safe. */
            rc = sandbox_policy_add_protected(policy, s + 1, (unsigned char)s[0] % 10 - 6);
            FUZZ_CHECK(rc == SANDBOX_OK || rc == SANDBOX_E_INVALID);
            continue;
        case 8:
            rc = sandbox_policy_remove_protected(policy, s + 1);
            FUZZ_CHECK(rc == SANDBOX_OK || rc == SANDBOX_E_INVALID);
            continue;
        default: cmd[n_cmd++] = s + 1; continue;
        }
        /* Paths: refused exactly when empty or relative (a home or "/"
         * project is refused later, by sbx_resolve). */
        FUZZ_CHECK((rc == SANDBOX_OK) == (s[1] != '\0' && absolute(s + 1)));
    }
    cmd[n_cmd] = NULL;

    for (target = SANDBOX_TARGET_LINUX; target <= SANDBOX_TARGET_WINDOWS; target++) {
        sbx_resolved r;
        sandbox_error err;
        size_t a, b;
        if (sbx_resolve(policy, target, &r, &err) == SANDBOX_OK) {
            for (a = 0; a < r.n_roots; a++) {
                FUZZ_CHECK(r.roots[a].path && r.roots[a].path[0]);
                for (b = a + 1; b < r.n_roots; b++)
                    FUZZ_CHECK(strcmp(r.roots[a].path, r.roots[b].path) != 0);
            }
            sbx_resolved_free(&r);
        } else {
            FUZZ_CHECK(err.code != SANDBOX_OK && err.message[0]);
        }
        for (json = 0; json <= 1; json++) {
            char *out = NULL;
            rc = sandbox_explain(policy, cmd, target, json, &out, &err);
            if (rc != SANDBOX_OK) {
                FUZZ_CHECK(out == NULL && err.code == rc && err.message[0]);
                continue;
            }
            FUZZ_CHECK(out != NULL);
            if (json && !json_valid(out)) {
                fprintf(stderr, "invalid JSON for target %d:\n%s\n", target, out);
                abort();
            }
            sandbox_free(out);
        }
    }
    sandbox_policy_free(policy);
    free(storage);
    return 0;
}
