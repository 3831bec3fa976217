/* runner-output-scan.c: a run's output as events (issue 40: out of
 * runner-run.c, beneath runner-output-limit.c, which hands on what a
 * stream keeps through here).
 *
 * stderr is sent as text: UTF-8 completed across reads (never half a
 * character), then by lines (runner-lines.c). stdout goes through the
 * display scan first (runner-display.h): a display the program wrote is
 * an event of its own, in its place among the lines. A client that takes
 * raw output (sandpad-run) gets the bytes as they came instead.
 */
#include <stdio.h>
#include <string.h>

#include "runner-lines.h"
#include "runner-output-scan.h"
#include "sp-utf8.h"

static void
forward (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len, bool final)
{
  RunnerHost *host = o->host;
  RunnerStreamOutput *stream = &o->streams[s];

  /* The font list's build run has no client: its output goes nowhere. */
  if (o->silent)
    return;
  if (host->sink.raw_output != NULL
      && (host->sink.wants_raw == NULL || host->sink.wants_raw (host->sink_data, o->id)))
    {
      if (len > 0)
        host->sink.raw_output (host->sink_data, o->id, s, bytes, len);
      return;
    }

  /* Complete a character split across reads; never emit half of one. */
  Buf joined = { 0 };
  buf_append (&joined, stream->carry, stream->carry_len);
  buf_append (&joined, bytes, len);
  size_t consumed = 0, out_len = 0;
  char *text = sp_utf8_sanitize (joined.data, joined.len, final, &consumed, &out_len);
  stream->carry_len = joined.len - consumed;
  if (stream->carry_len > 0) /* joined.data is NULL when nothing came */
    memcpy (stream->carry, joined.data + consumed, stream->carry_len);
  buf_clear (&joined);

  /* Read as it arrives (Python runs unbuffered), so the read time orders
   * it against the files the run wrote in between; sent by lines. */
  if (out_len > 0 || final)
    _runner_output_lines (o, s, text != NULL ? text : "", out_len, final);
  free (text);
}

static void
stdout_text (void *data, const char *bytes, size_t len, bool final)
{
  if (len > 0 || final)
    forward (data, SP_STREAM_STDOUT, bytes, len, final);
}

/* A display the program wrote, as an event in its place among the output. */
static bool
stdout_display (void *data, const char *body, size_t len)
{
  RunnerRunOutput *o = data;
  SpMessage msg = { .type = SP_MSG_DISPLAY };

  if (runner_display_parse (body, len, &msg.u.display) != 0)
    return false;
  _runner_output_flush_lines (o);
  msg.u.display.id = (char *) o->id;
  msg.u.display.t_ms = _runner_host_clock_ms (o->host);
  _runner_host_emit (o->host, &msg);
  sp_display_clear (&msg.u.display);
  return true;
}

void
_runner_output_pass_on (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len, bool final)
{
  if (s == SP_STREAM_STDERR)
    forward (o, s, bytes, len, final);
  else
    runner_display_scan_feed (&o->display_scan, bytes, len, final, stdout_text, stdout_display, o);
}
