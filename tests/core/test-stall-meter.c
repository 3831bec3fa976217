/* test-stall-meter.c: the meter sees a blocked main loop, and only then. */
#include <glib/gstdio.h>
#include <string.h>
#include <time.h>

#include "sp-stall-meter.h"

/* A handler that holds the main loop for ms, and whether it has run. */
typedef struct
{
  guint ms;
  gboolean done;
} Hold;

static gboolean
block (gpointer data)
{
  Hold *hold = data;

  g_usleep (hold->ms * 1000);
  hold->done = TRUE;
  return G_SOURCE_REMOVE;
}

static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  g_assert_cmpint (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts), ==, 0);
  return ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

/* Works for ms of this thread's CPU time, not of the wall clock: on a
 * loaded machine the CPU it gets in a wall-clock span can be a tenth of
 * it, and the meter counts what it got. */
static gboolean
spin_cpu (gpointer data)
{
  Hold *hold = data;
  gint64 end = thread_cpu_us () + hold->ms * 1000;
  volatile guint64 n = 0;

  while (thread_cpu_us () < end)
    n++;
  hold->done = TRUE;
  return G_SOURCE_REMOVE;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, TRUE);
}

/* Runs the main loop until handler has held it and the meter has ticked
 * once after that (the tick that finds itself late), however long that
 * takes on this machine. */
static void
hold_loop (SpStallMeter *meter, GSourceFunc handler, guint ms)
{
  Hold hold = { ms, FALSE };
  guint64 ticks;

  g_idle_add (handler, &hold);
  while (!hold.done)
    g_main_context_iteration (NULL, TRUE);
  ticks = sp_stall_meter_get_ticks (meter);
  while (sp_stall_meter_get_ticks (meter) == ticks)
    g_main_context_iteration (NULL, TRUE);
}

static void
test_sees_block (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-test-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "stall.log", NULL);
  g_autofree char *text = NULL;
  GError *error = NULL;
  SpStallMeter *meter = sp_stall_meter_new (log, &error);

  g_assert_no_error (error);
  spin (50);
  g_assert_cmpuint (sp_stall_meter_get_ticks (meter), >, 0);
  /* A handler that holds the loop for 150 ms is a stall of about that. */
  sp_stall_meter_reset (meter);
  hold_loop (meter, block, 150);
  g_assert_cmpint (sp_stall_meter_get_longest_us (meter), >=, 140 * 1000);
  /* Sleeping is not working: the loop was held, but not busy. Its CPU time
   * meanwhile is the loop's own turn and the tick, far from the hold,
   * however slow or busy the machine (it counts the CPU the thread got,
   * not the time it waited for it); half the hold is a bound a meter that
   * counted the wall clock fails. */
  g_assert_cmpint (sp_stall_meter_get_longest_busy_us (meter), <, 150 * 1000 / 2);

  /* Working is: a handler that spins the CPU for 150 ms of CPU time. */
  sp_stall_meter_reset (meter);
  hold_loop (meter, spin_cpu, 150);
  g_assert_cmpint (sp_stall_meter_get_longest_us (meter), >=, 140 * 1000);
  g_assert_cmpint (sp_stall_meter_get_longest_busy_us (meter), >=, 140 * 1000);
  sp_stall_meter_mark (meter, "marked");
  g_assert_finalize_object (meter);
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, " stall "));
  g_assert_nonnull (strstr (text, " mark marked\n"));
  g_assert_nonnull (strstr (text, " longest "));
  g_unlink (log);
  g_rmdir (dir);
}

/* Stands for a window's frame clock: paints every 16 ms while the loop
 * lets it. */
static gboolean
paint (gpointer data)
{
  SpStallMeter *meter = data;

  sp_stall_meter_frame (meter, &paint);
  return G_SOURCE_CONTINUE;
}

/* The frame gap is what the timer cannot see: a loop kept busy by a source
 * above the frames' priority, which never holds it long at a time (2 ms
 * of CPU time, so the meter's busy figure sees each hold as it is,
 * whatever the load). */
#define ALWAYS_READY_HOLD_MS 2

static gboolean
always_ready (gpointer data)
{
  Hold hold = { ALWAYS_READY_HOLD_MS, FALSE };

  spin_cpu (&hold);
  return G_SOURCE_CONTINUE;
}

static void
test_frame_gap (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-test-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "stall.log", NULL);
  g_autofree char *text = NULL;
  GError *error = NULL;
  SpStallMeter *meter = sp_stall_meter_new (log, &error);
  guint painter, busy;
  gint64 quiet_gap, busy_gap, reset_at;
  int other_clock;

  g_assert_no_error (error);
  g_assert_cmpint (sp_stall_meter_get_longest_frame_gap_us (meter), ==, 0);
  /* Frames at a low priority, as GDK's redraw is below the default. */
  painter = g_timeout_add_full (G_PRIORITY_HIGH_IDLE + 20, 16, paint, meter, NULL);
  spin (200);
  sp_stall_meter_reset (meter);
  spin (300);
  quiet_gap = sp_stall_meter_get_longest_frame_gap_us (meter);
  g_assert_cmpuint (sp_stall_meter_get_frames (meter), >, 0);
  g_test_message ("quiet: longest frame gap %.1f ms", quiet_gap / 1e3);

  /* A default-priority source that is always ready: the loop is never
   * held for more than 2 ms, yet no frame runs for 400 ms. */
  sp_stall_meter_reset (meter);
  busy = g_idle_add_full (G_PRIORITY_DEFAULT, always_ready, NULL, NULL);
  spin (400);
  g_source_remove (busy);
  spin (100);
  busy_gap = sp_stall_meter_get_longest_frame_gap_us (meter);
  g_test_message ("always ready: longest frame gap %.1f ms, longest stall %.1f ms (busy %.1f ms)",
                  busy_gap / 1e3, sp_stall_meter_get_longest_us (meter) / 1e3,
                  sp_stall_meter_get_longest_busy_us (meter) / 1e3);
  g_assert_cmpint (busy_gap, >=, 380 * 1000);
  g_assert_cmpint (busy_gap, >, quiet_gap);
  /* The timer saw the holds one at a time: the most the loop worked
   * between two of its ticks is a hold or a few (an interval's worth),
   * not the frames' 400 ms. Measured in the loop's CPU time, which other
   * processes holding the CPU do not lengthen; its wall-clock stalls do
   * (they are printed above). */
  g_assert_cmpint (sp_stall_meter_get_longest_busy_us (meter), <, 10 * ALWAYS_READY_HOLD_MS * 1000);

  /* A reset forgets the gap and counts a gap going on only from it; a
   * clock's first frame has none: no gap is longer than the time since
   * the reset. */
  spin (100);
  reset_at = g_get_monotonic_time ();
  sp_stall_meter_reset (meter);
  sp_stall_meter_frame (meter, &other_clock);
  spin (50);
  g_source_remove (painter);
  g_assert_cmpint (sp_stall_meter_get_longest_frame_gap_us (meter), <=,
                   g_get_monotonic_time () - reset_at);
  sp_stall_meter_forget_clock (meter, &paint);
  sp_stall_meter_forget_clock (meter, &other_clock);

  g_assert_finalize_object (meter);
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  g_assert_nonnull (strstr (text, " frame gap "));
  g_assert_nonnull (strstr (text, " longest frame gap "));
  g_unlink (log);
  g_rmdir (dir);
}

static void
test_bad_log (void)
{
  GError *error = NULL;

  g_assert_null (sp_stall_meter_new ("/nonexistent/dir/stall.log", &error));
  g_assert_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
  g_clear_error (&error);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/StallMeter/sees-block", test_sees_block);
  g_test_add_func ("/Sandpad/StallMeter/frame-gap", test_frame_gap);
  g_test_add_func ("/Sandpad/StallMeter/bad-log", test_bad_log);
  return g_test_run ();
}
