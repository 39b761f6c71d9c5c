/* Confined mode against the real kernel: every write-class operation outside
 * the writable roots is refused and leaves nothing behind, the same operation
 * succeeds unconfined, and legitimate work inside the roots keeps working.
 * Also: the Landlock domain keeps ptrace and friends from reaching outside,
 * in confined and in network-deny mode; and the no-Landlock degrade. */
#include "landlock_child.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>

#include <cmocka.h>

#include "../common/t_profile.h"

static char base[64];
static char path_buf[8][192];
static struct t_roots roots;
static char project[128], added[128], workdir[128], tmpdir[128], outside[128];
static volatile char t_target_byte = 'a'; /* process_vm_writev aims here */

/* base/<rel> in one of a few rotating buffers. */
static const char *at(const char *rel)
{
    static int slot;
    char *p = path_buf[slot++ % 8];
    snprintf(p, sizeof path_buf[0], "%s/%s", base, rel);
    return p;
}

static int setup(void **state)
{
    (void)state;
    strcpy(base, "/var/tmp/sbx-ll-confine.XXXXXX"); /* outside every root, unlike /tmp */
    if (!mkdtemp(base))
        return -1;
    snprintf(project, sizeof project, "%s/proj", base);
    snprintf(added, sizeof added, "%s/added", base);
    snprintf(workdir, sizeof workdir, "%s/wd", base);
    snprintf(tmpdir, sizeof tmpdir, "%s/tmpd", base);
    snprintf(outside, sizeof outside, "%s/out", base);
    if (mkdir(project, 0755) || mkdir(added, 0755) || mkdir(workdir, 0755) ||
        mkdir(tmpdir, 0755) || mkdir(outside, 0755) || mkdir(at("out/emptydir"), 0755) ||
        t_write_file(at("out/existing"), "orig") || t_write_file(at("proj/inside"), "in") ||
        symlink("../out/existing", at("proj/link")))
        return -1;
    roots.project = project;
    roots.added = added;
    roots.workdir = workdir;
    roots.tmpdir = tmpdir;
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

/* A fingerprint of the whole fixture: names, types, sizes, small contents. */
static void fingerprint_dir(const char *dir, char *out, size_t size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char sub[512], content[64];
    struct stat st;
    if (!d)
        return;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        if (lstat(sub, &st) != 0)
            continue;
        content[0] = 0;
        if (S_ISREG(st.st_mode))
            t_read_file(sub, content, sizeof content);
        snprintf(out + strlen(out), size - strlen(out), "%s:%o:%lld:%lu:%s\n", sub,
                 (unsigned)st.st_mode, (long long)st.st_size, (unsigned long)st.st_nlink, content);
        if (S_ISDIR(st.st_mode))
            fingerprint_dir(sub, out, size);
    }
    closedir(d);
}

static void fingerprint(char *out, size_t size)
{
    out[0] = 0;
    fingerprint_dir(base, out, size);
}

/* ---- operations: return 0 or errno ---- */

#define ERR(x) ((x) < 0 ? errno : 0)

static int op_create(const char *a, const char *b)
{
    int fd = open(a, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    (void)b;
    if (fd < 0)
        return errno;
    if (write(fd, "new", 3) != 3)
        return EIO;
    close(fd);
    return 0;
}

static int op_open_flags(const char *a, int flags)
{
    int fd = open(a, flags | O_CLOEXEC);
    if (fd < 0)
        return errno;
    if ((flags & O_ACCMODE) != O_RDONLY && write(fd, "XX", 2) != 2)
        return EIO;
    close(fd);
    return 0;
}

static int op_open_wronly(const char *a, const char *b) { (void)b; return op_open_flags(a, O_WRONLY); }
static int op_open_append(const char *a, const char *b) { (void)b; return op_open_flags(a, O_WRONLY | O_APPEND); }
static int op_open_rdwr(const char *a, const char *b) { (void)b; return op_open_flags(a, O_RDWR); }
static int op_unlink(const char *a, const char *b) { (void)b; return ERR(unlink(a)); }
static int op_rmdir(const char *a, const char *b) { (void)b; return ERR(rmdir(a)); }
static int op_mkdir(const char *a, const char *b) { (void)b; return ERR(mkdir(a, 0755)); }
static int op_mkfifo(const char *a, const char *b) { (void)b; return ERR(mkfifo(a, 0644)); }
static int op_mknod_sock(const char *a, const char *b) { (void)b; return ERR(mknod(a, S_IFSOCK | 0644, 0)); }
static int op_symlink(const char *a, const char *b) { (void)b; return ERR(symlink("/etc/hostname", a)); }
static int op_link(const char *a, const char *b) { return ERR(link(a, b)); }
static int op_rename(const char *a, const char *b) { return ERR(rename(a, b)); }

static int op_read(const char *a, const char *b)
{
    char buf[64];
    (void)b;
    return t_read_file(a, buf, sizeof buf) < 0 ? errno : 0;
}

static int op_bind_unix(const char *a, const char *b)
{
    struct sockaddr_un sun;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;
    (void)b;
    if (s < 0)
        return errno;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    snprintf(sun.sun_path, sizeof sun.sun_path, "%s", a);
    rc = ERR(bind(s, (struct sockaddr *)&sun, sizeof sun));
    close(s);
    return rc;
}

/* A read-only fd of an outside file, reopened for writing via /proc. */
static int op_proc_reopen(const char *a, const char *b)
{
    char proc[64];
    int fd = open(a, O_RDONLY | O_CLOEXEC), rc;
    (void)b;
    if (fd < 0)
        return errno;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    rc = op_open_flags(proc, O_WRONLY);
    close(fd);
    return rc;
}

/* ---- the refused operations, each with its own fresh fixture ---- */

struct refused {
    const char *what;
    t_op op;
    const char *a, *b; /* relative to the fixture */
};

static const struct refused refused_ops[] = {
    {"create a file outside", op_create, "out/new", NULL},
    {"open an outside file O_WRONLY", op_open_wronly, "out/existing", NULL},
    {"open an outside file O_APPEND", op_open_append, "out/existing", NULL},
    {"open an outside file O_RDWR", op_open_rdwr, "out/existing", NULL},
    {"unlink an outside file", op_unlink, "out/existing", NULL},
    {"rmdir an outside directory", op_rmdir, "out/emptydir", NULL},
    {"mkdir outside", op_mkdir, "out/newdir", NULL},
    {"mkfifo outside", op_mkfifo, "out/fifo", NULL},
    {"mknod a socket outside", op_mknod_sock, "out/sock", NULL},
    {"bind a unix socket outside", op_bind_unix, "out/usock", NULL},
    {"symlink outside", op_symlink, "out/sym", NULL},
    {"hard link outside to outside", op_link, "out/existing", "out/hard"},
    {"hard link project to outside", op_link, "proj/inside", "out/hard"},
    {"hard link outside into project", op_link, "out/existing", "proj/hard"},
    {"rename within outside", op_rename, "out/existing", "out/renamed"},
    {"rename outside into project", op_rename, "out/existing", "proj/moved"},
    {"rename project to outside", op_rename, "proj/inside", "out/moved"},
    {"rename an outside directory into project", op_rename, "out/emptydir", "proj/movedd"},
    {"write through a project symlink that points outside", op_open_wronly, "proj/link", NULL},
    {"reopen a read-only fd of an outside file for writing via /proc/self/fd", op_proc_reopen,
     "out/existing", NULL},
};

static void test_every_write_class_operation_outside_the_roots_is_refused_and_leaves_nothing(
    void **state)
{
    static char before[16384], after[16384];
    size_t i;
    int got;

    for (i = 0; i < sizeof refused_ops / sizeof refused_ops[0]; i++) {
        const struct refused *t = &refused_ops[i];
        char a[192], b[192];
        if (i > 0)
            assert_int_equal(setup(state), 0);
        snprintf(a, sizeof a, "%s/%s", base, t->a);
        snprintf(b, sizeof b, "%s/%s", base, t->b ? t->b : "");
        fingerprint(before, sizeof before);
        got = t_run(T_CONFINED, &roots, t->op, a, b);
        fingerprint(after, sizeof after);
        print_message("%-72s confined: %s\n", t->what, strerror(got < 999 ? got : 0));
        if (got != EACCES && got != EPERM && got != EXDEV)
            fail_msg("%s: confined got %d (%s), wanted EACCES/EPERM/EXDEV", t->what, got,
                     got < 999 ? strerror(got) : "crash");
        if (strcmp(before, after) != 0)
            fail_msg("%s: refused but the tree changed:\n%s---\n%s", t->what, before, after);
        /* Prove the test can fail: the same operation works unconfined. */
        got = t_run(T_NONE, &roots, t->op, a, b);
        if (got != 0)
            fail_msg("%s: unconfined got %d (%s), wanted success", t->what, got, strerror(got));
        fingerprint(after, sizeof after);
        assert_string_not_equal(before, after);
        assert_int_equal(teardown(state), 0);
    }
    assert_int_equal(setup(state), 0); /* for the group teardown */
}

static void test_writes_inside_every_root_succeed(void **state)
{
    char tmpname[64], script[1024];
    const char *dirs[6];
    size_t i;
    (void)state;
    snprintf(tmpname, sizeof tmpname, "/tmp/sbx-ll-%ld", (long)getpid());
    dirs[0] = project;
    dirs[1] = added;
    dirs[2] = workdir;
    dirs[3] = tmpdir;
    dirs[4] = tmpname;
    dirs[5] = NULL;
    assert_int_equal(mkdir(tmpname, 0755), 0);
    for (i = 0; dirs[i]; i++) {
        /* create, write, append, mkdir, fifo, symlink, link, rename, rm. */
        snprintf(script, sizeof script,
                 "set -e; cd '%s'; echo one > f; echo two >> f; : > f; mkdir d; mkfifo d/p; "
                 "ln -s f s; ln f h; mv h d/h2; rm -r d s; test -f f",
                 dirs[i]);
        if (t_sh(T_CONFINED, &roots, script) != 0)
            fail_msg("writing inside %s failed under confinement", dirs[i]);
    }
    /* Across roots both ways: REFER is granted inside every root. */
    snprintf(script, sizeof script, "set -e; echo x > '%s/x'; mv '%s/x' '%s/x'; ln '%s/x' '%s/y'",
             project, project, added, added, project);
    assert_int_equal(t_sh(T_CONFINED, &roots, script), 0);
    assert_int_equal(t_sh(T_CONFINED, &roots, "echo hi > /dev/null"), 0);
    snprintf(script, sizeof script, "rm -rf '%s'", tmpname);
    assert_int_equal(system(script), 0);
}

static void test_reads_and_exec_outside_the_roots_still_work(void **state)
{
    (void)state;
    assert_int_equal(t_run(T_CONFINED, &roots, op_read, at("out/existing"), NULL), 0);
    assert_int_equal(t_run(T_CONFINED, &roots, op_read, "/etc/passwd", NULL), 0);
    assert_int_equal(
        t_sh(T_CONFINED, &roots, "cat /etc/hostname >/dev/null && /bin/ls / >/dev/null && "
                                 "grep -q root /etc/passwd && /usr/bin/env true"),
        0);
}

static void test_git_init_add_commit_inside_the_project_works(void **state)
{
    char script[1024];
    (void)state;
    if (access("/usr/bin/git", X_OK) != 0)
        T_SKIP_UNLESS("git", "git is not installed");
    snprintf(script, sizeof script,
             "set -e; cd '%s'; export HOME='%s' GIT_CONFIG_NOSYSTEM=1; git init -q; "
             "echo hello > a.txt; git add a.txt; "
             "git -c user.name=t -c user.email=t@example.invalid commit -qm first; "
             "echo more >> a.txt; git -c user.name=t -c user.email=t@example.invalid commit -qam "
             "second; git log --oneline | grep -q second; git status --short",
             project, tmpdir);
    assert_int_equal(t_sh(T_CONFINED, &roots, script), 0);
}

static void test_user_namespace_mount_cannot_get_around_confinement(void **state)
{
    char script[512];
    (void)state;
    snprintf(script, sizeof script,
             "unshare -Urm sh -c 'mount -t tmpfs none \"%s\" && touch \"%s/x\"' 2>/dev/null",
             at("out/emptydir"), at("out/emptydir"));
    /* Unconfined first: when this host forbids it anyway, the test proves nothing. */
    if (t_sh(T_NONE, &roots, script) != 0)
        T_SKIP_UNLESS("userns", "unshare -Urm + mount fails here even unconfined");
    assert_int_not_equal(t_sh(T_CONFINED, &roots, script), 0);
    assert_false(t_exists(at("out/emptydir/x")));
}

/* ---- the domain keeps ptrace and friends inside ---- */

static int op_ptrace(const char *a, const char *b)
{
    (void)b;
    /* The tracer exits right after; the kernel detaches then. */
    return ERR(ptrace(PTRACE_SEIZE, (pid_t)atoi(a), 0, 0));
}

static int op_vm_write(const char *a, const char *b)
{
    char byte = 'b';
    struct iovec local = {&byte, 1}, remote = {(void *)&t_target_byte, 1};
    (void)b;
    return ERR(process_vm_writev((pid_t)atoi(a), &local, 1, &remote, 1, 0));
}

static int op_pidfd_getfd(const char *a, const char *b)
{
    int pidfd = (int)syscall(434 /* pidfd_open */, (pid_t)atoi(a), 0), fd;
    (void)b;
    if (pidfd < 0)
        return errno;
    fd = (int)syscall(438 /* pidfd_getfd */, pidfd, 0, 0);
    return fd < 0 ? errno : 0;
}

static void check_outside_process_unreachable(enum t_mode mode)
{
    static const struct {
        const char *what;
        t_op op;
    } ops[] = {{"ptrace", op_ptrace}, {"process_vm_writev", op_vm_write},
               {"pidfd_getfd", op_pidfd_getfd}};
    char pid[16], scope[8] = "";
    size_t i;
    pid_t target;

    /* Yama above 0 forbids a sibling's ptrace even unconfined. */
    if (t_read_file("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof scope) > 0 &&
        scope[0] != '0' && getuid() != 0)
        T_SKIP_UNLESS("ptrace0", "yama ptrace_scope above 0: unconfined ptrace of a sibling fails");
    target = fork();
    assert_true(target >= 0);
    if (target == 0) {
        for (;;)
            pause();
    }
    snprintf(pid, sizeof pid, "%d", (int)target);
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        int got = t_run(mode, &roots, ops[i].op, pid, NULL);
        int free_ = t_run(T_NONE, &roots, ops[i].op, pid, NULL);
        print_message("%s: sandboxed %s, unconfined %s\n", ops[i].what, strerror(got),
                      strerror(free_));
        if (got != EPERM)
            fail_msg("%s of an outside process: got %d, wanted EPERM", ops[i].what, got);
        if (free_ != 0)
            fail_msg("%s unconfined: got %d, wanted success", ops[i].what, free_);
    }
    kill(target, SIGKILL);
    waitpid(target, NULL, 0);
}

static void test_network_deny_cannot_ptrace_or_write_memory_of_an_outside_process(void **state)
{
    (void)state;
    check_outside_process_unreachable(T_NET_DENY);
}

static void test_confined_cannot_ptrace_or_write_memory_of_an_outside_process(void **state)
{
    (void)state;
    check_outside_process_unreachable(T_CONFINED);
}

/* ---- the degrade, for real: Landlock hidden by an outer seccomp filter ---- */

/* Run `hide landlock -- this-binary --run MODE PROJECT -- sh -c SCRIPT`;
 * returns the exit status, stderr in err. */
static int run_hidden(const char *mode, const char *script, char *err, size_t size)
{
    char hide[256], self[256];
    const char *probes = getenv("SBX_PROBES");
    int pipefd[2], status;
    ssize_t n, total = 0;
    pid_t pid;

    if (!probes)
        return -1;
    snprintf(hide, sizeof hide, "%s/hide", probes);
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0 || pipe(pipefd) != 0)
        return -1;
    self[n] = 0;
    pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        execl(hide, hide, "landlock", "--", self, "--run", mode, project, "--", "sh", "-c",
              script, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    while ((n = read(pipefd[0], err + total, size - 1 - (size_t)total)) > 0)
        total += n;
    err[total] = 0;
    close(pipefd[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_without_landlock_confined_runs_the_command_with_one_warning(void **state)
{
    char script[256], err[1024];
    (void)state;
    if (!getenv("SBX_PROBES"))
        T_SKIP_UNLESS("probes", "SBX_PROBES is not set");
    snprintf(script, sizeof script, "echo ran > '%s'", at("out/marker"));
    assert_int_equal(run_hidden("confined", script, err, sizeof err), 0);
    print_message("stderr: %s", err);
    /* The documented no-op: the command ran, and the write was not confined. */
    assert_true(t_exists(at("out/marker")));
    assert_non_null(strstr(err, "Landlock is not supported by this kernel"));
    assert_non_null(strstr(err, "writes are NOT confined"));
    assert_non_null(strstr(err, "warning"));
    assert_null(strstr(strstr(err, "warning") + 1, "warning")); /* exactly one */
}

/* The partial capability drop leaves the bounding set alone and relies on
 * no_new_privs (src/linux/caps.c): called without it, it must refuse and
 * change nothing rather than leave a dropped capability reachable by exec.
 * With it, it succeeds (as root and as nobody alike). */
static int caps_drop_in_child(int with_nnp, unsigned long long *prm_after)
{
    int fd[2], status;
    pid_t pid;
    struct {
        int rc;
        unsigned long long prm;
    } res = {-1, 0};
    if (pipe(fd) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        char text[4096], *p;
        ssize_t n;
        int sfd;
        close(fd[0]);
        if (with_nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
            _exit(1);
        res.rc = sbx_caps_drop(~SBX_CAPS_KEEP);
        sfd = open("/proc/self/status", O_RDONLY);
        n = sfd < 0 ? -1 : read(sfd, text, sizeof text - 1);
        if (n <= 0)
            _exit(1);
        text[n] = '\0';
        p = strstr(text, "CapPrm:");
        res.prm = p ? strtoull(p + 7, NULL, 16) : ~0ULL;
        if (write(fd[1], &res, sizeof res) != (ssize_t)sizeof res)
            _exit(1);
        _exit(0);
    }
    close(fd[1]);
    if (pid < 0 || read(fd[0], &res, sizeof res) != (ssize_t)sizeof res)
        res.rc = -1;
    close(fd[0]);
    if (pid > 0)
        waitpid(pid, &status, 0);
    *prm_after = res.prm;
    return res.rc;
}

static void test_partial_capability_drop_refuses_without_no_new_privs(void **state)
{
    unsigned long long prm, before;
    char text[4096], *p;
    FILE *f = fopen("/proc/self/status", "r");
    size_t n;
    (void)state;
    assert_non_null(f);
    n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    p = strstr(text, "CapPrm:");
    assert_non_null(p);
    before = strtoull(p + 7, NULL, 16);

    assert_int_equal(caps_drop_in_child(0, &prm), EPERM);
    print_message("without no_new_privs: EPERM, CapPrm %llx (was %llx)\n", prm, before);
    assert_true(prm == before); /* refused before touching anything */

    assert_int_equal(caps_drop_in_child(1, &prm), 0);
    print_message("with no_new_privs: 0, CapPrm %llx\n", prm);
    assert_true((prm & ~(unsigned long long)SBX_CAPS_KEEP) == 0);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_every_write_class_operation_outside_the_roots_is_refused_and_leaves_nothing,
            setup, teardown),
        cmocka_unit_test_setup_teardown(test_writes_inside_every_root_succeed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reads_and_exec_outside_the_roots_still_work, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_git_init_add_commit_inside_the_project_works, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_user_namespace_mount_cannot_get_around_confinement,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_network_deny_cannot_ptrace_or_write_memory_of_an_outside_process, setup,
            teardown),
        cmocka_unit_test_setup_teardown(
            test_confined_cannot_ptrace_or_write_memory_of_an_outside_process, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_without_landlock_confined_runs_the_command_with_one_warning, setup, teardown),
        cmocka_unit_test(test_partial_capability_drop_refuses_without_no_new_privs),
    };
    const char *why = NULL;

    if (argc > 1 && strcmp(argv[1], "--run") == 0)
        return t_runner_main(argc, argv);
    {
        int ok = sbx_landlock_abi(&why) >= 1;
        int rc = t_require("landlock", ok, why ? why : "no Landlock");
        if (rc)
            return rc;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
