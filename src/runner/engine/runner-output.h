/* runner-output.h: a run's output, from the bytes its pipes give to the
 * events its client gets (issue 40: the I/O part of a run, its own).
 *
 * RunnerRunOutput is a member of the run that four files own, each above
 * the one after it, and none knows RunnerRun: runner-run-output.c (its
 * life: what the run hands it, a stream's end, what exited says; the
 * run's only way in), runner-output-limit.c (what a stream keeps past
 * its output limit: the start, the end held back, what was left out, the
 * whole-output file), runner-output-scan.c (the display scan and UTF-8
 * made whole, or raw bytes for a client that takes them) and
 * runner-lines.c (text sent a line at a time). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-base.h"
#include "runner-display.h"
#include "runner-host.h"
#include "sp-proto.h"

/* runner-lines.c: a partial line waits at most --line-hold-ms
 * (RunnerConfig.line_hold_ms), and at most this much. */
#define RUNNER_LINE_HOLD_MAX 4096

/* One stream's output. */
typedef struct
{
  int64_t bytes;  /* everything the program wrote */
  bool truncated; /* bytes past the output limit were left out */
  /* Past the start the output limit keeps (runner-output-limit.c): the
   * start's copy until the stream's file is made, the end held back, what
   * was left out since the last output_omitted, and the file. */
  bool omitting;
  bool head_mid_line; /* the start's last byte sent is not a newline */
  Buf head;
  Buf tail;
  int64_t omitted;
  int64_t omitted_lines;
  bool out_started; /* the file was tried (made, or its name was taken) */
  int out_fd;       /* -1: none, or closed */
  int64_t out_bytes;
  bool out_cut;  /* stopped at its share of the disk limit, or a write failed */
  char carry[4]; /* an incomplete UTF-8 character held for the next read */
  size_t carry_len;
  Buf line;          /* a partial line not sent yet (runner-lines.c) */
  int64_t line_t_ms; /* when its first byte was read */
} RunnerStreamOutput;

typedef struct
{
  /* What the run gives it (_runner_output_init, _runner_output_set_dir). */
  RunnerHost *host;
  const char *id;       /* the run's id; the run's string, which outlives this */
  bool silent;          /* the font list's build run: no client, nothing kept */
  int64_t output_limit; /* bytes of each stream's start sent live */
  int dir_fd;           /* the held working directory: the files go there; -1: none */

  RunnerStreamOutput streams[2];
  int64_t line_flush_ns; /* a partial line is sent then; 0: none held */
  int64_t file_bytes;    /* what the whole-output files hold */
  /* The program's displays, taken out of its stdout (runner-display.h):
   * its token (a session's, for a session run) and the scan of stdout. */
  char display_token[RUNNER_DISPLAY_TOKEN_LEN + 1];
  RunnerDisplayScan display_scan;
} RunnerRunOutput;
