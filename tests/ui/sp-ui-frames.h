/* sp-ui-frames.h: what a window painted, read from its frame clock
 * (after-paint): the gaps between frames, the main loop's own work in each
 * and key-to-paint times, for the tests that judge a flood (issue 30).
 * Header-only, as sp-ui-test.h. */
#pragma once

#include <gtk/gtk.h>
#include <time.h>

/* CPU time of this thread (the main loop's), in microseconds. */
static inline gint64
thread_cpu_us (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts), ==, 0);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* A window's painted frames: the wall-clock gap before each, and the main
 * loop's CPU time in it (what the app itself did, whatever the load). */
typedef struct
{
  GArray *gaps;  /* gint64 us */
  GArray *works; /* gint64 us */
  gint64 last, last_cpu;
  /* Key to paint: a character typed at typed_at, painted in the next
   * frame. */
  gint64 typed_at;
  GArray *keys; /* gint64 us */
} Frames;

static inline void
frames_init (Frames *f)
{
  *f = (Frames){ g_array_new (FALSE, FALSE, sizeof (gint64)),
                 g_array_new (FALSE, FALSE, sizeof (gint64)),
                 0,
                 0,
                 0,
                 g_array_new (FALSE, FALSE, sizeof (gint64)) };
}

static inline void
frames_reset (Frames *f)
{
  g_array_set_size (f->gaps, 0);
  g_array_set_size (f->works, 0);
  g_array_set_size (f->keys, 0);
  /* A gap that began before counts from here. */
  f->last = g_get_monotonic_time ();
  f->last_cpu = thread_cpu_us ();
  f->typed_at = 0;
}

static inline void
frames_clear (Frames *f)
{
  g_array_unref (f->gaps);
  g_array_unref (f->works);
  g_array_unref (f->keys);
}

static inline void
on_frame_painted (GdkFrameClock *clock, Frames *f)
{
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = thread_cpu_us ();

  if (f->last != 0)
    {
      gint64 gap = now - f->last, work = cpu - f->last_cpu;
      g_array_append_val (f->gaps, gap);
      g_array_append_val (f->works, work);
    }
  f->last = now;
  f->last_cpu = cpu;
  if (f->typed_at != 0)
    {
      gint64 key = now - f->typed_at;
      g_array_append_val (f->keys, key);
      f->typed_at = 0;
    }
}

static inline int
by_value (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The given percentile (0-100) of the values, in ms; 0 if none. */
static inline double
percentile_ms (GArray *values, guint pct)
{
  g_autoptr (GArray) sorted = NULL;

  if (values->len == 0)
    return 0;
  sorted = g_array_copy (values);
  g_array_sort (sorted, by_value);
  return g_array_index (sorted, gint64, MIN (sorted->len - 1, sorted->len * pct / 100)) / 1e3;
}

/* Holds the main loop, working, for ms of CPU time (not sleeping: both the
 * gap and the window's own work must show it). */
static inline gboolean
burn_loop (gpointer data)
{
  gint64 until = thread_cpu_us () + GPOINTER_TO_UINT (data) * 1000;
  volatile guint64 x = 0;

  while (thread_cpu_us () < until)
    x++;
  return G_SOURCE_REMOVE;
}

/* The machine's load average over the last minute. */
static inline double
load_average (void)
{
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents ("/proc/loadavg", &text, NULL, NULL));
  return g_ascii_strtod (text, NULL);
}
