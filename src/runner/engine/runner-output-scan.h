/* runner-output-scan.h: a stream's bytes on their way to the client
 * (runner-output-scan.c; see runner-output.h): stdout through the display
 * scan, UTF-8 made whole, then by lines; raw for a client that takes
 * them. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-output.h"

/* final: the stream ends (what is held goes). */
void _runner_output_pass_on (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len,
                             bool final);
