/* Shared by the spawn stress tests: how many rounds, descriptor and zombie
 * counts, and busy threads that allocate and lock while the spawns run.
 *
 * How many spawns the stress tests make. The default build makes the full
 * 1,000. Sanitizer builds fork (the vfork-style clone is off under ASan) and
 * copy a large shadow heap each time, so 1,000 rounds there measure the
 * machine's load rather than the library: 100 still catch a leaked fd, a
 * zombie or a deadlock. */
#ifndef SBX_TEST_SPAWN_STRESS_H
#define SBX_TEST_SPAWN_STRESS_H

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Open descriptors of this process (cmocka's assert_* must be in scope). */
static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* Children of this process that are zombies (state Z). */
static int count_zombies(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    char path[300], buf[512];
    int n = 0;
    long me = (long)getpid();
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        FILE *f;
        char state;
        long ppid;
        char *close_paren;
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(buf, sizeof buf, f) && (close_paren = strrchr(buf, ')')) &&
            sscanf(close_paren + 2, "%c %ld", &state, &ppid) == 2 && ppid == me && state == 'Z')
            n++;
        fclose(f);
    }
    closedir(d);
    return n;
}

static volatile int stop_threads;
static pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;

/* A host thread that keeps the allocator and a lock busy: a child forked at
 * the wrong moment would inherit them held and deadlock if it touched them. */
static void *busy(void *arg)
{
    (void)arg;
    while (!stop_threads) {
        void *p = malloc(1 + (size_t)rand() % 4096);
        pthread_mutex_lock(&busy_lock);
        free(p);
        pthread_mutex_unlock(&busy_lock);
    }
    return NULL;
}

#endif
