/* runner-error.h: the error a failed program reported, read from the
 * tail of its stderr, for exited's "program_error". */
#pragma once

#include "sp-proto.h"

/* What the runner keeps of a run's stderr to read the error from: the
 * last of it, where an interpreter puts its traceback. */
#define RUNNER_ERROR_TAIL (64 * 1024)

/* language: "python", "javascript", "bash", and (issue 27) "c", "cpp"
 * (gcc's first "FILE:LINE:COL: error:"), "rust" (rustc's "error..." with its
 * "--> FILE:LINE:COL", a panic's location), "go" (go build's
 * "FILE:LINE:COL:", a panic's frames), "typescript" (esbuild's "[ERROR]",
 * else node's stack through the source map), "ruby" (a traceback with its
 * "from" lines, a syntax error), and (issue 42) "r" (the runner's R
 * driver's "Error ..." and "  at FILE:LINE" lines, a parse error's
 * "FILE:LINE:COL:") and "java" (javac's "FILE:LINE: error:", an uncaught
 * exception's "\tat" frames, the innermost "Caused by:"); text: valid UTF-8 (the
 * sanitized tail of stderr); snippet_name: the file name the snippet ran
 * under (main.py), whose innermost frame gives "line". Python tracebacks
 * (the last of a chain; SyntaxError with its column), node's stack traces
 * and parse errors, bash's "line N:" messages. Returns NULL when the text
 * holds no error this parser knows; otherwise every string is valid UTF-8
 * within SP_PROGRAM_ERROR_MAX_TEXT bytes and at most
 * SP_PROGRAM_ERROR_MAX_FRAMES frames are kept (the innermost). */
SpProgramError *runner_error_parse (const char *language, const char *text,
                                    const char *snippet_name);
