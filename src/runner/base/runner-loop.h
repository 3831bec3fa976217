/* runner-loop.h: a minimal epoll event loop.
 *
 * The runner serves several runs at once; every fd it reads or writes is
 * non-blocking and watched here, so one slow run or a slow client never
 * stalls the others. Timers are left to the caller, which passes the
 * time to its next deadline to runner_loop_iterate(). */
#pragma once

#include <stdint.h>

typedef struct RunnerLoop RunnerLoop;
typedef struct RunnerWatch RunnerWatch;

/* events are EPOLLIN/EPOLLOUT/EPOLLHUP/EPOLLERR bits. */
typedef void (*RunnerWatchFunc) (void *data, int fd, uint32_t events);

RunnerLoop *runner_loop_new (void);
void runner_loop_free (RunnerLoop *loop);

/* Returns NULL with errno set when epoll cannot watch fd: EPERM for a
 * regular file or /dev/null, ENOMEM or ENOSPC (max_user_watches) when the
 * kernel refuses. Never dies: after the handshake every failure is the
 * caller's to report (a run fails, the runner keeps serving). */
RunnerWatch *runner_loop_watch (RunnerLoop *loop, int fd, uint32_t events, RunnerWatchFunc func,
                                void *data);
/* Returns -1 with errno set when epoll refused the change (the watch
 * keeps its old events); a NULL watch is ignored. */
int runner_loop_set_events (RunnerLoop *loop, RunnerWatch *watch, uint32_t events);
/* Safe to call from inside any callback, including the watch's own. */
void runner_loop_unwatch (RunnerLoop *loop, RunnerWatch *watch);

/* Waits up to timeout_ms (-1: forever) and dispatches ready watches.
 * Returns the number dispatched, or -1 on a loop failure. */
int runner_loop_iterate (RunnerLoop *loop, int timeout_ms);
