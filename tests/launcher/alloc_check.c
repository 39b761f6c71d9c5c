/* launcher/alloc.c, the musl launcher's allocator, in a program it serves
 * alone (linked in, it replaces the C library's malloc here too). Exit 0
 * when every check holds; each failure is printed. Built only where the
 * musl launcher is (not under a sanitizer, which brings its own malloc). */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed;

static void check(int ok, const char *what)
{
    printf("%s - %s\n", ok ? "ok" : "FAIL", what);
    failed += !ok;
}

static unsigned long long rng = 88172645463325252ULL;
static unsigned long long next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Sizes the compiler cannot see at build time (it warns on the literals). */
static volatile size_t huge = SIZE_MAX;

int main(void)
{
    enum { SLOTS = 512, ROUNDS = 60000 };
    static unsigned char *slot[SLOTS];
    static size_t len[SLOTS];
    unsigned char *a, *b, *c;
    size_t i, bad = 0, misaligned = 0;
    int r;
    void *p = NULL;

    a = malloc(100);
    check(a != NULL && ((uintptr_t)a & 15) == 0, "malloc(100) gives a 16-byte aligned block");
    check(malloc_usable_size(a) >= 100, "its usable size covers the request");
    memset(a, 0xAB, 100);
    free(a);
    b = malloc(120);
    check(b == a, "a freed block is reused for the next request of its size class");
    c = calloc(30, 4);
    check(c != NULL, "calloc(30, 4)");
    for (i = 0; c && i < 120; i++)
        bad += c[i] != 0;
    check(bad == 0, "calloc zeroes a reused (dirty) block");
    free(b);
    free(c);

    a = malloc(10);
    memcpy(a, "0123456789", 10);
    a = realloc(a, 5000);
    check(a && memcmp(a, "0123456789", 10) == 0, "realloc to a larger class keeps the bytes");
    b = realloc(a, 3);
    check(b == a, "realloc to a smaller size keeps the block");
    free(b);

    a = malloc((size_t)3 << 20);
    check(a != NULL, "a 3 MB block (a mapping of its own)");
    if (a) {
        a[0] = 1;
        a[((size_t)3 << 20) - 1] = 2;
        a = realloc(a, (size_t)5 << 20);
        check(a && a[0] == 1 && a[((size_t)3 << 20) - 1] == 2, "realloc of a mapping keeps bytes");
        free(a);
    }
    /* A big array grown a little at a time (thousands of --protect
     * patterns): grown by half each time it moves, never moved per step. */
    {
        size_t grows = 0, n = (size_t)300 << 10, cap;
        unsigned char *g = malloc(n);
        cap = malloc_usable_size(g);
        for (i = 0; g && i < 4000; i++) {
            n += 1000;
            g = realloc(g, n);
            if (g && malloc_usable_size(g) != cap) {
                grows++;
                cap = malloc_usable_size(g);
            }
            if (g)
                g[n - 1] = 7;
        }
        /* 300 KB to 4.3 MB: by half each time is 7 steps; by the page, 980. */
        check(g != NULL && grows < 20, "4,000 small growths of a big block: few reallocations");
        free(g);
    }
    /* A block freed twice: the process aborts rather than hand it out twice. */
    {
        pid_t pid = fork();
        int st = 0;
        if (pid == 0) {
            unsigned char *volatile x = malloc(40);
            free(x);
            free(x);
            _exit(0);
        }
        check(pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT,
              "a double free aborts");
    }
    free(NULL);
    check(realloc(NULL, 7) != NULL, "realloc(NULL, n) allocates");

    errno = 0;
    check(calloc(huge / 2, 4) == NULL && errno == ENOMEM, "calloc overflow: ENOMEM");
    errno = 0;
    check(malloc(huge - 4) == NULL && errno == ENOMEM, "malloc(huge - 4): ENOMEM");
    errno = 0;
    check(aligned_alloc(64, 64) == NULL && errno == EINVAL, "alignment beyond 16: EINVAL");
    check(aligned_alloc(16, 40) != NULL, "aligned_alloc(16, 40)");
    r = posix_memalign(&p, 8, 24);
    check(r == 0 && p != NULL, "posix_memalign(8, 24)");

    /* Random traffic: every live block keeps its own pattern, through
     * reuse by other sizes and through realloc. */
    bad = 0;
    for (i = 0; i < ROUNDS; i++) {
        size_t k = next() % SLOTS, n, j, keep;
        unsigned op = (unsigned)(next() % 3);
        for (j = 0; slot[k] && j < len[k]; j++)
            bad += slot[k][j] != (unsigned char)(k + j);
        n = (size_t)(next() % (next() % 32 == 0 ? 300000 : 2000));
        if (op == 2) {
            free(slot[k]);
            slot[k] = NULL;
            len[k] = 0;
            continue;
        }
        if (op == 1 && slot[k]) {
            unsigned char *g = realloc(slot[k], n);
            if (!g)
                continue;
            keep = len[k] < n ? len[k] : n;
            for (j = 0; j < keep; j++)
                bad += g[j] != (unsigned char)(k + j);
            slot[k] = g;
        } else {
            free(slot[k]);
            slot[k] = malloc(n);
            if (!slot[k]) {
                len[k] = 0;
                continue;
            }
        }
        misaligned += ((uintptr_t)slot[k] & 15) != 0;
        for (j = 0; j < n; j++)
            slot[k][j] = (unsigned char)(k + j);
        len[k] = n;
    }
    check(bad == 0, "60,000 random malloc/realloc/free: no live block was overwritten");
    check(misaligned == 0, "every block 16-byte aligned");
    return failed ? 1 : 0;
}
