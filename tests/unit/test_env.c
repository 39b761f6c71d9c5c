#define _POSIX_C_SOURCE 200809L
/* Secrets in the environment (src/env.c, issue 23): which names scrubbing
 * removes and which it keeps (the false positives that matter), the host's
 * exceptions, the filtered array for spawn, and explain (names only). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void test_credential_names_are_removed(void **state)
{
    static const char *const removed[] = {
        "GITHUB_TOKEN", "GH_TOKEN", "NPM_TOKEN", "CI_JOB_TOKEN", "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
        "AZURE_CLIENT_SECRET", "DB_PASSWORD", "TF_VAR_db_password", "GPG_PASSPHRASE",
        "STRIPE_APIKEY", "JWT_SIGNING_KEY", "DEPLOY_PRIVATE_KEY", "npm_config__auth",
        "npm_config__authToken", "npm_config_//registry.npmjs.org/:_authToken", "GITHUB_PAT",
        "PGPASSWORD", "MYSQL_PWD", "SSHPASS", "TOKEN", "github_token", "GITHUB_TOKEN=abc",
        /* review of issue 23 */
        "PRIVATE_KEY", "CI_JOB_JWT", "DOCKER_AUTH_CONFIG", "SENTRY_DSN", "SLACK_WEBHOOK_URL"};
    sandbox_policy *p = sandbox_policy_new();
    size_t i;
    (void)state;
    assert_int_equal(sandbox_policy_set_scrub_env(p, 1), SANDBOX_OK);
    for (i = 0; i < sizeof removed / sizeof removed[0]; i++)
        if (!sandbox_policy_env_removes(p, removed[i]))
            fail_msg("%s is kept", removed[i]);
    sandbox_policy_free(p);
}

static void test_ordinary_names_are_kept(void **state)
{
    static const char *const kept[] = {
        "PATH", "HOME", "TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK", "PASSWORD_STORE_DIR",
        "GPG_KEY", "AWS_REGION", "AWS_PROFILE", "TOKEN_URL", "SECRETS_DIR", "KEYTIMEOUT",
        "XAUTHORITY", "LANG", "TERM", "_TOKEN_", "GIT_ASKPASS", "API_KEY_FILE", "PAT"};
    sandbox_policy *p = sandbox_policy_new();
    size_t i;
    (void)state;
    sandbox_policy_set_scrub_env(p, 1);
    for (i = 0; i < sizeof kept / sizeof kept[0]; i++)
        if (sandbox_policy_env_removes(p, kept[i]))
            fail_msg("%s is removed", kept[i]);
    sandbox_policy_free(p);
}

static void test_off_by_default_and_the_hosts_exceptions(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    (void)state;
    assert_false(sandbox_policy_env_removes(p, "GITHUB_TOKEN"));
    assert_int_equal(sandbox_policy_drop_env(p, "SSH_AUTH_SOCK"), SANDBOX_OK);
    assert_true(sandbox_policy_env_removes(p, "SSH_AUTH_SOCK"));
    assert_false(sandbox_policy_env_removes(p, "GITHUB_TOKEN"));
    sandbox_policy_set_scrub_env(p, 1);
    assert_int_equal(sandbox_policy_keep_env(p, "GITHUB_TOKEN"), SANDBOX_OK);
    assert_false(sandbox_policy_env_removes(p, "GITHUB_TOKEN"));
    assert_true(sandbox_policy_env_removes(p, "GH_TOKEN"));
    /* Exact names: keeping one spelling keeps only it. */
    assert_true(sandbox_policy_env_removes(p, "github_token"));
    assert_int_equal(sandbox_policy_keep_env(p, "A=B"), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_keep_env(p, ""), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_drop_env(NULL, "X"), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_scrub_env(p, 2), SANDBOX_E_INVALID);
    assert_false(sandbox_policy_env_removes(NULL, "X"));
    /* A plan keeps the lists: a copy of the policy removes the same. */
    {
        sandbox_policy *c = sbx_policy_copy(p);
        assert_non_null(c);
        assert_true(sandbox_policy_env_removes(c, "SSH_AUTH_SOCK"));
        assert_false(sandbox_policy_env_removes(c, "GITHUB_TOKEN"));
        sandbox_policy_free(c);
    }
    sandbox_policy_free(p);
}

static void test_filtered_array_for_spawn(void **state)
{
    const char *const envp[] = {"PATH=/usr/bin", "GITHUB_TOKEN=t", "TMPDIR=/old", "A=1", NULL};
    sandbox_policy *p = sandbox_policy_new();
    char *owned = NULL, **out;
    (void)state;
    sandbox_policy_set_scrub_env(p, 1);
    out = sbx_env_filter(p, envp, "/scratch", &owned);
    assert_non_null(out);
    assert_string_equal(out[0], "PATH=/usr/bin");
    assert_string_equal(out[1], "A=1");
    assert_string_equal(out[2], "TMPDIR=/scratch");
    assert_null(out[3]);
    free(out);
    free(owned);
    out = sbx_env_filter(p, envp, NULL, &owned);
    assert_string_equal(out[1], "TMPDIR=/old");
    assert_string_equal(out[2], "A=1");
    assert_null(out[3]);
    assert_null(owned);
    free(out);
    sandbox_policy_free(p);
}

static void test_explain_names_never_values(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_buf b;
    char *s;
    (void)state;
    setenv("SBX_TEST_TOKEN", "v4lue-n0t-shown", 1);
    sandbox_policy_set_scrub_env(p, 1);
    sbx_buf_init(&b);
    sbx_env_explain(p, 0, &b);
    sbx_buf_add(&b, "");
    s = sbx_buf_take(&b);
    assert_non_null(strstr(s, "SBX_TEST_TOKEN"));
    assert_null(strstr(s, "v4lue"));
    free(s);
    sbx_buf_init(&b);
    sbx_env_explain(p, 1, &b);
    sbx_buf_add(&b, "");
    s = sbx_buf_take(&b);
    assert_non_null(strstr(s, "\"SBX_TEST_TOKEN\""));
    assert_null(strstr(s, "v4lue"));
    free(s);
    unsetenv("SBX_TEST_TOKEN");
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_credential_names_are_removed),
        cmocka_unit_test(test_ordinary_names_are_kept),
        cmocka_unit_test(test_off_by_default_and_the_hosts_exceptions),
        cmocka_unit_test(test_filtered_array_for_spawn),
        cmocka_unit_test(test_explain_names_never_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
