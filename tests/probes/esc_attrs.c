/* Probe: what the process was started with, and how it dies.
 *   esc_attrs show    print "euid=N nnp=N core=SOFT/HARD"
 *   esc_attrs sigsys  kill ourselves with SIGSYS (dumps core where allowed)
 *   esc_attrs inet    socket(AF_INET): the network kill-switch's SIGSYS
 * Exit 0 after show; the others die by signal (or exit 1 if refused). */
#define _GNU_SOURCE
#include "esc_common.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return esc_usage("esc_attrs show|sigsys|inet");
    if (strcmp(argv[1], "show") == 0) {
        struct rlimit rl;
        getrlimit(RLIMIT_CORE, &rl);
        printf("euid=%ld nnp=%d core=%lld/%lld\n", (long)geteuid(),
               prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0),
               rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur,
               rl.rlim_max == RLIM_INFINITY ? -1LL : (long long)rl.rlim_max);
        return 0;
    }
    if (strcmp(argv[1], "sigsys") == 0) {
        raise(SIGSYS);
        return 1;
    }
    if (strcmp(argv[1], "inet") == 0)
        ESC_RETURN("socket(AF_INET)", socket(AF_INET, SOCK_STREAM, 0));
    return esc_usage("esc_attrs show|sigsys|inet");
}
