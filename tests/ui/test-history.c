/* test-history.c: every run kept and compared, in a real window under Xvfb
 * against the real runner: two runs with different output say so in the
 * status line and "Changes since last run" shows the right lines; the same
 * output says it is the same; Restore this code is one undoable edit; the
 * history survives a restart (a new process on the same XDG_STATE_HOME);
 * an open history window gets the runs that end; a run's plot is shown
 * again when it is selected, after the next run has replaced its files,
 * and as a thumbnail in its row, decoded only once the row is in view;
 * the comparison is saved as sandpad-compare.png for the README, the list
 * with a plot's thumbnail and the plot as sandpad-history.png. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-history-window.h"
#include "sp-stall-meter.h"
#include "sp-test-wait.h"
#include "sp-ui-stall.h"
#include "sp-ui-test.h"
#include "sp-window.h"
#include "sp-test-tree.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static const char *
status_text (SpWindow *window)
{
  return sp_exec_panel_get_status (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

/* The status line's labels in the error colour (the "error" class) and
 * not, each joined. */
static void
status_parts (GtkWidget *widget, GString *red, GString *plain)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "sp-status")
      && gtk_widget_get_visible (widget))
    g_string_append (gtk_widget_has_css_class (widget, "error") ? red : plain,
                     gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    status_parts (c, red, plain);
}

static char *
buffer_text (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

static void
set_code (SpWindow *window, const char *code)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;

  /* as typed over a selection: one undoable edit */
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_insert (buffer, &start, code, -1);
  gtk_text_buffer_end_user_action (buffer);
}

static void
run_and_wait (SpWindow *window)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
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

static SpHistoryWindow *
open_history (SpWindow *window, const char *action)
{
  SpHistoryWindow *history;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), action, NULL));
  history = find_history_window ();
  g_assert_nonnull (history);
  return history;
}

static SpWindow *
new_window (void)
{
  SpWindow *window = sp_window_new (app);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 20000));
  return window;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
save_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  GdkPaintable *paintable = gtk_widget_paintable_new (widget);
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  g_autoptr (GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL || w <= 0 || h <= 0)
    {
      g_object_unref (paintable);
      return;
    }
  /* what GTK drew, once it has drawn this state */
  gtk_widget_queue_draw (widget);
  gtk_test_widget_wait_for_draw (widget);
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node != NULL)
    {
      GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
      texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
      path = g_build_filename (dir, name, NULL);
      gdk_texture_save_to_png (texture, path);
    }
  g_object_unref (paintable);
}

/* The status line has the comparison with the run before. */
static gboolean
status_compared (gpointer data)
{
  return strstr (status_text (data), "last run") != NULL;
}

static gboolean
compared (gpointer data)
{
  return !sp_history_window_is_comparing (data);
}

/* "Changes since last run" opened on the window's last two runs: the
 * meter's figures from the action to the comparison shown. The action
 * returns before the comparison is shown, whatever the machine: it is
 * made in a worker thread and shown from the main loop. */
static SpStall
compare_in_window (SpWindow *window, SpHistoryWindow **history)
{
  SpStallMeter *meter = sp_application_get_stall_meter (app);

  spin (300);
  sp_stall_meter_reset (meter);
  *history = open_history (window, "win.compare-runs");
  g_assert_true (sp_history_window_is_comparing (*history));
  g_assert_true (sp_test_wait_for (compared, *history, 60000));
  spin (300);
  return sp_stall_take (meter);
}

/* A run of the window's code, from Run to its comparison with the run
 * before in the status line: the meter's figures. */
static SpStall
run_compared (SpWindow *window, const char *code)
{
  SpStallMeter *meter = sp_application_get_stall_meter (app);

  set_code (window, code);
  spin (300);
  sp_stall_meter_reset (meter);
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (status_compared, window, 60000));
  spin (300);
  return sp_stall_take (meter);
}

/* Two runs whose 256 KiB outputs differ in a line of every 64: the diff
 * of the two (at the run's end, and for "Changes since last run") is
 * made in a worker thread, and the window goes on painting meanwhile
 * (issue 29: it was made on the main thread). Measured with the app's
 * stall meter against a control in the same test (sp-ui-stall.h): the
 * same bytes in the same lines after a run with no output, whose diff is
 * one insertion, made at once, and shows as many lines. */
static void
test_huge_diff (void)
{
  SpWindow *window = new_window ();
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  SpHistoryWindow *history;
  g_autofree char *text = NULL;
  SpStall control_end, at_end, control_changes, changes;

  g_assert_nonnull (meter);
  set_code (window, "pass\n");
  run_and_wait (window);
  control_end = run_compared (window, "import sys\nsys.stdout.write('a\\n' * 130000)\n");
  control_changes = compare_in_window (window, &history);
  gtk_window_destroy (GTK_WINDOW (history));

  at_end = run_compared (
    window, "import sys\nsys.stdout.write('b\\n' + 'a\\n' * 63 + ('a\\n' * 63 + 'b\\n') * 2000)\n");
  g_assert_nonnull (strstr (status_text (window), "Output changed since the last run"));
  changes = compare_in_window (window, &history);
  sp_stall_assert_within ("the run's end, compared with the run before", &at_end, &control_end);
  sp_stall_assert_within ("Changes since last run", &changes, &control_changes);
  /* The diff gave up (over 1000 changed lines): the whole middle replaced,
   * of which the start is shown. */
  text = sp_history_window_get_text (history);
  g_assert_nonnull (strstr (text, "\n-a\n"));
  g_assert_nonnull (strstr (text, "its start is shown"));
  gtk_window_destroy (GTK_WINDOW (history));
  close_window (window);
}

/* Issue 23: rows tell runs apart (not "Exited with code 0" each), the
 * comparison diffs the code too, and any two runs can be compared. */
static void
test_rows_and_any_two (void)
{
  SpWindow *window = new_window ();
  SpHistoryWindow *history;
  g_autofree char *row0 = NULL;
  g_autofree char *row1 = NULL;
  g_autofree char *row2 = NULL;
  g_autofree char *text = NULL;
  GtkWidget *compare;

  set_code (window, "x = 1\nprint(x)\n");
  run_and_wait (window);
  set_code (window, "x = 2\nprint(x)\n");
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (status_compared, window, 30000));
  set_code (window, "x = 3\nprint(x * 10)\n");
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (status_compared, window, 30000));

  history = open_history (window, "win.history");
  g_assert_cmpuint (sp_history_window_get_n_runs (history), ==, 3);
  row0 = sp_history_window_get_row_text (history, 0);
  row1 = sp_history_window_get_row_text (history, 1);
  row2 = sp_history_window_get_row_text (history, 2);
  g_test_message ("rows:\n%s\n%s\n%s", row0, row1, row2);
  g_assert_nonnull (strstr (row0, "\nCode: x = 3"));
  g_assert_nonnull (strstr (row1, "\nCode: x = 2"));
  g_assert_nonnull (strstr (row2, "\nOutput: 1"));
  g_assert_null (strstr (row0, "Exited with code"));

  /* Changes since last run: the code's diff, then the output's. */
  sp_history_window_select (history, 0);
  sp_history_window_show_changes (history);
  g_assert_true (sp_test_wait_for (compared, history, 30000));
  text = sp_history_window_get_text (history);
  g_assert_nonnull (strstr (text, "-x = 2\n-print(x)\n+x = 3\n+print(x * 10)\n"));
  g_assert_nonnull (strstr (text, "-2\n+30\n"));

  /* The newest against the first, chosen beside Compare. */
  compare = find_button (GTK_WIDGET (history), "Co_mpare");
  g_assert_nonnull (compare);
  g_assert_true (gtk_widget_get_sensitive (compare));
  sp_history_window_compare_with (history, 2);
  g_assert_true (sp_test_wait_for (compared, history, 30000));
  g_clear_pointer (&text, g_free);
  text = sp_history_window_get_text (history);
  g_assert_nonnull (strstr (text, "-x = 1\n-print(x)\n+x = 3\n+print(x * 10)\n"));
  g_assert_nonnull (strstr (text, "-1\n+30\n"));

  gtk_window_destroy (GTK_WINDOW (history));
  close_window (window);
}

static void
test_compare (void)
{
  SpWindow *window = new_window ();
  SpHistoryWindow *history;
  g_autofree char *text = NULL;
  g_autofree char *restored = NULL;
  g_autofree char *undone = NULL;

  set_code (window, "print('one')\nprint('two')\nprint('three')\n");
  run_and_wait (window);
  /* the first run has nothing to compare with */
  g_assert_null (strstr (status_text (window), "last run"));

  set_code (window, "print('one')\nprint('TWO')\nprint('three')\nraise ValueError('bad')\n");
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (status_compared, window, 30000));
  g_assert_nonnull (strstr (status_text (window), "Output changed since the last run"));
  g_assert_nonnull (strstr (status_text (window), "1 line of stdout differs"));
  g_assert_nonnull (strstr (status_text (window), "the error is new"));
  /* Only the run's end is red: "Output changed…" is no error (issue 38). */
  {
    g_autoptr (GString) red = g_string_new (NULL);
    g_autoptr (GString) plain = g_string_new (NULL);

    status_parts (sp_window_get_exec_panel (window), red, plain);
    g_test_message ("red: %s; plain: %s", red->str, plain->str);
    g_assert_nonnull (strstr (red->str, "Exited with code 1"));
    g_assert_null (strstr (red->str, "Output changed"));
    g_assert_nonnull (strstr (plain->str, "Output changed since the last run"));
  }

  history = open_history (window, "win.compare-runs");
  g_assert_cmpuint (sp_history_window_get_n_runs (history), ==, 2);
  g_assert_true (sp_test_wait_for (compared, history, 30000));
  text = sp_history_window_get_text (history);
  g_assert_nonnull (strstr (text, " one\n-two\n+TWO\n three\n"));
  g_assert_nonnull (strstr (text, "Error appeared: ValueError: bad"));
  gtk_window_set_default_size (GTK_WINDOW (history), 900, 520);
  spin (500);
  save_screenshot (GTK_WIDGET (history), "sandpad-compare.png");

  /* Restore the first run's code: one edit, which one Undo takes back. */
  sp_history_window_select (history, 1);
  g_signal_emit_by_name (find_button (GTK_WIDGET (history), "_Restore this code"), "clicked");
  restored = buffer_text (window);
  g_assert_cmpstr (restored, ==, "print('one')\nprint('two')\nprint('three')\n");
  g_assert_true (gtk_text_buffer_get_can_undo (GTK_TEXT_BUFFER (sp_window_get_buffer (window))));
  gtk_text_buffer_undo (GTK_TEXT_BUFFER (sp_window_get_buffer (window)));
  undone = buffer_text (window);
  g_assert_cmpstr (undone, ==,
                   "print('one')\nprint('TWO')\nprint('three')\nraise ValueError('bad')\n");

  /* A run's output with a character that would reorder or hide text is
   * shown with its code point instead (issue 29). */
  set_code (window, "print('one')\nprint('TWO')\nprint('three')\nprint('x\\u202ey')\n");
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (status_compared, window, 30000));
  g_free (text);
  text = sp_history_window_get_text (history);
  g_assert_nonnull (strstr (text, "x<U+202E>y"));
  g_assert_null (strstr (text, "\u202e"));
  set_code (window, "print('one')\nprint('TWO')\nprint('three')\nraise ValueError('bad')\n");
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (status_compared, window, 30000));

  /* the same output again: said so, and the open list has the new run */
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (status_compared, window, 30000));
  g_assert_nonnull (strstr (status_text (window), "Same output as the last run"));
  g_assert_cmpuint (sp_history_window_get_n_runs (history), ==, 5);
  gtk_window_destroy (GTK_WINDOW (history));
  close_window (window);
}

/* A picture of the plots under the text (a row's thumbnail is not one). */
static gboolean
has_runs (gpointer data)
{
  return sp_history_window_get_n_runs (data) > 0;
}

static gboolean
input_wanted (gpointer data)
{
  return gtk_widget_has_css_class (data, "input-wanted");
}

/* The history's transcript has the answer typed to input(), where a
 * terminal shows it: "Name: Alice" then "Hello Alice", not "Name: Hello
 * Alice" (issue 38). */
static void
test_typed_answer (void)
{
  SpWindow *window = new_window ();
  GtkEntry *entry = sp_exec_panel_get_input_entry (
    SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  SpHistoryWindow *history;
  g_autofree char *text = NULL;

  set_code (window, "name = input('Name: ')\nprint('Hello', name)\n");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (input_wanted, entry, 20000));
  gtk_editable_set_text (GTK_EDITABLE (entry), "Alice");
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  history = open_history (window, "win.history");
  g_assert_true (sp_test_wait_for (has_runs, history, 10000));
  sp_history_window_select (history, 0);
  text = sp_history_window_get_text (history);
  g_test_message ("%s", text);
  g_assert_nonnull (strstr (text, "Name: Alice\nHello Alice\n"));
  gtk_window_destroy (GTK_WINDOW (history));
  close_window (window);
}

static GtkWidget *
find_picture (GtkWidget *widget, gboolean with_texture)
{
  if (gtk_widget_has_css_class (widget, "sp-history-thumbnail"))
    return NULL;
  if (GTK_IS_PICTURE (widget)
      && (!with_texture || GDK_IS_TEXTURE (gtk_picture_get_paintable (GTK_PICTURE (widget)))))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_picture (child, with_texture);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_texture (gpointer data)
{
  return find_picture (data, TRUE) != NULL;
}

static GdkTexture *
wait_for_texture (GtkWidget *root)
{
  GtkWidget *picture;

  g_assert_true (sp_test_wait_for (has_texture, root, 30000));
  picture = find_picture (root, TRUE);
  return GDK_TEXTURE (gtk_picture_get_paintable (GTK_PICTURE (picture)));
}

static gboolean
row_has_thumbnail (gpointer data)
{
  return sp_history_window_get_row_thumbnail (data, 1, NULL) != NULL;
}

/* A run that plots, then one that does not (which replaces the first's
 * files): the history shows the first run's plot at the size the panel
 * showed it, and nothing for the second. */
static void
test_plots (void)
{
  SpWindow *window = new_window ();
  SpHistoryWindow *history;
  GdkTexture *texture;
  int width, height;

  set_code (window, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\n");
  run_and_wait (window);
  texture = wait_for_texture (sp_window_get_exec_panel (window));
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  g_test_message ("the panel's plot is %dx%d", width, height);
  g_assert_cmpint (width, >, 1);
  g_assert_cmpint (height, >, 1);

  set_code (window, "print('no plot here')\n");
  run_and_wait (window);
  /* the panel shows the second run: the first run's picture is gone */
  g_assert_null (find_picture (sp_window_get_exec_panel (window), TRUE));

  history = open_history (window, "win.history");
  g_assert_cmpuint (sp_history_window_get_n_runs (history), ==, 2);
  /* the newest run, selected when it opens, has no plot and no picture */
  g_assert_null (find_picture (GTK_WIDGET (history), FALSE));

  sp_history_window_select (history, 1);
  texture = wait_for_texture (GTK_WIDGET (history));
  g_assert_cmpint (gdk_texture_get_width (texture), ==, width);
  g_assert_cmpint (gdk_texture_get_height (texture), ==, height);

  /* its row has a thumbnail, decoded by the helper to a small size; the
   * newer run's row, which made none, has no place for one */
  {
    gboolean has = FALSE;
    GdkPaintable *thumbnail;

    g_assert_true (sp_test_wait_for (row_has_thumbnail, history, 30000));
    thumbnail = sp_history_window_get_row_thumbnail (history, 1, &has);
    g_assert_true (has);
    g_assert_cmpint (gdk_paintable_get_intrinsic_height (thumbnail), <=, 96);
    g_assert_cmpint (gdk_paintable_get_intrinsic_width (thumbnail), <=, 96);
    g_assert_null (sp_history_window_get_row_thumbnail (history, 0, &has));
    g_assert_false (has);
  }
  /* the history as the manual shows it (docs/screenshots/history.png):
   * the plotting run selected, its plot under its code and output */
  gtk_window_set_default_size (GTK_WINDOW (history), 1000, 560);
  spin (500);
  save_screenshot (GTK_WIDGET (history), "sandpad-history.png");

  /* and back: the second run's view has none again */
  sp_history_window_select (history, 0);
  g_assert_null (find_picture (GTK_WIDGET (history), FALSE));
  gtk_window_destroy (GTK_WINDOW (history));
  close_window (window);
}

typedef struct
{
  SpHistoryWindow *history;
  guint index;
} RowWait;

static gboolean
thumbnail_decoded (gpointer data)
{
  RowWait *wait = data;

  return sp_history_window_get_row_thumbnail (wait->history, wait->index, NULL) != NULL;
}

static GtkWidget *
find_list (GtkWidget *widget)
{
  if (GTK_IS_LIST_BOX (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_list (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A PNG the test makes itself (a flat colour), as a run's kept image. */
static GBytes *
make_png (int width, int height)
{
  g_autofree guchar *pixels = g_malloc ((gsize) width * height * 4);
  g_autoptr (GBytes) data = NULL;
  g_autoptr (GdkTexture) texture = NULL;

  for (int i = 0; i < width * height; i++)
    {
      pixels[4 * i] = 0x1c;
      pixels[4 * i + 1] = 0x71;
      pixels[4 * i + 2] = 0xd8;
      pixels[4 * i + 3] = 0xff;
    }
  data = g_bytes_new (pixels, (gsize) width * height * 4);
  texture = gdk_memory_texture_new (width, height, GDK_MEMORY_R8G8B8A8, data, (gsize) width * 4);
  return gdk_texture_save_to_png_bytes (texture);
}

/* Forty runs, each with a plot: the rows in view get thumbnails (decoded
 * by the helper, shrunk), the rows below do not until they are scrolled
 * to (issue 23: a thumbnail per row, lazily). */
static void
test_thumbnails_lazy (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-history-thumbs-XXXXXX", NULL);
  g_autoptr (SpRunHistory) store = sp_run_history_new (dir, 0);
  g_autoptr (GBytes) png = make_png (320, 240);
  SpHistoryWindow *history;
  GtkAdjustment *adjustment;
  GdkPaintable *thumbnail;
  RowWait first, last;
  gboolean has = FALSE;
  const guint n = 40;

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (SpRunRecord) record = sp_run_record_new ();
      SpRunImage *image = g_new0 (SpRunImage, 1);
      g_autoptr (GError) error = NULL;

      record->time_us = 1700000000000000 + (gint64) i * G_USEC_PER_SEC;
      record->duration_ms = 120;
      record->language = g_strdup ("python");
      record->code = g_strdup_printf ("plot(%u)\n", i);
      record->stdout_text = g_strdup ("");
      record->stderr_text = g_strdup ("");
      record->end = g_strdup ("Exited with code 0");
      record->succeeded = TRUE;
      image->name = g_strdup ("plot-1.png");
      image->mime = g_strdup ("image/png");
      image->bytes = g_bytes_ref (png);
      g_ptr_array_add (record->images, image);
      g_assert_true (sp_run_history_add (store, "file-thumbs", record, &error));
      g_assert_no_error (error);
    }
  history = sp_history_window_new (NULL, store, "file-thumbs");
  gtk_window_set_default_size (GTK_WINDOW (history), 900, 420);
  gtk_window_present (GTK_WINDOW (history));
  g_assert_cmpuint (sp_history_window_get_n_runs (history), ==, n);

  first = (RowWait){ history, 0 };
  g_assert_true (sp_test_wait_for (thumbnail_decoded, &first, 30000));
  thumbnail = sp_history_window_get_row_thumbnail (history, 0, &has);
  g_assert_true (has);
  g_test_message ("thumbnail: %dx%d", gdk_paintable_get_intrinsic_width (thumbnail),
                  gdk_paintable_get_intrinsic_height (thumbnail));
  /* 320x240 shrunk by the helper to fit 96x96 */
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (thumbnail), ==, 96);
  g_assert_cmpint (gdk_paintable_get_intrinsic_height (thumbnail), ==, 72);

  /* the rows in view are done; the last, far below, is not asked for */
  spin (1500);
  g_assert_null (sp_history_window_get_row_thumbnail (history, n - 1, &has));
  g_assert_true (has);

  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (
    gtk_widget_get_ancestor (find_list (GTK_WIDGET (history)), GTK_TYPE_SCROLLED_WINDOW)));
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment));
  last = (RowWait){ history, n - 1 };
  g_assert_true (sp_test_wait_for (thumbnail_decoded, &last, 30000));
  gtk_window_destroy (GTK_WINDOW (history));
  sp_test_remove_tree (dir);
}

static char *
restart_file (void)
{
  return g_build_filename (g_getenv ("XDG_STATE_HOME"), "restart.py", NULL);
}

static gboolean
loaded (gpointer data)
{
  g_autofree char *text = buffer_text (data);
  return g_str_has_prefix (text, "print(");
}

/* Runs a saved file here, then checks in a new process that its history
 * is there. */
static void
test_restart (void)
{
  g_autofree char *path = restart_file ();
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SpWindow *window = new_window ();

  g_assert_true (g_file_set_contents (path, "print('kept across restarts')\n", -1, NULL));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (loaded, window, 5000));
  run_and_wait (window);
  close_window (window);

  /* the child's stderr says why, should it fail */
  g_test_trap_subprocess ("/Sandpad/History/restart-child", 120 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
test_restart_child (void)
{
  g_autofree char *path = restart_file ();
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autofree char *text = NULL;
  SpWindow *window;
  SpHistoryWindow *history;

  if (!g_test_subprocess ())
    {
      g_test_skip ("runs only as the restart test's new process");
      return;
    }
  window = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (loaded, window, 5000));
  history = open_history (window, "win.history");
  g_assert_cmpuint (sp_history_window_get_n_runs (history), ==, 1);
  text = sp_history_window_get_text (history);
  g_assert_nonnull (strstr (text, "kept across restarts\n"));
  g_assert_nonnull (strstr (text, "print('kept across restarts')"));
  gtk_window_destroy (GTK_WINDOW (history));
  close_window (window);
}

int
main (int argc, char **argv)
{
  g_autofree char *state = NULL;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  /* A state directory of the test's own, shared with its restart child
   * (which inherits the environment); before anything reads it. */
  if (g_getenv ("SP_TEST_STATE_OWNED") == NULL)
    {
      state = g_dir_make_tmp ("sp-history-ui-XXXXXX", NULL);
      g_assert_nonnull (state);
      g_setenv ("XDG_STATE_HOME", state, TRUE);
      g_setenv ("SP_TEST_STATE_OWNED", "1", TRUE);
    }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  /* The restart child is a Sandpad of its own while this one still runs
   * on the test's bus: unique, it would hand itself over to this one. */
  if (state == NULL)
    g_application_set_flags (G_APPLICATION (app), g_application_get_flags (G_APPLICATION (app))
                                                    | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/Sandpad/History/compare", test_compare);
  g_test_add_func ("/Sandpad/History/typed-answer", test_typed_answer);
  g_test_add_func ("/Sandpad/History/rows-and-any-two", test_rows_and_any_two);
  g_test_add_func ("/Sandpad/History/plots", test_plots);
  g_test_add_func ("/Sandpad/History/thumbnails-lazy", test_thumbnails_lazy);
  g_test_add_func ("/Sandpad/History/huge-diff", test_huge_diff);
  g_test_add_func ("/Sandpad/History/restart", test_restart);
  g_test_add_func ("/Sandpad/History/restart-child", test_restart_child);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  if (state != NULL)
    sp_test_remove_tree (state);
  return ret;
}
