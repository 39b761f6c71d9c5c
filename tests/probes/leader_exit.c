/* Probe: the main thread calls pthread_exit while a second thread lives on:
 * the thread-group leader then reads as a zombie (state Z in /proc/PID/stat)
 * although the process still runs. After SECONDS the thread writes "late"
 * to FILE. Usage: leader_exit SECONDS FILE */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *file;
static unsigned secs;

static void *later(void *arg)
{
    FILE *f;
    (void)arg;
    sleep(secs);
    f = fopen(file, "w");
    if (f) {
        fputs("late\n", f);
        fclose(f);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    if (argc != 3)
        return 2;
    secs = (unsigned)atoi(argv[1]);
    file = argv[2];
    if (pthread_create(&t, NULL, later, NULL) != 0)
        return 3;
    pthread_exit(NULL);
}
