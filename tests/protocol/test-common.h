/* test-common.h: small helpers shared by the protocol tests. */
#pragma once

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static inline char *
xstrdup (const char *s)
{
  char *copy = strdup (s);

  if (copy == NULL)
    abort ();
  return copy;
}

/* A heap-allocated NULL-terminated vector of copies, in the shape that
 * sp_message_clear frees. The argument list ends with NULL. */
static inline char **
strv_new (const char *first, ...)
{
  va_list args;
  size_t n = 0;
  char **strv;

  va_start (args, first);
  for (const char *s = first; s != NULL; s = va_arg (args, const char *))
    n++;
  va_end (args);

  strv = calloc (n + 1, sizeof *strv);
  if (strv == NULL)
    abort ();
  n = 0;
  va_start (args, first);
  for (const char *s = first; s != NULL; s = va_arg (args, const char *))
    strv[n++] = xstrdup (s);
  va_end (args);
  return strv;
}

/* xorshift64*: the stress tests must produce the same input on every
 * libc, which rand () does not promise. */
typedef struct
{
  uint64_t state;
} TestRng;

static inline uint64_t
rng_next (TestRng *rng)
{
  uint64_t x = rng->state;

  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng->state = x;
  return x * UINT64_C (0x2545F4914F6CDD1D);
}

/* Uniform enough in [0, n) for test data; n must be non-zero. */
static inline size_t
rng_below (TestRng *rng, size_t n)
{
  return (size_t) (rng_next (rng) >> 32) % n;
}
