/* runner-error.h: the error a failed program reported, read from the
 * tail of its stderr, for exited's "program_error". */
#pragma once

#include "sp-proto.h"

/* What the runner keeps of a run's stderr to read the error from: the
 * last of it, where an interpreter puts its traceback. */
#define RUNNER_ERROR_TAIL (64 * 1024)

/* language: "python", "javascript", "bash"; text: valid UTF-8 (the
 * sanitized tail of stderr); snippet_name: the file name the snippet ran
 * under (main.py), whose innermost frame gives "line". Python tracebacks
 * (the last of a chain; SyntaxError with its column), node's stack traces
 * and parse errors, bash's "line N:" messages. Returns NULL when the text
 * holds no error this parser knows; otherwise every string is valid UTF-8
 * within SP_PROGRAM_ERROR_MAX_TEXT bytes and at most
 * SP_PROGRAM_ERROR_MAX_FRAMES frames are kept (the innermost). */
SpProgramError *runner_error_parse (const char *language, const char *text,
                                    const char *snippet_name);
