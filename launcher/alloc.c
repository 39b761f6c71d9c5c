/* The musl launcher's allocator: free blocks are kept for reuse, never
 * given back to the kernel while the launcher runs.
 *
 * Why: musl's allocator (mallocng) unmaps a group as soon as its last block
 * is freed, and the launcher's start-up frees and allocates in waves (the
 * user database's buffers, stdio's, directory listings), so a supervised
 * launch made 14 munmap calls before the command ran, --class build 64.
 * Each unmap of touched memory is a TLB flush and each new map a page fault
 * again; on a virtual machine that traps to the hypervisor, one
 * map-touch-unmap cycle costs about 39 us here against
 * 0.3-0.7 ms for the whole bare /bin/true the launch is compared with
 * (docs/bench.md, "The launcher's allocator"). The launcher is one short
 * process per command, so holding freed memory until it exits costs little.
 *
 * Linked only into the static musl launcher (launcher/musl.cmake): musl
 * supports replacing malloc in a static program when the whole family is
 * defined. The library never carries it; glibc and sanitizer builds keep
 * their own allocator. The launcher is single-threaded (its helpers are
 * processes; a CLONE_VM|CLONE_VFORK child runs while its parent waits), so
 * there is no lock.
 *
 * Blocks: a 16-byte header holds the size class, then the payload. Classes
 * are powers of two from 16 bytes to 256 KB, carved from 1 MB regions by a
 * bump pointer, and each class keeps a list of freed blocks. Anything
 * larger is its own mapping, unmapped on free (rare: index files) and grown
 * by half at least with mremap, so an array grown one element at a time
 * does not map, copy and unmap per step (review r74 F3). A block freed twice,
 * or a pointer this allocator never gave, aborts (mallocng would crash too).
 * The regions cost address space before memory: a launch maps 1 MB more
 * than musl's allocator did, which only a host's `ulimit -v` of about 3 MB
 * would notice (r74 F4; the launch then fails closed, 126). */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HDR 16u
#define MIN_SHIFT 4u   /* 16 bytes */
#define MAX_SHIFT 18u  /* 256 KB */
#define REGION (1u << 20)
#define N_CLASS (MAX_SHIFT - MIN_SHIFT + 1u)
#define BIG 0xffu
#define IN_USE 0xa5u
#define FREE 0x5au
#define PAGE 4096u

struct hdr {
    size_t size;         /* the payload's capacity */
    unsigned char c;     /* the class, or BIG for a mapping of its own */
    unsigned char state; /* IN_USE or FREE: a double or stray free aborts */
    unsigned char pad[HDR - sizeof(size_t) - 2];
};

struct node {
    struct node *next;
};

/* The launcher's one process-wide allocator state (see above). */
static struct node *free_list[N_CLASS];
static char *bump, *bump_end;

_Static_assert(sizeof(struct hdr) == HDR, "header size");

static void *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static unsigned class_of(size_t n)
{
    unsigned c = 0;
    size_t cap = (size_t)1 << MIN_SHIFT;
    while (cap < n) {
        cap <<= 1;
        c++;
    }
    return c;
}

/* (Not named malloc: the compiler would turn calloc's malloc+memset into
 * a call to calloc, that is, into itself.) */
static void *get(size_t n)
{
    struct hdr *h;
    unsigned c;
    size_t cap;

    if (n > ((size_t)1 << MAX_SHIFT)) {
        size_t total = (n + HDR + PAGE - 1) & ~(size_t)(PAGE - 1);
        if (total < n) {
            errno = ENOMEM;
            return NULL;
        }
        h = map(total);
        if (!h) {
            errno = ENOMEM;
            return NULL;
        }
        h->size = total - HDR;
        h->c = BIG;
        h->state = IN_USE;
        return h + 1;
    }
    c = class_of(n);
    if (free_list[c]) {
        struct node *b = free_list[c];
        free_list[c] = b->next;
        ((struct hdr *)(void *)b - 1)->state = IN_USE;
        return b;
    }
    cap = (size_t)1 << (c + MIN_SHIFT);
    if ((size_t)(bump_end - bump) < cap + HDR) {
        /* The rest of the old region stays unused: less than one block
         * of this class (up to 256 KB of address space, never touched). */
        char *r = map(REGION);
        if (!r) {
            errno = ENOMEM;
            return NULL;
        }
        bump = r;
        bump_end = r + REGION;
    }
    h = (struct hdr *)(void *)bump;
    bump += cap + HDR;
    h->size = cap;
    h->c = (unsigned char)c;
    h->state = IN_USE;
    return h + 1;
}

void *malloc(size_t n)
{
    return get(n);
}

void free(void *p)
{
    struct hdr *h;
    struct node *b;
    if (!p)
        return;
    h = (struct hdr *)p - 1;
    /* What musl's allocator would catch must not pass silently here: a
     * block freed twice would be handed out twice. */
    if (h->state != IN_USE || (h->c != BIG && h->c >= N_CLASS))
        abort();
    if (h->c == BIG) {
        munmap(h, h->size + HDR);
        return;
    }
    h->state = FREE;
    b = p;
    b->next = free_list[h->c];
    free_list[h->c] = b;
}

void *calloc(size_t m, size_t n)
{
    void *p;
    if (n && m > SIZE_MAX / n) {
        errno = ENOMEM;
        return NULL;
    }
    p = get(m * n);
    if (p)
        memset(p, 0, m * n);
    return p;
}

size_t malloc_usable_size(void *p)
{
    return p ? ((struct hdr *)p - 1)->size : 0;
}

void *realloc(void *p, size_t n)
{
    void *q;
    size_t have;
    if (!p)
        return malloc(n);
    have = malloc_usable_size(p);
    if (n <= have)
        return p;
    if (((struct hdr *)p - 1)->c == BIG && n < SIZE_MAX / 2) {
        /* Grown by half at least and moved by the kernel without a copy:
         * an array grown one element at a time must not map, copy and
         * unmap on every step (review r74). */
        struct hdr *h = (struct hdr *)p - 1, *g;
        size_t want = n > have + have / 2 ? n : have + have / 2;
        size_t total = (want + HDR + PAGE - 1) & ~(size_t)(PAGE - 1);
        g = mremap(h, have + HDR, total, MREMAP_MAYMOVE);
        if (g == MAP_FAILED) {
            errno = ENOMEM;
            return NULL;
        }
        g->size = total - HDR;
        return g + 1;
    }
    q = malloc(n);
    if (!q)
        return NULL;
    memcpy(q, p, have);
    free(p);
    return q;
}

/* Alignment beyond 16 bytes: nothing in the launcher or in musl's own
 * functions it uses asks for it; refused rather than half-supported. */
void *aligned_alloc(size_t align, size_t n)
{
    if (align > HDR || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    return malloc(n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    void *p;
    if (align < sizeof(void *) || align > HDR || (align & (align - 1)))
        return EINVAL;
    p = malloc(n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *memalign(size_t align, size_t n)
{
    return aligned_alloc(align, n);
}
