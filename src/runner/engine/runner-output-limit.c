/* runner-output-limit.c: what a run keeps of a stream past its output
 * limit (issue 38).
 *
 * The limit bounds what is kept, not the run: a program that prints a
 * million lines is fine and runs to its end. Of each stream the client
 * gets the start (the limit's worth, sent as it comes, as for a stream
 * within its limit) and the end (a quarter of the limit, held here and
 * sent when the stream ends, or when the program waits for input, so a
 * prompt is never held back), and between them an output_omitted event
 * that says how
 * many bytes and lines were left out. The runner reads on either way:
 * a program is never blocked on a full pipe, and the time limit still
 * stops one that writes forever.
 *
 * The whole stream, as the program wrote it (binary included), goes to
 * a file in the run's working directory, sandpad-<stream>.txt, made with
 * O_EXCL | O_NOFOLLOW beneath the held cwd fd, so a name the program
 * planted (a symlink, a FIFO) is never followed or written through: the
 * file is simply not kept then. The files of both streams together stop
 * at half the run's disk limit, and what they hold is not counted
 * against the program's own disk limit (runner-run-watch.c's disk_usage), so
 * the program loses none of its space to them and the host never gives
 * more than 1.5 times the disk limit to a run. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-lines.h"
#include "runner-output-limit.h"
#include "runner-output-scan.h"
#include "runner-util.h"

/* The start is kept in memory for the file only up to this much; past it
 * the file is made at once (and removed again when the stream ends within
 * its limit), so a large limit costs the runner no more memory. */
#define HEAD_COPY_MAX (4 * 1024 * 1024)

static const char *const file_names[] = { "sandpad-stdout.txt", "sandpad-stderr.txt" };

static bool
is_continuation (unsigned char c)
{
  return (c & 0xC0) == 0x80;
}

static int64_t
count_lines (const char *bytes, size_t len)
{
  int64_t n = 0;
  const char *end = bytes + len;

  while (bytes < end && (bytes = memchr (bytes, '\n', (size_t) (end - bytes))) != NULL)
    n++, bytes++;
  return n;
}

/* What the client gets of a stream live: all of it up to the limit, so a
 * program that stays within it sees no change; past it, the end's
 * quarter of a limit more. */
static int64_t
head_bytes (const RunnerRunOutput *o)
{
  return o->output_limit;
}

static int64_t
tail_bytes (const RunnerRunOutput *o)
{
  int64_t tail = o->output_limit / 4;
  return tail > 0 ? tail : 1;
}

/* Both files together may take half the run's disk limit. */
static int64_t
file_budget (const RunnerRunOutput *o)
{
  return o->host->config.disk_limit / 2;
}

static void
file_stop (RunnerStreamOutput *stream)
{
  if (stream->out_fd >= 0)
    close (stream->out_fd);
  stream->out_fd = -1;
}

/* Stops at the budget, or at a write that fails (a full disk): what is
 * there is kept and said to be cut. The file stays open until the stream
 * ends, so that it can still be told from what else takes its name. */
static void
file_write (RunnerRunOutput *o, RunnerStreamOutput *stream, const char *bytes, size_t len)
{
  int64_t room = file_budget (o) - o->file_bytes;

  if (stream->out_fd < 0 || stream->out_cut || len == 0)
    return;
  if ((int64_t) len > room)
    len = room > 0 ? (size_t) room : 0;
  if (len > 0 && write_all (stream->out_fd, bytes, len) != 0)
    {
      stream->out_cut = true;
      return;
    }
  o->file_bytes += (int64_t) len;
  stream->out_bytes += (int64_t) len;
  if (o->file_bytes >= file_budget (o))
    stream->out_cut = true;
}

/* Makes the stream's file and writes what the client already has. A
 * name already taken (the program's own file, or what it planted) means
 * no file: never follow, open or replace what the program made. */
static void
file_start (RunnerRunOutput *o, SpStream s)
{
  RunnerStreamOutput *stream = &o->streams[s];

  if (o->silent || o->dir_fd < 0 || file_budget (o) <= 0)
    return;
  stream->out_fd = openat (o->dir_fd, file_names[s],
                           O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  if (stream->out_fd < 0)
    return;
  file_write (o, stream, stream->head.data, stream->head.len);
  file_write (o, stream, stream->tail.data, stream->tail.len);
}

/* Makes the file, once: from the first drop, or from a start too large
 * to copy. */
static void
file_begin (RunnerRunOutput *o, SpStream s)
{
  RunnerStreamOutput *stream = &o->streams[s];

  if (stream->out_started)
    return;
  stream->out_started = true;
  file_start (o, s);
  buf_clear (&stream->head);
}

/* A stream that ended with nothing left out needs no file: ours goes,
 * and only ours (the name still the file we made, never followed). */
static void
file_discard (RunnerRunOutput *o, SpStream s)
{
  RunnerStreamOutput *stream = &o->streams[s];
  struct stat ours, named;

  if (stream->out_fd >= 0 && fstat (stream->out_fd, &ours) == 0
      && fstatat (o->dir_fd, file_names[s], &named, AT_SYMLINK_NOFOLLOW) == 0
      && ours.st_dev == named.st_dev && ours.st_ino == named.st_ino)
    (void) unlinkat (o->dir_fd, file_names[s], 0);
  file_stop (stream);
  o->file_bytes -= stream->out_bytes;
  stream->out_bytes = 0;
}

/* The start goes on past the limit's share through the rest of its line,
 * at most this much further: a pipe read may end in the middle of that
 * line, and the start then ended there (half a line, in about one run in
 * a few hundred of runner-*-output-flood). */
#define HEAD_LINE_MAX 1024

/* How much of this read (which starts at the stream's offset before)
 * still belongs to the start, whose share ends at head; *done when the
 * start ends within it: at the share, on through the rest of its line
 * when that ends within HEAD_LINE_MAX (across reads), else at the share
 * (or where the reads before ended) on through the character, so the end
 * of what is kept is never half a character. */
static size_t
head_cut (const RunnerStreamOutput *stream, const char *bytes, size_t len, int64_t before,
          int64_t head, bool *done)
{
  size_t at = before < head ? (size_t) (head - before) : 0;
  int64_t stop = head + HEAD_LINE_MAX;
  size_t look = before + (int64_t) len <= stop ? len : (size_t) (stop - before);
  const char *nl;

  *done = true;
  if (at > 0 ? bytes[at - 1] == '\n' : !stream->head_mid_line)
    return at;
  nl = memchr (bytes + at, '\n', look - at);
  if (nl != NULL)
    return (size_t) (nl - bytes) + 1;
  if (look == len && before + (int64_t) len < stop)
    {
      /* The line goes on in the next read: all of this is the start. */
      *done = false;
      return len;
    }
  /* No newline near: the start ends at its share (or where the reads
   * before it ended), on through the character. */
  while (at < len && is_continuation ((unsigned char) bytes[at]))
    at++;
  return at;
}

/* Drops the tail's front down to its share, counting what goes. The
 * first drop is when the stream's file is made: before it, the start and
 * the tail are all the stream, and a stream that ends within its limit
 * leaves no file behind. */
static void
tail_trim (RunnerRunOutput *o, SpStream s, size_t keep)
{
  RunnerStreamOutput *stream = &o->streams[s];

  if (stream->tail.len <= keep)
    return;
  file_begin (o, s);
  size_t drop = stream->tail.len - keep;
  stream->omitted += (int64_t) drop;
  stream->omitted_lines += count_lines (stream->tail.data, drop);
  buf_consume (&stream->tail, drop);
}

void
_runner_output_limit_take (RunnerRunOutput *o, SpStream s, const char *bytes, size_t len)
{
  RunnerStreamOutput *stream = &o->streams[s];
  int64_t before = stream->bytes - (int64_t) len; /* stream->bytes counts these already */

  if (!stream->omitting)
    {
      int64_t head = head_bytes (o);
      size_t cut = len;
      bool done = false;
      /* The start is complete: send it whole, then hold the end. */
      if (stream->bytes > head)
        cut = head_cut (stream, bytes, len, before, head, &done);
      if (stream->out_started)
        file_write (o, stream, bytes, cut);
      else if (!o->silent)
        {
          buf_append (&stream->head, bytes, cut);
          if (stream->head.len > HEAD_COPY_MAX)
            file_begin (o, s);
        }
      if (cut > 0)
        stream->head_mid_line = bytes[cut - 1] != '\n';
      _runner_output_pass_on (o, s, bytes, cut, done);
      if (!done)
        return;
      stream->omitting = true;
      bytes += cut;
      len -= cut;
    }
  if (stream->out_started)
    file_write (o, stream, bytes, len);
  buf_append (&stream->tail, bytes, len);
  /* Trimmed in batches, so a flood of small reads costs linear time. */
  if (stream->tail.len > 2 * (size_t) tail_bytes (o))
    tail_trim (o, s, (size_t) tail_bytes (o));
}

/* The end starts on a line when one starts in its first half, else on a
 * character; what is skipped is left out too. */
static void
tail_align (RunnerStreamOutput *stream, size_t keep)
{
  size_t skip = 0;
  size_t look = keep / 2 < stream->tail.len ? keep / 2 : stream->tail.len;
  const char *nl = look > 0 ? memchr (stream->tail.data, '\n', look) : NULL;

  if (nl != NULL)
    skip = (size_t) (nl - stream->tail.data) + 1;
  else
    while (skip < 3 && skip < stream->tail.len
           && is_continuation ((unsigned char) stream->tail.data[skip]))
      skip++;
  stream->omitted += (int64_t) skip;
  stream->omitted_lines += count_lines (stream->tail.data, skip);
  buf_consume (&stream->tail, skip);
}

static void
emit_omitted (RunnerRunOutput *o, SpStream s)
{
  RunnerStreamOutput *stream = &o->streams[s];
  SpMessage msg = { .type = SP_MSG_OUTPUT_OMITTED };

  /* The start, or the end sent before, goes out first. */
  _runner_output_flush_lines (o);
  msg.u.omitted.id = (char *) o->id;
  msg.u.omitted.stream = s;
  msg.u.omitted.bytes = stream->omitted;
  msg.u.omitted.lines = stream->omitted_lines;
  msg.u.omitted.t_ms = _runner_host_clock_ms (o->host);
  if (stream->out_fd >= 0 || stream->out_bytes > 0)
    {
      msg.u.omitted.file = (char *) file_names[s];
      msg.u.omitted.file_cut = stream->out_cut;
    }
  _runner_host_emit (o->host, &msg);
  stream->omitted = 0;
  stream->omitted_lines = 0;
  stream->truncated = true;
}

void
_runner_output_flush (RunnerRunOutput *o, SpStream s, bool final)
{
  RunnerStreamOutput *stream = &o->streams[s];
  size_t keep = (size_t) tail_bytes (o);

  if (!stream->omitting)
    {
      if (final && stream->out_started && !stream->truncated)
        file_discard (o, s);
      return;
    }
  tail_trim (o, s, keep);
  if (stream->omitted > 0)
    {
      tail_align (stream, keep);
      emit_omitted (o, s);
    }
  if (stream->tail.len > 0 || final)
    _runner_output_pass_on (o, s, stream->tail.data ? stream->tail.data : "", stream->tail.len,
                            final);
  stream->tail.len = 0;
  if (final)
    {
      if (!stream->truncated)
        file_discard (o, s);
      file_stop (stream);
      stream->omitting = false;
    }
}

int64_t
_runner_output_file_bytes (const RunnerRunOutput *o)
{
  /* As the disk walk counts it: whole blocks. */
  int64_t bytes = 0;

  for (int s = 0; s < 2; s++)
    bytes += (o->streams[s].out_bytes + 4095) / 4096 * 4096;
  return bytes;
}

void
_runner_output_reset (RunnerRunOutput *o)
{
  for (int s = 0; s < 2; s++)
    {
      RunnerStreamOutput *stream = &o->streams[s];
      file_stop (stream);
      buf_clear (&stream->head);
      buf_clear (&stream->tail);
    }
}
