/* Which capabilities each mode drops, and how explain names them. Pure
 * computation; runs on any host (src/linux/caps_rules.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "linux/linux.h"

/* Capability numbers (linux/capability.h), written out so this runs anywhere. */
enum {
    CHOWN = 0, DAC_OVERRIDE = 1, DAC_READ_SEARCH = 2, FOWNER = 3, FSETID = 4, KILL = 5,
    SETGID = 6, SETUID = 7, SETPCAP = 8, LINUX_IMMUTABLE = 9, NET_BIND_SERVICE = 10,
    NET_ADMIN = 12, NET_RAW = 13, IPC_LOCK = 14, IPC_OWNER = 15, SYS_MODULE = 16, SYS_RAWIO = 17,
    SYS_CHROOT = 18, SYS_PTRACE = 19, SYS_PACCT = 20, SYS_ADMIN = 21, SYS_BOOT = 22,
    SYS_NICE = 23, SYS_RESOURCE = 24, SYS_TIME = 25, SYS_TTY_CONFIG = 26, MKNOD = 27, LEASE = 28,
    AUDIT_WRITE = 29, AUDIT_CONTROL = 30, SETFCAP = 31, MAC_OVERRIDE = 32, MAC_ADMIN = 33,
    SYSLOG = 34, WAKE_ALARM = 35, BLOCK_SUSPEND = 36, AUDIT_READ = 37, PERFMON = 38, BPF = 39,
    CHECKPOINT_RESTORE = 40
};
#define B(n) (1ULL << (n))

static void test_every_confining_mode_keeps_exactly_the_file_work_set(void **state)
{
    const uint64_t keep = B(CHOWN) | B(DAC_OVERRIDE) | B(FOWNER) | B(FSETID) | B(KILL) |
                          B(SETGID) | B(SETUID) | B(NET_BIND_SERVICE) | B(IPC_LOCK) |
                          B(AUDIT_WRITE);
    static const int nets[] = {SANDBOX_NETWORK_ALLOW, SANDBOX_NETWORK_DENY};
    size_t i;
    (void)state;
    assert_true(SBX_CAPS_KEEP == keep);
    for (i = 0; i < 2; i++)
        assert_true(sbx_caps_drop_mask(SANDBOX_FS_CONFINED, nets[i]) == ~keep);
    assert_true(sbx_caps_drop_mask(SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_DENY) == ~keep);
}

static void test_kernel_administration_and_future_capabilities_are_dropped(void **state)
{
    static const int must_drop[] = {
        DAC_READ_SEARCH, SETPCAP,   LINUX_IMMUTABLE, NET_ADMIN,     NET_RAW,   IPC_OWNER,
        SYS_MODULE,      SYS_RAWIO, SYS_CHROOT,      SYS_PTRACE,    SYS_PACCT, SYS_ADMIN,
        SYS_BOOT,        SYS_NICE,  SYS_RESOURCE,    SYS_TIME,      SYS_TTY_CONFIG, MKNOD,
        LEASE,           AUDIT_CONTROL, SETFCAP,     MAC_OVERRIDE,  MAC_ADMIN, SYSLOG,
        WAKE_ALARM,      BLOCK_SUSPEND, AUDIT_READ,  PERFMON,       BPF,       CHECKPOINT_RESTORE};
    uint64_t drop = sbx_caps_drop_mask(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_ALLOW);
    size_t i;
    int cap;
    (void)state;
    for (i = 0; i < sizeof must_drop / sizeof must_drop[0]; i++)
        assert_true(drop & B(must_drop[i]));
    /* A capability a newer kernel adds is dropped, not kept by omission. */
    for (cap = 41; cap < 64; cap++)
        assert_true(drop & B(cap));
}

static void test_read_only_drops_everything_and_unconfined_nothing(void **state)
{
    (void)state;
    assert_true(sbx_caps_drop_mask(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_DENY) == SBX_CAPS_ALL);
    assert_true(sbx_caps_drop_mask(SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_ALLOW) == 0);
}

static void test_names_follow_the_kernel_numbering(void **state)
{
    (void)state;
    assert_string_equal(sbx_cap_name(CHOWN), "chown");
    assert_string_equal(sbx_cap_name(NET_ADMIN), "net_admin");
    assert_string_equal(sbx_cap_name(SYS_ADMIN), "sys_admin");
    assert_string_equal(sbx_cap_name(MKNOD), "mknod");
    assert_string_equal(sbx_cap_name(AUDIT_WRITE), "audit_write");
    assert_string_equal(sbx_cap_name(BPF), "bpf");
    assert_string_equal(sbx_cap_name(CHECKPOINT_RESTORE), "checkpoint_restore");
    assert_null(sbx_cap_name(41));
    assert_null(sbx_cap_name(-1));
}

static char *explain(int fs, int net, int json)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_error err;
    sbx_resolved r;
    sbx_buf b;
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_filesystem(p, fs), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_network(p, net), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, "/p/proj"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, "/p/proj"), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    sandbox_policy_free(p);
    sbx_buf_init(&b);
    sbx_caps_explain(&r, json, &b);
    sbx_resolved_free(&r);
    return sbx_buf_take(&b);
}

static void test_explain_lists_dropped_and_kept_capabilities(void **state)
{
    char *s;
    (void)state;
    s = explain(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_DENY, 0);
    assert_non_null(s);
    assert_non_null(strstr(s, "drop: cap_dac_read_search,cap_setpcap,"));
    assert_non_null(strstr(s, "cap_net_admin"));
    assert_non_null(strstr(s, "and any numbered 41 or above"));
    assert_non_null(strstr(s, "keep: cap_chown,cap_dac_override,cap_fowner"));
    assert_non_null(strstr(s, "the bounding set is left unchanged"));
    sandbox_free(s);

    s = explain(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_ALLOW, 1);
    assert_non_null(s);
    assert_non_null(strstr(s, "\"drop\":[\"cap_dac_read_search\",\"cap_setpcap\","));
    assert_non_null(strstr(s, "\"keep\":[\"cap_chown\",\"cap_dac_override\","));
    assert_non_null(strstr(s, "\"drop_unnamed_above\":true"));
    assert_non_null(strstr(s, "\"bounding_set\":false"));
    sandbox_free(s);

    s = explain(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_DENY, 0);
    assert_non_null(s);
    assert_non_null(strstr(s, "dropped from every set, the bounding set included"));
    sandbox_free(s);

    s = explain(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_DENY, 1);
    assert_non_null(s);
    assert_non_null(strstr(s, "\"keep\":[]"));
    assert_non_null(strstr(s, "\"bounding_set\":true"));
    sandbox_free(s);

    s = explain(SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_ALLOW, 1);
    assert_non_null(s);
    assert_string_equal(s, "null");
    sandbox_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_confining_mode_keeps_exactly_the_file_work_set),
        cmocka_unit_test(test_kernel_administration_and_future_capabilities_are_dropped),
        cmocka_unit_test(test_read_only_drops_everything_and_unconfined_nothing),
        cmocka_unit_test(test_names_follow_the_kernel_numbering),
        cmocka_unit_test(test_explain_lists_dropped_and_kept_capabilities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
