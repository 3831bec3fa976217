/* runner-lines.c: a run's output sent a line at a time (issue 25).
 *
 * A program that writes unbuffered (python3 -u) writes print()'s text and
 * its newline apart, and a client saw "1" and then "\n". Here text up to
 * a stream's last newline goes out at once, a partial line waits for the
 * rest of its line, but never longer than the line hold (--line-hold-ms,
 * 30 ms by default: a prompt,
 * a progress bar's "\r50%" show almost at once), never more than
 * RUNNER_LINE_HOLD_MAX bytes, and never past the other stream's next
 * text, a display or the run's end, so the order of everything stays the
 * program's. Each event carries the time its first byte was read. */
#include <string.h>

#include "runner-lines.h"

static void
emit (RunnerRunOutput *o, SpStream s, const char *text, size_t len, int64_t t_ms)
{
  SpMessage msg = { .type = SP_MSG_OUTPUT };
  char *copy = xmalloc (len + 1);

  memcpy (copy, text, len);
  copy[len] = '\0';
  msg.u.output.id = (char *) o->id;
  msg.u.output.stream = s;
  msg.u.output.data = copy;
  msg.u.output.t_ms = t_ms;
  _runner_host_emit (o->host, &msg);
  free (copy);
}

static void
flush_stream (RunnerRunOutput *o, SpStream s)
{
  RunnerStreamOutput *stream = &o->streams[s];

  if (stream->line.len == 0)
    return;
  emit (o, s, stream->line.data, stream->line.len, stream->line_t_ms);
  stream->line.len = 0;
}

void
_runner_output_flush_lines (RunnerRunOutput *o)
{
  flush_stream (o, SP_STREAM_STDOUT);
  flush_stream (o, SP_STREAM_STDERR);
  o->line_flush_ns = 0;
}

void
_runner_output_lines (RunnerRunOutput *o, SpStream s, const char *text, size_t len, bool final)
{
  RunnerStreamOutput *stream = &o->streams[s];
  int64_t t_ms = _runner_host_clock_ms (o->host);

  /* What the other stream holds was written before this. */
  flush_stream (o, s == SP_STREAM_STDOUT ? SP_STREAM_STDERR : SP_STREAM_STDOUT);
  if (stream->line.len + len > RUNNER_LINE_HOLD_MAX)
    flush_stream (o, s);
  const char *nl = len > 0 ? memrchr (text, '\n', len) : NULL;
  size_t upto = final ? len : nl != NULL ? (size_t) (nl - text) + 1 : 0;
  if (upto > 0)
    {
      if (stream->line.len == 0)
        emit (o, s, text, upto, t_ms);
      else
        {
          buf_append (&stream->line, text, upto);
          flush_stream (o, s);
        }
    }
  size_t rest = len - upto;
  if (rest > RUNNER_LINE_HOLD_MAX)
    {
      emit (o, s, text + upto, rest, t_ms);
      rest = 0;
    }
  if (rest > 0)
    {
      if (stream->line.len == 0)
        stream->line_t_ms = t_ms;
      buf_append (&stream->line, text + upto, rest);
    }
  if (final)
    flush_stream (o, s);
  if (o->streams[0].line.len + o->streams[1].line.len == 0)
    o->line_flush_ns = 0;
  else if (o->line_flush_ns == 0)
    o->line_flush_ns = now_ns () + o->host->config.line_hold_ms * INT64_C (1000000);
}
