/* The outcome of a run as data, and as the JSON object of docs/api.md
 * (schema SANDBOX_OUTCOME_SCHEMA). Portable: the Linux backend fills the
 * records from a supervised run; every platform fills the status. */
#ifndef SANDBOX_OUTCOME_H
#define SANDBOX_OUTCOME_H

#include "internal.h"

enum sbx_rec_kind {
    SBX_REC_HEDGED = 0,   /* a sentence from the exit status and error text: not certain */
    SBX_REC_SOCKET = 1,   /* a refused socket() or socketcall(SYS_SOCKET) */
    SBX_REC_IO_URING = 2, /* io_uring_setup refused */
    SBX_REC_PROTECTED = 3, /* the creation guard refused a protected name */
    SBX_REC_UNIX = 4       /* a connect reached a closed socket's stand-in (issue 20) */
};

enum sbx_rec_action {
    SBX_ACT_NONE = 0,
    SBX_ACT_SIGSYS = 1,  /* SIGSYS sent to the calling thread, which did not come back */
    SBX_ACT_SIGKILL = 2, /* SIGSYS was blocked, ignored or taken by a tracer: killed */
    SBX_ACT_EPERM = 3,
    SBX_ACT_EACCES = 4,
    SBX_ACT_CAUGHT = 5,  /* SIGSYS sent, and its handler caught it: the call got EPERM */
    SBX_ACT_ENDED = 6,   /* SIGSYS sent, but its process ended another way (another signal,
                            an exit) before the thread was seen to take it or come back */
    SBX_ACT_CLOSED = 7   /* the connection was accepted by the stand-in and closed unread */
};

enum sbx_run_flag {
    SBX_RUN_ENDED = 1u << 0,        /* the supervisor finished and wrote the status */
    SBX_RUN_TIMED_OUT = 1u << 1,    /* the timeout ended the run */
    SBX_RUN_HOST_GONE = 1u << 2,    /* the host died: the run was ended */
    SBX_RUN_NO_LISTENER = 1u << 3,  /* nested in another supervised sandbox: no records */
    SBX_RUN_SIGNAL_SCOPE = 1u << 4, /* no Landlock signal scope: the command could signal
                                       its supervisor (a warning) */
    SBX_RUN_STOPPED = 1u << 5,      /* the host asked to end the run (SIGALRM) */
    SBX_RUN_SUP_FAILED = 1u << 6    /* the supervisor itself failed after the command started:
                                       it ended the whole tree and exited 126 (review r57) */
};

/* Where a supervisor that failed after the start failed (the area keeps a
 * number, never a pointer: the host checks what it reads). */
enum sbx_sup_fail {
    SBX_SUP_FAIL_NONE = 0,
    SBX_SUP_FAIL_TABLE = 1,     /* mapping its table of threads sent SIGSYS */
    SBX_SUP_FAIL_SIGNALFD = 2,  /* the signalfd for the host's signals and SIGCHLD */
    SBX_SUP_FAIL_PDEATHSIG = 3, /* the parent-death signal that ends the run with the host */
    SBX_SUP_FAIL_POLL = 4,      /* its wait for the command's calls and signals */
    SBX_SUP_FAIL_N = 5,
    SBX_SUP_FAIL_DIED = 100     /* the host's finding, never in the area: the supervisor
                                   died without finishing (sup_errno: the signal, or 0) */
};

struct sbx_outcome_rec {
    int kind;            /* enum sbx_rec_kind */
    int action;          /* enum sbx_rec_action */
    const char *syscall; /* static; NULL for a hedged record */
    int compat;          /* 1: the 32-bit ABI */
    int family, type;    /* -1 when not a socket */
    long pid;            /* -1 unknown */
    char comm[16];
    char *path;          /* allocated, or NULL */
    unsigned long count;
    const char *text;    /* a hedged record's sentence (borrowed) */
};

struct sbx_outcome_data {
    int status;          /* wait status; the exit code when `exit_code_only` */
    int exit_code_only;  /* Windows: status is a process exit code */
    double duration;     /* seconds; < 0 unknown */
    int supervised;      /* 1: a supervisor watched the run */
    unsigned flags;      /* enum sbx_run_flag */
    unsigned long leftovers; /* processes ended after the command had exited */
    struct sbx_outcome_rec *recs; /* certain records, then at most one hedged */
    size_t n_recs, cap_recs;
    unsigned long dropped;
    char *describe;      /* the Sandbox line (allocated), or NULL */
    char *warning;       /* the spawn's warning (allocated), or NULL */
    const char *limit;   /* the resource limit that ended the run (static), or NULL */
    int limit_certain;   /* 1: the kernel's counters say so (the run's cgroup) */
    int sup_fail;        /* enum sbx_sup_fail when SBX_RUN_SUP_FAILED */
    int sup_errno;
};

/* Append the JSON object (no newline). */
void sbx_outcome_json(const struct sbx_outcome_data *d, sbx_buf *out);
/* One line for a person: the first certain record in words (with how many
 * more there are), else the hedged record's sentence, else "". */
void sbx_outcome_summary(const struct sbx_outcome_data *d, char *buf, size_t size);
/* 1 with the sentence for a supervisor that failed after the start (the
 * run's 126 is the sandbox's), else 0 and "". */
int sbx_outcome_failure(const struct sbx_outcome_data *d, char *buf, size_t size);
/* Append a record (copied; path duplicated). SANDBOX_E_NOMEM or OK. */
int sbx_outcome_add(struct sbx_outcome_data *d, const struct sbx_outcome_rec *r);
void sbx_outcome_free(struct sbx_outcome_data *d);
/* "SIGSYS" for 31 (Linux numbering); NULL when unnamed. */
const char *sbx_signal_name(int sig);
/* "AF_INET" for 2; NULL when unnamed. */
const char *sbx_family_name(int family);

#endif
