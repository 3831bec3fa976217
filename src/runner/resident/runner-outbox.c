/* runner-outbox.c: writing queued lines to a client, with backpressure. */
#include "runner-outbox.h"

#include <errno.h>
#include <sys/epoll.h>
#include <unistd.h>

bool
runner_outbox_flush (RunnerOutbox *box, RunnerEngine *engine)
{
  bool gone = false;

  while (box->buf.len > 0 && !box->broken)
    {
      ssize_t n = write (box->fd, box->buf.data, box->buf.len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        break;
      if (n <= 0)
        {
          /* The client is gone; nobody is left to tell. */
          box->broken = gone = true;
          buf_clear (&box->buf);
          break;
        }
      buf_consume (&box->buf, (size_t) n);
    }
  if (box->watch != NULL)
    runner_loop_set_events (runner_engine_get_loop (engine), box->watch,
                            box->buf.len > 0 && !box->broken ? EPOLLOUT : 0);
  if (box->buf.len > RUNNER_OUTBOX_HIGH_WATER)
    runner_engine_throttle (engine, true);
  else if (box->buf.len < RUNNER_OUTBOX_LOW_WATER)
    runner_engine_throttle (engine, false);
  return gone;
}
