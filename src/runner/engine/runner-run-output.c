/* runner-run-output.c: a run's output as the run sees it (see
 * runner-output.h): made with the run, handed each read, told a stream's
 * end, asked what exited says. */
#include <stdio.h>
#include <string.h>

#include "runner-lines.h"
#include "runner-output-limit.h"
#include "runner-output-scan.h"
#include "runner-run-output.h"

void
_runner_output_init (RunnerRunOutput *o, RunnerHost *host, const char *id, bool silent,
                     int64_t output_limit)
{
  memset (o, 0, sizeof *o);
  o->host = host;
  o->id = id;
  o->silent = silent;
  o->output_limit = output_limit;
  o->dir_fd = -1;
  o->streams[0].out_fd = o->streams[1].out_fd = -1;
  runner_display_new_token (o->display_token);
  runner_display_scan_init (&o->display_scan, o->display_token);
}

void
_runner_output_clear (RunnerRunOutput *o)
{
  _runner_output_reset (o);
  runner_display_scan_clear (&o->display_scan);
  buf_clear (&o->streams[0].line);
  buf_clear (&o->streams[1].line);
}

void
_runner_output_set_dir (RunnerRunOutput *o, int dir_fd)
{
  o->dir_fd = dir_fd;
}

const char *
_runner_output_token (const RunnerRunOutput *o)
{
  return o->display_token;
}

void
_runner_output_set_token (RunnerRunOutput *o, const char *token)
{
  snprintf (o->display_token, sizeof o->display_token, "%s", token);
  runner_display_scan_clear (&o->display_scan);
  runner_display_scan_init (&o->display_scan, o->display_token);
}

void
_runner_output_restart (RunnerRunOutput *o)
{
  for (int s = 0; s < 2; s++)
    o->streams[s].carry_len = 0;
}

void
_runner_output_take (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len)
{
  o->streams[s].bytes += (int64_t) len;
  /* Past its limit the stream's middle is left out and the program runs
   * on: the limit bounds what is kept, not the run (issue 38). */
  _runner_output_limit_take (o, s, bytes, len);
}

/* The end held back past the limit goes out, or a dangling partial
 * character and what the display scan holds. */
void
_runner_output_end (RunnerRunOutput *o, SpStream s)
{
  RunnerStreamOutput *stream = &o->streams[s];

  if (stream->omitting)
    _runner_output_flush (o, s, true);
  else if (stream->carry_len > 0
           || (s == SP_STREAM_STDOUT && runner_display_scan_holds (&o->display_scan)))
    _runner_output_pass_on (o, s, "", 0, true);
}

int64_t
_runner_output_bytes (const RunnerRunOutput *o, SpStream s)
{
  return o->streams[s].bytes;
}

bool
_runner_output_truncated (const RunnerRunOutput *o, SpStream s)
{
  return o->streams[s].truncated;
}

int64_t
_runner_output_next (const RunnerRunOutput *o)
{
  return o->line_flush_ns;
}

void
_runner_output_check (RunnerRunOutput *o, int64_t now)
{
  if (o->line_flush_ns > 0 && now >= o->line_flush_ns)
    _runner_output_flush_lines (o);
}

void
_runner_output_flush_all (RunnerRunOutput *o, bool final)
{
  for (int s = 0; s < 2; s++)
    _runner_output_flush (o, (SpStream) s, final);
  _runner_output_flush_lines (o);
}

int64_t
_runner_output_disk_bytes (const RunnerRunOutput *o)
{
  return _runner_output_file_bytes (o);
}
