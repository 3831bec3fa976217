/* runner-loop.c: a minimal epoll event loop. */
#include "runner-loop.h"

#include <errno.h>
#include <stdbool.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "runner-base.h"

struct RunnerWatch
{
  int fd;
  uint32_t events;
  RunnerWatchFunc func;
  void *data;
  bool dead;
  RunnerWatch *next_dead;
};

struct RunnerLoop
{
  int epfd;
  RunnerWatch *dead; /* freed after dispatch, never during */
};

RunnerLoop *
runner_loop_new (void)
{
  RunnerLoop *loop = xcalloc (1, sizeof *loop);

  loop->epfd = epoll_create1 (EPOLL_CLOEXEC);
  if (loop->epfd < 0)
    die_with_error ("epoll_create1");
  return loop;
}

static void
free_dead (RunnerLoop *loop)
{
  while (loop->dead != NULL)
    {
      RunnerWatch *watch = loop->dead;
      loop->dead = watch->next_dead;
      free (watch);
    }
}

void
runner_loop_free (RunnerLoop *loop)
{
  if (loop == NULL)
    return;
  free_dead (loop);
  close (loop->epfd);
  free (loop);
}

RunnerWatch *
runner_loop_watch (RunnerLoop *loop, int fd, uint32_t events, RunnerWatchFunc func, void *data)
{
  RunnerWatch *watch = xcalloc (1, sizeof *watch);
  struct epoll_event ev = { .events = events, .data.ptr = watch };

  watch->fd = fd;
  watch->events = events;
  watch->func = func;
  watch->data = data;
  if (epoll_ctl (loop->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
    {
      int errsv = errno;
      free (watch);
      errno = errsv;
      return NULL;
    }
  return watch;
}

int
runner_loop_set_events (RunnerLoop *loop, RunnerWatch *watch, uint32_t events)
{
  struct epoll_event ev = { .events = events, .data.ptr = watch };

  if (watch == NULL || watch->dead || watch->events == events)
    return 0;
  if (epoll_ctl (loop->epfd, EPOLL_CTL_MOD, watch->fd, &ev) != 0)
    return -1;
  watch->events = events;
  return 0;
}

void
runner_loop_unwatch (RunnerLoop *loop, RunnerWatch *watch)
{
  if (watch == NULL || watch->dead)
    return;
  /* The fd may already be closed by the caller; then epoll forgot it. */
  epoll_ctl (loop->epfd, EPOLL_CTL_DEL, watch->fd, NULL);
  watch->dead = true;
  watch->next_dead = loop->dead;
  loop->dead = watch;
}

int
runner_loop_iterate (RunnerLoop *loop, int timeout_ms)
{
  struct epoll_event events[32];
  int n = epoll_wait (loop->epfd, events, N_ELEMENTS (events), timeout_ms);

  if (n < 0)
    return errno == EINTR ? 0 : -1;
  for (int i = 0; i < n; i++)
    {
      RunnerWatch *watch = events[i].data.ptr;

      /* An earlier callback in this batch may have dropped this watch. */
      if (!watch->dead)
        watch->func (watch->data, watch->fd, events[i].events);
    }
  free_dead (loop);
  return n;
}
