/* runner-output-limit.h: what a stream keeps past its output limit
 * (runner-output-limit.c; see runner-output.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-output.h"

/* The start and the end of a stream past its
 * output limit, and its whole-output file. take: bytes just read (already
 * counted in the stream's bytes); flush: send the end held back (final:
 * the stream ended); file_bytes: what the files take on disk, which is not
 * the program's; reset: close and free it all. */
void _runner_output_limit_take (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len);
void _runner_output_flush (RunnerRunOutput *o, SpStream s, bool final);
int64_t _runner_output_file_bytes (const RunnerRunOutput *o);
void _runner_output_reset (RunnerRunOutput *o);
