/*
 * libsandbox: run a command under an operating-system sandbox.
 *
 * The whole public API. A host builds a policy (what it wants confined), then
 * calls sandbox_enforce() just before it runs the command, or sandbox_spawn()
 * to start a confined child from a multi-threaded program. The kernel, not a
 * parser, then decides what the command may touch.
 *
 * Conventions
 *   - Every call that can fail returns an int: SANDBOX_OK (0) or one of the
 *     SANDBOX_E_* codes below. Calls that do real work also fill a
 *     sandbox_error with a sentence a person can act on.
 *   - The library keeps no global mutable state, never prints and never exits.
 *   - A policy object is not locked: use one from one thread at a time, or
 *     share it read-only once it is built.
 *
 * Copyright the libsandbox authors. MIT licensed, see LICENSE.
 */
#ifndef SANDBOX_H
#define SANDBOX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && !defined(SANDBOX_STATIC)
#  ifdef SANDBOX_BUILDING
#    define SANDBOX_API __declspec(dllexport)
#  else
#    define SANDBOX_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define SANDBOX_API __attribute__((visibility("default")))
#else
#  define SANDBOX_API
#endif

/* ---- versions ------------------------------------------------------------ */

/* The one place the version is written. CMakeLists.txt reads these three
 * lines, so the project version, the SONAME, the pkg-config file and the CMake
 * package follow; tests/install/test_version.sh fails when any copy that
 * cannot follow (debian/changelog, CHANGELOG.md) or any built artefact
 * disagrees. */
#define SANDBOX_VERSION_MAJOR 0
#define SANDBOX_VERSION_MINOR 1
#define SANDBOX_VERSION_PATCH 0
#define SANDBOX_VERSION_STR_(x) #x
#define SANDBOX_VERSION_STR(x) SANDBOX_VERSION_STR_(x)
/* "MAJOR.MINOR.PATCH", spelled from the three numbers above. */
#define SANDBOX_VERSION_STRING                                                                     \
    SANDBOX_VERSION_STR(SANDBOX_VERSION_MAJOR)                                                     \
    "." SANDBOX_VERSION_STR(SANDBOX_VERSION_MINOR) "." SANDBOX_VERSION_STR(SANDBOX_VERSION_PATCH)

/* The version of the library actually loaded, "MAJOR.MINOR.PATCH". */
SANDBOX_API const char *sandbox_version(void);

/* ---- errors -------------------------------------------------------------- */

enum sandbox_code {
    SANDBOX_OK = 0,
    SANDBOX_E_INVALID = 1,     /* bad argument: NULL, empty path, unknown value */
    SANDBOX_E_NOMEM = 2,       /* out of memory */
    SANDBOX_E_UNSUPPORTED = 3, /* this platform or kernel cannot enforce what was asked */
    SANDBOX_E_PATH = 4,        /* a path in the policy cannot be resolved or opened */
    SANDBOX_E_SYSTEM = 5,      /* a system call failed while preparing or applying */
    SANDBOX_E_REFUSED = 6,     /* a pre-flight check refused to start (e.g. hard links) */
    SANDBOX_E_EXEC = 7         /* sandbox_spawn: the program could not be executed;
                                  sys_errno says why (ENOENT: not found) */
};

typedef struct sandbox_error {
    int code;          /* enum sandbox_code */
    int sys_errno;     /* errno of the failing system call, 0 when none */
    char message[512]; /* what failed, why, and what to do; "" when code is 0 */
} sandbox_error;

/* A short, static, English name for a code ("invalid argument", ...). */
SANDBOX_API const char *sandbox_strerror(int code);

/* ---- the policy ---------------------------------------------------------- */

typedef struct sandbox_policy sandbox_policy;

enum sandbox_network {
    SANDBOX_NETWORK_ALLOW = 0,        /* no network restriction */
    SANDBOX_NETWORK_DENY = 1,         /* no internet or other remote socket */
    SANDBOX_NETWORK_INTERNET_ONLY = 2 /* internet yes, loopback and own addresses no;
                                         enforced on macOS only: elsewhere enforce and
                                         spawn fail closed with SANDBOX_E_UNSUPPORTED */
};

enum sandbox_filesystem {
    SANDBOX_FS_UNRESTRICTED = 0, /* no filesystem restriction */
    SANDBOX_FS_CONFINED = 1,     /* writes only beneath the writable roots */
    SANDBOX_FS_READ_ONLY = 2     /* the fixed read-only profile (implies no network) */
};

/* What happens to a process that tries to create a denied socket. */
enum sandbox_deny_action {
    SANDBOX_DENY_SIGSYS = 0, /* killed by SIGSYS: the default and the contract */
    SANDBOX_DENY_EPERM = 1   /* socket() fails with EPERM and the process lives */
};

/*
 * A new policy that enforces nothing: network allowed, filesystem unrestricted,
 * project root and working directory = the working directory at enforce time,
 * temp directory = $TMPDIR, else /tmp. Returns NULL only when out of memory.
 * Free it with sandbox_policy_free(). Thread-safe.
 */
SANDBOX_API sandbox_policy *sandbox_policy_new(void);
SANDBOX_API void sandbox_policy_free(sandbox_policy *policy);

/* Setters. Each returns SANDBOX_OK, SANDBOX_E_INVALID for a NULL policy, an
 * out-of-range value or an empty/relative path, or SANDBOX_E_NOMEM. Paths must
 * be absolute; they are resolved and opened only when the policy is enforced. */
SANDBOX_API int sandbox_policy_set_network(sandbox_policy *policy, int network);
SANDBOX_API int sandbox_policy_set_filesystem(sandbox_policy *policy, int filesystem);
SANDBOX_API int sandbox_policy_set_deny_action(sandbox_policy *policy, int action);
SANDBOX_API int sandbox_policy_set_project_root(sandbox_policy *policy, const char *dir);
SANDBOX_API int sandbox_policy_add_writable_dir(sandbox_policy *policy, const char *dir);
SANDBOX_API int sandbox_policy_set_working_dir(sandbox_policy *policy, const char *dir);
SANDBOX_API int sandbox_policy_set_temp_dir(sandbox_policy *policy, const char *dir);
/* 1: the command may not create or join a user namespace (Linux; read-only
 * mode always refuses them, whatever this says). 0, the default elsewhere:
 * allowed, for rootless containers and Chromium's sandbox. Other values:
 * SANDBOX_E_INVALID. */
SANDBOX_API int sandbox_policy_set_deny_user_namespaces(sandbox_policy *policy, int deny);

/* ---- presets: activity classes ------------------------------------------ */

/*
 * What kind of work a command does, which decides the writable roots and the
 * read roots (see docs/classes.md for the tables per platform). The "scratch"
 * of a class is the temp directory (sandbox_policy_set_temp_dir, default
 * $TMPDIR, else /tmp). Every class chosen with sandbox_policy_set_class()
 * but TOOL_SERVER also confines reads: RESEARCH, PROJECT, BUILD and OFFLINE
 * read the OS, the toolchains found in the home (never their credential
 * files), the project, working directory and scratch (BUILD also its package
 * caches); MEDIA reads the OS, the project, its output folder and scratch. A
 * policy without a class (plain network or filesystem confinement) reads
 * everything the account can read.
 */
enum sandbox_class {
    SANDBOX_CLASS_PROJECT = 0,    /* the default: the project and its scratch */
    SANDBOX_CLASS_RESEARCH = 1,   /* its scratch only */
    SANDBOX_CLASS_BUILD = 2,      /* project + the package caches of npm, pip, cargo,
                                     go, gradle, maven and bun */
    SANDBOX_CLASS_OFFLINE = 3,    /* as project, and never any network */
    SANDBOX_CLASS_MEDIA = 4,      /* the output folder and its scratch; never network */
    SANDBOX_CLASS_TOOL_SERVER = 5 /* a stdio tool server: its own working directory */
};

/*
 * Choose the activity class. A class is a confinement preset: this also sets
 * the filesystem to SANDBOX_FS_CONFINED (unless it is SANDBOX_FS_READ_ONLY) and
 * switches the hard-link scan on (not on Windows, which has no scan yet);
 * OFFLINE and MEDIA also set the network to
 * SANDBOX_NETWORK_DENY and keep it denied whatever is set later. Call the other
 * setters afterwards to adjust. Returns SANDBOX_OK, or SANDBOX_E_INVALID for a
 * NULL policy or an unknown class. Not thread-safe on one policy.
 */
SANDBOX_API int sandbox_policy_set_class(sandbox_policy *policy, int klass);
SANDBOX_API int sandbox_policy_class(const sandbox_policy *policy);

/*
 * Make the per-user cache directories writable (on = 1) or not (0, default):
 * Linux $XDG_CACHE_HOME or ~/.cache; macOS ~/Library/Caches and ~/.cache;
 * Windows %USERPROFILE%\.cache. Resolved for the target at enforce/explain
 * time from HOME (USERPROFILE on Windows). Returns SANDBOX_OK or
 * SANDBOX_E_INVALID (NULL policy, value not 0 or 1).
 */
SANDBOX_API int sandbox_policy_set_writable_caches(sandbox_policy *policy, int on);

/*
 * The one output folder of the media class (absolute; it becomes writable in
 * any class that is confined). The media class refuses to resolve without it.
 * Returns SANDBOX_OK, SANDBOX_E_INVALID (NULL, empty or relative) or
 * SANDBOX_E_NOMEM.
 */
SANDBOX_API int sandbox_policy_set_output_dir(sandbox_policy *policy, const char *dir);

/*
 * Let a class that confines reads also read `dir` (absolute; repeatable):
 * a reference checkout, a data set. Judged like a writable root when the
 * policy is enforced: "/", the home directory or an ancestor of it, and a
 * path through a symbolic link inside a writable root or /tmp, are refused
 * (SANDBOX_E_PATH). No effect when reads are not confined. Returns
 * SANDBOX_OK, SANDBOX_E_INVALID (NULL, empty or relative) or SANDBOX_E_NOMEM.
 */
SANDBOX_API int sandbox_policy_add_readable_dir(sandbox_policy *policy, const char *dir);

/* ---- pre-flight: the hard-link scan -------------------------------------- */

/*
 * A writable root may hold a hard link to a file whose other name lies outside
 * every writable root; the kernel judges the path, so a write through the
 * inside name changes the outside file. With the scan on (1; classes turn it
 * on, a plain policy has it off), sandbox_enforce(), sandbox_spawn() and
 * every sandbox_spawn_plan() first walk the project, working directory,
 * added directories, output folder and the temp directory (not /tmp, /dev or
 * caches) and fail with
 * SANDBOX_E_REFUSED naming such files, or a directory they cannot list.
 * Returns SANDBOX_OK or SANDBOX_E_INVALID.
 */
SANDBOX_API int sandbox_policy_set_scan_hardlinks(sandbox_policy *policy, int on);

/*
 * Accept the outside hard links of one path (absolute): a regular file is
 * accepted as that file (its inode, through whichever name it is found); a
 * directory accepts every linked file found beneath it. Repeatable. Returns
 * SANDBOX_OK, SANDBOX_E_INVALID or SANDBOX_E_NOMEM.
 */
SANDBOX_API int sandbox_policy_allow_hardlink(sandbox_policy *policy, const char *path);

/*
 * Privileged local endpoints (Linux, confined writes and every class): the
 * AF_UNIX path sockets of daemons that act outside the sandbox for their
 * caller (container engines, the systemd managers' private sockets, the
 * D-Bus buses, the keyring's control socket, snapd, libvirt, LXD/Incus) are
 * unreachable by the command: each one that exists at launch is covered in
 * the command's private mount namespace, so connect() and sendto() fail with
 * ECONNREFUSED (docs/unix-endpoints.md). ssh-agent and gpg-agent are not on
 * the list. sandbox_policy_allow_unix reopens one socket path (absolute; it
 * and the listed path are compared after resolving links);
 * sandbox_policy_deny_unix adds one. An allowed path wins over a denied one.
 * Folders between a closed socket and the writable root it lies in cannot
 * be renamed by the command; a denied (or allowed) path looked up through a
 * symlink or ".." folder the command could replace fails the launch with
 * SANDBOX_E_REFUSED.
 * Abstract sockets (no path) made outside the sandbox are closed by a
 * Landlock scope (ABI 6, Linux 6.12): sandbox_policy_allow_unix(p, "@")
 * reopens all of them; "@name" alone is SANDBOX_E_INVALID (a scope has no
 * exceptions). Repeatable. SANDBOX_OK, SANDBOX_E_INVALID (not absolute) or
 * SANDBOX_E_NOMEM.
 */
SANDBOX_API int sandbox_policy_allow_unix(sandbox_policy *policy, const char *path);
SANDBOX_API int sandbox_policy_deny_unix(sandbox_policy *policy, const char *path);

/*
 * The pre-flight index (on by default, Linux): the protected-path scan and
 * the hard-link scan keep what they saw in ~/.libsandbox, with every
 * directory's identity and stamps, and a later launch reuses the answer
 * after checking that none of those changed, instead of walking the tree
 * again. Off: every launch scans in full and reads or writes no index.
 * Either way, every confined launch writes its writable roots down for the
 * hard-link index of later launches, and a writable root at or beneath the
 * index directory is refused. docs/protected-paths.md ("The scan index")
 * says what the index relies on. Returns SANDBOX_OK or SANDBOX_E_INVALID.
 */
SANDBOX_API int sandbox_policy_set_scan_index(sandbox_policy *policy, int on);

/*
 * Keep the pre-flight index vouched for (Linux), for hosts that launch many
 * commands: watch (inotify) every directory the stored indexes list and
 * answer launches asking whether any changed, so a warm launch skips its
 * per-directory check. Blocks until `stop_fd` is readable or hung up (a
 * pipe or eventfd the host writes to), then returns SANDBOX_OK; at most one
 * runs per user (SANDBOX_E_REFUSED otherwise). `answered` and `vouched`
 * (may be NULL) receive how many launches asked and how many it vouched
 * for. SANDBOX_E_PATH without an index directory, SANDBOX_E_SYSTEM, and
 * SANDBOX_E_UNSUPPORTED off Linux. Launches work the same without it.
 */
SANDBOX_API int sandbox_index_watch(int stop_fd, unsigned long long *answered,
                                    unsigned long long *vouched, sandbox_error *error);

typedef struct sandbox_scan_report {
    unsigned long long files;       /* regular files examined */
    unsigned long long directories; /* directories listed */
    size_t n_outside;               /* files refused: a name lies outside the roots */
    size_t n_allowed;               /* outside links the allowlist accepted */
    char **outside;                 /* n_outside paths (one inside name each), or NULL */
    sandbox_error error;            /* why the scan refused or failed */
} sandbox_scan_report;

/*
 * Run the hard-link scan of `policy` now, on this host, whatever its scan
 * switch says (a host may show the result before it asks to enforce). Does
 * not follow symbolic links and never enters /dev, /proc or /sys.
 * Returns SANDBOX_OK when nothing is refused; SANDBOX_E_REFUSED when a file
 * has an outside name that is not allowed (report->outside lists them all,
 * report->error names the first few and the count) or a directory cannot be
 * listed or stat'ed ("cannot scan ..."); SANDBOX_E_UNSUPPORTED on Windows;
 * SANDBOX_E_NOMEM; SANDBOX_E_INVALID for NULL arguments. Free the report with
 * sandbox_scan_report_clear(). Thread-safe for distinct reports.
 */
SANDBOX_API int sandbox_scan_hardlinks(const sandbox_policy *policy, sandbox_scan_report *report);
SANDBOX_API void sandbox_scan_report_clear(sandbox_scan_report *report);
/* ---- protected paths ------------------------------------------------------ */

/* How a protected pattern restricts the paths it matches. */
enum sandbox_protect_kind {
    SANDBOX_PROTECT_ALL = 0,   /* neither readable nor writable, nor created (secrets) */
    SANDBOX_PROTECT_WRITE = 1, /* readable, never writable, nor created (.vscode);
                                  a new .git may be created (git init, git clone) */
    SANDBOX_PROTECT_GIT = 2    /* for ".git" only: the repository stays writable
                                  (git add, git commit), what makes git run code
                                  stays read-only: hooks, config, info, modules,
                                  worktrees, commondir, a .git file
                                  (docs/protected-paths.md); Windows: as WRITE */
};

/*
 * Protect the paths that `pattern` matches, even inside a writable root, with
 * `kind` (SANDBOX_PROTECT_GIT only for the pattern ".git").
 * Matching is case-insensitive (ASCII) and per path component:
 *   "name"      one component anywhere below the scanned roots and $HOME;
 *               '*' and '?' match within a component (".env.*", "*.pem");
 *   "a/b"       consecutive components anywhere (".config/gh");
 *   "~/a/b"     only that path under the home directory.
 * Adding a pattern that is already listed updates its kind. Returns
 * SANDBOX_OK, SANDBOX_E_INVALID (NULL policy, empty pattern, an absolute
 * pattern, a "." or ".." component, or an unknown kind) or SANDBOX_E_NOMEM.
 */
SANDBOX_API int sandbox_policy_add_protected(sandbox_policy *policy, const char *pattern,
                                             int kind);
/* Remove a pattern (compared case-insensitively). Returns SANDBOX_OK, or
 * SANDBOX_E_INVALID when the policy is NULL or the pattern is not listed. */
SANDBOX_API int sandbox_policy_remove_protected(sandbox_policy *policy, const char *pattern);
/* Add the default set (what --protect-secrets means): .env and .env.*, private
 * keys (*.pem, *.key, id_rsa, id_dsa, id_ecdsa, id_ed25519 and their variants),
 * .ssh, .aws, .gnupg, .netrc, .npmrc, .pypirc, .docker, .kube, .config/gh, the
 * other home credentials of docs/protected-paths.md, the macOS keychains;
 * write-protected: .git, and the editor and agent configuration .vscode,
 * .idea, .mcp.json, .claude, .codex, .cursor, .gemini, .devcontainer (not
 * beneath node_modules). Returns SANDBOX_OK, SANDBOX_E_INVALID or
 * SANDBOX_E_NOMEM. */
SANDBOX_API int sandbox_policy_protect_defaults(sandbox_policy *policy);
/* How many patterns the policy protects (0 for NULL). */
SANDBOX_API size_t sandbox_policy_protected_count(const sandbox_policy *policy);

/* ---- the environment ------------------------------------------------------ */

/*
 * Remove the variables that hold credentials from the command's environment
 * (on = 1; 0, the default: the host owns the environment). Only names are
 * judged, ASCII case-insensitively: a name ending in _TOKEN, _SECRET,
 * _PASSWORD, _PASSWD, _PASSPHRASE, _API_KEY, _APIKEY, _SECRET_KEY,
 * _PRIVATE_KEY, _ACCESS_KEY, _SIGNING_KEY, _AUTH, _AUTHTOKEN or _PAT, and the
 * names TOKEN, SECRET, PASSWORD, API_KEY, APIKEY, AWS_ACCESS_KEY_ID,
 * PGPASSWORD, MYSQL_PWD and SSHPASS (docs/host-guide.md says why each, and
 * why SSH_AUTH_SOCK and TOKENIZERS_PARALLELISM are not). sandbox_spawn and
 * sandbox_spawn_plan filter the envp they are given (or the caller's
 * environment); sandbox_enforce removes the names from the calling process's
 * environment on success, for the exec that follows. Returns SANDBOX_OK or
 * SANDBOX_E_INVALID (NULL policy, a value other than 0 or 1).
 */
SANDBOX_API int sandbox_policy_set_scrub_env(sandbox_policy *policy, int on);
/* Keep the variable `name` although scrubbing would remove it; it also wins
 * over sandbox_policy_drop_env. Repeatable. SANDBOX_OK, SANDBOX_E_INVALID
 * (NULL, empty, or a name with '='), SANDBOX_E_NOMEM. */
SANDBOX_API int sandbox_policy_keep_env(sandbox_policy *policy, const char *name);
/* Remove the variable `name` too, whether or not scrubbing is on (for
 * example SSH_AUTH_SOCK, which scrubbing keeps). Repeatable. Same returns. */
SANDBOX_API int sandbox_policy_drop_env(sandbox_policy *policy, const char *name);
/* 1 when the policy removes the variable `name` ("NAME" or "NAME=value")
 * from the command's environment, else 0 (also for NULL arguments). */
SANDBOX_API int sandbox_policy_env_removes(const sandbox_policy *policy, const char *name);

/* Resource limits for a supervised run (docs/api.md, "Resource limits"). */
enum sandbox_limit {
    SANDBOX_LIMIT_MEMORY = 1,     /* bytes of memory for the whole run */
    SANDBOX_LIMIT_PIDS = 2,       /* processes and threads alive at once, the whole run */
    SANDBOX_LIMIT_CPU = 3,        /* seconds of CPU time, per process */
    SANDBOX_LIMIT_FILE_SIZE = 4,  /* bytes: the largest file a process may write */
    SANDBOX_LIMIT_OPEN_FILES = 5  /* descriptors per process */
};

/*
 * Set limit `which` (enum sandbox_limit) to `value`; 0 removes it. Linux
 * only (elsewhere sandbox_spawn refuses a policy with limits with
 * SANDBOX_E_UNSUPPORTED). A policy with a limit needs a supervised run
 * (sandbox_policy_needs_supervisor). Memory and processes go to a cgroup of
 * the run's own where the caller may create one (cgroup v2 with the
 * controller delegated), else memory falls back to RLIMIT_DATA per process
 * and a process limit cannot be applied (the spawn fails, nothing runs);
 * CPU time, file size and descriptors are rlimits, inherited by every
 * descendant, which cannot raise them. Returns SANDBOX_OK, or
 * SANDBOX_E_INVALID for a NULL policy or an unknown `which`.
 */
SANDBOX_API int sandbox_policy_set_limit(sandbox_policy *policy, int which,
                                         unsigned long long value);
/* The value set for `which`; 0 when none (or for NULL / an unknown limit). */
SANDBOX_API unsigned long long sandbox_policy_limit(const sandbox_policy *policy, int which);

/*
 * 1 when running `policy` on this platform needs a supervised run: on Linux,
 * any protected pattern outside read-only mode (every one is refused at
 * creation, and a write-protected .git carries the repository rule; the
 * creation guard is a process that stays while the command runs). sandbox_enforce refuses
 * such a policy (SANDBOX_E_INVALID); sandbox_spawn supervises it whatever
 * the options say; and, on Linux, any resource limit
 * (sandbox_policy_set_limit). 0 otherwise, and for NULL. Thread-safe.
 */
SANDBOX_API int sandbox_policy_needs_supervisor(const sandbox_policy *policy);

/* Getters, for hosts that display a policy. NULL when the value is defaulted. */
SANDBOX_API int sandbox_policy_network(const sandbox_policy *policy);
SANDBOX_API int sandbox_policy_filesystem(const sandbox_policy *policy);
SANDBOX_API const char *sandbox_policy_project_root(const sandbox_policy *policy);

/* ---- enforcing ----------------------------------------------------------- */

enum sandbox_enforcement {
    SANDBOX_ENFORCED_NOTHING = 0, /* the policy asked for nothing; run argv as is */
    SANDBOX_SELF_APPLIED = 1,     /* Linux: the calling thread is now confined; exec argv */
    SANDBOX_EXEC_ARGV = 2         /* macOS: exec result.argv instead of argv */
};

typedef struct sandbox_result {
    int enforcement;       /* enum sandbox_enforcement */
    char **argv;           /* SANDBOX_EXEC_ARGV: the argv to exec, NULL-terminated */
    char warning[512];     /* set when a best-effort part could not be applied */
    sandbox_error error;   /* set when sandbox_enforce() fails */
} sandbox_result;

/*
 * Apply `policy` for the command `argv` (NULL-terminated, argv[0] the program).
 *
 * Linux: confines the calling thread (no_new_privs, Landlock, seccomp) and
 * returns SANDBOX_SELF_APPLIED; the caller then execs argv from the same
 * thread. The confinement cannot be undone and is inherited by every child.
 * Nothing forks and no process stays: a policy that needs a supervisor
 * (sandbox_policy_needs_supervisor: protected paths) is refused with
 * SANDBOX_E_INVALID before anything is applied; use sandbox_spawn.
 * macOS: returns SANDBOX_EXEC_ARGV with result->argv set to
 * /usr/bin/sandbox-exec -p PROFILE ... -- argv; nothing is applied yet.
 *
 * Returns SANDBOX_OK, or an error code with result->error filled. Any error
 * means the requested confinement is NOT in force: the caller must not run the
 * command (the launcher exits 126). A best-effort part that the kernel cannot
 * enforce (Landlock missing, in confined mode only) is not an error: it sets
 * result->warning and the rest is applied.
 *
 * Call from single-threaded code, or make sure the thread that calls this is
 * the one that execs. Free result->argv with sandbox_result_clear().
 */
SANDBOX_API int sandbox_enforce(const sandbox_policy *policy, const char *const argv[],
                                sandbox_result *result);
SANDBOX_API void sandbox_result_clear(sandbox_result *result);

/* ---- spawning ------------------------------------------------------------ */

typedef struct sandbox_spawn_options {
    const char *working_dir; /* chdir in the child; NULL keeps the parent's */
    int stdin_fd;            /* made the child's fd 0; -1 keeps the parent's */
    int stdout_fd;           /* made the child's fd 1; -1 keeps the parent's */
    int stderr_fd;           /* made the child's fd 2; -1 keeps the parent's */
    const int *keep_fds;     /* further descriptors the child keeps, same numbers */
    size_t n_keep_fds;       /* every other descriptor above 2 is closed */
    /* A supervised run (Linux; docs/api.md, "Supervised runs"): a
     * supervisor process stays between the host and the command. */
    int supervise;           /* 1: supervise, for records and the outcome */
    unsigned long long timeout_ms; /* >0: end the whole process tree after this
                                      long (TERM, KILL 2 s later); implies supervise */
    int keep_background;     /* 1: when the command exits, let its descendants
                                finish (the run ends with the last); implies
                                supervise. 0: they are ended with the command */
} sandbox_spawn_options;

typedef struct sandbox_process {
    long pid;        /* the child's process id (POSIX: 0 once sandbox_wait() reaped it);
                        in a supervised run, the supervisor's */
    void *handle;    /* Windows: the process HANDLE; NULL elsewhere */
    int enforcement; /* enum sandbox_enforcement: how the child was confined */
    void *backend;   /* what the wait releases: Windows the ACL grants and profile,
                        Linux a supervised run's records; NULL otherwise */
    char warning[512]; /* set when a best-effort part could not be applied */
} sandbox_process;

/* Defaults: inherit working directory and stdio, keep no other descriptor. */
SANDBOX_API void sandbox_spawn_options_init(sandbox_spawn_options *options);

/*
 * Start argv as a confined child, without going through the launcher.
 *
 * Safe in a multi-threaded host: the policy is turned into a plan (seccomp
 * program, Landlock ruleset), argv[0] is resolved against PATH into candidate
 * paths and every array is built before the child exists; the child then runs
 * only async-signal-safe system calls: it resets every signal disposition to
 * the default and empties the signal mask, installs stdio, changes directory,
 * marks every descriptor above 2 that is not in keep_fds close-on-exec, applies
 * the plan and execs. On Linux the child is created with
 * clone(CLONE_VM|CLONE_VFORK), so the host's memory is not copied and no
 * pthread_atfork handler runs.
 *
 * envp NULL keeps the caller's environment. argv[0] without a slash is looked
 * up in the PATH of envp when envp has one, else in the caller's PATH, else in
 * the system default path; a relative path is taken from the new working
 * directory. A file without a #! line is not handed to /bin/sh (ENOEXEC).
 * `options` may be NULL for the defaults.
 *
 * Supervised runs (Linux): with options->supervise, timeout_ms or
 * keep_background, or a policy that needs it (protected paths), the child
 * is created with fork and becomes the run's supervisor: it applies the
 * sandbox, forks the command, and stays as its parent until the run ends.
 * process->pid is the supervisor's; the wait sees the command's status. The
 * supervisor records what the sandbox refuses (sandbox_wait_outcome),
 * passes SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to it on
 * to the command, ends the whole process tree at the timeout, when the
 * command exits (unless keep_background) or on SIGALRM, and when the thread
 * that called this exits (its parent-death signal: spawn from a thread that
 * lives as long as the run). Elsewhere timeout_ms and keep_background give
 * SANDBOX_E_UNSUPPORTED; supervise only adds the outcome's status.
 *
 * Returns SANDBOX_OK with `process` filled (process->warning set when a
 * best-effort part, such as Landlock on an old kernel in confined mode, could
 * not be applied). Otherwise no command ran, nothing is left to reap, and
 * `error` says why:
 *   SANDBOX_E_INVALID     NULL argument, empty argv, a stdio or kept descriptor
 *                         that is not open;
 *   SANDBOX_E_NOMEM       out of memory while preparing;
 *   SANDBOX_E_UNSUPPORTED the platform or kernel cannot enforce the policy;
 *   SANDBOX_E_PATH        a policy path or options->working_dir cannot be used;
 *   SANDBOX_E_REFUSED     the hard-link scan (on with a class) found a file
 *                         with a name outside the writable roots;
 *   SANDBOX_E_SYSTEM      a system call failed (fork, pipe, or a step of the
 *                         sandbox in the child: the message names the step);
 *   SANDBOX_E_EXEC        the program could not be executed; sys_errno is
 *                         ENOENT/ENOTDIR when it was not found (a shell would
 *                         exit 127), EACCES, ENOEXEC... otherwise (126).
 * The caller must reap a started child with sandbox_wait(). Thread-safe; the
 * policy is only read. Equivalent to sandbox_plan_new(), sandbox_spawn_plan()
 * and sandbox_plan_free(): a host that runs many commands under one policy
 * can keep the plan instead (see below).
 */
SANDBOX_API int sandbox_spawn(const sandbox_policy *policy, const char *const argv[],
                              const char *const envp[], const sandbox_spawn_options *options,
                              sandbox_process *process, sandbox_error *error);

/*
 * Wait for a child started by sandbox_spawn(), retrying when a signal
 * interrupts the wait. *status receives the wait status as waitpid(2) reports
 * it on POSIX systems (use WIFEXITED and friends), and the process exit code
 * on Windows. On Windows the wait also revokes the run's ACL grants and
 * deletes its AppContainer profile, so every successful sandbox_spawn must be
 * paired with a sandbox_wait. On Linux, after success process->pid is set to
 * 0, so a second wait cannot reap an unrelated process that reused the id.
 * A supervised run's records are released unread (see sandbox_wait_outcome).
 * Returns SANDBOX_OK, SANDBOX_E_INVALID (no process, already reaped, NULL
 * status) or SANDBOX_E_SYSTEM (the wait failed, e.g. ECHILD when the host
 * reaped the child itself or ignores SIGCHLD). Thread-safe for distinct
 * processes.
 */
SANDBOX_API int sandbox_wait(sandbox_process *process, int *status, sandbox_error *error);

/* ---- the outcome of a run ------------------------------------------------ */

#define SANDBOX_OUTCOME_SCHEMA 1

typedef struct sandbox_outcome {
    int status;        /* as sandbox_wait gives it: the command's wait status
                          (POSIX), its exit code (Windows) */
    int timed_out;     /* 1: the run's timeout ended it */
    double duration;   /* seconds from the spawn to the end of the run; -1 unknown */
    size_t n_records;  /* certain records: refusals the kernel reported */
    size_t n_dropped;  /* certain refusals over the cap: counted, not kept */
    char *json;        /* the whole outcome, one JSON object (docs/api.md,
                          schema SANDBOX_OUTCOME_SCHEMA), NUL-terminated */
    char summary[512]; /* one line for a person: the first certain record, else
                          the hedged sentence; "" when nothing points at the sandbox */
    int sandbox_failed; /* 0, or the sandbox's supervisor failed during the run (the
                           summary says where):
                           SANDBOX_FAILED_RUN: while the command ran; it ended the
                           run, and the status (exit 126) is the sandbox's own;
                           SANDBOX_FAILED_AFTER_EXIT: after the command had exited;
                           the status is the command's, and what the command left
                           running was ended at once (even with keep_background) */
} sandbox_outcome;

#define SANDBOX_FAILED_RUN 1
#define SANDBOX_FAILED_AFTER_EXIT 2

/*
 * sandbox_wait(), and the outcome of the run: how it ended, how long it
 * took, the one-line Sandbox description and, for a supervised run (Linux),
 * the records of what the sandbox refused, each from the kernel's own
 * decision (a refused socket with its family, io_uring setup, a protected
 * name; pid and command name). With `policy` (the one the command ran
 * under, or NULL) the hedged sentence of sandbox_describe_denial for the
 * status and `stderr_tail` (the end of the command's error output, or NULL)
 * is added as a record marked not certain; nothing the command prints or
 * exits with ever makes a certain record. On success `outcome` is
 * filled (release it with sandbox_outcome_clear) and the process is reaped
 * as by sandbox_wait. Errors as sandbox_wait, and SANDBOX_E_NOMEM (the
 * process is reaped all the same; outcome->json is NULL). Thread-safe for
 * distinct processes.
 */
SANDBOX_API int sandbox_wait_outcome(sandbox_process *process, const sandbox_policy *policy,
                                     const char *stderr_tail, sandbox_outcome *outcome,
                                     sandbox_error *error);
SANDBOX_API void sandbox_outcome_clear(sandbox_outcome *outcome);

/* ---- plans: prepare once, spawn many ------------------------------------ */

typedef struct sandbox_plan sandbox_plan;

/*
 * Prepare `policy` once for many sandbox_spawn_plan() calls: a host that runs
 * many commands under one policy pays the preparation (resolving the roots,
 * opening them, building the Landlock ruleset, choosing the seccomp program)
 * once instead of on every spawn.
 *
 * The plan is a snapshot: the policy is copied, and the working directory,
 * project root, temp directory, home and cache directories are resolved now
 * (from the current directory and environment). Changing or freeing the
 * policy afterwards does not affect the plan. The refusals that depend on the
 * policy or this machine alone happen here: internet-only network where it is
 * not enforced, a kernel that cannot enforce the mode, protected paths that
 * cannot be given. What depends on the files as they are when a command
 * starts is redone by every spawn: the hard-link scan (when on) and, on Linux,
 * the scan for protected paths, so a secret created after the plan is still
 * masked. On Linux, read-only mode grants the terminal found on the caller's
 * descriptors 0-2 now. Linux keeps one close-on-exec Landlock descriptor open
 * per plan (none for an all-off policy); macOS and Windows keep the resolved
 * policy and do their per-command work (profile, AppContainer) at each spawn.
 *
 * On success *plan is set (free it with sandbox_plan_free()); a best-effort
 * degradation (Landlock missing in confined mode, a writable root that does
 * not exist) is not an error: sandbox_plan_warning() says what is missing, and
 * every process spawned from the plan carries it in process->warning. On
 * failure *plan is NULL and `error` says why:
 *   SANDBOX_E_INVALID     NULL policy or plan, the media class without its
 *                         output folder;
 *   SANDBOX_E_NOMEM       out of memory;
 *   SANDBOX_E_UNSUPPORTED this platform or kernel cannot enforce the policy
 *                         (the same refusal sandbox_spawn gives);
 *   SANDBOX_E_PATH        the working directory cannot be determined, a root
 *                         is the home directory or "/", or a required path
 *                         cannot be opened;
 *   SANDBOX_E_SYSTEM      a system call failed while building the plan.
 * Thread-safe; the policy is only read.
 */
SANDBOX_API int sandbox_plan_new(const sandbox_policy *policy, sandbox_plan **plan,
                                 sandbox_error *error);

/* The plan's best-effort degradations, "" when there are none (and for a
 * NULL plan). The string belongs to the plan. Thread-safe. */
SANDBOX_API const char *sandbox_plan_warning(const sandbox_plan *plan);

/*
 * sandbox_spawn() with a prepared plan: same arguments (but the plan), same
 * child, same errors, and the same contract for sandbox_wait(). Any number of
 * threads may spawn from one plan at once: the plan is never written after
 * sandbox_plan_new(). Each call first runs the per-command checks the plan
 * leaves to it (the hard-link scan when on, SANDBOX_E_REFUSED; the Linux scan
 * for protected paths), then starts the child. process->warning holds the
 * plan's warning and any found by this spawn. Errors:
 *   SANDBOX_E_INVALID     NULL plan, process or argv, an empty argv, a stdio
 *                         or kept descriptor that is not open;
 *   SANDBOX_E_REFUSED     the hard-link scan refused (see
 *                         sandbox_policy_set_scan_hardlinks);
 *   and SANDBOX_E_NOMEM, SANDBOX_E_UNSUPPORTED, SANDBOX_E_PATH,
 *   SANDBOX_E_SYSTEM, SANDBOX_E_EXEC as for sandbox_spawn().
 * Thread-safe.
 */
SANDBOX_API int sandbox_spawn_plan(const sandbox_plan *plan, const char *const argv[],
                                   const char *const envp[],
                                   const sandbox_spawn_options *options,
                                   sandbox_process *process, sandbox_error *error);

/* Release a plan (NULL is a no-op). Call it only once no sandbox_spawn_plan()
 * on it is running; children already started keep their confinement. */
SANDBOX_API void sandbox_plan_free(sandbox_plan *plan);

/* ---- probes -------------------------------------------------------------- */

typedef struct sandbox_capability {
    int available;       /* 1 when this machine's kernel enforces it */
    char mechanism[48];  /* "seccomp-bpf", "landlock", "seatbelt", "appcontainer", "none" */
    char detail[384];    /* what is enforced, what is missing and why */
} sandbox_capability;

typedef struct sandbox_report {
    char platform[16];            /* "linux", "macos", "windows", "other" */
    int landlock_abi;             /* Linux: Landlock ABI version, 0 when absent */
    sandbox_capability network;   /* the network kill-switch */
    sandbox_capability filesystem;/* write confinement */
    sandbox_capability read_only; /* the kernel-enforced read-only mode */
    sandbox_capability internet_only;
    sandbox_capability protected_paths;
    sandbox_capability supervised; /* supervised runs: records, lifecycle */
    char network_notes[768];       /* what the network deny breaks, and the way out */
    sandbox_capability limits;     /* resource limits: which mechanism each gets here */
    sandbox_capability unix_endpoints; /* privileged local sockets closed where writes are
                                          confined: abstract ones, and which paths */
} sandbox_report;

/*
 * Fill `report` with what this machine really enforces. Restricts nothing,
 * forks nothing. Returns SANDBOX_OK or SANDBOX_E_INVALID (NULL report).
 * Thread-safe.
 */
SANDBOX_API int sandbox_self_test(sandbox_report *report);

/* Cheap probes; they install nothing. 1 when available, 0 otherwise. */
SANDBOX_API int sandbox_network_killswitch_available(void);
SANDBOX_API int sandbox_fs_confinement_available(void);

/* ---- explaining ---------------------------------------------------------- */

enum sandbox_target {
    SANDBOX_TARGET_HOST = 0, /* the platform this library was built for */
    SANDBOX_TARGET_LINUX = 1,
    SANDBOX_TARGET_MACOS = 2,
    SANDBOX_TARGET_WINDOWS = 3
};

/*
 * Describe, without applying anything, exactly what enforcing `policy` for
 * `argv` would do on `target`: resolved roots, kernel rules, and the argv that
 * would be executed. `json` selects a JSON object (with an "argv" array)
 * instead of text. On success *out is a NUL-terminated string to release with
 * sandbox_free(). Thread-safe.
 */
SANDBOX_API int sandbox_explain(const sandbox_policy *policy, const char *const argv[],
                                int target, int json, char **out, sandbox_error *error);

/* ---- words for people and models ---------------------------------------- */

/*
 * The one-line description of `policy` on this machine, for a confirmation
 * prompt or a tool definition: for example
 *   "on: writes only inside /work/p, temporary directories; no network."
 *   "on: read-only, no writes anywhere; no network."
 *   "off: no sandbox was asked for; commands run with your account's permissions."
 *   "unavailable on this system."   (this machine cannot enforce the policy)
 * It reflects the machine's probes: a confined-filesystem policy on a Linux
 * kernel without Landlock says that writes are not confined. Writes at most
 * `size` bytes to `buf`, always NUL-terminated. Returns SANDBOX_OK;
 * SANDBOX_E_INVALID for a NULL policy or buffer, a zero size, or a buffer too
 * small (it then holds as much as fits; SANDBOX_DESCRIBE_SIZE always fits
 * paths up to 1 KiB each); SANDBOX_E_NOMEM; SANDBOX_E_PATH when the working
 * directory cannot be determined. Thread-safe.
 */
#define SANDBOX_DESCRIBE_SIZE 4096
SANDBOX_API int sandbox_policy_describe(const sandbox_policy *policy, char *buf, size_t size);

/*
 * Say, in one short sentence, whether the way a command ended points at the
 * sandbox. `status` is the POSIX wait status (as from sandbox_wait or
 * waitpid) for the Linux and macOS targets, and the process exit code for
 * Windows. `stderr_tail` is the end of the command's error output, or NULL;
 * only its last 4 KiB are read. `target` names whose signatures to use
 * (SANDBOX_TARGET_HOST for this machine). The sentence is written to `buf`:
 *   network: Linux, death by SIGSYS (or a shell's exit status 159) under a
 *     network deny: "blocked by the network sandbox ..." (certain); macOS
 *     "Operation not permitted" near a network word, Windows WSAEACCES 10013:
 *     hedged ("probably");
 *   filesystem: a permission error in the text ("Permission denied",
 *     "Operation not permitted", "Read-only file system", EACCES, EPERM,
 *     Windows "Access is denied" or exit code 5) under confined or read-only
 *     writes: hedged, naming the project root.
 * buf is set to "" when the outcome does not point at the sandbox (success,
 * an ordinary failure, or a policy that does not confine that dimension).
 * Never allocates. Returns SANDBOX_OK, or SANDBOX_E_INVALID for a NULL
 * policy or buffer, a zero size or an unknown target. Thread-safe.
 */
SANDBOX_API int sandbox_describe_denial(const sandbox_policy *policy, int target, int status,
                                        const char *stderr_tail, char *buf, size_t size);

/*
 * For hosts on a platform where this library cannot enforce `policy` (no
 * backend, or a kernel that lacks it; policy NULL means "anything"): the
 * warning to log once per process, that commands run unconfined. The host owns
 * the flag: pass the same zero-initialised int for the whole process (a static
 * in the host). The first call that finds the sandbox unavailable returns a
 * static sentence and sets *once atomically; every later call, and every call
 * on a platform that enforces the policy, returns NULL. Thread-safe when all
 * threads pass the same flag.
 */
SANDBOX_API const char *sandbox_unavailable_warning(const sandbox_policy *policy, int *once);

/* Release a string returned by the library. */
SANDBOX_API void sandbox_free(void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* SANDBOX_H */
