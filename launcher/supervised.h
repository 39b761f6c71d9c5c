/* The launcher's supervised run (launcher/supervised.c). */
#ifndef SBX_LAUNCHER_SUPERVISED_H
#define SBX_LAUNCHER_SUPERVISED_H

#include "args.h"

/* 1 when the flags or the policy ask for a supervised run. */
int launcher_wants_supervision(const struct launcher_opts *o);

/* Run o->cmd under o->policy as a supervised child (sandbox_spawn with
 * supervision), pass the host's signals on, relay and keep the end of its
 * stderr with --report, write the outcome to --outcome-fd, and return the
 * exit status the launcher ends with (or die of the command's signal).
 * Frees o->policy. */
int launcher_run_supervised(struct launcher_opts *o);

#endif
