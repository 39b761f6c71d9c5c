/* Probe: a second thread creates an internet socket while the main thread
 * waits. Under the kill-switch the whole process must die (SIGSYS), not only
 * the thread. Prints "survived" and exits 0 if the process lives on. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void *worker(void *arg)
{
    long fd = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0);
    (void)arg;
    printf("thread: socket returned %ld\n", fd);
    fflush(stdout);
    return NULL;
}

int main(void)
{
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0)
        return 3;
    pthread_join(t, NULL);
    usleep(100000);
    printf("survived\n");
    return 0;
}
