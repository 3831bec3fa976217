/* fuzz-check.h: what every harness asserts with, and a UTF-8 check that
 * shares no code with src/protocol/sp-utf8.c.
 *
 * The harnesses check properties, not only "no crash", so a broken
 * property must stop the fuzzer like a crash does: abort() with a line
 * saying which property failed; libFuzzer then saves the input. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* libFuzzer's entry point; declared here for -Werror=missing-prototypes. */
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define FUZZ_REQUIRE(cond)                                                                         \
  do                                                                                               \
    {                                                                                              \
      if (!(cond))                                                                                 \
        {                                                                                          \
          fprintf (stderr, "%s:%d: property broken: %s\n", __FILE__, __LINE__, #cond);             \
          abort ();                                                                                \
        }                                                                                          \
    }                                                                                              \
  while (0)

/* Strict UTF-8 (RFC 3629) without NUL, written from the definition:
 * decode each scalar value, then reject overlong forms, surrogates and
 * values above U+10FFFF. sp-utf8.c uses per-byte range tables instead,
 * so a slip in one is caught by the other. */
static inline bool
fuzz_utf8_valid (const char *text, size_t len)
{
  const unsigned char *s = (const unsigned char *) text;
  static const uint32_t min_value[5] = { 0, 0, 0x80, 0x800, 0x10000 };

  for (size_t i = 0; i < len;)
    {
      unsigned char c = s[i];
      size_t n;
      uint32_t value;

      if (c == 0)
        return false;
      if (c < 0x80)
        {
          i++;
          continue;
        }
      if ((c & 0xE0) == 0xC0)
        n = 2, value = c & 0x1F;
      else if ((c & 0xF0) == 0xE0)
        n = 3, value = c & 0x0F;
      else if ((c & 0xF8) == 0xF0)
        n = 4, value = c & 0x07;
      else
        return false;
      if (len - i < n)
        return false;
      for (size_t k = 1; k < n; k++)
        {
          if ((s[i + k] & 0xC0) != 0x80)
            return false;
          value = (value << 6) | (s[i + k] & 0x3F);
        }
      if (value < min_value[n] || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF))
        return false;
      i += n;
    }
  return true;
}

/* A tiny deterministic generator, so a harness can derive chunk sizes
 * from a seed taken out of the input: the same input always replays the
 * same chunking. */
static inline uint32_t
fuzz_next (uint32_t *state)
{
  uint32_t x = *state ? *state : 0x9E3779B9u;

  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}
