/* The machine profile for the C tests: which skips are legitimate.
 * tests/with-profile.sh computes the profile (tests/lib.sh, `profile`) and
 * passes the keys this machine has in SBX_HAVE ("root userns guard ...").
 * A C test skips only through these helpers, naming the capability it lacks:
 *   T_SKIP_UNLESS("python3", "no python3 for the socket probe");
 * skips the cmocka test when the profile lacks the key, and fails it when the
 * profile has it (a skip must never hide a regression). In main():
 *   return t_require("guard", lib_says_available, detail);  (0: run)
 * The wrapper fails a run whose skips do not carry the "[profile: no KEY]"
 * marker these helpers print. Include after <cmocka.h> (for T_SKIP_UNLESS). */
#ifndef SBX_T_PROFILE_H
#define SBX_T_PROFILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1: the profile has KEY; 0: it lacks it; -1: no profile (not run by ctest). */
static inline int t_have(const char *key)
{
    const char *have = getenv("SBX_HAVE"), *p;
    size_t n = strlen(key);
    if (!have)
        return -1;
    for (p = have; (p = strstr(p, key)) != NULL; p += n)
        if ((p == have || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

/* For main(): 0 to run the tests, 77 to skip them all, 1 to fail. The library
 * saying "unavailable" where the profile says the machine can give it is a
 * failure: the bug the skip would otherwise hide. */
static inline int t_require(const char *key, int lib_available, const char *detail)
{
    int h = t_have(key);
    if (h == 1 && lib_available)
        return 0;
    if (h == 1) {
        printf("FAIL - the library says unavailable (%s), but this machine has %s\n", detail, key);
        return 1;
    }
    if (h < 0) {
        printf("FAIL - no machine profile (SBX_HAVE): run through ctest / tests/with-profile.sh\n");
        return 1;
    }
    if (lib_available)
        printf("skip: %s: this machine lacks it, though the library reports it available (a run "
               "fails closed there) [profile: no %s]\n", key, key);
    else
        printf("skip: %s: %s [profile: no %s]\n", key, detail, key);
    return 77;
}

#ifdef cmocka_unit_test
#  define T_SKIP_UNLESS(key, reason)                                                             \
        do {                                                                                     \
            int t_h_ = t_have(key);                                                              \
            if (t_h_ != 0) {                                                                     \
                print_error("unjustified skip: %s (profile: %s)\n", reason,                      \
                            t_h_ < 0 ? "none" : "this machine has " key);                        \
                fail();                                                                          \
            }                                                                                    \
            print_message("skip: %s: %s [profile: no %s]\n", key, reason, key);                  \
            skip();                                                                              \
        } while (0)
#endif

#endif
