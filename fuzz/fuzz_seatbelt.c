/* Fuzz target: no path can change the structure of a Seatbelt profile.
 *
 * Input: byte 0 picks the modes and where the fuzzed path goes (project root
 * or an added directory); the rest, split at NUL, is the path and then the
 * command. The plan is built through the real policy setters and sbx_resolve
 * for the macOS target, with the textual canonicalizer.
 *
 * Invariants:
 *   - the profile is byte-identical to the one rendered for benign paths
 *     ("/b0", "/b1", ...) giving the same number of -D parameters, with the
 *     same modes and constant lists (the never-allowed tools): a path
 *     reaches sandbox-exec only as a -D value;
 *   - the argv is exactly sandbox-exec -p PROFILE (-D WRITABLE_ROOT_i=VALUE)*
 *     -- CMD..., every value one of the roots' spellings, byte for byte;
 *   - sbx_sbpl_string() output reads back to its input, or it refused a
 *     control byte. */
#include "fuzz_common.h"

#include "internal.h"
#include "macos/seatbelt.h"

static char *benign_profile(const sbx_resolved *shape, size_t n_params)
{
    sbx_resolved r;
    sbx_seatbelt_plan plan;
    sandbox_error err;
    char names[64][16];
    struct sbx_root roots[64];
    const char *const argv[] = {"true", NULL};
    char *profile;
    size_t i;

    FUZZ_CHECK(n_params <= 64);
    memset(&r, 0, sizeof r);
    r.target = SANDBOX_TARGET_MACOS;
    r.network = shape->network;
    r.filesystem = shape->filesystem;
    r.deny_action = shape->deny_action;
    /* The never-allowed tools are our constants, part of the shape. */
    r.deny_exec = shape->deny_exec;
    r.n_deny_exec = shape->n_deny_exec;
    for (i = 0; i < n_params; i++) {
        snprintf(names[i], sizeof names[i], "/b%zu", i);
        roots[i].path = names[i];
        roots[i].kind = SBX_ROOT_ADDED;
    }
    r.roots = roots;
    r.n_roots = n_params;
    FUZZ_CHECK(sbx_seatbelt_plan_build(&r, argv, sbx_macos_canon_textual, &plan, &err) ==
               SANDBOX_OK);
    FUZZ_CHECK(plan.n_params == n_params);
    profile = plan.profile;
    plan.profile = NULL;
    sbx_seatbelt_plan_free(&plan);
    return profile;
}

/* Read an SBPL string literal back: quotes around, backslash escapes. */
static void check_sbpl_string(const char *s)
{
    sbx_buf b;
    size_t i, k = 0;
    int rc;
    char *lit, *back;
    const unsigned char *p;
    int has_control = 0;

    for (p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            has_control = 1;
    sbx_buf_init(&b);
    rc = sbx_sbpl_string(&b, s);
    if (has_control) {
        FUZZ_CHECK(rc == SANDBOX_E_INVALID);
        FUZZ_CHECK(b.len == 0);
        sbx_buf_free(&b);
        return;
    }
    FUZZ_CHECK(rc == SANDBOX_OK);
    lit = sbx_buf_take(&b);
    FUZZ_CHECK(lit != NULL);
    FUZZ_CHECK(lit[0] == '"');
    back = malloc(strlen(lit) + 1);
    FUZZ_CHECK(back != NULL);
    for (i = 1; lit[i] != '"'; i++) {
        FUZZ_CHECK(lit[i] != '\0'); /* the literal is closed */
        if (lit[i] == '\\') {
            i++;
            FUZZ_CHECK(lit[i] == '"' || lit[i] == '\\');
        }
        back[k++] = lit[i];
    }
    back[k] = '\0';
    FUZZ_CHECK(lit[i + 1] == '\0'); /* nothing after the closing quote */
    FUZZ_CHECK(strcmp(back, s) == 0);
    free(back);
    free(lit);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *storage, *parts[FUZZ_MAX_STRINGS + 1];
    const char *path, *const *cmd;
    sandbox_policy *policy;
    sbx_resolved r;
    sbx_seatbelt_plan plan;
    sandbox_error err;
    char *benign;
    unsigned sel;
    size_t i, k;
    int rc;

    if (size < 1)
        return 0;
    sel = data[0];
    fuzz_split(data + 1, size - 1, &storage, parts);
    path = parts[0];
    cmd = (const char *const *)(parts + 1);
    check_sbpl_string(path);

    policy = sandbox_policy_new();
    FUZZ_CHECK(policy != NULL);
    sandbox_policy_set_network(policy, (int)(sel % 3));
    sandbox_policy_set_filesystem(policy, (int)((sel / 3) % 3));
    sandbox_policy_set_working_dir(policy, "/w");
    sandbox_policy_set_temp_dir(policy, "/t");
    if (sel & 0x80)
        rc = sandbox_policy_add_writable_dir(policy, path);
    else
        rc = sandbox_policy_set_project_root(policy, path);
    if (rc != SANDBOX_OK) {
        /* Only an empty or relative path is refused. */
        FUZZ_CHECK(path[0] != '/');
        sandbox_policy_free(policy);
        free(storage);
        return 0;
    }
    rc = sbx_resolve(policy, SANDBOX_TARGET_MACOS, &r, &err);
    sandbox_policy_free(policy);
    if (rc != SANDBOX_OK) {
        free(storage);
        return 0;
    }
    rc = sbx_seatbelt_plan_build(&r, cmd, sbx_macos_canon_textual, &plan, &err);
    if (rc != SANDBOX_OK) {
        FUZZ_CHECK(rc == SANDBOX_E_UNSUPPORTED && r.network == SANDBOX_NETWORK_INTERNET_ONLY);
        sbx_resolved_free(&r);
        free(storage);
        return 0;
    }

    /* The profile is a function of the modes and the parameter count only. */
    benign = benign_profile(&r, plan.n_params);
    FUZZ_CHECK(strcmp(plan.profile, benign) == 0);
    free(benign);

    /* Every parameter is one root's literal or canonical spelling. */
    for (i = 0; i < plan.n_params; i++) {
        int found = 0;
        char key[32];
        snprintf(key, sizeof key, "WRITABLE_ROOT_%zu", i);
        FUZZ_CHECK(strcmp(plan.params[i].key, key) == 0);
        for (k = 0; k < plan.n_roots; k++)
            if (strcmp(plan.params[i].value, plan.roots[k].path) == 0 ||
                strcmp(plan.params[i].value, plan.roots[k].canonical) == 0)
                found = 1;
        FUZZ_CHECK(found);
    }

    /* The argv layout, byte for byte. */
    FUZZ_CHECK(strcmp(plan.argv[0], SBX_SANDBOX_EXEC) == 0);
    FUZZ_CHECK(strcmp(plan.argv[1], "-p") == 0);
    FUZZ_CHECK(strcmp(plan.argv[2], plan.profile) == 0);
    k = 3;
    for (i = 0; i < plan.n_params; i++) {
        size_t kl = strlen(plan.params[i].key);
        FUZZ_CHECK(strcmp(plan.argv[k++], "-D") == 0);
        FUZZ_CHECK(strncmp(plan.argv[k], plan.params[i].key, kl) == 0);
        FUZZ_CHECK(plan.argv[k][kl] == '=');
        FUZZ_CHECK(strcmp(plan.argv[k] + kl + 1, plan.params[i].value) == 0);
        k++;
    }
    FUZZ_CHECK(strcmp(plan.argv[k++], "--") == 0);
    for (i = 0; cmd[i]; i++)
        FUZZ_CHECK(strcmp(plan.argv[k++], cmd[i]) == 0);
    FUZZ_CHECK(plan.argv[k] == NULL && plan.argc == k);

    sbx_seatbelt_plan_free(&plan);
    sbx_resolved_free(&r);
    free(storage);
    return 0;
}
