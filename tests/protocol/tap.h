/* tap.h: the smallest TAP producer that meson's 'tap' protocol accepts.
 *
 * Header-only so each test stays a single translation unit. Call
 * plan (N) before the first check and return done_testing () from main:
 * a run that stops early or performs a different number of checks fails
 * even when every check it did perform passed.
 */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define TAP_PRINTF(f, a) __attribute__ ((format (printf, f, a)))

static int tap_planned = -1;
static int tap_run;
static int tap_failed;

static inline void
plan (int n)
{
  tap_planned = n;
  printf ("1..%d\n", n);
}

static inline void diag (const char *fmt, ...) TAP_PRINTF (1, 2);

static inline void
diag (const char *fmt, ...)
{
  va_list args;

  fputs ("# ", stdout);
  va_start (args, fmt);
  vprintf (fmt, args);
  va_end (args);
  putchar ('\n');
}

/* Prints s so that a newline or control byte in a failing value cannot
 * break the TAP stream it is reported in. */
static inline void
tap_put_escaped (const char *s)
{
  if (s == NULL)
    {
      fputs ("(null)", stdout);
      return;
    }
  putchar ('"');
  for (const unsigned char *p = (const unsigned char *) s; *p; p++)
    if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
      printf ("\\x%02x", *p);
    else
      putchar (*p);
  putchar ('"');
}

static inline bool tap_vresult (bool pass, const char *fmt, va_list args) TAP_PRINTF (2, 0);

static inline bool
tap_vresult (bool pass, const char *fmt, va_list args)
{
  tap_run++;
  if (!pass)
    tap_failed++;
  printf ("%sok %d - ", pass ? "" : "not ", tap_run);
  vprintf (fmt, args);
  putchar ('\n');
  return pass;
}

static inline bool ok (bool pass, const char *fmt, ...) TAP_PRINTF (2, 3);

static inline bool
ok (bool pass, const char *fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  tap_vresult (pass, fmt, args);
  va_end (args);
  return pass;
}

static inline bool is_int (long long got, long long want, const char *fmt, ...) TAP_PRINTF (3, 4);

static inline bool
is_int (long long got, long long want, const char *fmt, ...)
{
  va_list args;
  bool pass = got == want;

  va_start (args, fmt);
  tap_vresult (pass, fmt, args);
  va_end (args);
  if (!pass)
    {
      diag ("     got: %lld", got);
      diag ("expected: %lld", want);
    }
  return pass;
}

/* Two NULLs are equal: "absent" must survive a round trip as absent. */
static inline bool is_str (const char *got, const char *want, const char *fmt, ...)
  TAP_PRINTF (3, 4);

static inline bool
is_str (const char *got, const char *want, const char *fmt, ...)
{
  va_list args;
  bool pass = (got == NULL || want == NULL) ? got == want : strcmp (got, want) == 0;

  va_start (args, fmt);
  tap_vresult (pass, fmt, args);
  va_end (args);
  if (!pass)
    {
      fputs ("#      got: ", stdout);
      tap_put_escaped (got);
      fputs ("\n# expected: ", stdout);
      tap_put_escaped (want);
      putchar ('\n');
    }
  return pass;
}

/* The exit status for main: non-zero if a check failed or the plan was
 * not followed exactly. */
static inline int
done_testing (void)
{
  if (tap_planned < 0)
    {
      /* Without a plan a crash after the last check would go unnoticed. */
      diag ("no plan was declared");
      return 1;
    }
  if (tap_run != tap_planned)
    {
      diag ("planned %d checks but ran %d", tap_planned, tap_run);
      return 1;
    }
  if (tap_failed > 0)
    diag ("failed %d of %d checks", tap_failed, tap_run);
  return tap_failed > 0;
}
