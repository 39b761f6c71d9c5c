/* Descriptor hygiene for the launcher: --close-fds and --keep-fd N. */
#ifndef SANDBOX_LAUNCHER_FDS_H
#define SANDBOX_LAUNCHER_FDS_H

#include <stddef.h>

/* The most --keep-fd options one invocation takes. */
#define LAUNCHER_MAX_KEEP_FDS 64

/* Parse a --keep-fd value: a decimal descriptor number >= 0. Returns 0 and
 * sets *fd, or -1 when `s` is not one. */
int launcher_parse_fd(const char *s, int *fd);

/* Close every descriptor above 2 (stdin, stdout and stderr always stay)
 * except those listed in keep[]. Returns 0, or an errno value when the
 * descriptors could not be closed (then the command must not run). */
int launcher_close_fds(const int *keep, size_t n_keep);

#endif
