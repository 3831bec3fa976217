/* runner-lines.h: a run's output text sent a line at a time
 * (runner-lines.c; see runner-output.h). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-output.h"

/* Sanitized output text of stream s, sent by lines;
 * final: the stream ends (send what is held). */
void _runner_output_lines (RunnerRunOutput *o, SpStream s, const char *text, size_t len,
                           bool final);
/* Sends what both streams hold (before a display, an input wait, an
 * exit). */
void _runner_output_flush_lines (RunnerRunOutput *o);
