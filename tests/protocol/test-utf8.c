/* test-utf8.c: sp_utf8_sanitize and sp_utf8_valid against hand-picked
 * boundary sequences and against an independent code-point decoder. */
#include <stdint.h>

#include "sp-utf8.h"
#include "tap.h"
#include "test-common.h"

#define R "\xEF\xBF\xBD" /* U+FFFD */

/* One-shot sanitizing (final) of a literal that may hold NULs. */
static void
check (const char *in, size_t len, const char *want, const char *what)
{
  size_t consumed = 12345, out_len = 12345;
  char *out = sp_utf8_sanitize (in, len, true, &consumed, &out_len);
  bool identity = strcmp (want, in) == 0 && strlen (in) == len;

  is_str (out, want, "%s: sanitized", what);
  ok (consumed == len && out_len == strlen (want) && sp_utf8_valid (out, out_len)
        && sp_utf8_valid (in, len) == identity,
      "%s: all consumed, length right, sp_utf8_valid agrees", what);
  free (out);
}

#define CHECK(literal, want, what) check (literal, sizeof literal - 1, want, what)
#define SAME(literal, what) CHECK (literal, literal, what)

static void
test_fixed (void)
{
  SAME ("", "empty");
  SAME ("hello, world {\"json\": [1, 2]}\t\x7f", "ASCII");
  SAME ("\xC2\x80 \xC3\xA9 \xDF\xBF", "2-byte: U+0080, é, U+07FF");
  SAME ("\xE0\xA0\x80 \xE2\x82\xAC \xED\x9F\xBF \xEE\x80\x80 \xEF\xBF\xBF",
        "3-byte: U+0800, €, U+D7FF, U+E000, U+FFFF");
  SAME ("\xF0\x90\x80\x80 \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF", "4-byte: U+10000, 😀, U+10FFFF");
  CHECK ("a\xFF"
         "b",
         "a" R "b", "0xff");
  CHECK ("\xFE", R, "0xfe");
  CHECK ("\xC0\x80", R R, "overlong NUL C0 80");
  CHECK ("\xC1\xBF", R R, "overlong C1 BF");
  CHECK ("\xE0\x80\x80", R R R, "overlong 3-byte");
  CHECK ("\xF0\x8F\xBF\xBF", R R R R, "overlong 4-byte");
  CHECK ("\xED\xA0\x80", R R R, "surrogate U+D800");
  CHECK ("\xED\xBF\xBF", R R R, "surrogate U+DFFF");
  CHECK ("\xF4\x90\x80\x80", R R R R, "above U+10FFFF");
  CHECK ("\xF5\x80\x80\x80", R R R R, "F5 lead byte");
  CHECK ("\xF8\x88\x80\x80\x80", R R R R R, "5-byte form");
  CHECK ("\x80", R, "lone continuation");
  CHECK ("a\x80\xBF"
         "b",
         "a" R R "b", "two lone continuations");
  CHECK ("\xC3(", R "(", "lead byte followed by ASCII");
  /* A cut-short sequence is one replacement, however long its prefix. */
  CHECK ("\xE2\x82"
         "A",
         R "A", "3-byte prefix cut by ASCII is one replacement");
  CHECK ("\xF0\x9F\x98"
         "A",
         R "A", "4-byte prefix cut by ASCII is one replacement");
  CHECK ("a\0b", "a" R "b", "NUL");
  CHECK ("\0\0", R R, "two NULs");
  CHECK ("\xC3", R, "final: truncated 2-byte");
  CHECK ("ab\xE2\x82", "ab" R, "final: truncated 3-byte is one replacement");
  CHECK ("\xF0\x9F\x98", R, "final: truncated 4-byte is one replacement");
}

/* Non-final calls: what is held back and what is replaced at once. */
static void
test_held_back (void)
{
  size_t consumed, out_len;
  char *out;

  out = sp_utf8_sanitize ("ab\xE2\x82", 4, false, &consumed, &out_len);
  is_str (out, "ab", "split €: the first call stops before the incomplete char");
  ok (consumed == 2 && out_len == 2, "split €: consumed 2 of 4");
  free (out);
  /* The caller carries the 2 unconsumed bytes over to the next read. */
  out = sp_utf8_sanitize ("\xE2\x82\xAC"
                          "c",
                          4, false, &consumed, &out_len);
  is_str (out,
          "\xE2\x82\xAC"
          "c",
          "split €: the next call completes it");
  is_int (consumed, 4, "split €: ...and consumes everything");
  free (out);

  for (size_t k = 1; k <= 3; k++)
    {
      char in[8] = "x\xF0\x9F\x98\x80";

      out = sp_utf8_sanitize (in, 1 + k, false, &consumed, &out_len);
      ok (strcmp (out, "x") == 0 && consumed == 1 && out_len == 1,
          "split 😀: %zu of 4 bytes held back", k);
      free (out);
    }

  /* Only a prefix that can still become valid is held back. */
  static const struct
  {
    const char *in, *want;
    size_t consumed;
  } cases[] = {
    { "\xC3", "", 0 },
    { "a\xFF", "a" R, 2 },
    { "\xED\xA0", R R, 2 }, /* would be a surrogate */
    { "\xE0\x80", R R, 2 }, /* would be overlong */
    { "\xF4\x90", R R, 2 }, /* would exceed U+10FFFF */
    { "\xE2"
      "A",
      R "A", 2 },
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      out = sp_utf8_sanitize (cases[i].in, strlen (cases[i].in), false, &consumed, &out_len);
      ok (strcmp (out, cases[i].want) == 0 && consumed == cases[i].consumed,
          "not final, case %zu: consumed %zu", i, cases[i].consumed);
      free (out);
    }
}

/* Sanitizes in two reads split at k, carrying the unconsumed tail over as
 * a reader would, and returns the concatenated output. */
static char *
two_reads (const char *in, size_t len, size_t k, size_t *held)
{
  size_t consumed, n1, n2;
  char *a = sp_utf8_sanitize (in, k, false, &consumed, &n1);
  char *b = sp_utf8_sanitize (in + consumed, len - consumed, true, NULL, &n2);
  char *joined = malloc (n1 + n2 + 1);

  if (joined == NULL)
    abort ();
  memcpy (joined, a, n1);
  memcpy (joined + n1, b, n2 + 1);
  *held = k - consumed;
  free (a);
  free (b);
  return joined;
}

static const char mixed[] = "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFF\xC3(\xF0\x9F"
                            "A\xED\xA0\x80z";

static void
test_every_split (void)
{
  char *whole = sp_utf8_sanitize (mixed, sizeof mixed - 1, true, NULL, NULL);

  for (size_t k = 0; k < sizeof mixed; k++)
    {
      size_t held;
      char *joined = two_reads (mixed, sizeof mixed - 1, k, &held);

      ok (strcmp (joined, whole) == 0 && held <= 3, "split at byte %zu: same as one read", k);
      free (joined);
    }
  free (whole);
}

/* An independent validator: decode the code point, then judge it. */
static bool
ref_valid (const unsigned char *s, size_t len)
{
  static const uint32_t min[] = { 0, 0, 0x80, 0x800, 0x10000 };

  for (size_t i = 0; i < len;)
    {
      uint32_t cp;
      size_t n;

      if (s[i] == 0)
        return false;
      if (s[i] < 0x80)
        n = 1, cp = s[i];
      else if ((s[i] & 0xE0) == 0xC0)
        n = 2, cp = s[i] & 0x1F;
      else if ((s[i] & 0xF0) == 0xE0)
        n = 3, cp = s[i] & 0x0F;
      else if ((s[i] & 0xF8) == 0xF0)
        n = 4, cp = s[i] & 0x07;
      else
        return false;
      if (i + n > len)
        return false;
      for (size_t k = 1; k < n; k++)
        {
          if ((s[i + k] & 0xC0) != 0x80)
            return false;
          cp = (cp << 6) | (s[i + k] & 0x3F);
        }
      if (n > 1 && (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)))
        return false;
      i += n;
    }
  return true;
}

/* Appends a random token: ASCII, NUL, a stray byte, or the encoding of a
 * random code point, sometimes cut short. Returns the new length. */
static size_t
add_token (TestRng *rng, unsigned char *buf, size_t len)
{
  uint32_t cp;
  unsigned char enc[4];
  size_t n;

  switch (rng_below (rng, 5))
    {
    case 0:
      buf[len++] = (unsigned char) (0x20 + rng_below (rng, 0x5f));
      return len;
    case 1:
      buf[len++] = rng_below (rng, 4) ? (unsigned char) (0x80 + rng_below (rng, 0x80)) : 0;
      return len;
    default:
      break;
    }
  /* Code points near the interesting boundaries, surrogates included. */
  static const uint32_t bases[] = { 0x80,   0x7FF,  0x800,   0xD7FF,   0xD800,  0xDFFF,
                                    0xE000, 0xFFFF, 0x10000, 0x10FFFF, 0x110000 };
  cp = bases[rng_below (rng, sizeof bases / sizeof bases[0])] + (uint32_t) rng_below (rng, 3) - 1;
  if (cp < 0x800)
    n = 2, enc[0] = (unsigned char) (0xC0 | cp >> 6);
  else if (cp < 0x10000)
    n = 3, enc[0] = (unsigned char) (0xE0 | cp >> 12);
  else
    n = 4, enc[0] = (unsigned char) (0xF0 | (cp >> 18 & 0x0F));
  for (size_t k = 1; k < n; k++)
    enc[k] = (unsigned char) (0x80 | (cp >> (6 * (n - 1 - k)) & 0x3F));
  if (rng_below (rng, 6) == 0)
    n = 1 + rng_below (rng, n - 1);
  memcpy (buf + len, enc, n);
  return len + n;
}

static void
test_random (void)
{
  TestRng rng = { 0xC0FFEE };
  int agree = 0, clean = 0, identity = 0, streams = 0, n_valid = 0;
  const int rounds = 20000;

  for (int r = 0; r < rounds; r++)
    {
      unsigned char buf[64];
      size_t len = 0, consumed, out_len, held;

      for (size_t t = rng_below (&rng, 8); t > 0; t--)
        len = add_token (&rng, buf, len);
      bool valid = ref_valid (buf, len);
      char *out = sp_utf8_sanitize ((char *) buf, len, true, &consumed, &out_len);
      char *joined = two_reads ((char *) buf, len, rng_below (&rng, len + 1), &held);

      n_valid += valid;
      agree += sp_utf8_valid ((char *) buf, len) == valid;
      clean += consumed == len && strlen (out) == out_len
               && ref_valid ((unsigned char *) out, out_len);
      identity += valid == (out_len == len && memcmp (out, buf, len) == 0);
      streams += strcmp (joined, out) == 0 && held <= 3;
      free (out);
      free (joined);
    }
  ok (n_valid > rounds / 10 && n_valid < rounds * 9 / 10,
      "random: %d of %d inputs valid, a useful mix", n_valid, rounds);
  is_int (agree, rounds, "random: sp_utf8_valid agrees with the reference decoder");
  is_int (clean, rounds, "random: output is always valid UTF-8 without NUL");
  is_int (identity, rounds, "random: output equals input exactly when the input is valid");
  is_int (streams, rounds, "random: two reads give the same output as one");
}

int
main (void)
{
  plan (2 * 26 + 4 + 3 + 6 + (int) sizeof mixed + 5);
  test_fixed ();
  test_held_back ();
  test_every_split ();
  test_random ();
  return done_testing ();
}
