/* The outcome of a run in JSON (docs/api.md, "The outcome"). Every record
 * says whether it is certain: only the kernel's own decisions, reported to a
 * supervisor, are; an exit status or a sentence in the error output never
 * is, since a command can produce both itself. */
#include "outcome.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const signal_names[] = {
    NULL,      "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",    "SIGTRAP", "SIGABRT",
    "SIGBUS",  "SIGFPE",  "SIGKILL",   "SIGUSR1", "SIGSEGV",   "SIGUSR2", "SIGPIPE",
    "SIGALRM", "SIGTERM", "SIGSTKFLT", "SIGCHLD", "SIGCONT",   "SIGSTOP", "SIGTSTP",
    "SIGTTIN", "SIGTTOU", "SIGURG",    "SIGXCPU", "SIGXFSZ",   "SIGVTALRM", "SIGPROF",
    "SIGWINCH", "SIGIO",  "SIGPWR",    "SIGSYS",
};

const char *sbx_signal_name(int sig)
{
    return sig > 0 && sig < (int)(sizeof signal_names / sizeof signal_names[0])
               ? signal_names[sig]
               : NULL;
}

static const struct {
    int value;
    const char *name;
} families[] = {
    {0, "AF_UNSPEC"},  {1, "AF_UNIX"},   {2, "AF_INET"},    {3, "AF_AX25"},
    {4, "AF_IPX"},     {5, "AF_APPLETALK"}, {9, "AF_X25"},  {10, "AF_INET6"},
    {16, "AF_NETLINK"}, {17, "AF_PACKET"}, {21, "AF_RDS"},  {29, "AF_CAN"},
    {30, "AF_TIPC"},   {31, "AF_BLUETOOTH"}, {38, "AF_ALG"}, {40, "AF_VSOCK"},
    {44, "AF_XDP"},    {45, "AF_MCTP"},
};

const char *sbx_family_name(int family)
{
    size_t i;
    for (i = 0; i < sizeof families / sizeof families[0]; i++)
        if (families[i].value == family)
            return families[i].name;
    return NULL;
}

static const char *type_name(int type)
{
    static const char *const names[] = {NULL, "SOCK_STREAM", "SOCK_DGRAM", "SOCK_RAW",
                                        "SOCK_RDM", "SOCK_SEQPACKET", "SOCK_DCCP"};
    if (type == 10)
        return "SOCK_PACKET";
    return type > 0 && type < (int)(sizeof names / sizeof names[0]) ? names[type] : NULL;
}

static const char *kind_name(int kind)
{
    switch (kind) {
    case SBX_REC_SOCKET: return "socket";
    case SBX_REC_IO_URING: return "io_uring";
    case SBX_REC_PROTECTED: return "protected_name";
    case SBX_REC_UNIX: return "closed_endpoint";
    default: return "hedged";
    }
}

static const char *action_name(int action)
{
    switch (action) {
    case SBX_ACT_SIGSYS: return "SIGSYS";
    case SBX_ACT_SIGKILL: return "SIGKILL";
    case SBX_ACT_EPERM: return "EPERM";
    case SBX_ACT_EACCES: return "EACCES";
    case SBX_ACT_CAUGHT: return "SIGSYS_CAUGHT";
    case SBX_ACT_ENDED: return "ENDED";
    case SBX_ACT_CLOSED: return "CLOSED";
    default: return NULL;
    }
}

static void str_or_null(sbx_buf *b, const char *s)
{
    if (s)
        sbx_buf_json_str(b, s);
    else
        sbx_buf_add(b, "null");
}

static void record_json(sbx_buf *b, const struct sbx_outcome_rec *r)
{
    int certain = r->kind != SBX_REC_HEDGED;
    sbx_buf_add(b, "{\"kind\":");
    sbx_buf_json_str(b, kind_name(r->kind));
    sbx_buf_printf(b, ",\"certain\":%s,\"syscall\":", certain ? "true" : "false");
    str_or_null(b, certain ? r->syscall : NULL);
    sbx_buf_add(b, ",\"abi\":");
    str_or_null(b, certain ? (r->compat ? "compat" : "native") : NULL);
    if (certain && r->family >= 0) {
        sbx_buf_printf(b, ",\"family\":%d,\"family_name\":", r->family);
        str_or_null(b, sbx_family_name(r->family));
    } else {
        sbx_buf_add(b, ",\"family\":null,\"family_name\":null");
    }
    if (certain && r->type >= 0) {
        sbx_buf_printf(b, ",\"type\":%d,\"type_name\":", r->type);
        str_or_null(b, type_name(r->type));
    } else {
        sbx_buf_add(b, ",\"type\":null,\"type_name\":null");
    }
    sbx_buf_add(b, ",\"path\":");
    str_or_null(b, certain ? r->path : NULL);
    if (certain && r->pid > 0)
        sbx_buf_printf(b, ",\"pid\":%ld", r->pid);
    else
        sbx_buf_add(b, ",\"pid\":null");
    sbx_buf_add(b, ",\"comm\":");
    str_or_null(b, certain && r->comm[0] ? r->comm : NULL);
    sbx_buf_add(b, ",\"action\":");
    str_or_null(b, certain ? action_name(r->action) : NULL);
    sbx_buf_printf(b, ",\"count\":%lu,\"text\":", certain ? r->count : 1UL);
    str_or_null(b, certain ? NULL : r->text);
    sbx_buf_add(b, "}");
}

static const char *sup_fail_name(int step)
{
    switch (step) {
    case SBX_SUP_FAIL_TABLE: return "mapping its table of processes";
    case SBX_SUP_FAIL_SIGNALFD: return "signalfd";
    case SBX_SUP_FAIL_PDEATHSIG: return "prctl(PR_SET_PDEATHSIG)";
    case SBX_SUP_FAIL_POLL: return "poll";
    default: return "an unnamed step";
    }
}

int sbx_outcome_failure(const struct sbx_outcome_data *d, char *buf, size_t size)
{
    if (!(d->flags & SBX_RUN_SUP_FAILED)) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    if (d->sup_fail == SBX_SUP_FAIL_DIED) {
        const char *sig = d->sup_errno > 0 ? sbx_signal_name(d->sup_errno) : NULL;
        char num[16];
        if (!sig) {
            snprintf(num, sizeof num, "signal %d", d->sup_errno);
            sig = d->sup_errno > 0 ? num : "an exit";
        }
        snprintf(buf, size,
                 "the sandbox's supervisor died (%s) before the run ended, killed from outside "
                 "or by a limit the host set (ulimit -t): this status is the supervisor's, not "
                 "the command's; the command was ended, what it started was left to the host "
                 "(the launcher ends it), and the records stop where it died",
                 sig);
        return 1;
    }
    if (d->flags & SBX_RUN_ENDED) {
        snprintf(buf, size,
                 "the sandbox's supervisor failed after the command had exited (%s: %s): the "
                 "exit status is the command's own; it ended at once every process the command "
                 "had left running",
                 sup_fail_name(d->sup_fail),
                 d->sup_errno > 0 ? strerror(d->sup_errno) : "no errno");
        return 1;
    }
    snprintf(buf, size,
             "the sandbox's supervisor failed after the command had started (%s: %s): it "
             "ended the command and every process the command started; this exit status "
             "126 is the sandbox's, not the command's",
             sup_fail_name(d->sup_fail), d->sup_errno > 0 ? strerror(d->sup_errno) : "no errno");
    return 1;
}

void sbx_outcome_json(const struct sbx_outcome_data *d, sbx_buf *b)
{
    int signaled = !d->exit_code_only && (d->status & 0x7f) != 0 && (d->status & 0x7f) != 0x7f;
    int sig = d->status & 0x7f;
    size_t i, n_certain = 0;
    char line[512];

    sbx_buf_printf(b, "{\"schema\":%d,", SANDBOX_OUTCOME_SCHEMA);
    if (d->exit_code_only)
        sbx_buf_printf(b, "\"exit_code\":%d,\"signal\":null,\"signal_name\":null,", d->status);
    else if (signaled) {
        sbx_buf_printf(b, "\"exit_code\":null,\"signal\":%d,\"signal_name\":", sig);
        str_or_null(b, sbx_signal_name(sig));
        sbx_buf_add(b, ",");
    } else {
        sbx_buf_printf(b, "\"exit_code\":%d,\"signal\":null,\"signal_name\":null,",
                       (d->status >> 8) & 0xff);
    }
    sbx_buf_printf(b, "\"timed_out\":%s,\"ended_by_host\":%s,",
                   (d->flags & SBX_RUN_TIMED_OUT) ? "true" : "false",
                   (d->flags & (SBX_RUN_HOST_GONE | SBX_RUN_STOPPED)) ? "true" : "false");
    /* Added in schema 1 (members are only ever added): the resource limit
     * that ended the run; a limit the cgroup counted wins over the clock. */
    sbx_buf_add(b, "\"limit\":");
    str_or_null(b, d->limit ? d->limit : (d->flags & SBX_RUN_TIMED_OUT) ? "timeout" : NULL);
    sbx_buf_printf(b, ",\"limit_certain\":%s,",
                   d->limit ? (d->limit_certain ? "true" : "false")
                   : (d->flags & SBX_RUN_TIMED_OUT) ? "true" : "false");
    if (d->duration >= 0)
        sbx_buf_printf(b, "\"duration_seconds\":%.6f,", d->duration);
    else
        sbx_buf_add(b, "\"duration_seconds\":null,");
    sbx_buf_add(b, "\"sandbox\":");
    str_or_null(b, d->describe);
    sbx_buf_printf(b, ",\"supervised\":%s,\"records_available\":%s,\"records\":[",
                   d->supervised ? "true" : "false",
                   d->supervised && !(d->flags & SBX_RUN_NO_LISTENER) ? "true" : "false");
    for (i = 0; i < d->n_recs; i++) {
        if (i)
            sbx_buf_add(b, ",");
        record_json(b, &d->recs[i]);
        n_certain += d->recs[i].kind != SBX_REC_HEDGED;
    }
    sbx_buf_printf(b, "],\"records_dropped\":%lu,\"leftover_processes\":%lu,\"summary\":",
                   d->dropped, d->leftovers);
    sbx_outcome_summary(d, line, sizeof line);
    str_or_null(b, line[0] ? line : NULL);
    /* Added in schema 1 (review r57 F2): a 126 of the sandbox's own. */
    sbx_buf_add(b, ",\"sandbox_failure\":");
    sbx_outcome_failure(d, line, sizeof line);
    str_or_null(b, line[0] ? line : NULL);
    /* Added too (review r61 F3): whose the status is, for a program. */
    sbx_buf_add(b, ",\"sandbox_failed\":");
    str_or_null(b, !(d->flags & SBX_RUN_SUP_FAILED) ? NULL
                   : (d->flags & SBX_RUN_ENDED)      ? "after_exit"
                                                     : "run");
    sbx_buf_add(b, ",\"warning\":");
    str_or_null(b, d->warning && d->warning[0] ? d->warning : NULL);
    sbx_buf_add(b, "}");
    (void)n_certain;
}

void sbx_outcome_summary(const struct sbx_outcome_data *d, char *buf, size_t size)
{
    const struct sbx_outcome_rec *first = NULL, *hedged = NULL;
    char who[64], what[160];
    unsigned long more = d->dropped;
    const char *fam, *done;
    size_t i;

    buf[0] = '\0';
    if (sbx_outcome_failure(d, buf, size))
        return;
    for (i = 0; i < d->n_recs; i++) {
        if (d->recs[i].kind == SBX_REC_HEDGED)
            hedged = &d->recs[i];
        else if (!first)
            first = &d->recs[i];
        else
            more += d->recs[i].count;
    }
    if (!first) {
        if (d->limit)
            snprintf(buf, size, "ended by the run's %s limit%s", d->limit,
                     d->limit_certain ? "" : " (as its exit status suggests)");
        else if (hedged && hedged->text)
            snprintf(buf, size, "%s", hedged->text);
        return;
    }
    more += first->count - 1;
    if (first->pid > 0)
        snprintf(who, sizeof who, "%s (pid %ld)", first->comm[0] ? first->comm : "a process",
                 first->pid);
    else
        snprintf(who, sizeof who, "%s", first->comm[0] ? first->comm : "a process");
    done = first->action == SBX_ACT_SIGSYS ? "was sent SIGSYS"
           : first->action == SBX_ACT_SIGKILL
               ? "was killed with SIGKILL (SIGSYS was blocked, ignored or taken by a tracer)"
           : first->action == SBX_ACT_CAUGHT
               ? "was sent SIGSYS, which its handler caught (the call failed with EPERM)"
           : first->action == SBX_ACT_ENDED
               ? "was sent SIGSYS, but its process ended another way before taking it"
           : first->action == SBX_ACT_EACCES ? "got EACCES"
           : first->action == SBX_ACT_CLOSED ? "the connection was closed at once"
                                             : "got EPERM";
    switch (first->kind) {
    case SBX_REC_SOCKET:
        fam = sbx_family_name(first->family);
        if (fam)
            snprintf(what, sizeof what, "an %s socket", fam);
        else if (first->family >= 0)
            snprintf(what, sizeof what, "a socket of family %d", first->family);
        else
            snprintf(what, sizeof what, "a socket");
        snprintf(buf, size, "blocked by the %s sandbox: %s tried to open %s and %s",
                 first->family == 1 || first->family == 16 ? "read-only" : "network", who, what,
                 done);
        break;
    case SBX_REC_IO_URING:
        snprintf(buf, size, "blocked by the sandbox: %s tried to set up io_uring and %s", who,
                 done);
        break;
    case SBX_REC_UNIX:
        snprintf(buf, size, "blocked by the sandbox: %s tried to connect to %s, a local "
                 "endpoint the sandbox closes (--allow-unix PATH reopens one), and %s",
                 who, first->path ? first->path : "?", done);
        break;
    default:
        snprintf(buf, size, "blocked by the sandbox: %s tried to create the protected name %s "
                 "(%s) and %s",
                 who, first->path ? first->path : "?", first->syscall ? first->syscall : "?",
                 done);
        break;
    }
    if (more) {
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, " (and %lu more refusal%s: see the outcome)", more,
                 more == 1 ? "" : "s");
    }
}

int sbx_outcome_add(struct sbx_outcome_data *d, const struct sbx_outcome_rec *r)
{
    struct sbx_outcome_rec *grown;
    if (d->n_recs == d->cap_recs) {
        size_t cap = d->cap_recs ? d->cap_recs * 2 : 16;
        grown = realloc(d->recs, cap * sizeof *grown);
        if (!grown)
            return SANDBOX_E_NOMEM;
        d->recs = grown;
        d->cap_recs = cap;
    }
    d->recs[d->n_recs] = *r;
    d->recs[d->n_recs].path = NULL;
    if (r->path && !(d->recs[d->n_recs].path = sbx_strdup(r->path)))
        return SANDBOX_E_NOMEM;
    d->n_recs++;
    return SANDBOX_OK;
}

void sbx_outcome_free(struct sbx_outcome_data *d)
{
    size_t i;
    for (i = 0; i < d->n_recs; i++)
        free(d->recs[i].path);
    free(d->recs);
    free(d->describe);
    free(d->warning);
    memset(d, 0, sizeof *d);
}
