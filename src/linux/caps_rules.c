/* Which capabilities a command loses in each mode, and their names for
 * explain. Portable C with no system calls (unit-tested on any host);
 * src/linux/caps.c drops them on Linux. The numbers are the kernel's stable
 * ABI (linux/capability.h), spelled out here so this file builds anywhere. */
#include "linux.h"

/* Indexed by capability number, up to the newest one this library names. */
static const char *const cap_names[] = {
    "chown",          "dac_override",     "dac_read_search", "fowner",       "fsetid",
    "kill",           "setgid",           "setuid",          "setpcap",      "linux_immutable",
    "net_bind_service", "net_broadcast",  "net_admin",       "net_raw",      "ipc_lock",
    "ipc_owner",      "sys_module",       "sys_rawio",       "sys_chroot",   "sys_ptrace",
    "sys_pacct",      "sys_admin",        "sys_boot",        "sys_nice",     "sys_resource",
    "sys_time",       "sys_tty_config",   "mknod",           "lease",        "audit_write",
    "audit_control",  "setfcap",          "mac_override",    "mac_admin",    "syslog",
    "wake_alarm",     "block_suspend",    "audit_read",      "perfmon",      "bpf",
    "checkpoint_restore",
};

#define N_NAMED ((int)(sizeof cap_names / sizeof cap_names[0]))

uint64_t sbx_caps_drop_mask(int filesystem, int network)
{
    /* Read-only: nothing a command does needs a capability. */
    if (filesystem == SANDBOX_FS_READ_ONLY)
        return SBX_CAPS_ALL;
    /* Any confinement: an allowlist of kept ones, so a capability a newer
     * kernel adds is dropped by default rather than kept by omission. */
    if (filesystem == SANDBOX_FS_CONFINED || network == SANDBOX_NETWORK_DENY)
        return ~SBX_CAPS_KEEP;
    return 0;
}

const char *sbx_cap_name(int cap)
{
    return cap >= 0 && cap < N_NAMED ? cap_names[cap] : NULL;
}

static void list(uint64_t mask, int json, sbx_buf *out)
{
    int cap, first = 1;
    if (json)
        sbx_buf_add(out, "[");
    for (cap = 0; cap < N_NAMED; cap++) {
        if (!(mask & (1ULL << cap)))
            continue;
        sbx_buf_add(out, first ? "" : ",");
        first = 0;
        if (json)
            sbx_buf_printf(out, "\"cap_%s\"", cap_names[cap]);
        else
            sbx_buf_printf(out, "cap_%s", cap_names[cap]);
    }
    if (json)
        sbx_buf_add(out, "]");
    else if (first)
        sbx_buf_add(out, "none");
}

void sbx_caps_explain(const sbx_resolved *r, int json, sbx_buf *out)
{
    uint64_t drop = sbx_caps_drop_mask(r->filesystem, r->network);
    uint64_t later = drop & ~((1ULL << N_NAMED) - 1);
    /* Only a full drop (or the masks' user namespace) empties the bounding
     * set; a partial one leaves it, and no_new_privs keeps exec from giving
     * a dropped capability back (src/linux/caps.c). */
    int bounding = drop == SBX_CAPS_ALL || r->n_protect;

    if (!drop) {
        sbx_buf_add(out, json ? "null" : "  capabilities: not changed by this policy\n");
        return;
    }
    if (json) {
        sbx_buf_add(out, "{\"when\":\"the command runs with capabilities (root)\",\"drop\":");
        list(drop, 1, out);
        sbx_buf_add(out, ",\"keep\":");
        list(~drop, 1, out);
        sbx_buf_printf(out,
                       ",\"drop_unnamed_above\":%s,\"bounding_set\":%s,"
                       "\"protected_paths_drop_all\":%s}",
                       later ? "true" : "false", bounding ? "true" : "false",
                       r->n_protect ? "true" : "false");
        return;
    }
    if (drop == SBX_CAPS_ALL)
        sbx_buf_add(out, "  capabilities (when run as root or with any capability; dropped from "
                         "every set, the bounding set included):\n    drop: ");
    else
        sbx_buf_add(out,
                    "  capabilities (when run as root or with any capability; dropped from the "
                    "inheritable, permitted, effective and ambient sets; the bounding set is "
                    "left unchanged, no_new_privs keeps them from coming back at exec):\n"
                    "    drop: ");
    list(drop, 0, out);
    if (later)
        sbx_buf_printf(out, ", and any numbered %d or above", N_NAMED);
    sbx_buf_add(out, "\n    keep: ");
    list(~drop, 0, out);
    sbx_buf_add(out, "\n");
    if (r->n_protect)
        /* mask.c enters a user namespace and empties every set there. */
        sbx_buf_add(out, "    with protected paths in force: none kept (the masks' private user "
                         "namespace empties every set, the bounding set included)\n");
}
