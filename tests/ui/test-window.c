/* test-window.c: the window, driven as a person would, against the real
 * sandboxed runner, in a real window under Xvfb. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-test-wait.h"
#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-ui-frames.h"
#include "sp-ui-stall.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static GListModel *
panel_output (SpWindow *window)
{
  return sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

static char *
output_text (SpWindow *window, SpOutputKind kind)
{
  GListModel *model = panel_output (window);
  GString *text = g_string_new (NULL);

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == kind)
        g_string_append (text, sp_output_item_get_text (item));
    }
  return g_string_free (text, FALSE);
}

typedef struct
{
  SpWindow *window;
  SpOutputKind kind;
  const char *needle;
} OutputWait;

static gboolean
output_contains (gpointer data)
{
  OutputWait *wait = data;
  g_autofree char *text = output_text (wait->window, wait->kind);
  return strstr (text, wait->needle) != NULL;
}

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static SpWindow *
open_window (const char *code)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  /* As if typed: an interactive insert, which marks the text modified. */
  gtk_text_buffer_insert_interactive_at_cursor (buffer, code, -1, TRUE);
  return window;
}

static gboolean
is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Closes the window as a person would and checks nothing keeps it alive. */
static void
close_window_gone (SpWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (is_null, &weak, 5000));
}

static void
run_and_wait (SpWindow *window)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
}

static guint
n_sp_windows (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);
      n += SP_IS_WINDOW (toplevel);
    }
  return n;
}

#if ADW_CHECK_VERSION(1, 5, 0)
static GtkWidget *
find_alert_dialog (GtkWidget *widget)
{
  if (ADW_IS_ALERT_DIALOG (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_alert_dialog (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}
#endif

static GtkWidget *
message_dialog (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);
      GtkWidget *found;

      if (!gtk_widget_get_visible (GTK_WIDGET (toplevel)))
        continue;
#if ADW_CHECK_VERSION(1, 5, 0)
      /* An AdwAlertDialog shown with no parent, in a window of its own. */
      found = find_alert_dialog (GTK_WIDGET (toplevel));
#else
      found = ADW_IS_MESSAGE_DIALOG (toplevel) ? GTK_WIDGET (toplevel) : NULL;
#endif
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_message_dialog (gpointer data)
{
  return message_dialog () != NULL;
}

/* Its heading and body, and closing it, in either kind of dialog. */
static const char *
dialog_heading (GtkWidget *dialog)
{
#if ADW_CHECK_VERSION(1, 5, 0)
  return adw_alert_dialog_get_heading (ADW_ALERT_DIALOG (dialog));
#else
  return adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (dialog));
#endif
}

static const char *
dialog_body (GtkWidget *dialog)
{
#if ADW_CHECK_VERSION(1, 5, 0)
  return adw_alert_dialog_get_body (ADW_ALERT_DIALOG (dialog));
#else
  return adw_message_dialog_get_body (ADW_MESSAGE_DIALOG (dialog));
#endif
}

static void
dialog_close (GtkWidget *dialog)
{
#if ADW_CHECK_VERSION(1, 5, 0)
  adw_dialog_force_close (ADW_DIALOG (dialog));
#else
  gtk_window_destroy (GTK_WINDOW (dialog));
#endif
}

/* A visible label under widget whose text holds needle. */
static gboolean
shows_text (GtkWidget *widget, const char *needle)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget)
      && strstr (gtk_label_get_text (GTK_LABEL (widget)), needle) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, needle))
      return TRUE;
  return FALSE;
}

static gboolean
toast_names_file (gpointer data)
{
  return shows_text (data, "“blob.bin”") && shows_text (data, "not UTF-8 text");
}

/* Opening a file that is not text (issue 23) makes no window, not even
 * for a moment's empty Untitled one, and the message names the file: in a
 * dialog when Sandpad has no other window, else in a toast of the one
 * there is. */
static void
test_open_binary_refused (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-binary-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "blob.bin", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  const char bytes[] = { 0x7f, 'E', 'L', 'F', 0x02, 0x01, 0x00, 0xff, 0xfe, 0x80, 0x00 };
  GtkWidget *dialog;
  SpWindow *window;
  guint before;

  g_assert_true (g_file_set_contents (path, bytes, sizeof bytes, NULL));
  g_assert_cmpuint (n_sp_windows (), ==, 0);
  g_application_open (G_APPLICATION (app), &file, 1, "");
  g_assert_true (sp_test_wait_for (has_message_dialog, NULL, 10000));
  dialog = message_dialog ();
  g_assert_nonnull (strstr (dialog_heading (dialog), "Could Not Open"));
  g_assert_nonnull (strstr (dialog_body (dialog), "“blob.bin”"));
  g_assert_nonnull (strstr (dialog_body (dialog), "not UTF-8 text"));
  g_assert_cmpuint (n_sp_windows (), ==, 0);
  dialog_close (dialog);

  /* With a window open: its toast says it, and no window is added. */
  window = open_window ("");
  before = n_sp_windows ();
  g_application_open (G_APPLICATION (app), &file, 1, "");
  g_assert_true (sp_test_wait_for (toast_names_file, window, 10000));
  g_assert_cmpuint (n_sp_windows (), ==, before);
  g_assert_null (message_dialog ());
  close_window_gone (window);
  g_assert_no_errno (g_unlink (path));
  g_assert_no_errno (g_rmdir (dir));
}

static void
test_hello (void)
{
  SpWindow *window = open_window ("print('hello')\n");
  OutputWait wait = { window, SP_OUTPUT_STDOUT, "hello" };

  run_and_wait (window);
  g_assert_true (sp_test_wait_for (output_contains, &wait, 1000));
  close_window_gone (window);
}

static void
test_stderr_marked (void)
{
  SpWindow *window = open_window ("import sys\nprint('oops', file=sys.stderr)\n");
  OutputWait wait = { window, SP_OUTPUT_STDERR, "oops" };
  g_autofree char *out = NULL;

  GtkWidget *label;

  run_and_wait (window);
  g_assert_true (sp_test_wait_for (output_contains, &wait, 1000));
  out = output_text (window, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "");
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  /* Shown in the error colour, and named for screen readers. */
  label = find_label (sp_window_get_exec_panel (window), "stderr");
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "oops");
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                       "Standard error");
  close_window_gone (window);
}

static void
test_stop (void)
{
  SpWindow *window = open_window ("while True: pass\n");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000));
  g_usleep (200 * 1000);
  g_assert_true (sp_window_get_running (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 10000));
  close_window_gone (window);
}

static void
test_input (void)
{
  SpWindow *window = open_window ("name = input('name? ')\nprint('hello', name)\n");
  SpExecPanel *panel = SP_EXEC_PANEL (sp_window_get_exec_panel (window));
  GtkEntry *entry = sp_exec_panel_get_input_entry (panel);
  OutputWait wait = { window, SP_OUTPUT_STDOUT, "hello Ada" };

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000));
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (entry)));
  gtk_editable_set_text (GTK_EDITABLE (entry), "Ada");
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (sp_test_wait_for (output_contains, &wait, 10000));
  g_assert_true (sp_test_wait_for (is_idle, window, 10000));
  close_window_gone (window);
}

static GtkWidget *
find_picture (GtkWidget *widget)
{
  if (GTK_IS_PICTURE (widget) && gtk_picture_get_paintable (GTK_PICTURE (widget)) != NULL)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_picture (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_picture (gpointer data)
{
  return find_picture (data) != NULL;
}

/* The seeds' bar chart: plt.show() in a snippet becomes a picture in the
 * panel, with no setup in the snippet and no display for the program. */
static void
test_plot_inline (void)
{
  SpWindow *window = open_window ("import matplotlib.pyplot as plt\n"
                                  "plt.bar([1, 2, 3], [10, 20, 30])\nplt.show()\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *picture;
  GdkPaintable *paintable;

  run_and_wait (window);
  g_assert_true (sp_test_wait_for (has_picture, panel, 5000));
  picture = find_picture (panel);
  paintable = gtk_picture_get_paintable (GTK_PICTURE (picture));
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (paintable), ==, 640);
  g_assert_cmpint (gdk_paintable_get_intrinsic_height (paintable), ==, 480);
  gtk_test_accessible_assert_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                       "Plot 1");
  close_window_gone (window);
}

static GtkWidget *find_label_prefix (GtkWidget *widget, const char *prefix);
static GtkWidget *
find_picture_labelled (GtkWidget *widget, const char *label)
{
  if (GTK_IS_PICTURE (widget) && gtk_picture_get_paintable (GTK_PICTURE (widget)) != NULL
      && g_strcmp0 (gtk_picture_get_alternative_text (GTK_PICTURE (widget)), label) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_picture_labelled (child, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

typedef struct
{
  GtkWidget *panel;
  const char *label;
} PictureWait;

static gboolean
has_picture_labelled (gpointer data)
{
  PictureWait *wait = data;

  return find_picture_labelled (wait->panel, wait->label) != NULL;
}

/* A PNG the snippet saves itself is shown named as its file; the figure
 * plt.show() shows is a plot. */
static void
test_saved_png_named (void)
{
  SpWindow *window = open_window ("import matplotlib.pyplot as plt\n"
                                  "plt.plot([1, 2, 3])\nplt.savefig('chart.png')\nplt.close()\n"
                                  "plt.bar([1, 2], [3, 4])\nplt.show()\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  PictureWait chart = { panel, "chart.png" }, plot = { panel, "Plot 1" };

  run_and_wait (window);
  g_assert_true (sp_test_wait_for (has_picture_labelled, &chart, 10000));
  g_assert_true (sp_test_wait_for (has_picture_labelled, &plot, 10000));
  close_window_gone (window);
}

static gboolean
has_cannot_show (gpointer data)
{
  return find_label_prefix (data, "Cannot show this image") != NULL;
}

/* A file that claims to be a PNG (valid signature and header) but ends
 * early is decoded in the helper, which refuses it: the row says so, the
 * real plot beside it still shows, and the app runs on. */
static void
test_broken_image (void)
{
  SpWindow *window = open_window (
    "import struct, zlib\n"
    "ihdr = struct.pack('>IIBBBBB', 64, 64, 8, 6, 0, 0, 0)\n"
    "chunk = struct.pack('>I', 13) + b'IHDR' + ihdr\n"
    "chunk += struct.pack('>I', zlib.crc32(b'IHDR' + ihdr))\n"
    "open('broken.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk + b'\\0' * 40)\n"
    "import matplotlib.pyplot as plt\n"
    "plt.plot([1, 2, 3])\nplt.show()\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *picture;
  OutputWait wait = { window, SP_OUTPUT_STDOUT, "after" };

  run_and_wait (window);
  g_assert_true (sp_test_wait_for (has_cannot_show, panel, 10000));
  g_assert_true (sp_test_wait_for (has_picture, panel, 10000));
  picture = find_picture (panel);
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (
                     gtk_picture_get_paintable (GTK_PICTURE (picture))),
                   ==, 640);
  /* The app is fine: the next run works. */
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), "print('after')\n",
                            -1);
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (output_contains, &wait, 2000));
  close_window_gone (window);
}

static GtkWidget *
find_button_icon (GtkWidget *widget, const char *icon)
{
  if (GTK_IS_BUTTON (widget)
      && g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (widget)), icon) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button_icon (child, icon);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
buffer_has_text (gpointer data)
{
  return gtk_text_buffer_get_char_count (GTK_TEXT_BUFFER (sp_window_get_buffer (data))) > 0;
}

/* A file's language is the runner's call, from the extensions its ready
 * event lists: a .bash and an .mjs file run as bash and node (as Python
 * both are syntax errors). */
static void
test_language_from_runner (void)
{
  static const struct
  {
    const char *name, *code, *expect;
  } cases[] = {
    { "greet.bash", "echo \"from-$((6 * 7))\"\n", "from-42" },
    { "greet.mjs", "console.log(`from-${6 * 7}`)\n", "from-42" },
  };
  g_autofree char *dir = g_dir_make_tmp ("sandpad-lang-XXXXXX", NULL);

  g_assert_nonnull (dir);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (dir, cases[i].name, NULL);
      g_autoptr (GFile) file = g_file_new_for_path (path);
      SpWindow *window = open_window ("");
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      g_assert_true (g_file_set_contents (path, cases[i].code, -1, NULL));
      sp_window_load_file (window, file);
      g_assert_true (sp_test_wait_for (buffer_has_text, window, 5000));
      run_and_wait (window);
      out = output_text (window, SP_OUTPUT_STDOUT);
      err = output_text (window, SP_OUTPUT_STDERR);
      g_assert_nonnull (strstr (out, cases[i].expect));
      g_assert_cmpstr (err, ==, "");
      close_window_gone (window);
      g_unlink (path);
    }
  g_rmdir (dir);
  /* Opening a file chose its language for the next window too: back to
   * Python for the tests after this one. */
  g_settings_set_string (sp_application_get_settings (app), "last-language", "python");
}

/* A failing run marks its line, leaving the cursor where it was (a person
 * may be typing there: test-error-caret), and a frame of the error moves
 * the cursor there. */
static void
test_error_points_at_line (void)
{
  SpWindow *window = open_window ("def f():\n    return 1 / 0\n\nf()\n");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *button;
  GtkTextIter start;
  g_autofree char *marked = NULL;

  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  run_and_wait (window);
  marked = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (marked, ==, "2");
  g_assert_cmpint (cursor_line (window), ==, 1);
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  /* The frame "Line 4, in <module>" is a button: click it. */
  button = find_button (sp_window_get_exec_panel (window), "Line 4, in <module>");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  g_assert_cmpint (cursor_line (window), ==, 4);
  close_window_gone (window);
}

/* Run Selection runs only the selected lines, and an error in them points
 * at the editor's line, not the selection's. */
static void
test_run_selection (void)
{
  SpWindow *window = open_window ("print('first')\nprint('second')\nx = 1 / 0\nprint('last')\n");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;
  g_autofree char *out = NULL;
  g_autofree char *marked = NULL;

  gtk_text_buffer_get_iter_at_line (buffer, &start, 1);
  gtk_text_buffer_get_iter_at_line_offset (buffer, &end, 2, 3);
  gtk_text_buffer_select_range (buffer, &start, &end);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run-selection", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  out = output_text (window, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "second\n");
  marked = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (marked, ==, "3");
  close_window_gone (window);
}

static GtkWidget *
find_label_text (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label_text (child, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_label_prefix (GtkWidget *widget, const char *prefix)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget)
      && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), prefix))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label_prefix (child, prefix);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* A \r progress loop ends as one line; a coloured line shows its text in
 * colour, without the escape codes. */
static void
test_progress_and_colour (void)
{
  SpWindow *window = open_window ("import sys, time\n"
                                  "for i in range(0, 101, 20):\n"
                                  "    sys.stdout.write(f'\\r{i:3d}%')\n"
                                  "    sys.stdout.flush()\n"
                                  "    time.sleep(0.02)\n"
                                  "print()\n"
                                  "print('\\033[31mred\\033[0m')\n");
  g_autofree char *out = NULL;
  GtkWidget *label;

  run_and_wait (window);
  out = output_text (window, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "100%\n\033[31mred\033[0m\n");
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  /* One row per line: the progress line, then the coloured one. */
  g_assert_nonnull (find_label_text (sp_window_get_exec_panel (window), "100%"));
  label = find_label_text (sp_window_get_exec_panel (window), "red");
  g_assert_nonnull (label);
  g_assert_true (gtk_label_get_use_markup (GTK_LABEL (label)));
  close_window_gone (window);
}

/* Created files are listed with a preview: CSV as a table, text as its
 * first lines. */
static void
test_created_files (void)
{
  SpWindow *window = open_window ("open('data.csv', 'w').write('name,score\\nada,3\\n')\n"
                                  "open('notes.txt', 'w').write('line one\\nline two\\n');\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);

  run_and_wait (window);
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_nonnull (find_label_text (panel, "score"));
  g_assert_nonnull (find_label_text (panel, "ada"));
  g_assert_nonnull (find_label_text (panel, "line one\nline two\n"));
  g_assert_nonnull (find_label_text (panel, "data.csv · 17 bytes · text/csv"));
  close_window_gone (window);
}

/* Files and plots come in the order the run made them, after the text
 * written before them (a few ms before: output is ordered by when the
 * runner read it). */
static void
test_files_in_order (void)
{
  SpWindow *window = open_window ("import time\n"
                                  "import matplotlib.pyplot as plt\n"
                                  "print('start')\n"
                                  "time.sleep(0.05)\n"
                                  "open('zz-first.txt', 'w').write('1\\n')\n"
                                  "time.sleep(0.05)\n"
                                  "plt.plot([1, 2, 3])\nplt.show()\n"
                                  "time.sleep(0.05)\n"
                                  "open('aa-last.txt', 'w').write('2\\n');\n");
  GListModel *model;
  const char *expected[][2] = { { "text", "start\n" },
                                { "file", "zz-first.txt" },
                                { "image", "Plot 1" },
                                { "file", "aa-last.txt" } };

  run_and_wait (window);
  model = panel_output (window);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      SpOutputKind kind = sp_output_item_get_kind (item);
      const char *what = kind == SP_OUTPUT_STDOUT  ? "text"
                         : kind == SP_OUTPUT_FILE  ? "file"
                         : kind == SP_OUTPUT_IMAGE ? "image"
                                                   : "other";
      g_assert_cmpstr (what, ==, expected[i][0]);
      g_assert_cmpstr (kind == SP_OUTPUT_STDOUT ? sp_output_item_get_text (item)
                                                : sp_output_item_get_label (item),
                       ==, expected[i][1]);
    }
  close_window_gone (window);
}

/* A run's rich results (issue 25): a display()ed PIL image and a LaTeX
 * formula (rendered to PNG by the runner's prelude) show as images, and
 * the last expression's value as text, each in its place among the prints. */
static void
test_display_results (void)
{
  SpWindow *window = open_window ("from PIL import Image\n"
                                  "print('a')\n"
                                  "display(Image.new('RGB', (8, 8), 'red'))\n"
                                  "class F:\n"
                                  "    def __repr__(self): return 'F'\n"
                                  "    def _repr_latex_(self): return r'$x^2$'\n"
                                  "print('b')\n"
                                  "display(F())\n"
                                  "6 * 7\n");
  GListModel *model;
  g_autoptr (GString) seen = g_string_new (NULL);

  run_and_wait (window);
  model = panel_output (window);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      SpOutputKind kind = sp_output_item_get_kind (item);

      if (kind == SP_OUTPUT_STDOUT)
        g_string_append (seen, sp_output_item_get_text (item));
      else if (kind == SP_OUTPUT_IMAGE)
        g_string_append_printf (seen, "[%s]", sp_output_item_get_label (item));
      else
        g_string_append (seen, "[other]");
    }
  g_assert_cmpstr (seen->str, ==, "a\n[Result 1]b\n[Result 2]42\n");
  /* Decoded by the sandboxed helper from the window's own copy. */
  g_assert_true (sp_test_wait_for (has_picture, sp_window_get_exec_panel (window), 5000));
  GtkWidget *picture = find_picture (sp_window_get_exec_panel (window));
  GdkPaintable *paintable = gtk_picture_get_paintable (GTK_PICTURE (picture));
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (paintable), ==, 8);
  close_window_gone (window);
}

/* Each plot shows where plt.show() was called among what the program
 * printed (the runner's times of output and files), not after it all; and
 * only as its picture: the chart's data the runner sends beside it (for
 * assistants, SP_DISPLAY_CHART_MIME) adds no line. */
static void
test_output_in_order (void)
{
  SpWindow *window = open_window ("import matplotlib.pyplot as plt\n"
                                  "print('a')\nplt.plot([1, 2])\nplt.show()\n"
                                  "print('b')\nplt.plot([2, 1])\nplt.show()\n"
                                  "print('done')\n");
  GListModel *model;
  const char *expected[] = { "a\n", "Plot 1", "b\n", "Plot 2", "done\n" };

  run_and_wait (window);
  model = panel_output (window);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      gboolean text = sp_output_item_get_kind (item) == SP_OUTPUT_STDOUT;

      g_assert_cmpstr (text ? sp_output_item_get_text (item) : sp_output_item_get_label (item), ==,
                       expected[i]);
    }
  close_window_gone (window);
}

static gboolean
has_n_windows (gpointer data)
{
  return g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)))
         == GPOINTER_TO_UINT (data);
}

/* Open on a created text file gives an untitled copy in a new window. */
static void
test_open_created_file (void)
{
  SpWindow *window = open_window ("open('notes.txt', 'w').write('kept\\n');\n");
  guint before;
  GtkWidget *button;
  SpWindow *copy;
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  run_and_wait (window);
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  before = g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));
  button = find_button (sp_window_get_exec_panel (window), "Open");
  g_assert_nonnull (button);
  g_signal_emit_by_name (button, "clicked");
  g_assert_true (sp_test_wait_for (has_n_windows, GUINT_TO_POINTER (before + 1), 5000));
  copy = SP_WINDOW (gtk_application_get_windows (GTK_APPLICATION (app))->data);
  g_assert_true (copy != window);
  gtk_text_buffer_get_bounds (GTK_TEXT_BUFFER (sp_window_get_buffer (copy)), &start, &end);
  text = gtk_text_buffer_get_text (GTK_TEXT_BUFFER (sp_window_get_buffer (copy)), &start, &end,
                                   FALSE);
  /* The file's final line break is the editor's implicit one. */
  g_assert_cmpstr (text, ==, "kept");
  close_window_gone (copy);
  close_window_gone (window);
}

static gboolean
has_dialog (gpointer data)
{
  return sp_ui_test_find_alert (NULL) != NULL;
}

static void
test_unsaved_close_asks (void)
{
  SpWindow *window = open_window ("print('keep me')\n");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  g_assert_true (gtk_text_buffer_get_modified (buffer));
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (has_dialog, NULL, 2000));
  /* The window and its text are still there. */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  g_assert_cmpstr (text, ==, "print('keep me')\n");
  /* Cancel, as Escape does: an AdwAlertDialog (libadwaita 1.5) lives in
   * the window and takes the window's next close for its own. */
  sp_ui_test_alert_respond (sp_ui_test_find_alert (GTK_WINDOW (window)), "cancel");
  close_window_gone (window);
}

/* The window as GTK draws it, once it has drawn. */
static GdkTexture *
render (SpWindow *window)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  g_autoptr (GskRenderNode) node = NULL;
  int width = 0, height = 0;

  /* On a loaded machine the first frame can come late: wait for the
   * window to have drawn, then for the snapshot to have content. */
  for (int attempt = 0; node == NULL && attempt < 50; attempt++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();

      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      width = gtk_widget_get_width (GTK_WIDGET (window));
      height = gtk_widget_get_height (GTK_WIDGET (window));
      gdk_paintable_snapshot (paintable, snapshot, width, height);
      node = gtk_snapshot_free_to_node (snapshot);
    }
  g_assert_cmpint (width, >, 0);
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node, NULL);
}

/* The first widget of this type under widget, depth first. */
static GtkWidget *
find_of_type (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_of_type (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The window after a run with output and an error, rendered and saved as
 * the test artifact and the README's screenshot. */
static GdkTexture *
screenshot_after_run (SpWindow **window_out)
{
  SpWindow *window = open_window ("import math\n\nfor n in (1, 2, 3):\n"
                                  "    print(f'sqrt({n}) = {math.sqrt(n):.4f}')\n"
                                  "print(undefined_name)\n");
  OutputWait wait = { window, SP_OUTPUT_STDERR, "NameError" };
  GdkTexture *texture;
  g_autofree char *path = NULL;
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 560);
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (output_contains, &wait, 2000));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);

  texture = render (window);
  path = g_build_filename (dir ? dir : g_get_tmp_dir (), "sandpad-window.png", NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
  *window_out = window;
  return texture;
}

/* A widget's rectangle in the rendered window's pixels, checked to lie
 * inside it and to be no sliver. */
static graphene_rect_t
drawn_bounds (GtkWidget *widget, SpWindow *window, GdkTexture *texture)
{
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (window));
  graphene_rect_t b;

  g_assert_true (gtk_widget_compute_bounds (widget, GTK_WIDGET (window), &b));
  graphene_rect_scale (&b, scale, scale, &b);
  g_assert_cmpfloat (b.origin.x, >=, 0);
  g_assert_cmpfloat (b.origin.y, >=, 0);
  g_assert_cmpfloat (b.origin.x + b.size.width, <=, gdk_texture_get_width (texture));
  g_assert_cmpfloat (b.origin.y + b.size.height, <=, gdk_texture_get_height (texture));
  g_assert_cmpfloat (b.size.width, >=, 200);
  g_assert_cmpfloat (b.size.height, >=, 100);
  return b;
}

/* How many pixels of the rectangle differ from its most common colour,
 * its background: text drawn there makes thousands, a blank area none. */
static gsize
pixels_unlike_background (const guchar *data, int stride, const graphene_rect_t *r)
{
  g_autoptr (GHashTable) counts = g_hash_table_new (NULL, NULL);
  int x0 = (int) r->origin.x, y0 = (int) r->origin.y;
  int x1 = (int) (r->origin.x + r->size.width), y1 = (int) (r->origin.y + r->size.height);
  guint most = 0;

  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      {
        guint32 px;
        guint n;

        memcpy (&px, data + (gsize) y * stride + x * 4, 4);
        n = GPOINTER_TO_UINT (g_hash_table_lookup (counts, GUINT_TO_POINTER (px))) + 1;
        g_hash_table_insert (counts, GUINT_TO_POINTER (px), GUINT_TO_POINTER (n));
        most = MAX (most, n);
      }
  return (gsize) (x1 - x0) * (y1 - y0) - most;
}

/* The pixels drawn over the editor's and the panel's backgrounds in a
 * rendering of window, whose bounds in it are checked on the way. */
static void
drawn_pixels (SpWindow *window, GdkTexture *texture, gsize *editor_out, gsize *panel_out)
{
  int scale = gtk_widget_get_scale_factor (GTK_WIDGET (window));
  int width = gdk_texture_get_width (texture), height = gdk_texture_get_height (texture);
  GtkWidget *editor = find_of_type (GTK_WIDGET (window), GTK_SOURCE_TYPE_VIEW);
  g_autofree guchar *data = g_malloc ((gsize) width * 4 * height);
  graphene_rect_t e, p;

  g_assert_cmpint (width, ==, gtk_widget_get_width (GTK_WIDGET (window)) * scale);
  g_assert_cmpint (height, ==, gtk_widget_get_height (GTK_WIDGET (window)) * scale);
  g_assert_nonnull (editor);
  e = drawn_bounds (editor, window, texture);
  p = drawn_bounds (sp_window_get_exec_panel (window), window, texture);
  g_assert_false (graphene_rect_intersection (&e, &p, NULL));
  gdk_texture_download (texture, data, (gsize) width * 4);
  *editor_out = pixels_unlike_background (data, width * 4, &e);
  *panel_out = pixels_unlike_background (data, width * 4, &p);
}

/* The screenshot's structure, which holds whatever GTK, libadwaita and
 * fonts draw it: the whole window rendered, the editor and the output
 * panel in it without overlapping, and in each the text drawn that an
 * empty window (the control) does not have. */
static void
test_screenshot (void)
{
  SpWindow *window = open_window ("");
  g_autoptr (GdkTexture) empty = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  gsize editor_empty, panel_empty, editor_full, panel_full;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 560);
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  empty = render (window);
  drawn_pixels (window, empty, &editor_empty, &panel_empty);
  close_window_gone (window);

  texture = screenshot_after_run (&window);
  drawn_pixels (window, texture, &editor_full, &panel_full);
  g_test_message ("drawn pixels: editor %" G_GSIZE_FORMAT " (empty %" G_GSIZE_FORMAT "), "
                  "panel %" G_GSIZE_FORMAT " (empty %" G_GSIZE_FORMAT ")",
                  editor_full, editor_empty, panel_full, panel_empty);
  /* Five lines of code and four of output and a traceback are thousands
   * of pixels; a cursor or a focus ring are a few hundred. */
  g_assert_cmpuint (editor_full, >, editor_empty + 1000);
  g_assert_cmpuint (panel_full, >, panel_empty + 1000);
  close_window_gone (window);
}

/* The screenshot against tests/ui/reference/sandpad-window.png, pixel by
 * pixel. That reference was drawn by Debian 12's GTK, libadwaita and
 * fontconfig; any other version of them draws other pixels, so this is
 * opt-in (SANDPAD_PIXEL_TESTS=1), for the machine the reference matches.
 * The status line holds timings that differ from run to run, so a few
 * percent of the pixels may differ; a layout change moves far more. */
static void
test_screenshot_pixels (void)
{
  const char *ref_dir = g_getenv ("SANDPAD_REFERENCE_DIR");
  g_autofree char *ref_path = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autoptr (GdkTexture) reference = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree guchar *a = NULL, *b = NULL;
  SpWindow *window = NULL;
  int width, height;
  gsize differing = 0;

  if (g_strcmp0 (g_getenv ("SANDPAD_PIXEL_TESTS"), "1") != 0)
    {
      g_test_skip ("pixels against a Debian 12 rendering: other GTK, libadwaita or fontconfig "
                   "versions differ; set SANDPAD_PIXEL_TESTS=1 to compare");
      return;
    }
  ref_path = ref_dir ? g_build_filename (ref_dir, "sandpad-window.png", NULL) : NULL;
  if (ref_path == NULL || !g_file_test (ref_path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no reference image (SANDPAD_REFERENCE_DIR/sandpad-window.png)");
      return;
    }
  texture = screenshot_after_run (&window);
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  reference = gdk_texture_new_from_filename (ref_path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (gdk_texture_get_width (reference), ==, width);
  g_assert_cmpint (gdk_texture_get_height (reference), ==, height);
  a = g_malloc ((gsize) width * height * 4);
  b = g_malloc ((gsize) width * height * 4);
  gdk_texture_download (texture, a, (gsize) width * 4);
  gdk_texture_download (reference, b, (gsize) width * 4);
  for (gsize i = 0; i < (gsize) width * height; i++)
    for (int c = 0; c < 4; c++)
      if (ABS ((int) a[i * 4 + c] - (int) b[i * 4 + c]) > 48)
        {
          differing++;
          break;
        }
  g_test_message ("%" G_GSIZE_FORMAT " of %d pixels differ from the reference", differing,
                  width * height);
  g_assert_cmpuint (differing, <, (gsize) width * height / 25);
  close_window_gone (window);
}

/* One bar of a bar chart as drawn: the columns it spans and its top and
 * bottom rows, in the window's rendered pixels. */
typedef struct
{
  int x0, x1, top, bottom;
} DrawnBar;

/* Whether an opaque pixel of a downloaded texture (GDK_MEMORY_DEFAULT:
 * B, G, R, A in memory) is about the colour r, g, b; the tolerance takes
 * in scaling, not a different colour. */
static gboolean
pixel_near (const guchar *px, int r, int g, int b)
{
  return px[3] == 255 && ABS (px[2] - r) <= 12 && ABS (px[1] - g) <= 12 && ABS (px[0] - b) <= 12;
}

/* Scans the columns x0..x1, rows y0..y1 for pixels of matplotlib's first
 * colour (#1f77b4, the bars) and groups adjacent columns into bars.
 * Returns how many were found (at most max are filled in). */
static int
find_drawn_bars (const guchar *data, gsize stride, int x0, int y0, int x1, int y1, DrawnBar *bars,
                 int max)
{
  int n = 0;
  gboolean in_bar = FALSE;

  for (int x = x0; x < x1; x++)
    {
      int top = -1, bottom = -1;

      for (int y = y0; y < y1; y++)
        if (pixel_near (data + y * stride + x * 4, 0x1f, 0x77, 0xb4))
          {
            if (top < 0)
              top = y;
            bottom = y;
          }
      if (top < 0)
        in_bar = FALSE;
      else if (!in_bar)
        {
          if (n < max)
            bars[n] = (DrawnBar){ x, x, top, bottom };
          n++;
          in_bar = TRUE;
        }
      else if (n <= max)
        {
          bars[n - 1].x1 = x;
          bars[n - 1].top = MIN (bars[n - 1].top, top);
          bars[n - 1].bottom = MAX (bars[n - 1].bottom, bottom);
        }
    }
  return n;
}

/* The seeds' bar chart, drawn for the README. matplotlib's exact pixels
 * are not ours to pin, but what the window shows must be that chart:
 * inside the picture's bounds, three bars in the plot's colour, side by
 * side, equally wide, on one baseline, 10 : 20 : 30 tall, on the figure's
 * white, which keeps the figure's 640 x 480 proportions. A blank, cut,
 * stretched or wrong picture fails. */
static void
test_plot_screenshot (void)
{
  SpWindow *window = open_window ("import matplotlib.pyplot as plt\n\n"
                                  "plt.bar(['a', 'b', 'c'], [10, 20, 30])\n"
                                  "plt.title('A bar chart of [10, 20, 30]')\nplt.show()\n");
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  g_autofree guchar *data = NULL;
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  GtkWidget *picture;
  graphene_rect_t bounds;
  DrawnBar bars[3];
  int scale, width, height, x0, y0, x1, y1;
  int wx0 = G_MAXINT, wy0 = G_MAXINT, wx1 = -1, wy1 = -1;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 620);
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (has_picture, sp_window_get_exec_panel (window), 5000));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  texture = render (window);
  path = g_build_filename (dir ? dir : g_get_tmp_dir (), "sandpad-plot.png", NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));

  /* The picture's place in the rendered window, whole and not tiny. */
  picture = find_picture (sp_window_get_exec_panel (window));
  g_assert_true (gtk_widget_compute_bounds (picture, GTK_WIDGET (window), &bounds));
  scale = gtk_widget_get_scale_factor (GTK_WIDGET (window));
  width = gdk_texture_get_width (texture);
  height = gdk_texture_get_height (texture);
  x0 = (int) (bounds.origin.x * scale);
  y0 = (int) (bounds.origin.y * scale);
  x1 = (int) ((bounds.origin.x + bounds.size.width) * scale);
  y1 = (int) ((bounds.origin.y + bounds.size.height) * scale);
  g_assert_cmpint (x0, >=, 0);
  g_assert_cmpint (y0, >=, 0);
  g_assert_cmpint (x1, <=, width);
  g_assert_cmpint (y1, <=, height);
  g_assert_cmpint (x1 - x0, >=, 160);
  data = g_malloc ((gsize) width * 4 * height);
  gdk_texture_download (texture, data, (gsize) width * 4);

  /* The figure's white (exactly white: the panel around it is a near
   * white): its extent has the figure's 4 : 3 proportions. */
  for (int y = y0; y < y1; y++)
    for (int x = x0; x < x1; x++)
      if (memcmp (data + (gsize) y * width * 4 + x * 4, "\xff\xff\xff\xff", 4) == 0)
        {
          wx0 = MIN (wx0, x), wx1 = MAX (wx1, x);
          wy0 = MIN (wy0, y), wy1 = MAX (wy1, y);
        }
  g_assert_cmpint (wx1, >, wx0);
  g_assert_cmpfloat_with_epsilon ((double) (wx1 - wx0 + 1) / (wy1 - wy0 + 1), 640.0 / 480.0, 0.04);

  /* The bars: three, left to right 10 : 20 : 30, same width, one baseline. */
  g_assert_cmpint (find_drawn_bars (data, (gsize) width * 4, x0, y0, x1, y1, bars, 3), ==, 3);
  for (int i = 0; i < 3; i++)
    {
      double ratio = (double) (bars[i].bottom - bars[i].top + 1)
                     / (bars[0].bottom - bars[0].top + 1);

      g_assert_cmpint (bars[0].bottom - bars[0].top, >=, 10);
      g_assert_cmpfloat_with_epsilon (ratio, i + 1.0, 0.1 * (i + 1));
      g_assert_cmpint (ABS ((bars[i].x1 - bars[i].x0) - (bars[0].x1 - bars[0].x0)), <=, 2);
      g_assert_cmpint (ABS (bars[i].bottom - bars[0].bottom), <=, 2);
    }
  close_window_gone (window);
}

/* ---- floods and following ---- */

static SpTranscript *
transcript_of (SpWindow *window)
{
  return sp_exec_panel_get_transcript (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

static gboolean
shown (gpointer data)
{
  SpWindow *window = data;

  return !sp_window_get_running (window) && !sp_transcript_get_busy (transcript_of (window));
}

static char *
status_text (SpWindow *window)
{
  GtkWidget *label = find_label (sp_window_get_exec_panel (window), "sp-status");

  g_assert_nonnull (label);
  return g_strdup (gtk_label_get_text (GTK_LABEL (label)));
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
    g_main_context_iteration (NULL, TRUE);
  ticks = sp_stall_meter_get_ticks (meter);
  while (sp_stall_meter_get_ticks (meter) == ticks)
    g_main_context_iteration (NULL, TRUE);
}

/* The control for a flood's stall figures (sp-ui-stall.h): the window
 * runs 10^5 lines of print(i), which the panel publishes a frame at a
 * time as it does a flood, from Run to all shown. The window's code is
 * put back. */
static SpStall
control_stall (SpWindow *window)
{
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  g_autofree char *code = NULL;
  GtkTextIter start, end;
  SpStall stall;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  code = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  gtk_text_buffer_set_text (buffer, "for i in range(10**5):\n    print(i)\n", -1);
  spin_and_settle (300);
  sp_stall_meter_reset (meter);
  run_and_wait (window);
  g_assert_true (sp_test_wait_for (shown, window, 60000));
  spin_and_settle (300);
  stall = sp_stall_take (meter);
  gtk_text_buffer_set_text (buffer, code, -1);
  return stall;
}

/* Since the meter's reset, the main loop was held no longer than for the
 * control: the old panel froze for many seconds (the benchmark has the
 * figures). */
static void
assert_responsive (SpStallMeter *meter, const char *what, const SpStall *control)
{
  SpStall stall = sp_stall_take (meter);

  sp_stall_assert_within (what, &stall, control);
}

static GListModel *
last_text_row_model (SpWindow *window, SpOutputItem **last)
{
  GListModel *model = panel_output (window);
  guint n = g_list_model_get_n_items (model);

  g_assert_cmpuint (n, >, 0);
  *last = g_list_model_get_item (model, n - 1);
  return model;
}

/* About 10 MB of output (the limit raised to 16 MiB): the window keeps
 * responding (the app's own stall meter, against control_stall's), the
 * elapsed time ticks while it streams, the panel keeps the tail and says
 * how much it does not show, and Clear gives the memory back. */
static void
test_flood (void)
{
  SpWindow *window = open_window ("import time\n"
                                  "for i in range(1400000):\n"
                                  "    print(i)\n"
                                  "    if i == 100000: time.sleep(0.5)\n");
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  GSettings *settings = sp_application_get_settings (app);
  g_autoptr (SpOutputItem) last = NULL;
  g_autofree char *status1 = NULL, *status2 = NULL, *expected = NULL;
  const char *hidden;
  guint64 hidden_lines, n;
  SpStall control;

  g_assert_nonnull (meter);
  g_settings_set_uint (settings, "output-limit-mib", 16);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  control = control_stall (window);
  spin_and_settle (300);
  sp_stall_meter_reset (meter);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000));
  /* The elapsed time ticks while output pours in. */
  status1 = status_text (window);
  spin_and_settle (400);
  status2 = status_text (window);
  g_assert_true (sp_window_get_running (window));
  g_assert_cmpstr (status1, !=, status2);
  g_assert_true (sp_test_wait_for (shown, window, 120000));
  spin_and_settle (300);
  assert_responsive (meter, "10 MB of output", &control);

  /* The tail, its last line last; the rest counted and said. */
  last_text_row_model (window, &last);
  g_assert_cmpstr (sp_output_item_get_text (last), ==, "1399999\n");
  hidden_lines = sp_output_model_get_hidden_lines (SP_OUTPUT_MODEL (panel_output (window)));
  n = g_list_model_get_n_items (panel_output (window));
  g_assert_cmpuint (hidden_lines + n, ==, 1400000);
  hidden = sp_transcript_get_hidden_text (transcript_of (window));
  expected = g_strdup_printf ("The first %" G_GUINT64_FORMAT " lines are not shown", hidden_lines);
  g_assert_cmpstr (hidden, ==, expected);
  g_assert_cmpuint (sp_output_model_get_total_bytes (SP_OUTPUT_MODEL (panel_output (window))), >,
                    10 * 1000 * 1000);

  /* Clear empties the panel and hides the bar. */
  g_assert_true (
    gtk_widget_activate_action (sp_window_get_exec_panel (window), "panel.clear", NULL));
  g_assert_cmpuint (g_list_model_get_n_items (panel_output (window)), ==, 0);
  g_assert_null (sp_transcript_get_hidden_text (transcript_of (window)));
  g_settings_reset (settings, "output-limit-mib");
  close_window_gone (window);
}

/* ---- the rows in sight during a flood ---- */

typedef struct
{
  SpWindow *window;
  GtkWidget *list;
  /* Each row's label and the text it had at the last frame. */
  GHashTable *texts;
  guint frames_checked;
  guint frames_full;
  guint frames_out_of_order;
  /* Frames with a row in sight left blank while its text waits. */
  guint frames_blank;
  guint changed_in_sight;
  guint changed_out_of_sight;
  char *first_bad;
  /* The status line ("Running… 1.2 s") as painted. */
  char *status;
  gint64 status_at;
  gint64 status_longest;
} Sight;

static GtkWidget *
find_list_view (GtkWidget *widget)
{
  if (GTK_IS_LIST_VIEW (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_list_view (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

typedef struct
{
  float y;
  gint64 value;
} ShownRow;

static int
by_y (gconstpointer a, gconstpointer b)
{
  const ShownRow *x = a, *y = b;

  return x->y < y->y ? -1 : x->y > y->y;
}

/* After each frame of the flooding window: the rows in sight show
 * consecutive lines of `print(i)` (none shows text left over from an
 * earlier batch), and which rows' text changed, in sight or not. */
static void
on_flood_painted (GdkFrameClock *clock, Sight *sight)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (ShownRow));
  GtkWidget *status = find_label (sp_window_get_exec_panel (sight->window), "sp-status");
  gint64 now = g_get_monotonic_time ();
  GListModel *output = panel_output (sight->window);
  gboolean count;

  if (!sp_window_get_running (sight->window))
    return;
  /* Rows change out of sight while the list grows (the list view recycles
   * them for new lines) and once when the hidden-lines bar appears; the
   * tail full, they are only rewritten in place. */
  if (SP_IS_OUTPUT_MODEL (output) && sp_output_model_get_truncated (SP_OUTPUT_MODEL (output)))
    sight->frames_full++;
  count = sight->frames_full > 3;
  if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (status)), sight->status) != 0)
    {
      g_free (sight->status);
      sight->status = g_strdup (gtk_label_get_text (GTK_LABEL (status)));
      sight->status_at = now;
    }
  sight->status_longest = MAX (sight->status_longest, now - sight->status_at);
  for (GtkWidget *row = gtk_widget_get_first_child (sight->list); row != NULL;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_widget_get_first_child (row);
      GtkWidget *label = box ? gtk_widget_get_first_child (box) : NULL;
      const char *text, *before;
      graphene_rect_t bounds;
      char *end;

      if (!GTK_IS_LABEL (label))
        continue;
      text = gtk_label_get_text (GTK_LABEL (label));
      before = g_hash_table_lookup (sight->texts, label);
      if (count && before != NULL && g_strcmp0 (before, text) != 0)
        {
          if (gtk_widget_get_mapped (label))
            sight->changed_in_sight++;
          else
            sight->changed_out_of_sight++;
        }
      g_hash_table_insert (sight->texts, label, g_strdup (text));
      if (gtk_widget_get_mapped (label) && text[0] != '\0'
          && gtk_widget_compute_bounds (label, sight->list, &bounds)
          && bounds.origin.y + bounds.size.height > 0
          && bounds.origin.y < gtk_widget_get_height (sight->list))
        {
          ShownRow shown = { bounds.origin.y, g_ascii_strtoll (text, &end, 10) };
          if (*end == '\0')
            g_array_append_val (rows, shown);
        }
      else if (gtk_widget_get_mapped (row) && !gtk_widget_get_child_visible (box)
               && gtk_widget_compute_bounds (row, sight->list, &bounds)
               && bounds.origin.y + bounds.size.height > 0
               && bounds.origin.y < gtk_widget_get_height (sight->list))
        {
          /* In sight but blank, its text waiting (sp-transcript.c): it
           * shows nothing, so nothing stale. */
          ShownRow blank = { bounds.origin.y, -1 };
          g_array_append_val (rows, blank);
        }
    }
  if (rows->len < 2)
    return;
  g_array_sort (rows, by_y);
  sight->frames_checked++;
  /* Each line is the one above it plus one, a blank row counting as a
   * line not shown. */
  gint64 last = -1;
  guint blanks = 0;
  gboolean blank_seen = FALSE;
  for (guint i = 0; i < rows->len; i++)
    {
      gint64 value = g_array_index (rows, ShownRow, i).value;
      if (value < 0)
        {
          blanks++;
          blank_seen = TRUE;
          continue;
        }
      if (last >= 0 && value != last + blanks + 1)
        {
          if (sight->first_bad == NULL)
            sight->first_bad = g_strdup_printf ("%" G_GINT64_FORMAT " above %" G_GINT64_FORMAT
                                                " (%u blank between)",
                                                last, value, blanks);
          sight->frames_out_of_order++;
          break;
        }
      last = value;
      blanks = 0;
    }
  if (blank_seen)
    sight->frames_blank++;
}

static gboolean
type_into (gpointer data)
{
  SpWindow *window = data;
  Frames *frames = g_object_get_data (G_OBJECT (window), "frames");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));

  gtk_text_buffer_insert_interactive_at_cursor (buffer, "x", -1, TRUE);
  if (frames->typed_at == 0)
    frames->typed_at = g_get_monotonic_time ();
  return G_SOURCE_CONTINUE;
}

static gboolean
painted_twice (gpointer data)
{
  Frames *f = data;

  return f->gaps->len >= 2;
}

static gboolean
stop_when_long (gpointer data)
{
  SpWindow *window = data;

  g_object_set_data (G_OBJECT (window), "stopped", GINT_TO_POINTER (1));
  gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL);
  return G_SOURCE_REMOVE;
}

/* One phase of test_flood_paints: the flooding window runs code while the
 * other is typed into, measured from both windows' frame clocks, until
 * all is shown (the run stopped after 20 s, so the test stays short on a
 * slow machine). */
typedef struct
{
  Frames flood_frames;
  Frames other_frames;
  Sight sight;
  double load;
  gboolean stopped;
} Phase;

static void
phase_run (Phase *phase, SpWindow *flooding, SpWindow *other, const char *code)
{
  GdkFrameClock *flood_clock = gtk_widget_get_frame_clock (GTK_WIDGET (flooding));
  GdkFrameClock *other_clock = gtk_widget_get_frame_clock (GTK_WIDGET (other));
  guint typist, stopper;

  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (flooding)), code, -1);
  frames_init (&phase->flood_frames);
  frames_init (&phase->other_frames);
  phase->sight = (Sight){ flooding };
  phase->sight.list = find_list_view (GTK_WIDGET (transcript_of (flooding)));
  phase->sight.texts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_assert_nonnull (phase->sight.list);
  g_object_set_data (G_OBJECT (other), "frames", &phase->other_frames);
  g_object_set_data (G_OBJECT (flooding), "stopped", NULL);
  g_signal_connect (flood_clock, "after-paint", G_CALLBACK (on_frame_painted),
                    &phase->flood_frames);
  g_signal_connect (other_clock, "after-paint", G_CALLBACK (on_frame_painted),
                    &phase->other_frames);
  g_signal_connect (flood_clock, "after-paint", G_CALLBACK (on_flood_painted), &phase->sight);
  phase->load = load_average ();
  frames_reset (&phase->flood_frames);
  frames_reset (&phase->other_frames);
  typist = g_timeout_add (150, type_into, other);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (flooding), "win.run", NULL));
  phase->sight.status_at = g_get_monotonic_time ();
  stopper = g_timeout_add (20000, stop_when_long, flooding);
  g_assert_true (sp_test_wait_for (shown, flooding, 60000));
  phase->stopped = g_object_get_data (G_OBJECT (flooding), "stopped") != NULL;
  if (!phase->stopped)
    g_source_remove (stopper);
  g_source_remove (typist);
  phase->load = MAX (phase->load, load_average ());
  g_signal_handlers_disconnect_by_func (flood_clock, on_flood_painted, &phase->sight);
  g_signal_handlers_disconnect_by_func (flood_clock, on_frame_painted, &phase->flood_frames);
  g_signal_handlers_disconnect_by_func (other_clock, on_frame_painted, &phase->other_frames);
  g_object_set_data (G_OBJECT (other), "frames", NULL);
}

static void
phase_clear (Phase *phase)
{
  frames_clear (&phase->flood_frames);
  frames_clear (&phase->other_frames);
  g_hash_table_unref (phase->sight.texts);
  g_free (phase->sight.status);
  g_free (phase->sight.first_bad);
}

static void
phase_report (const char *what, Phase *phase)
{
  g_test_message ("%s: %u frames; gap p95 %.1f ms, longest %.1f ms; other window: gap p95 "
                  "%.1f ms, key to paint p95 %.1f ms (%u keys); status line unchanged %.2f s at "
                  "most; work between frames p95 %.1f ms, most %.1f ms; load %.1f%s",
                  what, phase->flood_frames.gaps->len, percentile_ms (phase->flood_frames.gaps, 95),
                  percentile_ms (phase->flood_frames.gaps, 100),
                  percentile_ms (phase->other_frames.gaps, 95),
                  percentile_ms (phase->other_frames.keys, 95), phase->other_frames.keys->len,
                  phase->sight.status_longest / 1e6, percentile_ms (phase->flood_frames.works, 95),
                  percentile_ms (phase->flood_frames.works, 100), phase->load,
                  phase->stopped ? "; the run was stopped after 20 s" : "");
}

/* Both windows keep painting while one floods 3x10^6 lines (issue 30),
 * measured from the windows' frame clocks (after-paint), against a
 * control in the same test: the same windows, typed into the same way,
 * while the run prints a line every 50 ms for 3 s (sp-ui-stall.h: at most
 * SP_STALL_FACTOR times the control's figure, plus what the test held as
 * a fixed bound before, so a machine where the control is quick is held
 * to that, and a slower one gets room in proportion).
 *
 * Whatever the machine's load: the rows in sight always show consecutive
 * lines; the rows the list view keeps out of sight are not laid out again
 * for each batch (before, ~170 of its 200 rows were, on every batch: most
 * of a frame's layout), and the window's work between two frames (its own
 * CPU time; 95% of the time and at most) stays near the control's. On a
 * machine not loaded beyond twice its processors, what a person sees: 95%
 * of frame gaps and of typed characters' key-to-paint times, and the
 * longest the elapsed time stayed unchanged; under a heavier load those
 * are reported and the test skips, since other processes then hold the
 * CPU. The bench (stall-bench) prints the same figures against issue 30's
 * targets. The first control is of the measure itself: a main loop held
 * by 400 ms of work is a gap and a frame's work of that much. */
static void
test_flood_paints (void)
{
  SpWindow *flooding = open_window ("");
  SpWindow *other = open_window ("");
  GSettings *settings = sp_application_get_settings (app);
  Frames held;
  Phase control, flood;
  GdkFrameClock *flood_clock;
  double load;

  g_settings_set_uint (settings, "output-limit-mib", 64);
  gtk_window_set_default_size (GTK_WINDOW (flooding), 1000, 700);
  spin_and_settle (500);
  flood_clock = gtk_widget_get_frame_clock (GTK_WIDGET (flooding));
  g_assert_true (flood_clock != gtk_widget_get_frame_clock (GTK_WIDGET (other)));

  /* The measure's control, once the window paints. */
  frames_init (&held);
  g_signal_connect (flood_clock, "after-paint", G_CALLBACK (on_frame_painted), &held);
  g_assert_true (sp_test_wait_for (painted_twice, &held, 10000));
  frames_reset (&held);
  g_idle_add (burn_loop, GUINT_TO_POINTER (400));
  g_assert_true (sp_test_wait_for (painted_twice, &held, 10000));
  g_signal_handlers_disconnect_by_func (flood_clock, on_frame_painted, &held);
  g_test_message ("control, loop held by 400 ms of work: longest frame gap %.1f ms, "
                  "most work between frames %.1f ms",
                  percentile_ms (held.gaps, 100), percentile_ms (held.works, 100));
  g_assert_cmpfloat (percentile_ms (held.gaps, 100), >=, 390);
  g_assert_cmpfloat (percentile_ms (held.works, 100), >=, 390);
  frames_clear (&held);

  /* The app's control, then the flood, while the other window is typed
   * into. */
  phase_run (&control, flooding, other,
             "import time\n"
             "for i in range(60):\n"
             "    print(i, flush=True)\n"
             "    time.sleep(0.05)\n");
  phase_report ("control, a line every 50 ms", &control);
  phase_run (&flood, flooding, other, "for i in range(3 * 10**6):\n    print(i)\n");
  phase_report ("flood", &flood);
  g_test_message ("rows: %u frames checked (%u with the tail full), %u with rows in sight "
                  "out of order (first: %s), %u with a row in sight blank while its text "
                  "waited; with the tail full, labels changed in sight %u, out of sight %u",
                  flood.sight.frames_checked, flood.sight.frames_full,
                  flood.sight.frames_out_of_order,
                  flood.sight.first_bad ? flood.sight.first_bad : "none", flood.sight.frames_blank,
                  flood.sight.changed_in_sight, flood.sight.changed_out_of_sight);
  g_assert_cmpuint (flood.flood_frames.gaps->len, >, 20);
  g_assert_cmpuint (flood.sight.frames_checked, >, 10);
  g_assert_cmpuint (flood.sight.frames_out_of_order, ==, 0);
  g_assert_cmpuint (flood.sight.changed_in_sight, >, 0);
  g_assert_cmpuint (control.sight.frames_out_of_order, ==, 0);
#if !GTK_CHECK_VERSION(4, 12, 0)
  /* Rows out of sight wait for their text (sp_transcript_defer_rebind),
   * where it is safe: GTK 4.8's list view. */
  g_assert_cmpuint (flood.sight.changed_out_of_sight, <=, flood.sight.changed_in_sight / 10);
#endif
  sp_stall_assert_ms_within ("work between frames, p95",
                             percentile_ms (flood.flood_frames.works, 95),
                             percentile_ms (control.flood_frames.works, 95), 50);
  load = MAX (control.load, flood.load);
  if (load <= 2.0 * g_get_num_processors ())
    {
      /* The most of it too, but only here: it is the main loop's CPU
       * between two paints, and when other processes hold the CPU the
       * paints come further apart, so the output read between them (not
       * any one stall) adds up (155 ms against a bound of 152 once, at a
       * load of 6.7 on 2 processors). */
      sp_stall_assert_ms_within ("work between frames, most",
                                 percentile_ms (flood.flood_frames.works, 100),
                                 percentile_ms (control.flood_frames.works, 100), 100);
      sp_stall_assert_ms_within ("frame gap p95", percentile_ms (flood.flood_frames.gaps, 95),
                                 percentile_ms (control.flood_frames.gaps, 95), 100);
      sp_stall_assert_ms_within ("other window's frame gap p95",
                                 percentile_ms (flood.other_frames.gaps, 95),
                                 percentile_ms (control.other_frames.gaps, 95), 100);
      g_assert_cmpuint (flood.other_frames.keys->len, >, 10);
      g_assert_cmpuint (control.other_frames.keys->len, >, 10);
      sp_stall_assert_ms_within ("key to paint p95", percentile_ms (flood.other_frames.keys, 95),
                                 percentile_ms (control.other_frames.keys, 95), 100);
      sp_stall_assert_ms_within ("status line unchanged", flood.sight.status_longest / 1e3,
                                 control.sight.status_longest / 1e3, 500);
    }

  g_settings_reset (settings, "output-limit-mib");
  close_window_gone (other);
  close_window_gone (flooding);
  phase_clear (&control);
  phase_clear (&flood);

  if (load > 2.0 * g_get_num_processors ())
    {
      g_autofree char *why = g_strdup_printf (
        "load average %.1f on %u processors: frame gaps, key-to-paint times and the most "
        "work between two paints are other processes' doing, not judged",
        load, g_get_num_processors ());
      g_test_skip (why);
      return;
    }
}

/* Stop works in the middle of a flood, at once. */
static void
test_stop_flood (void)
{
  SpWindow *window = open_window ("import itertools\n"
                                  "for i in itertools.count():\n"
                                  "    print(i)\n");
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  GSettings *settings = sp_application_get_settings (app);
  SpStall control;

  g_settings_set_uint (settings, "output-limit-mib", 64);
  /* A new window's first frames (styles, fonts) are not the flood's. */
  spin_and_settle (300);
  control = control_stall (window);
  spin_and_settle (300);
  sp_stall_meter_reset (meter);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000));
  spin_and_settle (1000);
  g_assert_true (sp_window_get_running (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 10000));
  g_assert_true (sp_test_wait_for (shown, window, 10000));
  spin_and_settle (200);
  assert_responsive (meter, "a flood stopped", &control);
  g_settings_reset (settings, "output-limit-mib");
  close_window_gone (window);
}

static GtkEventController *
find_scroll_controller (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) controller = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller)
          && gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
        return controller;
    }
  return NULL;
}

static GtkScrolledWindow *
find_scroller (GtkWidget *widget)
{
  if (GTK_IS_SCROLLED_WINDOW (widget) && gtk_widget_has_css_class (widget, "sp-output"))
    return GTK_SCROLLED_WINDOW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkScrolledWindow *found = find_scroller (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
at_end (gpointer data)
{
  GtkAdjustment *adj = data;

  return gtk_adjustment_get_upper (adj) > gtk_adjustment_get_page_size (adj)
         && gtk_adjustment_get_value (adj)
              >= gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj) - 1;
}

static gboolean
has_n_rows (gpointer data)
{
  SpWindow *window = data;
  GListModel *model = panel_output (window);

  return model != NULL && g_list_model_get_n_items (model) >= 150;
}

/* The view keeps to the end while output comes; scrolled up, it stays
 * where the user put it and a button appears; the button brings it back
 * to the end and it follows again. */
static void
test_follow (void)
{
  SpWindow *window = open_window ("import sys, time\n"
                                  "for i in range(400):\n"
                                  "    print('line', i)\n"
                                  "    sys.stdout.flush()\n"
                                  "    time.sleep(0.01)\n");
  SpTranscript *transcript = transcript_of (window);
  GtkScrolledWindow *scroller = find_scroller (GTK_WIDGET (transcript));
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (scroller);
  GtkEventController *scroll = find_scroll_controller (GTK_WIDGET (scroller));
  GtkWidget *button = find_button_icon (GTK_WIDGET (transcript), "go-bottom-symbolic");
  gboolean handled = FALSE;
  double upper_then;

  g_assert_nonnull (scroll);
  g_assert_nonnull (button);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 500);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (has_n_rows, window, 20000));
  /* Following: at the end, no button. */
  g_assert_true (sp_test_wait_for (at_end, adj, 5000));
  g_assert_true (sp_transcript_get_following (transcript));
  g_assert_false (gtk_widget_get_visible (button));

  /* The user scrolls up (a wheel turned up, then the view moved). */
  g_signal_emit_by_name (scroll, "scroll", 0.0, -1.0, &handled);
  gtk_adjustment_set_value (adj, 0);
  g_assert_false (sp_transcript_get_following (transcript));
  g_assert_true (gtk_widget_get_visible (button));
  upper_then = gtk_adjustment_get_upper (adj);
  spin_and_settle (500);
  /* More output came, the view stayed put. */
  g_assert_cmpfloat (gtk_adjustment_get_upper (adj), >, upper_then);
  g_assert_cmpfloat (gtk_adjustment_get_value (adj), <, 1);

  /* The button: back to the end, following. */
  g_signal_emit_by_name (button, "clicked");
  g_assert_true (sp_transcript_get_following (transcript));
  g_assert_false (gtk_widget_get_visible (button));
  g_assert_true (sp_test_wait_for (at_end, adj, 5000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  g_assert_true (sp_test_wait_for (shown, window, 5000));
  spin_and_settle (200);
  g_assert_true (at_end (adj));
  close_window_gone (window);
}

int
main (int argc, char **argv)
{
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/Sandpad/Window/open-binary-refused", test_open_binary_refused);
  g_test_add_func ("/Sandpad/Window/hello", test_hello);
  g_test_add_func ("/Sandpad/Window/stderr-marked", test_stderr_marked);
  g_test_add_func ("/Sandpad/Window/stop", test_stop);
  g_test_add_func ("/Sandpad/Window/input", test_input);
  g_test_add_func ("/Sandpad/Window/unsaved-close-asks", test_unsaved_close_asks);
  g_test_add_func ("/Sandpad/Window/plot-inline", test_plot_inline);
  g_test_add_func ("/Sandpad/Window/broken-image", test_broken_image);
  g_test_add_func ("/Sandpad/Window/saved-png-named", test_saved_png_named);
  g_test_add_func ("/Sandpad/Window/error-points-at-line", test_error_points_at_line);
  g_test_add_func ("/Sandpad/Window/run-selection", test_run_selection);
  g_test_add_func ("/Sandpad/Window/language-from-runner", test_language_from_runner);
  g_test_add_func ("/Sandpad/Window/progress-and-colour", test_progress_and_colour);
  g_test_add_func ("/Sandpad/Window/created-files", test_created_files);
  g_test_add_func ("/Sandpad/Window/files-in-order", test_files_in_order);
  g_test_add_func ("/Sandpad/Window/output-in-order", test_output_in_order);
  g_test_add_func ("/Sandpad/Window/display-results", test_display_results);
  g_test_add_func ("/Sandpad/Window/open-created-file", test_open_created_file);
  g_test_add_func ("/Sandpad/Window/flood", test_flood);
  g_test_add_func ("/Sandpad/Window/flood-paints", test_flood_paints);
  g_test_add_func ("/Sandpad/Window/stop-flood", test_stop_flood);
  g_test_add_func ("/Sandpad/Window/follow", test_follow);
  g_test_add_func ("/Sandpad/Window/screenshot", test_screenshot);
  g_test_add_func ("/Sandpad/Window/screenshot-pixels", test_screenshot_pixels);
  g_test_add_func ("/Sandpad/Window/plot-screenshot", test_plot_screenshot);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
