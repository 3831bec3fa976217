/* sp-frame.c: newline framing with a hard size cap.
 *
 * The buffer only ever holds complete frames plus one unfinished frame of
 * at most max_frame bytes. An oversize frame is dropped as it streams in;
 * its place in the stream is remembered so the error is reported in order,
 * between the frames that came before and after it.
 */
#include "sp-frame.h"

#include <stdlib.h>
#include <string.h>

struct SpFrameReader
{
  size_t max_frame;
  char *buf;
  size_t len; /* bytes buffered */
  size_t cap;
  size_t start;    /* first byte not yet handed out */
  size_t tail_len; /* length of the unfinished frame at the end */
  uint64_t base;   /* stream offset of buf[0] */
  bool discarding; /* inside an oversize frame: drop until '\n' */
  uint64_t *marks; /* stream offsets where an oversize frame was dropped */
  size_t n_marks;
};

SpFrameReader *
sp_frame_reader_new (size_t max_frame)
{
  SpFrameReader *reader = calloc (1, sizeof *reader);

  if (reader == NULL)
    abort ();
  reader->max_frame = max_frame;
  return reader;
}

void
sp_frame_reader_free (SpFrameReader *reader)
{
  if (reader == NULL)
    return;
  free (reader->buf);
  free (reader->marks);
  free (reader);
}

static void
append (SpFrameReader *reader, const char *data, size_t len)
{
  if (reader->start > 0 && reader->start == reader->len)
    {
      reader->base += reader->len;
      reader->len = reader->start = 0;
    }
  else if (reader->start > 0 && reader->len + len > reader->cap)
    {
      memmove (reader->buf, reader->buf + reader->start, reader->len - reader->start);
      reader->base += reader->start;
      reader->len -= reader->start;
      reader->start = 0;
    }
  if (reader->len + len > reader->cap)
    {
      size_t cap = reader->cap ? reader->cap : 4096;
      while (cap < reader->len + len)
        cap *= 2;
      char *grown = realloc (reader->buf, cap);
      if (grown == NULL)
        abort ();
      reader->buf = grown;
      reader->cap = cap;
    }
  memcpy (reader->buf + reader->len, data, len);
  reader->len += len;
}

static void
mark_oversize (SpFrameReader *reader)
{
  uint64_t *marks = realloc (reader->marks, (reader->n_marks + 1) * sizeof *marks);

  if (marks == NULL)
    abort ();
  reader->marks = marks;
  reader->marks[reader->n_marks++] = reader->base + reader->len;
}

void
sp_frame_reader_feed (SpFrameReader *reader, const char *data, size_t len)
{
  while (len > 0)
    {
      const char *nl = memchr (data, '\n', len);
      size_t piece = nl ? (size_t) (nl - data) : len; /* without the '\n' */
      size_t step = nl ? piece + 1 : piece;

      if (reader->discarding)
        {
          if (nl)
            reader->discarding = false;
        }
      /* One byte of slack for the '\r' of a CRLF ending; next() checks
       * the exact length once the frame is complete. */
      else if (reader->tail_len + piece > reader->max_frame + 1)
        {
          /* Too long: forget what we hold of it and skip the rest. */
          reader->len -= reader->tail_len;
          reader->tail_len = 0;
          mark_oversize (reader);
          reader->discarding = (nl == NULL);
        }
      else
        {
          append (reader, data, step);
          reader->tail_len = nl ? 0 : reader->tail_len + piece;
        }

      data += step;
      len -= step;
    }
}

int
sp_frame_reader_next (SpFrameReader *reader, const char **frame, size_t *len, SpProtoError *err)
{
  for (;;)
    {
      if (reader->n_marks > 0 && reader->marks[0] == reader->base + reader->start)
        {
          memmove (reader->marks, reader->marks + 1, --reader->n_marks * sizeof *reader->marks);
          return sp_proto_set_error (err, SP_ERR_FRAME_TOO_LARGE, "frame longer than %zu bytes",
                                     reader->max_frame);
        }

      size_t avail = reader->len - reader->start - reader->tail_len;
      if (avail == 0)
        return 0; /* also before the first byte, while buf is still NULL */

      char *begin = reader->buf + reader->start;
      char *nl = memchr (begin, '\n', avail);

      if (nl == NULL)
        return 0;

      size_t flen = (size_t) (nl - begin);
      reader->start += flen + 1;

      if (flen > 0 && begin[flen - 1] == '\r')
        flen--;
      if (flen > reader->max_frame)
        return sp_proto_set_error (err, SP_ERR_FRAME_TOO_LARGE, "frame longer than %zu bytes",
                                   reader->max_frame);
      if (memchr (begin, '\0', flen) != NULL)
        return sp_proto_set_error (err, SP_ERR_NUL_BYTE, "frame contains a NUL byte");
      if (flen == 0)
        continue; /* blank lines are keep-alives, not frames */

      *frame = begin;
      *len = flen;
      return 1;
    }
}

size_t
sp_frame_reader_pending (const SpFrameReader *reader)
{
  return reader->tail_len;
}
