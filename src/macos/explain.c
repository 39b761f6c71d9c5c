/* Explain the macOS plan: what sandbox-exec would be given, on any host.
 * Paths are always printed quoted (JSON string syntax, also in the text form),
 * so a path with a newline cannot forge a line of the explanation. */
#include "seatbelt.h"

static const char *network_name(int n)
{
    switch (n) {
    case SANDBOX_NETWORK_ALLOW: return "allow";
    case SANDBOX_NETWORK_DENY: return "deny";
    case SANDBOX_NETWORK_INTERNET_ONLY: return "internet-only";
    default: return "?";
    }
}

static const char *fs_name(int f)
{
    switch (f) {
    case SANDBOX_FS_UNRESTRICTED: return "unrestricted";
    case SANDBOX_FS_CONFINED: return "confined";
    case SANDBOX_FS_READ_ONLY: return "read-only";
    default: return "?";
    }
}

/* Enough for the table in seatbelt.c; a longer list would be cut, never overrun. */
#define MAX_MACH 32

static void explain_json(const sbx_resolved *r, const sbx_seatbelt_plan *p, sbx_buf *out)
{
    const char *mach[MAX_MACH];
    size_t i, n_mach = sbx_seatbelt_mach_services(r, mach, MAX_MACH);
    if (n_mach > MAX_MACH)
        n_mach = MAX_MACH;
    sbx_buf_add(out, "{\"target\":\"macos\",\"mechanism\":\"seatbelt\",\"sandbox_exec\":");
    sbx_buf_json_str(out, SBX_SANDBOX_EXEC);
    sbx_buf_printf(out, ",\"network\":\"%s\",\"filesystem\":\"%s\",\"profile_kind\":\"%s\"",
                   network_name(r->network), fs_name(r->filesystem),
                   "deny-default");
    sbx_buf_add(out, ",\"working_dir\":");
    sbx_buf_json_str(out, r->working_dir);
    sbx_buf_add(out, ",\"project_root\":");
    sbx_buf_json_str(out, r->project_root);
    sbx_buf_add(out, ",\"roots\":[");
    for (i = 0; i < p->n_roots; i++) {
        sbx_buf_add(out, i ? ",{\"kind\":" : "{\"kind\":");
        sbx_buf_json_str(out, sbx_root_kind_name(p->roots[i].kind));
        sbx_buf_add(out, ",\"path\":");
        sbx_buf_json_str(out, p->roots[i].path);
        sbx_buf_add(out, ",\"canonical\":");
        sbx_buf_json_str(out, p->roots[i].canonical);
        sbx_buf_add(out, "}");
    }
    sbx_buf_add(out, "],\"reads\":");
    sbx_reads_explain(r, 1, out);
    sbx_buf_add(out, ",\"mach_services\":[");
    for (i = 0; i < n_mach; i++) {
        if (i)
            sbx_buf_add(out, ",");
        sbx_buf_json_str(out, mach[i]);
    }
    sbx_buf_add(out, "],\"protected_paths\":");
    sbx_protect_explain(r, SBX_MACOS_PROTECT_MECHANISM, SBX_MACOS_PROTECT_GAPS, 1, out);
    sbx_buf_add(out, ",\"profile\":");
    sbx_buf_json_str(out, p->profile);
    sbx_buf_add(out, ",\"params\":{");
    for (i = 0; i < p->n_params; i++) {
        if (i)
            sbx_buf_add(out, ",");
        sbx_buf_json_str(out, p->params[i].key);
        sbx_buf_add(out, ":");
        sbx_buf_json_str(out, p->params[i].value);
    }
    sbx_buf_add(out, "},\"argv\":[");
    for (i = 0; i < p->argc; i++) {
        if (i)
            sbx_buf_add(out, ",");
        sbx_buf_json_str(out, p->argv[i]);
    }
    sbx_buf_add(out, "]}\n");
}

static void explain_text(const sbx_resolved *r, const sbx_seatbelt_plan *p, sbx_buf *out)
{
    const char *mach[MAX_MACH];
    size_t i, n_mach = sbx_seatbelt_mach_services(r, mach, MAX_MACH);
    if (n_mach > MAX_MACH)
        n_mach = MAX_MACH;
    sbx_buf_printf(out, "target:      macos (Seatbelt through %s)\n", SBX_SANDBOX_EXEC);
    sbx_buf_printf(out, "network:     %s%s\n", network_name(r->network),
                   r->filesystem == SANDBOX_FS_READ_ONLY ? " (every socket, unix included)"
                   : r->class_chosen ? (r->network == SANDBOX_NETWORK_DENY
                                            ? " (unix sockets refused too: the class)"
                                            : " (unix sockets: only the resolver's)")
                   : r->network == SANDBOX_NETWORK_DENY ? " (local AF_UNIX spared, DNS refused)"
                                                        : "");
    sbx_buf_printf(out, "filesystem:  %s\n", fs_name(r->filesystem));
    sbx_buf_add(out, "working dir: ");
    sbx_buf_json_str(out, r->working_dir);
    sbx_buf_add(out, "\nwritable roots (literal -> canonical):\n");
    if (p->n_roots == 0)
        sbx_buf_add(out, "  (none)\n");
    for (i = 0; i < p->n_roots; i++) {
        sbx_buf_printf(out, "  %-12s ", sbx_root_kind_name(p->roots[i].kind));
        sbx_buf_json_str(out, p->roots[i].path);
        sbx_buf_add(out, " -> ");
        sbx_buf_json_str(out, p->roots[i].canonical);
        sbx_buf_add(out, "\n");
    }
    sbx_reads_explain(r, 0, out);
    sbx_buf_add(out, "profile:     deny-default; launchd jobs, LaunchServices, Apple events and "
                     "the keychain services refused\nmach services allowed:\n");
    for (i = 0; i < n_mach; i++)
        sbx_buf_printf(out, "  %s\n", mach[i]);
    sbx_protect_explain(r, SBX_MACOS_PROTECT_MECHANISM, SBX_MACOS_PROTECT_GAPS, 0, out);
    sbx_buf_add(out, "parameters (-D):\n");
    if (p->n_params == 0)
        sbx_buf_add(out, "  (none)\n");
    for (i = 0; i < p->n_params; i++) {
        sbx_buf_printf(out, "  %s = ", p->params[i].key);
        sbx_buf_json_str(out, p->params[i].value);
        sbx_buf_add(out, "\n");
    }
    sbx_buf_add(out, "profile (-p):\n");
    sbx_buf_add(out, p->profile);
    sbx_buf_add(out, "argv (one element a line; the profile element stands for the text above):\n");
    for (i = 0; i < p->argc; i++) {
        sbx_buf_add(out, "  ");
        if (i == 2)
            sbx_buf_add(out, "<profile>");
        else
            sbx_buf_json_str(out, p->argv[i]);
        sbx_buf_add(out, "\n");
    }
}

int sbx_macos_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                      sandbox_error *err)
{
    sbx_seatbelt_plan plan;
    size_t i;
    if (r->network == SANDBOX_NETWORK_ALLOW && r->filesystem == SANDBOX_FS_UNRESTRICTED &&
        !r->protected_paths_blocked) {
        /* sandbox_enforce() runs an all-off policy's argv unchanged. */
        if (json) {
            sbx_buf_add(out, "{\"target\":\"macos\",\"mechanism\":\"none\",\"network\":\"allow\","
                             "\"filesystem\":\"unrestricted\",\"profile\":null,\"params\":{},\"argv\":[");
            for (i = 0; argv[i]; i++) {
                if (i)
                    sbx_buf_add(out, ",");
                sbx_buf_json_str(out, argv[i]);
            }
            sbx_buf_add(out, "]}\n");
        } else {
            sbx_buf_add(out, "target:      macos\nnothing is enforced: the command runs as is\n");
        }
        return SANDBOX_OK;
    }
    /* On a Mac this is what enforcing would compute (realpath); elsewhere the
     * firmlink map is applied as text. */
    int rc = sbx_seatbelt_plan_build(r, argv, sbx_macos_canon_host, &plan, err);
    if (rc != SANDBOX_OK)
        return rc;
    if (json)
        explain_json(r, &plan, out);
    else
        explain_text(r, &plan, out);
    sbx_seatbelt_plan_free(&plan);
    return SANDBOX_OK;
}
