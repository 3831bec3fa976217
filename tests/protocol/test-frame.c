/* test-frame.c: SpFrameReader against hand-made streams and, at scale,
 * against a ten-line reference splitter.
 *
 * Every result is rendered as one string, frames joined by '|' and errors
 * as "!code", so a check compares the whole sequence, order included.
 */
#include "sp-frame.h"
#include "tap.h"
#include "test-common.h"

#define ERR_BIG "!frame_too_large"
#define ERR_NUL "!nul_byte"

typedef struct
{
  char *data;
  size_t len, cap;
} Buf;

static void
buf_add (Buf *buf, const char *data, size_t len)
{
  if (buf->len + len + 1 > buf->cap)
    {
      buf->cap = (buf->len + len + 1) * 2;
      buf->data = realloc (buf->data, buf->cap);
      if (buf->data == NULL)
        abort ();
    }
  memcpy (buf->data + buf->len, data, len);
  buf->len += len;
  buf->data[buf->len] = '\0';
}

static void
buf_reset (Buf *buf)
{
  buf->len = 0;
  buf_add (buf, "", 0);
}

/* Appends one event in the '|' notation. A delivered frame holding a NUL
 * is itself a failure; spelling the NUL out keeps strcmp from hiding it. */
static void
add_event (Buf *out, const char *data, size_t len)
{
  if (out->len > 0)
    buf_add (out, "|", 1);
  for (size_t i = 0; i < len; i++)
    buf_add (out, data[i] ? data + i : "<NUL>", data[i] ? 1 : 5);
}

static void
drain (SpFrameReader *reader, Buf *out)
{
  const char *frame;
  size_t len;
  SpProtoError err;
  int rc;

  /* The bound turns a reader that reports the same error forever into a
   * failed check instead of a hung test. */
  for (int n = 0; n < 100000 && (rc = sp_frame_reader_next (reader, &frame, &len, &err)) != 0; n++)
    {
      if (rc > 0)
        add_event (out, frame, len);
      else
        {
          char code[64];

          snprintf (code, sizeof code, "!%s%s", sp_proto_error_code_to_string (err.code),
                    err.message[0] ? "" : "(no message)");
          add_event (out, code, strlen (code));
        }
    }
}

/* Feeds data in chunks of `chunk` bytes (0: all at once), draining after
 * each, and returns everything delivered. */
static const char *
split (size_t max, const char *data, size_t len, size_t chunk)
{
  static Buf out;
  SpFrameReader *reader = sp_frame_reader_new (max);

  buf_reset (&out);
  for (size_t i = 0; i < len; i += chunk ? chunk : len)
    {
      size_t n = chunk && chunk < len - i ? chunk : len - i;
      sp_frame_reader_feed (reader, data + i, n);
      drain (reader, &out);
    }
  drain (reader, &out);
  sp_frame_reader_free (reader);
  return out.data;
}

#define SPLIT(max, literal, chunk) split (max, literal, sizeof literal - 1, chunk)

static void
test_basic (void)
{
  const char frame[] = "{\"v\":1,\"type\":\"hello\"}\n";
  SpFrameReader *reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);
  Buf out = { 0 };
  bool quiet = true;

  buf_reset (&out);
  for (size_t i = 0; i + 1 < sizeof frame - 1; i++)
    {
      sp_frame_reader_feed (reader, frame + i, 1);
      drain (reader, &out);
      quiet &= out.len == 0 && sp_frame_reader_pending (reader) == i + 1;
    }
  ok (quiet, "byte by byte: nothing delivered before the newline, pending grows");
  sp_frame_reader_feed (reader, "\n", 1);
  drain (reader, &out);
  is_str (out.data, "{\"v\":1,\"type\":\"hello\"}", "byte by byte: the frame arrives whole");
  is_int (sp_frame_reader_pending (reader), 0, "byte by byte: nothing pending afterwards");
  sp_frame_reader_free (reader);
  free (out.data);

  is_str (SPLIT (64, "a\nbb\nccc\n{}\n", 0), "a|bb|ccc|{}", "many frames in one feed");
  is_str (SPLIT (64, "a\nbb\nccc\n{}\n", 1), "a|bb|ccc|{}", "many frames, byte by byte");
  is_str (SPLIT (64, "a\r\n", 0), "a", "CRLF: the CR is stripped");
  is_str (SPLIT (64, "a\r\r\n", 0), "a\r", "CRLF: only one CR is stripped");
  is_str (SPLIT (64, "a\rb\n", 0), "a\rb", "CRLF: a CR inside a frame is kept");
  is_str (SPLIT (64, "abc\r\n", 4), "abc", "CRLF: CR and LF in different feeds");
  is_str (SPLIT (64, "\n\n\r\na\n\n\nb\n\r\n", 0), "a|b", "blank lines are skipped");
  is_str (SPLIT (64, "\n\n\r\na\n\n\nb\n\r\n", 1), "a|b", "blank lines, byte by byte");
}

static const char split_stream[] = "first\nsecond\r\n\nthird frame\nx\n";
#define SPLIT_WANT "first|second|third frame|x"

static void
test_split_points (void)
{
  const size_t len = sizeof split_stream - 1;
  Buf out = { 0 };
  bool all = true;

  for (size_t k = 0; k <= len; k++)
    {
      SpFrameReader *reader = sp_frame_reader_new (64);

      buf_reset (&out);
      sp_frame_reader_feed (reader, split_stream, k);
      drain (reader, &out);
      sp_frame_reader_feed (reader, split_stream + k, len - k);
      drain (reader, &out);
      is_str (out.data, SPLIT_WANT, "split at byte %zu", k);
      sp_frame_reader_free (reader);
    }

  /* Three pieces, with and without draining in between. */
  for (size_t i = 0; i <= len; i++)
    for (size_t j = i; j <= len; j++)
      {
        SpFrameReader *reader = sp_frame_reader_new (64);

        buf_reset (&out);
        sp_frame_reader_feed (reader, split_stream, i);
        if ((i + j) % 2)
          drain (reader, &out);
        sp_frame_reader_feed (reader, split_stream + i, j - i);
        sp_frame_reader_feed (reader, split_stream + j, len - j);
        drain (reader, &out);
        all &= strcmp (out.data, SPLIT_WANT) == 0;
        sp_frame_reader_free (reader);
      }
  ok (all, "split into three pieces at every pair of points");
  free (out.data);
}

/* 16 bytes is the limit; 17 is one too many. */
#define FIT "0123456789abcdef"
#define BIG "0123456789abcdefg"
static const char around[] = "before\n" BIG "\nafter\n";

static void
test_max_size (void)
{
  bool all = true;

  is_str (SPLIT (16, FIT "\n", 0), FIT, "max: a frame of exactly max bytes is accepted");
  is_str (SPLIT (16, FIT "\n", 1), FIT, "max: ...also byte by byte");
  is_str (SPLIT (16, BIG "\n", 0), ERR_BIG, "max: max+1 bytes is rejected");
  /* The limit excludes the line ending, CRLF included. */
  is_str (SPLIT (16, FIT "\r\n", 1), FIT, "max: exactly max bytes before a CRLF is accepted");
  is_str (SPLIT (16, BIG "\r\n", 0), ERR_BIG, "max: max+1 bytes before a CRLF is rejected");
  is_str (SPLIT (16, around, 0), "before|" ERR_BIG "|after",
          "max: oversize in one feed, neighbours delivered in order");
  is_str (SPLIT (16, around, 1), "before|" ERR_BIG "|after", "max: ...fed byte by byte");
  for (size_t chunk = 2; chunk < sizeof around; chunk++)
    all &= strcmp (SPLIT (16, around, chunk), "before|" ERR_BIG "|after") == 0;
  ok (all, "max: ...fed in chunks of every size");
  is_str (SPLIT (16, "a\n" BIG "\n" BIG BIG "\nb\n", 0), "a|" ERR_BIG "|" ERR_BIG "|b",
          "max: two oversize frames in a row are two errors");

  /* Nothing drained until the end: the error must still sit between the
   * frames, however the buffer was compacted meanwhile. */
  SpFrameReader *reader = sp_frame_reader_new (16);
  Buf out = { 0 };
  buf_reset (&out);
  sp_frame_reader_feed (reader, "a\n", 2);
  sp_frame_reader_feed (reader, "0123456789", 10);
  sp_frame_reader_feed (reader, "abcdefg\nb\n", 10);
  drain (reader, &out);
  is_str (out.data, "a|" ERR_BIG "|b", "max: error ordered between frames fed before draining");

  /* The first frame is consumed before the oversize one arrives. */
  buf_reset (&out);
  sp_frame_reader_feed (reader, "c\n0123456789", 12);
  drain (reader, &out);
  sp_frame_reader_feed (reader, "abcdefg\nd\n", 10);
  drain (reader, &out);
  is_str (out.data, "c|" ERR_BIG "|d", "max: error after a frame that was already consumed");

  /* The excess is dropped as it streams in and reported once, before its
   * newline has even arrived. */
  buf_reset (&out);
  sp_frame_reader_feed (reader, BIG "xyz", 20);
  drain (reader, &out);
  is_str (out.data, ERR_BIG, "max: reported as soon as the frame is too long");
  char junk[4096];
  memset (junk, 'y', sizeof junk);
  for (int i = 0; i < 256; i++)
    sp_frame_reader_feed (reader, junk, sizeof junk);
  is_int (sp_frame_reader_pending (reader), 0, "max: 1 MiB more of it is not buffered");
  buf_reset (&out);
  sp_frame_reader_feed (reader, "yyy\nz\n", 6);
  drain (reader, &out);
  is_str (out.data, "z", "max: the rest of it is skipped without a second error");
  sp_frame_reader_free (reader);
  free (out.data);
}

static void
test_nul_and_pending (void)
{
  is_str (SPLIT (64, "a\0b\nc\n", 0), ERR_NUL "|c", "NUL: frame rejected, next one delivered");
  is_str (SPLIT (64, "a\0b\nc\n", 2), ERR_NUL "|c", "NUL: ...also across feeds");
  is_str (SPLIT (64, "\0\r\nx\0\r\ny\n", 0), ERR_NUL "|" ERR_NUL "|y",
          "NUL: a lone NUL and one before CRLF are frames too");

  SpFrameReader *reader = sp_frame_reader_new (64);
  Buf out = { 0 };
  buf_reset (&out);
  is_int (sp_frame_reader_pending (reader), 0, "pending: 0 when new");
  sp_frame_reader_feed (reader, "abc", 3);
  is_int (sp_frame_reader_pending (reader), 3, "pending: an unfinished frame");
  sp_frame_reader_feed (reader, "de", 2);
  is_int (sp_frame_reader_pending (reader), 5, "pending: grows with the next feed");
  sp_frame_reader_feed (reader, "\nf", 2);
  is_int (sp_frame_reader_pending (reader), 1, "pending: only the tail after a newline");
  drain (reader, &out);
  is_str (out.data, "abcde", "pending: the finished frame is delivered");
  is_int (sp_frame_reader_pending (reader), 1, "pending: the tail stays after draining");
  sp_frame_reader_feed (reader, "\n", 1);
  is_int (sp_frame_reader_pending (reader), 0, "pending: 0 once the tail is finished");
  sp_frame_reader_free (reader);
  free (out.data);
}

/* Random lines over an alphabet of JSON-ish bytes, CR and NUL, split by
 * the reference and by the reader fed in random chunks. */
static void
stress (uint64_t seed, size_t max, size_t n_lines, size_t max_line, size_t max_chunk)
{
  static const char alphabet[] = "ab{}\" \\:\rx\t";
  TestRng rng = { seed };
  Buf stream = { 0 }, want = { 0 }, got = { 0 };

  buf_reset (&want);
  buf_reset (&got);
  for (size_t l = 0; l < n_lines; l++)
    {
      size_t len = rng_below (&rng, max_line + 1), start = stream.len;

      for (size_t i = 0; i < len; i++)
        buf_add (&stream, &alphabet[rng_below (&rng, sizeof alphabet - 1)], 1);
      /* NULs are rare, or long lines would hardly ever be frames. */
      if (len > 0 && rng_below (&rng, 8) == 0)
        stream.data[start + rng_below (&rng, len)] = '\0';
      /* A CR just before the newline is part of the line ending, and whether it counts
       * towards max is not what this test is about: keep such lines shorter than max. */
      if (len > 0 && stream.data[stream.len - 1] == '\r')
        stream.data[stream.len - 1] = 'r';
      bool crlf = len + 1 <= max && rng_below (&rng, 4) == 0;
      buf_add (&stream, crlf ? "\r\n" : "\n", crlf ? 2 : 1);

      /* The reference: too long, else holds a NUL, else blank, else a frame. */
      const char *line = stream.data + start;
      if (len > max)
        add_event (&want, ERR_BIG, strlen (ERR_BIG));
      else if (memchr (line, '\0', len) != NULL)
        add_event (&want, ERR_NUL, strlen (ERR_NUL));
      else if (len > 0)
        add_event (&want, line, len);
    }

  SpFrameReader *reader = sp_frame_reader_new (max);
  for (size_t i = 0; i < stream.len;)
    {
      size_t n = rng_below (&rng, max_chunk + 1);
      n = n < stream.len - i ? n : stream.len - i;
      sp_frame_reader_feed (reader, stream.data + i, n);
      i += n;
      if (rng_below (&rng, 2))
        drain (reader, &got);
    }
  drain (reader, &got);

  ok (strstr (want.data, ERR_BIG) && strstr (want.data, ERR_NUL) && want.len > n_lines,
      "stress %#llx: the input exercises frames, oversize and NUL", (unsigned long long) seed);
  ok (got.len == want.len && memcmp (got.data, want.data, want.len) == 0,
      "stress %#llx: %zu lines split like the reference", (unsigned long long) seed, n_lines);
  is_int (sp_frame_reader_pending (reader), 0, "stress %#llx: nothing left over",
          (unsigned long long) seed);
  sp_frame_reader_free (reader);
  free (stream.data);
  free (want.data);
  free (got.data);
}

int
main (void)
{
  plan (11 + (int) sizeof split_stream + 1 + 14 + 10 + 2 * 3);
  test_basic ();
  test_split_points ();
  test_max_size ();
  test_nul_and_pending ();
  /* Short frames around a tiny limit, then long ones that make the
   * buffer grow and compact. */
  stress (0x5eed, 16, 20000, 24, 40);
  stress (0xfeed, 3000, 2000, 3500, 9000);
  return done_testing ();
}
