/* Helpers shared by the libFuzzer targets: a hard assertion that survives
 * NDEBUG, and splitting the input into NUL-separated strings. */
#ifndef SBX_FUZZ_COMMON_H
#define SBX_FUZZ_COMMON_H

#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond); \
            abort();                                                                    \
        }                                                                               \
    } while (0)

/* The Windows plan in sandbox_explain walks the named roots on this host to
 * list the deny ACEs it would set, so a fuzzed "/usr" or "/proc" walked the
 * machine's whole tree and hit libFuzzer's timeout. Every path the fuzzer
 * hands out is therefore moved under a small fixture made once per process
 * (a project with a secret, a subdirectory, a link inside and one out), and
 * HOME, TMPDIR and the working directory point into it: the fuzzed grammar is
 * unchanged, only the tree it names is small. A ".." component becomes "__"
 * so that no spelling climbs out of the fixture. */
static inline const char *fuzz_fixture(void)
{
    static char root[64];
    char p[128];
    FILE *f;
    if (root[0])
        return root;
    strcpy(root, "/tmp/sbx-fuzz-XXXXXX");
    if (!mkdtemp(root))
        abort();
    snprintf(p, sizeof p, "%s/home", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/home/.ssh", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/tmp", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proj", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proj/sub", root);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/proj/.env", root);
    if ((f = fopen(p, "w")) != NULL)
        fclose(f);
    snprintf(p, sizeof p, "%s/proj/up", root);
    if (symlink("..", p) != 0 && errno != EEXIST)
        abort();
    snprintf(p, sizeof p, "%s/home", root);
    setenv("HOME", p, 1);
    snprintf(p, sizeof p, "%s/tmp", root);
    setenv("TMPDIR", p, 1);
    snprintf(p, sizeof p, "%s/proj", root);
    if (chdir(p) != 0)
        abort();
    return root;
}

/* `in` moved under the fixture when it is a POSIX absolute path (also after
 * an '=' in "--flag=/path"); anything else is returned as a copy. */
static inline char *fuzz_jail_path(const char *in)
{
    const char *root = fuzz_fixture(), *eq = strchr(in, '=');
    size_t lr = strlen(root), li = strlen(in), head = 0, i, o = 0;
    char *out;
    if (in[0] != '/') {
        if (in[0] == '-' && eq && eq[1] == '/')
            head = (size_t)(eq - in) + 1;
        else
            return strdup(in);
    }
    out = malloc(li + lr + 1);
    if (!out)
        abort();
    memcpy(out, in, head);
    o = head;
    memcpy(out + o, root, lr);
    o += lr;
    for (i = head; i < li; i++) {
        if (in[i] == '.' && in[i + 1] == '.' && (i == 0 || in[i - 1] == '/') &&
            (in[i + 2] == '/' || in[i + 2] == '\0')) {
            out[o++] = '_';
            out[o++] = '_';
            i++;
            continue;
        }
        out[o++] = in[i];
    }
    out[o] = '\0';
    return out;
}

static inline void fuzz_free_all(char **v, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        free(v[i]);
}

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
