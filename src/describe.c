/* Words: the one-line "Sandbox:" description of a policy, the sentence that
 * says a failed command was probably stopped by the sandbox, and the
 * once-per-process warning for machines that cannot enforce a policy.
 *
 * Platform-neutral: every platform's denial signatures are here, selected by
 * target, so all of them are unit-tested on any host. Nothing allocates
 * except sandbox_policy_describe (it resolves the policy's roots). */
#include "describe.h"
#include "backend.h"

#include <stdio.h>
#include <string.h>

/* ---- the "Sandbox:" line ---- */

int sbx_is_host_target(int target)
{
    if (target == SANDBOX_TARGET_HOST)
        return 1;
#if defined(__linux__)
    return target == SANDBOX_TARGET_LINUX;
#elif defined(__APPLE__)
    return target == SANDBOX_TARGET_MACOS;
#elif defined(_WIN32)
    return target == SANDBOX_TARGET_WINDOWS;
#else
    return 0;
#endif
}

void sbx_describe_probe(struct sbx_avail *a)
{
    sandbox_report rep;
    sandbox_self_test(&rep);
    a->network = rep.network.available;
    a->filesystem = rep.filesystem.available;
    a->read_only = rep.read_only.available;
    a->internet_only = rep.internet_only.available;
    a->protected_paths = rep.protected_paths.available;
}

/* Append to a fixed buffer; remembers overflow in *full. */
static void put(char *buf, size_t size, size_t *len, int *full, const char *s)
{
    size_t n = strlen(s);
    if (*len + n >= size) {
        n = size - 1 - *len;
        *full = 1;
    }
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = '\0';
}

static const char *net_words(int network)
{
    return network == SANDBOX_NETWORK_DENY            ? "no network"
           : network == SANDBOX_NETWORK_INTERNET_ONLY ? "internet only, no local network"
                                                      : "network allowed";
}

/* "/p, /added, temporary and cache directories": the roots a person cares
 * about, in the resolver's order. */
static void put_roots(const sbx_resolved *r, char *buf, size_t size, size_t *len, int *full)
{
    size_t i;
    int temp = r->temp_dir != NULL, cache = 0, paths = 0; /* temp: even inside the project */
    for (i = 0; i < r->n_roots; i++) {
        switch (r->roots[i].kind) {
        case SBX_ROOT_PROJECT:
        case SBX_ROOT_ADDED:
        case SBX_ROOT_WORKDIR:
        case SBX_ROOT_OUTPUT:
            put(buf, size, len, full, paths++ ? ", " : "");
            put(buf, size, len, full, r->roots[i].path);
            break;
        case SBX_ROOT_TEMP:
        case SBX_ROOT_SYSTEM_TEMP:
            temp = 1;
            break;
        case SBX_ROOT_CACHE:
        case SBX_ROOT_PACKAGE:
        case SBX_ROOT_USER_CACHE:
            cache = 1;
            break;
        default:
            break; /* /dev: the discard devices and the terminal, not worth a word */
        }
    }
    if (!temp && !cache) {
        if (!paths)
            put(buf, size, len, full, "no directory");
        return;
    }
    put(buf, size, len, full, paths ? ", " : "");
    put(buf, size, len, full,
        temp && cache ? "temporary and cache directories"
        : temp        ? "temporary directories"
                      : "cache directories");
}

/* A class confines reads (src/reads.c); said after the writable roots. */
static const char read_words[] =
    "reads only the system, toolchains, the project and those directories; ";
static const char read_words_media[] =
    "reads only the system, the project and those directories; ";
/* No project (spec 004): the command reads its scratch, not that folder. */
static const char read_words_no_project[] =
    "reads only the system, toolchains and those directories; ";

int sbx_describe_render(const sbx_resolved *r, const struct sbx_avail *a, char *buf, size_t size)
{
    size_t len = 0;
    int full = 0;

    if (!buf || size == 0)
        return SANDBOX_E_INVALID;
    buf[0] = '\0';
    if (r->network == SANDBOX_NETWORK_ALLOW && r->filesystem == SANDBOX_FS_UNRESTRICTED) {
        put(buf, size, &len, &full,
            "off: no sandbox was asked for; commands run with your account's permissions.");
        return full ? SANDBOX_E_INVALID : SANDBOX_OK;
    }
    /* Anything that would fail closed is simply unavailable. */
    if ((r->filesystem == SANDBOX_FS_READ_ONLY && !a->read_only) ||
        (r->network == SANDBOX_NETWORK_DENY && !a->network) ||
        (r->network == SANDBOX_NETWORK_INTERNET_ONLY && !a->internet_only) ||
        (r->protected_paths_blocked && !a->protected_paths) ||
        (r->filesystem == SANDBOX_FS_CONFINED && !a->filesystem &&
         r->network == SANDBOX_NETWORK_ALLOW)) {
        put(buf, size, &len, &full, "unavailable on this system.");
        return full ? SANDBOX_E_INVALID : SANDBOX_OK;
    }
    put(buf, size, &len, &full, "on: ");
    if (r->filesystem == SANDBOX_FS_READ_ONLY) {
        put(buf, size, &len, &full, "read-only, no writes anywhere; ");
        if (r->protected_paths_blocked)
            put(buf, size, &len, &full, "protected paths blocked; ");
        put(buf, size, &len, &full, "no network.");
    } else if (r->filesystem == SANDBOX_FS_CONFINED && !a->filesystem) {
        /* Linux without Landlock: the network half runs, writes degrade. */
        put(buf, size, &len, &full, net_words(r->network));
        put(buf, size, &len, &full, "; writes are not confined on this system.");
    } else if (r->filesystem == SANDBOX_FS_CONFINED) {
        if (r->no_project) {
            /* Spec 004: the home, "/", ~/Library or a store is never a
             * project; the command works in its scratch. */
            put(buf, size, &len, &full, "no project (");
            put(buf, size, &len, &full, r->project_root);
            put(buf, size, &len, &full, " ");
            put(buf, size, &len, &full, r->no_project);
            put(buf, size, &len, &full, "), the command works in its scratch; ");
        }
        put(buf, size, &len, &full, "writes only inside ");
        put_roots(r, buf, size, &len, &full);
        put(buf, size, &len, &full, "; ");
        if (r->reads_confined)
            put(buf, size, &len, &full,
                r->klass == SANDBOX_CLASS_MEDIA ? read_words_media
                : r->no_project                 ? read_words_no_project
                                                : read_words);
        if (r->protected_paths_blocked)
            put(buf, size, &len, &full, "protected paths blocked; ");
        put(buf, size, &len, &full, net_words(r->network));
        put(buf, size, &len, &full, ".");
    } else if (r->target == SANDBOX_TARGET_WINDOWS) {
        /* An AppContainer has no "writes anywhere": it grants back the
         * project, working and temp directories only (spec 000). */
        put(buf, size, &len, &full, net_words(r->network));
        put(buf, size, &len, &full, "; writes only inside ");
        put(buf, size, &len, &full, r->project_root);
        if (strcmp(r->working_dir, r->project_root) != 0) {
            put(buf, size, &len, &full, ", ");
            put(buf, size, &len, &full, r->working_dir);
        }
        put(buf, size, &len, &full, ", the temporary directory.");
    } else {
        put(buf, size, &len, &full, net_words(r->network));
        put(buf, size, &len, &full, r->protected_paths_blocked
                                        ? "; writes not confined; protected paths blocked."
                                        : "; writes not confined.");
    }
    return full ? SANDBOX_E_INVALID : SANDBOX_OK;
}

int sandbox_policy_describe(const sandbox_policy *policy, char *buf, size_t size)
{
    sbx_resolved r;
    struct sbx_avail a;
    sandbox_error err;
    int rc;

    if (!buf || size == 0)
        return SANDBOX_E_INVALID;
    buf[0] = '\0';
    if (!policy)
        return SANDBOX_E_INVALID;
    rc = sbx_resolve(policy, SANDBOX_TARGET_HOST, &r, &err);
    if (rc != SANDBOX_OK)
        return rc;
    sbx_describe_probe(&a);
    rc = sbx_describe_render(&r, &a, buf, size);
    sbx_resolved_free(&r);
    return rc;
}

/* ---- denials in words ---- */

#define TAIL_MAX 4096

/* ASCII case-insensitive substring search in the last TAIL_MAX bytes. */
static int has(const char *tail, const char *needle)
{
    size_t n, m, i, j;
    if (!tail)
        return 0;
    n = strlen(tail);
    if (n > TAIL_MAX) {
        tail += n - TAIL_MAX;
        n = TAIL_MAX;
    }
    m = strlen(needle);
    for (i = 0; i + m <= n; i++) {
        for (j = 0; j < m; j++) {
            unsigned char a = (unsigned char)tail[i + j], b = (unsigned char)needle[j];
            if (a >= 'A' && a <= 'Z')
                a = (unsigned char)(a - 'A' + 'a');
            if (b >= 'A' && b <= 'Z')
                b = (unsigned char)(b - 'A' + 'a');
            if (a != b)
                break;
        }
        if (j == m)
            return 1;
    }
    return 0;
}

static int has_any(const char *tail, const char *const *needles)
{
    for (; *needles; needles++)
        if (has(tail, *needles))
            return 1;
    return 0;
}

/* What a refused file operation prints, on unix. Landlock answers EACCES
 * (and EXDEV for a rename it cannot judge), seccomp and Seatbelt EPERM. */
static const char *const unix_perm_text[] = {
    "Permission denied", "Operation not permitted", "Read-only file system",
    "EACCES", "EPERM", "EROFS", "Invalid cross-device link", NULL};
static const char *const eperm_text[] = {"Operation not permitted", "EPERM", NULL};
/* Words that put an EPERM next to the network rather than a file. */
static const char *const network_words[] = {
    "socket", "connect", "network", "resolve", "getaddrinfo", "name resolution",
    "could not resolve", "unreachable", "urlopen", "http", NULL};
static const char *const win_net_text[] = {
    "10013", "WSAEACCES", "forbidden by its access permissions", NULL};
static const char *const win_perm_text[] = {
    "Access is denied", "ERROR_ACCESS_DENIED", "Permission denied", "Operation not permitted",
    NULL};

/* An exit status alone proves nothing: `sh -c 'exit 159'`, `kill -SYS $$`
 * and the words "Bad system call" are all within a command's reach. Only a
 * supervised run's records are certain (src/outcome.c). */
static const char net_sigsys_hedged[] =
    "the network sandbox probably killed the command (SIGSYS) when it opened a network "
    "socket; a supervised run (--report, --outcome-fd) would say for certain.";
static const char own_159[] =
    "exit 159 (the command's own status: the sandbox recorded no refusal).";
static const char own_sigsys[] =
    "the command died of SIGSYS, which the sandbox did not send (it recorded no refusal): it "
    "raised it itself, or made an x32 system call, which the kernel ends unrecorded.";
static const char net_hedged[] =
    "the network sandbox probably blocked a connection: this command may not use the network.";
static const char ro_hedged[] =
    "the read-only sandbox probably refused a change: nothing may be written or created, and "
    "no socket opened.";

static int copy_out(char *buf, size_t size, const char *s)
{
    snprintf(buf, size, "%s", s);
    return SANDBOX_OK;
}

/* Whether the class of `p` confines reads on a unix target (src/reads.c). */
static int reads_confined(const sandbox_policy *p)
{
    return p->class_chosen && p->klass != SANDBOX_CLASS_TOOL_SERVER &&
           p->filesystem == SANDBOX_FS_CONFINED;
}

static int fs_sentence(const sandbox_policy *p, int windows, char *buf, size_t size)
{
    const char *root;
    if (!windows && reads_confined(p)) {
        /* A refused read prints the same "Permission denied" as a write. */
        snprintf(buf, size,
                 "the filesystem sandbox probably refused a write outside the writable "
                 "directories, or a read outside what the %s class reads (the system, %sthe "
                 "project and the writable directories%s; --add-read DIR adds one)%s.",
                 sbx_class_name(p->klass),
                 p->klass == SANDBOX_CLASS_MEDIA ? "" : "toolchains, ",
                 p->n_read_dirs ? ", the added ones" : "",
                 p->n_protect ? ", or access to a protected path" : "");
        return SANDBOX_OK;
    }
    /* The directory the class writes besides its scratch (docs/classes.md). */
    switch (p->klass) {
    case SANDBOX_CLASS_RESEARCH: root = NULL; break;
    case SANDBOX_CLASS_MEDIA: root = p->output_dir; break;
    case SANDBOX_CLASS_TOOL_SERVER:
        root = p->working_dir ? p->working_dir : "its working directory";
        break;
    default: root = p->project_root ? p->project_root : "the project directory"; break;
    }
    snprintf(buf, size, "the filesystem sandbox probably refused a %s outside %s%s%sthe temporary "
             "director%s%s.",
             windows ? "file access" : "write", root ? root : "",
             p->n_add_dirs ? ", the added directories" : "", root ? " and " : "",
             windows ? "y" : "ies", p->n_protect ? ", or access to a protected path" : "");
    return SANDBOX_OK;
}

int sandbox_describe_denial(const sandbox_policy *p, int target, int status,
                            const char *tail, char *buf, size_t size)
{
    return sbx_describe_denial_recorded(p, target, status, tail, 0, buf, size);
}

int sbx_describe_denial_recorded(const sandbox_policy *p, int target, int status,
                                 const char *tail, int net_recorded, char *buf, size_t size)
{
    int net_denied, fs_confined, read_only, sig, code;

    if (!p || !buf || size == 0)
        return SANDBOX_E_INVALID;
    buf[0] = '\0';
    if (target < SANDBOX_TARGET_HOST || target > SANDBOX_TARGET_WINDOWS)
        return SANDBOX_E_INVALID;
    if (target == SANDBOX_TARGET_HOST) {
#if defined(__APPLE__)
        target = SANDBOX_TARGET_MACOS;
#elif defined(_WIN32)
        target = SANDBOX_TARGET_WINDOWS;
#else
        target = SANDBOX_TARGET_LINUX;
#endif
    }
    read_only = p->filesystem == SANDBOX_FS_READ_ONLY;
    net_denied = sbx_effective_network(p) != SANDBOX_NETWORK_ALLOW || read_only;
    fs_confined = p->filesystem != SANDBOX_FS_UNRESTRICTED || p->n_protect > 0;

    if (target == SANDBOX_TARGET_WINDOWS) {
        /* status is the exit code. An AppContainer confines files whenever
         * it is used at all, so any policy counts for the file signature. */
        if (status == 0 || (!net_denied && !fs_confined))
            return SANDBOX_OK;
        if (net_denied && (status == 10013 || has_any(tail, win_net_text)))
            return copy_out(buf, size, net_hedged);
        if (status == 5 || has_any(tail, win_perm_text))
            return read_only ? copy_out(buf, size, ro_hedged) : fs_sentence(p, 1, buf, size);
        return SANDBOX_OK;
    }

    /* A POSIX wait status, decoded by hand so a Linux status can be read on
     * any host: low 7 bits the signal, the next byte the exit code. */
    sig = status & 0x7f;
    code = (status >> 8) & 0xff;
    if (sig == 0x7f)
        return SANDBOX_OK; /* stopped, not ended */
    if (sig == 0 && code == 0)
        return SANDBOX_OK;

    if (target == SANDBOX_TARGET_LINUX) {
        /* A supervised run records every refused socket: with records,
         * they say what the network sandbox did, and with none it did
         * nothing, whatever the status says (issue 19). */
        if (net_denied && net_recorded == 1 && sig == 0 && code == 128 + 31)
            return copy_out(buf, size, own_159);
        if (net_denied && net_recorded == 1 && sig == 31)
            return copy_out(buf, size, own_sigsys);
        /* Otherwise SIGSYS is Linux 31; a shell reports a child's SIGSYS as
         * 159. The filter is its likely source, not a certain one. */
        if (net_denied && !net_recorded && p->deny_action == SANDBOX_DENY_SIGSYS &&
            (sig == 31 || (sig == 0 && code == 128 + 31) || has(tail, "Bad system call")))
            return copy_out(buf, size, net_sigsys_hedged);
        if (read_only && has_any(tail, unix_perm_text))
            return copy_out(buf, size, ro_hedged);
        if (net_denied && !net_recorded && p->deny_action == SANDBOX_DENY_EPERM &&
            has_any(tail, eperm_text) &&
            (has_any(tail, network_words) || !fs_confined))
            return copy_out(buf, size, net_hedged);
        if (fs_confined && has_any(tail, unix_perm_text))
            return fs_sentence(p, 0, buf, size);
        return SANDBOX_OK;
    }

    /* macOS: Seatbelt sends no signal; every refusal is EPERM text. */
    if (!has_any(tail, unix_perm_text))
        return SANDBOX_OK;
    if (read_only)
        return copy_out(buf, size, ro_hedged);
    if (net_denied && has_any(tail, eperm_text) && (has_any(tail, network_words) || !fs_confined))
        return copy_out(buf, size, net_hedged);
    if (fs_confined)
        return fs_sentence(p, 0, buf, size);
    return SANDBOX_OK;
}

/* ---- the once-per-process warning ---- */

static int exchange_once(int *flag)
{
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_exchange_n(flag, 1, __ATOMIC_ACQ_REL);
#elif defined(_MSC_VER)
    return (int)_InterlockedExchange((volatile long *)flag, 1);
#else
    int was = *flag; /* no atomics known: callers serialise */
    *flag = 1;
    return was;
#endif
}

const char *sandbox_unavailable_warning(const sandbox_policy *policy, int *once)
{
    struct sbx_avail a;
    const char *text = NULL;

    if (!once)
        return NULL;
    sbx_describe_probe(&a);
    if (!policy) {
        if (!a.network && !a.filesystem)
            text = "the operating-system sandbox is unavailable on this system: commands run "
                   "with your account's permissions.";
    } else if (sbx_policy_is_noop(policy)) {
        text = NULL;
    } else if ((policy->filesystem == SANDBOX_FS_READ_ONLY && !a.read_only) ||
               (sbx_effective_network(policy) == SANDBOX_NETWORK_DENY && !a.network) ||
               (sbx_effective_network(policy) == SANDBOX_NETWORK_INTERNET_ONLY &&
                !a.internet_only)) {
        text = "the operating-system sandbox cannot enforce this policy on this system: "
               "commands run with your account's permissions.";
    } else if (policy->n_protect > 0 && !a.protected_paths) {
        text = "protected paths cannot be enforced on this system: commands run with your "
               "account's permissions.";
    } else if (policy->filesystem == SANDBOX_FS_CONFINED && !a.filesystem) {
        text = "filesystem confinement is unavailable on this system: commands may write "
               "anywhere your account can.";
    }
    if (!text || exchange_once(once) != 0)
        return NULL;
    return text;
}
