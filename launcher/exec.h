/* Running the command: execvp with the same behaviour on every C library. */
#ifndef SBX_LAUNCHER_EXEC_H
#define SBX_LAUNCHER_EXEC_H

#include <stddef.h>

/* Like execvp(3) as POSIX describes it: search PATH when the name has no
 * slash (when PATH is unset, /usr/local/bin:/usr/bin:/bin, the default
 * sandbox_spawn uses; glibc's is /bin:/usr/bin), and hand a file the kernel
 * cannot execute (ENOEXEC: no #! line) to /bin/sh. glibc does both; musl
 * does not fall back to the shell, so the launcher does it itself. Returns
 * only on failure, with errno set as execvp would set it. */
void launcher_execvp(char *const argv[]);

/* The file execvp would run for `file`: itself when it has a slash, else
 * the first executable regular file in PATH (the same default). 1 with the
 * path in buf, 0 when there is none. */
int launcher_find_in_path(const char *file, char *buf, size_t size);

#endif
