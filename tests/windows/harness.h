/* A tiny header-only test harness for the Windows tests (cmocka is not
 * packaged for mingw-w64). Each test is a void function; CHECK records a
 * failure and carries on. The last line printed is "N passed, N failed", and
 * the exit status is 0 only when nothing failed; SBX_SKIP exits 77, which
 * ctest reports as skipped. */
#ifndef SBX_TEST_HARNESS_H
#define SBX_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SBX_SKIP_CODE 77

struct sbx_harness {
    int passed, failed, current_failed;
};

#define CHECK(h, cond)                                                                        \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            printf("    %s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                \
            (h)->current_failed = 1;                                                          \
        }                                                                                     \
    } while (0)

#define CHECK_STR(h, got, want)                                                               \
    do {                                                                                      \
        const char *g_ = (got), *w_ = (want);                                                 \
        if (!g_ || strcmp(g_, w_) != 0) {                                                     \
            printf("    %s:%d: got \"%s\", wanted \"%s\"\n", __FILE__, __LINE__,               \
                   g_ ? g_ : "(null)", w_);                                                   \
            (h)->current_failed = 1;                                                          \
        }                                                                                     \
    } while (0)

#define CHECK_INT(h, got, want)                                                               \
    do {                                                                                      \
        long long g_ = (long long)(got), w_ = (long long)(want);                              \
        if (g_ != w_) {                                                                       \
            printf("    %s:%d: %s is %lld, wanted %lld\n", __FILE__, __LINE__, #got, g_, w_);  \
            (h)->current_failed = 1;                                                          \
        }                                                                                     \
    } while (0)

#define RUN(h, fn)                                                                            \
    do {                                                                                      \
        (h)->current_failed = 0;                                                              \
        fn(h);                                                                                \
        if ((h)->current_failed) {                                                            \
            (h)->failed++;                                                                    \
            printf("FAIL - %s\n", #fn);                                                       \
        } else {                                                                              \
            (h)->passed++;                                                                    \
            printf("ok   - %s\n", #fn);                                                       \
        }                                                                                     \
        fflush(stdout);                                                                       \
    } while (0)

static inline int sbx_harness_finish(const struct sbx_harness *h)
{
    printf("%d passed, %d failed\n", h->passed, h->failed);
    return h->failed ? 1 : 0;
}

#define SBX_SKIP(why)                                                                         \
    do {                                                                                      \
        printf("skip - %s\n0 passed, 0 failed\n", why);                                        \
        exit(SBX_SKIP_CODE);                                                                  \
    } while (0)

#endif
