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

/* Protected paths (docs/protected-paths.md): deny ACEs for the container SID,
 * which beat the inherited allow ACE of a grant (explicit ACEs come first in
 * a canonical DACL, and a deny ACE that matches ends the access check).
 *
 * Specific rights, never GENERIC_*: a generic bit stored in an ACE is mapped
 * only by some of the APIs that write ACLs, and an unmapped one matches no
 * requested right, so a "deny GENERIC_ALL" could silently deny nothing. */
/* FILE_ALL_ACCESS: every right, including DELETE and FILE_READ_ATTRIBUTES. */
#define SBX_WIN_DENY_ALL_MASK 0x1f01ffu
/* FILE_GENERIC_WRITE | DELETE | FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER,
 * without SYNCHRONIZE and READ_CONTROL: FILE_GENERIC_WRITE carries both, and
 * FILE_GENERIC_READ asks for SYNCHRONIZE too, so denying them would make .git
 * unreadable, which the write kind promises it stays. */
#define SBX_WIN_DENY_WRITE_MASK 0xd0156u
/* DELETE alone on each parent: renaming or moving a directory opens it for
 * DELETE, so the parents of a protected path cannot be renamed away, and the
 * ACEs can be found again by path to be removed after the run. */
#define SBX_WIN_DENY_PARENT_MASK 0x10000u

enum sbx_win_deny_kind {
    SBX_WIN_DENY_ALL,    /* SANDBOX_PROTECT_ALL: neither readable nor writable */
    SBX_WIN_DENY_WRITE,  /* SANDBOX_PROTECT_WRITE: readable, never writable */
    SBX_WIN_DENY_PARENT  /* a parent of a protected path: not renamable */
};

struct sbx_win_deny {
    char *path;
    int kind;   /* enum sbx_win_deny_kind */
    int is_dir; /* 1: the ACE is inherited by everything below (OICI) */
};

/* Reparse tags (winnt.h IO_REPARSE_TAG_*), for the walk's decisions. Only a
 * name surrogate (bit 29, IsReparseTagNameSurrogate) names another place in
 * the namespace: junctions and symlinks. Every other reparse point (OneDrive
 * and cloud placeholders, dedup, WCI, AppExecLink is one too) is the file or
 * directory itself, reachable through the grant, so it is walked. */
#define SBX_WIN_TAG_MOUNT_POINT 0xA0000003u /* junction */
#define SBX_WIN_TAG_SYMLINK 0xA000000Cu
#define SBX_WIN_TAG_CLOUD 0x9000001Au       /* IO_REPARSE_TAG_CLOUD_1: OneDrive */
#define SBX_WIN_TAG_DEDUP 0x80000013u
/* 1 when an entry with this tag is a link the walk must not follow. */
int sbx_win_reparse_is_link(unsigned long tag);

/* The file system as the plan sees it: real on Windows (FindFirstFileExW),
 * POSIX on other hosts (so --explain --target windows shows real matches),
 * and fakes in the unit tests. */
#define SBX_WIN_LIST_DENIED 1  /* access denied: the container cannot list it either */
#define SBX_WIN_LIST_VANISHED 2 /* removed since its parent was listed */
struct sbx_win_fs {
    /* 0: a file, 1: a directory, -1: missing (or not reachable). */
    int (*kind)(void *ctx, const char *path);
    /* Call each(arg, name, is_dir, reparse_tag) for every entry but "." and
     * "..", reparse_tag 0 for an entry that is no reparse point. Returns 0,
     * SBX_WIN_LIST_DENIED, SBX_WIN_LIST_VANISHED, or -1 on any other error.
     * A nonzero return of `each` stops the listing and is returned. */
    int (*list)(void *ctx, const char *dir,
                int (*each)(void *arg, const char *name, int is_dir, unsigned long reparse_tag),
                void *arg);
    /* 1 when paths a and b name the same file or directory (volume serial
     * and file ID: an 8.3 name, a subst or mapped drive, a junctioned home
     * or another case spelling all agree), 0 when they do not, -1 when it
     * cannot be told. NULL: paths are compared as text only. */
    int (*same)(void *ctx, const char *a, const char *b);
    void *ctx;
};
/* The walk's budget: deeper trees or more entries refuse the run (the
 * protected paths below could not be found) instead of exhausting the stack
 * or running without end. Windows paths reach 32,767 characters, so a tree
 * 16,000 directories deep can be made with "\\?\" names. */
#define SBX_WIN_WALK_MAX_DEPTH 1024
#define SBX_WIN_WALK_MAX_ENTRIES 20000000ul

/* `path` spelled for the wide Win32 file APIs without the MAX_PATH limit:
 * "C:\a" -> "\\?\C:\a", "\\srv\share" -> "\\?\UNC\srv\share", '/' turned
 * into '\'. A path that is already "\\?\" or "\\.\", is relative, or has "."
 * or ".." components (which "\\?\" would not resolve) is returned as is.
 * NULL when out of memory. */
char *sbx_win_long_path(const char *path);

typedef struct sbx_win_plan {
    int contained; /* 0: the policy asks for nothing; the command runs as is */
    int caps[SBX_WIN_MAX_CAPS];
    size_t n_caps;
    struct sbx_win_grant *grants;
    size_t n_grants;
    /* Loopback is wanted (denying the network spares it by contract) but the
     * exemption list is machine-wide and needs an administrator: the plan
     * only asks; the run reports what happened (sandbox_process.warning). */
    int loopback_wanted;
    int stricter;        /* Windows grants less than asked (see sbx_win_plan_build) */
    struct sbx_win_deny *denies; /* filled by sbx_win_plan_protect, applied after the grants */
    size_t n_denies;
    char *command_line;  /* UTF-8; converted to UTF-16 only at spawn time */
} sbx_win_plan;

/* Compute the plan. Fails with SANDBOX_E_UNSUPPORTED for the modes Windows
 * cannot enforce (read-only, internet-only) and SANDBOX_E_INVALID for an argv
 * that no Windows command line can carry. */
int sbx_win_plan_build(const sbx_resolved *r, const char *const argv[], sbx_win_plan *plan,
                       sandbox_error *err);
void sbx_win_plan_free(sbx_win_plan *plan);

/* Plan the deny ACEs of r's protected paths: walk every granted root (what
 * the container can reach) for entries that match r->protect
 * (sbx_protect_match_tail, '\\' separating in Windows paths), without
 * descending into a match or following a link (sbx_win_reparse_is_link), add
 * the existing r->protect_home paths that a grant reaches (the container
 * cannot open the profile otherwise), then DELETE on every parent of a match
 * up to and including its root (up to, not including, home for home paths).
 * Entries that vanish during the walk are skipped. Only what exists now is
 * covered. Returns SANDBOX_OK (nothing to do when nothing is
 * protected), SANDBOX_E_NOMEM, or SANDBOX_E_SYSTEM when a directory cannot be
 * listed for another reason than access denied. */
int sbx_win_plan_protect(const sbx_resolved *r, const struct sbx_win_fs *fs, sbx_win_plan *plan,
                         sandbox_error *err);
/* How protected paths are enforced on Windows, and what that leaves open: the
 * words of --self-test and --explain (docs/protected-paths.md). */
#define SBX_WIN_PROTECT_MECHANISM "appcontainer+deny-aces"
#define SBX_WIN_PROTECT_GAPS                                                                       \
    "names created after launch (only files that exist at launch get a deny ACE); the ACEs "      \
    "are on the real files until the command ends, and a killed launcher leaves them (naming a " \
    "dead per-run SID) until the next run sweeps its journal"
/* The host's file system (src/windows/scan.c). */
void sbx_win_fs_host(struct sbx_win_fs *fs);
/* The rights one deny ACE takes away. */
unsigned sbx_win_deny_mask(int kind);
/* Append the deny ACE as SDDL: "(D;OICI;0x1f01ff;;;SID)"; no inheritance
 * flags for files and parents. */
void sbx_win_deny_sddl(sbx_buf *out, const struct sbx_win_deny *d, const char *sid);
const char *sbx_win_deny_kind_name(int kind);

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

/* ---- the program (src/windows/tools.c) ---- */

/* Find the file CreateProcessW is to run for argv0, as cmd.exe would: a name
 * with a separator or drive is taken as a path; a bare name is looked up in
 * each directory of `path_env` (';'-separated, quotes stripped), never in the
 * current directory (a confined command could have planted git.exe there).
 * A name without an extension is tried with each of `pathext` (".COM;.EXE;
 * .BAT;.CMD" when NULL or empty), so "npm" finds npm.cmd; one with an
 * extension is tried as is first. is_file(ctx, path) says 1 for an existing
 * file. Returns SANDBOX_OK with *found malloc'd, SANDBOX_E_EXEC with
 * sys_errno 2 (ERROR_FILE_NOT_FOUND) when nothing matches, SANDBOX_E_NOMEM. */
int sbx_win_find_program(const char *argv0, const char *path_env, const char *pathext,
                         int (*is_file)(void *ctx, const char *path), void *ctx, char **found,
                         sandbox_error *err);
/* Why a container may be unable to start `program`, or NULL: an App Execution
 * Alias (a reparse point under %LOCALAPPDATA%\Microsoft\WindowsApps, which
 * an AppContainer cannot open), or a per-user install under `home` that no
 * grant of `plan` reaches. Words for --explain and for the error. */
const char *sbx_win_program_problem(const char *program, const char *home,
                                    const sbx_win_plan *plan);
#define SBX_WIN_LOOPBACK_NOTE                                                                     \
    "needs an exemption an administrator grants (the machine-wide loopback exemption list); "   \
    "attempted at run time, and without it loopback is blocked too (stricter, never looser)"
#define SBX_WIN_TOOLS_NOTE                                                                        \
    "the program is looked up in PATH with PATHEXT (npm runs npm.cmd), not in the working "     \
    "directory; App Execution Aliases (%LOCALAPPDATA%\\Microsoft\\WindowsApps: winget, the "  \
    "Store's python) and per-user installs under the profile cannot be started from the "     \
    "container unless a grant reaches them"

#endif
