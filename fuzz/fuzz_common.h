/* Helpers shared by the libFuzzer targets: a hard assertion that survives
 * NDEBUG, and splitting the input into NUL-separated strings. */
#ifndef SBX_FUZZ_COMMON_H
#define SBX_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                    \
        }                                                                               \
    } while (0)

#define FUZZ_MAX_STRINGS 16

/* Copy data into one buffer and split it at NUL bytes into at most
 * FUZZ_MAX_STRINGS strings (the last one runs to the end). `out` receives
 * pointers into *storage, NULL-terminated; free *storage when done. */
static size_t fuzz_split(const uint8_t *data, size_t size, char **storage,
                         char *out[FUZZ_MAX_STRINGS + 1])
{
    size_t n = 0, i;
    char *s = malloc(size + 1);
    if (!s)
        abort();
    if (size)
        memcpy(s, data, size);
    s[size] = '\0';
    *storage = s;
    out[n++] = s;
    for (i = 0; i < size && n < FUZZ_MAX_STRINGS; i++)
        if (s[i] == '\0')
            out[n++] = s + i + 1;
    out[n] = NULL;
    return n;
}

#endif
