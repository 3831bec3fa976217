/* stall-bench.c: how long the window freezes while a run floods it.
 *
 * Drives the app itself (SpApplication and SpWindow, the code `sandpad`
 * runs, against the real sandboxed runner) in a real window: types
 * `for i in range(N): print(i)`, presses Run, and keeps the main loop
 * going until the run is over and the panel has shown everything. The
 * app's own stall meter (SANDPAD_STALL_LOG) says how late its
 * high-priority timer ran at worst (the longest time the window could not
 * react to anything) and the longest gap between two painted frames (the
 * longest time it showed nothing new). Meanwhile the bench types a
 * character into the editor every 250 ms as real key presses (XTEST) and
 * times each from the key press to the end of the first frame painted
 * after the editor took it, and it times how long the status line's
 * painted text ("Running... 1.2 s") stays the same. Since on a shared
 * machine the longest gap is often another process's doing, it also
 * prints the 95th percentile of the frame gaps, the window's CPU time per
 * frame and the most it spent between two frames, and the load average.
 * Measurements, not assertions. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_XTEST
#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <gdk/x11/gdkx.h>
#endif

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-window.h"

#define TYPE_EVERY_MS 250

typedef enum
{
  KEY_IDLE,
  KEY_SENT,    /* pressed, the editor has not taken it yet */
  KEY_CHANGED, /* in the buffer, not painted yet */
} KeyState;

typedef struct
{
  SpApplication *app;
  SpWindow *window;
  GtkLabel *status;
  /* Typing during a case. */
  gboolean typing;
  KeyState key;
  gint64 key_sent_at;
  gint64 key_longest_us;
  guint keys_shown;
  /* The status line as painted. */
  char *status_painted;
  gint64 status_changed_at;
  gint64 status_longest_us;
  gboolean status_painted_end;
  /* Every gap between painted frames during a case (gint64 us): on a
   * shared machine the longest one is often another process's doing, so
   * the 95th percentile is printed beside it. */
  GArray *gaps;
  gint64 last_paint;
  /* The window's CPU time between two painted frames (gint64 us): what
   * the window itself did to make a gap, whatever the machine's load. */
  GArray *works;
  gint64 last_paint_cpu;
} Bench;

static gint64 thread_cpu_us (void);

static void
spin_until (gboolean (*cond) (Bench *), Bench *bench, double seconds)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);

  while (!cond (bench) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
runner_ready (Bench *bench)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (bench->app));
}

static gboolean
run_over (Bench *bench)
{
  return !sp_window_get_running (bench->window)
         && !sp_transcript_get_busy (
           sp_exec_panel_get_transcript (SP_EXEC_PANEL (sp_window_get_exec_panel (bench->window))));
}

static gboolean
end_painted (Bench *bench)
{
  return bench->status_painted_end;
}

static gboolean
never (Bench *bench)
{
  return FALSE;
}

/* The first label under widget carrying css_class, depth first. */
static GtkWidget *
find_label (GtkWidget *widget, const char *css_class)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label (child, css_class);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* ---- what was painted ---- */

static void
on_buffer_changed (GtkTextBuffer *buffer, Bench *bench)
{
  if (bench->key == KEY_SENT)
    bench->key = KEY_CHANGED;
}

/* The end of a frame: a character the editor took before it is on the
 * screen now, and so is the status line's text. */
static void
on_after_paint (GdkFrameClock *clock, Bench *bench)
{
  gint64 now = g_get_monotonic_time ();
  const char *status = gtk_label_get_text (bench->status);

  if (bench->key == KEY_CHANGED)
    {
      bench->key_longest_us = MAX (bench->key_longest_us, now - bench->key_sent_at);
      bench->keys_shown++;
      bench->key = KEY_IDLE;
    }
  /* From Run to the end of the run, the status line changes every 0.1 s
   * ("Running... 1.2 s"); the first frame after the end shows how it
   * ended. A window that paints nothing meanwhile shows the same text. */
  if (!bench->typing)
    return;
  if (bench->last_paint != 0)
    {
      gint64 gap = now - bench->last_paint;
      gint64 work = thread_cpu_us () - bench->last_paint_cpu;
      g_array_append_val (bench->gaps, gap);
      g_array_append_val (bench->works, work);
    }
  bench->last_paint = now;
  bench->last_paint_cpu = thread_cpu_us ();
  /* The text painted before this frame was on the screen until now. */
  bench->status_longest_us = MAX (bench->status_longest_us, now - bench->status_changed_at);
  if (g_strcmp0 (status, bench->status_painted) != 0)
    {
      g_free (bench->status_painted);
      bench->status_painted = g_strdup (status);
      bench->status_changed_at = now;
    }
  if (!sp_window_get_running (bench->window))
    bench->status_painted_end = TRUE;
}

#ifdef HAVE_XTEST
/* Types one character into the editor, as the X server's keyboard. */
static gboolean
type_key (gpointer user_data)
{
  Bench *bench = user_data;
  Display *dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  KeyCode key = XKeysymToKeycode (dpy, XK_x);

  if (!bench->typing || bench->key != KEY_IDLE)
    return G_SOURCE_CONTINUE;
  bench->key = KEY_SENT;
  bench->key_sent_at = g_get_monotonic_time ();
  XTestFakeKeyEvent (dpy, key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, False, CurrentTime);
  XFlush (dpy);
  return G_SOURCE_CONTINUE;
}

/* No window manager under Xvfb: the bench gives the window the X focus,
 * and the editor the window's. */
static gboolean
start_typist (Bench *bench)
{
  Display *dpy;
  int event_base, error_base, major, minor;
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (bench->window));
  GtkWidget *view = gtk_window_get_focus (GTK_WINDOW (bench->window));

  if (!GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    return FALSE;
  dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  if (!XTestQueryExtension (dpy, &event_base, &error_base, &major, &minor) || view == NULL)
    return FALSE;
  XSetInputFocus (dpy, gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
  XFlush (dpy);
  gtk_widget_grab_focus (view);
  /* Above the app's sources, so a key is pressed on time whatever the
   * window is doing: the delay measured is the window's. */
  g_timeout_add_full (G_PRIORITY_HIGH, TYPE_EVERY_MS, type_key, bench, NULL);
  return TRUE;
}
#else
static gboolean
start_typist (Bench *bench)
{
  return FALSE;
}
#endif

/* The process's resident memory, from /proc. */
static long
rss_mib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      || (line = strstr (status, "\nVmRSS:")) == NULL)
    return -1;
  return strtol (line + 7, NULL, 10) / 1024;
}

/* CPU time of this thread (the window's main loop), in microseconds. */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static int
by_value (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* The machine's load average over the last minute, from /proc. */
static double
load_average (void)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/loadavg", &text, NULL, NULL))
    return -1;
  return g_ascii_strtod (text, NULL);
}

static void
settle (SpStallMeter *meter)
{
  guint64 ticks = sp_stall_meter_get_ticks (meter);

  while (sp_stall_meter_get_ticks (meter) == ticks)
    g_main_context_iteration (NULL, TRUE);
}

/* The figures the UI tests held as fixed bounds until issue 46 (issue
 * 30's targets, and the longest the app's own work may hold the loop).
 * The tests now judge the app against a control measured in the same
 * test, which holds on any machine; the absolute figures belong here,
 * read by a person beside the machine's load (nothing passes or fails). */
#define TARGET_GAP_P95_MS 100.0
#define TARGET_STATUS_S 0.5
#define TARGET_WORK_P95_MS 50.0
#define TARGET_WORK_MAX_MS 100.0
#define TARGET_BUSY_MS 250.0

static void
print_targets (double gap_p95_ms, double status_s, double work_p95_ms, double work_max_ms,
               double busy_ms)
{
  g_autoptr (GString) missed = g_string_new (NULL);

  if (gap_p95_ms > TARGET_GAP_P95_MS)
    g_string_append_printf (missed, ", frame gap p95 over %.0f ms", TARGET_GAP_P95_MS);
  if (status_s > TARGET_STATUS_S)
    g_string_append_printf (missed, ", status line unchanged over %.1f s", TARGET_STATUS_S);
  if (work_p95_ms > TARGET_WORK_P95_MS)
    g_string_append_printf (missed, ", CPU between frames p95 over %.0f ms", TARGET_WORK_P95_MS);
  if (work_max_ms > TARGET_WORK_MAX_MS)
    g_string_append_printf (missed, ", CPU between frames over %.0f ms", TARGET_WORK_MAX_MS);
  if (busy_ms > TARGET_BUSY_MS)
    g_string_append_printf (missed, ", app working over %.0f ms at once", TARGET_BUSY_MS);
  g_print ("%9s targets: %s\n", "", missed->len ? missed->str + 2 : "all met");
}

static void
measure (Bench *bench, guint lines, guint limit_mib)
{
  SpStallMeter *meter = sp_application_get_stall_meter (bench->app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (bench->window));
  g_autofree char *code = g_strdup_printf ("for i in range(%u):\n    print(i)\n", lines);
  g_autofree char *mark = g_strdup_printf ("%u lines, output limit %u MiB", lines, limit_mib);
  gint64 start, cpu_start, cpu;
  double seconds, load = load_average ();
  double gap_p95, work_p95, work_max;

  g_settings_set_uint (sp_application_get_settings (bench->app), "output-limit-mib", limit_mib);
  gtk_text_buffer_set_text (buffer, code, -1);
  /* Let the window settle, then measure from a clean slate. */
  spin_until (never, bench, 0.5);
  sp_stall_meter_reset (meter);
  sp_stall_meter_mark (meter, mark);
  bench->key_longest_us = 0;
  bench->keys_shown = 0;
  bench->status_longest_us = 0;
  g_clear_pointer (&bench->status_painted, g_free);
  g_array_set_size (bench->gaps, 0);
  g_array_set_size (bench->works, 0);
  bench->last_paint = 0;
  cpu_start = thread_cpu_us ();
  start = g_get_monotonic_time ();
  bench->status_changed_at = start;
  gtk_widget_activate_action (GTK_WIDGET (bench->window), "win.run", NULL);
  bench->typing = TRUE;
  spin_until (run_over, bench, 0.2);
  spin_until (run_over, bench, 300);
  /* Until a frame shows the end. */
  bench->status_painted_end = FALSE;
  spin_until (end_painted, bench, 300);
  bench->typing = FALSE;
  seconds = (g_get_monotonic_time () - start) / 1e6;
  cpu = thread_cpu_us () - cpu_start;
  /* A frame or two after the last text: its layout counts too. */
  spin_until (never, bench, 0.5);
  /* The timer measures a stall when it runs after it: let it run once
   * more, or a freeze in the last iteration would go unseen. */
  settle (meter);
  g_print ("%9u lines  %2u MiB limit  longest stall %7.1f ms (app working %7.1f ms)"
           "  shown after %6.2f s  RSS %4ld MiB\n",
           lines, limit_mib, sp_stall_meter_get_longest_us (meter) / 1e3,
           sp_stall_meter_get_longest_busy_us (meter) / 1e3, seconds, rss_mib ());
  g_print ("%9s longest frame gap %7.1f ms  key to paint %7.1f ms (%u keys)"
           "  status line unchanged %6.2f s at most\n",
           "", sp_stall_meter_get_longest_frame_gap_us (meter) / 1e3,
           bench->key_longest_us / 1e3, bench->keys_shown, bench->status_longest_us / 1e6);
  g_array_sort (bench->gaps, by_value);
  g_array_sort (bench->works, by_value);
  gap_p95 = bench->gaps->len
              ? g_array_index (bench->gaps, gint64, bench->gaps->len * 95 / 100) / 1e3
              : 0.0;
  work_p95 = bench->works->len
               ? g_array_index (bench->works, gint64, bench->works->len * 95 / 100) / 1e3
               : 0.0;
  work_max = bench->works->len
               ? g_array_index (bench->works, gint64, bench->works->len - 1) / 1e3
               : 0.0;
  g_print ("%9s frame gap p95 %7.1f ms  frames %5u  window's CPU %6.2f s (%.1f ms a frame)"
           "  load %.1f\n",
           "", gap_p95, bench->gaps->len + 1, cpu / 1e6, cpu / 1e3 / (bench->gaps->len + 1),
           load);
  g_print ("%9s window's CPU between two frames: p95 %5.1f ms, at most %5.1f ms\n", "", work_p95,
           work_max);
  print_targets (gap_p95, bench->status_longest_us / 1e6, work_p95, work_max,
                 sp_stall_meter_get_longest_busy_us (meter) / 1e3);
}

int
main (int argc, char **argv)
{
  static const struct { guint lines, limit_mib; } cases[] = {
    { 10000, 1 }, { 100000, 64 }, { 1000000, 1 }, { 1000000, 64 }, { 3000000, 64 },
  };
  g_autofree char *log = NULL;
  Bench bench = { 0 };

  bench.gaps = g_array_new (FALSE, FALSE, sizeof (gint64));
  bench.works = g_array_new (FALSE, FALSE, sizeof (gint64));

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("stall-bench: no display; run it through bench/stall.sh\n");
      return 2;
    }
  /* The app measures itself only when asked to. */
  if (g_getenv ("SANDPAD_STALL_LOG") == NULL)
    {
      log = g_build_filename (g_get_tmp_dir (), "sandpad-stall.log", NULL);
      g_setenv ("SANDPAD_STALL_LOG", log, TRUE);
    }
#ifdef HAVE_XTEST
  /* The typist speaks XTEST to the X server the window is on. */
  gdk_set_allowed_backends ("x11");
#endif
  gtk_init ();
  gtk_source_init ();
  bench.app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (bench.app), NULL, NULL));
  g_assert_nonnull (sp_application_get_stall_meter (bench.app));
  bench.window = sp_window_new (bench.app);
  gtk_window_set_default_size (GTK_WINDOW (bench.window), 1000, 700);
  gtk_window_present (GTK_WINDOW (bench.window));
  spin_until (runner_ready, &bench, 20);
  if (!runner_ready (&bench))
    {
      g_printerr ("stall-bench: the runner did not start\n");
      return 1;
    }
  bench.status = GTK_LABEL (find_label (sp_window_get_exec_panel (bench.window), "sp-status"));
  g_signal_connect (sp_window_get_buffer (bench.window), "changed",
                    G_CALLBACK (on_buffer_changed), &bench);
  g_signal_connect (gtk_widget_get_frame_clock (GTK_WIDGET (bench.window)), "after-paint",
                    G_CALLBACK (on_after_paint), &bench);
  if (!start_typist (&bench))
    g_print ("no XTEST: key to paint is not measured\n");

  /* Idle is after one small run: the first run's one-time costs (fonts,
   * styles, the runner's first start) are not the output's. */
  measure (&bench, 10, 1);
  gtk_widget_activate_action (sp_window_get_exec_panel (bench.window), "panel.clear", NULL);
  spin_until (never, &bench, 0.5);
  g_print ("idle: RSS %ld MiB\n", rss_mib ());

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      if (argc > 1 && strtoul (argv[1], NULL, 10) != cases[i].lines)
        continue;
      measure (&bench, cases[i].lines, cases[i].limit_mib);
    }
  /* Clear: what the output took should go back. */
  gtk_widget_activate_action (sp_window_get_exec_panel (bench.window), "panel.clear", NULL);
  spin_until (never, &bench, 0.5);
  g_print ("after Clear: RSS %ld MiB\n", rss_mib ());

  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (bench.window)), FALSE);
  g_signal_handlers_disconnect_by_func (gtk_widget_get_frame_clock (GTK_WIDGET (bench.window)),
                                        on_after_paint, &bench);
  gtk_window_destroy (GTK_WINDOW (bench.window));
  g_free (bench.status_painted);
  g_array_unref (bench.gaps);
  g_array_unref (bench.works);
  g_application_quit (G_APPLICATION (bench.app));
  g_clear_object (&bench.app);
  return 0;
}
