#define _POSIX_C_SOURCE 200809L
/* The outcome of a supervised run, without running one: the records the
 * supervisor keeps (counted, capped, never silently lost), the host's
 * checked reading of them, the syscall decoding that names them, and the
 * JSON and the one-line summary made from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "linux/records.h"
#include "linux/reslimits.h"
#include "linux/sysdecode.h"
#include "outcome.h"

static struct sbx_rec_area *area(void)
{
    struct sbx_rec_area *a = calloc(1, sizeof *a);
    assert_non_null(a);
    sbx_rec_init(a);
    return a;
}

static void add(struct sbx_rec_area *a, int kind, const char *comm, long pid, const char *path)
{
    struct sbx_rec_in r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.action = kind == SBX_REC_PROTECTED ? SBX_ACT_EACCES : SBX_ACT_SIGSYS;
    r.name = kind == SBX_REC_PROTECTED ? SBX_SYS_OPENAT : SBX_SYS_SOCKET;
    r.family = kind == SBX_REC_SOCKET ? 2 : -1;
    r.type = kind == SBX_REC_SOCKET ? 2 : -1;
    r.pid = pid;
    r.comm = comm;
    r.path = path;
    sbx_rec_add(a, &r);
}

/* A thousand identical refusals from a thousand processes: one record, a
 * count of 1000, the first pid. */
static void test_identical_refusals_are_counted_not_repeated(void **state)
{
    struct sbx_rec_area *a = area();
    struct sbx_rec r;
    const char *path;
    long i;
    (void)state;
    for (i = 0; i < 1000; i++)
        add(a, SBX_REC_SOCKET, "python3", 100 + i, NULL);
    assert_int_equal(a->n, 1);
    assert_int_equal(a->dropped, 0);
    assert_true(sbx_rec_get(a, 0, &r, &path));
    assert_int_equal(r.count, 1000);
    assert_int_equal(r.pid, 100);
    assert_string_equal(r.comm, "python3");
    assert_null(path);
    free(a);
}

/* A process gone before the supervisor read its name has none (a quick
 * command's two connects to a closed socket): the name is a label, so the
 * act joins the record of the same act, whichever came first, and the
 * record keeps the name once one is known. A different name stays apart. */
static void test_a_nameless_act_joins_its_record(void **state)
{
    struct sbx_rec_area *a = area();
    struct sbx_rec r;
    const char *path;
    (void)state;
    add(a, SBX_REC_PROTECTED, "python3", 10, "/p/.env");
    add(a, SBX_REC_PROTECTED, "", 10, "/p/.env");
    add(a, SBX_REC_PROTECTED, "", 11, "/p/.npmrc");
    add(a, SBX_REC_PROTECTED, NULL, 11, "/p/.npmrc");
    add(a, SBX_REC_PROTECTED, "node", 11, "/p/.npmrc");
    add(a, SBX_REC_PROTECTED, "sh", 12, "/p/.env");
    assert_int_equal(a->n, 3);
    assert_true(sbx_rec_get(a, 0, &r, &path));
    assert_int_equal(r.count, 2);
    assert_string_equal(r.comm, "python3");
    assert_true(sbx_rec_get(a, 1, &r, &path));
    assert_int_equal(r.count, 3);
    assert_int_equal(r.pid, 11);
    assert_string_equal(r.comm, "node");
    assert_int_equal(r.path_len, 9);
    assert_memory_equal(path, "/p/.npmrc", 9);
    assert_true(sbx_rec_get(a, 2, &r, &path));
    assert_int_equal(r.count, 1);
    assert_string_equal(r.comm, "sh");
    free(a);
}

/* Distinct refusals beyond the cap are counted as dropped: kept + dropped is
 * always what happened. */
static void test_distinct_refusals_over_the_cap_are_counted(void **state)
{
    struct sbx_rec_area *a = area();
    char path[64];
    uint32_t i, kept = 0;
    (void)state;
    for (i = 0; i < SBX_REC_MAX + 100; i++) {
        snprintf(path, sizeof path, "/p/.env.%u", i);
        add(a, SBX_REC_PROTECTED, "sh", 7, path);
    }
    for (i = 0; i < a->n; i++) {
        struct sbx_rec r;
        const char *p;
        assert_true(sbx_rec_get(a, i, &r, &p));
        kept += r.count;
    }
    assert_int_equal(a->n, SBX_REC_MAX);
    assert_int_equal(kept + a->dropped, SBX_REC_MAX + 100);
    free(a);
}

/* The host reads memory a subverted supervisor could have written: bad
 * counts, offsets, kinds and an unterminated name are refused or cut. */
static void test_the_host_checks_what_it_reads(void **state)
{
    struct sbx_rec_area *a = area();
    struct sbx_rec r;
    const char *path;
    (void)state;
    add(a, SBX_REC_PROTECTED, "sh", 7, "/p/.env");
    memset(a->recs[0].comm, 'x', sizeof a->recs[0].comm);
    assert_true(sbx_rec_get(a, 0, &r, &path));
    assert_int_equal(strlen(r.comm), sizeof r.comm - 1);
    a->recs[0].path_off = SBX_REC_ARENA - 2;
    assert_false(sbx_rec_get(a, 0, &r, &path));
    a->recs[0].path_off = 0;
    a->recs[0].kind = 99;
    assert_false(sbx_rec_get(a, 0, &r, &path));
    a->recs[0].kind = SBX_REC_PROTECTED;
    a->recs[0].name = SBX_SYS_N_NAMES;
    assert_false(sbx_rec_get(a, 0, &r, &path));
    a->n = SBX_REC_MAX + 1;
    assert_false(sbx_rec_valid(a));
    a->n = 1;
    a->magic = 0;
    assert_false(sbx_rec_valid(a));
    free(a);
}

/* Each ABI's numbers name the same call. */
static void test_syscalls_decode_per_abi(void **state)
{
    static const struct {
        uint32_t arch;
        int nr, op, name;
    } cases[] = {
        {0xc000003eu, 41, SBX_OP_SOCKET, SBX_SYS_SOCKET},
        {0xc000003eu, 257, SBX_OP_OPEN, SBX_SYS_OPENAT},
        {0xc000003eu, 425, SBX_OP_IO_URING_SETUP, SBX_SYS_IO_URING_SETUP},
        {0x40000003u, 359, SBX_OP_SOCKET, SBX_SYS_SOCKET},
        /* args[0] is 2 there: socketcall(SYS_BIND), served as a bind */
        {0x40000003u, 102, SBX_OP_BIND, SBX_SYS_SOCKETCALL},
        {0x40000003u, 8, SBX_OP_OPEN, SBX_SYS_CREAT},
        {0xc00000b7u, 198, SBX_OP_SOCKET, SBX_SYS_SOCKET},
        {0xc00000b7u, 34, SBX_OP_MKDIR, SBX_SYS_MKDIRAT},
        {0x40000028u, 281, SBX_OP_SOCKET, SBX_SYS_SOCKET},
        {0x40000028u, 382, SBX_OP_RENAME, SBX_SYS_RENAMEAT2},
        {0xc000003eu, 49, SBX_OP_BIND, SBX_SYS_BIND},
        {0x40000003u, 361, SBX_OP_BIND, SBX_SYS_BIND},
        {0xc00000b7u, 200, SBX_OP_BIND, SBX_SYS_BIND},
        {0x40000028u, 282, SBX_OP_BIND, SBX_SYS_BIND},
    };
    uint64_t args[6] = {2 | (1ULL << 32), 2 | 0x80800, 0, 0, 0, 0};
    struct sbx_syscall c;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_true(sbx_sys_decode(cases[i].arch, cases[i].nr, args, &c));
        assert_int_equal(c.op, cases[i].op);
        assert_int_equal(c.name, cases[i].name);
    }
    /* socket(): the low 32 bits of the family, the type without its flags */
    assert_true(sbx_sys_decode(0xc000003eu, 41, args, &c));
    assert_int_equal(c.family, 2);
    assert_int_equal(c.type, 2);
    assert_string_equal(sbx_sys_name(c.name), "socket");
    /* bind: the socket, the address and its length; i386 socketcall's
     * SYS_BIND (2) keeps them in memory, other socketcalls are not binds */
    assert_true(sbx_sys_decode(0xc000003eu, 49, args, &c));
    assert_int_equal(c.sockfd, 2);
    assert_int_equal(c.addrlen, 0);
    assert_int_equal(c.mux, 0);
    assert_string_equal(sbx_sys_name(c.name), "bind");
    {
        uint64_t mux[6] = {2, 0x1000, 0, 0, 0, 0};
        assert_true(sbx_sys_decode(0x40000003u, 102, mux, &c));
        assert_int_equal(c.op, SBX_OP_BIND);
        assert_int_equal(c.mux, 1);
        assert_true(c.path == 0x1000);
        mux[0] = 1;
        assert_true(sbx_sys_decode(0x40000003u, 102, mux, &c));
        assert_int_equal(c.op, SBX_OP_SOCKETCALL);
    }
    /* a foreign ABI, an unknown number */
    assert_false(sbx_sys_decode(0x12345678u, 41, args, &c));
    assert_false(sbx_sys_decode(0xc000003eu, 0, args, &c));
    assert_string_equal(sbx_sys_name(-1), "?");
}

static struct sbx_outcome_data data(int status)
{
    struct sbx_outcome_data d;
    memset(&d, 0, sizeof d);
    d.status = status;
    d.duration = 0.5;
    d.supervised = 1;
    return d;
}

static void add_socket(struct sbx_outcome_data *d, unsigned long count)
{
    struct sbx_outcome_rec r;
    memset(&r, 0, sizeof r);
    r.kind = SBX_REC_SOCKET;
    r.action = SBX_ACT_SIGSYS;
    r.syscall = "socket";
    r.family = 10;
    r.type = 2;
    r.pid = 42;
    strcpy(r.comm, "python3");
    r.count = count;
    assert_int_equal(sbx_outcome_add(d, &r), SANDBOX_OK);
}

static char *json(const struct sbx_outcome_data *d)
{
    sbx_buf b;
    sbx_buf_init(&b);
    sbx_outcome_json(d, &b);
    return sbx_buf_take(&b);
}

static void test_json_says_what_is_certain(void **state)
{
    struct sbx_outcome_data d = data(3 << 8);
    struct sbx_outcome_rec h;
    char *s;
    (void)state;
    add_socket(&d, 1);
    memset(&h, 0, sizeof h);
    h.kind = SBX_REC_HEDGED;
    h.text = "the filesystem sandbox \"probably\" refused a write";
    assert_int_equal(sbx_outcome_add(&d, &h), SANDBOX_OK);
    s = json(&d);
    assert_non_null(s);
    assert_non_null(strstr(s, "{\"schema\":1,\"exit_code\":3,\"signal\":null,"));
    assert_non_null(strstr(s, "\"kind\":\"socket\",\"certain\":true,\"syscall\":\"socket\","
                              "\"abi\":\"native\",\"family\":10,\"family_name\":\"AF_INET6\","
                              "\"type\":2,\"type_name\":\"SOCK_DGRAM\",\"path\":null,"
                              "\"pid\":42,\"comm\":\"python3\",\"action\":\"SIGSYS\""));
    assert_non_null(strstr(s, "\"kind\":\"hedged\",\"certain\":false,\"syscall\":null"));
    assert_non_null(strstr(s, "\\\"probably\\\""));
    free(s);
    sbx_outcome_free(&d);
    /* death by a signal */
    d = data(31);
    s = json(&d);
    assert_non_null(strstr(s, "\"exit_code\":null,\"signal\":31,\"signal_name\":\"SIGSYS\""));
    assert_non_null(strstr(s, "\"records\":[]"));
    free(s);
    sbx_outcome_free(&d);
}

/* The resource limit that ended a run (issue 27): a member of schema 1
 * that is always present, certain only from the kernel's counters, and
 * "timeout" for the clock; the summary says it when no record does. */
static void test_json_names_the_limit(void **state)
{
    struct sbx_outcome_data d = data(9);
    char *s, line[512];
    sandbox_policy *p = sandbox_policy_new();
    (void)state;
    d.limit = "memory";
    d.limit_certain = 1;
    s = json(&d);
    assert_non_null(strstr(s, "\"limit\":\"memory\",\"limit_certain\":true,"));
    free(s);
    sbx_outcome_summary(&d, line, sizeof line);
    assert_string_equal(line, "ended by the run's memory limit");
    d.limit = "cpu";
    d.limit_certain = 0;
    sbx_outcome_summary(&d, line, sizeof line);
    assert_non_null(strstr(line, "cpu limit (as its exit status suggests)"));
    d.limit = NULL;
    d.flags = SBX_RUN_TIMED_OUT;
    s = json(&d);
    assert_non_null(strstr(s, "\"limit\":\"timeout\",\"limit_certain\":true,"));
    free(s);
    d.flags = 0;
    s = json(&d);
    assert_non_null(strstr(s, "\"limit\":null,\"limit_certain\":false,"));
    free(s);
    sbx_outcome_free(&d);
    /* The policy side: set, read back, refused out of range, supervised. */
    assert_non_null(p);
    assert_int_equal(sandbox_policy_needs_supervisor(p), 0);
    assert_int_equal(sandbox_policy_set_limit(p, SANDBOX_LIMIT_PIDS, 64), SANDBOX_OK);
    assert_true(sandbox_policy_limit(p, SANDBOX_LIMIT_PIDS) == 64);
    /* On every platform: a limit needs the supervised run (elsewhere the
     * spawn refuses it), never a path that would ignore it. */
    assert_int_equal(sandbox_policy_needs_supervisor(p), 1);
    {
        /* sandbox_enforce cannot hold a limit: refused before the all-off
         * policy's shortcut (which applies nothing), nothing changed. */
        sandbox_result r;
        const char *argv[] = {"/bin/true", NULL};
        struct rlimit before, after;
        memset(&r, 0, sizeof r);
        assert_int_equal(sandbox_policy_set_network(p, SANDBOX_NETWORK_ALLOW), SANDBOX_OK);
        assert_int_equal(sandbox_policy_set_filesystem(p, SANDBOX_FS_UNRESTRICTED), SANDBOX_OK);
        assert_int_equal(sandbox_policy_set_limit(p, SANDBOX_LIMIT_OPEN_FILES, 16), SANDBOX_OK);
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &before), 0);
        assert_int_equal(sandbox_enforce(p, argv, &r), SANDBOX_E_INVALID);
        assert_non_null(strstr(r.error.message, "supervised run"));
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
        assert_true(after.rlim_cur == before.rlim_cur);
        assert_int_equal(sandbox_policy_set_limit(p, SANDBOX_LIMIT_OPEN_FILES, 0), SANDBOX_OK);
    }
    assert_int_equal(sandbox_policy_set_limit(p, 0, 1), SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_limit(p, SANDBOX_LIMIT_OPEN_FILES + 1, 1),
                     SANDBOX_E_INVALID);
    assert_int_equal(sandbox_policy_set_limit(NULL, SANDBOX_LIMIT_CPU, 1), SANDBOX_E_INVALID);
    assert_true(sandbox_policy_limit(p, 99) == 0);
    assert_int_equal(sandbox_policy_set_limit(p, SANDBOX_LIMIT_PIDS, 0), SANDBOX_OK);
    assert_int_equal(sandbox_policy_needs_supervisor(p), 0);
    sandbox_policy_free(p);
}

static void test_summary_prefers_the_certain_record(void **state)
{
    struct sbx_outcome_data d = data(31);
    struct sbx_outcome_rec h;
    char line[512];
    (void)state;
    memset(&h, 0, sizeof h);
    h.kind = SBX_REC_HEDGED;
    h.text = "hedged words";
    assert_int_equal(sbx_outcome_add(&d, &h), SANDBOX_OK);
    sbx_outcome_summary(&d, line, sizeof line);
    assert_string_equal(line, "hedged words");
    add_socket(&d, 3);
    sbx_outcome_summary(&d, line, sizeof line);
    assert_string_equal(line, "blocked by the network sandbox: python3 (pid 42) tried to open an "
                              "AF_INET6 socket and was sent SIGSYS (and 2 more refusals: see the "
                              "outcome)");
    sbx_outcome_free(&d);
    d = data(0);
    sbx_outcome_summary(&d, line, sizeof line);
    assert_string_equal(line, "");
    sbx_outcome_free(&d);
}

/* Write `text` to dir/name (a stand-in for a cgroup's events file). */
static void put(const char *dir, const char *name, const char *text)
{
    char p[256];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* The limit named only when the command's end fits it (review rev1727):
 * a counter that rose while the command went on is no reason, the timeout
 * wins, and a SIGKILL with the CPU time at RLIMIT_CPU is the cpu limit. */
static void test_limit_reason_fits_the_status(void **state)
{
    struct sbx_limits l;
    char dir[] = "/tmp/sbx-reason-XXXXXX";
    int certain = -1;
    const int killed = SIGKILL, xcpu = SIGXCPU, exit1 = 1 << 8;
    (void)state;
    assert_non_null(mkdtemp(dir));
    memset(&l, 0, sizeof l);
    l.any = 1;
    l.cg_procs = l.cg_kill = -1;
    l.want[SANDBOX_LIMIT_PIDS] = 64;
    l.mech[SANDBOX_LIMIT_PIDS] = SBX_LM_CGROUP;
    l.want[SANDBOX_LIMIT_MEMORY] = 1ULL << 30;
    l.mech[SANDBOX_LIMIT_MEMORY] = SBX_LM_CGROUP;
    l.want[SANDBOX_LIMIT_CPU] = 2;
    l.mech[SANDBOX_LIMIT_CPU] = SBX_LM_RLIMIT;
    snprintf(l.cg_path, sizeof l.cg_path, "%s", dir);
    put(dir, "pids.events", "max 1\n");
    put(dir, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
    /* One refused fork, then exit 0: no limit ended it. */
    assert_null(sbx_limits_reason(&l, 0, 10, 0, &certain));
    /* A failed end after a refused fork: pids, from the status. */
    assert_string_equal(sbx_limits_reason(&l, exit1, 10, 0, &certain), "pids");
    assert_int_equal(certain, 0);
    put(dir, "pids.events", "max 0\n");
    put(dir, "memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
    /* An OOM-killed helper, the command exits 0: no limit. */
    assert_null(sbx_limits_reason(&l, 0, 10, 0, &certain));
    /* The command SIGKILLed with an OOM kill counted: memory, certain. */
    assert_string_equal(sbx_limits_reason(&l, killed, 10, 0, &certain), "memory");
    assert_int_equal(certain, 1);
    /* The timeout fired: it wins over an earlier OOM kill. */
    assert_null(sbx_limits_reason(&l, killed, 10, 1, &certain));
    put(dir, "memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
    /* SIGKILL at RLIMIT_CPU's hard limit: cpu, certain; SIGKILL early: none. */
    assert_string_equal(sbx_limits_reason(&l, killed, 2990, 0, &certain), "cpu");
    assert_int_equal(certain, 1);
    assert_null(sbx_limits_reason(&l, killed, 300, 0, &certain));
    /* SIGXCPU sent by hand (CPU time low): cpu, from the status only. */
    assert_string_equal(sbx_limits_reason(&l, xcpu, 300, 0, &certain), "cpu");
    assert_int_equal(certain, 0);
    {
        char p[300];
        snprintf(p, sizeof p, "%s/pids.events", dir);
        unlink(p);
        snprintf(p, sizeof p, "%s/memory.events", dir);
        unlink(p);
    }
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_refusals_are_counted_not_repeated),
        cmocka_unit_test(test_a_nameless_act_joins_its_record),
        cmocka_unit_test(test_distinct_refusals_over_the_cap_are_counted),
        cmocka_unit_test(test_the_host_checks_what_it_reads),
        cmocka_unit_test(test_syscalls_decode_per_abi),
        cmocka_unit_test(test_json_says_what_is_certain),
        cmocka_unit_test(test_json_names_the_limit),
        cmocka_unit_test(test_summary_prefers_the_certain_record),
        cmocka_unit_test(test_limit_reason_fits_the_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
