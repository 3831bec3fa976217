/* runner-display.c: a program's rich results, read from its stdout (see
 * runner-display.h). */
#include "runner-display.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include "runner-base.h"
#include "sp-json.h"

void
runner_display_new_token (char token[RUNNER_DISPLAY_TOKEN_LEN + 1])
{
  unsigned char bytes[RUNNER_DISPLAY_TOKEN_LEN / 2];
  size_t got = 0;

  while (got < sizeof bytes)
    {
      ssize_t n = getrandom (bytes + got, sizeof bytes - got, 0);
      if (n < 0 && errno != EINTR)
        abort (); /* the kernel's random source is gone: nothing to make one from */
      if (n > 0)
        got += (size_t) n;
    }
  for (size_t i = 0; i < sizeof bytes; i++)
    snprintf (token + 2 * i, 3, "%02x", bytes[i]);
}

void
runner_display_scan_init (RunnerDisplayScan *scan, const char *token)
{
  *scan = (RunnerDisplayScan){ 0 };
  scan->prefix_len = (size_t) snprintf (scan->prefix, sizeof scan->prefix,
                                        "\033]sandpad-display;%s;", token);
}

void
runner_display_scan_clear (RunnerDisplayScan *scan)
{
  buf_clear (&scan->held);
  scan->in_body = false;
}

bool
runner_display_scan_holds (const RunnerDisplayScan *scan)
{
  return scan->held.len > 0 || scan->in_body;
}

/* A body that cannot be one, given back as the text it was. */
static void
give_back (RunnerDisplayScan *scan, const char *tail, size_t tail_len, bool final,
           RunnerDisplayTextFunc text, void *data)
{
  text (data, scan->prefix, scan->prefix_len, false);
  text (data, scan->held.data, scan->held.len, false);
  text (data, tail, tail_len, final);
  scan->held.len = 0;
  scan->in_body = false;
}

void
runner_display_scan_feed (RunnerDisplayScan *scan, const char *bytes, size_t len, bool final,
                          RunnerDisplayTextFunc text, RunnerDisplayBodyFunc body, void *data)
{
  Buf *held = &scan->held;

  buf_append (held, bytes, len);
  size_t pos = 0;
  while (pos < held->len)
    {
      char *at = held->data + pos;
      size_t left = held->len - pos;
      if (scan->in_body)
        {
          char *bel = memchr (at, '\a', left);
          if (bel == NULL)
            {
              if (left > RUNNER_DISPLAY_MAX_BODY || final)
                break; /* given back below */
              buf_consume (held, pos);
              return;
            }
          size_t n = (size_t) (bel - at);
          if (n > RUNNER_DISPLAY_MAX_BODY || !body (data, at, n))
            {
              text (data, scan->prefix, scan->prefix_len, false);
              text (data, at, n + 1, false);
            }
          pos += n + 1;
          scan->in_body = false;
          continue;
        }
      char *esc = memchr (at, '\033', left);
      if (esc == NULL)
        {
          text (data, at, left, false);
          pos = held->len;
          break;
        }
      if (esc > at)
        text (data, at, (size_t) (esc - at), false);
      pos += (size_t) (esc - at);
      left = held->len - pos;
      size_t cmp = left < scan->prefix_len ? left : scan->prefix_len;
      if (memcmp (held->data + pos, scan->prefix, cmp) != 0)
        {
          text (data, held->data + pos, 1, false); /* an ESC of the text */
          pos++;
          continue;
        }
      if (cmp < scan->prefix_len)
        {
          if (final)
            break; /* a partial prefix at the end: text, below */
          buf_consume (held, pos);
          return;
        }
      pos += scan->prefix_len;
      scan->in_body = true;
    }
  buf_consume (held, pos);
  if (scan->in_body && (held->len > RUNNER_DISPLAY_MAX_BODY || final))
    give_back (scan, "", 0, final, text, data);
  else if (held->len > 0)
    {
      /* Only a partial prefix at the end of the stream is left. */
      text (data, held->data, held->len, final);
      held->len = 0;
    }
  else if (final)
    text (data, "", 0, true);
}

int
runner_display_parse (const char *body, size_t len, SpDisplay *display)
{
  json_t *data = json_loadb (body, len, JSON_REJECT_DUPLICATES, NULL);
  SpProtoError err = { 0 };

  *display = (SpDisplay){ 0 };
  int rc = data != NULL ? sp_display_data_decode (data, display, &err) : -1;
  json_decref (data);
  if (rc != 0)
    sp_display_clear (display);
  return rc;
}
