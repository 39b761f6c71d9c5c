/* The Landlock plan for every ABI from 1 to 7 and every mode: which rights
 * are handled, which paths get which rights, and what happens without
 * Landlock. Pure computation; runs on any host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "linux/landlock.h"
#include "linux/linux.h"

/* The expected rights are stated from the contract, the kernel's Landlock
 * ABI (include/uapi/linux/landlock.h, Documentation/userspace-api/landlock.rst),
 * never from the library's own SBX_LL_* constants: a wrong constant there
 * must fail here, not be copied into the expectation. */
#define K_FS_EXECUTE (1ULL << 0)
#define K_FS_WRITE_FILE (1ULL << 1)
#define K_FS_READ_FILE (1ULL << 2)
#define K_FS_READ_DIR (1ULL << 3)
#define K_FS_REMOVE_DIR (1ULL << 4)
#define K_FS_REMOVE_FILE (1ULL << 5)
#define K_FS_MAKE_CHAR (1ULL << 6)
#define K_FS_MAKE_DIR (1ULL << 7)
#define K_FS_MAKE_REG (1ULL << 8)
#define K_FS_MAKE_SOCK (1ULL << 9)
#define K_FS_MAKE_FIFO (1ULL << 10)
#define K_FS_MAKE_BLOCK (1ULL << 11)
#define K_FS_MAKE_SYM (1ULL << 12)
#define K_FS_REFER (1ULL << 13)     /* ABI 2 */
#define K_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define K_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define K_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define K_NET_CONNECT_TCP (1ULL << 1)
#define K_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define K_SCOPE_SIGNAL (1ULL << 1)

#define V1_WRITE                                                                                   \
    (K_FS_WRITE_FILE | K_FS_REMOVE_DIR | K_FS_REMOVE_FILE | K_FS_MAKE_CHAR |   \
     K_FS_MAKE_DIR | K_FS_MAKE_REG | K_FS_MAKE_SOCK | K_FS_MAKE_FIFO |         \
     K_FS_MAKE_BLOCK | K_FS_MAKE_SYM)
#define TCP (K_NET_BIND_TCP | K_NET_CONNECT_TCP)
#define SCOPES (K_SCOPE_ABSTRACT_UNIX_SOCKET | K_SCOPE_SIGNAL)

/* Resolve a policy with fixed paths, so nothing depends on the host. */
static void resolve(int fs, int net, sbx_resolved *r)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_error err;
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_filesystem(p, fs), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_network(p, net), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, "/p/proj"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, "/p/proj/sub"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, "/p/tmp"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_writable_dir(p, "/p/extra"), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_LINUX, r, &err), SANDBOX_OK);
    sandbox_policy_free(p);
}

/* The library's constants are the kernel's ABI as stated above. (The uapi
 * header cannot be included next to src/linux/landlock.h, which shadows it.) */
static void test_library_rights_are_the_kernel_abi(void **state)
{
    (void)state;
    assert_true(SBX_LL_FS_EXECUTE == K_FS_EXECUTE && SBX_LL_FS_WRITE_FILE == K_FS_WRITE_FILE &&
                SBX_LL_FS_READ_FILE == K_FS_READ_FILE && SBX_LL_FS_READ_DIR == K_FS_READ_DIR &&
                SBX_LL_FS_REMOVE_DIR == K_FS_REMOVE_DIR && SBX_LL_FS_REMOVE_FILE == K_FS_REMOVE_FILE &&
                SBX_LL_FS_MAKE_CHAR == K_FS_MAKE_CHAR && SBX_LL_FS_MAKE_DIR == K_FS_MAKE_DIR &&
                SBX_LL_FS_MAKE_REG == K_FS_MAKE_REG && SBX_LL_FS_MAKE_SOCK == K_FS_MAKE_SOCK &&
                SBX_LL_FS_MAKE_FIFO == K_FS_MAKE_FIFO && SBX_LL_FS_MAKE_BLOCK == K_FS_MAKE_BLOCK &&
                SBX_LL_FS_MAKE_SYM == K_FS_MAKE_SYM && SBX_LL_FS_REFER == K_FS_REFER &&
                SBX_LL_FS_TRUNCATE == K_FS_TRUNCATE && SBX_LL_FS_IOCTL_DEV == K_FS_IOCTL_DEV);
    assert_true(SBX_LL_NET_BIND_TCP == K_NET_BIND_TCP && SBX_LL_NET_CONNECT_TCP == K_NET_CONNECT_TCP);
    assert_true(SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET == K_SCOPE_ABSTRACT_UNIX_SOCKET &&
                SBX_LL_SCOPE_SIGNAL == K_SCOPE_SIGNAL);
}

static void test_confined_handles_exactly_the_write_rights_of_each_abi(void **state)
{
    /* Index = ABI. REFER from 2; never TRUNCATE, IOCTL_DEV, reads or exec. */
    static const uint64_t want[8] = {
        0,
        V1_WRITE,
        V1_WRITE | K_FS_REFER,
        V1_WRITE | K_FS_REFER,
        V1_WRITE | K_FS_REFER,
        V1_WRITE | K_FS_REFER,
        V1_WRITE | K_FS_REFER,
        V1_WRITE | K_FS_REFER,
    };
    struct sbx_landlock_handled h;
    int abi;
    (void)state;
    for (abi = 0; abi <= 7; abi++) {
        sbx_landlock_handled_for(abi, SANDBOX_FS_CONFINED, SANDBOX_NETWORK_ALLOW, &h);
        assert_true(h.fs == want[abi]);
        assert_true(h.net == 0);
        /* Abstract sockets from ABI 6 (issue 20); never signals here. */
        assert_true(h.scoped == (abi >= 6 ? K_SCOPE_ABSTRACT_UNIX_SOCKET : 0));
        assert_false(h.fs & (K_FS_TRUNCATE | K_FS_IOCTL_DEV | K_FS_READ_FILE |
                             K_FS_READ_DIR | K_FS_EXECUTE));
    }
}

static void test_confined_with_network_deny_adds_tcp_from_abi_4(void **state)
{
    struct sbx_landlock_handled h, fs_only;
    int abi;
    (void)state;
    for (abi = 1; abi <= 7; abi++) {
        sbx_landlock_handled_for(abi, SANDBOX_FS_CONFINED, SANDBOX_NETWORK_DENY, &h);
        sbx_landlock_handled_for(abi, SANDBOX_FS_CONFINED, SANDBOX_NETWORK_ALLOW, &fs_only);
        assert_true(h.fs == fs_only.fs); /* one ruleset, same fs rights */
        assert_true(h.net == (abi >= 4 ? TCP : 0));
        assert_true(h.scoped == (abi >= 6 ? K_SCOPE_ABSTRACT_UNIX_SOCKET : 0));
    }
}

static void test_network_deny_alone_still_creates_a_domain_on_every_abi(void **state)
{
    sbx_resolved r;
    struct sbx_landlock_plan p;
    sandbox_error err;
    char warning[256];
    int abi;
    (void)state;
    resolve(SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_DENY, &r);
    for (abi = 1; abi <= 7; abi++) {
        warning[0] = 0;
        assert_int_equal(sbx_landlock_plan_build(&r, abi, "", &p, warning, sizeof warning, &err),
                         SANDBOX_OK);
        assert_string_equal(warning, "");
        if (abi >= 4) {
            assert_true(p.handled.fs == 0);
            assert_true(p.handled.net == TCP);
            assert_int_equal(p.n_rules, 0);
        } else {
            /* Only MAKE_BLOCK, granted again beneath "/": denies nothing. */
            assert_true(p.handled.fs == K_FS_MAKE_BLOCK);
            assert_true(p.handled.net == 0);
            assert_int_equal(p.n_rules, 1);
            assert_string_equal(p.rules[0].path, "/");
            assert_true(p.rules[0].dir_rights == K_FS_MAKE_BLOCK);
        }
        sbx_landlock_plan_free(&p);
    }
    sbx_resolved_free(&r);
}

static void test_unrestricted_allowed_policy_uses_no_landlock(void **state)
{
    struct sbx_landlock_handled h;
    int abi;
    (void)state;
    for (abi = 0; abi <= 7; abi++) {
        sbx_landlock_handled_for(abi, SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_ALLOW, &h);
        assert_true(h.fs == 0 && h.net == 0 && h.scoped == 0);
        sbx_landlock_handled_for(abi, SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_INTERNET_ONLY, &h);
        assert_true(h.fs == 0 && h.net == 0 && h.scoped == 0);
    }
}

static void test_confined_rules_cover_every_root_with_file_rights_for_files(void **state)
{
    static const char *const roots[] = {"/p/proj", "/p/extra", "/p/proj/sub", "/p/tmp", "/tmp"};
    sbx_resolved r;
    struct sbx_landlock_plan p;
    sandbox_error err;
    char warning[256] = "";
    size_t i;
    int abi;
    (void)state;
    resolve(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_ALLOW, &r);
    for (abi = 1; abi <= 7; abi++) {
        assert_int_equal(sbx_landlock_plan_build(&r, abi, "", &p, warning, sizeof warning, &err),
                         SANDBOX_OK);
        assert_true(p.n_rules > 5);
        for (i = 0; i < 5; i++) {
            assert_string_equal(p.rules[i].path, roots[i]);
            /* Everything handled except making device nodes. */
            assert_true(p.rules[i].dir_rights ==
                        (p.handled.fs & ~(K_FS_MAKE_CHAR | K_FS_MAKE_BLOCK)));
            /* A file root: only what a file can have, i.e. write_file. */
            assert_true(p.rules[i].file_rights == K_FS_WRITE_FILE);
            assert_int_equal(p.rules[i].mandatory, 0); /* missing root: skipped, warned */
            assert_int_equal(p.rules[i].device, 0);
        }
        /* /dev itself is never a rule: the device list replaces it. */
        for (i = 0; i < p.n_rules; i++)
            assert_string_not_equal(p.rules[i].path, "/dev");
        sbx_landlock_plan_free(&p);
    }
    assert_string_equal(warning, "");
    sbx_resolved_free(&r);
}

/* The rule for `path` in the plan, or NULL. */
static const struct sbx_landlock_rule *rule_for(const struct sbx_landlock_plan *p, const char *path)
{
    size_t i;
    for (i = 0; i < p->n_rules; i++)
        if (strcmp(p->rules[i].path, path) == 0)
            return &p->rules[i];
    return NULL;
}

static void test_confined_dev_is_narrowed_to_the_device_list(void **state)
{
    static const char *const files[] = {
        "/dev/null",      "/dev/zero",       "/dev/full",           "/dev/random",
        "/dev/urandom",   "/dev/tty",        "/dev/ptmx",           "/dev/kvm",
        "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
        "/dev/nvidia*"};
    static const char *const device_dirs[] = {"/dev/pts", "/dev/dri"};
    static const char *const scratch[] = {"/dev/shm", "/dev/mqueue"};
    /* What the list exists to leave out: disks, tun, fuse, kernel log, memory. */
    static const char *const never[] = {"/dev/sda",  "/dev/vda",  "/dev/loop0", "/dev/net",
                                        "/dev/net/tun", "/dev/fuse", "/dev/kmsg", "/dev/mem",
                                        "/dev/loop-control", "/dev/snd"};
    const uint64_t nodes = K_FS_MAKE_CHAR | K_FS_MAKE_BLOCK;
    const struct sbx_landlock_rule *rule;
    sbx_resolved r;
    struct sbx_landlock_plan p;
    sandbox_error err;
    char warning[256] = "";
    size_t i, n_dev = 0;
    (void)state;
    resolve(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_DENY, &r);
    assert_int_equal(sbx_landlock_plan_build(&r, 7, "", &p, warning, sizeof warning, &err),
                     SANDBOX_OK);
    for (i = 0; i < sizeof files / sizeof files[0]; i++) {
        rule = rule_for(&p, files[i]);
        assert_non_null(rule);
        assert_true(rule->dir_rights == 0); /* a directory there is skipped, not granted */
        assert_true(rule->file_rights == K_FS_WRITE_FILE);
        assert_int_equal(rule->device, 1);
        assert_int_equal(rule->mandatory, 0);
    }
    for (i = 8; i < sizeof files / sizeof files[0]; i++) /* the NVIDIA group */
        assert_string_equal(rule_for(&p, files[i])->gate, "/dev/nvidiactl");
    assert_null(rule_for(&p, "/dev/null")->gate);
    for (i = 0; i < sizeof device_dirs / sizeof device_dirs[0]; i++) {
        rule = rule_for(&p, device_dirs[i]);
        assert_non_null(rule);
        assert_true(rule->dir_rights == K_FS_WRITE_FILE); /* open nodes, make nothing */
        assert_true(rule->file_rights == 0);
        assert_int_equal(rule->device, 1);
    }
    for (i = 0; i < sizeof scratch / sizeof scratch[0]; i++) {
        rule = rule_for(&p, scratch[i]);
        assert_non_null(rule);
        assert_true(rule->dir_rights == (p.handled.fs & ~nodes));
        assert_true(rule->file_rights == 0);
    }
    for (i = 0; i < sizeof never / sizeof never[0]; i++)
        assert_null(rule_for(&p, never[i]));
    for (i = 0; i < p.n_rules; i++) {
        assert_false((p.rules[i].dir_rights | p.rules[i].file_rights) & nodes);
        n_dev += p.rules[i].device;
    }
    assert_int_equal(n_dev, sizeof files / sizeof files[0] + 4);
    assert_int_equal(p.terminal, SBX_LL_TERMINAL_IF_NAMED);
    sbx_landlock_plan_free(&p);
    sbx_resolved_free(&r);

    /* Network-deny alone has no /dev root, so no device list either. */
    resolve(SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_DENY, &r);
    assert_int_equal(sbx_landlock_plan_build(&r, 3, "", &p, warning, sizeof warning, &err),
                     SANDBOX_OK);
    assert_int_equal(p.n_rules, 1);
    assert_string_equal(p.rules[0].path, "/");
    assert_int_equal(p.terminal, SBX_LL_TERMINAL_NONE);
    sbx_landlock_plan_free(&p);
    sbx_resolved_free(&r);

    /* Read-only keeps its own three devices, all mandatory, terminal required. */
    resolve(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_DENY, &r);
    assert_int_equal(sbx_landlock_plan_build(&r, 7, "", &p, warning, sizeof warning, &err),
                     SANDBOX_OK);
    assert_int_equal(p.n_rules, 3);
    for (i = 0; i < p.n_rules; i++)
        assert_int_equal(p.rules[i].mandatory, 1);
    assert_int_equal(p.terminal, SBX_LL_TERMINAL_REQUIRED);
    sbx_landlock_plan_free(&p);
    sbx_resolved_free(&r);
    assert_string_equal(warning, "");
}

static void test_read_only_is_refused_below_abi_6_naming_the_abi(void **state)
{
    sbx_resolved r;
    struct sbx_landlock_plan p;
    sandbox_error err;
    char warning[256] = "", want[32];
    int abi;
    (void)state;
    resolve(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_ALLOW, &r);
    for (abi = 0; abi <= 5; abi++) {
        assert_int_equal(
            sbx_landlock_plan_build(&r, abi, "Landlock is off", &p, warning, sizeof warning, &err),
            SANDBOX_E_UNSUPPORTED);
        assert_int_equal(err.code, SANDBOX_E_UNSUPPORTED);
        snprintf(want, sizeof want, "has ABI %d", abi);
        assert_non_null(strstr(err.message, want));
        assert_non_null(strstr(err.message, "ABI 6"));
        assert_null(p.rules);
        /* Without Landlock at all, the message also says why. */
        if (abi == 0)
            assert_non_null(strstr(err.message, "Landlock is off"));
    }
    assert_string_equal(warning, ""); /* fail closed, never a warning */
    sbx_resolved_free(&r);
}

static void test_read_only_handles_every_write_right_but_truncate_tcp_and_both_scopes(void **state)
{
    static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/full"};
    sbx_resolved r;
    struct sbx_landlock_plan p;
    sandbox_error err;
    char warning[256] = "";
    size_t i;
    int abi;
    (void)state;
    resolve(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_ALLOW, &r);
    assert_int_equal(r.network, SANDBOX_NETWORK_DENY); /* read-only implies no network */
    for (abi = 6; abi <= 9; abi++) { /* 8 and 9: newer kernels are treated as 7 */
        assert_int_equal(sbx_landlock_plan_build(&r, abi, "", &p, warning, sizeof warning, &err),
                         SANDBOX_OK);
        assert_int_equal(p.abi, abi > 7 ? 7 : abi);
        assert_true(p.handled.fs == (V1_WRITE | K_FS_REFER | K_FS_IOCTL_DEV));
        assert_true(p.handled.net == TCP);
        assert_true(p.handled.scoped == SCOPES);
        assert_int_equal(p.n_rules, 3);
        assert_int_equal(p.terminal, 1);
        for (i = 0; i < 3; i++) {
            assert_string_equal(p.rules[i].path, devs[i]);
            assert_true(p.rules[i].dir_rights == 0); /* a directory there is an error */
            /* O_TRUNC on these works without the right: it is not handled. */
            assert_true(p.rules[i].file_rights == (K_FS_WRITE_FILE | K_FS_IOCTL_DEV));
            assert_int_equal(p.rules[i].mandatory, 1);
        }
        sbx_landlock_plan_free(&p);
    }
    assert_string_equal(warning, "");
    sbx_resolved_free(&r);
}

/* TRUNCATE costs a path walk on every open (docs/bench-landlock.md) and the
 * seccomp truncation group closes truncation instead; IOCTL_DEV is computed
 * on device opens only, so read-only keeps refusing device ioctls with it.
 * No rule or terminal grant may name an unhandled right. */
static void test_read_only_handles_ioctl_dev_but_never_truncate(void **state)
{
    sbx_resolved r;
    struct sbx_landlock_plan p;
    struct sbx_landlock_handled h;
    sandbox_error err;
    char warning[256] = "";
    size_t i;
    int abi;
    (void)state;
    for (abi = 0; abi <= 9; abi++) {
        sbx_landlock_handled_for(abi, SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_DENY, &h);
        assert_false(h.fs & K_FS_TRUNCATE);
        assert_true(!!(h.fs & K_FS_IOCTL_DEV) == (abi >= 5));
    }
    resolve(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_DENY, &r);
    for (abi = 6; abi <= 7; abi++) {
        assert_int_equal(sbx_landlock_plan_build(&r, abi, "", &p, warning, sizeof warning, &err),
                         SANDBOX_OK);
        assert_false(p.handled.fs & K_FS_TRUNCATE);
        assert_true(p.handled.fs & K_FS_IOCTL_DEV);
        for (i = 0; i < p.n_rules; i++)
            assert_true(((p.rules[i].dir_rights | p.rules[i].file_rights) & ~p.handled.fs) == 0);
        assert_true((sbx_landlock_terminal_rights(p.abi) & ~p.handled.fs) == 0);
        sbx_landlock_plan_free(&p);
    }
    assert_string_equal(warning, "");
    sbx_resolved_free(&r);
}

static void test_terminal_rights_grow_with_the_abi(void **state)
{
    (void)state;
    assert_true(sbx_landlock_terminal_rights(1) == K_FS_WRITE_FILE);
    assert_true(sbx_landlock_terminal_rights(3) == K_FS_WRITE_FILE); /* never TRUNCATE */
    assert_true(sbx_landlock_terminal_rights(5) == (K_FS_WRITE_FILE | K_FS_IOCTL_DEV));
    assert_true(sbx_landlock_terminal_rights(7) == sbx_landlock_terminal_rights(5));
}

static void test_no_landlock_confined_degrades_to_one_warning(void **state)
{
    sbx_resolved r;
    struct sbx_landlock_plan p;
    sandbox_error err;
    char warning[256] = "";
    (void)state;
    resolve(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_DENY, &r);
    assert_int_equal(sbx_landlock_plan_build(&r, 0, "Landlock is not supported by this kernel", &p,
                                             warning, sizeof warning, &err),
                     SANDBOX_OK);
    assert_true(p.handled.fs == 0 && p.handled.net == 0 && p.handled.scoped == 0);
    assert_int_equal(p.n_rules, 0);
    assert_string_equal(warning, "Landlock is not supported by this kernel; writes are NOT confined");
    sbx_resolved_free(&r);
}

static void test_explain_names_rights_and_rules_in_text_and_json(void **state)
{
    sbx_resolved r;
    sbx_buf b;
    char *s;
    (void)state;
    resolve(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_DENY, &r);
    sbx_buf_init(&b);
    sbx_landlock_explain_abi(&r, 3, "", "assumed", 0, &b);
    s = sbx_buf_take(&b);
    assert_non_null(s);
    assert_non_null(strstr(s, "ABI 3, assumed"));
    assert_non_null(strstr(s, "refer"));
    assert_null(strstr(s, "truncate"));
    assert_null(strstr(s, "bind_tcp")); /* no TCP rules before ABI 4 */
    assert_non_null(strstr(s, "allow beneath /p/extra (added"));
    assert_non_null(strstr(s, "allow device /dev/null (null device"));
    assert_non_null(strstr(s, "allow beneath /dev/pts (pseudo-terminals"));
    assert_null(strstr(s, "allow beneath /dev ("));
    sandbox_free(s);

    sbx_buf_init(&b);
    sbx_landlock_explain_abi(&r, 7, "", "this kernel", 1, &b);
    s = sbx_buf_take(&b);
    assert_non_null(s);
    assert_non_null(strstr(s, "{\"abi\":7,\"abi_source\":\"this kernel\""));
    assert_non_null(strstr(s, "\"handled_net\":[\"bind_tcp\",\"connect_tcp\"]"));
    assert_null(strstr(s, "{\"path\":\"/dev\","));
    assert_non_null(strstr(s, "{\"path\":\"/dev/null\",\"what\":\"null device\""));
    assert_non_null(strstr(s, "\"device\":true,\"only_if\":\"/dev/nvidiactl\""));
    assert_non_null(strstr(s, "\"terminal_outside_pts\":[\"write_file\"]"));
    assert_non_null(strstr(s, "\"if_file\":[\"write_file\"]"));
    sandbox_free(s);

    sbx_buf_init(&b);
    sbx_landlock_explain_abi(&r, 0, "Landlock is disabled at boot", "this kernel", 1, &b);
    s = sbx_buf_take(&b);
    assert_non_null(s);
    assert_non_null(strstr(s, "\"rules\":[]"));
    assert_non_null(strstr(s, "disabled at boot; writes are NOT confined"));
    sandbox_free(s);
    sbx_resolved_free(&r);
}

static void test_explain_of_read_only_below_abi_6_says_it_would_be_refused(void **state)
{
    sbx_resolved r;
    sbx_buf b;
    char *s;
    (void)state;
    resolve(SANDBOX_FS_READ_ONLY, SANDBOX_NETWORK_DENY, &r);
    sbx_buf_init(&b);
    sbx_landlock_explain_abi(&r, 5, "", "this kernel", 0, &b);
    s = sbx_buf_take(&b);
    assert_non_null(s);
    assert_non_null(strstr(s, "needs Landlock ABI 6"));
    assert_non_null(strstr(s, "not run"));
    sandbox_free(s);
    sbx_resolved_free(&r);
}

/* Abstract AF_UNIX sockets (issue 20): scoped wherever writes are confined
 * and the ABI has it, never with network-deny alone, dropped whole by
 * sandbox_policy_allow_unix(p, "@"), and "@name" is refused (a scope has no
 * per-name exception). Read-only keeps both scopes whatever the host asks. */
static void test_abstract_sockets_scoped_where_writes_are_confined(void **state)
{
    sbx_resolved r;
    struct sbx_landlock_plan p;
    sandbox_policy *pol;
    sandbox_error err;
    char warning[256] = "";
    int abi;
    (void)state;
    for (abi = 1; abi <= 7; abi++) {
        struct sbx_landlock_handled h;
        sbx_landlock_handled_for(abi, SANDBOX_FS_UNRESTRICTED, SANDBOX_NETWORK_DENY, &h);
        assert_true(h.scoped == 0);
    }
    pol = sandbox_policy_new();
    assert_non_null(pol);
    assert_int_equal(sandbox_policy_allow_unix(pol, "@name"), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_allow_unix(pol, "@"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_filesystem(pol, SANDBOX_FS_CONFINED), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(pol, "/p/proj"), SANDBOX_OK);
    assert_int_equal(sbx_resolve(pol, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(sbx_landlock_plan_build(&r, 7, "", &p, warning, sizeof warning, &err),
                     SANDBOX_OK);
    assert_true(p.handled.scoped == 0);
    sbx_landlock_plan_free(&p);
    sbx_resolved_free(&r);
    assert_int_equal(sandbox_policy_set_filesystem(pol, SANDBOX_FS_READ_ONLY), SANDBOX_OK);
    assert_int_equal(sbx_resolve(pol, SANDBOX_TARGET_LINUX, &r, &err), SANDBOX_OK);
    assert_int_equal(sbx_landlock_plan_build(&r, 7, "", &p, warning, sizeof warning, &err),
                     SANDBOX_OK);
    assert_true(p.handled.scoped == SCOPES);
    sbx_landlock_plan_free(&p);
    sbx_resolved_free(&r);
    sandbox_policy_free(pol);
    resolve(SANDBOX_FS_CONFINED, SANDBOX_NETWORK_ALLOW, &r);
    assert_int_equal(sbx_landlock_plan_build(&r, 6, "", &p, warning, sizeof warning, &err),
                     SANDBOX_OK);
    assert_true(p.handled.scoped == K_SCOPE_ABSTRACT_UNIX_SOCKET);
    sbx_landlock_plan_free(&p);
    sbx_resolved_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_library_rights_are_the_kernel_abi),
        cmocka_unit_test(test_confined_handles_exactly_the_write_rights_of_each_abi),
        cmocka_unit_test(test_confined_with_network_deny_adds_tcp_from_abi_4),
        cmocka_unit_test(test_network_deny_alone_still_creates_a_domain_on_every_abi),
        cmocka_unit_test(test_unrestricted_allowed_policy_uses_no_landlock),
        cmocka_unit_test(test_confined_rules_cover_every_root_with_file_rights_for_files),
        cmocka_unit_test(test_confined_dev_is_narrowed_to_the_device_list),
        cmocka_unit_test(test_read_only_is_refused_below_abi_6_naming_the_abi),
        cmocka_unit_test(test_read_only_handles_every_write_right_but_truncate_tcp_and_both_scopes),
        cmocka_unit_test(test_read_only_handles_ioctl_dev_but_never_truncate),
        cmocka_unit_test(test_terminal_rights_grow_with_the_abi),
        cmocka_unit_test(test_no_landlock_confined_degrades_to_one_warning),
        cmocka_unit_test(test_explain_names_rights_and_rules_in_text_and_json),
        cmocka_unit_test(test_explain_of_read_only_below_abi_6_says_it_would_be_refused),
        cmocka_unit_test(test_abstract_sockets_scoped_where_writes_are_confined),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
