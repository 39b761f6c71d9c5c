/* The AppContainer plan: what the Windows backend will do for a resolved
 * policy, as plain data. Portable C: compiled and unit-tested on every host;
 * only src/windows/backend.c turns it into system calls. */
#ifndef SANDBOX_WINDOWS_PLAN_H
#define SANDBOX_WINDOWS_PLAN_H

#include "../internal.h"

/* The three network capabilities are the well-known SIDs S-1-15-3-RID. They
 * are built from the RID directly: mingw-w64 has no import library for
 * DeriveCapabilitySidsFromName, and the numbers are fixed by Windows. */
enum sbx_win_capability {
    SBX_WIN_CAP_INTERNET_CLIENT = 1,        /* internetClient */
    SBX_WIN_CAP_INTERNET_CLIENT_SERVER = 2, /* internetClientServer */
    SBX_WIN_CAP_PRIVATE_NETWORK = 3         /* privateNetworkClientServer */
};
#define SBX_WIN_MAX_CAPS 3

/* The rights granted to the container on a writable root: the "Modify" set
 * (read, write, execute, delete). No WRITE_DAC or WRITE_OWNER: the confined
 * command must not be able to widen its own grant. */
#define SBX_WIN_GRANT_MASK 0x1301bfu
/* Inherited by files (OI) and directories (CI) below the root. */
#define SBX_WIN_GRANT_SDDL_FLAGS "OICI"

struct sbx_win_grant {
    char *path;
    int kind; /* enum sbx_root_kind */
};

typedef struct sbx_win_plan {
    int contained; /* 0: the policy asks for nothing; the command runs as is */
    int caps[SBX_WIN_MAX_CAPS];
    size_t n_caps;
    struct sbx_win_grant *grants;
    size_t n_grants;
    int loopback_exempt; /* exempt the container from the loopback block */
    int stricter;        /* Windows grants less than asked (see sbx_win_plan_build) */
    char *command_line;  /* UTF-8; converted to UTF-16 only at spawn time */
} sbx_win_plan;

/* Compute the plan. Fails with SANDBOX_E_UNSUPPORTED for the modes Windows
 * cannot enforce (read-only, internet-only) and SANDBOX_E_INVALID for an argv
 * that no Windows command line can carry. */
int sbx_win_plan_build(const sbx_resolved *r, const char *const argv[], sbx_win_plan *plan,
                       sandbox_error *err);
void sbx_win_plan_free(sbx_win_plan *plan);

/* "S-1-15-3-1" and "internetClient" for a capability. */
const char *sbx_win_cap_sid(int cap);
const char *sbx_win_cap_name(int cap);

/* Append the ACE granted to `sid` on every root, as SDDL:
 * "(A;OICI;0x1301bf;;;SID)". */
void sbx_win_grant_sddl(sbx_buf *out, const char *sid);

/* Append one argument quoted so that CommandLineToArgvW (and the C runtime)
 * read it back unchanged. `first` selects the program-name rules, under which
 * no quote can be escaped: returns SANDBOX_E_INVALID when `arg` holds one. */
int sbx_win_quote_arg(sbx_buf *out, const char *arg, int first);
/* argv joined into one command line; NULL with `err` filled on failure. */
char *sbx_win_command_line(const char *const argv[], sandbox_error *err);

#endif
