#define _POSIX_C_SOURCE 200809L
/* The portable Seatbelt renderer: golden profiles per mode, canonical paths,
 * hostile paths, the sandbox-exec argv and the SBPL string escaper. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "macos/seatbelt.h"

/* ---- helpers ---- */

/* A deterministic policy: nothing read from the environment or the cwd. */
static sandbox_policy *policy(int network, int fs, const char *project)
{
    sandbox_policy *p = sandbox_policy_new();
    assert_non_null(p);
    assert_int_equal(sandbox_policy_set_network(p, network), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_filesystem(p, fs), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_project_root(p, project), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_working_dir(p, project), SANDBOX_OK);
    assert_int_equal(sandbox_policy_set_temp_dir(p, "/var/folders/ab/cd/T"), SANDBOX_OK);
    return p;
}

static void plan_for(const sandbox_policy *p, const char *const argv[], sbx_canon_fn canon,
                     sbx_seatbelt_plan *plan)
{
    sbx_resolved r;
    sandbox_error err;
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_int_equal(sbx_seatbelt_plan_build(&r, argv, canon, plan, &err), SANDBOX_OK);
    sbx_resolved_free(&r);
}

static const char *const cmd[] = {"echo", "hi", NULL};

static const char *param(const sbx_seatbelt_plan *plan, const char *key)
{
    size_t i;
    for (i = 0; i < plan->n_params; i++)
        if (strcmp(plan->params[i].key, key) == 0)
            return plan->params[i].value;
    return NULL;
}

/* ---- golden profiles ---- */

/* Spec 000's read-only list: what every mode allows. */
#define BASE_RULES                                                                  \
    "(deny default)\n"                                                              \
    "; running programs; children inherit this profile\n"                         \
    "(allow process-exec* process-fork)\n"                                          \
    "; dyld maps every library a program links\n"                                  \
    "(allow file-map-executable)\n"                                                 \
    "; every file read (protected paths are taken away last)\n"                    \
    "(allow file-read*)\n"                                                          \
    "; sysctl reads: CPU count, OS version, kern.proc for ps\n"                    \
    "(allow sysctl-read)\n"                                                         \
    "; process information and signals, only within this sandbox\n"               \
    "(allow process-info* (target same-sandbox))\n"                                 \
    "(allow signal (target same-sandbox))\n"                                        \
    "; writes to the discard devices and the command's own descriptors\n"         \
    "(allow file-write-data\n"                                                      \
    "  (literal \"/dev/null\")\n"                                                   \
    "  (literal \"/dev/zero\")\n"                                                   \
    "  (literal \"/dev/stdout\")\n"                                                 \
    "  (literal \"/dev/stderr\")\n"                                                 \
    "  (regex #\"^/dev/fd/[0-9]+$\"))\n"                                            \
    "; Mach services: user and group lookups, preference reads; with writes,\n"    \
    "; logging, notifications and dirhelper; with a network grant, DNS and TLS\n"  \
    "(allow mach-lookup\n"                                                          \
    "  (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"                 \
    "  (global-name \"com.apple.system.opendirectoryd.membership\")\n"              \
    "  (global-name \"com.apple.cfprefsd.daemon\")\n"                               \
    "  (global-name \"com.apple.cfprefsd.agent\")"

#define MACH_TOOLCHAIN                                                              \
    "\n  (global-name \"com.apple.logd\")\n"                                        \
    "  (global-name \"com.apple.system.logger\")\n"                                 \
    "  (global-name \"com.apple.system.notification_center\")\n"                    \
    "  (global-name \"com.apple.bsd.dirhelper\")"

#define MACH_NETWORK                                                                \
    "\n  (global-name \"com.apple.dnssd.service\")\n"                               \
    "  (global-name \"com.apple.SystemConfiguration.DNSConfiguration\")\n"          \
    "  (global-name \"com.apple.SystemConfiguration.configd\")\n"                   \
    "  (global-name \"com.apple.trustd.agent\")\n"                                  \
    "  (global-name \"com.apple.ocspd\")"

#define MACH_END ")\n(allow user-preference-read)\n"

#define TOOLCHAIN_RULES                                                             \
    "; new pseudo-terminals (script, expect, test runners)\n"                      \
    "(allow pseudo-tty)\n"                                                          \
    "; dyld registers USDT probes (node, python, ruby) through dtracehelper\n"     \
    "(allow file-ioctl file-write-data (literal \"/dev/dtracehelper\"))\n"          \
    "; host_processor_info(): Node's os.cpus(), make -j, build tools\n"            \
    "(allow mach-host*)\n"                                                          \
    "; POSIX semaphores and shared memory: Python multiprocessing, compilers\n"    \
    "(allow ipc-posix-sem ipc-posix-shm)\n"                                         \
    "; the JVM reads its CPU type through a sysctl that counts as a write\n"       \
    "(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))\n"

#define DNS_SOCKETS                                                                 \
    "  (remote unix-socket (path-literal \"/var/run/mDNSResponder\"))\n"           \
    "  (remote unix-socket (path-literal \"/private/var/run/mDNSResponder\")))\n"

#define UNIX_CREATE                                                                 \
    "; creating an AF_UNIX socket at all\n"                                        \
    "(allow system-socket (socket-domain AF_UNIX))\n"

#define NET_RULES                                                                   \
    "; network: no IP; local AF_UNIX is spared\n"                                  \
    "(allow network* (local unix-socket) (remote unix-socket))\n"                  \
    UNIX_CREATE                                                                     \
    "; except DNS, which would carry data out through the resolver\n"             \
    "(deny network-outbound\n" DNS_SOCKETS

#define NET_ALLOW_RULES "; network: not restricted\n(allow network* system-socket)\n"

#define WRITES_OPEN                                                                 \
    "; filesystem: writes are not confined\n"                                      \
    "(allow file-write* file-link file-clone)\n"

#define ROOT_FILTERS                                                                \
    "\n  (subpath (param \"WRITABLE_ROOT_0\"))\n"                                   \
    "  (subpath (param \"WRITABLE_ROOT_1\"))\n"                                     \
    "  (subpath (param \"WRITABLE_ROOT_2\"))\n"                                     \
    "  (subpath (param \"WRITABLE_ROOT_3\"))\n"                                     \
    "  (subpath (param \"WRITABLE_ROOT_4\"))\n"                                     \
    "  (subpath (param \"WRITABLE_ROOT_5\"))\n"                                     \
    "  (subpath (param \"WRITABLE_ROOT_6\"))\n"                                     \
    "  (subpath (param \"WRITABLE_ROOT_7\")))\n"

/* project=workdir, TMPDIR=/var/folders/..., /tmp, /dev, and TMPDIR's sibling
 * C (DARWIN_USER_CACHE_DIR): 8 spellings. */
#define WRITE_RULES                                                                 \
    "; filesystem: writes only beneath the writable roots, each by its literal\n" \
    "; and its canonical path (the kernel reports /tmp as /private/tmp)\n"        \
    "(allow file-write*" ROOT_FILTERS                                               \
    "; no hard links and no clones: XNU checks only one of their two paths\n"

/* Other terminals refused; /dev/tty, the ptys the sandbox makes and the
 * inherited terminal (TTY_N, only on a Mac) given back. */
#define TTY_DENY                                                                    \
    "; other terminals' ptys: not read, written or ioctl'ed\n"                     \
    "(deny file-read* file-write* file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n"
#define TTY_PTYS                                                                    \
    "\n  (literal \"/dev/tty\")\n"                                                  \
    "  (require-all (regex #\"^/dev/ttys[0-9]+$\") (extension \"com.apple.sandbox.pty\"))"
#define TTY_RULES                                                                   \
    TTY_DENY "; this command's terminal and the ptys it makes; ioctls so isatty() works\n" \
    "(allow file-read* file-write-data file-ioctl" TTY_PTYS "\n  (literal \"/dev/ptmx\"))\n"
#define TTY_RO_RULES                                                                \
    TTY_DENY "; this command's terminal and the ptys it makes, without ioctls\n"  \
    "(allow file-read* file-write-data" TTY_PTYS ")\n"

#define HEAD                                                                        \
    "(version 1)\n"                                                                 \
    "; libsandbox profile: everything not listed is refused\n" BASE_RULES

#define NEVER_HEAD                                                                  \
    "; never, in any mode: launchd jobs, LaunchServices, Apple events\n"           \
    "(deny job-creation lsopen appleevent-send)\n"                                  \
    "; nor the services behind them, the keychain, or the pasteboard\n"            \
    "(deny mach-lookup\n"                                                           \
    "  (global-name \"com.apple.coreservices.launchservicesd\")\n"                  \
    "  (global-name \"com.apple.CoreServices.coreservicesd\")\n"                    \
    "  (global-name \"com.apple.coreservices.appleevents\")\n"                      \
    "  (global-name \"com.apple.xpc.smd\")\n"                                       \
    "  (global-name \"com.apple.backgroundtaskmanagementagent\")\n"                 \
    "  (global-name \"com.apple.SecurityServer\")\n"                                \
    "  (global-name \"com.apple.secd\")\n"                                          \
    "  (global-name \"com.apple.pasteboard.1\")\n"                                  \
    "  (global-name-prefix \"com.apple.lsd.\")\n"                                   \
    "  (global-name-prefix \"com.apple.securityd\")\n"                              \
    "  (global-name-prefix \"com.apple.security.\")\n"                              \
    "  (global-name-prefix \"com.apple.ctkd.\")\n"                                 \
    "  (global-name-prefix \"com.apple.axserver\")"

/* Without a network grant the resolver's Mach door is named too. */
#define NEVER_NO_NET NEVER_HEAD "\n  (global-name \"com.apple.dnssd.service\"))\n"
#define NEVER_NET NEVER_HEAD ")\n"

/* Spec 004: never-allowed tools, by path and by name anywhere. */
#define DENY_EXEC                                                                   \
    "; tools that act outside the sandbox are never run, under any directory,\n"  \
    "; nor as the interpreter of a #! script\n"                                     \
    "(deny process-exec*\n"                                                         \
    "  (literal \"/bin/launchctl\")\n"                                              \
    "  (literal \"/usr/bin/osascript\")\n"                                          \
    "  (literal \"/usr/bin/open\")\n"                                               \
    "  (literal \"/usr/bin/security\")\n"                                           \
    "  (literal \"/usr/bin/sudo\")\n"                                               \
    "  (regex #\"/[lL][aA][uU][nN][cC][hH][cC][tT][lL]$\")\n"                       \
    "  (regex #\"/[oO][sS][aA][sS][cC][rR][iI][pP][tT]$\")\n"                       \
    "  (regex #\"/[oO][pP][eE][nN]$\")\n"                                           \
    "  (regex #\"/[sS][eE][cC][uU][rR][iI][tT][yY]$\")\n"                           \
    "  (regex #\"/[sS][uU][dD][oO]$\"))\n"

static const char golden_net[] = HEAD MACH_TOOLCHAIN MACH_END TOOLCHAIN_RULES NET_RULES
    WRITES_OPEN TTY_RULES NEVER_NO_NET DENY_EXEC;
static const char golden_fs[] = HEAD MACH_TOOLCHAIN MACH_NETWORK
    "\n  (global-name \"com.apple.networkd\")" MACH_END TOOLCHAIN_RULES NET_ALLOW_RULES
    WRITE_RULES TTY_RULES NEVER_NET DENY_EXEC;
static const char golden_both[] = HEAD MACH_TOOLCHAIN MACH_END TOOLCHAIN_RULES NET_RULES
    WRITE_RULES TTY_RULES NEVER_NO_NET DENY_EXEC;
static const char golden_read_only[] =
    "(version 1)\n"
    "; libsandbox read-only profile: everything not listed is refused\n" BASE_RULES MACH_END
    TTY_RO_RULES NEVER_NO_NET DENY_EXEC;

static void check_golden(int network, int fs, const char *golden, size_t n_params)
{
    sandbox_policy *p = policy(network, fs, "/Users/me/proj");
    sbx_seatbelt_plan plan;
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_string_equal(plan.profile, golden);
    assert_int_equal(plan.n_params, n_params);
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_golden_network_only(void **state)
{
    (void)state;
    check_golden(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, golden_net, 0);
}

static void test_golden_confined_only(void **state)
{
    (void)state;
    check_golden(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, golden_fs, 8);
}

static void test_golden_network_and_confined(void **state)
{
    (void)state;
    check_golden(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, golden_both, 8);
}

static void test_golden_read_only_is_fixed_and_has_no_params(void **state)
{
    (void)state;
    /* Read-only implies no network whatever was set, and the same text. */
    check_golden(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_READ_ONLY, golden_read_only, 0);
    check_golden(SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY, golden_read_only, 0);
}

static void test_read_only_refuses_unix_sockets_and_writes(void **state)
{
    (void)state;
    /* Nothing in the read-only profile gives back a socket or a file write. */
    assert_null(strstr(golden_read_only, "(allow network"));
    assert_null(strstr(golden_read_only, "unix-socket"));
    assert_null(strstr(golden_read_only, "(allow file-write*"));
    assert_null(strstr(golden_read_only, "(allow default"));
    assert_null(strstr(golden_read_only, "(allow sysctl-write"));
    assert_null(strstr(golden_read_only, "(allow user-preference-write"));
    assert_null(strstr(golden_read_only, "ipc-"));
    assert_null(strstr(golden_read_only, "iokit"));
    assert_null(strstr(golden_read_only, "(allow appleevent"));
    assert_null(strstr(golden_read_only, "(allow file-ioctl"));
    assert_null(strstr(golden_read_only, "file-write-data file-ioctl"));
    assert_null(strstr(golden_read_only, "com.apple.logd"));
}

static void test_internet_only_allows_outbound_ip_but_not_loopback(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_INTERNET_ONLY, SANDBOX_FS_CONFINED, "/p");
    sbx_resolved r;
    sbx_seatbelt_plan plan;
    sandbox_error err;
    const char *allow_ip, *deny_lo, *deny_all;
    (void)state;
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_int_equal(sbx_seatbelt_plan_build(&r, cmd, sbx_macos_canon_textual, &plan, &err),
                     SANDBOX_OK);
    deny_all = strstr(plan.profile, "(deny default)\n");
    allow_ip = strstr(plan.profile, "(allow network-outbound (remote ip \"*:*\"))\n");
    deny_lo = strstr(plan.profile, "(deny network-outbound (remote ip \"localhost:*\"))\n");
    /* Later rules win: refuse all, give outbound IP back, take loopback away. */
    assert_non_null(deny_all);
    assert_non_null(allow_ip);
    assert_non_null(deny_lo);
    assert_true(deny_all < allow_ip && allow_ip < deny_lo);
    assert_null(strstr(plan.profile, "(allow network*)"));
    /* socket(AF_UNIX) for the resolver only; no other socket domain. */
    assert_null(strstr(plan.profile, "(allow system-socket)"));
    assert_non_null(strstr(plan.profile, "(allow system-socket (socket-domain AF_UNIX))\n"));
    /* Unix sockets are this machine (docker.sock is root on it): only the
     * resolver's, even with no class chosen. */
    assert_null(strstr(plan.profile, "(allow network* (local unix-socket)"));
    /* Nothing may listen or accept: no bind or inbound allowance. */
    assert_null(strstr(plan.profile, "(allow network-bind"));
    assert_null(strstr(plan.profile, "(allow network-inbound"));
    /* Unlike no-network, DNS must work to reach the internet by name, by
     * socket and by Mach service; Network.framework's daemon connects for
     * its caller, past the address filter, so it stays out. */
    assert_non_null(strstr(plan.profile, "(allow network-outbound\n" DNS_SOCKETS));
    assert_non_null(strstr(plan.profile, "(global-name \"com.apple.dnssd.service\")\n"));
    assert_null(strstr(plan.profile, "com.apple.networkd"));
    sbx_seatbelt_plan_free(&plan);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

/* ---- deny-default in every mode (issue 21) ---- */

/* Every mode the launcher can ask for, classes included. */
static sandbox_policy *mode_policy(size_t i)
{
    static const int net[] = {SANDBOX_NETWORK_DENY,   SANDBOX_NETWORK_ALLOW,
                              SANDBOX_NETWORK_DENY,   SANDBOX_NETWORK_INTERNET_ONLY,
                              SANDBOX_NETWORK_ALLOW,  SANDBOX_NETWORK_DENY,
                              SANDBOX_NETWORK_ALLOW,  SANDBOX_NETWORK_INTERNET_ONLY};
    static const int fs[] = {SANDBOX_FS_UNRESTRICTED, SANDBOX_FS_CONFINED, SANDBOX_FS_CONFINED,
                             SANDBOX_FS_CONFINED,     SANDBOX_FS_READ_ONLY, SANDBOX_FS_CONFINED,
                             SANDBOX_FS_CONFINED,     SANDBOX_FS_CONFINED};
    sandbox_policy *p = policy(net[i], fs[i], "/Users/me/proj");
    if (i >= 5)
        assert_int_equal(sandbox_policy_set_class(p, i == 5 ? SANDBOX_CLASS_OFFLINE
                                                             : SANDBOX_CLASS_BUILD),
                         SANDBOX_OK);
    return p;
}
#define N_MODES 8

static void test_every_mode_is_deny_default(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N_MODES; i++) {
        sandbox_policy *p = mode_policy(i);
        sbx_seatbelt_plan plan;
        const char *nl;
        plan_for(p, cmd, sbx_macos_canon_textual, &plan);
        nl = strchr(plan.profile + strlen("(version 1)\n"), '\n');
        assert_non_null(nl);
        assert_true(strncmp(nl + 1, "(deny default)\n", 15) == 0);
        assert_null(strstr(plan.profile, "(allow default"));
        sbx_seatbelt_plan_free(&plan);
        sandbox_policy_free(p);
    }
}

static void test_escape_routes_are_denied_after_every_allowance(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < N_MODES; i++) {
        sandbox_policy *p = mode_policy(i);
        sbx_seatbelt_plan plan;
        const char *never, *last_allow = NULL, *q;
        plan_for(p, cmd, sbx_macos_canon_textual, &plan);
        never = strstr(plan.profile, "(deny job-creation lsopen appleevent-send)\n");
        assert_non_null(never);
        for (q = plan.profile; (q = strstr(q, "(allow ")) != NULL; q++)
            last_allow = q;
        assert_true(last_allow < never);
        assert_non_null(strstr(never, "(global-name \"com.apple.SecurityServer\")"));
        assert_non_null(strstr(never, "(global-name-prefix \"com.apple.securityd\")"));
        assert_non_null(strstr(never, "(global-name \"com.apple.coreservices.appleevents\")"));
        assert_null(strstr(plan.profile, "(allow job-creation"));
        assert_null(strstr(plan.profile, "(allow lsopen"));
        sbx_seatbelt_plan_free(&plan);
        sandbox_policy_free(p);
    }
}

static void test_a_class_refuses_unix_sockets_but_the_resolvers(void **state)
{
    sbx_seatbelt_plan plan;
    sandbox_policy *p;
    (void)state;
    /* Offline: no network, so no unix socket at all and no resolver. */
    p = mode_policy(5);
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_null(strstr(plan.profile, "(allow network"));
    assert_non_null(strstr(plan.profile, "(global-name \"com.apple.dnssd.service\"))\n"));
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
    /* Build with the internet: IP out, the resolver's socket, nothing else. */
    p = mode_policy(7);
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_null(strstr(plan.profile, "(local unix-socket)"));
    assert_non_null(strstr(plan.profile, "(allow network-outbound\n" DNS_SOCKETS));
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
    /* Build with the network unrestricted: unix sockets taken away again. */
    p = mode_policy(6);
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_non_null(strstr(plan.profile, NET_ALLOW_RULES
                           "; the class refuses unix sockets but the resolver's\n"
                           "(deny network* (local unix-socket) (remote unix-socket))\n"
                           "; the resolver's socket, for the granted network\n"
                           "(allow network-outbound\n" DNS_SOCKETS));
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_user_cache_is_writable_only_when_confined(void **state)
{
    sandbox_policy *p;
    sbx_seatbelt_plan plan;
    size_t i, n;
    (void)state;
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/proj");
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_string_equal(param(&plan, "WRITABLE_ROOT_3"), "/var/folders/ab/cd/C");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_4"), "/private/var/folders/ab/cd/C");
    /* A root of its own kind, so --explain lists it and the scan walks it. */
    for (i = 0, n = 0; i < plan.n_roots; i++)
        n += plan.roots[i].kind == SBX_ROOT_USER_CACHE &&
             strcmp(plan.roots[i].path, "/var/folders/ab/cd/C") == 0;
    assert_int_equal(n, 1);
    assert_true(sbx_root_is_scanned(&(struct sbx_root){.path = (char *)"/var/folders/ab/cd/C",
                                                       .kind = SBX_ROOT_USER_CACHE}));
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
    /* research and media build nothing: no user cache (review of issue 21). */
    {
        int k;
        for (k = 0; k < 2; k++) {
            p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/proj");
            assert_int_equal(sandbox_policy_set_class(p, k ? SANDBOX_CLASS_MEDIA
                                                           : SANDBOX_CLASS_RESEARCH),
                             SANDBOX_OK);
            if (k)
                assert_int_equal(sandbox_policy_set_output_dir(p, "/Users/me/out"), SANDBOX_OK);
            plan_for(p, cmd, sbx_macos_canon_textual, &plan);
            /* (Research reads the package caches, ~/Library/Caches/pip
             * among them: only a writable /C would be the user cache.) */
            for (i = 0, n = 0; i < plan.n_params; i++)
                n += strstr(plan.params[i].value, "/C") != NULL &&
                     plan.params[i].role != SBX_PARAM_READABLE;
            assert_int_equal(n, 0);
            sbx_seatbelt_plan_free(&plan);
            sandbox_policy_free(p);
        }
    }
    /* Writes unconfined or read-only: no roots at all. */
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, "/Users/me/proj");
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_int_equal(plan.n_params, 0);
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
    /* A TMPDIR of another shape has no known sibling. */
    p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/proj");
    assert_int_equal(sandbox_policy_set_temp_dir(p, "/Users/me/tmp/T"), SANDBOX_OK);
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    for (i = 0, n = 0; i < plan.n_params; i++)
        n += strstr(plan.params[i].value, "/C") != NULL;
    assert_int_equal(n, 0);
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_mach_services_listed_are_the_ones_allowed(void **state)
{
    size_t i, k;
    (void)state;
    for (i = 0; i < N_MODES; i++) {
        sandbox_policy *p = mode_policy(i);
        sbx_seatbelt_plan plan;
        sbx_resolved r;
        sandbox_error err;
        const char *names[32], *allow, *never;
        size_t n;
        assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
        assert_int_equal(sbx_seatbelt_plan_build(&r, cmd, sbx_macos_canon_textual, &plan, &err),
                         SANDBOX_OK);
        n = sbx_seatbelt_mach_services(&r, names, 32);
        assert_true(n >= 4 && n <= 32);
        allow = strstr(plan.profile, "(allow mach-lookup");
        never = strstr(plan.profile, "(deny mach-lookup");
        assert_non_null(allow);
        assert_non_null(never);
        for (k = 0; k < n; k++) {
            char want[128];
            const char *at;
            snprintf(want, sizeof want, "(global-name \"%s\")", names[k]);
            at = strstr(allow, want);
            assert_non_null(at);
            assert_true(at < never);
            assert_null(strstr(names[k], "Security"));
            assert_null(strstr(names[k], "securityd"));
        }
        /* DNS by the Mach door exactly when the network is granted. */
        for (k = 0; k < n && strcmp(names[k], "com.apple.dnssd.service") != 0; k++)
            ;
        assert_int_equal(k < n, r.network != SANDBOX_NETWORK_DENY);
        sbx_seatbelt_plan_free(&plan);
        sbx_resolved_free(&r);
        sandbox_policy_free(p);
    }
}

/* ---- canonical paths ---- */

static void expect_canon(const char *in, const char *want)
{
    char *out = NULL;
    sandbox_error err;
    assert_int_equal(sbx_macos_canon_textual(in, &out, &err), SANDBOX_OK);
    assert_string_equal(out, want);
    free(out);
}

static void test_firmlink_map_is_textual_and_exact(void **state)
{
    (void)state;
    expect_canon("/tmp", "/private/tmp");
    expect_canon("/tmp/build", "/private/tmp/build");
    expect_canon("/var", "/private/var");
    expect_canon("/var/folders/ab/cd/T", "/private/var/folders/ab/cd/T");
    expect_canon("/etc", "/private/etc");
    expect_canon("/etc/ssh", "/private/etc/ssh");
    /* Only whole components: these are not firmlinked names. */
    expect_canon("/tmpfoo", "/tmpfoo");
    expect_canon("/variable/x", "/variable/x");
    expect_canon("/etcetera", "/etcetera");
    expect_canon("/home/tmp", "/home/tmp");
    expect_canon("/Users/me/proj", "/Users/me/proj");
    /* Already canonical stays as is (no /private/private). */
    expect_canon("/private/tmp", "/private/tmp");
    expect_canon("/private/var/folders/x", "/private/var/folders/x");
    expect_canon("/", "/");
}

static void test_each_root_by_literal_and_canonical_deduplicated(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/proj");
    sbx_seatbelt_plan plan;
    size_t i, j;
    (void)state;
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    /* project (= workdir, deduplicated by resolve), TMPDIR, its sibling C,
     * /tmp, /dev */
    assert_int_equal(plan.n_roots, 5);
    assert_string_equal(param(&plan, "WRITABLE_ROOT_0"), "/Users/me/proj");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_1"), "/var/folders/ab/cd/T");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_2"), "/private/var/folders/ab/cd/T");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_5"), "/tmp");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_6"), "/private/tmp");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_7"), "/dev");
    for (i = 0; i < plan.n_params; i++)
        for (j = i + 1; j < plan.n_params; j++)
            assert_string_not_equal(plan.params[i].value, plan.params[j].value);
    for (i = 0; i < plan.n_roots; i++)
        if (strcmp(plan.roots[i].path, "/tmp") == 0)
            assert_string_equal(plan.roots[i].canonical, "/private/tmp");
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_canonical_and_literal_roots_collapse(void **state)
{
    /* A project that is already /private/tmp/x and a TMPDIR of /private/tmp:
     * every spelling appears exactly once. */
    sandbox_policy *p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, "/private/tmp/x");
    sbx_seatbelt_plan plan;
    (void)state;
    assert_int_equal(sandbox_policy_set_temp_dir(p, "/private/tmp"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_writable_dir(p, "/tmp/x"), SANDBOX_OK);
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    /* /private/tmp/x, /tmp/x, /private/tmp, /tmp, /dev */
    assert_int_equal(plan.n_params, 5);
    assert_string_equal(plan.params[0].value, "/private/tmp/x");
    assert_string_equal(plan.params[1].value, "/tmp/x");
    assert_string_equal(plan.params[2].value, "/private/tmp");
    assert_string_equal(plan.params[3].value, "/tmp");
    assert_string_equal(plan.params[4].value, "/dev");
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

/* A stand-in for realpath: a symlinked project resolves elsewhere. */
static int fake_realpath(const char *path, char **out, sandbox_error *err)
{
    if (strcmp(path, "/Users/me/link") == 0) {
        *out = sbx_strdup("/Volumes/Data/proj");
        return *out ? SANDBOX_OK : SANDBOX_E_NOMEM;
    }
    if (strcmp(path, "/Users/me/unreadable") == 0)
        return sbx_fail(err, SANDBOX_E_PATH, 13, "cannot resolve the writable directory");
    return sbx_macos_canon_textual(path, out, err);
}

static void test_canonicalizer_output_is_used_and_its_failure_fails_closed(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/link");
    sbx_seatbelt_plan plan;
    sbx_resolved r;
    sandbox_error err;
    (void)state;
    plan_for(p, cmd, fake_realpath, &plan);
    assert_string_equal(plan.roots[0].path, "/Users/me/link");
    assert_string_equal(plan.roots[0].canonical, "/Volumes/Data/proj");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_0"), "/Users/me/link");
    assert_string_equal(param(&plan, "WRITABLE_ROOT_1"), "/Volumes/Data/proj");
    sbx_seatbelt_plan_free(&plan);

    assert_int_equal(sandbox_policy_add_writable_dir(p, "/Users/me/unreadable"), SANDBOX_OK);
    assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
    assert_int_equal(sbx_seatbelt_plan_build(&r, cmd, fake_realpath, &plan, &err), SANDBOX_E_PATH);
    assert_null(plan.argv);
    sbx_resolved_free(&r);
    sandbox_policy_free(p);
}

static void test_every_root_kind_is_rendered_generically(void **state)
{
    /* Roots of any kind, including ones later issues add, become params. */
    sbx_resolved r;
    sbx_seatbelt_plan plan;
    sandbox_error err;
    struct sbx_root roots[3];
    char a[] = "/Users/me/.cache/pkg", b[] = "/opt/scratch", c[] = "/var/tmp/x";
    (void)state;
    memset(&r, 0, sizeof r);
    r.target = SANDBOX_TARGET_MACOS;
    r.network = SANDBOX_NETWORK_ALLOW;
    r.filesystem = SANDBOX_FS_CONFINED;
    roots[0].path = a;
    roots[0].kind = 99; /* a kind this renderer has never heard of */
    roots[1].path = b;
    roots[1].kind = SBX_ROOT_ADDED;
    roots[2].path = c;
    roots[2].kind = 100;
    r.roots = roots;
    r.n_roots = 3;
    assert_int_equal(sbx_seatbelt_plan_build(&r, cmd, sbx_macos_canon_textual, &plan, &err),
                     SANDBOX_OK);
    assert_int_equal(plan.n_params, 4);
    assert_string_equal(plan.params[0].value, a);
    assert_string_equal(plan.params[1].value, b);
    assert_string_equal(plan.params[2].value, c);
    assert_string_equal(plan.params[3].value, "/private/var/tmp/x");
    assert_non_null(strstr(plan.profile, "(subpath (param \"WRITABLE_ROOT_3\"))"));
    sbx_seatbelt_plan_free(&plan);
}

/* ---- hostile paths ---- */

static const char *const hostile[] = {
    "/Users/me/a\"b",
    "/Users/me/back\\slash\\x",
    "/Users/me/pa(ren)s)",
    "/Users/me/new\nline",
    "/Users/me/semi;colon",
    "/Users/me/regex#\"x\"",
    "/Users/me/\")) (allow default) (allow network*) ((\"",
    "/Users/me/non-utf8-\xff\xfe\x80",
    "/Users/me/ctl\x01\x1b[0m\x7f",
    "/Users/me/param\" (param \"WRITABLE_ROOT_0",
    "/Users/me/equals=sign -D X=1 --",
};

static void test_hostile_paths_never_change_the_profile(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/plain");
    sbx_seatbelt_plan ref, plan;
    size_t i, j;
    (void)state;
    plan_for(p, cmd, sbx_macos_canon_textual, &ref);
    sandbox_policy_free(p);
    for (i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        char want[512];
        p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, hostile[i]);
        plan_for(p, cmd, sbx_macos_canon_textual, &plan);
        /* The profile is byte-identical: the path is not in it at all. */
        assert_string_equal(plan.profile, ref.profile);
        assert_int_equal(plan.n_params, ref.n_params);
        assert_int_equal(plan.argc, ref.argc);
        /* Only the -D value differs, and it carries the path verbatim. */
        assert_string_equal(param(&plan, "WRITABLE_ROOT_0"), hostile[i]);
        snprintf(want, sizeof want, "WRITABLE_ROOT_0=%s", hostile[i]);
        assert_string_equal(plan.argv[4], want);
        for (j = 0; j < plan.argc; j++)
            if (j != 4)
                assert_string_equal(plan.argv[j], ref.argv[j]);
        sbx_seatbelt_plan_free(&plan);
        sandbox_policy_free(p);
    }
    sbx_seatbelt_plan_free(&ref);
}


/* ---- protected paths ---- */

#define PROTECT_RULES \
    "; protected paths: denied even inside the writable roots; rendered last so\n" \
    "; they win. Names match per component, case-insensitively, and below\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][eE][nN][vV]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[.][eE][nN][vV]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][eE][nN][vV]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][eE][nN][vV][.][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[.][eE][nN][vV][.][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][eE][nN][vV][.][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[^/]*[.][pP][eE][mM]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[^/]*[.][pP][eE][mM]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[^/]*[.][pP][eE][mM]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[^/]*[.][kK][eE][yY]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[^/]*[.][kK][eE][yY]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[^/]*[.][kK][eE][yY]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][rR][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][rR][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][rR][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][rR][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][rR][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][rR][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][dD][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][dD][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][dD][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][dD][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][dD][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][dD][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][eE][cC][dD][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][eE][cC][dD][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][eE][cC][dD][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][eE][cC][dD][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][eE][cC][dD][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][eE][cC][dD][sS][aA][_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][eE][dD]25519" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][eE][dD]25519" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][eE][dD]25519" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[iI][dD][_][eE][dD]25519[_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[iI][dD][_][eE][dD]25519[_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[iI][dD][_][eE][dD]25519[_][^/]*" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][sS][sS][hH]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[.][sS][sS][hH]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][sS][sS][hH]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][aA][wW][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[.][aA][wW][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][aA][wW][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][gG][nN][uU][pP][gG]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[.][gG][nN][uU][pP][gG]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][gG][nN][uU][pP][gG]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][nN][eE][tT][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[.][nN][eE][tT][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][nN][eE][tT][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone (regex #\"/[.][pP][yY][pP][iI][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-regex #\"/[.][pP][yY][pP][iI][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][pP][yY][pP][iI][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][gG][iI][tT]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][gG][iI][tT]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][vV][sS][cC][oO][dD][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][vV][sS][cC][oO][dD][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][iI][dD][eE][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][iI][dD][eE][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][mM][cC][pP][.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][mM][cC][pP][.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][cC][lL][aA][uU][dD][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][cC][lL][aA][uU][dD][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][cC][oO][dD][eE][xX]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][cC][oO][dD][eE][xX]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][cC][uU][rR][sS][oO][rR]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][cC][uU][rR][sS][oO][rR]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][gG][eE][mM][iI][nN][iI]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][gG][eE][mM][iI][nN][iI]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][dD][eE][vV][cC][oO][nN][tT][aA][iI][nN][eE][rR]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][dD][eE][vV][cC][oO][nN][tT][aA][iI][nN][eE][rR]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[.][dD][eE][vV][cC][oO][nN][tT][aA][iI][nN][eE][rR][.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[.][dD][eE][vV][cC][oO][nN][tT][aA][iI][nN][eE][rR][.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-write* file-link file-clone (regex #\"/[^/]*[.][cC][oO][dD][eE][-][wW][oO][rR][kK][sS][pP][aA][cC][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-regex #\"/[^/]*[.][cC][oO][dD][eE][-][wW][oO][rR][kK][sS][pP][aA][cC][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny file-read* file-write* file-link file-clone\n" \
    "  (subpath (param \"PROTECTED_0\"))\n" \
    "  (subpath (param \"PROTECTED_1\"))\n" \
    "  (subpath (param \"PROTECTED_2\"))\n" \
    "  (subpath (param \"PROTECTED_3\"))\n" \
    "  (subpath (param \"PROTECTED_4\"))\n" \
    "  (subpath (param \"PROTECTED_5\"))\n" \
    "  (subpath (param \"PROTECTED_6\"))\n" \
    "  (subpath (param \"PROTECTED_7\"))\n" \
    "  (subpath (param \"PROTECTED_8\"))\n" \
    "  (subpath (param \"PROTECTED_9\"))\n" \
    "  (subpath (param \"PROTECTED_10\"))\n" \
    "  (subpath (param \"PROTECTED_11\"))\n" \
    "  (subpath (param \"PROTECTED_12\"))\n" \
    "  (subpath (param \"PROTECTED_13\"))\n" \
    "  (subpath (param \"PROTECTED_14\"))\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][nN][pP][mM][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][dD][oO][cC][kK][eE][rR]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][kK][uU][bB][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][hH]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][gG][iI][tT][-][cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][iI][tT]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][cC][lL][oO][uU][dD]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][aA][zZ][uU][rR][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][tT][eE][rR][rR][aA][fF][oO][rR][mM][.][dD]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS][.][tT][fF][rR][cC][.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS][.][tT][oO][mM][lL]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][pP][gG][pP][aA][sS][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][mM][yY][.][cC][nN][fF]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[lL][iI][bB][rR][aA][rR][yY]/[kK][eE][yY][cC][hH][aA][iI][nN][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n" \
    "  (regex #\"^/[lL][iI][bB][rR][aA][rR][yY]/[kK][eE][yY][cC][hH][aA][iI][nN][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "(deny network-outbound\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_0\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_1\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_2\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_3\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_4\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_5\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_6\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_7\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_8\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_9\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_10\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_11\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_12\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_13\")))\n" \
    "  (remote unix-socket (path-literal (param \"PROTECTED_14\")))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][nN][pP][mM][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][dD][oO][cC][kK][eE][rR]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][kK][uU][bB][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][hH]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][gG][iI][tT][-][cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][iI][tT]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][cC][lL][oO][uU][dD]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][aA][zZ][uU][rR][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][tT][eE][rR][rR][aA][fF][oO][rR][mM][.][dD]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS][.][tT][fF][rR][cC][.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS][.][tT][oO][mM][lL]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][pP][gG][pP][aA][sS][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][mM][yY][.][cC][nN][fF]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[lL][iI][bB][rR][aA][rR][yY]/[kK][eE][yY][cC][hH][aA][iI][nN][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (remote unix-socket (path-regex #\"^/[lL][iI][bB][rR][aA][rR][yY]/[kK][eE][yY][cC][hH][aA][iI][nN][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "(deny network-bind\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_0\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_1\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_2\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_3\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_4\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_5\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_6\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_7\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_8\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_9\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_10\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_11\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_12\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_13\")))\n" \
    "  (local unix-socket (path-literal (param \"PROTECTED_14\")))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][nN][pP][mM][rR][cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][dD][oO][cC][kK][eE][rR]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][kK][uU][bB][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][hH]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][gG][iI][tT][-][cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][iI][tT]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][cC][lL][oO][uU][dD]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][aA][zZ][uU][rR][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][tT][eE][rR][rR][aA][fF][oO][rR][mM][.][dD]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS][.][tT][fF][rR][cC][.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS][.][tT][oO][mM][lL]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][aA][rR][gG][oO]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][pP][gG][pP][aA][sS][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][mM][yY][.][cC][nN][fF]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[lL][iI][bB][rR][aA][rR][yY]/[kK][eE][yY][cC][hH][aA][iI][nN][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n" \
    "  (local unix-socket (path-regex #\"^/[lL][iI][bB][rR][aA][rR][yY]/[kK][eE][yY][cC][hH][aA][iI][nN][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\")))\n" \
    "; the parents of protected home paths cannot be renamed or removed,\n" \
    "; by any spelling of their names\n" \
    "(deny file-write-unlink\n" \
    "  (literal (param \"PROTECTED_PARENT_0\"))\n" \
    "  (literal (param \"PROTECTED_PARENT_1\"))\n" \
    "  (literal (param \"PROTECTED_PARENT_2\"))\n" \
    "  (literal (param \"PROTECTED_PARENT_3\"))\n" \
    "  (literal (param \"PROTECTED_PARENT_4\"))\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]$\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[gG][iI][tT]$\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][tT][eE][rR][rR][aA][fF][oO][rR][mM][.][dD]$\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][aA][rR][gG][oO]$\")\n" \
    "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[lL][iI][bB][rR][aA][rR][yY]$\"))\n"

static const char golden_protect[] = HEAD MACH_TOOLCHAIN MACH_END TOOLCHAIN_RULES NET_RULES
    WRITE_RULES TTY_RULES NEVER_NO_NET DENY_EXEC PROTECT_RULES;

static sandbox_policy *protected_policy(int network, int fs)
{
    sandbox_policy *p = policy(network, fs, "/Users/me/proj");
    /* The home directory is read from the environment at resolve time. */
    assert_int_equal(setenv("HOME", "/Users/me/", 1), 0);
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    return p;
}

static void test_golden_default_protected_set(void **state)
{
    sandbox_policy *p = protected_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    sbx_seatbelt_plan plan;
    (void)state;
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_string_equal(plan.profile, golden_protect);
    /* Only the home-only entries need exact rules; ~/.ssh is the .ssh name
     * rule's, so it is not repeated as a parameter. */
    /* Roots and TMPDIR's sibling C, fifteen exact paths, five parents, and home
     * for the case-insensitive rules. */
    assert_int_equal(plan.n_params, 8 + 15 + 5 + 1);
    assert_string_equal(param(&plan, "PROTECTED_0"), "/Users/me/.npmrc");
    assert_string_equal(param(&plan, "PROTECTED_1"), "/Users/me/.docker");
    assert_string_equal(param(&plan, "PROTECTED_2"), "/Users/me/.kube");
    assert_string_equal(param(&plan, "PROTECTED_3"), "/Users/me/.config/gh");
    assert_string_equal(param(&plan, "PROTECTED_4"), "/Users/me/.git-credentials");
    assert_string_equal(param(&plan, "PROTECTED_12"), "/Users/me/.my.cnf");
    assert_string_equal(param(&plan, "PROTECTED_13"), "/Users/me/Library/Keychains");
    assert_string_equal(param(&plan, "PROTECTED_14"), "/Library/Keychains");
    assert_string_equal(param(&plan, "PROTECTED_PARENT_0"), "/Users/me/.config");
    assert_string_equal(param(&plan, "PROTECTED_PARENT_1"), "/Users/me/.config/git");
    assert_string_equal(param(&plan, "PROTECTED_PARENT_4"), "/Users/me/Library");
    assert_int_equal(plan.n_protected, 15);
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_protection_is_rendered_in_every_mode(void **state)
{
    static const int modes[][2] = {
        {SANDBOX_NETWORK_ALLOW, SANDBOX_FS_UNRESTRICTED}, /* protection alone */
        {SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED},
        {SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED},
        {SANDBOX_NETWORK_DENY, SANDBOX_FS_READ_ONLY},
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        sandbox_policy *p = protected_policy(modes[i][0], modes[i][1]);
        sbx_seatbelt_plan plan;
        size_t n = strlen(PROTECT_RULES);
        plan_for(p, cmd, sbx_macos_canon_textual, &plan);
        /* Last in the profile, after every allowance. */
        assert_true(strlen(plan.profile) > n);
        assert_string_equal(plan.profile + strlen(plan.profile) - n, PROTECT_RULES);
        sbx_seatbelt_plan_free(&plan);
        sandbox_policy_free(p);
    }
}

/* A realpath stand-in: the home directory is a symlink to another volume. */
static int fake_home_realpath(const char *path, char **out, sandbox_error *err)
{
    if (strncmp(path, "/Users/me", 9) == 0 && (path[9] == '/' || !path[9])) {
        size_t n = strlen(path);
        char *s = malloc(n - 9 + sizeof "/Volumes/Home/me");
        if (!s)
            return SANDBOX_E_NOMEM;
        memcpy(s, "/Volumes/Home/me", sizeof "/Volumes/Home/me" - 1);
        memcpy(s + sizeof "/Volumes/Home/me" - 1, path + 9, n - 9 + 1);
        *out = s;
        return SANDBOX_OK;
    }
    return sbx_macos_canon_textual(path, out, err);
}

/* A ~/ path the regex builder cannot render (non-ASCII) keeps its exact
 * rules: the plan succeeds, nothing partial is left, and an ASCII sibling
 * still gets its case-insensitive rule. */
static void test_unrenderable_home_path_keeps_its_exact_rules(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, "/Users/me/proj");
    sbx_seatbelt_plan plan;
    (void)state;
    assert_int_equal(setenv("HOME", "/Users/me", 1), 0);
    assert_int_equal(sandbox_policy_add_protected(p, "~/caf\xc3\xa9", SANDBOX_PROTECT_ALL),
                     SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_protected(p, "~/tok", SANDBOX_PROTECT_ALL), SANDBOX_OK);
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_string_equal(param(&plan, "PROTECTED_0"), "/Users/me/caf\xc3\xa9");
    assert_non_null(strstr(plan.profile, "(deny file-read* file-write* file-link file-clone\n"
                                         "  (subpath (param \"PROTECTED_0\"))\n"
                                         "  (subpath (param \"PROTECTED_1\"))\n"
                                         "  (subpath (param \"PROTECTED_2\"))\n"
                                         "  (regex "
                                         "#\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[tT][oO][kK]" SBX_SBPL_COPY_SUFFIX "(/|$)\")"));
    assert_null(strstr(plan.profile, "\xc3"));
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_home_paths_by_both_spellings_with_parents(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_ALLOW, SANDBOX_FS_CONFINED, "/Users/me/proj");
    sbx_seatbelt_plan plan;
    (void)state;
    assert_int_equal(setenv("HOME", "/Users/me", 1), 0);
    assert_int_equal(sandbox_policy_add_protected(p, "~/a/b/c", SANDBOX_PROTECT_ALL), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_protected(p, "~/w", SANDBOX_PROTECT_WRITE), SANDBOX_OK);
    assert_int_equal(sandbox_policy_add_protected(p, "~/.config/*.json", SANDBOX_PROTECT_ALL),
                     SANDBOX_OK);
    plan_for(p, cmd, fake_home_realpath, &plan);
    assert_string_equal(param(&plan, "PROTECTED_0"), "/Users/me/a/b/c");
    assert_string_equal(param(&plan, "PROTECTED_1"), "/Volumes/Home/me/a/b/c");
    assert_string_equal(param(&plan, "PROTECTED_PARENT_0"), "/Users/me/a/b");
    assert_string_equal(param(&plan, "PROTECTED_PARENT_1"), "/Volumes/Home/me/a/b");
    assert_string_equal(param(&plan, "PROTECTED_PARENT_2"), "/Users/me/a");
    assert_string_equal(param(&plan, "PROTECTED_PARENT_3"), "/Volumes/Home/me/a");
    assert_null(param(&plan, "PROTECTED_PARENT_4")); /* never home itself */
    assert_string_equal(param(&plan, "PROTECTED_2"), "/Users/me/w");
    assert_string_equal(param(&plan, "PROTECTED_3"), "/Volumes/Home/me/w");
    assert_string_equal(param(&plan, "PROTECTED_4"), "/Library/Keychains"); /* macOS target */
    assert_string_equal(param(&plan, "HOME_0"), "/Users/me");
    assert_string_equal(param(&plan, "HOME_1"), "/Volumes/Home/me");
    /* ~/ wildcards are pinned beneath home by home's own name, case-folded
     * and bracketed byte by byte: /users/ME is /Users/me (review of issue
     * 21); no raw home text enters the profile. */
    assert_non_null(strstr(plan.profile,
                           "(deny file-read* file-write* file-link file-clone\n"
                           "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[^/]*[.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n"
                           "  (regex #\"^/[vV][oO][lL][uU][mM][eE][sS]/[hH][oO][mM][eE]/[mM][eE]/[.][cC][oO][nN][fF][iI][gG]/[^/]*[.][jJ][sS][oO][nN]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n"));
    /* Exact paths: both spellings, then the same case-insensitively. */
    assert_non_null(strstr(plan.profile, "(deny file-read* file-write* file-link file-clone\n"
                                         "  (subpath (param \"PROTECTED_0\"))\n"
                                         "  (subpath (param \"PROTECTED_1\"))\n"
                                         "  (subpath (param \"PROTECTED_4\"))\n"
                                         "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[aA]/[bB]/[cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n"
                                         "  (regex #\"^/[vV][oO][lL][uU][mM][eE][sS]/[hH][oO][mM][eE]/[mM][eE]/[aA]/[bB]/[cC]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n"
                                         "  (regex #\"^/[lL][iI][bB][rR][aA][rR][yY]/[kK][eE][yY][cC][hH][aA][iI][nN][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n"));
    /* Sockets there are refused too: connecting where reads are, binding
     * where writes are (review of issue 21: ~/.gnupg/S.gpg-agent). */
    assert_non_null(strstr(plan.profile, "(deny network-outbound\n"
                                         "  (remote unix-socket (path-literal (param \"PROTECTED_0\")))\n"));
    assert_non_null(strstr(plan.profile, "(deny network-bind\n"
                                         "  (local unix-socket (path-literal (param \"PROTECTED_2\")))\n"));
    assert_non_null(strstr(plan.profile, "(deny file-write* file-link file-clone\n"
                                         "  (subpath (param \"PROTECTED_2\"))\n"
                                         "  (subpath (param \"PROTECTED_3\"))\n"
                                         "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[wW]" SBX_SBPL_COPY_SUFFIX "(/|$)\")\n"
                                         "  (regex #\"^/[vV][oO][lL][uU][mM][eE][sS]/[hH][oO][mM][eE]/[mM][eE]/[wW]" SBX_SBPL_COPY_SUFFIX "(/|$)\"))\n"));
    /* A case-folded rule for each parent, beside its literal. */
    assert_non_null(strstr(plan.profile, "  (regex #\"^/[uU][sS][eE][rR][sS]/[mM][eE]/[aA]$\")"));
    /* No raw home path text in the profile, only parameter names and the
     * bracketed, case-folded regexes. */
    assert_null(strstr(plan.profile, "/Users/me"));
    assert_null(strstr(plan.profile, "/Volumes"));
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static char *name_regex(const char *pattern, int *rc)
{
    sbx_buf b;
    sbx_buf_init(&b);
    *rc = sbx_sbpl_name_regex(&b, pattern);
    if (*rc != SANDBOX_OK) {
        assert_int_equal(b.len, 0); /* nothing appended on refusal */
        sbx_buf_free(&b);
        return NULL;
    }
    return sbx_buf_take(&b);
}

static void test_name_regex_shapes(void **state)
{
    static const struct {
        const char *pattern, *want;
    } cases[] = {
        {".env", "#\"/[.][eE][nN][vV]" SBX_SBPL_COPY_SUFFIX "(/|$)\""},
        {"*.pem", "#\"/[^/]*[.][pP][eE][mM]" SBX_SBPL_COPY_SUFFIX "(/|$)\""},
        {"id_?sa", "#\"/[iI][dD][_][^/][sS][aA]" SBX_SBPL_COPY_SUFFIX "(/|$)\""},
        {"config/credentials", "#\"/[cC][oO][nN][fF][iI][gG]/[cC][rR][eE][dD][eE][nN][tT][iI][aA][lL][sS]" SBX_SBPL_COPY_SUFFIX "(/|$)\""},
        {"a\\b", "#\"/[aA]/[bB]" SBX_SBPL_COPY_SUFFIX "(/|$)\""}, /* '\\' separates, like the matcher */
        {"~/.kube", "#\"/[.][kK][uU][bB][eE]" SBX_SBPL_COPY_SUFFIX "(/|$)\""},
        {"x9-(1)|{2}$+", "#\"/[xX]9[-][(]1[)][|][{]2[}][$][+]" SBX_SBPL_COPY_SUFFIX "(/|$)\""},
    };
    size_t i;
    int rc;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *re = name_regex(cases[i].pattern, &rc);
        assert_int_equal(rc, SANDBOX_OK);
        assert_string_equal(re, cases[i].want);
        free(re);
    }
}

/* Patterns are caller input: whatever cannot be rendered from the allowlist
 * is refused, and nothing is appended. */
static const char *const hostile_patterns[] = {
    "a\"b",                                  /* would end the #"..." literal */
    "x\"))(allow default)((deny x #\"",      /* a forged rule */
    "[a-z]", "a]", "^x", "new\nline", "tab\t", "ctl\x01", "del\x7f", "esc\x1b[0m",
    "caf\xc3\xa9", "\xff", "",
};

static void test_name_regex_refuses_hostile_patterns(void **state)
{
    size_t i;
    int rc;
    (void)state;
    for (i = 0; i < sizeof hostile_patterns / sizeof hostile_patterns[0]; i++) {
        assert_null(name_regex(hostile_patterns[i], &rc));
        assert_int_equal(rc, SANDBOX_E_INVALID);
    }
}

static void test_unrenderable_pattern_fails_the_plan(void **state)
{
    size_t i;
    (void)state;
    for (i = 0; i < sizeof hostile_patterns / sizeof hostile_patterns[0]; i++) {
        sandbox_policy *p = protected_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
        sbx_resolved r;
        sbx_seatbelt_plan plan;
        sandbox_error err;
        if (sandbox_policy_add_protected(p, hostile_patterns[i], SANDBOX_PROTECT_ALL) != SANDBOX_OK) {
            sandbox_policy_free(p); /* refused by the policy already ("") */
            continue;
        }
        assert_int_equal(sbx_resolve(p, SANDBOX_TARGET_MACOS, &r, &err), SANDBOX_OK);
        assert_int_equal(sbx_seatbelt_plan_build(&r, cmd, sbx_macos_canon_textual, &plan, &err),
                         SANDBOX_E_INVALID);
        assert_non_null(strstr(err.message, "cannot be rendered"));
        assert_null(strchr(err.message, '\n'));
        assert_null(plan.profile);
        assert_null(plan.argv);
        sbx_resolved_free(&r);
        sandbox_policy_free(p);
    }
}

/* The regex and the portable matcher agree (POSIX ERE, like the guile
 * checker; Seatbelt's dialect is only verified on a Mac). */
static void test_name_regex_agrees_with_the_matcher(void **state)
{
    static const char *const patterns[] = {".env", ".env.*", "*.pem", "id_rsa_*", ".git",
                                           "config/credentials", "a?c", "*", "x*y*z"};
    static const char *const paths[] = {
        "/p/.env", "/p/sub/.ENV", "/p/conf/.env.local", "/p/env.md", "/p/.envrc", "/p/.env/x",
        "/p/x.env", "/p/keys/server.pem", "/p/keys/server.pem.bak", "/p/keys/server.pem.swo", "/p/keys/server.pem.save.12", "/p/keys/server.pem.save.x", "/p/.env.~2~", "/p/.env.~~", "/h/id_rsa.~1~.bak", "/p/keys/a.PEM/inner",
        "/p/.git/config", "/p/.gitignore", "/p/a.git", "/h/id_rsa_work", "/h/id_rsa",
        "/p/config/credentials", "/p/config/credentials/x", "/p/myconfig/credentials",
        "/p/config/credentialsx", "/p/abc", "/p/ac", "/p/aXc/d", "/p/xAyBz", "/p/xz", "/",
    };
    size_t i, j;
    (void)state;
    for (i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
        struct sbx_protect one;
        regex_t re;
        int rc;
        char *lit = name_regex(patterns[i], &rc), *text;
        assert_non_null(lit);
        /* Strip #" and the closing quote. */
        text = lit + 2;
        text[strlen(text) - 1] = '\0';
        assert_int_equal(regcomp(&re, text, REG_EXTENDED | REG_NOSUB), 0);
        memset(&one, 0, sizeof one);
        one.pattern = (char *)patterns[i];
        one.kind = SANDBOX_PROTECT_ALL;
        one.targets = ~0;
        for (j = 0; j < sizeof paths / sizeof paths[0]; j++) {
            int by_regex = regexec(&re, paths[j], 0, NULL, 0) == 0;
            int by_matcher = sbx_protect_match(&one, 1, paths[j], 0) >= 0;
            if (by_regex != by_matcher)
                fail_msg("pattern %s path %s: regex %d, matcher %d", patterns[i], paths[j],
                         by_regex, by_matcher);
        }
        regfree(&re);
        free(lit);
    }
}

/* SANDBOX_PROTECT_GIT: the parts of .git that run code are denied by name,
 * the name .git itself exactly; the whole-.git rule is gone. */
static void test_git_writable_denies_only_its_code(void **state)
{
    sandbox_policy *p = protected_policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED);
    sbx_seatbelt_plan plan;
    (void)state;
    assert_int_equal(sandbox_policy_add_protected(p, ".git", SANDBOX_PROTECT_GIT), SANDBOX_OK);
    plan_for(p, cmd, sbx_macos_canon_textual, &plan);
    assert_null(strstr(plan.profile, "(regex #\"/[.][gG][iI][tT]" SBX_SBPL_COPY_SUFFIX "(/|$)\")"));
    assert_non_null(strstr(plan.profile, "(deny file-write* file-link file-clone (regex "
                                         "#\"/[.][gG][iI][tT]/[hH][oO][oO][kK][sS]"));
    assert_non_null(strstr(plan.profile, "#\"/[.][gG][iI][tT]/[cC][oO][nN][fF][iI][gG]" SBX_SBPL_COPY_SUFFIX));
    assert_non_null(strstr(plan.profile, "#\"/[.][gG][iI][tT]/[cC][oO][mM][mM][oO][nN][dD][iI][rR]"));
    assert_non_null(strstr(plan.profile, "(deny file-write* file-link file-clone (regex "
                                         "#\"/[.][gG][iI][tT]$\"))"));
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_explain_shows_protection_even_alone(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_error err;
    char *out = NULL;
    (void)state;
    assert_int_equal(setenv("HOME", "/Users/me", 1), 0);
    assert_int_equal(sandbox_policy_set_working_dir(p, "/Users/me/proj"), SANDBOX_OK);
    assert_int_equal(sandbox_policy_protect_defaults(p), SANDBOX_OK);
    assert_int_equal(sandbox_explain(p, cmd, SANDBOX_TARGET_MACOS, 1, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "\"protected_paths\":{\"blocked\":true,\"mechanism\":\"seatbelt\""));
    assert_non_null(strstr(out, "(regex #\\\"/[.][eE][nN][vV](~|[.]("));
    assert_null(strstr(out, "\"profile\":null"));
    sandbox_free(out);
    sandbox_policy_free(p);
}

/* ---- argv ---- */

static void test_argv_is_sandbox_exec_profile_params_then_command(void **state)
{
    static const char *const dash_cmd[] = {"-rf", "--", "x y", NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/proj");
    sbx_seatbelt_plan plan;
    size_t i;
    char **argv;
    (void)state;
    plan_for(p, dash_cmd, sbx_macos_canon_textual, &plan);
    assert_int_equal(plan.argc, 3 + 2 * 8 + 1 + 3);
    assert_string_equal(plan.argv[0], "/usr/bin/sandbox-exec");
    assert_string_equal(plan.argv[1], "-p");
    assert_string_equal(plan.argv[2], plan.profile);
    for (i = 0; i < plan.n_params; i++) {
        char want[256];
        snprintf(want, sizeof want, "%s=%s", plan.params[i].key, plan.params[i].value);
        assert_string_equal(plan.argv[3 + 2 * i], "-D");
        assert_string_equal(plan.argv[4 + 2 * i], want);
    }
    /* "--" before the command, so a command starting with '-' stays one. */
    assert_string_equal(plan.argv[19], "--");
    assert_string_equal(plan.argv[20], "-rf");
    assert_string_equal(plan.argv[21], "--");
    assert_string_equal(plan.argv[22], "x y");
    assert_null(plan.argv[23]);
    /* Detached argv is freed like sandbox_result_clear() does. */
    argv = sbx_seatbelt_take_argv(&plan);
    assert_null(plan.argv);
    for (i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

static void test_argv_with_no_command_ends_with_double_dash(void **state)
{
    static const char *const none[] = {NULL};
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_UNRESTRICTED, "/p");
    sbx_seatbelt_plan plan;
    (void)state;
    plan_for(p, none, sbx_macos_canon_textual, &plan);
    assert_int_equal(plan.argc, 4);
    assert_string_equal(plan.argv[3], "--");
    assert_null(plan.argv[4]);
    sbx_seatbelt_plan_free(&plan);
    sandbox_policy_free(p);
}

/* ---- the escaper ---- */

/* Read one SBPL string literal back: returns the decoded text, or NULL when
 * `lit` is not exactly one literal (unterminated, or text after the close). */
static char *read_literal(const char *lit)
{
    size_t n = strlen(lit), i, k = 0;
    char *out = malloc(n + 1);
    assert_non_null(out);
    if (lit[0] != '"')
        goto bad;
    for (i = 1; i < n; i++) {
        if (lit[i] == '\\') {
            if (++i >= n)
                goto bad;
            out[k++] = lit[i];
        } else if (lit[i] == '"') {
            if (i != n - 1)
                goto bad;
            out[k] = '\0';
            return out;
        } else {
            out[k++] = lit[i];
        }
    }
bad:
    free(out);
    return NULL;
}

static void test_escaper_round_trips_and_stays_one_literal(void **state)
{
    static const char *const ok[] = {
        "", "/plain", "a\"b", "\\", "\\\"", "\"\"\"", "x\\", "#\"re\"", "))(allow default)((",
        ";comment", "\xff\xfe\xc3\xa9", "\\\\\"\\",
    };
    size_t i;
    (void)state;
    for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        sbx_buf b;
        char *lit, *back;
        sbx_buf_init(&b);
        assert_int_equal(sbx_sbpl_string(&b, ok[i]), SANDBOX_OK);
        lit = sbx_buf_take(&b);
        assert_non_null(lit);
        back = read_literal(lit);
        assert_non_null(back);
        assert_string_equal(back, ok[i]);
        free(back);
        free(lit);
    }
}

static void test_escaper_refuses_control_bytes(void **state)
{
    static const char *const bad[] = {"a\nb", "\r", "\t", "x\x1b", "\x7f", "\x01"};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sbx_buf b;
        sbx_buf_init(&b);
        assert_int_equal(sbx_sbpl_string(&b, bad[i]), SANDBOX_E_INVALID);
        assert_int_equal(b.len, 0);
        sbx_buf_free(&b);
    }
}

/* ---- explain ---- */

static void test_explain_json_carries_profile_params_and_argv(void **state)
{
    sandbox_policy *p = policy(SANDBOX_NETWORK_DENY, SANDBOX_FS_CONFINED, "/Users/me/a\"b\n");
    sandbox_error err;
    char *out = NULL;
    (void)state;
    assert_int_equal(sandbox_explain(p, cmd, SANDBOX_TARGET_MACOS, 1, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "\"target\":\"macos\""));
    assert_non_null(strstr(out, "\"profile\":\"(version 1)\\u000a"));
    assert_non_null(strstr(out, "\"params\":{\"WRITABLE_ROOT_0\":\"/Users/me/a\\\"b\\u000a\""));
    assert_non_null(strstr(out, "\"argv\":[\"/usr/bin/sandbox-exec\",\"-p\",\"(version 1)"));
    assert_non_null(strstr(out, "\"--\",\"echo\",\"hi\"]}"));
    sandbox_free(out);
    assert_int_equal(sandbox_explain(p, cmd, SANDBOX_TARGET_MACOS, 0, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "target:      macos"));
    /* A newline in a path is shown escaped, never as a forged line. */
    assert_non_null(strstr(out, "\"/Users/me/a\\\"b\\u000a\""));
    sandbox_free(out);
    sandbox_policy_free(p);
}

static void test_explain_all_off_runs_argv_unchanged(void **state)
{
    sandbox_policy *p = sandbox_policy_new();
    sandbox_error err;
    char *out = NULL;
    (void)state;
    assert_int_equal(sandbox_policy_set_working_dir(p, "/w"), SANDBOX_OK);
    assert_int_equal(sandbox_explain(p, cmd, SANDBOX_TARGET_MACOS, 1, &out, &err), SANDBOX_OK);
    assert_non_null(strstr(out, "\"profile\":null"));
    assert_non_null(strstr(out, "\"argv\":[\"echo\",\"hi\"]"));
    sandbox_free(out);
    sandbox_policy_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_network_only),
        cmocka_unit_test(test_golden_confined_only),
        cmocka_unit_test(test_golden_network_and_confined),
        cmocka_unit_test(test_golden_read_only_is_fixed_and_has_no_params),
        cmocka_unit_test(test_read_only_refuses_unix_sockets_and_writes),
        cmocka_unit_test(test_internet_only_allows_outbound_ip_but_not_loopback),
        cmocka_unit_test(test_every_mode_is_deny_default),
        cmocka_unit_test(test_escape_routes_are_denied_after_every_allowance),
        cmocka_unit_test(test_a_class_refuses_unix_sockets_but_the_resolvers),
        cmocka_unit_test(test_user_cache_is_writable_only_when_confined),
        cmocka_unit_test(test_mach_services_listed_are_the_ones_allowed),
        cmocka_unit_test(test_firmlink_map_is_textual_and_exact),
        cmocka_unit_test(test_each_root_by_literal_and_canonical_deduplicated),
        cmocka_unit_test(test_canonical_and_literal_roots_collapse),
        cmocka_unit_test(test_canonicalizer_output_is_used_and_its_failure_fails_closed),
        cmocka_unit_test(test_every_root_kind_is_rendered_generically),
        cmocka_unit_test(test_hostile_paths_never_change_the_profile),
        cmocka_unit_test(test_golden_default_protected_set),
        cmocka_unit_test(test_protection_is_rendered_in_every_mode),
        cmocka_unit_test(test_home_paths_by_both_spellings_with_parents),
        cmocka_unit_test(test_unrenderable_home_path_keeps_its_exact_rules),
        cmocka_unit_test(test_name_regex_shapes),
        cmocka_unit_test(test_name_regex_refuses_hostile_patterns),
        cmocka_unit_test(test_unrenderable_pattern_fails_the_plan),
        cmocka_unit_test(test_name_regex_agrees_with_the_matcher),
        cmocka_unit_test(test_git_writable_denies_only_its_code),
        cmocka_unit_test(test_explain_shows_protection_even_alone),
        cmocka_unit_test(test_argv_is_sandbox_exec_profile_params_then_command),
        cmocka_unit_test(test_argv_with_no_command_ends_with_double_dash),
        cmocka_unit_test(test_escaper_round_trips_and_stays_one_literal),
        cmocka_unit_test(test_escaper_refuses_control_bytes),
        cmocka_unit_test(test_explain_json_carries_profile_params_and_argv),
        cmocka_unit_test(test_explain_all_off_runs_argv_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
