/* Probe: kernel attack surface a read-only command never needs, and calls
 * whose flags live in memory.
 *   esc_kernel bpf | perf | userfaultfd | personality | clone3 | openat2
 * bpf: BPF_MAP_CREATE of a tiny array; perf: a task-clock counter on
 * ourselves; userfaultfd: user-mode-only; personality: set ADDR_NO_RANDOMIZE;
 * clone3: a plain child (flags 0); openat2: open "/" read-only.
 * Exit 0: succeeded; 1: refused (errno printed); 2: not in this kernel. */
#define _GNU_SOURCE
#include "esc_common.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/openat2.h>
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/personality.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#  define SYS_clone3 435
#endif
#ifndef SYS_openat2
#  define SYS_openat2 437
#endif
#ifndef UFFD_USER_MODE_ONLY
#  define UFFD_USER_MODE_ONLY 1
#endif

int main(int argc, char **argv)
{
    long rc;
    const char *w = argc == 2 ? argv[1] : "";
    if (strcmp(w, "bpf") == 0) {
        union bpf_attr a;
        memset(&a, 0, sizeof a);
        a.map_type = BPF_MAP_TYPE_ARRAY;
        a.key_size = 4;
        a.value_size = 4;
        a.max_entries = 1;
        rc = syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof a);
        return esc_report("bpf", rc, errno);
    }
    if (strcmp(w, "perf") == 0) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_TASK_CLOCK;
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        rc = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
        return esc_report("perf_event_open", rc, errno);
    }
    if (strcmp(w, "userfaultfd") == 0) {
        rc = syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
        return esc_report("userfaultfd", rc, errno);
    }
    if (strcmp(w, "personality") == 0) {
        errno = 0;
        rc = personality(ADDR_NO_RANDOMIZE);
        return esc_report("personality", rc == -1 ? -1 : 0, errno);
    }
    if (strcmp(w, "clone3") == 0) {
        struct clone_args ca;
        int status;
        memset(&ca, 0, sizeof ca);
        ca.exit_signal = SIGCHLD;
        rc = syscall(SYS_clone3, &ca, sizeof ca);
        if (rc == 0)
            _exit(0);
        if (rc > 0)
            waitpid((pid_t)rc, &status, 0);
        return esc_report("clone3", rc, errno);
    }
    if (strcmp(w, "openat2") == 0) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = O_RDONLY | O_DIRECTORY;
        rc = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
        return esc_report("openat2", rc, errno);
    }
    return esc_usage("esc_kernel bpf|perf|userfaultfd|personality|clone3|openat2");
}
