/* runner-input-wait.h: whether a run's program is blocked reading its
 * stdin, from the kernel's report (/proc), and the paused time limit
 * that follows (runner-input-wait.c). The state is a member of the run
 * only that file reads or writes; the run (runner-run.c) says the
 * input_wait event and stops a run waiting past the idle cap. This file
 * knows nothing of RunnerRun. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct
{
  int64_t check_ns; /* next look for a wait on stdin; 0: none */
  int64_t since_ns; /* the program waits for input since; 0: it does not */
  int64_t clock_ns; /* last time the paused deadline was moved on */
} RunnerInputWait;

typedef enum
{
  RUNNER_INPUT_NOT_YET, /* no look due */
  RUNNER_INPUT_LOOK,    /* a look is due: _runner_input_wait_look */
  RUNNER_INPUT_IDLE,    /* it waited past the idle cap: stop it */
} RunnerInputDue;

/* True when every thread of root's descendants at least `skip` levels
 * below it (1: not the run init; 2 in namespace mode: nor pid 1 of the
 * namespace, as runner_tree_usage) is asleep in a system call and at least
 * one is reading the pipe with inode (dev, ino). */
bool runner_tree_waits_on_pipe (pid_t root, int skip, dev_t dev, ino_t ino);

/* The step started at now: look for a wait from then on. */
void _runner_input_wait_start (RunnerInputWait *w, int64_t now);
bool _runner_input_waiting (const RunnerInputWait *w);
/* The run said input_wait (waiting or not) at now. */
void _runner_input_wait_set (RunnerInputWait *w, bool waiting, int64_t now);
/* When the next look or the idle cap (idle_ms, 0: none) is due; 0: none. */
int64_t _runner_input_wait_next (const RunnerInputWait *w, int64_t idle_ms);
/* Moves *deadline_ns on while the program waits, and says what is due. */
RunnerInputDue _runner_input_wait_due (RunnerInputWait *w, int64_t now, int64_t idle_ms,
                                       int64_t *deadline_ns);
/* Whether the program (root's tree, skip as above) waits reading the pipe
 * stdin_fd (-1: closed, never a wait). */
bool _runner_input_wait_look (pid_t root, int skip, int stdin_fd);
