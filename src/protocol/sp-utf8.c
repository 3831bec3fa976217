/* sp-utf8.c: strict UTF-8 validation (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF). */
#include "sp-utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid sequence at s (1..4), 0 if invalid, or -n when the
 * n available bytes are a valid but incomplete prefix. For an invalid
 * sequence, *bad (when non-NULL) gets the length of its maximal valid
 * prefix (at least 1): the bytes one U+FFFD stands for. */
static int
sequence_length_ex (const unsigned char *s, size_t avail, size_t *bad)
{
  unsigned char c = s[0];
  int need;
  unsigned char lo = 0x80, hi = 0xBF;

  if (bad != NULL)
    *bad = 1;
  if (c == 0)
    return 0;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF)
    need = 2;
  else if (c >= 0xE0 && c <= 0xEF)
    {
      need = 3;
      if (c == 0xE0)
        lo = 0xA0; /* overlong */
      else if (c == 0xED)
        hi = 0x9F; /* surrogates */
    }
  else if (c >= 0xF0 && c <= 0xF4)
    {
      need = 4;
      if (c == 0xF0)
        lo = 0x90; /* overlong */
      else if (c == 0xF4)
        hi = 0x8F; /* above U+10FFFF */
    }
  else
    return 0;

  for (int i = 1; i < need; i++)
    {
      if ((size_t) i >= avail)
        return -i;
      unsigned char min = i == 1 ? lo : 0x80;
      unsigned char max = i == 1 ? hi : 0xBF;
      if (s[i] < min || s[i] > max)
        {
          if (bad != NULL)
            *bad = (size_t) i;
          return 0;
        }
    }
  return need;
}

static int
sequence_length (const unsigned char *s, size_t avail)
{
  return sequence_length_ex (s, avail, NULL);
}

char *
sp_utf8_sanitize (const char *in, size_t len, bool final, size_t *consumed, size_t *out_len)
{
  const unsigned char *s = (const unsigned char *) in;
  /* Worst case every byte becomes the 3-byte U+FFFD. */
  char *out = malloc (len * 3 + 1);
  size_t i = 0, o = 0;

  if (out == NULL)
    abort ();

  while (i < len)
    {
      size_t bad = 1;
      int n = sequence_length_ex (s + i, len - i, &bad);

      if (n > 0)
        {
          memcpy (out + o, s + i, (size_t) n);
          o += (size_t) n;
          i += (size_t) n;
        }
      else if (n < 0 && !final)
        break; /* keep the incomplete tail for the next read */
      else
        {
          /* One replacement per maximal invalid prefix, as WHATWG does. */
          size_t skip = n < 0 ? (size_t) -n : bad;
          memcpy (out + o, "\xEF\xBF\xBD", 3);
          o += 3;
          i += skip;
        }
    }

  out[o] = '\0';
  if (consumed)
    *consumed = i;
  if (out_len)
    *out_len = o;
  return out;
}

bool
sp_utf8_valid (const char *in, size_t len)
{
  const unsigned char *s = (const unsigned char *) in;
  size_t i = 0;

  while (i < len)
    {
      int n = sequence_length (s + i, len - i);
      if (n <= 0)
        return false;
      i += (size_t) n;
    }
  return true;
}
