/* runner-run-state.h: where a run is in its life, which the engine
 * (runner-run.h) and the run's own files (runner-run-private.h) both
 * name: apart, so the run's private state need not include the engine's
 * view of it. */
#pragma once

typedef struct RunnerRun RunnerRun;

typedef enum
{
  RUN_QUEUED,
  RUN_RUNNING,
  RUN_FINISHED,
} RunState;
