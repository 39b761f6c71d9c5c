/* The account's home directory, from the user database rather than $HOME:
 * the command's environment (env -u HOME, HOME=/) cannot move it. */
#define _POSIX_C_SOURCE 200809L /* getpwuid_r */
#include "internal.h"

#if defined(_WIN32)
char *sbx_account_home(void)
{
    return NULL; /* the Windows backend reads the profile directory itself */
}
#else
#  include <pwd.h>
#  include <stdlib.h>
#  include <unistd.h>

char *sbx_account_home(void)
{
    struct passwd pw, *res = NULL;
    long n = sysconf(_SC_GETPW_R_SIZE_MAX);
    size_t size = n > 0 ? (size_t)n : 16384;
    char *buf = malloc(size);
    char *home = NULL;

    if (!buf)
        return NULL;
    if (getpwuid_r(geteuid(), &pw, buf, size, &res) == 0 && res && res->pw_dir &&
        res->pw_dir[0] == '/')
        home = sbx_strdup(res->pw_dir);
    free(buf);
    return home;
}
#endif
