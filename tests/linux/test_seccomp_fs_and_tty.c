#define _GNU_SOURCE
/* The seccomp programs of confined and network-deny modes against the real
 * kernel, loaded alone in a forked child: the truncation routes Landlock
 * leaves open, terminal injection, an inherited io_uring ring, and how the
 * library picks (or refuses to pick) a program. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/t_profile.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <pty.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "sc_live.h"

static char file[64];

static void refill(void)
{
    int fd = open(file, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "data\n", 5), 5);
    close(fd);
}

static off_t size_of(void)
{
    struct stat st;
    assert_int_equal(stat(file, &st), 0);
    return st.st_size;
}

static int op_rdonly_trunc(void *a) { (void)a; return SC_ERR(open(file, O_RDONLY | O_TRUNC)); }
static int op_rdonly_trunc_creat(void *a) { (void)a; return SC_ERR(open(file, O_RDONLY | O_TRUNC | O_CREAT, 0600)); }
static int op_wronly_trunc(void *a) { (void)a; return SC_ERR(open(file, O_WRONLY | O_TRUNC)); }
static int op_truncate(void *a) { (void)a; return SC_ERR(truncate(file, 0)); }
static int op_ftruncate(void *a)
{
    int fd = open(file, O_WRONLY), rc;
    (void)a;
    if (fd < 0)
        return -errno;
    rc = SC_ERR(ftruncate(fd, 0));
    close(fd);
    return rc;
}
static int op_openat2(void *a)
{
    uint64_t how[3] = {O_RDONLY, 0, 0};
    (void)a;
    return SC_ERR(syscall(437, AT_FDCWD, file, how, sizeof how));
}

static void expect(const char *name, const sbx_resolved *r, sc_op op, int want_free, int want)
{
    char b1[64], b2[64];
    int free_run, confined;
    refill();
    free_run = sc_run(NULL, op, NULL);
    refill();
    confined = sc_run(r, op, NULL);
    printf("%s: unconfined %s, confined %s\n", name, sc_outcome(free_run, b1, sizeof b1),
           sc_outcome(confined, b2, sizeof b2));
    assert_int_equal(free_run, want_free);
    assert_int_equal(confined, want);
}

static void test_confined_refuses_truncation_landlock_does_not_check(void **state)
{
    sbx_resolved conf = sc_policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, 0);
    sbx_resolved both = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, 0);
    (void)state;
    expect("open O_RDONLY|O_TRUNC", &conf, op_rdonly_trunc, 0, EACCES);
    assert_int_equal(size_of(), 5); /* the file was not truncated */
    expect("open O_RDONLY|O_TRUNC|O_CREAT", &conf, op_rdonly_trunc_creat, 0, EACCES);
    expect("open O_RDONLY|O_TRUNC, network deny too", &both, op_rdonly_trunc, 0, EACCES);
    expect("truncate(2)", &conf, op_truncate, 0, EPERM);
    assert_int_equal(size_of(), 5);
    expect("openat2", &conf, op_openat2, 0, ENOSYS);
}

static void test_confined_keeps_write_truncation_for_landlock(void **state)
{
    sbx_resolved conf = sc_policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, 0);
    (void)state;
    /* Opened for writing: Landlock's WRITE_FILE check decides. */
    expect("open O_WRONLY|O_TRUNC", &conf, op_wronly_trunc, 0, 0);
    expect("ftruncate on a writable fd", &conf, op_ftruncate, 0, 0);
}

static void test_network_deny_alone_leaves_truncation_alone(void **state)
{
    sbx_resolved net = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, 0);
    (void)state;
    expect("open O_RDONLY|O_TRUNC without fs confinement", &net, op_rdonly_trunc, 0, 0);
}

static int op_tiocsti(void *a)
{
    int master, slave;
    char c = '#';
    (void)a;
    if (openpty(&master, &slave, NULL, NULL, NULL) != 0)
        return -errno;
    /* Make it the controlling terminal: otherwise TIOCSTI fails anyway. */
    if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) != 0)
        return -ENOTTY;
    return SC_ERR(ioctl(slave, TIOCSTI, &c));
}

static void test_tiocsti_is_refused_in_every_mode(void **state)
{
    sbx_resolved pol[4];
    char b[64];
    int free_run, i;
    (void)state;
    pol[0] = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, 0);
    pol[1] = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, SANDBOX_DENY_EPERM);
    pol[2] = sc_policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, 0);
    pol[3] = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, 0);
    free_run = sc_run(NULL, op_tiocsti, NULL);
    /* Root succeeds; others get EIO when dev.tty.legacy_tiocsti is 0. */
    printf("TIOCSTI unconfined: %s\n", sc_outcome(free_run, b, sizeof b));
    if (free_run == ENOTTY)
        T_SKIP_UNLESS("ptmx", "no pseudo-terminal device to inject into");
    assert_int_not_equal(free_run, EPERM);
    for (i = 0; i < 4; i++)
        assert_int_equal(sc_run(&pol[i], op_tiocsti, NULL), EPERM);
}

static int ring_fd = -1;

static int op_enter_ring(void *a)
{
    (void)a;
    return SC_ERR(syscall(426, ring_fd, 0, 0, 0, NULL, 0));
}

static void test_an_inherited_io_uring_ring_is_refused(void **state)
{
    struct io_uring_params p;
    sbx_resolved net = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, 0);
    (void)state;
    memset(&p, 0, sizeof p);
    ring_fd = (int)syscall(425, 4, &p);
    if (ring_fd < 0) {
        printf("io_uring unavailable: %s\n", strerror(errno));
        T_SKIP_UNLESS("io_uring", "io_uring_setup fails unconfined");
    }
    assert_int_equal(sc_run(NULL, op_enter_ring, NULL), 0);
    assert_int_equal(sc_run(&net, op_enter_ring, NULL), EPERM);
    close(ring_fd);
}

static void test_select_picks_a_program_or_fails_closed(void **state)
{
    sbx_resolved r;
    const struct sbx_bpf_insn *bpf;
    unsigned short len;
    sandbox_error err;
    char detail[256];
    (void)state;

    r = sc_policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED, 0);
    assert_int_equal(sbx_seccomp_select(&r, &bpf, &len, &err), SANDBOX_OK);
    assert_null(bpf);
    assert_int_equal(len, 0);

    r = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, 0);
    assert_int_equal(sbx_seccomp_select(&r, &bpf, &len, &err), SANDBOX_OK);
    assert_non_null(bpf);
    assert_true(len > 0 && len <= 4096);

    r = sc_policy(SANDBOX_NETWORK_INTERNET_ONLY, SANDBOX_FS_UNRESTRICTED, 0);
    assert_int_equal(sbx_seccomp_select(&r, &bpf, &len, &err), SANDBOX_E_UNSUPPORTED);
    assert_null(bpf);
    assert_non_null(strstr(err.message, "internet-only"));

    r = sc_policy(SANDBOX_NETWORK_INTERNET_ONLY, SANDBOX_FS_CONFINED, 0);
    assert_int_equal(sbx_seccomp_select(&r, &bpf, &len, &err), SANDBOX_E_UNSUPPORTED);

    assert_int_equal(sbx_seccomp_available(detail, sizeof detail), 1);
    assert_int_equal(sandbox_network_killswitch_available(), 1);
}

static int setup(void **state)
{
    int fd;
    (void)state;
    snprintf(file, sizeof file, "/tmp/sbx-fs-XXXXXX");
    fd = mkstemp(file);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(file);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_confined_refuses_truncation_landlock_does_not_check),
        cmocka_unit_test(test_confined_keeps_write_truncation_for_landlock),
        cmocka_unit_test(test_network_deny_alone_leaves_truncation_alone),
        cmocka_unit_test(test_tiocsti_is_refused_in_every_mode),
        cmocka_unit_test(test_an_inherited_io_uring_ring_is_refused),
        cmocka_unit_test(test_select_picks_a_program_or_fails_closed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
