/* Probe: terminal input injection through the terminal on fd 0.
 *   esc_tty sti      ioctl(TIOCSTI): push a byte into the terminal's input
 *   esc_tty linux    ioctl(TIOCLINUX, TIOCL_PASTESEL): paste the console selection
 *   esc_tty devtty   TIOCSTI through a fresh descriptor of /dev/tty, as a
 *                    command whose stdio was redirected would do
 * Exit 0: accepted; 1: refused (errno printed); 2: fd 0 is not a terminal. */
#define _GNU_SOURCE
#include "esc_common.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 2)
        return esc_usage("esc_tty sti|linux");
    if (!isatty(0)) {
        printf("fd 0 is not a terminal\n");
        return 2;
    }
    if (strcmp(argv[1], "sti") == 0) {
        char c = '\n';
        errno = 0;
        ESC_RETURN("TIOCSTI", ioctl(0, TIOCSTI, &c));
    }
    if (strcmp(argv[1], "devtty") == 0) {
        char c = '\n';
        int fd = open("/dev/tty", O_RDWR | O_NOCTTY);
        if (fd < 0) {
            int e = errno;
            return esc_report("open /dev/tty", -1, e);
        }
        ESC_RETURN("TIOCSTI on /dev/tty", ioctl(fd, TIOCSTI, &c));
    }
    if (strcmp(argv[1], "linux") == 0) {
        char sub = 3; /* TIOCL_PASTESEL */
        errno = 0;
        ESC_RETURN("TIOCLINUX", ioctl(0, TIOCLINUX, &sub));
    }
    return esc_usage("esc_tty sti|linux|devtty");
}
