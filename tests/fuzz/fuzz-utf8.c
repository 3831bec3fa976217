/* fuzz-utf8.c: sp_utf8_sanitize against a reference written here from
 * the definitions, on arbitrary bytes.
 *
 * Properties checked for every input:
 * - the output is valid UTF-8 without NUL (checked by fuzz-check.h's
 *   decoder, not by sp_utf8_valid) and its length is what was reported;
 * - everything is consumed when final; valid input comes out unchanged;
 * - the output equals the reference: each maximal invalid subpart (the
 *   Unicode/WHATWG practice) and each NUL becomes one U+FFFD, nothing
 *   else changes, so no valid text is ever dropped;
 * - sanitizing in arbitrary chunks (final only on the last, carrying the
 *   held-back bytes over, never more than 3) gives the same bytes as
 *   sanitizing at once;
 * - sp_utf8_valid agrees with the reference decoder. */
#include <string.h>

#include "fuzz-check.h"
#include "sp-utf8.h"

#define REPLACEMENT "\xEF\xBF\xBD"

/* Whether the k bytes at s (a lead byte that announces n bytes, then k-1
 * continuation bytes) can still become a valid scalar value: the values
 * they can complete to form the interval [lo, hi], which must meet the
 * n-byte range without falling wholly among the surrogates. */
static bool
prefix_possible (const unsigned char *s, size_t k, size_t n)
{
  static const uint32_t first[5] = { 0, 0, 0x80, 0x800, 0x10000 };
  static const uint32_t last[5] = { 0, 0, 0x7FF, 0xFFFF, 0x10FFFF };
  uint32_t value = s[0] & (0x7F >> n);
  size_t free_bits = 6 * (n - 1);

  for (size_t i = 1; i < k; i++)
    {
      if ((s[i] & 0xC0) != 0x80)
        return false;
      value = (value << 6) | (s[i] & 0x3F);
      free_bits -= 6;
    }
  uint32_t lo = value << free_bits;
  uint32_t hi = lo | ((UINT32_C (1) << free_bits) - 1);
  if (lo < first[n])
    lo = first[n];
  if (hi > last[n])
    hi = last[n];
  if (lo > hi)
    return false;
  return !(lo >= 0xD800 && hi <= 0xDFFF);
}

static size_t
announced_length (unsigned char c)
{
  if ((c & 0xE0) == 0xC0)
    return 2;
  if ((c & 0xF0) == 0xE0)
    return 3;
  if ((c & 0xF8) == 0xF0)
    return 4;
  return 0;
}

/* The reference: final sanitizing of s[0..len) into out (3 * len bytes). */
static size_t
reference (const unsigned char *s, size_t len, char *out, bool *valid)
{
  size_t o = 0;

  *valid = true;
  for (size_t i = 0; i < len;)
    {
      size_t n = s[i] < 0x80 ? 1 : announced_length (s[i]);
      size_t good = 0; /* longest possible prefix at i */

      if (s[i] != 0 && n == 1)
        good = 1;
      else if (n > 1)
        for (size_t k = 1; k <= n && i + k <= len && prefix_possible (s + i, k, n); k++)
          good = k;

      if (good == n && n > 0)
        {
          memcpy (out + o, s + i, n);
          o += n;
          i += n;
          continue;
        }
      *valid = false;
      memcpy (out + o, REPLACEMENT, 3);
      o += 3;
      i += good ? good : 1;
    }
  return o;
}

static void
check_chunked (const uint8_t *data, size_t size, uint32_t seed, const char *want, size_t want_len)
{
  char *joined = malloc (want_len + 1);
  unsigned char carry[4];
  size_t carried = 0, joined_len = 0, pos = 0;

  FUZZ_REQUIRE (joined != NULL);
  for (;;)
    {
      /* Half the pieces 0..8 bytes (splits inside sequences), half up to
       * 64 (so long inputs do not cost thousands of calls each). */
      uint32_t r = fuzz_next (&seed);
      size_t step = (r & 0x10000) ? r % 9 : r % 65;
      bool final;
      size_t len, consumed = 0, out_len = 0;
      unsigned char *piece;
      char *out;

      if (step > size - pos)
        step = size - pos;
      final = pos + step == size;
      len = carried + step;
      piece = malloc (len + 1);
      FUZZ_REQUIRE (piece != NULL);
      memcpy (piece, carry, carried);
      memcpy (piece + carried, data + pos, step);
      pos += step;

      out = sp_utf8_sanitize ((const char *) piece, len, final, &consumed, &out_len);
      FUZZ_REQUIRE (consumed <= len && len - consumed <= 3);
      FUZZ_REQUIRE (!final || consumed == len);
      FUZZ_REQUIRE (joined_len + out_len <= want_len);
      memcpy (joined + joined_len, out, out_len);
      joined_len += out_len;
      carried = len - consumed;
      memcpy (carry, piece + consumed, carried);
      free (out);
      free (piece);
      if (final)
        break;
    }
  FUZZ_REQUIRE (joined_len == want_len && memcmp (joined, want, want_len) == 0);
  free (joined);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *want = malloc (size * 3 + 1);
  size_t want_len, consumed = 0, out_len = 0;
  bool valid;
  char *out;

  FUZZ_REQUIRE (want != NULL);
  want_len = reference (data, size, want, &valid);

  out = sp_utf8_sanitize ((const char *) data, size, true, &consumed, &out_len);
  FUZZ_REQUIRE (consumed == size);
  FUZZ_REQUIRE (out[out_len] == '\0' && strlen (out) == out_len);
  FUZZ_REQUIRE (fuzz_utf8_valid (out, out_len));
  FUZZ_REQUIRE (out_len == want_len && memcmp (out, want, want_len) == 0);
  FUZZ_REQUIRE (sp_utf8_valid ((const char *) data, size) == valid);
  FUZZ_REQUIRE (fuzz_utf8_valid ((const char *) data, size) == valid);
  FUZZ_REQUIRE (!valid || (out_len == size && memcmp (out, data, size) == 0));

  /* The chunking seed comes from the input, so a saved crash replays. */
  uint32_t seed = size;
  for (size_t i = 0; i < size && i < 4; i++)
    seed = seed * 31 + data[i];
  check_chunked (data, size, seed, want, want_len);

  free (out);
  free (want);
  return 0;
}
