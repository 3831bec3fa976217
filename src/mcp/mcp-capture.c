/* mcp-capture.c: a run's output, bounded, for the model to read.
 *
 * The runner sends up to a run's output limit of each stream (1 MiB by
 * default: its start and its end, the middle past it left out and put in
 * a file); a model reads far less. We keep the first and the last bytes
 * of what came and say how much of the middle was left out, ours and the
 * runner's together. */
#include <string.h>

#include "mcp-server.h"

#define KEEP_HEAD (16 * 1024)
#define KEEP_TAIL (16 * 1024)

void
mcp_capture_append (McpCapture *cap, const char *data, size_t len)
{
  cap->seen += (int64_t) len;
  if (cap->head.len < KEEP_HEAD)
    {
      size_t n = KEEP_HEAD - cap->head.len;
      if (n > len)
        n = len;
      buf_append (&cap->head, data, n);
      data += n;
      len -= n;
    }
  if (len == 0)
    return;
  buf_append (&cap->tail, data, len);
  /* Trimmed in batches, so a flood of small chunks costs linear time. */
  if (cap->tail.len > 2 * KEEP_TAIL)
    buf_consume (&cap->tail, cap->tail.len - KEEP_TAIL);
}

void
mcp_capture_omitted (McpCapture *cap, const SpOutputOmitted *omitted)
{
  char *marker = xasprintf ("\n[... %lld bytes (%lld lines) left out here by the output "
                            "limit ...]\n",
                            (long long) omitted->bytes, (long long) omitted->lines);

  /* In its place when it falls in what we keep; not counted as output. */
  mcp_capture_append (cap, marker, strlen (marker));
  cap->seen -= (int64_t) strlen (marker);
  cap->marker_bytes += (int64_t) strlen (marker);
  free (marker);
  cap->omitted += omitted->bytes;
  if (omitted->file != NULL && strlen (omitted->file) < sizeof cap->file)
    {
      strcpy (cap->file, omitted->file);
      cap->file_cut = omitted->file_cut;
    }
}

static bool
is_continuation (unsigned char c)
{
  return (c & 0xC0) == 0x80;
}

/* Length of s[0..len) without an incomplete character at its end. */
static size_t
complete_prefix (const char *s, size_t len)
{
  size_t back = 0;

  while (back < 3 && back < len && is_continuation ((unsigned char) s[len - 1 - back]))
    back++;
  if (back == len)
    return len;
  unsigned char lead = (unsigned char) s[len - 1 - back];
  size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  return need > back + 1 ? len - 1 - back : len;
}

char *
mcp_capture_text (const McpCapture *cap, int64_t *cut)
{
  Buf text = { 0 };

  int64_t came = cap->seen + cap->marker_bytes; /* what the buffers were given */

  if (cap->tail.len <= KEEP_TAIL && came == (int64_t) (cap->head.len + cap->tail.len))
    {
      /* Nothing was dropped: head and tail are one piece. */
      buf_append (&text, cap->head.data, cap->head.len);
      buf_append (&text, cap->tail.data, cap->tail.len);
      *cut = cap->omitted;
    }
  else
    {
      size_t head = complete_prefix (cap->head.data, cap->head.len);
      size_t keep = cap->tail.len < KEEP_TAIL ? cap->tail.len : KEEP_TAIL;
      const char *start = cap->tail.data + cap->tail.len - keep;

      /* Start the tail on a character, not in the middle of one. */
      while (keep > 0 && is_continuation ((unsigned char) *start))
        start++, keep--;
      int64_t ours = came - (int64_t) head - (int64_t) keep;
      *cut = (ours > 0 ? ours : 0) + cap->omitted;
      buf_append (&text, cap->head.data, head);
      char *marker = xasprintf ("\n[... %lld bytes not shown ...]\n", (long long) *cut);
      buf_append (&text, marker, strlen (marker));
      free (marker);
      buf_append (&text, start, keep);
    }
  buf_append (&text, "", 1);
  return text.data;
}

void
mcp_capture_clear (McpCapture *cap)
{
  buf_clear (&cap->head);
  buf_clear (&cap->tail);
  cap->seen = 0;
  cap->omitted = 0;
  cap->marker_bytes = 0;
  cap->file[0] = '\0';
  cap->file_cut = false;
}
