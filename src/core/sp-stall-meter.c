/* sp-stall-meter.c: how long the main loop was kept from running. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <time.h>

#include "sp-stall-meter.h"

struct _SpStallMeter
{
  GObject parent_instance;
  GSource *timer;
  FILE *log;
  gint64 created_at;
  gint64 due;
  gint64 longest_us;
  gint64 longest_busy_us;
  gint64 cpu_at_tick;
  guint64 ticks;
  /* Frame clock -> the time of its last painted frame (gint64 *). */
  GHashTable *last_frame;
  gint64 reset_at;
  gint64 longest_frame_gap_us;
  guint64 frames;
};

/* CPU time of this thread (the main loop's), in microseconds. */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

G_DEFINE_FINAL_TYPE (SpStallMeter, sp_stall_meter, G_TYPE_OBJECT)

static gboolean
on_tick (gpointer user_data)
{
  SpStallMeter *self = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 cpu = thread_cpu_us ();
  gint64 late = now - self->due;
  /* The part of the stall the main loop spent working: on a busy machine
   * the rest is other processes holding the CPU, not this one. */
  gint64 busy = MIN (late, cpu - self->cpu_at_tick);

  self->ticks++;
  self->cpu_at_tick = cpu;
  if (late > self->longest_us)
    self->longest_us = late;
  if (busy > self->longest_busy_us)
    self->longest_busy_us = busy;
  if (self->log != NULL && late >= SP_STALL_METER_LOG_MS * 1000)
    {
      fprintf (self->log, "%.3f stall %.1f ms busy %.1f ms\n", (now - self->created_at) / 1e6,
               late / 1e3, MAX (busy, 0) / 1e3);
      fflush (self->log);
    }
  /* GLib schedules the next run an interval after this dispatch. */
  self->due = now + SP_STALL_METER_INTERVAL_MS * 1000;
  return G_SOURCE_CONTINUE;
}

static void
sp_stall_meter_dispose (GObject *object)
{
  SpStallMeter *self = SP_STALL_METER (object);

  if (self->timer != NULL)
    {
      g_source_destroy (self->timer);
      g_clear_pointer (&self->timer, g_source_unref);
    }
  if (self->log != NULL)
    {
      fprintf (self->log, "%.3f longest %.1f ms busy %.1f ms\n",
               (g_get_monotonic_time () - self->created_at) / 1e6, self->longest_us / 1e3,
               self->longest_busy_us / 1e3);
      fprintf (self->log, "%.3f longest frame gap %.1f ms\n",
               (g_get_monotonic_time () - self->created_at) / 1e6,
               self->longest_frame_gap_us / 1e3);
      g_clear_pointer (&self->log, fclose);
    }
  g_clear_pointer (&self->last_frame, g_hash_table_unref);
  G_OBJECT_CLASS (sp_stall_meter_parent_class)->dispose (object);
}

static void
sp_stall_meter_class_init (SpStallMeterClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sp_stall_meter_dispose;
}

static void
sp_stall_meter_init (SpStallMeter *self)
{
  self->created_at = g_get_monotonic_time ();
  self->reset_at = self->created_at;
  self->last_frame = g_hash_table_new_full (NULL, NULL, NULL, g_free);
}

SpStallMeter *
sp_stall_meter_new (const char *log_path, GError **error)
{
  g_autoptr (SpStallMeter) self = g_object_new (SP_TYPE_STALL_METER, NULL);

  if (log_path != NULL)
    {
      self->log = g_fopen (log_path, "ae");
      if (self->log == NULL)
        {
          int saved = errno;
          g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "cannot open %s: %s",
                       log_path, g_strerror (saved));
          return NULL;
        }
    }
  /* Above every other source but GLib's own urgent ones, so it runs as
   * soon as whatever held the loop returns: its lateness is the stall. */
  self->timer = g_timeout_source_new (SP_STALL_METER_INTERVAL_MS);
  g_source_set_priority (self->timer, G_PRIORITY_HIGH);
  g_source_set_callback (self->timer, on_tick, self, NULL);
  g_source_set_name (self->timer, "[sandpad] stall meter");
  self->due = g_get_monotonic_time () + SP_STALL_METER_INTERVAL_MS * 1000;
  self->cpu_at_tick = thread_cpu_us ();
  g_source_attach (self->timer, g_main_context_get_thread_default ());
  return g_steal_pointer (&self);
}

gint64
sp_stall_meter_get_longest_us (SpStallMeter *self)
{
  g_return_val_if_fail (SP_IS_STALL_METER (self), 0);
  return self->longest_us;
}

gint64
sp_stall_meter_get_longest_busy_us (SpStallMeter *self)
{
  g_return_val_if_fail (SP_IS_STALL_METER (self), 0);
  return self->longest_busy_us;
}

guint64
sp_stall_meter_get_ticks (SpStallMeter *self)
{
  g_return_val_if_fail (SP_IS_STALL_METER (self), 0);
  return self->ticks;
}

void
sp_stall_meter_reset (SpStallMeter *self)
{
  g_return_if_fail (SP_IS_STALL_METER (self));
  self->longest_us = 0;
  self->longest_busy_us = 0;
  self->ticks = 0;
  self->longest_frame_gap_us = 0;
  self->frames = 0;
  /* A gap that began before the reset counts from the reset only. */
  self->reset_at = g_get_monotonic_time ();
}

void
sp_stall_meter_frame (SpStallMeter *self, gconstpointer clock)
{
  gint64 now = g_get_monotonic_time ();
  gint64 *last;
  gint64 gap;

  g_return_if_fail (SP_IS_STALL_METER (self));
  last = g_hash_table_lookup (self->last_frame, clock);
  if (last == NULL)
    {
      /* A clock's first frame has no gap before it: a window that just
       * opened was not frozen before it existed. */
      last = g_new (gint64, 1);
      *last = now;
      g_hash_table_insert (self->last_frame, (gpointer) clock, last);
    }
  gap = now - MAX (*last, self->reset_at);
  *last = now;
  self->frames++;
  if (gap > self->longest_frame_gap_us)
    self->longest_frame_gap_us = gap;
  if (self->log != NULL && gap >= SP_STALL_METER_LOG_FRAME_MS * 1000)
    {
      fprintf (self->log, "%.3f frame gap %.1f ms\n", (now - self->created_at) / 1e6, gap / 1e3);
      fflush (self->log);
    }
}

void
sp_stall_meter_forget_clock (SpStallMeter *self, gconstpointer clock)
{
  g_return_if_fail (SP_IS_STALL_METER (self));
  g_hash_table_remove (self->last_frame, clock);
}

gint64
sp_stall_meter_get_longest_frame_gap_us (SpStallMeter *self)
{
  g_return_val_if_fail (SP_IS_STALL_METER (self), 0);
  return self->longest_frame_gap_us;
}

guint64
sp_stall_meter_get_frames (SpStallMeter *self)
{
  g_return_val_if_fail (SP_IS_STALL_METER (self), 0);
  return self->frames;
}

void
sp_stall_meter_mark (SpStallMeter *self, const char *what)
{
  g_return_if_fail (SP_IS_STALL_METER (self));
  if (self->log == NULL)
    return;
  fprintf (self->log, "%.3f mark %s\n", (g_get_monotonic_time () - self->created_at) / 1e6, what);
  fflush (self->log);
}
