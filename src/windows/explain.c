/* What the Windows backend would do for a policy, in words or JSON. Portable:
 * it renders the AppContainer plan, so it runs on any host. */
#include "plan.h"

/* The container SID is derived from a per-run profile name, so a plan made
 * ahead of the run can only name it. */
#define CONTAINER_SID_PLACEHOLDER "<container-sid>"

static const char *net_name(int n)
{
    return n == SANDBOX_NETWORK_DENY ? "deny" : "allow";
}

static const char *fs_name(int f)
{
    return f == SANDBOX_FS_CONFINED ? "confined" : "unrestricted";
}

static void json_argv(sbx_buf *out, const char *const argv[])
{
    size_t i;
    sbx_buf_add(out, "[");
    for (i = 0; argv[i]; i++) {
        if (i)
            sbx_buf_add(out, ",");
        sbx_buf_json_str(out, argv[i]);
    }
    sbx_buf_add(out, "]");
}

static void explain_json(const sbx_resolved *r, const sbx_win_plan *p, const char *const argv[],
                         sbx_buf *out)
{
    size_t i;
    sbx_buf_printf(out, "{\"target\":\"windows\",\"network\":\"%s\",\"filesystem\":\"%s\",",
                   net_name(r->network), fs_name(r->filesystem));
    sbx_buf_printf(out, "\"mechanism\":\"%s\",\"appcontainer\":%s,",
                   p->contained ? "appcontainer" : "none", p->contained ? "true" : "false");
    sbx_buf_add(out, "\"project_root\":");
    sbx_buf_json_str(out, r->project_root);
    sbx_buf_add(out, ",\"working_dir\":");
    sbx_buf_json_str(out, r->working_dir);
    sbx_buf_add(out, ",\"capabilities\":[");
    for (i = 0; i < p->n_caps; i++)
        sbx_buf_printf(out, "%s{\"name\":\"%s\",\"sid\":\"%s\"}", i ? "," : "",
                       sbx_win_cap_name(p->caps[i]), sbx_win_cap_sid(p->caps[i]));
    sbx_buf_add(out, "],\"grants\":[");
    for (i = 0; i < p->n_grants; i++) {
        sbx_buf_printf(out, "%s{\"kind\":\"%s\",\"path\":", i ? "," : "",
                       sbx_root_kind_name(p->grants[i].kind));
        sbx_buf_json_str(out, p->grants[i].path);
        sbx_buf_add(out, ",\"sddl\":\"");
        sbx_win_grant_sddl(out, CONTAINER_SID_PLACEHOLDER);
        sbx_buf_add(out, "\"}");
    }
    sbx_buf_add(out, "],\"denies\":[");
    for (i = 0; i < p->n_denies; i++) {
        sbx_buf_printf(out, "%s{\"kind\":\"%s\",\"path\":", i ? "," : "",
                       sbx_win_deny_kind_name(p->denies[i].kind));
        sbx_buf_json_str(out, p->denies[i].path);
        sbx_buf_printf(out, ",\"directory\":%s,\"sddl\":\"", p->denies[i].is_dir ? "true" : "false");
        sbx_win_deny_sddl(out, &p->denies[i], CONTAINER_SID_PLACEHOLDER);
        sbx_buf_add(out, "\"}");
    }
    sbx_buf_add(out, "],\"reads\":");
    sbx_reads_explain(r, 1, out);
    sbx_buf_add(out, ",\"protected_paths\":");
    sbx_protect_explain(r, SBX_WIN_PROTECT_MECHANISM, SBX_WIN_PROTECT_GAPS, 1, out);
    /* Never claimed: whether the exemption can be set is known only when the
     * run tries (an administrator's right). */
    sbx_buf_add(out, ",\"loopback_exempt\":false,\"loopback\":");
    sbx_buf_json_str(out, p->loopback_wanted ? SBX_WIN_LOOPBACK_NOTE : "not applicable");
    sbx_buf_add(out, ",\"program_lookup\":");
    sbx_buf_json_str(out, SBX_WIN_TOOLS_NOTE);
    sbx_buf_printf(out, ",\"stricter_than_asked\":%s,", p->stricter ? "true" : "false");
    sbx_buf_add(out, "\"command_line\":");
    sbx_buf_json_str(out, p->command_line);
    sbx_buf_add(out, ",\"argv\":");
    json_argv(out, argv);
    sbx_buf_add(out, "}\n");
}

static void explain_text(const sbx_resolved *r, const sbx_win_plan *p, sbx_buf *out)
{
    size_t i;
    sbx_buf_printf(out, "target: windows\nnetwork: %s\nfilesystem: %s\n", net_name(r->network),
                   fs_name(r->filesystem));
    sbx_buf_printf(out, "project root: %s\nworking directory: %s\n", r->project_root,
                   r->working_dir);
    if (!p->contained) {
        sbx_buf_add(out, "enforced by: nothing (the policy asks for nothing)\n");
    } else {
        sbx_buf_add(out, "enforced by: an AppContainer with a per-run profile\n");
        sbx_buf_add(out, "capabilities:");
        if (!p->n_caps)
            sbx_buf_add(out, " none (no network beyond loopback)");
        for (i = 0; i < p->n_caps; i++)
            sbx_buf_printf(out, " %s (%s)", sbx_win_cap_name(p->caps[i]),
                           sbx_win_cap_sid(p->caps[i]));
        sbx_buf_add(out, "\nwrite grants to the container SID, inherited below each root:\n");
        for (i = 0; i < p->n_grants; i++) {
            sbx_buf_printf(out, "  %-8s %s ", sbx_root_kind_name(p->grants[i].kind),
                           p->grants[i].path);
            sbx_win_grant_sddl(out, CONTAINER_SID_PLACEHOLDER);
            sbx_buf_add(out, "\n");
        }
        if (p->n_denies)
            sbx_buf_add(out, "deny ACEs for the container SID (set before the command starts, "
                             "removed when it ends):\n");
        for (i = 0; i < p->n_denies; i++) {
            sbx_buf_printf(out, "  %-10s ", sbx_win_deny_kind_name(p->denies[i].kind));
            sbx_buf_json_str(out, p->denies[i].path);
            sbx_buf_add(out, " ");
            sbx_win_deny_sddl(out, &p->denies[i], CONTAINER_SID_PLACEHOLDER);
            sbx_buf_add(out, "\n");
        }
        sbx_reads_explain(r, 0, out);
        sbx_protect_explain(r, SBX_WIN_PROTECT_MECHANISM, SBX_WIN_PROTECT_GAPS, 0, out);
        if (p->loopback_wanted)
            sbx_buf_add(out, "loopback: " SBX_WIN_LOOPBACK_NOTE "\n");
        sbx_buf_add(out, "program: " SBX_WIN_TOOLS_NOTE "\n");
        if (p->stricter)
            sbx_buf_add(out, "note: Windows is stricter than asked here: writes are allowed only "
                             "in the working and temp directories\n");
    }
    sbx_buf_add(out, "command line: ");
    sbx_buf_add(out, p->command_line);
    sbx_buf_add(out, "\n");
}

int sbx_windows_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                        sandbox_error *err)
{
    sbx_win_plan plan;
    struct sbx_win_fs fs;
    int rc = sbx_win_plan_build(r, argv, &plan, err);
    if (rc != SANDBOX_OK)
        return rc;
    /* The same walk the backend does, on this host's file system. */
    sbx_win_fs_host(&fs);
    rc = sbx_win_plan_protect(r, &fs, &plan, err);
    if (rc != SANDBOX_OK) {
        sbx_win_plan_free(&plan);
        return rc;
    }
    if (json)
        explain_json(r, &plan, argv, out);
    else
        explain_text(r, &plan, out);
    sbx_win_plan_free(&plan);
    return SANDBOX_OK;
}
