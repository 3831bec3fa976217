/* runner-outbox.h: the client-facing end of a front end's output.
 *
 * sandpad-runner and sandpad-mcp both queue whole lines for a client that
 * may read slowly or not at all. Writing them out is the same for both:
 * write what the (non-blocking) fd takes, watch for EPOLLOUT while anything
 * is left, and throttle the engine past a high-water mark, so a client that
 * reads slowly slows the programs down instead of growing our buffer. */
#pragma once

#include <stdbool.h>

#include "runner-engine.h"
#include "runner-base.h"

/* Past the high mark of unsent output the client is not reading: the
 * engine stops reading the programs' pipes until it is below the low one. */
#define RUNNER_OUTBOX_HIGH_WATER (8 * 1024 * 1024)
#define RUNNER_OUTBOX_LOW_WATER (1024 * 1024)

typedef struct
{
  int fd;
  Buf buf;            /* lines not yet written */
  RunnerWatch *watch; /* EPOLLOUT watch on fd, or NULL (a regular file) */
  bool broken;        /* the client is gone: nothing more is written */
} RunnerOutbox;

/* Writes what it can. Returns true when this call found the client gone
 * (the buffer is dropped then; the caller stops serving). */
bool runner_outbox_flush (RunnerOutbox *box, RunnerEngine *engine);
