/* Probe: use a descriptor inherited from outside the sandbox.
 *   esc_fd write FD          write one line to FD
 *   esc_fd connect FD PORT   connect the (inherited) socket FD to
 *                            127.0.0.1:PORT and send a line
 * Exit 0: done; 1: refused (errno printed, EBADF when the fd was closed). */
#define _GNU_SOURCE
#include "esc_common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int fd;
    if (argc < 3)
        return esc_usage("esc_fd write FD | connect FD PORT");
    fd = atoi(argv[2]);
    if (strcmp(argv[1], "write") == 0)
        ESC_RETURN("write", write(fd, "escaped\n", 8));
    if (strcmp(argv[1], "connect") == 0 && argc == 4) {
        struct sockaddr_in sa;
        memset(&sa, 0, sizeof sa);
        sa.sin_family = AF_INET;
        sa.sin_port = htons((unsigned short)atoi(argv[3]));
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
            return esc_report("connect", -1, errno);
        ESC_RETURN("send", send(fd, "escaped\n", 8, 0));
    }
    return esc_usage("esc_fd write FD | connect FD PORT");
}
