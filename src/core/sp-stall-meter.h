/* sp-stall-meter.h: how long the main loop was kept from running.
 *
 * A high-priority timer asks to run every few milliseconds; whenever it
 * runs late, something else held the main loop (a long handler, a layout,
 * a frame) for that long. The meter keeps the longest such lateness and,
 * given a log file, writes every stall over a threshold to it, so a person
 * or a benchmark can see when the window froze and for how long. It also
 * keeps the part of each stall the main loop's own thread was running.
 *
 * A loop that is never blocked can still go without painting: a source
 * that is always ready at a priority above the redraw's keeps frames from
 * running while input is still dispatched. So the meter also takes the
 * frames a window paints (the app reports each frame clock's after-paint)
 * and keeps the longest gap between two frames of one clock: what a
 * person sees as a frozen window. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* How often the meter's timer asks to run. */
#define SP_STALL_METER_INTERVAL_MS 5
/* Stalls at least this long go to the log. */
#define SP_STALL_METER_LOG_MS 20
/* Gaps between painted frames at least this long go to the log (a frame
 * clock that keeps ticking paints every 16.7 ms). */
#define SP_STALL_METER_LOG_FRAME_MS 50

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
/* A frame painted by clock (any pointer naming one window's frame clock),
 * now. The gap is counted from the clock's previous frame or the last
 * reset, whichever came later. */
void sp_stall_meter_frame (SpStallMeter *self, gconstpointer clock);
/* The clock is gone (its window unrealized): its next frame, if the
 * pointer comes back, starts afresh. */
void sp_stall_meter_forget_clock (SpStallMeter *self, gconstpointer clock);
/* The longest gap between two painted frames of one clock since creation
 * or the last reset, in microseconds; 0 before any frame. */
gint64 sp_stall_meter_get_longest_frame_gap_us (SpStallMeter *self);
/* Frames painted since creation or the last reset, all clocks together. */
guint64 sp_stall_meter_get_frames (SpStallMeter *self);
/* Writes a line to the log (a benchmark's marks); nothing without one. */
void sp_stall_meter_mark (SpStallMeter *self, const char *what);

G_END_DECLS
