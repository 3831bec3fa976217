/* runner-run-output.h: a run's output as the run sees it (see
 * runner-output.h): the run reads its pipes and hands each read here,
 * says when a stream ends, and asks what exited reports; it never touches
 * the members. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-output.h"

/* A fresh token; nothing kept yet. */
void _runner_output_init (RunnerRunOutput *o, RunnerHost *host, const char *id, bool silent,
                          int64_t output_limit);
/* Frees what it holds and closes the files (a run's end). */
void _runner_output_clear (RunnerRunOutput *o);
/* The held working directory, where the whole-output files go. */
void _runner_output_set_dir (RunnerRunOutput *o, int dir_fd);
/* The display token the program is given, and a session's own, which its
 * runs take over (the session's interpreter keeps the first one). */
const char *_runner_output_token (const RunnerRunOutput *o);
void _runner_output_set_token (RunnerRunOutput *o, const char *token);
/* The program step after a compile step: a stream starts afresh. */
void _runner_output_restart (RunnerRunOutput *o);
/* Bytes the program wrote on s: counted, kept or left out, sent. */
void _runner_output_take (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len);
/* The stream s ended: what it held back goes out. */
void _runner_output_end (RunnerRunOutput *o, SpStream s);
/* What exited says of s. */
int64_t _runner_output_bytes (const RunnerRunOutput *o, SpStream s);
bool _runner_output_truncated (const RunnerRunOutput *o, SpStream s);
/* When a held partial line is due (0: none), and sending it then. */
int64_t _runner_output_next (const RunnerRunOutput *o);
void _runner_output_check (RunnerRunOutput *o, int64_t now);
/* The display scan's view of stdout: sent on (text and displays) or raw. */
void _runner_output_pass_on (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len,
                             bool final);

/* Sends what the streams hold back (final: they ended) and the held
 * lines: before an input wait is said, and at the run's end. */
void _runner_output_flush_all (RunnerRunOutput *o, bool final);
/* What the whole-output files take on disk, which is not the program's. */
int64_t _runner_output_disk_bytes (const RunnerRunOutput *o);
