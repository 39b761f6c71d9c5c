/* --index-watch (launcher/watch.c). */
#ifndef SANDBOX_LAUNCHER_WATCH_H
#define SANDBOX_LAUNCHER_WATCH_H

/* Run the pre-flight index watcher until SIGTERM, SIGINT or SIGHUP; the
 * launcher's exit status: 0, or 126 with the reason on stderr. */
int run_index_watch(void);

#endif
