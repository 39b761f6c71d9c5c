/* How many spawns the stress tests make. The default build makes the full
 * 1,000. Sanitizer builds fork (the vfork-style clone is off under ASan) and
 * copy a large shadow heap each time, so 1,000 rounds there measure the
 * machine's load rather than the library: 100 still catch a leaked fd, a
 * zombie or a deadlock. */
#ifndef SBX_TEST_SPAWN_ROUNDS_H
#define SBX_TEST_SPAWN_ROUNDS_H

#if defined(__SANITIZE_ADDRESS__)
#  define SBX_SPAWN_ROUNDS 100
#elif defined(__has_feature)
#  if __has_feature(address_sanitizer)
#    define SBX_SPAWN_ROUNDS 100
#  endif
#endif
#ifndef SBX_SPAWN_ROUNDS
#  define SBX_SPAWN_ROUNDS 1000
#endif

#endif
