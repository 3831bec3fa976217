/* sp-stall-meter.h: how long the main loop was kept from running.
 *
 * A high-priority timer asks to run every few milliseconds; whenever it
 * runs late, something else held the main loop (a long handler, a layout,
 * a frame) for that long. The meter keeps the longest such lateness and,
 * given a log file, writes every stall over a threshold to it, so a person
 * or a benchmark can see when the window froze and for how long. It also
 * keeps the part of each stall the main loop's own thread was running. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* How often the meter's timer asks to run. */
#define SP_STALL_METER_INTERVAL_MS 5
/* Stalls at least this long go to the log. */
#define SP_STALL_METER_LOG_MS 20

#define SP_TYPE_STALL_METER (sp_stall_meter_get_type ())
G_DECLARE_FINAL_TYPE (SpStallMeter, sp_stall_meter, SP, STALL_METER, GObject)

/* log_path: a file to append stalls to, or NULL for none. The timer runs
 * on the thread-default main context from here until the meter is
 * disposed. */
SpStallMeter *sp_stall_meter_new (const char *log_path, GError **error);
/* The longest lateness since creation or the last reset, in microseconds. */
gint64 sp_stall_meter_get_longest_us (SpStallMeter *self);
/* The longest stall counting only the CPU time the main loop's thread
 * used meanwhile: the app's own blocking work, without the time other
 * processes held the CPU (on a loaded machine, most of a wall-clock
 * stall may be that). */
gint64 sp_stall_meter_get_longest_busy_us (SpStallMeter *self);
/* How many times the timer ran since creation or the last reset. */
guint64 sp_stall_meter_get_ticks (SpStallMeter *self);
void sp_stall_meter_reset (SpStallMeter *self);
/* Writes a line to the log (a benchmark's marks); nothing without one. */
void sp_stall_meter_mark (SpStallMeter *self, const char *what);

G_END_DECLS
