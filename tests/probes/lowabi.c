/* lowabi N -- CMD [ARGS...]
 *
 * Run CMD (and every process it starts) as if the kernel's Landlock ABI
 * were N: the version query, landlock_create_ruleset(NULL, 0,
 * LANDLOCK_CREATE_RULESET_VERSION), answers N instead of the real number.
 * Every other Landlock call reaches the real kernel, which accepts what an
 * older ABI asks for, so CMD really runs with an ABI-N ruleset. A seccomp
 * filter returns SECCOMP_RET_TRACE for that one call, and this tracer skips
 * it and writes N as its result (a filter alone cannot return a positive
 * number). A test tool: it suppresses the start-up SIGSTOP of each new
 * tracee and forwards every other signal. Exit: CMD's status (128+signal
 * when killed), 125 when the tracer cannot start. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#  define LOWABI_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#  include <elf.h>
#  define LOWABI_ARCH AUDIT_ARCH_AARCH64
#else
#  error "lowabi: add this architecture's AUDIT_ARCH and registers"
#endif

#define NR_CREATE_RULESET 444
#define VERSION_FLAG 1 /* LANDLOCK_CREATE_RULESET_VERSION */

static struct sock_filter trace_version[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, LOWABI_ARCH, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_CREATE_RULESET, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, VERSION_FLAG, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
};

/* Skip the call the tracee `pid` is stopped in, and make it return `value`. */
static int answer(pid_t pid, long value)
{
#if defined(__x86_64__)
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, pid, 0, &regs) != 0)
        return -1;
    regs.orig_rax = (unsigned long long)-1; /* no system call */
    regs.rax = (unsigned long long)value;
    return (int)ptrace(PTRACE_SETREGS, pid, 0, &regs);
#else
    struct user_pt_regs regs;
    struct iovec io = {&regs, sizeof regs};
    int nr = -1;
    struct iovec sc = {&nr, sizeof nr};
    if (ptrace(PTRACE_SETREGSET, pid, NT_ARM_SYSTEM_CALL, &sc) != 0 ||
        ptrace(PTRACE_GETREGSET, pid, NT_PRSTATUS, &io) != 0)
        return -1;
    regs.regs[0] = (unsigned long long)value;
    return (int)ptrace(PTRACE_SETREGSET, pid, NT_PRSTATUS, &io);
#endif
}

int main(int argc, char **argv)
{
    struct sock_fprog prog = {sizeof trace_version / sizeof trace_version[0], trace_version};
    long abi;
    pid_t child, w;
    int st, code = 125;

    if (argc < 4 || strcmp(argv[2], "--") != 0 || (abi = strtol(argv[1], NULL, 10)) < 1) {
        fprintf(stderr, "usage: lowabi N -- CMD [ARGS...]   (N >= 1)\n");
        return 2;
    }
    child = fork();
    if (child < 0) {
        perror("lowabi: fork");
        return 125;
    }
    if (child == 0) {
        if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0 || raise(SIGSTOP) != 0 ||
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
            perror("lowabi: cannot set up the tracee");
            _exit(125);
        }
        execvp(argv[3], argv + 3);
        perror("lowabi: exec");
        _exit(127);
    }
    if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st) ||
        ptrace(PTRACE_SETOPTIONS, child, 0,
               PTRACE_O_TRACESECCOMP | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK |
                   PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0 ||
        ptrace(PTRACE_CONT, child, 0, 0) != 0) {
        perror("lowabi: cannot trace");
        kill(child, SIGKILL);
        return 125;
    }
    while ((w = waitpid(-1, &st, __WALL)) > 0) {
        int sig = 0;
        if (WIFEXITED(st) || WIFSIGNALED(st)) {
            if (w == child)
                code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            continue;
        }
        if (!WIFSTOPPED(st))
            continue;
        if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_SECCOMP << 8))) {
            if (answer(w, abi) != 0)
                perror("lowabi: cannot answer");
        } else if (st >> 16 == 0 && WSTOPSIG(st) != SIGSTOP) {
            sig = WSTOPSIG(st); /* an ordinary signal: deliver it */
        }
        /* Event stops (fork, clone, vfork, exec) and new tracees' SIGSTOP: go on. */
        ptrace(PTRACE_CONT, w, 0, sig);
    }
    return code;
}
