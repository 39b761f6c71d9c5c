#define _GNU_SOURCE
/* The read-only seccomp program against the real kernel, loaded alone in a
 * forked child (Landlock and the capability drop are other layers): every
 * refused call fails with its exact errno or signal, and succeeds unconfined. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../common/t_profile.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <mqueue.h>
#include <pty.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <termios.h>

#include "sc_live.h"

static char file[64];

static int op_chmod(void *a) { (void)a; return SC_ERR(chmod(file, 0640)); }
static int op_fchmodat2(void *a) { (void)a; return SC_ERR(syscall(452, AT_FDCWD, file, 0640, 0)); }
static int op_chown(void *a) { (void)a; return SC_ERR(chown(file, getuid(), getgid())); }
static int op_utimensat(void *a) { (void)a; return SC_ERR(utimensat(AT_FDCWD, file, NULL, 0)); }
static int op_setxattr(void *a) { (void)a; return SC_ERR(setxattr(file, "user.sbx", "1", 1, 0)); }
static int op_removexattr(void *a) { (void)a; return SC_ERR(removexattr(file, "user.sbx")); }
static int op_setflags(void *a)
{
    int fd = open(file, O_RDONLY), flags = 0, rc;
    (void)a;
    if (fd < 0)
        return -errno;
    /* Get then set the same flags: allowed to the owner, changes nothing. */
    if (ioctl(fd, FS_IOC_GETFLAGS, &flags) != 0) {
        rc = -errno;
        close(fd);
        return rc;
    }
    rc = SC_ERR(ioctl(fd, FS_IOC_SETFLAGS, &flags));
    close(fd);
    return rc;
}
static int op_shmget(void *a) { (void)a; int id = shmget(IPC_PRIVATE, 4096, 0600); if (id >= 0) shmctl(id, IPC_RMID, NULL); return SC_ERR(id); }
static int op_semget(void *a) { (void)a; int id = semget(IPC_PRIVATE, 1, 0600); if (id >= 0) semctl(id, 0, IPC_RMID); return SC_ERR(id); }
static int op_msgget(void *a) { (void)a; int id = msgget(IPC_PRIVATE, 0600); if (id >= 0) msgctl(id, IPC_RMID, NULL); return SC_ERR(id); }
static int op_mq_open(void *a)
{
    char name[64];
    mqd_t q;
    (void)a;
    snprintf(name, sizeof name, "/sbx-test-%d", (int)getpid());
    q = mq_open(name, O_CREAT | O_RDWR, 0600, NULL);
    if (q == (mqd_t)-1)
        return -errno;
    mq_close(q);
    mq_unlink(name);
    return 0;
}
static int op_add_key(void *a)
{
    (void)a;
    return SC_ERR(syscall(SYS_add_key, "user", "sbx-test", "x", 1, KEY_SPEC_PROCESS_KEYRING));
}
static int op_keyctl(void *a)
{
    (void)a;
    return SC_ERR(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_PROCESS_KEYRING, 1));
}
static int op_io_uring_setup(void *a)
{
    struct io_uring_params p;
    (void)a;
    memset(&p, 0, sizeof p);
    return SC_ERR(syscall(425, 4, &p));
}
static int op_socketpair(void *a) { int sv[2]; (void)a; return SC_ERR(socketpair(AF_UNIX, SOCK_STREAM, 0, sv)); }
static int op_socket_unix(void *a) { (void)a; return SC_ERR(socket(AF_UNIX, SOCK_STREAM, 0)); }
static int op_socket_netlink(void *a) { (void)a; return SC_ERR(socket(AF_NETLINK, SOCK_RAW, 0)); }
static int op_socket_inet(void *a) { (void)a; return SC_ERR(socket(AF_INET, SOCK_STREAM, 0)); }
static int op_socket_inet6(void *a) { (void)a; return SC_ERR(socket(AF_INET6, SOCK_DGRAM, 0)); }
static int op_personality(void *a) { (void)a; return SC_ERR(personality(0xffffffff)); }
static int op_userfaultfd(void *a) { (void)a; return SC_ERR(syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */)); }
static int op_read_file(void *a)
{
    char buf[16];
    int fd = open(file, O_RDONLY);
    (void)a;
    if (fd < 0)
        return -errno;
    return SC_ERR(read(fd, buf, sizeof buf));
}
static int op_rdonly_trunc(void *a) { (void)a; return SC_ERR(open(file, O_RDONLY | O_TRUNC)); }
static int op_truncate(void *a) { (void)a; return SC_ERR(truncate(file, 0)); }

struct ro_case {
    const char *name;
    sc_op op;
    int want;       /* errno, or OUT_SIGNAL + SIGSYS */
    int want_eperm; /* the same under SANDBOX_DENY_EPERM */
};

static const struct ro_case cases[] = {
    {"chmod", op_chmod, EPERM, EPERM},
    {"fchmodat2", op_fchmodat2, EPERM, EPERM},
    {"chown", op_chown, EPERM, EPERM},
    {"utimensat", op_utimensat, EPERM, EPERM},
    {"setxattr", op_setxattr, EPERM, EPERM},
    {"removexattr", op_removexattr, EPERM, EPERM},
    {"FS_IOC_SETFLAGS", op_setflags, EPERM, EPERM},
    {"shmget", op_shmget, EPERM, EPERM},
    {"semget", op_semget, EPERM, EPERM},
    {"msgget", op_msgget, EPERM, EPERM},
    {"mq_open", op_mq_open, EPERM, EPERM},
    {"add_key", op_add_key, EPERM, EPERM},
    {"keyctl", op_keyctl, EPERM, EPERM},
    {"io_uring_setup", op_io_uring_setup, EPERM, EPERM},
    {"socketpair", op_socketpair, EPERM, EPERM},
    {"socket(AF_UNIX)", op_socket_unix, EPERM, EPERM},
    {"socket(AF_NETLINK)", op_socket_netlink, EPERM, EPERM},
    {"socket(AF_INET)", op_socket_inet, OUT_SIGNAL + SIGSYS, EPERM},
    {"socket(AF_INET6)", op_socket_inet6, OUT_SIGNAL + SIGSYS, EPERM},
    {"personality", op_personality, EPERM, EPERM},
    {"userfaultfd", op_userfaultfd, EPERM, EPERM},
    {"open O_RDONLY|O_TRUNC", op_rdonly_trunc, EACCES, EACCES},
    {"truncate", op_truncate, EPERM, EPERM},
};

static int setup(void **state)
{
    int fd;
    (void)state;
    snprintf(file, sizeof file, "/tmp/sbx-ro-XXXXXX");
    fd = mkstemp(file);
    if (fd < 0)
        return -1;
    if (write(fd, "data\n", 5) != 5)
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

static void check_all(int deny_action)
{
    sbx_resolved ro = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, deny_action);
    char b1[64], b2[64];
    size_t i;
    int failures = 0;

    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int want = deny_action == SANDBOX_DENY_EPERM ? cases[i].want_eperm : cases[i].want;
        int free_run = sc_run(NULL, cases[i].op, NULL);
        int confined;
        if (free_run == ENOTTY || free_run == EOPNOTSUPP) {
            printf("skip: fs_attrs: %s: not supported on this file system (%s) [profile: %s]\n",
                   cases[i].name, strerror(free_run),
                   t_have("fs_attrs") == 0 ? "no fs_attrs" : "HAS fs_attrs");
            if (t_have("fs_attrs") != 0)
                failures++;
            continue;
        }
        confined = sc_run(&ro, cases[i].op, NULL);
        if (free_run == want || free_run >= OUT_SIGNAL) {
            printf("FAIL - %s: unconfined it already %s, so the test cannot fail\n",
                   cases[i].name, sc_outcome(free_run, b1, sizeof b1));
            failures++;
        } else if (confined != want) {
            printf("FAIL - %s: confined it %s, wanted it %s\n", cases[i].name,
                   sc_outcome(confined, b1, sizeof b1), sc_outcome(want, b2, sizeof b2));
            failures++;
        } else {
            printf("ok   - %s: unconfined %s, read-only %s\n", cases[i].name,
                   sc_outcome(free_run, b1, sizeof b1), sc_outcome(confined, b2, sizeof b2));
        }
    }
    assert_int_equal(failures, 0);
}

static void test_read_only_refuses_each_call_with_its_errno(void **state)
{
    (void)state;
    check_all(SANDBOX_DENY_SIGSYS);
}

static void test_read_only_eperm_switch_turns_inet_kill_into_eperm(void **state)
{
    (void)state;
    check_all(SANDBOX_DENY_EPERM);
}

static void test_read_only_still_reads(void **state)
{
    sbx_resolved ro = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, 0);
    (void)state;
    assert_int_equal(sc_run(&ro, op_read_file, NULL), 0);
}

static int op_setxattrat(void *a)
{
    (void)a;
    /* setxattrat(dirfd, path, at_flags, name, args, size): the arguments are
     * deliberately invalid, so unconfined it fails without changing anything. */
    return SC_ERR(syscall(463, AT_FDCWD, file, 0, "user.sbx", NULL, 0));
}

static int op_newest(void *a)
{
    (void)a;
    return SC_ERR(syscall(471, 0, 0, 0));
}

/* Syscalls newer than libseccomp's table are decided by the guard. */
static void test_read_only_refuses_newer_syscalls(void **state)
{
    sbx_resolved ro = sc_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, 0);
    int free_run = sc_run(NULL, op_setxattrat, NULL);
    (void)state;
    printf("setxattrat unconfined: %d\n", free_run);
    assert_int_not_equal(free_run, EPERM);
    assert_int_equal(sc_run(&ro, op_setxattrat, NULL), EPERM);
    /* 471 does not exist on Linux 6.18: ENOSYS either way, refused by the
     * guard (the unit tests prove which layer answered). */
    assert_int_equal(sc_run(&ro, op_newest, NULL), ENOSYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read_only_refuses_each_call_with_its_errno),
        cmocka_unit_test(test_read_only_eperm_switch_turns_inet_kill_into_eperm),
        cmocka_unit_test(test_read_only_still_reads),
        cmocka_unit_test(test_read_only_refuses_newer_syscalls),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
