/* The portable Seatbelt renderer: sbx_resolved -> SBPL profile, -D parameters
 * and the sandbox-exec argv. No system calls except realpath(3) on macOS.
 *
 * Every mode is deny-default (docs/macos.md). The profile is assembled from
 * sections, in this fixed order, because in SBPL the last matching rule wins:
 *   1. base         (deny default), then what every mode allows (spec 000's
 *                   read-only list) and the Mach services of the mode
 *   2. toolchain    what ordinary tools need beyond that (not read-only)
 *   3. network      what the network mode grants (not read-only)
 *   4. writes       everywhere, or beneath every root (not read-only)
 *   5. never        launchd jobs, LaunchServices, Apple events, keychain
 *   6. deny-exec    tools that are never run (spec 004)
 *   7. protected    denials that must beat every allowance above (spec 003)
 * A new network mode is one more case in render_network(); protected paths
 * are the rules of render_protected(), after everything they override. */
#define _XOPEN_SOURCE 700 /* POSIX.1-2008 with XSI: realpath(path, NULL) */
#if defined(__APPLE__)
#  define _DARWIN_C_SOURCE
#endif
#include "seatbelt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__APPLE__)
#  include <unistd.h>
#endif

/* ---- the one escaper ---- */

int sbx_sbpl_string(sbx_buf *b, const char *s)
{
    const unsigned char *p;
    for (p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return SANDBOX_E_INVALID;
    sbx_buf_add(b, "\"");
    for (p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sbx_buf_add(b, "\\");
        sbx_buf_addn(b, (const char *)p, 1);
    }
    sbx_buf_add(b, "\"");
    return SANDBOX_OK;
}

/* ---- the one regex builder (protected name patterns) ---- */

/* Punctuation that may appear in a pattern component. Each is rendered inside
 * a bracket, [c], where none of them is special in an ERE. Deliberately
 * missing: '"' (it would end the #"..." literal, which has no escapes), '\'
 * (an escape in some regex dialects, literal in others), '[', ']' and '^'
 * (bracket syntax), and '/' (the component separator, handled by the caller). */
static const char regex_punct[] = " !#$%&'()+,-.:;<=>@_`{|}~";

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* 1 when the component around p (p points at a '*') is made of '*' only. */
static int only_stars(const unsigned char *start, const unsigned char *p)
{
    const unsigned char *q;
    if (p != start && p[-1] != '/' && p[-1] != '\\')
        return 0;
    for (q = p; *q == '*'; q++)
        ;
    return *q == '\0' || *q == '/' || *q == '\\';
}

/* 1 when every byte of s may be rendered by emit_folded(). */
static int foldable(const char *s)
{
    const unsigned char *p;
    for (p = (const unsigned char *)s; *p; p++) {
        if (is_alpha(*p) || (*p >= '0' && *p <= '9') || *p == '*' || *p == '?' || *p == '/' ||
            *p == '\\')
            continue;
        if (*p >= 0x80 || !strchr(regex_punct, *p))
            return 0;
    }
    return 1;
}

/* Render s case-folded: [aA] for a letter, [c] for punctuation, '/' for a
 * separator, the globs as one-component regexes. Nothing else can occur
 * (foldable() said so), so no text of s reaches the profile unbracketed. */
static void emit_folded(sbx_buf *b, const char *s)
{
    const unsigned char *p;
    for (p = (const unsigned char *)s; *p; p++) {
        char one[5];
        if (*p == '/' || *p == '\\') {
            /* Components are whole: "a//b" cannot occur (the policy refuses
             * empty components), so one separator is rendered as one '/'. */
            sbx_buf_add(b, "/");
        } else if (*p == '*' && only_stars((const unsigned char *)s, p)) {
            /* A component of stars alone still names something: never the
             * empty "component" of "/" or "a//b". */
            sbx_buf_add(b, "[^/][^/]*");
            while (p[1] == '*')
                p++;
        } else if (*p == '*') {
            sbx_buf_add(b, "[^/]*"); /* within one component, never across '/' */
        } else if (*p == '?') {
            sbx_buf_add(b, "[^/]");
        } else if (is_alpha(*p)) {
            /* Case-insensitive by construction: the default macOS file system
             * treats .ENV as .env, and SBPL regexes have no case flag. */
            one[0] = '[';
            one[1] = (char)(*p >= 'a' ? *p : *p + ('a' - 'A'));
            one[2] = (char)(*p >= 'a' ? *p - ('a' - 'A') : *p);
            one[3] = ']';
            one[4] = '\0';
            sbx_buf_add(b, one);
        } else if (*p >= '0' && *p <= '9') {
            sbx_buf_addn(b, (const char *)p, 1);
        } else {
            one[0] = '[';
            one[1] = (char)*p;
            one[2] = ']';
            one[3] = '\0';
            sbx_buf_add(b, one);
        }
    }
}

/* The builder. anchor NULL and depth < 0: the components anywhere
 * ("/C1/C2(/|$)"); anchor NULL and depth >= 0: exactly `depth` components
 * below the root come first ("^/[^/]+/[^/]+/C1(/|$)" for 2); anchor given:
 * the anchor itself, case-folded like the pattern ("^/[uU][sS].../C1"), so
 * /users/ME/.kube matches the rule for /Users/me/.kube. An anchor of "" is
 * the root. `leaf`: the name must be the last component ("$" instead of
 * "(/|$)"). A leading '/' of the pattern is dropped. */
static int name_regex_at(sbx_buf *b, const char *pattern, const char *anchor, int depth, int leaf)
{
    size_t mark = b->len;
    if (!pattern || !pattern[0])
        return SANDBOX_E_INVALID;
    if (pattern[0] == '~' && pattern[1] == '/')
        pattern += 2;
    if (anchor && anchor[0] == '/')
        anchor++;
    /* Validate everything before appending anything: a refused pattern must
     * leave no partial rule behind. */
    if (!pattern[0] || !foldable(pattern) || (anchor && (!foldable(anchor) || strpbrk(anchor, "*?"))))
        return SANDBOX_E_INVALID;
    sbx_buf_add(b, anchor || depth >= 0 ? "#\"^" : "#\"");
    if (anchor && anchor[0]) {
        sbx_buf_add(b, "/");
        emit_folded(b, anchor);
    }
    for (; !anchor && depth > 0; depth--)
        sbx_buf_add(b, "/[^/][^/]*");
    sbx_buf_add(b, "/");
    emit_folded(b, pattern);
    /* Copies match like the original (.env~, id_rsa.bak: sbx_protect_match_tail),
     * then the name itself and everything beneath it; a leaf (a program name) exactly. */
    sbx_buf_add(b, leaf ? "$\"" : SBX_SBPL_COPY_SUFFIX "(/|$)\"");
    if (b->oom) {
        b->len = mark;
        return SANDBOX_E_NOMEM;
    }
    return SANDBOX_OK;
}

int sbx_sbpl_name_regex(sbx_buf *b, const char *pattern)
{
    return name_regex_at(b, pattern, NULL, -1, 0);
}

/* Our own constants go through the escaper too, so there is exactly one way a
 * string literal enters a profile. They never contain control bytes. */
static void add_literal(sbx_buf *b, const char *s)
{
    if (sbx_sbpl_string(b, s) != SANDBOX_OK)
        b->oom = 1; /* unreachable for our constants; poison the buffer rather than emit */
}

/* ---- canonical paths ---- */

/* The top-level names that are symlinks into /private on macOS. TMPDIR
 * (/var/folders/...) is covered by /var. */
static const char *const firmlinked[] = {"/tmp", "/var", "/etc"};

int sbx_macos_canon_textual(const char *path, char **out, sandbox_error *err)
{
    size_t i;
    *out = NULL;
    for (i = 0; i < sizeof firmlinked / sizeof firmlinked[0]; i++) {
        size_t n = strlen(firmlinked[i]);
        if (strncmp(path, firmlinked[i], n) == 0 && (path[n] == '\0' || path[n] == '/')) {
            size_t len = strlen(path);
            char *s = malloc(sizeof "/private" - 1 + len + 1);
            if (!s)
                return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while canonicalizing");
            memcpy(s, "/private", sizeof "/private" - 1);
            memcpy(s + sizeof "/private" - 1, path, len + 1);
            *out = s;
            return SANDBOX_OK;
        }
    }
    *out = sbx_strdup(path);
    if (!*out)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while canonicalizing");
    return SANDBOX_OK;
}

int sbx_macos_canon_host(const char *path, char **out, sandbox_error *err)
{
#if defined(__APPLE__)
    /* realpath(path, NULL) allocates: no PATH_MAX buffer to overflow. */
    *out = realpath(path, NULL);
    if (*out)
        return SANDBOX_OK;
    if (errno == ENOMEM)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while canonicalizing");
    /* A root that does not exist yet (a build output dir) stays writable once
     * created; the kernel will then report it under its firmlinked name. Any
     * other failure (EACCES, ELOOP) means we cannot know what the kernel will
     * see, so refuse rather than guess. */
    if (errno == ENOENT || errno == ENOTDIR)
        return sbx_macos_canon_textual(path, out, err);
    return sbx_fail(err, SANDBOX_E_PATH, errno, "cannot resolve the writable directory '%s': %s",
                    path, strerror(errno));
#else
    return sbx_macos_canon_textual(path, out, err);
#endif
}

/* ---- plan ---- */

void sbx_seatbelt_plan_free(sbx_seatbelt_plan *plan)
{
    size_t i;
    if (!plan)
        return;
    for (i = 0; i < plan->n_roots; i++) {
        free(plan->roots[i].path);
        free(plan->roots[i].canonical);
    }
    free(plan->roots);
    for (i = 0; i < plan->n_protected; i++) {
        free(plan->protected_paths[i].path);
        free(plan->protected_paths[i].canonical);
    }
    free(plan->protected_paths);
    for (i = 0; i < plan->n_params; i++) {
        free(plan->params[i].key);
        free(plan->params[i].value);
    }
    free(plan->params);
    free(plan->profile);
    if (plan->argv) {
        for (i = 0; plan->argv[i]; i++)
            free(plan->argv[i]);
        free(plan->argv);
    }
    memset(plan, 0, sizeof *plan);
}

char **sbx_seatbelt_take_argv(sbx_seatbelt_plan *plan)
{
    char **argv = plan->argv;
    plan->argv = NULL;
    plan->argc = 0;
    return argv;
}

static const char *role_prefix(int role)
{
    switch (role) {
    case SBX_PARAM_PROTECTED: return "PROTECTED_";
    case SBX_PARAM_PROTECTED_PARENT: return "PROTECTED_PARENT_";
    case SBX_PARAM_HOME: return "HOME_";
    case SBX_PARAM_TTY: return "TTY_";
    case SBX_PARAM_READABLE: return "READABLE_ROOT_";
    default: return "WRITABLE_ROOT_";
    }
}

/* Add `value` as a parameter of `role` unless an earlier one of the same role
 * has the same text. Keys are numbered per role, in order of first use. */
static int add_param(sbx_seatbelt_plan *plan, const char *value, int role)
{
    struct sbx_sbpl_param *grown;
    char key[48];
    size_t i, n_role = 0;
    for (i = 0; i < plan->n_params; i++) {
        if (plan->params[i].role != role)
            continue;
        if (strcmp(plan->params[i].value, value) == 0)
            return SANDBOX_OK;
        n_role++;
    }
    grown = realloc(plan->params, (plan->n_params + 1) * sizeof *grown);
    if (!grown)
        return SANDBOX_E_NOMEM;
    plan->params = grown;
    snprintf(key, sizeof key, "%s%zu", role_prefix(role), n_role);
    grown[plan->n_params].key = sbx_strdup(key);
    grown[plan->n_params].value = sbx_strdup(value);
    grown[plan->n_params].role = role;
    plan->n_params++;
    if (!grown[plan->n_params - 1].key || !grown[plan->n_params - 1].value)
        return SANDBOX_E_NOMEM;
    return SANDBOX_OK;
}

/* Append " (FILTER (param "K"))" for every parameter of `role`, one a line. */
static size_t add_param_filters(sbx_buf *b, const sbx_seatbelt_plan *plan, int role,
                                const char *filter)
{
    size_t i, n = 0;
    for (i = 0; i < plan->n_params; i++) {
        if (plan->params[i].role != role)
            continue;
        sbx_buf_printf(b, "\n  (%s (param ", filter);
        add_literal(b, plan->params[i].key);
        sbx_buf_add(b, "))");
        n++;
    }
    return n;
}

/* ---- profile sections ---- */

/* Every mode starts from (deny default): with Mach IPC a command can change
 * state through a daemon without writing a file itself (launchd jobs,
 * LaunchServices, Apple events, the keychain), so an allow-default profile
 * cannot keep any promise beyond files and sockets (spec 003, 004). */

/* The Mach services a profile may look up, and when. Rendered from this one
 * table and listed by --explain, so the two cannot disagree. */
enum mach_when {
    MACH_ALWAYS,    /* every mode, read-only included (spec 000's two services) */
    MACH_TOOLCHAIN, /* every mode but read-only */
    MACH_NETWORK,   /* the network is granted (allow or internet-only) */
    MACH_FULL_NET   /* the network is not restricted at all */
};

static const struct sbx_mach_service {
    const char *name;
    int when; /* enum mach_when */
} mach_services[] = {
    /* getpwuid, getgrgid, group membership: whoami, id, ssh, git */
    {"com.apple.system.opendirectoryd.libinfo", MACH_ALWAYS},
    {"com.apple.system.opendirectoryd.membership", MACH_ALWAYS},
    /* preference reads; cfprefsd refuses writes without user-preference-write */
    {"com.apple.cfprefsd.daemon", MACH_ALWAYS},
    {"com.apple.cfprefsd.agent", MACH_ALWAYS},
    /* os_log and asl: a tool that logs must not fail for it */
    {"com.apple.logd", MACH_TOOLCHAIN},
    {"com.apple.system.logger", MACH_TOOLCHAIN},
    /* notify(3): libc and CoreFoundation wait on time-zone and config changes */
    {"com.apple.system.notification_center", MACH_TOOLCHAIN},
    /* confstr(_CS_DARWIN_USER_{TEMP,CACHE}_DIR) asks dirhelper for the paths */
    {"com.apple.bsd.dirhelper", MACH_TOOLCHAIN},
    /* DNS by the resolver's Mach door, only when the network is granted */
    {"com.apple.dnssd.service", MACH_NETWORK},
    {"com.apple.SystemConfiguration.DNSConfiguration", MACH_NETWORK},
    {"com.apple.SystemConfiguration.configd", MACH_NETWORK},
    /* TLS certificate evaluation (Security.framework's SecTrust: Go, Swift) */
    {"com.apple.trustd.agent", MACH_NETWORK},
    {"com.apple.ocspd", MACH_NETWORK},
    /* Network.framework's path evaluation (URLSession); it connects for the
     * caller, so only when no address filter has to hold */
    {"com.apple.networkd", MACH_FULL_NET},
};

static int network_granted(const sbx_resolved *r)
{
    return r->filesystem != SANDBOX_FS_READ_ONLY && r->network != SANDBOX_NETWORK_DENY;
}

static int mach_allowed(const sbx_resolved *r, int when)
{
    switch (when) {
    case MACH_ALWAYS: return 1;
    case MACH_TOOLCHAIN: return r->filesystem != SANDBOX_FS_READ_ONLY;
    case MACH_NETWORK: return network_granted(r);
    default: return network_granted(r) && r->network == SANDBOX_NETWORK_ALLOW;
    }
}

size_t sbx_seatbelt_mach_services(const sbx_resolved *r, const char **out, size_t cap)
{
    size_t i, n = 0;
    for (i = 0; i < sizeof mach_services / sizeof mach_services[0]; i++) {
        if (!mach_allowed(r, mach_services[i].when))
            continue;
        if (n < cap)
            out[n] = mach_services[i].name;
        n++;
    }
    return n;
}

static void render_mach(sbx_buf *b, const sbx_resolved *r)
{
    size_t i;
    sbx_buf_add(b, "; Mach services: user and group lookups, preference reads; with writes,\n"
                   "; logging, notifications and dirhelper; with a network grant, DNS and TLS\n"
                   "(allow mach-lookup");
    for (i = 0; i < sizeof mach_services / sizeof mach_services[0]; i++) {
        if (!mach_allowed(r, mach_services[i].when))
            continue;
        sbx_buf_add(b, "\n  (global-name ");
        add_literal(b, mach_services[i].name);
        sbx_buf_add(b, ")");
    }
    sbx_buf_add(b, ")\n(allow user-preference-read)\n");
}

/* Terminals. Every pty is /dev/ttysN, and the other terminals of the user
 * (another Terminal tab, an ssh session, tmux) are ptys too: readable,
 * writable and ioctl-able (TIOCSTI types into them) if the profile only
 * named the pattern. So all of them are refused, and then these given back:
 *  - /dev/tty, which the kernel resolves to the command's own controlling
 *    terminal;
 *  - the ptys made inside the sandbox (openpty, script, expect): Seatbelt
 *    gives them the com.apple.sandbox.pty extension;
 *  - the terminal the command inherited on fds 0-2, by its name (TTY_N,
 *    ttyname(3) at plan time on the Mac). An inherited descriptor is already
 *    open, so reads and writes on it are not checked again, but an ioctl is
 *    (isatty's TIOCGETA), and tools reopen ttyname(0).
 * Read-only gets reads and writes but no ioctl (spec 000: no ioctls).
 * Rendered after the writable roots, which include /dev. */
static void render_ttys(sbx_buf *b, const sbx_resolved *r, const sbx_seatbelt_plan *plan)
{
    int ioctl = r->filesystem != SANDBOX_FS_READ_ONLY;
    sbx_buf_add(b, "; other terminals' ptys: not read, written or ioctl'ed\n"
                   "(deny file-read* file-write* file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n");
    sbx_buf_add(b, ioctl ? "; this command's terminal and the ptys it makes; ioctls so isatty() works\n"
                           "(allow file-read* file-write-data file-ioctl"
                         : "; this command's terminal and the ptys it makes, without ioctls\n"
                           "(allow file-read* file-write-data");
    sbx_buf_add(b, "\n  (literal ");
    add_literal(b, "/dev/tty");
    sbx_buf_add(b, ")\n  (require-all (regex #\"^/dev/ttys[0-9]+$\") (extension ");
    add_literal(b, "com.apple.sandbox.pty");
    sbx_buf_add(b, "))");
    add_param_filters(b, plan, SBX_PARAM_TTY, "literal");
    if (ioctl) {
        sbx_buf_add(b, "\n  (literal ");
        add_literal(b, "/dev/ptmx");
        sbx_buf_add(b, ")");
    }
    sbx_buf_add(b, ")\n");
}

/* The devices a class reads (the terminals are render_ttys'). */
static const char *const read_devices[] = {
    "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper",
    "/dev/autofs_nowait", "/dev/stdin", "/dev/stdout", "/dev/stderr",
};

/* What no class reads although an OS tree holds it: the system keychains,
 * the password database, sudo's rules, the SSH host keys, the auto-login
 * password and Kerberos keys, and the data that services installed by
 * Homebrew or MacPorts keep in their var (databases, a redis dump): root
 * reads them all by ownership otherwise (review of issue 28). */
static const char *const read_never_literal[] = {
    "/private/etc/master.passwd", "/private/etc/sudoers", "/private/etc/spwd.db",
    "/private/etc/kcpassword",    "/private/etc/krb5.keytab",
};
static const char *const read_never_subpath[] = {"/Library/Keychains", "/private/etc/sudoers.d",
                                                 "/opt/homebrew/var", "/opt/local/var"};

/* A class confines reads (src/reads.c): metadata everywhere, since stat,
 * realpath and getcwd walk every parent, and the contents of the OS trees,
 * the read roots and the writable roots only. Seatbelt's literal filter
 * names one path, so "/" may be listed without its subtree. */
static void render_reads(sbx_buf *b, const sbx_resolved *r, const sbx_seatbelt_plan *plan)
{
    size_t i;
    sbx_buf_add(b, "; reads: the class reads the OS, its toolchains and roots only; metadata\n"
                   "; (stat, realpath, getcwd) everywhere\n(allow file-read-metadata)\n"
                   "(allow file-read*\n  (literal ");
    add_literal(b, "/");
    sbx_buf_add(b, ")");
    for (i = 0; i < r->n_reads; i++) {
        if (!r->reads[i].fixed)
            continue;
        sbx_buf_add(b, "\n  (subpath ");
        add_literal(b, r->reads[i].path);
        sbx_buf_add(b, ")");
    }
    for (i = 0; i < sizeof read_devices / sizeof read_devices[0]; i++) {
        sbx_buf_add(b, "\n  (literal ");
        add_literal(b, read_devices[i]);
        sbx_buf_add(b, ")");
    }
    sbx_buf_add(b, "\n  (regex #\"^/dev/fd(/[0-9]+)?$\")");
    add_param_filters(b, plan, SBX_PARAM_READABLE, "subpath");
    add_param_filters(b, plan, SBX_PARAM_WRITABLE, "subpath");
    sbx_buf_add(b, ")\n; never read, though an OS tree holds it\n(deny file-read*");
    for (i = 0; i < sizeof read_never_literal / sizeof read_never_literal[0]; i++) {
        sbx_buf_add(b, "\n  (literal ");
        add_literal(b, read_never_literal[i]);
        sbx_buf_add(b, ")");
    }
    for (i = 0; i < sizeof read_never_subpath / sizeof read_never_subpath[0]; i++) {
        sbx_buf_add(b, "\n  (subpath ");
        add_literal(b, read_never_subpath[i]);
        sbx_buf_add(b, ")");
    }
    /* /dev is a writable root on macOS (docs/classes.md); the disks, packet
     * capture (bpf), the file-system event stream, the kernel log and the
     * audit pipe are not read through it (each is root's by its mode). */
    sbx_buf_add(b, "\n  (regex #\"^/private/etc/ssh/ssh_host_[^/]*_key$\")"
                   "\n  (regex #\"^/dev/r?disk[0-9]\")"
                   "\n  (regex #\"^/dev/(bpf[0-9]*|fsevents|klog|auditpipe|auditsessions|"
                   "pf|pfm|mem|kmem)$\"))\n");
}

/* What every mode allows, read-only included: spec 000's read-only list. */
static void render_base(sbx_buf *b, const sbx_resolved *r, const sbx_seatbelt_plan *plan)
{
    sbx_buf_add(b, "(deny default)\n");
    sbx_buf_add(b, "; running programs; children inherit this profile\n"
                   "(allow process-exec* process-fork)\n"
                   "; dyld maps every library a program links\n"
                   "(allow file-map-executable)\n");
    if (r->reads_confined)
        render_reads(b, r, plan);
    else
        sbx_buf_add(b, "; every file read (protected paths are taken away last)\n"
                       "(allow file-read*)\n");
    sbx_buf_add(b, "; sysctl reads: CPU count, OS version, kern.proc for ps\n(allow sysctl-read)\n");
    /* Outside the sandbox nothing may be signalled, traced or inspected:
     * other apps' processes are spec 004's "never". */
    sbx_buf_add(b, "; process information and signals, only within this sandbox\n"
                   "(allow process-info* (target same-sandbox))\n"
                   "(allow signal (target same-sandbox))\n");
    /* file-write-data, not file-write*: the devices can be written, but not
     * created, unlinked, renamed, chmod'ed or given extended attributes. The
     * /dev/fd names reopen a descriptor the command already holds. */
    sbx_buf_add(b, "; writes to the discard devices and the command's own descriptors\n"
                   "(allow file-write-data\n  (literal ");
    add_literal(b, "/dev/null");
    sbx_buf_add(b, ")\n  (literal ");
    add_literal(b, "/dev/zero");
    sbx_buf_add(b, ")\n  (literal ");
    add_literal(b, "/dev/stdout");
    sbx_buf_add(b, ")\n  (literal ");
    add_literal(b, "/dev/stderr");
    sbx_buf_add(b, ")\n  (regex #\"^/dev/fd/[0-9]+$\"))\n");
    render_mach(b, r);
}

/* What an ordinary toolchain needs beyond spec 000's read-only list; every
 * mode but read-only, which refuses IPC and ioctls (spec 000). */
static void render_toolchain(sbx_buf *b)
{
    sbx_buf_add(b, "; new pseudo-terminals (script, expect, test runners)\n(allow pseudo-tty)\n");
    sbx_buf_add(b, "; dyld registers USDT probes (node, python, ruby) through dtracehelper\n"
                   "(allow file-ioctl file-write-data (literal ");
    add_literal(b, "/dev/dtracehelper");
    sbx_buf_add(b, "))\n");
    sbx_buf_add(b, "; host_processor_info(): Node's os.cpus(), make -j, build tools\n"
                   "(allow mach-host*)\n");
    /* POSIX semaphore and shm names are global: Seatbelt cannot scope them to
     * this sandbox (docs/macos.md). */
    sbx_buf_add(b, "; POSIX semaphores and shared memory: Python multiprocessing, compilers\n"
                   "(allow ipc-posix-sem ipc-posix-shm)\n");
    sbx_buf_add(b, "; the JVM reads its CPU type through a sysctl that counts as a write\n"
                   "(allow sysctl-write (sysctl-name ");
    add_literal(b, "kern.grade_cputype");
    sbx_buf_add(b, "))\n");
}

/* The resolver's unix socket, under both spellings of /var. */
static void add_dns_socket_filters(sbx_buf *b)
{
    sbx_buf_add(b, "\n  (remote unix-socket (path-literal ");
    add_literal(b, "/var/run/mDNSResponder");
    sbx_buf_add(b, "))\n  (remote unix-socket (path-literal ");
    add_literal(b, "/private/var/run/mDNSResponder");
    sbx_buf_add(b, "))");
}

/* socket(AF_UNIX) is a system-socket operation under (deny default): without
 * this, a connect that the network rules allow never gets a socket. */
static void add_unix_socket_creation(sbx_buf *b)
{
    sbx_buf_add(b, "; creating an AF_UNIX socket at all\n"
                   "(allow system-socket (socket-domain AF_UNIX))\n");
}

/* AF_UNIX is spared when no class is chosen and the network is not
 * internet-only (spec 000: ssh-agent, language servers, a database's local
 * socket); under a class or --internet-only ("this machine, no": spec 004;
 * docker.sock is root on the host) only the resolver's socket, and that only
 * with a network grant. */
static int render_network(sbx_buf *b, const sbx_resolved *r, sandbox_error *err)
{
    int spare_unix = !r->class_chosen && r->network != SANDBOX_NETWORK_INTERNET_ONLY;
    switch (r->network) {
    case SANDBOX_NETWORK_ALLOW:
        sbx_buf_add(b, "; network: not restricted\n(allow network* system-socket)\n");
        if (!spare_unix)
            sbx_buf_add(b, "; the class refuses unix sockets but the resolver's\n"
                           "(deny network* (local unix-socket) (remote unix-socket))\n");
        break;
    case SANDBOX_NETWORK_DENY:
        if (spare_unix) {
            sbx_buf_add(b, "; network: no IP; local AF_UNIX is spared\n"
                           "(allow network* (local unix-socket) (remote unix-socket))\n");
            add_unix_socket_creation(b);
        } else {
            sbx_buf_add(b, "; network: none, unix sockets included (the class)\n");
        }
        break;
    case SANDBOX_NETWORK_INTERNET_ONLY:
        /* Spec 004: the internet yes, this machine no. Seatbelt's address
         * filters name only "*" or "localhost" as the host, so 0.0.0.0,
         * the rest of 127.0.0.0/8, ::ffff:127.0.0.1 and the Mac's own LAN
         * address cannot be named here (docs/macos.md, self-test). Unix
         * sockets are this machine too: only the resolver's. */
        sbx_buf_add(b, "; network: the internet only; loopback and unix sockets are refused,\n"
                       "; nothing may listen\n"
                       "(allow network-outbound (remote ip \"*:*\"))\n"
                       "(deny network-outbound (remote ip \"localhost:*\"))\n");
        break;
    default:
        return sbx_fail(err, SANDBOX_E_INVALID, 0, "unknown network setting %d", r->network);
    }
    if (network_granted(r) && !spare_unix) {
        sbx_buf_add(b, "; the resolver's socket, for the granted network\n(allow network-outbound");
        add_dns_socket_filters(b);
        sbx_buf_add(b, ")\n");
        if (r->network != SANDBOX_NETWORK_ALLOW)
            add_unix_socket_creation(b);
    } else if (!network_granted(r) && spare_unix) {
        /* With no network a name lookup has no use, but a query still
         * leaves the machine and can carry data out (DNS exfiltration). */
        sbx_buf_add(b, "; except DNS, which would carry data out through the resolver\n"
                       "(deny network-outbound");
        add_dns_socket_filters(b);
        sbx_buf_add(b, ")\n");
    }
    return SANDBOX_OK;
}

static void render_writes(sbx_buf *b, const sbx_resolved *r, const sbx_seatbelt_plan *plan)
{
    size_t i, n = 0;
    if (r->filesystem == SANDBOX_FS_UNRESTRICTED) {
        /* Spec 000: writes are confined only when asked. */
        sbx_buf_add(b, "; filesystem: writes are not confined\n"
                       "(allow file-write* file-link file-clone)\n");
        return;
    }
    for (i = 0; i < plan->n_params; i++)
        n += plan->params[i].role == SBX_PARAM_WRITABLE;
    sbx_buf_add(b, "; filesystem: writes only beneath the writable roots, each by its literal\n"
                   "; and its canonical path (the kernel reports /tmp as /private/tmp)\n");
    if (n == 0)
        return;
    sbx_buf_add(b, "(allow file-write*");
    add_param_filters(b, plan, SBX_PARAM_WRITABLE, "subpath");
    sbx_buf_add(b, ")\n");
    /* No file-link and no file-clone: (deny default) refuses both. XNU
     * makes one MAC check for each, on one of the two paths only (linkat:
     * mac_vnode_check_link; clonefile: mac_vnode_check_clone, with no
     * create check on the destination). Whichever path Seatbelt judges,
     * allowing them by path leaves a direction open: a clone or a link of a
     * project file into ~/Library/LaunchAgents or ~/.zshenv (escape), or a
     * link of ~/.zshrc into the project, then written (escape), or of a
     * secret, then read (leak). ln fails; cp -c, git, pnpm and ccache fall
     * back to copies (docs/macos.md). */
    sbx_buf_add(b, "; no hard links and no clones: XNU checks only one of their two paths\n");
}

/* Mach services that hand work to something outside the sandbox or reach a
 * secret. Refused by (deny default) already; named again after every
 * allowance so that no later allowance can give them back. */
static const char *const never_services[] = {
    /* LaunchServices: open, lsopen, an app started outside the sandbox */
    "com.apple.coreservices.launchservicesd",
    "com.apple.CoreServices.coreservicesd",
    /* Apple events: osascript or a copy of it drives other apps */
    "com.apple.coreservices.appleevents",
    /* launchd job submission beyond job-creation: SMJobSubmit, login items */
    "com.apple.xpc.smd",
    "com.apple.backgroundtaskmanagementagent",
    /* the keychain and the other secret keepers */
    "com.apple.SecurityServer",
    "com.apple.secd",
    "com.apple.pasteboard.1",
};
static const char *const never_prefixes[] = {
    "com.apple.lsd.",
    "com.apple.securityd",
    "com.apple.security.",
    "com.apple.ctkd.",
    /* accessibility: another app's UI driven like Apple events */
    "com.apple.axserver",
};

static void render_never(sbx_buf *b, const sbx_resolved *r)
{
    size_t i;
    sbx_buf_add(b, "; never, in any mode: launchd jobs, LaunchServices, Apple events\n"
                   "(deny job-creation lsopen appleevent-send)\n"
                   "; nor the services behind them, the keychain, or the pasteboard\n"
                   "(deny mach-lookup");
    for (i = 0; i < sizeof never_services / sizeof never_services[0]; i++) {
        sbx_buf_add(b, "\n  (global-name ");
        add_literal(b, never_services[i]);
        sbx_buf_add(b, ")");
    }
    for (i = 0; i < sizeof never_prefixes / sizeof never_prefixes[0]; i++) {
        sbx_buf_add(b, "\n  (global-name-prefix ");
        add_literal(b, never_prefixes[i]);
        sbx_buf_add(b, ")");
    }
    if (!network_granted(r)) {
        sbx_buf_add(b, "\n  (global-name ");
        add_literal(b, "com.apple.dnssd.service");
        sbx_buf_add(b, ")");
    }
    sbx_buf_add(b, ")\n");
}

/* The operations a protected kind takes away. Reads and writes for secrets;
 * for .git only writes, so git status and git log keep working while hooks
 * and config cannot be planted (spec 003). */
static const char *deny_ops(int kind)
{
    /* file-link and file-clone are operations of their own: without them
     * `ln ~/.aws/credentials p/c` or `cp -c` would give a secret a second,
     * unprotected name. For .git, cloning onto a hook (`cp -c x
     * .git/hooks/pre-commit`) is a write the kernel checks only as a clone. */
    return kind == SANDBOX_PROTECT_WRITE ? "file-write* file-link file-clone"
                                         : "file-read* file-write* file-link file-clone";
}

static int has_glob(const char *s)
{
    return strpbrk(s, "*?") != NULL;
}

static int regex_fail(sandbox_error *err, size_t index, const char *pattern)
{
    const unsigned char *p;
    const char *at = "an empty pattern";
    char what[64] = "";
    for (p = (const unsigned char *)pattern; *p; p++) {
        if (!is_alpha(*p) && !(*p >= '0' && *p <= '9') && !strchr("*?/\\", *p) &&
            (*p >= 0x80 || !strchr(regex_punct, *p))) {
            snprintf(what, sizeof what, "the byte 0x%02x", *p);
            at = what;
            break;
        }
    }
    /* The pattern itself is not echoed: it may hold control bytes. */
    return sbx_fail(err, SANDBOX_E_INVALID, 0,
                    "protected pattern #%lu cannot be rendered as a Seatbelt rule (it contains "
                    "%s; allowed are ASCII letters, digits, * ? and  !#$%%&'()+,-.:;<=>@_`{|}~); "
                    "refusing to run rather than leave it unprotected",
                    (unsigned long)(index + 1), at);
}

/* The number of components of an absolute path: 2 for /Users/me. */
static int depth_of(const char *path)
{
    int n = 0;
    const char *p;
    for (p = path; *p; p++)
        if (*p != '/' && (p == path || p[-1] == '/'))
            n++;
    return n;
}

/* `pattern` (home-relative) beneath each HOME_N and only there, home
 * included case-insensitively: /users/ME/.kube is /Users/me/.kube on the
 * default file system. The home's text enters the profile only case-folded,
 * every byte bracketed (emit_folded), never raw. A home the folder cannot
 * render (non-ASCII) falls back to (require-all (subpath HOME_N) (regex at
 * HOME_N's depth)): the home part is then case-sensitive (docs/macos.md). */
static int add_home_filters(sbx_buf *b, const sbx_seatbelt_plan *plan, const char *pattern)
{
    size_t k;
    for (k = 0; k < plan->n_params; k++) {
        size_t mark = b->len;
        if (plan->params[k].role != SBX_PARAM_HOME)
            continue;
        sbx_buf_add(b, "\n  (regex ");
        if (name_regex_at(b, pattern, plan->params[k].value, -1, 0) == SANDBOX_OK) {
            sbx_buf_add(b, ")");
            continue;
        }
        b->len = mark;
        sbx_buf_add(b, "\n  (require-all (subpath (param ");
        add_literal(b, plan->params[k].key);
        sbx_buf_add(b, ")) (regex ");
        if (name_regex_at(b, pattern, NULL, depth_of(plan->params[k].value), 0) != SANDBOX_OK)
            return SANDBOX_E_INVALID;
        sbx_buf_add(b, "))");
    }
    return SANDBOX_OK;
}

/* The file system is case-insensitive, a subpath rule is not: `~/.KUBE`
 * names ~/.kube. So every exact path is denied again by a case-insensitive
 * regex: beneath home at the home's own level (add_home_filters), outside
 * home anchored at the root. A path the regex builder refuses (non-ASCII)
 * keeps only its exact rules (docs/macos.md). */
static void add_folded_filters(sbx_buf *b, const sbx_resolved *r, const sbx_seatbelt_plan *plan,
                               const char *path)
{
    size_t home_len = r->home_dir ? strlen(r->home_dir) : 0;
    size_t mark = b->len;
    int under_home = home_len && strncmp(path, r->home_dir, home_len) == 0 && path[home_len] == '/';
    int rc;
    if (under_home) {
        rc = add_home_filters(b, plan, path + home_len + 1);
    } else {
        sbx_buf_add(b, "\n  (regex ");
        rc = name_regex_at(b, path + 1, "", 0, 0);
        sbx_buf_add(b, ")");
    }
    if (rc != SANDBOX_OK && !b->oom)
        b->len = mark; /* unrenderable: the exact rules stand alone */
}

/* The unix sockets inside what the file rule rendered from `start` denies:
 * connect() and bind() on a socket are network operations, not file ones,
 * so ~/.gnupg/S.gpg-agent or an ssh ControlMaster socket in ~/.ssh would
 * stay reachable past the file denial. The twin names the same places: each
 * (regex #"R") as a socket path-regex, each (subpath (param "K")) as a
 * path-literal (the folded regex beside it covers what is beneath K; for a
 * non-ASCII home path only K itself, docs/macos.md). Connecting is refused
 * where reads are, binding where writes are. Our own rendering is parsed
 * back: a regex literal has no '"' inside, a key never has one. */
static void socket_rule(sbx_buf *b, size_t start, size_t end, const char *op, const char *side)
{
    size_t at;
    sbx_buf_printf(b, "(deny %s", op);
    for (at = start; at < end && !b->oom;) {
        const char *d = b->data; /* re-read: the buffer may move as it grows */
        const char *q;
        size_t skip, n;
        char *text;
        if (end - at > 9 && strncmp(d + at, "(regex #\"", 9) == 0)
            skip = 9;
        else if (end - at > 17 && strncmp(d + at, "(subpath (param \"", 17) == 0)
            skip = 17;
        else {
            at++;
            continue;
        }
        q = memchr(d + at + skip, '"', end - at - skip);
        if (!q)
            break;
        n = (size_t)(q - (d + at + skip));
        text = malloc(n + 1);
        if (!text) {
            b->oom = 1;
            return;
        }
        memcpy(text, d + at + skip, n);
        text[n] = '\0';
        if (skip == 9) {
            sbx_buf_printf(b, "\n  (%s unix-socket (path-regex #\"%s\"))", side, text);
        } else {
            sbx_buf_printf(b, "\n  (%s unix-socket (path-literal (param ", side);
            add_literal(b, text);
            sbx_buf_add(b, ")))");
        }
        free(text);
        at += skip + n + 1;
    }
    sbx_buf_add(b, ")\n");
}

static void socket_twin(sbx_buf *b, size_t start, int kind)
{
    size_t end = b->len;
    if (kind != SANDBOX_PROTECT_WRITE)
        socket_rule(b, start, end, "network-outbound", "remote");
    socket_rule(b, start, end, "network-bind", "local");
}

/* A .git left writable (SANDBOX_PROTECT_GIT): what runs code in it is
 * denied for writing by name, like the whole .git otherwise (the parts of
 * src/protect.c), and the name .git itself, exactly: a .git file (a
 * worktree's pointer) is not rewritten and a .git is not replaced. Unlike
 * the Linux masks, a name rule also stops these parts in a repository the
 * command creates: git init is refused there, as with the default .git. */
static int render_git_parts(sbx_buf *b)
{
    char part[64];
    size_t i, start;
    for (i = 0; i < sbx_n_git_code; i++) {
        start = b->len;
        snprintf(part, sizeof part, ".git/%s", sbx_git_code[i]);
        sbx_buf_printf(b, "(deny %s (regex ", deny_ops(SANDBOX_PROTECT_WRITE));
        if (sbx_sbpl_name_regex(b, part) != SANDBOX_OK)
            return SANDBOX_E_INVALID;
        sbx_buf_add(b, "))\n");
        socket_twin(b, start, SANDBOX_PROTECT_WRITE);
    }
    start = b->len;
    sbx_buf_printf(b, "(deny %s (regex ", deny_ops(SANDBOX_PROTECT_WRITE));
    if (name_regex_at(b, ".git", NULL, -1, 1) != SANDBOX_OK)
        return SANDBOX_E_INVALID;
    sbx_buf_add(b, "))\n");
    socket_twin(b, start, SANDBOX_PROTECT_WRITE);
    return SANDBOX_OK;
}

/* Spec 003: protected-path denials, after every allowance so that they win
 * (the last matching rule decides in SBPL).
 *  - name patterns: a case-insensitive regex over whole components, matching
 *    the name wherever it is, and everything beneath it. A name rule keeps
 *    matching after a parent is renamed (the new path still ends in the
 *    name), and it matches files that do not exist yet (.git/hooks/x, a new
 *    .env.production);
 *  - ~/ patterns with a wildcard: the same regex, only beneath home;
 *  - exact home and system paths: subpath denials on -D parameters, by
 *    literal and canonical spelling, so no path text enters the profile;
 *  - their parents up to home may not be unlinked, which is what a rename
 *    needs: `mv ~/.config ~/.cfg` would otherwise carry ~/.config/gh out from
 *    under its subpath rule. */
static int render_protected(sbx_buf *b, const sbx_resolved *r, const sbx_seatbelt_plan *plan,
                            sandbox_error *err)
{
    size_t i, k, n_home = 0;
    int kind;
    if (!r->protected_paths_blocked)
        return SANDBOX_OK;
    sbx_buf_add(b, "; protected paths: denied even inside the writable roots; rendered last so\n"
                   "; they win. Names match per component, case-insensitively, and below\n");
    for (i = 0; i < r->n_protect; i++) {
        const char *pat = r->protect[i].pattern;
        if (pat[0] == '~')
            continue;
        if (r->protect[i].flags & SBX_PROTECT_F_GIT) {
            if (render_git_parts(b) != SANDBOX_OK)
                return regex_fail(err, i, pat);
            continue;
        }
        size_t start = b->len;
        sbx_buf_printf(b, "(deny %s (regex ", deny_ops(r->protect[i].kind));
        if (sbx_sbpl_name_regex(b, pat) != SANDBOX_OK)
            return regex_fail(err, i, pat);
        sbx_buf_add(b, "))\n");
        socket_twin(b, start, r->protect[i].kind);
    }
    for (i = 0; i < plan->n_params; i++)
        n_home += plan->params[i].role == SBX_PARAM_HOME;
    for (i = 0; i < r->n_protect; i++) {
        const char *pat = r->protect[i].pattern;
        if (pat[0] != '~' || !has_glob(pat) || n_home == 0)
            continue;
        size_t start = b->len;
        sbx_buf_printf(b, "(deny %s", deny_ops(r->protect[i].kind));
        if (add_home_filters(b, plan, pat + 2) != SANDBOX_OK)
            return regex_fail(err, i, pat);
        sbx_buf_add(b, ")\n");
        socket_twin(b, start, r->protect[i].kind);
    }
    /* Exact paths, grouped by kind: one rule for each kind present. */
    for (kind = SANDBOX_PROTECT_ALL; kind <= SANDBOX_PROTECT_WRITE; kind++) {
        int any = 0;
        size_t start = b->len;
        for (i = 0; i < plan->n_protected; i++)
            any |= plan->protected_paths[i].kind == kind;
        if (!any)
            continue;
        sbx_buf_printf(b, "(deny %s", deny_ops(kind));
        for (k = 0; k < plan->n_params; k++) {
            const struct sbx_sbpl_param *pm = &plan->params[k];
            int match = 0;
            if (pm->role != SBX_PARAM_PROTECTED)
                continue;
            for (i = 0; i < plan->n_protected; i++)
                if (plan->protected_paths[i].kind == kind &&
                    (strcmp(plan->protected_paths[i].path, pm->value) == 0 ||
                     strcmp(plan->protected_paths[i].canonical, pm->value) == 0))
                    match = 1;
            if (!match)
                continue;
            sbx_buf_add(b, "\n  (subpath (param ");
            add_literal(b, pm->key);
            sbx_buf_add(b, "))");
        }
        for (i = 0; i < plan->n_protected; i++)
            if (plan->protected_paths[i].kind == kind)
                add_folded_filters(b, r, plan, plan->protected_paths[i].path);
        sbx_buf_add(b, ")\n");
        socket_twin(b, start, kind);
    }
    for (k = 0; k < plan->n_params; k++)
        if (plan->params[k].role == SBX_PARAM_PROTECTED_PARENT)
            break;
    if (k < plan->n_params) {
        sbx_buf_add(b, "; the parents of protected home paths cannot be renamed or removed,\n"
                       "; by any spelling of their names\n"
                       "(deny file-write-unlink");
        add_param_filters(b, plan, SBX_PARAM_PROTECTED_PARENT, "literal");
        for (k = 0; k < plan->n_params; k++) {
            size_t mark = b->len;
            if (plan->params[k].role != SBX_PARAM_PROTECTED_PARENT)
                continue;
            sbx_buf_add(b, "\n  (regex ");
            if (name_regex_at(b, plan->params[k].value + 1, "", 0, 1) == SANDBOX_OK)
                sbx_buf_add(b, ")");
            else
                b->len = mark; /* non-ASCII: the literal alone (docs/macos.md) */
        }
        sbx_buf_add(b, ")\n");
    }
    return SANDBOX_OK;
}

/* Spec 004: tools that are never allowed, in any class or mode. Each hands
 * work to something outside the sandbox (launchd, other apps through Apple
 * events, LaunchServices, the keychain) or escalates privileges. Seatbelt
 * judges exec by path, so a copy under another name is not refused here:
 * what closes that is render_never() (the copy finds no service to talk to)
 * and that a copy of sudo is no longer setuid root. A copy that keeps its
 * name is refused by the name rule. */
static void render_deny_exec(sbx_buf *b, const sbx_resolved *r)
{
    size_t i;
    if (r->n_deny_exec == 0)
        return;
    /* process-exec*, not process-exec: it covers process-exec-interpreter
     * too, so a script whose #! line names one of them is refused. */
    sbx_buf_add(b, "; tools that act outside the sandbox are never run, under any directory,\n"
                   "; nor as the interpreter of a #! script\n"
                   "(deny process-exec*");
    for (i = 0; i < r->n_deny_exec; i++) {
        sbx_buf_add(b, "\n  (literal ");
        add_literal(b, r->deny_exec[i]);
        sbx_buf_add(b, ")");
    }
    for (i = 0; i < r->n_deny_exec; i++) {
        const char *base = strrchr(r->deny_exec[i], '/');
        sbx_buf_add(b, "\n  (regex ");
        /* Our constants: always renderable (ASCII letters). */
        if (name_regex_at(b, base ? base + 1 : r->deny_exec[i], NULL, -1, 1) != SANDBOX_OK)
            b->oom = 1;
        sbx_buf_add(b, ")");
    }
    sbx_buf_add(b, ")\n");
}

static int render_profile(const sbx_resolved *r, sbx_seatbelt_plan *plan, sandbox_error *err)
{
    sbx_buf b;
    int rc = SANDBOX_OK;

    sbx_buf_init(&b);
    sbx_buf_add(&b, "(version 1)\n");
    sbx_buf_add(&b, r->filesystem == SANDBOX_FS_READ_ONLY
                        ? "; libsandbox read-only profile: everything not listed is refused\n"
                        : "; libsandbox profile: everything not listed is refused\n");
    render_base(&b, r, plan);
    if (r->filesystem != SANDBOX_FS_READ_ONLY) {
        render_toolchain(&b);
        rc = render_network(&b, r, err);
        if (rc == SANDBOX_OK)
            render_writes(&b, r, plan);
    }
    if (rc == SANDBOX_OK) {
        render_ttys(&b, r, plan);
        render_never(&b, r);
        render_deny_exec(&b, r);
        rc = render_protected(&b, r, plan, err);
    }
    if (rc != SANDBOX_OK) {
        sbx_buf_free(&b);
        return rc;
    }
    plan->profile = sbx_buf_take(&b);
    if (!plan->profile)
        return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while rendering the profile");
    return SANDBOX_OK;
}

static int build_argv(sbx_seatbelt_plan *plan, const char *const argv[])
{
    size_t n_cmd = 0, n, i, k = 0;
    char **out;
    while (argv && argv[n_cmd])
        n_cmd++;
    n = 3 + 2 * plan->n_params + 1 + n_cmd;
    out = calloc(n + 1, sizeof *out);
    if (!out)
        return SANDBOX_E_NOMEM;
    plan->argv = out;
    out[k++] = sbx_strdup(SBX_SANDBOX_EXEC);
    out[k++] = sbx_strdup("-p");
    out[k++] = sbx_strdup(plan->profile);
    for (i = 0; i < plan->n_params; i++) {
        size_t kl = strlen(plan->params[i].key), vl = strlen(plan->params[i].value);
        char *kv;
        out[k++] = sbx_strdup("-D");
        kv = malloc(kl + 1 + vl + 1);
        if (kv) {
            memcpy(kv, plan->params[i].key, kl);
            kv[kl] = '=';
            memcpy(kv + kl + 1, plan->params[i].value, vl + 1);
        }
        out[k++] = kv;
    }
    /* "--" ends sandbox-exec's options, so a command named "-x" is a command. */
    out[k++] = sbx_strdup("--");
    for (i = 0; i < n_cmd; i++)
        out[k++] = sbx_strdup(argv[i]);
    plan->argc = k;
    for (i = 0; i < k; i++) {
        if (!out[i]) {
            /* Keep the array NULL-terminated at the first hole for freeing. */
            size_t j;
            for (j = i + 1; j < k; j++)
                free(out[j]);
            out[i] = NULL;
            plan->argc = 0;
            return SANDBOX_E_NOMEM;
        }
    }
    return SANDBOX_OK;
}

/* 1 when `path` is home_dir + "/" + a name pattern of at least `kind`'s
 * strength: the regex of that pattern already matches it (and follows it
 * through a rename), so a subpath rule would only repeat it. The resolver
 * lists these for Linux, which has no name rules. */
static int covered_by_name_rule(const sbx_resolved *r, const char *path, int kind)
{
    size_t i, n = r->home_dir ? strlen(r->home_dir) : 0;
    if (!n || strncmp(path, r->home_dir, n) != 0 || path[n] != '/')
        return 0;
    for (i = 0; i < r->n_protect; i++) {
        const char *pat = r->protect[i].pattern;
        if (pat[0] == '~' || (r->protect[i].kind != SANDBOX_PROTECT_ALL && r->protect[i].kind != kind))
            continue;
        if (strlen(pat) == strlen(path + n + 1) &&
            sbx_strncasecmp_ascii(pat, path + n + 1, strlen(pat)) == 0)
            return 1;
    }
    return 0;
}

/* Plan the exact protected paths: each by both spellings, its parents up to
 * the home directory (exclusive), and the home directory itself when a ~/
 * pattern has a wildcard. */
static int plan_protected(const sbx_resolved *r, sbx_canon_fn canon, sbx_seatbelt_plan *plan,
                          sandbox_error *err)
{
    size_t i, home_len = r->home_dir ? strlen(r->home_dir) : 0;
    int need_home = 0, rc;
    if (r->n_protect_home) {
        plan->protected_paths = calloc(r->n_protect_home, sizeof *plan->protected_paths);
        if (!plan->protected_paths)
            return SANDBOX_E_NOMEM;
    }
    for (i = 0; i < r->n_protect_home; i++) {
        struct sbx_seatbelt_protected *pp = &plan->protected_paths[plan->n_protected];
        const char *path = r->protect_home[i].pattern;
        char *parent;
        if (covered_by_name_rule(r, path, r->protect_home[i].kind))
            continue;
        plan->n_protected++;
        pp->kind = r->protect_home[i].kind;
        pp->path = sbx_strdup(path);
        if (!pp->path)
            return SANDBOX_E_NOMEM;
        /* A protected path that does not exist yet keeps its textual
         * spelling: denying it now also denies creating it. */
        rc = canon(path, &pp->canonical, err);
        if (rc != SANDBOX_OK)
            return rc;
        if (add_param(plan, pp->path, SBX_PARAM_PROTECTED) != SANDBOX_OK ||
            add_param(plan, pp->canonical, SBX_PARAM_PROTECTED) != SANDBOX_OK)
            return SANDBOX_E_NOMEM;
        if (!home_len || strncmp(path, r->home_dir, home_len) != 0 || path[home_len] != '/')
            continue; /* not under home (/Library/Keychains): no parents to guard */
        parent = sbx_strdup(path);
        if (!parent)
            return SANDBOX_E_NOMEM;
        for (;;) {
            char *slash = strrchr(parent, '/'), *cparent = NULL;
            if (!slash || (size_t)(slash - parent) <= home_len)
                break;
            *slash = '\0';
            rc = canon(parent, &cparent, err);
            if (rc == SANDBOX_OK && (add_param(plan, parent, SBX_PARAM_PROTECTED_PARENT) != SANDBOX_OK ||
                                     add_param(plan, cparent, SBX_PARAM_PROTECTED_PARENT) != SANDBOX_OK))
                rc = SANDBOX_E_NOMEM;
            free(cparent);
            if (rc != SANDBOX_OK) {
                free(parent);
                return rc;
            }
        }
        free(parent);
    }
    for (i = 0; i < r->n_protect; i++)
        if (r->protect[i].pattern[0] == '~' && has_glob(r->protect[i].pattern))
            need_home = 1;
    /* Exact home paths get a case-insensitive rule beneath home too. */
    for (i = 0; i < plan->n_protected; i++)
        if (home_len && strncmp(plan->protected_paths[i].path, r->home_dir, home_len) == 0 &&
            plan->protected_paths[i].path[home_len] == '/')
            need_home = 1;
    if (need_home && r->home_dir) {
        char *chome = NULL;
        rc = canon(r->home_dir, &chome, err);
        if (rc != SANDBOX_OK)
            return rc;
        rc = add_param(plan, r->home_dir, SBX_PARAM_HOME) != SANDBOX_OK ||
                     add_param(plan, chome, SBX_PARAM_HOME) != SANDBOX_OK
                 ? SANDBOX_E_NOMEM
                 : SANDBOX_OK;
        free(chome);
        return rc;
    }
    return SANDBOX_OK;
}

int sbx_seatbelt_plan_build(const sbx_resolved *r, const char *const argv[], sbx_canon_fn canon,
                            sbx_seatbelt_plan *plan, sandbox_error *err)
{
    size_t i;
    int rc;

    memset(plan, 0, sizeof *plan);
    if (!canon)
        canon = sbx_macos_canon_host;
    /* Every root, whatever its kind, is writable under both spellings: later
     * issues add root kinds and they must appear here without a change. */
    if (r->n_roots) {
        plan->roots = calloc(r->n_roots, sizeof *plan->roots);
        if (!plan->roots)
            return sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
    }
    for (i = 0; i < r->n_roots; i++) {
        struct sbx_seatbelt_root *root = &plan->roots[i];
        plan->n_roots++;
        root->kind = r->roots[i].kind;
        root->path = sbx_strdup(r->roots[i].path);
        if (!root->path) {
            rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
            goto fail;
        }
        rc = canon(root->path, &root->canonical, err);
        if (rc != SANDBOX_OK)
            goto fail;
        if (add_param(plan, root->path, SBX_PARAM_WRITABLE) != SANDBOX_OK ||
            add_param(plan, root->canonical, SBX_PARAM_WRITABLE) != SANDBOX_OK) {
            rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
            goto fail;
        }
    }
    /* Read roots from the home and the host travel as -D values too. */
    for (i = 0; i < r->n_reads; i++) {
        char *c = NULL;
        if (r->reads[i].fixed)
            continue;
        rc = canon(r->reads[i].path, &c, err);
        if (rc != SANDBOX_OK)
            goto fail;
        rc = add_param(plan, r->reads[i].path, SBX_PARAM_READABLE) != SANDBOX_OK ||
                     add_param(plan, c, SBX_PARAM_READABLE) != SANDBOX_OK
                 ? sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning")
                 : SANDBOX_OK;
        free(c);
        if (rc != SANDBOX_OK)
            goto fail;
    }
    rc = plan_protected(r, canon, plan, err);
    if (rc == SANDBOX_E_NOMEM)
        rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
    if (rc != SANDBOX_OK)
        goto fail;
#if defined(__APPLE__)
    /* The terminal the command inherits, by name (render_ttys). */
    for (i = 0; i < 3; i++) {
        const char *tty = isatty((int)i) ? ttyname((int)i) : NULL;
        if (tty && strncmp(tty, "/dev/ttys", 9) == 0 &&
            add_param(plan, tty, SBX_PARAM_TTY) != SANDBOX_OK) {
            rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while planning");
            goto fail;
        }
    }
#endif
    rc = render_profile(r, plan, err);
    if (rc != SANDBOX_OK)
        goto fail;
    if (build_argv(plan, argv) != SANDBOX_OK) {
        rc = sbx_fail(err, SANDBOX_E_NOMEM, ENOMEM, "out of memory while building the argv");
        goto fail;
    }
    return SANDBOX_OK;
fail:
    sbx_seatbelt_plan_free(plan);
    return rc;
}
