#define _POSIX_C_SOURCE 200809L
/* Protected paths: the pattern list, the portable matcher and the resolved
 * form the platform renderers read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int match_defaults(const char *path)
{
    sandbox_policy *p = sandbox_policy_new();
    int k;
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    k = sbx_protect_match(p->protect, p->n_protect, path, 0);
    sandbox_policy_free(p);
    return k;
}

static void test_spec_cases_are_read_and_write_protected(void **state)
{
    static const char *const paths[] = {
        "/p/.env", "/p/sub/.ENV", "/p/conf/.env.local", "/p/keys/server.pem", "/p/keys/ID_RSA",
        "/p/.ssh/config", "/p/.ssh", "/h/.ssh/id_ed25519", "/p/a/.Env.Production", "/p/x/tls.KEY",
        "/p/id_ed25519_sk", "/p/id_ecdsa", "/p/id_rsa_work", "/p/.aws", "/p/.gnupg/x",
        "/p/.netrc", "/p/.pypirc", ".env", "/p/.ssh/keys/deploy"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        if (match_defaults(paths[i]) != SANDBOX_PROTECT_ALL)
            fail_msg("%s is not protected", paths[i]);
    }
}

static void test_ordinary_names_are_not_protected(void **state)
{
    static const char *const paths[] = {"/p/env.md", "/p/.envrc", "/p/environment", "/p/x.env",
                                        "/p/pem", "/p/keys", "/p/id_rsa.pub", "/p/.gitignore",
                                        "/p/.github/workflows/ci.yml", "/p/.npmrc", "/p/.docker",
                                        "/p/.config/ghost", "/p/my.env/readme", "/",
                                        "/p/.config/gh" /* home-anchored only */};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        if (match_defaults(paths[i]) != -1)
            fail_msg("%s is protected", paths[i]);
    }
}

static void test_git_is_write_protected_only(void **state)
{
    (void)state;
    assert_int_equal(match_defaults("/p/.git"), SANDBOX_PROTECT_WRITE);
    assert_int_equal(match_defaults("/p/.GIT/hooks/pre-commit"), SANDBOX_PROTECT_WRITE);
    assert_int_equal(match_defaults("/p/vendor/lib/.git/config"), SANDBOX_PROTECT_WRITE);
    /* A secret under .git is still a secret. */
    assert_int_equal(match_defaults("/p/.git/.env"), SANDBOX_PROTECT_ALL);
}

static void test_glob_is_per_component_and_case_insensitive(void **state)
{
    (void)state;
    assert_true(sbx_protect_glob("*.pem", "A.PEM", 5));
    assert_true(sbx_protect_glob(".env.*", ".env.", 5));
    assert_false(sbx_protect_glob(".env.*", ".env", 4));
    assert_true(sbx_protect_glob("a?c", "abc", 3));
    assert_false(sbx_protect_glob("a?c", "ac", 2));
    assert_true(sbx_protect_glob("*a*b*", "xxaYYb", 6));
    assert_false(sbx_protect_glob("*a*b*", "xxbYYa", 6));
    assert_true(sbx_protect_glob("*", "anything", 8));
}

static void test_windows_separators_when_asked(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    (void)state;
    sandbox_policy_protect_defaults(p);
    assert_int_equal(sbx_protect_match(p->protect, p->n_protect, "C:\\p\\Sub\\.ENV", 1),
                     SANDBOX_PROTECT_ALL);
    assert_int_equal(sbx_protect_match(p->protect, p->n_protect, "C:\\p\\.SSH\\config", 1),
                     SANDBOX_PROTECT_ALL);
    assert_int_equal(sbx_protect_match(p->protect, p->n_protect, "C:\\p\\Sub\\.ENV", 0), -1);
    sandbox_policy_free(p);
}

static void test_add_remove_and_validation(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    (void)state;
    assert_int_equal(sandbox_policy_protected_count(p), 0);
    assert_true(sbx_policy_is_noop(p));
    assert_int_equal(sandbox_policy_add_protected(p, "secrets.yaml", SANDBOX_PROTECT_ALL), SANDBOX_OK);
    assert_false(sbx_policy_is_noop(p)); /* protection alone must reach the backend */
    assert_int_equal(sandbox_policy_add_protected(p, "SECRETS.yaml", SANDBOX_PROTECT_WRITE), SANDBOX_OK);
    assert_int_equal(sandbox_policy_protected_count(p), 1);
    assert_int_equal(sbx_protect_match(p->protect, p->n_protect, "/a/secrets.YAML", 0),
                     SANDBOX_PROTECT_WRITE);
    assert_int_equal(sandbox_policy_remove_protected(p, "Secrets.Yaml"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_remove_protected(p, "secrets.yaml"), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_protected_count(p), 0);
    assert_int_equal(sandbox_policy_add_protected(p, "", 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, "/etc/shadow", 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, "a/../b", 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, "a//b", 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, "~", 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, "~user/x", 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, "x", 2), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(NULL, "x", 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, "~/.secret", 0), SANDBOX_OK);
    /* Home-anchored patterns are exact paths, never names anywhere. */
    assert_int_equal(sbx_protect_match(p->protect, p->n_protect, "/p/.secret", 0), -1);
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    assert_int_equal(sandbox_policy_remove_protected(p, ".git"), SANDBOX_OK);
    assert_int_equal(sbx_protect_match(p->protect, p->n_protect, "/p/.git/config", 0), -1);
    sandbox_policy_free(p);
}

static const struct sbx_protect *find(const struct sbx_protect *l, size_t n, const char *s)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(l[i].pattern, s) == 0)
            return &l[i];
    return NULL;
}

static void test_resolved_form_per_target(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    setenv("HOME", "/home/me/", 1);
    setenv("USERPROFILE", "C:\\Users\\me", 1);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_false(r.protected_paths_blocked);
    assert_int_equal(r.n_protect, 0);
    sbx_resolved_free(&r);

    sandbox_policy_protect_defaults(p);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_true(r.protected_paths_blocked);
    /* The account's home first, $HOME as well when it differs. */
    assert_true(strcmp(r.home_dir, "/home/me") == 0 ||
                (r.home_alt && strcmp(r.home_alt, "/home/me") == 0));
    assert_non_null(find(r.protect_home, r.n_protect_home, "/home/me/.ssh"));
    assert_non_null(find(r.protect_home, r.n_protect_home, "/home/me/.config/gh"));
    assert_non_null(find(r.protect_home, r.n_protect_home, "/home/me/.npmrc"));
    assert_int_equal(find(r.protect_home, r.n_protect_home, "/home/me/.git")->kind,
                     SANDBOX_PROTECT_WRITE);
    assert_null(find(r.protect_home, r.n_protect_home, "/home/me/*.pem")); /* names, not paths */
    assert_null(find(r.protect, r.n_protect, "~/Library/Keychains"));     /* macOS only */
    sbx_resolved_free(&r);

    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_non_null(find(r.protect, r.n_protect, "~/Library/Keychains"));
    assert_non_null(find(r.protect_home, r.n_protect_home, "/home/me/Library/Keychains"));
    assert_non_null(find(r.protect_home, r.n_protect_home, "/Library/Keychains"));
    sbx_resolved_free(&r);

    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    assert_string_equal(r.home_dir, "C:\\Users\\me");
    assert_non_null(find(r.protect_home, r.n_protect_home, "C:\\Users\\me\\.ssh"));
    assert_non_null(find(r.protect_home, r.n_protect_home, "C:\\Users\\me\\.config/gh"));
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

/* As the guard asks: at the account's home, then at a different $HOME. */
static int refuses(const sbx_resolved *r, const char *path)
{
    return sbx_protect_refuses_create(r->protect, r->n_protect, r->protect_home, r->n_protect_home,
                                      r->home_dir, path, strlen(path)) ||
           (r->home_alt &&
            sbx_protect_refuses_create(r->protect, r->n_protect, r->protect_home,
                                       r->n_protect_home, r->home_alt, path, strlen(path)));
}

/* Editor and agent configuration (issue 23): write-protected, refused at
 * creation, not beneath node_modules; .git creatable, the rest not. */
static void test_agent_configuration_is_write_protected_and_not_created(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    static const char *const names[] = {"/p/.vscode",    "/p/.idea/workspace.xml", "/p/.mcp.json",
                                        "/p/.claude",    "/p/sub/.codex",          "/p/.cursor/mcp.json",
                                        "/p/.gemini",    "/p/.devcontainer",       "/p/.VSCode",
                                        "/p/.devcontainer.json", "/p/app.code-workspace"};
    static const char *const free_names[] = {"/p/node_modules/pkg/.vscode",
                                             "/p/node_modules/a/node_modules/b/.idea/x",
                                             "/p/.github/workflows/ci.yml", "/p/vscode",
                                             "/p/.mcp.json5"};
    size_t i;
    (void)state;
    setenv("HOME", "/home/me", 1);
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (match_defaults(names[i]) != SANDBOX_PROTECT_WRITE)
            fail_msg("%s is not write-protected", names[i]);
    for (i = 0; i < sizeof free_names / sizeof free_names[0]; i++)
        if (match_defaults(free_names[i]) != -1)
            fail_msg("%s is protected", free_names[i]);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    /* The guard judges the name made: a missing .idea is refused, a file
     * in an existing one meets its read-only mount instead. */
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strchr(names[i] + 3, '/') && !refuses(&r, names[i]))
            fail_msg("creating %s is not refused", names[i]);
    assert_true(refuses(&r, "/p/sub/.codex"));
    assert_false(refuses(&r, "/p/node_modules/pkg/.vscode"));
    assert_false(refuses(&r, "/p/sub/.git"));
    /* A host's write-protected name is refused at creation too; .git is
     * the one exception, whoever adds it. */
    assert_int_equal(sandbox_policy_add_protected(p, "notes", SANDBOX_PROTECT_WRITE), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_protected(p, ".git", SANDBOX_PROTECT_WRITE), SANDBOX_OK);
    sbx_resolved_free(&r);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_true(refuses(&r, "/p/notes"));
    assert_false(refuses(&r, "/p/.git"));
    /* A renamed directory holding `workflows` is an ancestor of a
     * write-protected pattern of two components. */
    assert_int_equal(sandbox_policy_add_protected(p, ".github/workflows", SANDBOX_PROTECT_WRITE),
                     SANDBOX_OK);
    sbx_resolved_free(&r);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_true(sbx_protect_refuses_ancestor(r.protect, r.n_protect, r.home_dir, "/p/.github", 10));
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

/* SANDBOX_PROTECT_GIT: only for .git; resolved as WRITE with its flag on
 * Linux and macOS, as a plain WRITE .git on Windows; it matches no name
 * (its parts are the masks' and the profile's). */
static void test_git_kind_resolves_per_target(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    const struct sbx_protect *e;
    (void)state;
    setenv("HOME", "/home/me", 1);
    assert_int_equal(sandbox_policy_add_protected(p, ".vscode", SANDBOX_PROTECT_GIT),
                     SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, ".git", 3), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_add_protected(p, ".git", SANDBOX_PROTECT_GIT), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_non_null(e = find(r.protect, r.n_protect, ".git"));
    assert_int_equal(e->kind, SANDBOX_PROTECT_WRITE);
    assert_true(e->flags & SBX_PROTECT_F_GIT);
    assert_int_equal(sbx_protect_match(r.protect, r.n_protect, "/p/.git/objects/ab/cd", 0), -1);
    assert_int_equal(sbx_protect_match(r.protect, r.n_protect, "/p/.git", 0), -1);
    sbx_resolved_free(&r);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_WINDOWS, &r, &err), SANDBOX_OK);
    assert_non_null(e = find(r.protect, r.n_protect, ".git"));
    assert_int_equal(e->kind, SANDBOX_PROTECT_WRITE);
    assert_false(e->flags & SBX_PROTECT_F_GIT);
    assert_int_equal(sbx_protect_match(r.protect, r.n_protect, "C:\\p\\.git\\objects", 1),
                     SANDBOX_PROTECT_WRITE);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

/* What the Linux creation guard refuses: the new name's last components
 * against read-write patterns, home-only patterns at their place only. */
static void test_creation_guard_decisions(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    static const char *const refused[] = {
        "/p/.env.production", "/p/sub/.ENV.local", "/p/keys/new.pem", "/p/.ssh", "/p/a/b/.aws",
        "/p/id_rsa", "/p/new.KEY", "/home/me/.npmrc", "/home/me/.config/gh",
        "/home/me/.config/gh/hosts.yml", "/home/me/.docker", "/tmp/x/.env", "/p/config/credentials",
        "/home/me/.config/x.json", "/home/me/.config/X.JSON/inner",
        /* copies keep the secret; issue 18's home credentials */
        "/p/.env~", "/p/.env.bak", "/p/id_ed25519.bak", "/p/server.key.orig", "/p/.env.local.swp",
        "/home/me/.git-credentials", "/home/me/.config/git/credentials", "/home/me/.pgpass",
        "/home/me/.my.cnf", "/home/me/.azure", "/home/me/.config/gcloud/credentials.db",
        "/home/me/.cargo/credentials.toml", "/home/me/.terraform.d/credentials.tfrc.json"};
    static const char *const allowed[] = {
        "/p/notes.txt", "/p/.git", "/p/.git/config", "/p/.npmrc", "/p/sub/.docker",
        "/p/.config/gh", "/p/env.md", "/p/.envrc", "/p/id_rsa.pub", "/home/me/notes",
        "/home/me/.config", "/home/me/a/.config/x.json", "/p/credentials", "/",
        "/p/id_rsa.pub.bak", "/p/notes.bak", "/p/.git-credentials", "/p/.my.cnf", "/p/~",
        "/home/me/.cargo/config.toml"};
    size_t i;
    (void)state;
    setenv("HOME", "/home/me", 1);
    sandbox_policy_protect_defaults(p);
    assert_int_equal(sandbox_policy_add_protected(p, "config/credentials", SANDBOX_PROTECT_ALL),
                     SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_protected(p, "~/.config/*.json", SANDBOX_PROTECT_ALL),
                     SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    for (i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (!refuses(&r, refused[i]))
            fail_msg("creating %s is not refused", refused[i]);
    for (i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (refuses(&r, allowed[i]))
            fail_msg("creating %s is refused", allowed[i]);
    /* ".env.*" matches ".env.d": a directory of that name is refused too. */
    assert_true(refuses(&r, "/p/.env.d"));
    /* A renamed directory or a symlink named like a leading part of a
     * pattern of several components would make the protected path below it. */
    static const char *const ancestors[] = {"/p/config", "/p/sub/CONFIG", "/home/me/.config"};
    static const char *const not_ancestors[] = {"/p/configs", "/p/credentials", "/home/me/x/.config",
                                                "/home/me/.config/gh/x", "/p/.env", "/"};
    const char *hd = r.home_alt ? r.home_alt : r.home_dir; /* $HOME, here /home/me */
    for (i = 0; i < sizeof ancestors / sizeof ancestors[0]; i++)
        if (!sbx_protect_refuses_ancestor(r.protect, r.n_protect, hd, ancestors[i],
                                          strlen(ancestors[i])))
            fail_msg("%s is not refused as a leading part", ancestors[i]);
    for (i = 0; i < sizeof not_ancestors / sizeof not_ancestors[0]; i++)
        if (sbx_protect_refuses_ancestor(r.protect, r.n_protect, hd, not_ancestors[i],
                                         strlen(not_ancestors[i])))
            fail_msg("%s is refused as a leading part", not_ancestors[i]);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

/* Review 18c: copies of home credentials, vim's and GNU's copy names, and
 * the home itself or its ancestors renamed into place. */
static void test_copies_of_home_credentials_and_the_home_renamed(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    static const char *const refused[] = {
        "/home/me/.npmrc.bak", "/home/me/.pgpass~", "/home/me/.git-credentials.orig",
        "/home/me/.my.cnf.old", "/home/me/.config/gcloud.bak", "/home/me/.kube.bak/config",
        "/home/me/.docker~/config.json", "/home/me/.npmrc.save", "/home/me/.npmrc.swo",
        "/home/me/..npmrc.swp", "/home/me/.npmrc.~1~", "/home/me/.config/gh.~12~/hosts.yml",
        "/p/.id_ed25519.swp", "/p/.id_ed25519.swo", "/p/id_ed25519.~1~", "/p/.env.~3~",
        "/p/keys/.server.pem.swp",
        /* round 3: Emacs auto-save, nano's later copies, vim undo, Kate swap */
        "/p/keys/#server.pem#", "/p/id_ed25519.save.1", "/p/.id_ed25519.un~",
        "/p/keys/.server.key.kate-swp", "/home/me/.npmrc.save.3"};
    static const char *const allowed[] = {"/home/me/.npmrc.d", "/home/me/.npmrcx.bak",
                                          "/home/me/x/.npmrc.bak", "/p/.npmrc.bak",
                                          "/p/.id_ed25519.txt", "/p/id_ed25519.~x~",
                                          "/p/.notes.swp", "/p/id_ed25519.~~",
                                          "/p/#notes#", "/p/#", "/p/##", "/p/id_ed25519.save.",
                                          "/p/.save.1", "/p/.notes.un~"};
    static const char *const ancestors[] = {"/home/me", "/home", "/HOME/me"};
    static const char *const not_ancestors[] = {"/home/me2", "/home/m", "/var"};
    size_t i;
    (void)state;
    setenv("HOME", "/home/me", 1);
    sandbox_policy_protect_defaults(p);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    for (i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (!refuses(&r, refused[i]))
            fail_msg("creating %s is not refused", refused[i]);
    for (i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
        if (refuses(&r, allowed[i]))
            fail_msg("creating %s is refused", allowed[i]);
    for (i = 0; i < sizeof ancestors / sizeof ancestors[0]; i++)
        if (!sbx_protect_refuses_ancestor(r.protect, r.n_protect, "/home/me", ancestors[i],
                                          strlen(ancestors[i])))
            fail_msg("%s (the home or an ancestor) is not refused as a leading part", ancestors[i]);
    for (i = 0; i < sizeof not_ancestors / sizeof not_ancestors[0]; i++)
        if (sbx_protect_refuses_ancestor(r.protect, r.n_protect, "/home/me", not_ancestors[i],
                                         strlen(not_ancestors[i])))
            fail_msg("%s is refused as a leading part", not_ancestors[i]);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

/* Has r.protect_home the exact path `want`? */
static int has_home_path(const sbx_resolved *r, const char *want)
{
    size_t i;
    for (i = 0; i < r->n_protect_home; i++)
        if (strcmp(r->protect_home[i].pattern, want) == 0)
            return 1;
    return 0;
}

/* Credentials that environment variables move, absolute or relative to the
 * working directory, as the tools read them. */
static void test_credential_locations_moved_by_the_environment(void **state)
{
    static const char *const vars[][2] = {
        {"XDG_CONFIG_HOME", "/x/cfg"}, {"CARGO_HOME", "/x/cargo"}, {"GNUPGHOME", "/x/gpg"},
        {"CLOUDSDK_CONFIG", "/x/gcloud"}, {"AZURE_CONFIG_DIR", "/x/az"},
        {"AWS_SHARED_CREDENTIALS_FILE", "/x/aws/creds"}, {"AWS_CONFIG_FILE", "/x/aws/config"},
        {"NPM_CONFIG_USERCONFIG", "/x/npmrc"}, {"npm_config_userconfig", "/x/npmrc2"},
        {"TF_CLI_CONFIG_FILE", "/x/tfrc"}, {"DOCKER_CONFIG", "dc"}, {"KUBECONFIG", "kc/config:/x/kube2"}};
    static const char *const want[] = {
        "/x/cfg/gh", "/x/cfg/git/credentials", "/x/cfg/gcloud", "/x/cargo/credentials",
        "/x/cargo/credentials.toml", "/x/gpg", "/x/gcloud", "/x/az", "/x/aws/creds",
        "/x/aws/config", "/x/npmrc", "/x/npmrc2", "/x/tfrc", "/w/proj/dc", "/w/proj/kc/config",
        "/x/kube2"};
    sandbox_policy *p = sandbox_policy_new();
    sbx_resolved r;
    sandbox_error err;
    size_t i;
    (void)state;
    setenv("HOME", "/home/me", 1);
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        setenv(vars[i][0], vars[i][1], 1);
    assert_int_equal(sandbox_policy_set_working_dir(p, "/w/proj"), SANDBOX_OK);
    sandbox_policy_protect_defaults(p);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    for (i = 0; i < sizeof want / sizeof want[0]; i++)
        if (!has_home_path(&r, want[i]))
            fail_msg("%s is not protected", want[i]);
    assert_true(refuses(&r, "/w/proj/dc/config.json"));
    assert_true(refuses(&r, "/x/cfg/gh/hosts.yml"));
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
    for (i = 0; i < sizeof vars / sizeof vars[0]; i++)
        unsetenv(vars[i][0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_cases_are_read_and_write_protected),
        cmocka_unit_test(test_ordinary_names_are_not_protected),
        cmocka_unit_test(test_git_is_write_protected_only),
        cmocka_unit_test(test_glob_is_per_component_and_case_insensitive),
        cmocka_unit_test(test_windows_separators_when_asked),
        cmocka_unit_test(test_add_remove_and_validation),
        cmocka_unit_test(test_resolved_form_per_target),
        cmocka_unit_test(test_creation_guard_decisions),
        cmocka_unit_test(test_copies_of_home_credentials_and_the_home_renamed),
        cmocka_unit_test(test_credential_locations_moved_by_the_environment),
        cmocka_unit_test(test_agent_configuration_is_write_protected_and_not_created),
        cmocka_unit_test(test_git_kind_resolves_per_target),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
