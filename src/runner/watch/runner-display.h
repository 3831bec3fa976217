/* runner-display.h: a program's rich results, read from its stdout.
 *
 * A program shows a value, an image or a table by writing one marker to
 * its stdout: ESC "]sandpad-display;" TOKEN ";" JSON BEL, where TOKEN is
 * the run's SANDPAD_DISPLAY_TOKEN and JSON a MIME bundle {mime: value}
 * (the Python prelude's display() does). The runner takes it out of the
 * text at its place and sends a "display" event there instead. The token
 * is random per run (per session), so text the program merely passes on
 * (a file it prints, another program's output) cannot show as a result.
 * Nothing is lost: a marker that does not decode, or passes the size cap,
 * is output as the text it was. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "runner-util.h"
#include "sp-proto.h"

/* Hex characters of a token. */
#define RUNNER_DISPLAY_TOKEN_LEN 32
/* The longest JSON of one marker: its event must fit a 4 MiB frame. */
#define RUNNER_DISPLAY_MAX_BODY (3 * 1024 * 1024)

typedef struct
{
  char prefix[64]; /* ESC ]sandpad-display;TOKEN; */
  size_t prefix_len;
  Buf held;     /* a partial prefix, or the body of a marker so far */
  bool in_body; /* held is a body: the prefix was seen */
} RunnerDisplayScan;

/* Text to pass on as output (final: the stream ends, flush what is held). */
typedef void (*RunnerDisplayTextFunc) (void *data, const char *bytes, size_t len, bool final);
/* A marker's JSON; false when it is not a display, and it is then passed
 * on as text. */
typedef bool (*RunnerDisplayBodyFunc) (void *data, const char *body, size_t len);

/* A fresh random token (RUNNER_DISPLAY_TOKEN_LEN hex characters and NUL). */
void runner_display_new_token (char token[RUNNER_DISPLAY_TOKEN_LEN + 1]);

void runner_display_scan_init (RunnerDisplayScan *scan, const char *token);
void runner_display_scan_clear (RunnerDisplayScan *scan);
/* Whether the scan holds bytes back (a partial prefix, or a marker's body
 * so far): at the stream's end they go out with a final feed. */
bool runner_display_scan_holds (const RunnerDisplayScan *scan);

/* Passes bytes on, in order, as text and display bodies. */
void runner_display_scan_feed (RunnerDisplayScan *scan, const char *bytes, size_t len, bool final,
                               RunnerDisplayTextFunc text, RunnerDisplayBodyFunc body, void *data);

/* A marker's JSON as a display's items (strictly, as the protocol decodes
 * "data"); -1 when it is not one. */
int runner_display_parse (const char *body, size_t len, SpDisplay *display);
