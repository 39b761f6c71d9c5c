/* Read-only mode, the Landlock and capability parts, against the real
 * kernel: a forked child applies no_new_privs, the capability drop and the
 * read-only ruleset (no seccomp: that part belongs to the filter; truncation,
 * which Landlock leaves to the filter here, runs the whole stack). Each
 * refusal is also tried unconfined to show the test can fail. */
#include "landlock_child.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cmocka.h>

#include "../common/t_profile.h"

static char base[64], project[128], outside[128];
static struct t_roots roots;

static int setup(void **state)
{
    char p[192];
    (void)state;
    strcpy(base, "/var/tmp/sbx-ll-ro.XXXXXX");
    if (!mkdtemp(base) || chmod(base, 0755) != 0)
        return -1;
    snprintf(project, sizeof project, "%s/proj", base);
    snprintf(outside, sizeof outside, "%s/out", base);
    if (mkdir(project, 0755) || mkdir(outside, 0755))
        return -1;
    snprintf(p, sizeof p, "%s/existing", outside);
    if (t_write_file(p, "orig"))
        return -1;
    snprintf(p, sizeof p, "%s/file", project);
    if (t_write_file(p, "project file\n"))
        return -1;
    roots.project = project;
    roots.workdir = project;
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    (void)state;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    return system(cmd) == 0 ? 0 : -1;
}

#define ERR(x) ((x) < 0 ? errno : 0)

static int op_open_only(const char *a, const char *b)
{
    int fd = open(a, (int)strtol(b, NULL, 0) | O_CLOEXEC, 0644);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}
static int op_truncate(const char *a, const char *b) { (void)b; return ERR(truncate(a, 0)); }
static int op_mkdir(const char *a, const char *b) { (void)b; return ERR(mkdir(a, 0755)); }
static int op_unlink(const char *a, const char *b) { (void)b; return ERR(unlink(a)); }
static int op_rename(const char *a, const char *b) { return ERR(rename(a, b)); }

static void test_read_only_refuses_every_write_outside_the_devices(void **state)
{
    static const struct {
        const char *what;
        t_op op;
        const char *a; /* relative to base, or absolute */
        const char *b;
    } ops[] = {
        {"create in the project", op_open_only, "proj/new", "0101" /* O_CREAT|O_WRONLY */},
        {"create in /tmp", op_open_only, "/tmp/sbx-ll-ro-new", "0101"},
        {"create in /dev/shm", op_open_only, "/dev/shm/sbx-ll-ro-new", "0101"},
        {"open a project file O_WRONLY", op_open_only, "proj/file", "01"},
        {"open an outside file O_WRONLY|O_TRUNC", op_open_only, "out/existing", "01001"},
        {"mkdir in the project", op_mkdir, "proj/d", NULL},
        {"unlink a project file", op_unlink, "proj/file", NULL},
        {"rename a project file", op_rename, "proj/file", "proj/file2"},
    };
    size_t i;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        char a[192], b[192];
        int got, free_;
        struct stat before, after;
        if (strncmp(ops[i].a, "/dev/shm/", 9) == 0 && t_have("shm") == 0) {
            print_message("skip: shm: %s: /dev/shm is not a tmpfs here [profile: no shm]\n",
                          ops[i].what);
            continue;
        }
        /* The pid keeps the root and nobody twins, run in parallel, apart in
         * the shared sticky /tmp (a name the other uid made cannot be reused). */
        if (ops[i].a[0] == '/')
            snprintf(a, sizeof a, "%s.%ld", ops[i].a, (long)getpid());
        else
            snprintf(a, sizeof a, "%s/%s", base, ops[i].a);
        if (ops[i].op == op_rename)
            snprintf(b, sizeof b, "%s/%s", base, ops[i].b);
        else
            snprintf(b, sizeof b, "%s", ops[i].b ? ops[i].b : "0");
        unlink(strncmp(a, "/tmp/", 5) == 0 || strncmp(a, "/dev/shm/", 9) == 0 ? a : "/nonexistent");
        memset(&before, 0, sizeof before);
        lstat(a, &before);
        got = t_run(T_READ_ONLY, &roots, ops[i].op, a, b);
        memset(&after, 0, sizeof after);
        lstat(a, &after);
        free_ = t_run(T_NONE, &roots, ops[i].op, a, b);
        print_message("%-40s read-only: %s; unconfined: %s\n", ops[i].what, strerror(got),
                      strerror(free_));
        if (got != EACCES && got != EPERM)
            fail_msg("%s: read-only got %d, wanted EACCES", ops[i].what, got);
        if (before.st_size != after.st_size || before.st_ino != after.st_ino)
            fail_msg("%s: refused but %s changed", ops[i].what, a);
        if (free_ != 0)
            fail_msg("%s: unconfined got %d, wanted success", ops[i].what, free_);
        if (a[0] == '/' && (strncmp(a, "/tmp/", 5) == 0 || strncmp(a, "/dev/shm/", 9) == 0))
            unlink(a);
        assert_int_equal(teardown(state), 0);
        assert_int_equal(setup(state), 0);
    }
}

/* Read-only does not handle Landlock's TRUNCATE (it would cost a path walk
 * on every open): truncation without a write open is the seccomp filter's,
 * so it is proved through the whole stack, with the errno the filter gives. */
static void test_read_only_full_stack_refuses_truncation_outside(void **state)
{
    static const struct {
        const char *what;
        t_op op;
        const char *flags;
        int want;
    } ops[] = {
        {"open an outside file O_RDONLY|O_TRUNC", op_open_only, "01000", EACCES},
        {"truncate(2) an outside file", op_truncate, NULL, EPERM},
    };
    char path[192];
    size_t i;
    (void)state;
    snprintf(path, sizeof path, "%s/existing", outside);
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        struct stat st;
        int got, alone, free_;
        assert_int_equal(t_write_file(path, "orig"), 0);
        got = t_run(T_READ_ONLY_FULL, &roots, ops[i].op, path, ops[i].flags);
        assert_int_equal(stat(path, &st), 0);
        print_message("%-40s full read-only: %s; size after: %lld\n", ops[i].what,
                      strerror(got), (long long)st.st_size);
        assert_int_equal(got, ops[i].want);
        assert_int_equal(st.st_size, 4); /* untouched */
        /* Landlock alone lets it through: the filter is the layer that refuses. */
        alone = t_run(T_READ_ONLY, &roots, ops[i].op, path, ops[i].flags);
        assert_int_equal(stat(path, &st), 0);
        print_message("%-40s Landlock alone: %s; size after: %lld\n", ops[i].what,
                      strerror(alone), (long long)st.st_size);
        assert_int_equal(alone, 0);
        assert_int_equal(st.st_size, 0);
        /* And unconfined it truncates: the refusal above is not an accident. */
        assert_int_equal(t_write_file(path, "orig"), 0);
        free_ = t_run(T_NONE, &roots, ops[i].op, path, ops[i].flags);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(free_, 0);
        assert_int_equal(st.st_size, 0);
    }
}

static void test_read_only_still_writes_and_truncates_null_zero_full(void **state)
{
    (void)state;
    assert_int_equal(t_sh(T_READ_ONLY, &roots,
                          "set -e; echo x > /dev/null; echo x >> /dev/null; : > /dev/zero; "
                          "head -c 4 /dev/zero > /dev/null; "
                          "if echo x 2>/dev/null > /dev/full; then exit 3; fi; exit 0"),
                     0);
    /* /dev/full accepts the open with O_TRUNC; only the write fails (ENOSPC). */
    assert_int_equal(t_run(T_READ_ONLY, &roots, op_open_only, "/dev/full", "01001"), 0);
}

static void test_read_only_runs_everyday_read_tools(void **state)
{
    char script[1536], c_file[192];
    (void)state;
    snprintf(script, sizeof script,
             "set -e; cd '%s'; export HOME='%s' GIT_CONFIG_NOSYSTEM=1; git init -q; git add file; "
             "git -c user.name=t -c user.email=t@example.invalid commit -qm first; "
             "echo change >> file",
             project, base);
    assert_int_equal(t_sh(T_NONE, &roots, script), 0);
    snprintf(c_file, sizeof c_file, "%s/x.c", project);
    assert_int_equal(t_write_file(c_file, "int main(void) { return 0; }\n"), 0);
    snprintf(script, sizeof script,
             "set -e; cd '%s'; export HOME='%s' GIT_CONFIG_NOSYSTEM=1; ls -la >/dev/null; "
             "cat file >/dev/null; grep -rq 'project' .; find . -name file | grep -q file; "
             "git log --oneline | grep -q first; git status --short | grep -q file; "
             "git diff | grep -q change; /usr/bin/python3 -c 'print(sum(range(10)))' >/dev/null; "
             "if command -v cc >/dev/null; then cc -pipe -c -o /dev/null x.c; fi",
             project, base);
    assert_int_equal(t_sh(T_READ_ONLY, &roots, script), 0);
}

/* The child's whole life on a fresh pseudo-terminal: confine with the pty on
 * fds 0-2, then use it the way shells and pagers do. */
static void test_read_only_keeps_the_terminal_writable_with_ioctls(void **state)
{
    char name[128], out[4096], marker[192];
    int m, status;
    ssize_t n, total = 0;
    pid_t pid;
    (void)state;

    snprintf(marker, sizeof marker, "%s/pty-marker", outside);
    m = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(m >= 0);
    assert_int_equal(grantpt(m), 0);
    assert_int_equal(unlockpt(m), 0);
    assert_int_equal(ptsname_r(m, name, sizeof name), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct winsize ws;
        int s, tty;
        setsid();
        s = open(name, O_RDWR); /* becomes the controlling terminal */
        if (s < 0)
            _exit(10);
        dup2(s, 0);
        dup2(s, 1);
        dup2(s, 2);
        if (s > 2)
            close(s);
        if (t_confine(T_READ_ONLY, &roots, NULL, 0) != 0)
            _exit(11);
        if (write(1, "hello-pty\n", 10) != 10)
            _exit(12);
        if (ioctl(1, TIOCGWINSZ, &ws) != 0)
            _exit(13);
        tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
        if (tty < 0 || write(tty, "via-dev-tty\n", 12) != 12 || ioctl(tty, TIOCGWINSZ, &ws) != 0)
            _exit(14);
        /* A writable terminal widens nothing else. */
        if (open(marker, O_CREAT | O_WRONLY | O_CLOEXEC, 0644) >= 0 || errno != EACCES)
            _exit(15);
        execl("/bin/sh", "sh", "-c", "stty size >/dev/null && echo shell-ok", (char *)NULL);
        _exit(16);
    }
    for (;;) {
        n = read(m, out + total, sizeof out - 1 - (size_t)total);
        if (n <= 0)
            break; /* EIO once the child side is closed */
        total += n;
    }
    out[total] = 0;
    close(m);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    print_message("pty said: %s", out);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_non_null(strstr(out, "hello-pty"));
    assert_non_null(strstr(out, "via-dev-tty"));
    assert_non_null(strstr(out, "shell-ok"));
    assert_false(t_exists(marker));
}

static int op_signal(const char *a, const char *b)
{
    (void)b;
    return ERR(kill((pid_t)atoi(a), SIGCONT));
}

static void test_read_only_cannot_signal_a_process_outside(void **state)
{
    char pid[16];
    int got, free_;
    pid_t sleeper;
    (void)state;
    sleeper = fork();
    assert_true(sleeper >= 0);
    if (sleeper == 0) {
        execl("/bin/sleep", "sleep", "30", (char *)NULL);
        _exit(127);
    }
    snprintf(pid, sizeof pid, "%d", (int)sleeper);
    got = t_run(T_READ_ONLY, &roots, op_signal, pid, NULL);
    free_ = t_run(T_NONE, &roots, op_signal, pid, NULL);
    kill(sleeper, SIGKILL);
    waitpid(sleeper, NULL, 0);
    assert_int_equal(got, EPERM);
    assert_int_equal(free_, 0);
}

static int op_connect_abstract(const char *a, const char *b)
{
    struct sockaddr_un sun;
    socklen_t len;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;
    (void)b;
    if (s < 0)
        return errno;
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path + 1, a, strlen(a)); /* leading NUL: abstract */
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(a));
    rc = ERR(connect(s, (struct sockaddr *)&sun, len));
    close(s);
    return rc;
}

static void test_read_only_cannot_connect_to_an_outside_abstract_socket(void **state)
{
    struct sockaddr_un sun;
    char name[64];
    socklen_t len;
    int s, got, free_;
    (void)state;
    snprintf(name, sizeof name, "sbx-ll-ro-%ld", (long)getpid());
    s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s >= 0);
    memset(&sun, 0, sizeof sun);
    sun.sun_family = AF_UNIX;
    memcpy(sun.sun_path + 1, name, strlen(name));
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    assert_int_equal(bind(s, (struct sockaddr *)&sun, len), 0);
    assert_int_equal(listen(s, 4), 0);
    got = t_run(T_READ_ONLY, &roots, op_connect_abstract, name, NULL);
    free_ = t_run(T_NONE, &roots, op_connect_abstract, name, NULL);
    close(s);
    assert_int_equal(got, EPERM);
    assert_int_equal(free_, 0);
}

static int op_connect_tcp(const char *a, const char *b)
{
    struct sockaddr_in sin;
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;
    (void)b;
    if (s < 0)
        return errno;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)atoi(a));
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    rc = ERR(connect(s, (struct sockaddr *)&sin, sizeof sin));
    close(s);
    return rc;
}

/* Landlock's TCP wall stands even where the seccomp filter is missing. */
static void test_read_only_landlock_refuses_tcp_connect(void **state)
{
    struct sockaddr_in sin;
    socklen_t len = sizeof sin;
    char port[16];
    int s, got, free_;
    (void)state;
    s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(s >= 0);
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(s, (struct sockaddr *)&sin, sizeof sin), 0);
    assert_int_equal(listen(s, 4), 0);
    assert_int_equal(getsockname(s, (struct sockaddr *)&sin, &len), 0);
    snprintf(port, sizeof port, "%d", ntohs(sin.sin_port));
    got = t_run(T_READ_ONLY, &roots, op_connect_tcp, port, NULL);
    free_ = t_run(T_NONE, &roots, op_connect_tcp, port, NULL);
    close(s);
    assert_int_equal(got, EACCES);
    assert_int_equal(free_, 0);
}

/* Exec `prog /proc/self/status` in a child (optionally as uid 65534 first)
 * under `mode`; the status text lands in out. */
static int status_of_exec(enum t_mode mode, const char *prog, int as_nobody, char *out,
                          size_t size)
{
    int pipefd[2], status;
    ssize_t n, total = 0;
    pid_t pid;
    if (pipe(pipefd) != 0)
        return -1;
    pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 1);
        close(pipefd[0]);
        if (as_nobody && (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534)))
            _exit(20);
        if (t_confine(mode, &roots, NULL, 0) != 0)
            _exit(21);
        execl(prog, prog, "/proc/self/status", (char *)NULL);
        _exit(22);
    }
    close(pipefd[1]);
    while ((n = read(pipefd[0], out + total, size - 1 - (size_t)total)) > 0)
        total += n;
    out[total] = 0;
    close(pipefd[0]);
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* The hex value of a "Name:\t..." line of /proc/self/status. */
static unsigned long long status_field(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    return p ? strtoull(p + strlen(name) + 1, NULL, 16) : ~0ULL;
}

static void test_read_only_leaves_every_capability_set_empty(void **state)
{
    static const char *const sets[] = {"CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"};
    char text[4096];
    size_t i;
    (void)state;
    assert_int_equal(status_of_exec(T_READ_ONLY, "/bin/cat", 0, text, sizeof text), 0);
    for (i = 0; i < 5; i++) {
        print_message("%s %llx\n", sets[i], status_field(text, sets[i]));
        /* Without CAP_SETPCAP the bounding set cannot shrink; with nothing
         * permitted and no_new_privs it gives nothing back (docs/landlock.md). */
        if (getuid() != 0 && strcmp(sets[i], "CapBnd:") == 0)
            continue;
        assert_true(status_field(text, sets[i]) == 0);
    }
    if (getuid() == 0) {
        /* The proof that it can fail: root's exec normally regains them all. */
        assert_int_equal(status_of_exec(T_NONE, "/bin/cat", 0, text, sizeof text), 0);
        assert_true(status_field(text, "CapEff:") != 0);
        assert_true(status_field(text, "CapBnd:") != 0);
    } else {
        print_message("not root: the sets start empty; the root run proves the drop\n");
    }
}

static void test_read_only_setuid_root_binary_gains_nothing(void **state)
{
    char suid[192], cmd[768], text[4096];
    const char *uid;
    (void)state;
    if (getuid() != 0)
        T_SKIP_UNLESS("root", "creating a setuid-root binary needs root (the root run covers it)");
    snprintf(suid, sizeof suid, "%s/suid-cat", outside);
    snprintf(cmd, sizeof cmd, "cp /bin/cat '%s' && chown 0:0 '%s' && chmod 4755 '%s'", suid, suid,
             suid);
    assert_int_equal(system(cmd), 0);
    /* Unconfined, nobody running it becomes effective uid 0. */
    assert_int_equal(status_of_exec(T_NONE, suid, 1, text, sizeof text), 0);
    uid = strstr(text, "Uid:");
    assert_non_null(uid);
    print_message("unconfined: %.30s\n", uid);
    assert_int_equal(strtol(strchr(uid + 5, '\t') + 1, NULL, 10), 0);
    /* Read-only: no_new_privs ignores the setuid bit, no capability appears. */
    assert_int_equal(status_of_exec(T_READ_ONLY, suid, 1, text, sizeof text), 0);
    uid = strstr(text, "Uid:");
    assert_non_null(uid);
    print_message("read-only:  %.30s\n", uid);
    assert_int_equal(strtol(strchr(uid + 5, '\t') + 1, NULL, 10), 65534);
    assert_true(status_field(text, "CapEff:") == 0);
    assert_true(status_field(text, "CapPrm:") == 0);
}

static void test_without_landlock_read_only_fails_closed_and_runs_nothing(void **state)
{
    char hide[256], self[256], marker[192], err[1024];
    const char *probes = getenv("SBX_PROBES");
    int pipefd[2], status;
    ssize_t n, total = 0;
    pid_t pid;
    (void)state;
    if (!probes)
        T_SKIP_UNLESS("probes", "SBX_PROBES is not set");
    snprintf(hide, sizeof hide, "%s/hide", probes);
    snprintf(marker, sizeof marker, "%s/marker", outside);
    n = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(n > 0);
    self[n] = 0;
    assert_int_equal(pipe(pipefd), 0);
    pid = fork();
    if (pid == 0) {
        dup2(pipefd[1], 2);
        close(pipefd[0]);
        execl(hide, hide, "landlock", "--", self, "--run", "read-only", project, "--", "touch",
              marker, (char *)NULL);
        _exit(127);
    }
    close(pipefd[1]);
    while ((n = read(pipefd[0], err + total, sizeof err - 1 - (size_t)total)) > 0)
        total += n;
    err[total] = 0;
    close(pipefd[0]);
    waitpid(pid, &status, 0);
    print_message("stderr: %s", err);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 126);
    assert_false(t_exists(marker));
    assert_non_null(strstr(err, "needs Landlock ABI 6"));
    assert_non_null(strstr(err, "has ABI 0"));
}

int main(int argc, char **argv)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_read_only_refuses_every_write_outside_the_devices),
        T(test_read_only_full_stack_refuses_truncation_outside),
        T(test_read_only_still_writes_and_truncates_null_zero_full),
        T(test_read_only_runs_everyday_read_tools),
        T(test_read_only_keeps_the_terminal_writable_with_ioctls),
        T(test_read_only_cannot_signal_a_process_outside),
        T(test_read_only_cannot_connect_to_an_outside_abstract_socket),
        T(test_read_only_landlock_refuses_tcp_connect),
        T(test_read_only_leaves_every_capability_set_empty),
        T(test_read_only_setuid_root_binary_gains_nothing),
        T(test_without_landlock_read_only_fails_closed_and_runs_nothing),
    };
    const char *why;
    int abi;

    if (argc > 1 && strcmp(argv[1], "--run") == 0)
        return t_runner_main(argc, argv);
    abi = sbx_landlock_abi(&why);
    {
        int rc = t_require("landlock6", abi >= 6, why ? why : "read-only mode needs Landlock ABI 6");
        if (rc)
            return rc;
    }
    return cmocka_run_group_tests(tests, NULL, NULL);
}
