#define _POSIX_C_SOURCE 200809L
/* Words: the "Sandbox:" line for every mode and availability, each
 * platform's denial signature, and the once-per-process warning. Pure: the
 * statuses are built by hand, so every platform is tested on any host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "describe.h"

/* POSIX wait statuses, built without the host's macros. */
#define EXITED(code) ((code) << 8)
#define KILLED(sig) (sig)

static sandbox_policy *policy(int network, int fs)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_network(p, network), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_filesystem(p, fs), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, "/work/p"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, "/work/p"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, "/tmp/t"), SANDBOX_OK);
    return p;
}

static const char *render(const sandbox_policy *p, int target, const struct sbx_avail *a)
{
    static char buf[SANDBOX_DESCRIBE_SIZE];
    sbx_resolved r;
    sandbox_error err;
    assert_int_equal(sbx_resolve(p, target, &r, &err), SANDBOX_OK);
    assert_int_equal(sbx_describe_render(&r, a, buf, sizeof buf), SANDBOX_OK);
    sbx_resolved_free(&r);
    return buf;
}

const char *denial(const sandbox_policy *p, int target, int status, const char *tail);

static const struct sbx_avail all = {1, 1, 1, 1, 1};
static const struct sbx_avail none = {0, 0, 0, 0, 0};
static const struct sbx_avail no_landlock = {1, 0, 0, 0, 0};

static void test_sandbox_line_for_each_mode(void **state)
{
    sandbox_policy *p;
    (void)state;
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &all),
                        "on: writes only inside /work/p, temporary directories; no network.");
    sandbox_policy_add_writable_dir(p, "/cache");
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &all),
                        "on: writes only inside /work/p, /cache, temporary directories; no network.");
    sandbox_policy_free(p);

    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED);
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &all),
                        "on: writes only inside /work/p, temporary directories; network allowed.");
    sandbox_policy_free(p);

    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED);
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &all), "on: no network; writes not confined.");
    assert_string_equal(render(p, SANDBOX_TARGET_WINDOWS, &all),
                        "on: no network; writes only inside /work/p, the temporary directory.");
    sandbox_policy_free(p);

    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_READ_ONLY);
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &all),
                        "on: read-only, no writes anywhere; no network.");
    sandbox_policy_free(p);

    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED);
    assert_true(strncmp(render(p, SANDBOX_TARGET_LINUX, &all), "off: ", 5) == 0);
    sandbox_policy_free(p);
}

static void test_sandbox_line_for_classes(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED);
    (void)state;
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_RESEARCH), SANDBOX_OK);
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &all),
                        "on: writes only inside temporary directories; reads only the system, "
                        "toolchains, the project and those directories; network allowed.");
    /* issue 28: a class confines reads, and a refused read reads the same */
    assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, EXITED(1), "Permission denied"),
                        "the filesystem sandbox probably refused a write outside the writable "
                        "directories, or a read outside what the research class reads (the "
                        "system, toolchains, the project and the writable directories; "
                        "--add-read DIR adds one).");
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_OFFLINE), SANDBOX_OK);
    /* offline denies the network whatever the network field says */
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &all),
                        "on: writes only inside /work/p, temporary directories; reads only the "
                        "system, toolchains, the project and those directories; no network.");
    /* the tool server keeps spec 003's open reads */
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_TOOL_SERVER), SANDBOX_OK);
    assert_null(strstr(render(p, SANDBOX_TARGET_LINUX, &all), "reads only"));
    assert_int_equal(sandbox_policy_set_class(p, SANDBOX_CLASS_MEDIA), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_output_dir(p, "/work/out"), SANDBOX_OK);
    assert_non_null(strstr(render(p, SANDBOX_TARGET_LINUX, &all),
                           "reads only the system, the project and those directories"));
    assert_non_null(strstr(denial(p, SANDBOX_TARGET_MACOS, EXITED(1), "Operation not permitted"),
                           "outside what the media class reads (the system, the project"));
    assert_true(strncmp(denial(p, SANDBOX_TARGET_LINUX, KILLED(31), NULL),
                        "the network sandbox probably killed", 35) == 0);
    sandbox_policy_free(p);
}

static void test_sandbox_line_names_protected_paths(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    (void)state;
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    /* spec 003's shape: roots; protected paths; network */
    assert_string_equal(render(p, SANDBOX_TARGET_MACOS, &all),
                        "on: writes only inside /work/p, temporary directories; protected paths "
                        "blocked; no network.");
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &no_landlock), "unavailable on this system.");
    sandbox_policy_free(p);
}

static void test_sandbox_line_follows_availability(void **state)
{
    sandbox_policy *p;
    (void)state;
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    assert_string_equal(render(p, SANDBOX_TARGET_MACOS, &none), "unavailable on this system.");
    /* Linux without Landlock: confined writes degrade, the network holds. */
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &no_landlock),
                        "on: no network; writes are not confined on this system.");
    sandbox_policy_free(p);
    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_READ_ONLY);
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &no_landlock), "unavailable on this system.");
    sandbox_policy_free(p);
    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED);
    assert_string_equal(render(p, SANDBOX_TARGET_LINUX, &no_landlock), "unavailable on this system.");
    sandbox_policy_free(p);
}

static void test_public_describe_checks_arguments_and_size(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    char small[8], buf[SANDBOX_DESCRIBE_SIZE];
    (void)state;
    assert_int_equal(sandbox_policy_describe(NULL, buf, sizeof buf), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_describe(p, NULL, 10), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_describe(p, buf, 0), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_describe(p, buf, sizeof buf), SANDBOX_OK);
    assert_true(strncmp(buf, "on: ", 4) == 0 || strcmp(buf, "unavailable on this system.") == 0);
    assert_int_equal(sandbox_policy_describe(p, small, sizeof small), SANDBOX_E_INVALID);
    assert_int_equal(strlen(small), sizeof small - 1);
    sandbox_policy_free(p);
}

/* ---- denials ---- */

const char *denial(const sandbox_policy *p, int target, int status, const char *tail)
{
    static char buf[512];
    assert_int_equal(sandbox_describe_denial(p, target, status, tail, buf, sizeof buf), SANDBOX_OK);
    return buf;
}

/* A status is within the command's reach (exit 159, kill -SYS $$): it
 * points at the sandbox, hedged, never certain. */
static void test_linux_sigsys_under_network_deny_is_hedged(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED);
    (void)state;
    assert_true(strncmp(denial(p, SANDBOX_TARGET_LINUX, KILLED(31), NULL),
                        "the network sandbox probably killed", 35) == 0);
    /* a shell reporting its child's SIGSYS */
    assert_true(strncmp(denial(p, SANDBOX_TARGET_LINUX, EXITED(159), "Bad system call\n"),
                        "the network sandbox probably killed", 35) == 0);
    assert_null(strstr(denial(p, SANDBOX_TARGET_LINUX, EXITED(159), NULL), "blocked"));
    /* other deaths and plain failures say nothing */
    assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, KILLED(9), NULL), "");
    assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, EXITED(1), "error: no such file"), "");
    assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, EXITED(0), "Permission denied"), "");
    sandbox_policy_free(p);
    /* SIGSYS without a network deny does not point at the sandbox */
    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED);
    assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, KILLED(31), NULL), "");
    sandbox_policy_free(p);
}

static void test_linux_permission_errors_under_confinement_are_hedged(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    const char *tails[] = {"touch: cannot touch '/home/x': Permission denied\n",
                           "mkdir: cannot create directory '/x': Operation not permitted\n",
                           "sed: couldn't open temporary file: Read-only file system\n",
                           "Error: EACCES: permission denied, open '/etc/x'\n",
                           "mv: cannot move 'a' to '/b/a': Invalid cross-device link\n"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof tails / sizeof tails[0]; i++)
        assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, EXITED(1), tails[i]),
                            "the filesystem sandbox probably refused a write outside /work/p and "
                            "the temporary directories.");
    sandbox_policy_free(p);
    /* no confinement of files: the same text is an ordinary failure */
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED);
    assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, EXITED(1), tails[0]), "");
    sandbox_policy_free(p);
    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_READ_ONLY);
    assert_true(strncmp(denial(p, SANDBOX_TARGET_LINUX, EXITED(1), tails[1]),
                        "the read-only sandbox probably refused", 38) == 0);
    sandbox_policy_free(p);
}

static void test_linux_eperm_network_mode_is_hedged(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    (void)state;
    sandbox_policy_set_deny_action(p, SANDBOX_DENY_EPERM);
    assert_true(strncmp(denial(p, SANDBOX_TARGET_LINUX, EXITED(1),
                               "PermissionError: [Errno 1] Operation not permitted (socket)"),
                        "the network sandbox probably", 28) == 0);
    assert_true(strncmp(denial(p, SANDBOX_TARGET_LINUX, EXITED(1),
                               "cp: cannot create regular file '/x': Permission denied"),
                        "the filesystem sandbox probably", 31) == 0);
    sandbox_policy_free(p);
}

static void test_macos_eperm_signatures(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    (void)state;
    /* Seatbelt: no signal, EPERM text for both dimensions */
    assert_string_equal(denial(p, SANDBOX_TARGET_MACOS, KILLED(12), NULL), "");
    assert_true(strncmp(denial(p, SANDBOX_TARGET_MACOS, EXITED(7),
                               "curl: (7) Failed to connect to example.com port 443: "
                               "Operation not permitted"),
                        "the network sandbox probably", 28) == 0);
    assert_true(strncmp(denial(p, SANDBOX_TARGET_MACOS, EXITED(1), "cat: .env: Operation not permitted"),
                        "the filesystem sandbox probably refused a write outside /work/p", 63) == 0);
    assert_string_equal(denial(p, SANDBOX_TARGET_MACOS, EXITED(1), "cat: x: No such file or directory"),
                        "");
    sandbox_policy_free(p);
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED);
    assert_true(strncmp(denial(p, SANDBOX_TARGET_MACOS, EXITED(1), "Operation not permitted"),
                        "the network sandbox probably", 28) == 0);
    sandbox_policy_free(p);
}

static void test_windows_signatures(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED);
    (void)state;
    /* status is the exit code on Windows */
    assert_true(strncmp(denial(p, SANDBOX_TARGET_WINDOWS, 1,
                               "socket.error: [WinError 10013] An attempt was made to access a "
                               "socket in a way forbidden by its access permissions"),
                        "the network sandbox probably", 28) == 0);
    assert_true(strncmp(denial(p, SANDBOX_TARGET_WINDOWS, 10013, NULL), "the network sandbox", 19) == 0);
    /* an AppContainer confines files even under --no-network alone */
    assert_true(strncmp(denial(p, SANDBOX_TARGET_WINDOWS, 1, "Access is denied."),
                        "the filesystem sandbox probably refused a file access outside /work/p", 69) == 0);
    assert_true(strncmp(denial(p, SANDBOX_TARGET_WINDOWS, 5, NULL), "the filesystem sandbox", 22) == 0);
    assert_string_equal(denial(p, SANDBOX_TARGET_WINDOWS, 0, "Access is denied."), "");
    assert_string_equal(denial(p, SANDBOX_TARGET_WINDOWS, 2, "The system cannot find the file"), "");
    sandbox_policy_free(p);
    p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED);
    assert_string_equal(denial(p, SANDBOX_TARGET_WINDOWS, 5, "Access is denied."), "");
    sandbox_policy_free(p);
}

/* A supervised run with records (issue 19): no record, no network guess. */
static void test_linux_recorded_run_follows_its_records(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    char buf[512];
    (void)state;
    /* nothing recorded: 159 and SIGSYS are the command's own */
    assert_int_equal(sbx_describe_denial_recorded(p, SANDBOX_TARGET_LINUX, EXITED(159),
                                                  "Bad system call\n", 1, buf, sizeof buf),
                     SANDBOX_OK);
    assert_true(strncmp(buf, "exit 159 (the command's own status", 34) == 0);
    assert_null(strstr(buf, "network"));
    assert_int_equal(sbx_describe_denial_recorded(p, SANDBOX_TARGET_LINUX, KILLED(31), NULL, 1,
                                                  buf, sizeof buf),
                     SANDBOX_OK);
    assert_non_null(strstr(buf, "which the sandbox did not send"));
    assert_null(strstr(buf, "network"));
    /* refusals recorded: they say it, no hedged network sentence */
    assert_int_equal(sbx_describe_denial_recorded(p, SANDBOX_TARGET_LINUX, KILLED(31), NULL, 2,
                                                  buf, sizeof buf),
                     SANDBOX_OK);
    assert_string_equal(buf, "");
    /* the filesystem guess stays: Landlock's refusals are not recorded */
    assert_int_equal(sbx_describe_denial_recorded(p, SANDBOX_TARGET_LINUX, EXITED(1),
                                                  "Permission denied\n", 1, buf, sizeof buf),
                     SANDBOX_OK);
    assert_non_null(strstr(buf, "filesystem sandbox probably"));
    /* not recorded (the public function): the hedged guess as before */
    assert_true(strncmp(denial(p, SANDBOX_TARGET_LINUX, EXITED(159), "Bad system call\n"),
                        "the network sandbox probably killed", 35) == 0);
    sandbox_policy_free(p);
}

static void test_denial_arguments_and_long_tails(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    char buf[64], *tail;
    (void)state;
    assert_int_equal(sandbox_describe_denial(NULL, 0, 0, NULL, buf, sizeof buf), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_describe_denial(p, 9, 0, NULL, buf, sizeof buf), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_describe_denial(p, 0, 0, NULL, NULL, 1), SANDBOX_E_INVALID);
    /* only the last 4 KiB are read: an old permission error does not count */
    tail = malloc(20000);
    assert_non_null(tail);
    memset(tail, 'x', 19999);
    tail[19999] = '\0';
    memcpy(tail, "Permission denied", 17);
    assert_string_equal(denial(p, SANDBOX_TARGET_LINUX, EXITED(1), tail), "");
    memcpy(tail + 19980, "Permission denied", 17);
    assert_string_not_equal(denial(p, SANDBOX_TARGET_LINUX, EXITED(1), tail), "");
    free(tail);
    /* a small buffer truncates, still terminated */
    assert_int_equal(sandbox_describe_denial(p, SANDBOX_TARGET_LINUX, KILLED(31), NULL, buf, 10),
                     SANDBOX_OK);
    assert_int_equal(strlen(buf), 9);
    sandbox_policy_free(p);
}

static void test_unavailable_warning_once_with_host_flag(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED);
    struct sbx_avail a;
    int once = 0, other = 0;
    const char *first;
    (void)state;
    sbx_describe_probe(&a);
    assert_null(sandbox_unavailable_warning(p, NULL));
    first = sandbox_unavailable_warning(p, &once);
    if (a.network) {
        assert_null(first); /* enforced here: nothing to warn about */
        assert_int_equal(once, 0);
    } else {
        assert_non_null(first);
        assert_int_equal(once, 1);
        assert_null(sandbox_unavailable_warning(p, &once));
        assert_non_null(sandbox_unavailable_warning(p, &other)); /* each flag is its own */
    }
    sandbox_policy_free(p);
    /* an all-off policy never warns */
    p = sandbox_policy_new();
    once = 0;
    assert_null(sandbox_unavailable_warning(p, &once));
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sandbox_line_for_each_mode),
        cmocka_unit_test(test_sandbox_line_for_classes),
        cmocka_unit_test(test_sandbox_line_names_protected_paths),
        cmocka_unit_test(test_sandbox_line_follows_availability),
        cmocka_unit_test(test_public_describe_checks_arguments_and_size),
        cmocka_unit_test(test_linux_sigsys_under_network_deny_is_hedged),
        cmocka_unit_test(test_linux_permission_errors_under_confinement_are_hedged),
        cmocka_unit_test(test_linux_eperm_network_mode_is_hedged),
        cmocka_unit_test(test_macos_eperm_signatures),
        cmocka_unit_test(test_windows_signatures),
        cmocka_unit_test(test_linux_recorded_run_follows_its_records),
        cmocka_unit_test(test_denial_arguments_and_long_tails),
        cmocka_unit_test(test_unavailable_warning_once_with_host_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
