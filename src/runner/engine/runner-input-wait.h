/* runner-input-wait.h: whether a run's program is blocked reading its
 * stdin, from the kernel's report (/proc), and the input_wait event and
 * the paused time limit that follow (runner-input-wait.c). */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct RunnerRun RunnerRun;

/* True when every thread of root's descendants at least `skip` levels
 * below it (1: not the run init; 2 in namespace mode: nor pid 1 of the
 * namespace, as runner_tree_usage) is asleep in a system call and at least
 * one is reading the pipe with inode (dev, ino). */
bool runner_tree_waits_on_pipe (pid_t root, int skip, dev_t dev, ino_t ino);

/* The run started: look for a wait from now on. */
void _runner_run_input_start (RunnerRun *run);
/* Input went to the program (or its stdin closed): a wait has ended. */
void _runner_run_input_fed (RunnerRun *run);
/* Samples the tree when due, emits input_wait on a change, moves the
 * deadline on while waiting, and stops a run waiting past the idle cap. */
void _runner_run_check_input (RunnerRun *run, int64_t now);
/* When the next sample or the idle cap is due; 0: none. */
int64_t _runner_run_input_next (const RunnerRun *run);
