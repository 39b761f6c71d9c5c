/* Words for people and models: the pure parts, reachable by unit tests. */
#ifndef SANDBOX_DESCRIBE_H
#define SANDBOX_DESCRIBE_H

#include "internal.h"

/* What the machine can enforce, as the probes report it. */
struct sbx_avail {
    int network;
    int filesystem;
    int read_only;
    int internet_only;
    int protected_paths;
};

/* The "Sandbox:" line for a resolved policy, given what is available.
 * Returns SANDBOX_OK or SANDBOX_E_INVALID when buf is too small. */
int sbx_describe_render(const sbx_resolved *r, const struct sbx_avail *a, char *buf, size_t size);

/* This build's availability (the backend probes). */
void sbx_describe_probe(struct sbx_avail *a);

/* sandbox_describe_denial for a run whose network refusals may have been
 * recorded. net_recorded 0: not recorded (the public function); 1: a
 * supervised run with records that recorded nothing: an exit status of 159
 * or a SIGSYS death is the command's own; 2: one that recorded refusals,
 * which say what the network sandbox did. With 1 or 2 no sentence guesses
 * at the network sandbox. */
int sbx_describe_denial_recorded(const sandbox_policy *p, int target, int status,
                                 const char *tail, int net_recorded, char *buf, size_t size);

/* 1 when `target` (possibly SANDBOX_TARGET_HOST) is the platform this
 * library runs on. */
int sbx_is_host_target(int target);

#endif
