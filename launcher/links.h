/* --report: hard links that appeared while the command ran (launcher/links.c). */
#ifndef SANDBOX_LAUNCHER_LINKS_H
#define SANDBOX_LAUNCHER_LINKS_H

#include "sandbox.h"

/* Scan the policy's writable roots again after the command exited and say,
 * on stderr, which files now have a name outside them (the scan before the
 * start found none, so these appeared meanwhile). Returns the number found. */
size_t launcher_report_new_links(const sandbox_policy *policy);

#endif
