#define _POSIX_C_SOURCE 200809L
/* The seccomp part of explain, and the policy -> program mapping. Explain is
 * printed from the same table the generator compiles, so these tests check
 * that the words name what the programs do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "linux/seccomp_rules.h"

static sbx_resolved policy(int net, int fs, int deny)
{
    sbx_resolved r;
    memset(&r, 0, sizeof r);
    r.target = SANDBOX_TARGET_LINUX;
    r.network = net;
    r.filesystem = fs;
    r.deny_action = deny;
    return r;
}

static char *explain(int net, int fs, int deny, int json)
{
    sbx_resolved r = policy(net, fs, deny);
    sbx_buf b;
    sbx_buf_init(&b);
    sbx_seccomp_explain(&r, json, &b);
    return sbx_buf_take(&b);
}

static void test_policies_map_to_programs(void **state)
{
    const char *why;
    sbx_resolved r;
    (void)state;
    r = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED, 0);
    assert_int_equal(sbx_sc_variant_for(&r, &why), -1);
    r = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, 0);
    assert_int_equal(sbx_sc_variant_for(&r, &why), SBX_SC_V_NET);
    r = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, SANDBOX_DENY_EPERM);
    assert_int_equal(sbx_sc_variant_for(&r, &why), SBX_SC_V_NET_EPERM);
    r = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, 0);
    assert_int_equal(sbx_sc_variant_for(&r, &why), SBX_SC_V_NET_CONFINED);
    r = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, 0);
    assert_int_equal(sbx_sc_variant_for(&r, &why), SBX_SC_V_CONFINED);
    /* Read-only forbids every socket whatever the network setting says. */
    r = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_READ_ONLY, 0);
    assert_int_equal(sbx_sc_variant_for(&r, &why), SBX_SC_V_READ_ONLY);
    r = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, SANDBOX_DENY_EPERM);
    assert_int_equal(sbx_sc_variant_for(&r, &why), SBX_SC_V_READ_ONLY_EPERM);
    r = policy(SANDBOX_NETWORK_INTERNET_ONLY, SANDBOX_FS_UNRESTRICTED, 0);
    assert_int_equal(sbx_sc_variant_for(&r, &why), -2);
    assert_non_null(strstr(why, "internet-only"));
}

static void test_every_variant_has_a_program_for_every_arch_family(void **state)
{
    int f, v;
    (void)state;
    for (f = 0; f < SBX_SC_N_ARCHFAMS; f++)
        for (v = 0; v < SBX_SC_N_VARIANTS; v++)
            assert_non_null(sbx_sc_find(f, v));
    assert_null(sbx_sc_find(SBX_SC_N_ARCHFAMS, 0));
    assert_non_null(strstr(sbx_sc_generator, "libseccomp"));
}

static void test_text_names_the_allowlist_and_the_action(void **state)
{
    char *t = explain(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, 0, 0);
    (void)state;
    assert_non_null(strstr(t, "program net"));
    assert_non_null(strstr(t, "socket"));
    assert_non_null(strstr(t, "kill-process"));
    assert_non_null(strstr(t, "AF_UNIX, AF_NETLINK"));
    assert_non_null(strstr(t, "io_uring_setup"));
    assert_non_null(strstr(t, "TIOCSTI"));
    assert_null(strstr(t, "chmod")); /* no read-only rule outside read-only */
    free(t);
    t = explain(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, SANDBOX_DENY_EPERM, 0);
    assert_null(strstr(t, "kill-process      ")); /* no rule action is a kill */
    assert_non_null(strstr(t, "program net-eperm"));
    free(t);
}

static void test_read_only_text_lists_the_newer_syscall_guard(void **state)
{
    char *t = explain(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, 0, 0);
    (void)state;
    assert_non_null(strstr(t, "fchmodat2"));
    assert_non_null(strstr(t, "setxattrat"));
    assert_non_null(strstr(t, "ENOSYS for every syscall above 470"));
    assert_non_null(strstr(t, "socketpair"));
    assert_non_null(strstr(t, "O_RDONLY|O_TRUNC"));
    free(t);
}

static void test_json_is_one_object_with_groups(void **state)
{
    char *j = explain(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, 0, 1);
    int depth = 0;
    const char *p;
    (void)state;
    assert_true(j[0] == '{');
    for (p = j; *p; p++) {
        if (*p == '{' || *p == '[')
            depth++;
        if (*p == '}' || *p == ']')
            depth--;
        assert_true(depth >= 0);
    }
    assert_int_equal(depth, 0);
    assert_non_null(strstr(j, "\"program\":\"net-confined\""));
    assert_non_null(strstr(j, "\"domain_not_in\":[\"AF_UNIX\",\"AF_NETLINK\"]"));
    assert_non_null(strstr(j, "\"name\":\"truncation\""));
    free(j);
    j = explain(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED, 0, 1);
    assert_string_equal(j, "null");
    free(j);
}

/* Rules shared by several groups are listed once. */
static void test_shared_rules_are_listed_once(void **state)
{
    char *t = explain(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, 0, 0);
    const char *p = t;
    int n = 0;
    (void)state;
    while ((p = strstr(p, "io_uring_setup")) != NULL) {
        n++;
        p++;
    }
    assert_int_equal(n, 1);
    free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policies_map_to_programs),
        cmocka_unit_test(test_every_variant_has_a_program_for_every_arch_family),
        cmocka_unit_test(test_text_names_the_allowlist_and_the_action),
        cmocka_unit_test(test_read_only_text_lists_the_newer_syscall_guard),
        cmocka_unit_test(test_json_is_one_object_with_groups),
        cmocka_unit_test(test_shared_rules_are_listed_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
