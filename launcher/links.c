/* --report, after the command: the hard-link scan again (spec 004: a link
 * that appears while a command runs is recorded when it exits). The scan at
 * start refused every outside link it did not accept, so whatever it finds
 * now was made while the command ran, by the command (which Landlock only
 * lets link within the roots) or by another process. Nothing is undone: the
 * host learns of it, and the next launch refuses to start until the link is
 * removed or allowed. */
#define _POSIX_C_SOURCE 200809L
#include "links.h"
#include "args.h"

#include <stdio.h>
#include <string.h>

size_t launcher_report_new_links(const sandbox_policy *policy)
{
    sandbox_scan_report rep;
    size_t i, n;
    int rc = sandbox_scan_hardlinks(policy, &rep);
    if (rc == SANDBOX_OK || (rc == SANDBOX_E_REFUSED && rep.n_outside == 0)) {
        /* Nothing outside; or a directory that cannot be listed now, which
         * the next launch reports as it refuses. */
        sandbox_scan_report_clear(&rep);
        return 0;
    }
    n = rep.n_outside;
    if (rc == SANDBOX_E_REFUSED) {
        fprintf(stderr, PROG ": warning: while the command ran, %zu file%s in the writable roots "
                        "got a hard link to a name outside them:",
                n, n == 1 ? "" : "s");
        for (i = 0; i < n && i < 5; i++)
            fprintf(stderr, "%s %s", i ? "," : "", rep.outside[i]);
        if (n > 5)
            fprintf(stderr, " and %zu more", n - 5);
        fprintf(stderr, "; the next launch refuses to start until they are removed or allowed\n");
    }
    sandbox_scan_report_clear(&rep);
    return n;
}
