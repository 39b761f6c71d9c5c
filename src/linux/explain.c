/* What the Linux backend would do for a policy, in words or JSON. Portable:
 * it only reads the plan tables, so it runs on any host; on a Linux host it
 * also reads the project's git index for committed secrets. */
#include "linux.h"
#ifdef __linux__
#include "reslimits.h"
#endif

static const char *net_name(int n)
{
    return n == SANDBOX_NETWORK_DENY ? "deny" : n == SANDBOX_NETWORK_INTERNET_ONLY ? "internet-only" : "allow";
}

static const char *fs_name(int f)
{
    return f == SANDBOX_FS_CONFINED ? "confined" : f == SANDBOX_FS_READ_ONLY ? "read-only" : "unrestricted";
}

/* Committed secrets: only this host's repositories can be read, so only a
 * Linux host explaining its own plan says (the rest is portable). */
static void committed(const sbx_resolved *r, int json, sbx_buf *out)
{
#ifdef __linux__
    if (r->target == SANDBOX_TARGET_LINUX)
        sbx_mask_explain_committed(r, json, out);
#else
    (void)r;
    (void)json;
    (void)out;
#endif
}

/* Which mechanism each resource limit gets on this machine (no cgroup is
 * made: reslimits.c only decides). */
static void limits(const sbx_resolved *r, int json, sbx_buf *out)
{
#ifdef __linux__
    struct sbx_limits l;
    sbx_limits_plan(r->limits, &l);
    sbx_limits_describe(&l, json, out);
#else
    /* Another host cannot know the Linux machine's cgroups: the mechanism
     * is decided there, at launch. */
    static const char *const names[SBX_N_LIMITS] = {NULL,        "memory",    "pids",
                                                    "cpu",       "file-size", "open-files"};
    int w, first = 1;
    if (json)
        sbx_buf_add(out, "[");
    for (w = 1; w < SBX_N_LIMITS; w++) {
        if (!r->limits[w])
            continue;
        if (json)
            sbx_buf_printf(out, "%s{\"limit\":\"%s\",\"value\":%llu,\"mechanism\":\"at-launch\"}",
                           first ? "" : ",", names[w], r->limits[w]);
        else
            sbx_buf_printf(out, "%s    %-10s %llu: decided on the Linux host at launch (a cgroup "
                           "of the run's own where it may make one, else a per-process rlimit)\n",
                           first ? "  resource limits (a supervised run):\n" : "", names[w],
                           r->limits[w]);
        first = 0;
    }
    if (json)
        sbx_buf_add(out, "]");
#endif
}

/* The privileged sockets closed on this machine: a fact of this host only. */
static void endpoints(const sbx_resolved *r, int json, sbx_buf *out)
{
#ifdef __linux__
    if (r->target == SANDBOX_TARGET_LINUX)
        sbx_unix_explain(r, json, out);
#else
    (void)r;
    (void)json;
    (void)out;
#endif
}

int sbx_linux_explain(const sbx_resolved *r, const char *const argv[], int json, sbx_buf *out,
                      sandbox_error *err)
{
    size_t i;
    (void)err;
    if (json) {
        sbx_buf_printf(out, "{\"target\":\"linux\",\"network\":\"%s\",\"filesystem\":\"%s\",",
                       net_name(r->network), fs_name(r->filesystem));
        sbx_buf_printf(out, "\"class\":\"%s\",", sbx_class_name(r->klass));
        sbx_buf_printf(out, "\"deny_action\":\"%s\",",
                       r->deny_action == SANDBOX_DENY_EPERM ? "eperm" : "sigsys");
        sbx_buf_add(out, "\"project_root\":");
        sbx_buf_json_str(out, r->project_root);
        sbx_buf_add(out, ",\"working_dir\":");
        sbx_buf_json_str(out, r->working_dir);
        sbx_buf_add(out, ",\"writable_roots\":[");
        for (i = 0; i < r->n_roots; i++) {
            sbx_buf_add(out, i ? ",{\"kind\":\"" : "{\"kind\":\"");
            sbx_buf_add(out, sbx_root_kind_name(r->roots[i].kind));
            sbx_buf_add(out, "\",\"path\":");
            sbx_buf_json_str(out, r->roots[i].path);
            if (r->roots[i].given) {
                sbx_buf_add(out, ",\"given\":");
                sbx_buf_json_str(out, r->roots[i].given);
            }
            sbx_buf_add(out, "}");
        }
        sbx_buf_add(out, "],\"reads\":");
        sbx_reads_explain(r, 1, out);
        sbx_buf_add(out, ",\"landlock\":");
        sbx_landlock_explain(r, 1, out);
        sbx_buf_add(out, ",\"seccomp\":");
        sbx_seccomp_explain(r, 1, out);
        sbx_buf_add(out, ",\"creation_guard\":");
        sbx_seccomp_explain_guard(r, 1, out);
        sbx_buf_add(out, ",\"user_namespaces\":");
        sbx_seccomp_explain_userns(r, 1, out);
        sbx_buf_add(out, ",\"supervised\":");
        sbx_seccomp_explain_supervised(r, 1, out);
        sbx_buf_add(out, ",\"limits\":");
        limits(r, 1, out);
        sbx_buf_add(out, ",\"protected_paths\":");
        sbx_protect_explain(r, SBX_LINUX_PROTECT_MECHANISM, SBX_LINUX_PROTECT_GAPS, 1, out);
        committed(r, 1, out);
        endpoints(r, 1, out);
        sbx_buf_add(out, ",\"capabilities\":");
        sbx_caps_explain(r, 1, out);
        sbx_buf_add(out, ",\"argv\":[");
        for (i = 0; argv[i]; i++) {
            if (i)
                sbx_buf_add(out, ",");
            sbx_buf_json_str(out, argv[i]);
        }
        sbx_buf_add(out, "]}\n");
        return SANDBOX_OK;
    }
    sbx_buf_printf(out, "target: linux\nclass: %s\nnetwork: %s\nfilesystem: %s\n",
                   sbx_class_name(r->klass), net_name(r->network), fs_name(r->filesystem));
    sbx_buf_printf(out, "project root: %s\nworking directory: %s\n", r->project_root,
                   r->working_dir);
    if (r->n_roots) {
        /* What each root resolved to: the grant is the right-hand side. */
        sbx_buf_add(out, "writable roots:\n");
        for (i = 0; i < r->n_roots; i++) {
            if (r->roots[i].given)
                sbx_buf_printf(out, "  %-12s %s -> %s\n", sbx_root_kind_name(r->roots[i].kind),
                               r->roots[i].given, r->roots[i].path);
            else
                sbx_buf_printf(out, "  %-12s %s\n", sbx_root_kind_name(r->roots[i].kind),
                               r->roots[i].path);
        }
    }
    sbx_reads_explain(r, 0, out);
    sbx_buf_add(out, "enforced by:\n");
    sbx_landlock_explain(r, 0, out);
    sbx_seccomp_explain(r, 0, out);
    sbx_seccomp_explain_guard(r, 0, out);
    sbx_seccomp_explain_userns(r, 0, out);
    sbx_seccomp_explain_supervised(r, 0, out);
    limits(r, 0, out);
    sbx_protect_explain(r, SBX_LINUX_PROTECT_MECHANISM, SBX_LINUX_PROTECT_GAPS, 0, out);
    committed(r, 0, out);
    endpoints(r, 0, out);
    sbx_caps_explain(r, 0, out);
    sbx_buf_add(out, "argv:");
    for (i = 0; argv[i]; i++) {
        sbx_buf_add(out, " ");
        sbx_buf_add(out, argv[i]);
    }
    sbx_buf_add(out, "\n");
    return SANDBOX_OK;
}
