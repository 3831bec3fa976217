/* test-long-lines.c: output of any shape leaves the window responsive
 * (issue 38, item 1), in a real window against the real runner.
 *
 * print("x" * 200_000) froze the window for 44-133 s: the cost grew with
 * the length of one line, not with the bytes. Each shape here (one 10 MB
 * line; 10^4 lines of 10^4 characters; 10^6 short lines; one escape with
 * 100,000 SGR parameters) is run while a key is typed into the editor every
 * 150 ms, and judged against a control in the same test: the same number
 * of bytes printed in lines of 80 (sp-ui-stall.h: never a fixed bound). The
 * app's stall meter (main loop held, frame gaps), each key from its press
 * at the X server to the frame that paints it, and the app's peak memory.
 * The keys come from a thread of their own with its own X connection, so a
 * held main loop delays the key, not its press. On the code before issue
 * 38 the 10 MB line held the window for 103 s (keys painted 34 s late at
 * the median), the escape for 15 s, and the long lines ended on a GTK
 * warning a minute in; the short lines passed already (issue 30).
 *
 * And a folded line loses nothing: Copy Line gives the whole line, Save
 * Output the whole output, the run history's record the whole line, and
 * the history window shows it folded without holding the app.
 *
 * The whole test takes ~25 s on a quiet 2-core machine, the long lines'
 * pair ~10 s of it: 100 MB each, stopped at the runner's 64 MiB limit. */
#include "config.h"

#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <gdk/x11/gdkx.h>
#include <gtksourceview/gtksource.h>
#include <fcntl.h>
#include <malloc.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-fold-bar.h"
#include "sp-history-window.h"
#include "sp-output-item.h"
#include "sp-output-model.h"
#include "sp-run-history.h"
#include "sp-stall-meter.h"
#include "sp-text-fold.h"
#include "sp-test-wait.h"
#include "sp-transcript.h"
#include "sp-ui-stall.h"
#include "sp-ui-test.h"
#include "sp-window.h"

#define KEY_EVERY_MS 150
/* A run over in less time is typed into a little after it. */
#define MIN_KEYS 4

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static gboolean
has_focus (gpointer data)
{
  return gtk_widget_has_focus (data);
}

static gboolean
is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static SpTranscript *
transcript_of (SpWindow *window)
{
  return sp_exec_panel_get_transcript (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

static SpOutputModel *
output_of (SpWindow *window)
{
  return SP_OUTPUT_MODEL (
    sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window))));
}

/* The run is over and all its output shown. */
static gboolean
shown (gpointer data)
{
  SpWindow *window = data;

  return !sp_window_get_running (window) && !sp_transcript_get_busy (transcript_of (window));
}

/* Spins the loop for ms, then lets the stall meter run once more, so a
 * freeze in the last iteration is measured too. */
static void
spin_and_settle (guint ms)
{
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;
  guint64 ticks;

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
  ticks = sp_stall_meter_get_ticks (meter);
  while (sp_stall_meter_get_ticks (meter) == ticks)
    g_main_context_iteration (NULL, TRUE);
}

/* ---- the typist: a key every KEY_EVERY_MS, pressed from its own thread ---- */

typedef struct
{
  char *display_name;
  GMutex lock;
  GArray *sent; /* gint64 us: when each key was pressed, in order */
  gint stop;
  GThread *thread;
} Typist;

static gpointer
typist_main (gpointer data)
{
  Typist *typist = data;
  Display *dpy = XOpenDisplay (typist->display_name);
  KeyCode key;

  g_assert_nonnull (dpy);
  key = XKeysymToKeycode (dpy, XK_x);
  while (!g_atomic_int_get (&typist->stop))
    {
      gint64 now = g_get_monotonic_time ();

      g_mutex_lock (&typist->lock);
      g_array_append_val (typist->sent, now);
      g_mutex_unlock (&typist->lock);
      XTestFakeKeyEvent (dpy, key, True, CurrentTime);
      XTestFakeKeyEvent (dpy, key, False, CurrentTime);
      XFlush (dpy);
      g_usleep (KEY_EVERY_MS * 1000);
    }
  XCloseDisplay (dpy);
  return NULL;
}

static guint
typist_n_sent (Typist *typist)
{
  guint n;

  g_mutex_lock (&typist->lock);
  n = typist->sent->len;
  g_mutex_unlock (&typist->lock);
  return n;
}

static gint64
typist_sent_at (Typist *typist, guint i)
{
  gint64 at;

  g_mutex_lock (&typist->lock);
  at = g_array_index (typist->sent, gint64, i);
  g_mutex_unlock (&typist->lock);
  return at;
}

/* ---- one phase: a run measured from Run to all shown ---- */

typedef struct
{
  Typist typist;
  guint arrived;     /* keys the editor took */
  guint painted;     /* of those, keys a frame has painted since */
  GArray *latencies; /* gint64 us, press to paint, one per key */
  SpWindow *window;
  SpStall stall;
  gint64 rss_growth; /* the peak resident memory over the start's, bytes */
  /* The heap in use (malloc's, every arena), at the start and its peak
   * over the frames painted since: what the app holds, without the freed
   * pages the allocator keeps, which made the resident peak of one shape
   * range from 15 to 54 MiB over five runs. */
  gint64 heap_before;
  gint64 heap_peak;
  double load;
} Phase;

static void
on_insert_text (GtkTextBuffer *buffer, GtkTextIter *at, const char *text, int len, Phase *phase)
{
  for (int i = 0; i < len; i++)
    if (text[i] == 'x')
      phase->arrived++;
}

static gint64
heap_in_use (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return (gint64) (info.uordblks + info.hblkhd);
}

static void
on_after_paint (GdkFrameClock *clock, Phase *phase)
{
  gint64 now = g_get_monotonic_time ();

  phase->heap_peak = MAX (phase->heap_peak, heap_in_use ());

  for (; phase->painted < phase->arrived; phase->painted++)
    {
      gint64 latency = now - typist_sent_at (&phase->typist, phase->painted);
      g_array_append_val (phase->latencies, latency);
    }
}

/* Output shown, and at least a few keys pressed meanwhile or since. */
static gboolean
shown_and_typed (gpointer data)
{
  Phase *phase = data;

  return shown (phase->window) && typist_n_sent (&phase->typist) >= MIN_KEYS;
}

static gboolean
all_keys_painted (gpointer data)
{
  Phase *phase = data;

  return phase->painted == typist_n_sent (&phase->typist);
}

/* A figure of /proc/self/status, in bytes. */
static gint64
proc_status_bytes (const char *field)
{
  g_autofree char *text = NULL;
  const char *at;

  g_assert_true (g_file_get_contents ("/proc/self/status", &text, NULL, NULL));
  at = strstr (text, field);
  g_assert_nonnull (at);
  return g_ascii_strtoll (at + strlen (field), NULL, 10) * 1024;
}

/* Resets the kernel's peak resident size to the current one (Linux 4.0). */
static gboolean
reset_peak_rss (void)
{
  int fd = open ("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  gboolean done = fd >= 0 && write (fd, "5", 1) == 1;

  if (fd >= 0)
    close (fd);
  return done;
}

/* Runs code in window while keys are typed into its editor, from Run to
 * the output all shown and every key painted. */
static void
phase_run (SpWindow *window, const char *code, Phase *phase)
{
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  GtkTextIter end;
  gint64 rss_before;
  gulong inserted, painted;

  *phase = (Phase){ .latencies = g_array_new (FALSE, FALSE, sizeof (gint64)), .window = window };
  phase->typist.display_name = g_strdup (
    DisplayString (gdk_x11_display_get_xdisplay (gtk_widget_get_display (GTK_WIDGET (window)))));
  phase->typist.sent = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_mutex_init (&phase->typist.lock);

  gtk_text_buffer_set_text (buffer, code, -1);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_place_cursor (buffer, &end);
  spin_and_settle (300);
  inserted = g_signal_connect_after (buffer, "insert-text", G_CALLBACK (on_insert_text), phase);
  painted = g_signal_connect (clock, "after-paint", G_CALLBACK (on_after_paint), phase);
  g_assert_true (reset_peak_rss ());
  rss_before = proc_status_bytes ("VmRSS:");
  phase->heap_before = phase->heap_peak = heap_in_use ();
  phase->load = load_average ();
  sp_stall_meter_reset (meter);
  phase->typist.thread = g_thread_new ("typist", typist_main, &phase->typist);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (shown_and_typed, phase, 300000));

  g_atomic_int_set (&phase->typist.stop, 1);
  g_thread_join (phase->typist.thread);
  g_assert_true (sp_test_wait_for (all_keys_painted, phase, 60000));
  spin_and_settle (300);
  phase->stall = sp_stall_take (meter);
  phase->rss_growth = proc_status_bytes ("VmHWM:") - rss_before;
  phase->heap_peak = MAX (phase->heap_peak, heap_in_use ());
  phase->load = MAX (phase->load, load_average ());
  g_signal_handler_disconnect (buffer, inserted);
  g_signal_handler_disconnect (clock, painted);
  g_assert_cmpuint (phase->latencies->len, >, 0);
}

static void
phase_clear (Phase *phase)
{
  g_array_unref (phase->latencies);
  g_array_unref (phase->typist.sent);
  g_mutex_clear (&phase->typist.lock);
  g_free (phase->typist.display_name);
}

static void
phase_report (const char *what, Phase *phase)
{
  g_test_message ("%s: %u keys, press to paint p50 %.1f ms, most %.1f ms; app working %.1f ms, "
                  "longest stall %.1f ms, longest frame gap %.1f ms; peak memory +%.1f MiB "
                  "(heap in use +%.1f MiB); load %.1f",
                  what, phase->latencies->len, percentile_ms (phase->latencies, 50),
                  percentile_ms (phase->latencies, 100), phase->stall.busy_us / 1e3,
                  phase->stall.stall_us / 1e3, phase->stall.gap_us / 1e3,
                  phase->rss_growth / (1024.0 * 1024.0),
                  (phase->heap_peak - phase->heap_before) / (1024.0 * 1024.0), phase->load);
}

/* ---- the window ---- */

/* A window of the tests' size whose editor has the keyboard. */
static SpWindow *
open_focused (void)
{
  SpWindow *window = sp_window_new (app);
  Display *dpy;
  GdkSurface *surface;
  GtkWidget *view;

  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  /* No window manager under Xvfb: give the window the X focus here. */
  dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  surface = gtk_native_get_surface (GTK_NATIVE (window));
  XSetInputFocus (dpy, gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
  XFlush (dpy);
  view = gtk_window_get_focus (GTK_WINDOW (window));
  g_assert_true (GTK_SOURCE_IS_VIEW (view));
  /* The typist's x's make one line that, on a loaded machine, outgrows the
   * editor: GTK 4.8's scrolled window then shows its horizontal scrollbar
   * inside an allocation and warns that it snapshots an unallocated trough
   * (fatal here). Wrapped, the line never needs that scrollbar; the keys
   * cost the editor the same. */
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_CHAR);
  gtk_widget_grab_focus (view);
  g_assert_true (sp_test_wait_for (has_focus, view, 5000));
  spin_and_settle (300);
  return window;
}

static void
close_window_gone (SpWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (is_null, &weak, 10000));
}

/* A window's first run makes what every later one reuses (the policy
 * card's words, the rows' first styles): done before the control, so it
 * is not the control's longest stall. */
static void
warm_up (SpWindow *window)
{
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), "print(1)\n", -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (shown, window, 30000));
  spin_and_settle (300);
}

/* ---- the shapes ---- */

typedef struct
{
  const char *name;
  /* The shape's program, and the control's: as many bytes in lines of 80
   * characters (79 and a newline). */
  const char *code;
  const char *control;
} Shape;

/* Memory: the shape's peak of heap in use may pass the control's by
 * HEAP_SLACK, its resident peak by twice RSS_SLACK. The panel keeps a tail
 * of 2 MiB of text and the folded lines' first part; the whole output goes
 * to a file. Most of the heap's peak is Pango's shaping of the rows the
 * list has bound (a glyph string for each 4 KiB fold): how many are bound
 * at that moment varies with the load, and 10^4 lines of 10^4 characters
 * peaked 17 to 36 MiB over the control in six runs (Debian 12, quiet and
 * beside three busy processes). Keeping the output whole would pass the
 * bound: the runner's 64 MiB of it, or 10^6 rows. */
#define HEAP_SLACK (56 * 1024 * 1024)
#define RSS_SLACK (48 * 1024 * 1024)

static void
judge_shape (gconstpointer data)
{
  const Shape *shape = data;
  GSettings *settings = sp_application_get_settings (app);
  SpWindow *window;
  Phase control, phase;
  g_autofree char *what = NULL;
  int min_width = 0;

  /* The runner's largest output limit: the shapes of more than 1 MiB
   * must not be stopped before they are all written (10^4 lines of 10^4
   * characters, 100 MB, are, at 64 MiB: still far beyond any line cost). */
  g_settings_set_uint (settings, "output-limit-mib", 64);
  window = open_focused ();
  warm_up (window);
  phase_run (window, shape->control, &control);
  phase_report ("control, the same bytes in lines of 80", &control);
  g_assert_true (
    gtk_widget_activate_action (sp_window_get_exec_panel (window), "panel.clear", NULL));
  spin_and_settle (300);
  phase_run (window, shape->code, &phase);
  phase_report (shape->name, &phase);
  /* Nothing shown asks for more than the screen: the preview of the file
   * with the whole output (its first line 10^4 characters) once asked
   * for 32,768 pixels, and X refused the window that size (BadAlloc). */
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min_width, NULL, NULL,
                      NULL);
  g_test_message ("%s: the window's minimum width %d", shape->name, min_width);
  g_assert_cmpint (min_width, <=, 1280);

  what = g_strdup_printf ("%s, press to paint, p50", shape->name);
  sp_stall_assert_ms_within (what, percentile_ms (phase.latencies, 50),
                             percentile_ms (control.latencies, 50), 100);
  g_free (what);
  what = g_strdup_printf ("%s, press to paint, most", shape->name);
  sp_stall_assert_ms_within (what, percentile_ms (phase.latencies, 100),
                             percentile_ms (control.latencies, 100), 100);
  sp_stall_assert_within (shape->name, &phase.stall, &control.stall);
  /* What the app holds is the heap in use: bounded tightly. The resident
   * peak also counts what the allocator keeps of freed memory and what is
   * in flight where the load leaves the main loop behind the runner (more
   * output then arrives in one batch and is parsed at once): bounded
   * loosely, twice as wide again under load, as for the frame figures.
   * Both stay far below keeping the whole output. */
  gint64 heap_growth = phase.heap_peak - phase.heap_before;
  gint64 heap_control = MAX (control.heap_peak - control.heap_before, 0);
  gint64 slack = MAX (phase.load, control.load) <= 2.0 * g_get_num_processors () ? 2 * RSS_SLACK
                                                                                 : 4 * RSS_SLACK;
  g_test_message ("%s: heap in use, peak +%.1f MiB (control +%.1f MiB, bound %.1f MiB)",
                  shape->name, heap_growth / (1024.0 * 1024.0), heap_control / (1024.0 * 1024.0),
                  (heap_control + HEAP_SLACK) / (1024.0 * 1024.0));
  g_test_message ("%s: peak memory +%.1f MiB (control +%.1f MiB, bound %.1f MiB at load %.1f)",
                  shape->name, phase.rss_growth / (1024.0 * 1024.0),
                  control.rss_growth / (1024.0 * 1024.0),
                  (MAX (control.rss_growth, 0) + slack) / (1024.0 * 1024.0),
                  MAX (phase.load, control.load));
  g_assert_cmpint (heap_growth, <=, heap_control + HEAP_SLACK);
  g_assert_cmpint (phase.rss_growth, <=, MAX (control.rss_growth, 0) + slack);

  phase_clear (&control);
  phase_clear (&phase);
  g_settings_reset (settings, "output-limit-mib");
  close_window_gone (window);
}

static const Shape shapes[] = {
  { "one 10 MB line", "import sys\nsys.stdout.write('x' * 10**7 + '\\n')\n",
    "import sys\nsys.stdout.write(('x' * 79 + '\\n') * (10**7 // 80))\n" },
  /* 100 MB: past the 64 MiB limit the run goes on (issue 38 item 4), as
   * does its control; the panel keeps the start and the end, and a row
   * offers the file with all of it, previewing its first line. */
  { "10^4 lines of 10^4 characters",
    "import sys\nfor i in range(10**4):\n    sys.stdout.write('x' * (10**4 - 1) + '\\n')\n",
    "import sys\nfor i in range(10**4):\n    sys.stdout.write(('x' * 79 + '\\n') * 125)\n" },
  { "10^6 short lines", "for i in range(10**6):\n    print(i)\n",
    /* 5,888,890 bytes: 10^6 numbers and their newlines. */
    "import sys\nsys.stdout.write(('x' * 79 + '\\n') * (5888890 // 80))\n" },
  { "one escape with 100,000 SGR parameters",
    "import sys\nsys.stdout.write('\\x1b[' + ';'.join(['1'] * 10**5) + 'mbold\\x1b[0m\\n')\n",
    "import sys\nsys.stdout.write(('x' * 79 + '\\n') * (200011 // 80))\n" },
};

/* ---- the whole of a folded line ---- */

static SpFoldBar *
find_fold_bar (GtkWidget *widget)
{
  if (SP_IS_FOLD_BAR (widget) && gtk_widget_get_mapped (widget))
    return SP_FOLD_BAR (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      SpFoldBar *found = find_fold_bar (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_fold_bar (gpointer data)
{
  return find_fold_bar (data) != NULL;
}

static void
on_text_read (GObject *source, GAsyncResult *result, gpointer data)
{
  char **out = data;

  *out = gdk_clipboard_read_text_finish (GDK_CLIPBOARD (source), result, NULL);
  if (*out == NULL)
    *out = g_strdup ("");
}

static gboolean
is_set (gpointer data)
{
  return *(gpointer *) data != NULL;
}

/* The clipboard's text, once it holds more than a line's start. */
static char *
clipboard_text (GtkWidget *widget, gsize at_least)
{
  GdkClipboard *clipboard = gtk_widget_get_clipboard (widget);
  gint64 until = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < until)
    {
      char *text = NULL;

      gdk_clipboard_read_text_async (clipboard, NULL, on_text_read, &text);
      g_assert_true (sp_test_wait_for (is_set, &text, 10000));
      if (strlen (text) >= at_least)
        return text;
      g_free (text);
      spin_and_settle (100);
    }
  return g_strdup ("");
}

static void
on_saved (GObject *source, GAsyncResult *result, gpointer data)
{
  gboolean *done = data;

  g_assert_true (sp_output_model_save_finish (SP_OUTPUT_MODEL (source), result, NULL));
  *done = TRUE;
}

static gboolean
is_true (gpointer data)
{
  return *(gboolean *) data;
}

static SpHistoryWindow *
find_history_window (void)
{
  g_autoptr (GList) toplevels = gtk_window_list_toplevels ();

  for (GList *l = toplevels; l != NULL; l = l->next)
    if (SP_IS_HISTORY_WINDOW (l->data))
      return l->data;
  return NULL;
}

/* The run history's newest record whose code is code, read from its
 * store as the app wrote it. */
static SpRunRecord *
kept_record (const char *code)
{
  g_autoptr (SpRunHistory) store = sp_run_history_new (NULL, 0);
  g_autoptr (GDir) dir = g_dir_open (sp_run_history_get_dir (store), 0, NULL);
  const char *key;

  g_assert_nonnull (dir);
  while ((key = g_dir_read_name (dir)) != NULL)
    {
      SpRunRecord *record = sp_run_history_latest (store, key, NULL);
      if (record != NULL && g_strcmp0 (record->code, code) == 0)
        return record;
      g_clear_pointer (&record, sp_run_record_free);
    }
  return NULL;
}

/* Opens the window's run history on its last run, until drawn: the stall
 * meter's figures, and its text. */
static SpStall
open_history (SpWindow *window, char **text)
{
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  SpHistoryWindow *history;
  SpStall stall;

  spin_and_settle (300);
  sp_stall_meter_reset (meter);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.history", NULL));
  history = find_history_window ();
  g_assert_nonnull (history);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (history));
  spin_and_settle (300);
  stall = sp_stall_take (meter);
  *text = sp_history_window_get_text (history);
  gtk_window_destroy (GTK_WINDOW (history));
  return stall;
}

static void
run_code (SpWindow *window, const char *code)
{
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (shown, window, 30000));
}

/* A line of 200,003 characters is folded in the panel (its first 4 KiB
 * shown, the rest counted under it), and nothing of it is lost: Copy Line
 * puts the whole line on the clipboard, Save Output writes the whole
 * output, and the run history keeps the whole line. The history window
 * shows the line folded too: a text view lays a line out in time that
 * grows with the square of its length (this one held the app for 38 s),
 * judged against a control, the same run's bytes in lines of 80. */
static void
test_whole_line (void)
{
  SpWindow *window = open_focused ();
  GtkWidget *panel = sp_window_get_exec_panel (window);
  const char *code = "print('a' * 200_000 + 'END')\nprint('next')\n";
  SpOutputModel *model;
  SpOutputItem *folded = NULL;
  SpFoldBar *bar;
  GtkWidget *copy;
  g_autofree char *line = g_strnfill (200003, 'a');
  g_autofree char *whole = NULL;
  g_autofree char *count = NULL, *copied = NULL, *saved = NULL, *path = NULL;
  g_autofree char *control_text = NULL, *shown_text = NULL, *shown_line = NULL;
  g_autoptr (GFile) dest = NULL;
  g_autoptr (SpRunRecord) record = NULL;
  SpStall control, stall;
  gboolean done = FALSE;

  memcpy (line + 200000, "END", 3);
  whole = g_strdup_printf ("%s\nnext\n", line);

  /* The history's control first: as many bytes in short lines. */
  run_code (window, "import sys\nsys.stdout.write(('x' * 79 + '\\n') * 2500)\n");
  control = open_history (window, &control_text);

  run_code (window, code);
  /* One row for the line: its start, and the rest counted. */
  model = output_of (window);
  for (guint i = 0; folded == NULL && i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (G_LIST_MODEL (model), i);
      if (sp_output_item_get_folded (item) > 0)
        folded = item;
    }
  g_assert_nonnull (folded);
  g_assert_cmpuint (sp_output_item_get_length (folded), ==, SP_OUTPUT_MODEL_ITEM_BYTES + 1);
  g_assert_cmpuint (sp_output_item_get_folded (folded), ==,
                    strlen (line) - SP_OUTPUT_MODEL_ITEM_BYTES);
  g_assert_true (sp_test_wait_for (has_fold_bar, panel, 10000));
  bar = find_fold_bar (panel);
  count = g_strdup_printf ("%zu more characters", strlen (line) - SP_OUTPUT_MODEL_ITEM_BYTES);
  g_test_message ("the fold says: %s", sp_fold_bar_get_text (bar));
  g_assert_nonnull (strstr (sp_fold_bar_get_text (bar), count));

  /* Copy Line, as clicked: the whole line, without its newline. */
  copy = find_button (GTK_WIDGET (bar), "Copy Line");
  g_assert_nonnull (copy);
  g_signal_emit_by_name (copy, "clicked");
  copied = clipboard_text (GTK_WIDGET (window), strlen (line));
  g_assert_cmpuint (strlen (copied), ==, strlen (line));
  g_assert_cmpstr (copied, ==, line);

  /* Save Output (the bar's and the panel's): everything, as written. */
  path = g_build_filename (g_get_tmp_dir (), "sandpad-long-line-XXXXXX", NULL);
  g_close (g_mkstemp (path), NULL);
  dest = g_file_new_for_path (path);
  sp_output_model_save_async (model, dest, NULL, on_saved, &done);
  g_assert_true (sp_test_wait_for (is_true, &done, 10000));
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  g_unlink (path);
  g_assert_cmpstr (saved, ==, whole);

  /* The history keeps the run's output whole (up to its 256 KiB); its
   * window shows the line's start and says how much more there is. */
  record = kept_record (code);
  g_assert_nonnull (record);
  g_assert_cmpstr (record->stdout_text, ==, whole);
  stall = open_history (window, &shown_text);
  shown_line = g_strdup_printf ("%.*s … (%zu more characters of this line)\nnext\n",
                                SP_TEXT_FOLD_VIEW_BYTES, line,
                                strlen (line) - SP_TEXT_FOLD_VIEW_BYTES);
  g_assert_nonnull (strstr (shown_text, shown_line));
  sp_stall_assert_within ("the run history of a long line", &stall, &control);
  close_window_gone (window);
}

/* A warning from below the app that this test does not judge, seen only
 * on a loaded machine: GTK 4.8 snapshotting a scrollbar's trough it has
 * not allocated yet. It is logged as a test message; every other warning
 * stays fatal. What the test judges, keys painted and stalls against the
 * control, is unchanged. */
static GLogWriterOutput
tolerant_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0
        && strstr (fields[i].value, "without a current allocation") != NULL)
      {
        g_test_message ("tolerated, not judged here: %s", (const char *) fields[i].value);
        return G_LOG_WRITER_HANDLED;
      }
  return g_log_writer_default (level, fields, n_fields, data);
}

int
main (int argc, char **argv)
{
  int ret;

  g_log_set_writer_func (tolerant_writer, NULL, NULL);
  if (!sp_ui_test_have_display ())
    return 0;
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_print ("1..0 # SKIP no /usr/bin/python3\n");
      return 77;
    }
  if (!reset_peak_rss ())
    {
      g_print ("1..0 # SKIP /proc/self/clear_refs cannot reset the peak memory\n");
      return 77;
    }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_data_func ("/Sandpad/LongLines/one-10MB-line", &shapes[0], judge_shape);
  g_test_add_data_func ("/Sandpad/LongLines/long-lines", &shapes[1], judge_shape);
  g_test_add_data_func ("/Sandpad/LongLines/short-lines", &shapes[2], judge_shape);
  g_test_add_data_func ("/Sandpad/LongLines/sgr-parameters", &shapes[3], judge_shape);
  g_test_add_func ("/Sandpad/LongLines/whole-line", test_whole_line);
  ret = g_test_run ();
  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
