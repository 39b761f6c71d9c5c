/* The Landlock plan as pure data: which rights a ruleset handles for a given
 * ABI and mode, which paths get which rights, and the words for explain.
 * Portable C with no system calls, so it is unit-tested for every ABI on any
 * host; src/linux/landlock.c turns the plan into a ruleset on Linux. */
#include "linux.h"
#include "landlock.h"

#include <stdlib.h>
#include <string.h>

/* Write-class rights every ABI has. */
#define LL_WRITE_V1                                                                                \
    (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_REMOVE_DIR | SBX_LL_FS_REMOVE_FILE | SBX_LL_FS_MAKE_CHAR |   \
     SBX_LL_FS_MAKE_DIR | SBX_LL_FS_MAKE_REG | SBX_LL_FS_MAKE_SOCK | SBX_LL_FS_MAKE_FIFO |         \
     SBX_LL_FS_MAKE_BLOCK | SBX_LL_FS_MAKE_SYM)

/* Read-only mode lets these devices be written: shells redirect to them
 * with O_TRUNC (harmless on them), and they have no ioctl that changes
 * anything. */
static const char *const ro_devices[][2] = {
    {"/dev/null", "null device"},
    {"/dev/zero", "zero device"},
    {"/dev/full", "full device"},
};

/* Confined mode: what replaces the /dev root. Only what commands open for
 * writing; never a block device (root owns them, so writing one would
 * rewrite the disk beneath every rule), never /dev/net/tun, /dev/fuse,
 * /dev/kmsg or /dev/mem. Missing entries are skipped silently. Each entry
 * costs one O_PATH open (and one add_rule when present) per launch. */
enum { DEV_FILE, DEV_DIR_OF_DEVICES, DEV_TMPFS };
static const struct {
    const char *path, *label;
    int kind;
    const char *gate;
} dev_entries[] = {
    {"/dev/null", "null device", DEV_FILE, NULL},
    {"/dev/zero", "zero device", DEV_FILE, NULL},
    {"/dev/full", "full device", DEV_FILE, NULL},
    {"/dev/random", "random device: writes only mix in", DEV_FILE, NULL},
    {"/dev/urandom", "urandom device: writes only mix in", DEV_FILE, NULL},
    {"/dev/tty", "controlling terminal", DEV_FILE, NULL},
    {"/dev/ptmx", "pseudo-terminal multiplexer", DEV_FILE, NULL},
    {"/dev/pts", "pseudo-terminals", DEV_DIR_OF_DEVICES, NULL},
    {"/dev/shm", "POSIX shared memory", DEV_TMPFS, NULL},
    {"/dev/mqueue", "POSIX message queues", DEV_TMPFS, NULL},
    /* Compute: virtual machines and GPUs are opened read-write to be used. */
    {"/dev/kvm", "KVM", DEV_FILE, NULL},
    {"/dev/dri", "GPU render and display nodes", DEV_DIR_OF_DEVICES, NULL},
    /* Gated on the control device: a machine without the driver pays one
     * failed open for all five, and never the directory scan of the last. */
    {"/dev/nvidiactl", "NVIDIA control", DEV_FILE, "/dev/nvidiactl"},
    {"/dev/nvidia-uvm", "NVIDIA unified memory", DEV_FILE, "/dev/nvidiactl"},
    {"/dev/nvidia-uvm-tools", "NVIDIA unified memory tools", DEV_FILE, "/dev/nvidiactl"},
    {"/dev/nvidia-modeset", "NVIDIA modeset", DEV_FILE, "/dev/nvidiactl"},
    {"/dev/nvidia*", "NVIDIA GPUs nvidia0, nvidia1...", DEV_FILE, "/dev/nvidiactl"},
};

#define N_DEV_ENTRIES (sizeof dev_entries / sizeof dev_entries[0])

/* The rights a class that confines reads handles on top (docs/classes.md):
 * reading files, listing directories, running programs. Every ABI has them. */
#define LL_READS (SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR | SBX_LL_FS_EXECUTE)

/* Device nodes are never made beneath a rule: mknod of a block device in the
 * project would otherwise be a way back to the disk. */
#define LL_NO_DEVICE_NODES (~(SBX_LL_FS_MAKE_CHAR | SBX_LL_FS_MAKE_BLOCK))

static int clamp_abi(int abi)
{
    return abi < 0 ? 0 : abi > SBX_LL_ABI_MAX ? SBX_LL_ABI_MAX : abi;
}

/* The write-class rights confined mode handles on this ABI. */
static uint64_t confined_fs(int abi)
{
    uint64_t m = LL_WRITE_V1;
    /* REFER (ABI 2): without it, ABI 1 refuses every cross-directory rename
     * and link, so handling it never costs a legitimate operation. */
    if (abi >= 2)
        m |= SBX_LL_FS_REFER;
    /* TRUNCATE is left out on purpose: it makes the kernel check the path
     * on every open(2), read-only opens included (bench/landlock.sh
     * measures it); truncation outside the roots is refused by the seccomp
     * filter instead. IOCTL_DEV (checked on device opens only) is left out
     * because the device list already decides which devices open at all. */
    return m;
}

void sbx_landlock_handled_for(int abi, int filesystem, int network,
                              struct sbx_landlock_handled *h)
{
    abi = clamp_abi(abi);
    memset(h, 0, sizeof *h);
    if (abi == 0)
        return;
    if (filesystem == SANDBOX_FS_READ_ONLY) {
        /* Read-only needs scoping (ABI 6); the caller refuses lower ABIs,
         * the masks below stay ABI-exact all the same. */
        h->fs = confined_fs(abi);
        /* No TRUNCATE, as in confined mode: it costs a path walk on every
         * open, and the seccomp truncation group plus write_file close every
         * truncation route already (docs/landlock.md). IOCTL_DEV stays: the
         * kernel computes it only when a device is opened. */
        if (abi >= 5)
            h->fs |= SBX_LL_FS_IOCTL_DEV;
        if (abi >= 4)
            h->net = SBX_LL_NET_BIND_TCP | SBX_LL_NET_CONNECT_TCP;
        if (abi >= 6)
            h->scoped = SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET | SBX_LL_SCOPE_SIGNAL;
        return;
    }
    if (filesystem == SANDBOX_FS_CONFINED) {
        h->fs = confined_fs(abi);
        /* Abstract AF_UNIX sockets have no path for a mask to cover
         * (unixep.c): the scope closes every one made outside the domain (a
         * D-Bus bus at unix:abstract=, containerd-shim's), the command's own
         * keep working. Signals are not scoped: confined commands may signal
         * the user's processes, as they always could (issue 20). */
        if (abi >= 6)
            h->scoped = SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET;
    }
    if (network == SANDBOX_NETWORK_DENY) {
        /* A Landlock domain is what stops ptrace, process_vm_writev and
         * pidfd_getfd against processes outside it, so a network-denied
         * command cannot borrow an unconfined process's sockets. */
        if (abi >= 4)
            h->net = SBX_LL_NET_BIND_TCP | SBX_LL_NET_CONNECT_TCP;
        else if (h->fs == 0)
            h->fs = SBX_LL_FS_MAKE_BLOCK; /* granted beneath "/": a domain that denies nothing */
    }
}

uint64_t sbx_landlock_terminal_rights(int abi)
{
    /* No TRUNCATE: no mode handles it, and a rule may not grant it then. */
    uint64_t m = SBX_LL_FS_WRITE_FILE;
    abi = clamp_abi(abi);
    if (abi >= 5)
        m |= SBX_LL_FS_IOCTL_DEV;
    return m;
}

void sbx_landlock_plan_free(struct sbx_landlock_plan *plan)
{
    free(plan->rules);
    plan->rules = NULL;
    plan->n_rules = 0;
}

static struct sbx_landlock_rule *add_rule(struct sbx_landlock_plan *p, const char *path,
                                          const char *label, uint64_t dir_rights,
                                          uint64_t file_rights, int mandatory)
{
    struct sbx_landlock_rule *rule = &p->rules[p->n_rules++];
    rule->path = path;
    rule->label = label;
    rule->dir_rights = dir_rights;
    rule->file_rights = file_rights;
    rule->mandatory = mandatory;
    rule->device = 0;
    rule->gate = NULL;
    rule->root = 0;
    rule->system = 0;
    rule->others = 0;
    return rule;
}

/* The /dev root of confined mode, narrowed to dev_entries. */
static void add_dev_rules(struct sbx_landlock_plan *p, uint64_t fs)
{
    size_t i;
    for (i = 0; i < N_DEV_ENTRIES; i++) {
        struct sbx_landlock_rule *rule;
        uint64_t dir = 0, file = 0;
        /* With reads confined, these are the only devices that open at all. */
        switch (dev_entries[i].kind) {
        case DEV_FILE: /* a directory here would widen the grant: skipped instead */
            file = fs & (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE);
            break;
        case DEV_DIR_OF_DEVICES: /* open the nodes inside; create or remove nothing */
            dir = fs & (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR);
            break;
        default: /* tmpfs scratch: shm_open and sem_open create, link and unlink */
            dir = fs & LL_NO_DEVICE_NODES;
            break;
        }
        rule = add_rule(p, dev_entries[i].path, dev_entries[i].label, dir, file, 0);
        rule->device = 1;
        rule->gate = dev_entries[i].gate;
    }
    /* A terminal outside /dev/pts (a console, a serial line) stays usable. */
    p->terminal = SBX_LL_TERMINAL_IF_NAMED;
}

int sbx_landlock_plan_build(const sbx_resolved *r, int abi, const char *why,
                            struct sbx_landlock_plan *p, char *warning, size_t warning_size,
                            sandbox_error *err)
{
    size_t i, cap;
    uint64_t fs;

    memset(p, 0, sizeof *p);
    p->abi = clamp_abi(abi);
    if (!why || !why[0])
        why = "Landlock is not available";
    if (r->filesystem == SANDBOX_FS_READ_ONLY && p->abi < 6)
        /* Fail closed: read-only without scoping would let signals and
         * abstract sockets reach outside, so it is never degraded. */
        return sbx_fail(err, SANDBOX_E_UNSUPPORTED, 0,
                        "read-only mode needs Landlock ABI 6 (Linux 6.12 or later); this kernel "
                        "has ABI %d%s%s; the command was not run",
                        p->abi, p->abi == 0 ? ": " : "", p->abi == 0 ? why : "");
    sbx_landlock_handled_for(p->abi, r->filesystem, r->network, &p->handled);
    /* --allow-unix @: the host reopened every abstract socket (a scope has
     * no per-name exception). Read-only keeps its scope: it refuses every
     * socket anyway. */
    if (r->allow_abstract_unix && r->filesystem == SANDBOX_FS_CONFINED)
        p->handled.scoped &= ~(uint64_t)SBX_LL_SCOPE_ABSTRACT_UNIX_SOCKET;
    /* A class: reads are confined too (src/reads.c). */
    if (p->abi > 0 && r->filesystem == SANDBOX_FS_CONFINED && r->reads_confined)
        p->handled.fs |= LL_READS;
    if (p->abi == 0) {
        if (r->filesystem == SANDBOX_FS_CONFINED)
            sbx_warn(warning, warning_size, "%s; writes are NOT confined%s", why,
                     r->reads_confined ? ", and neither are the class's reads" : "");
        else if (r->network == SANDBOX_NETWORK_DENY)
            sbx_warn(warning, warning_size,
                     "%s; a network-denied command can still ptrace same-user processes "
                     "outside the sandbox",
                     why);
        return SANDBOX_OK;
    }
    fs = p->handled.fs;
    if (fs == 0)
        return SANDBOX_OK; /* network only: a ruleset with no path rules */

    cap = r->n_roots + 4 + N_DEV_ENTRIES + r->n_reads;
    p->rules = calloc(cap, sizeof *p->rules);
    if (!p->rules)
        return sbx_fail(err, SANDBOX_E_NOMEM, 0, "out of memory while planning Landlock rules");
    if (r->filesystem == SANDBOX_FS_CONFINED) {
        /* The roots are already deduplicated; a root that is a file only
         * gets the rights that mean something on a file. */
        for (i = 0; i < r->n_roots; i++) {
            /* /dev wholesale would include the disks: see dev_entries. */
            if (r->roots[i].kind == SBX_ROOT_DEV)
                add_dev_rules(p, fs);
            else
                add_rule(p, r->roots[i].path, sbx_root_kind_name(r->roots[i].kind),
                         fs & LL_NO_DEVICE_NODES, fs & SBX_LL_FS_FILE_RIGHTS, 0)->root =
                    r->roots[i].shared ? 2 : 1;
        }
        /* Read roots: read (and maybe run), never write. */
        for (i = 0; i < r->n_reads && (fs & LL_READS); i++) {
            const struct sbx_read_root *rd = &r->reads[i];
            uint64_t x = (rd->flags & SBX_READ_EXEC) ? SBX_LL_FS_EXECUTE : 0;
            struct sbx_landlock_rule *rule =
                add_rule(p, rd->path, rd->why, fs & (SBX_LL_FS_READ_FILE | SBX_LL_FS_READ_DIR | x),
                         fs & (SBX_LL_FS_READ_FILE | x), 0);
            rule->root = rd->fixed ? 0 : 1;
            rule->system = rd->fixed;
            rule->others = (rd->flags & SBX_READ_OTHERS) != 0;
        }
    } else if (r->filesystem == SANDBOX_FS_READ_ONLY) {
        /* O_TRUNC on these needs no TRUNCATE right: read-only does not handle it. */
        uint64_t dev = (SBX_LL_FS_WRITE_FILE | SBX_LL_FS_IOCTL_DEV) & fs;
        /* dir_rights 0: a directory at these paths would widen the grant
         * to everything beneath it, so it is an error instead. */
        for (i = 0; i < sizeof ro_devices / sizeof ro_devices[0]; i++)
            add_rule(p, ro_devices[i][0], ro_devices[i][1], 0, dev, 1);
        p->terminal = SBX_LL_TERMINAL_REQUIRED;
    } else {
        add_rule(p, "/", "whole tree (creates the domain, denies nothing)", SBX_LL_FS_MAKE_BLOCK,
                 0, 1);
    }
    return SANDBOX_OK;
}

/* ---- words ---- */

static const char *const fs_names[] = {
    "execute",   "write_file", "read_file", "read_dir",  "remove_dir", "remove_file",
    "make_char", "make_dir",   "make_reg",  "make_sock", "make_fifo",  "make_block",
    "make_sym",  "refer",      "truncate",  "ioctl_dev",
};
static const char *const net_names[] = {"bind_tcp", "connect_tcp"};
static const char *const scope_names[] = {"abstract_unix_socket", "signal"};

void sbx_landlock_rights_names(int kind, uint64_t mask, int json, sbx_buf *out)
{
    const char *const *names = kind == 0 ? fs_names : kind == 1 ? net_names : scope_names;
    size_t n = kind == 0   ? sizeof fs_names / sizeof fs_names[0]
               : kind == 1 ? sizeof net_names / sizeof net_names[0]
                           : sizeof scope_names / sizeof scope_names[0];
    size_t i;
    int first = 1;

    if (json)
        sbx_buf_add(out, "[");
    for (i = 0; i < n; i++) {
        if (!(mask & (1ULL << i)))
            continue;
        if (!first)
            sbx_buf_add(out, ",");
        first = 0;
        if (json)
            sbx_buf_json_str(out, names[i]);
        else
            sbx_buf_add(out, names[i]);
    }
    if (json)
        sbx_buf_add(out, "]");
    else if (first)
        sbx_buf_add(out, "nothing");
}

static void explain_json(const struct sbx_landlock_plan *p, const char *abi_note,
                         const char *note, sbx_buf *out)
{
    size_t i;
    sbx_buf_printf(out, "{\"abi\":%d,\"abi_source\":", p->abi);
    sbx_buf_json_str(out, abi_note);
    sbx_buf_add(out, ",\"handled_fs\":");
    sbx_landlock_rights_names(0, p->handled.fs, 1, out);
    sbx_buf_add(out, ",\"handled_net\":");
    sbx_landlock_rights_names(1, p->handled.net, 1, out);
    sbx_buf_add(out, ",\"scoped\":");
    sbx_landlock_rights_names(2, p->handled.scoped, 1, out);
    sbx_buf_add(out, ",\"rules\":[");
    for (i = 0; i < p->n_rules; i++) {
        const struct sbx_landlock_rule *rule = &p->rules[i];
        sbx_buf_add(out, i ? ",{\"path\":" : "{\"path\":");
        sbx_buf_json_str(out, rule->path);
        sbx_buf_add(out, ",\"what\":");
        sbx_buf_json_str(out, rule->label);
        sbx_buf_add(out, ",\"if_directory\":");
        sbx_landlock_rights_names(0, rule->dir_rights, 1, out);
        sbx_buf_add(out, ",\"if_file\":");
        sbx_landlock_rights_names(0, rule->file_rights, 1, out);
        sbx_buf_printf(out, ",\"mandatory\":%s", rule->mandatory ? "true" : "false");
        if (rule->device)
            sbx_buf_add(out, ",\"device\":true");
        if (rule->gate) {
            sbx_buf_add(out, ",\"only_if\":");
            sbx_buf_json_str(out, rule->gate);
        }
        if (rule->others)
            sbx_buf_add(out, ",\"root_reads_world_readable_only\":true");
        sbx_buf_add(out, "}");
    }
    sbx_buf_add(out, "]");
    if (p->terminal) {
        sbx_buf_add(out, p->terminal == SBX_LL_TERMINAL_REQUIRED ? ",\"terminal\":"
                                                                  : ",\"terminal_outside_pts\":");
        sbx_landlock_rights_names(0, (sbx_landlock_terminal_rights(p->abi) | SBX_LL_FS_READ_FILE) & p->handled.fs, 1,
                                  out);
    }
    if (note) {
        sbx_buf_add(out, ",\"note\":");
        sbx_buf_json_str(out, note);
    }
    sbx_buf_add(out, "}");
}

static void explain_text(const struct sbx_landlock_plan *p, const char *abi_note,
                         const char *note, sbx_buf *out)
{
    size_t i;
    sbx_buf_printf(out, "  landlock (ABI %d, %s):\n", p->abi, abi_note);
    if (note)
        sbx_buf_printf(out, "    %s\n", note);
    if (!p->handled.fs && !p->handled.net && !p->handled.scoped)
        return;
    sbx_buf_add(out, "    denies unless allowed: ");
    sbx_landlock_rights_names(0, p->handled.fs, 0, out);
    if (p->handled.net) {
        sbx_buf_add(out, "; network ");
        sbx_landlock_rights_names(1, p->handled.net, 0, out);
    }
    sbx_buf_add(out, "\n");
    if (p->handled.scoped) {
        sbx_buf_add(out, "    scoped to the sandbox: ");
        sbx_landlock_rights_names(2, p->handled.scoped, 0, out);
        sbx_buf_add(out, "\n");
    }
    for (i = 0; i < p->n_rules; i++) {
        const struct sbx_landlock_rule *rule = &p->rules[i];
        sbx_buf_printf(out, "    allow %s %s (%s%s%s%s%s): ",
                       rule->dir_rights ? "beneath" : "device", rule->path, rule->label,
                       rule->mandatory ? "" : ", skipped if missing",
                       rule->gate ? ", only if " : "", rule->gate ? rule->gate : "",
                       rule->others ? "; for root only what every account may read" : "");
        if (rule->dir_rights) {
            sbx_landlock_rights_names(0, rule->dir_rights, 0, out);
            if (rule->file_rights && rule->file_rights != rule->dir_rights) {
                sbx_buf_add(out, "; as a file: ");
                sbx_landlock_rights_names(0, rule->file_rights, 0, out);
            }
        } else {
            sbx_landlock_rights_names(0, rule->file_rights, 0, out);
        }
        sbx_buf_add(out, "\n");
    }
    if (p->terminal) {
        sbx_buf_add(out, p->terminal == SBX_LL_TERMINAL_REQUIRED
                             ? "    allow the terminal on fds 0-2 and /dev/tty, when attached: "
                             : "    allow the terminal on fds 0-2, when outside /dev/pts: ");
        sbx_landlock_rights_names(0, (sbx_landlock_terminal_rights(p->abi) | SBX_LL_FS_READ_FILE) & p->handled.fs, 0,
                                  out);
        sbx_buf_add(out, "\n");
    }
}

void sbx_landlock_explain_abi(const sbx_resolved *r, int abi, const char *why,
                              const char *abi_note, int json, sbx_buf *out)
{
    struct sbx_landlock_plan p;
    sandbox_error err;
    char warning[256] = "";
    const char *note = NULL;
    int rc;

    if (r->filesystem == SANDBOX_FS_UNRESTRICTED && r->network != SANDBOX_NETWORK_DENY) {
        sbx_buf_add(out, json ? "null" : "  landlock: not used by this policy\n");
        return;
    }
    sbx_error_clear(&err);
    rc = sbx_landlock_plan_build(r, abi, why, &p, warning, sizeof warning, &err);
    if (rc != SANDBOX_OK) {
        memset(&p, 0, sizeof p);
        p.abi = clamp_abi(abi);
        note = err.message;
    } else if (warning[0]) {
        note = warning;
    }
    if (json)
        explain_json(&p, abi_note, note, out);
    else
        explain_text(&p, abi_note, note, out);
    sbx_landlock_plan_free(&p);
}

void sbx_landlock_explain(const sbx_resolved *r, int json, sbx_buf *out)
{
#if defined(__linux__)
    const char *why = "";
    /* Explaining for this host: show what this kernel would really get. */
    int abi = sbx_landlock_abi(&why);
    sbx_landlock_explain_abi(r, abi, why, "this kernel", json, out);
#else
    sbx_landlock_explain_abi(r, SBX_LL_ABI_MAX, "", "assumed: not explained on a Linux host", json,
                             out);
#endif
}
