/* test-run-files.c: what a run leaves is hostile (issue 29, items 2 and
 * 3), in a real window under Xvfb against the real runner. The runner
 * shows "notes\n.txt" as "notes\x0a.txt"; the run also makes a file
 * literally named that way: a symlink to a file of the person's, or a
 * FIFO. The panel must preview, open and save the run's regular file by
 * its name's bytes: never the symlink's target (its text in the preview
 * and in an editor window), never block on the FIFO (the window froze for
 * good), never write a symlink into the person's folder. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <sys/stat.h>

#include "sp-application.h"
#include "sp-stall-meter.h"
#include "sp-test-wait.h"
#include "sp-ui-stall.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

/* Bumped by the main loop; a watchdog thread fails the test when it
 * stops moving (a blocking open on the main thread holds it for good). */
static gint beats;
static gint done;

static gboolean
beat (gpointer data)
{
  g_atomic_int_inc (&beats);
  return G_SOURCE_CONTINUE;
}

static gpointer
watchdog (gpointer data)
{
  int last = -1;
  int still = 0;

  while (!g_atomic_int_get (&done))
    {
      int now = g_atomic_int_get (&beats);
      still = now == last ? still + 1 : 0;
      last = now;
      if (still >= 100)
        g_error ("the main loop has not run for 10 s: something blocks it");
      g_usleep (100 * 1000);
    }
  return NULL;
}

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

typedef gboolean (*WidgetTest) (GtkWidget *widget, gconstpointer data);

static GtkWidget *
find (GtkWidget *widget, WidgetTest test, gconstpointer data)
{
  if (gtk_widget_get_visible (widget) && test (widget, data))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find (child, test, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
label_has (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL;
}

static gboolean
label_is (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

static gboolean
button_is (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_BUTTON (widget)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), text) == 0;
}

typedef struct
{
  GtkWidget *root;
  WidgetTest test;
  gconstpointer data;
} FindWait;

static gboolean
found (gpointer data)
{
  FindWait *wait = data;
  return find (wait->root, wait->test, wait->data) != NULL;
}

/* What the window shows, for a failure's log. */
static void
dump_labels (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget))
    g_test_message ("label: %s", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    dump_labels (child);
}

static GtkWidget *
wait_find (GtkWidget *root, WidgetTest test, gconstpointer data)
{
  FindWait wait = { root, test, data };

  if (!sp_test_wait_for (found, &wait, 15000))
    {
      g_test_message ("not found: %s", (const char *) data);
      dump_labels (root);
    }
  g_assert_true (found (&wait));
  return find (root, test, data);
}

static SpWindow *
run_in_window (const char *code)
{
  SpWindow *window = sp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  /* From the run on, for assert_responsive. */
  sp_stall_meter_reset (sp_application_get_stall_meter (app));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

/* Previews, Open and Save As of a run's files are read off the main
 * thread: since the run, the app's stall meter saw the main loop held no
 * longer than for the control (sp-ui-stall.h). */
static void
assert_responsive (const char *what, const SpStall *control)
{
  SpStall stall = sp_stall_take (sp_application_get_stall_meter (app));

  sp_stall_assert_within (what, &stall, control);
}

/* A file row's title: "name · size · mime". */
static gboolean
title_is (GtkWidget *widget, gconstpointer data)
{
  const char *const *want = data;
  const char *text;

  if (!GTK_IS_LABEL (widget))
    return FALSE;
  text = gtk_label_get_text (GTK_LABEL (widget));
  return g_str_has_prefix (text, want[0]) && g_str_has_suffix (text, want[1]);
}

/* The row (its box) of the file of that name and type. */
static GtkWidget *
row_of (GtkWidget *panel, const char *name, const char *mime)
{
  g_autofree char *prefix = g_strdup_printf ("%s · ", name);
  g_autofree char *suffix = g_strdup_printf (" · %s", mime);
  const char *want[] = { prefix, suffix };

  return gtk_widget_get_parent (wait_find (panel, title_is, want));
}

/* The editor window (not the run's) whose text is text, or NULL. */
static SpWindow *
window_with_text (const char *text)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);
      g_autofree char *shown = NULL;
      g_autofree char *file_text = NULL;
      GtkTextIter start, end;
      GtkTextBuffer *buffer;

      if (!SP_IS_WINDOW (toplevel))
        continue;
      buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (SP_WINDOW (toplevel)));
      gtk_text_buffer_get_bounds (buffer, &start, &end);
      shown = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
      /* As the file holds it: with the implicit trailing newline. */
      file_text = sp_document_text_for_file (shown);
      if (g_str_equal (file_text, text))
        return SP_WINDOW (toplevel);
    }
  return NULL;
}

/* A window whose text is data, closed once found. */
static gboolean
has_window_with_text (gpointer data)
{
  SpWindow *window = window_with_text (data);

  if (window == NULL)
    return FALSE;
  gtk_window_destroy (GTK_WINDOW (window));
  return TRUE;
}

/* The control for assert_responsive: the same steps on a run that writes
 * one plain regular file, previewed and, with open, opened. */
static SpStall
plain_file_stall (gboolean open)
{
  SpWindow *window = run_in_window ("open('plain.txt', 'w').write('the plain text\\n')\n");
  GtkWidget *row = row_of (sp_window_get_exec_panel (window), "plain.txt", "text/plain");
  SpStall stall;

  wait_find (row, label_has, "the plain text");
  if (open)
    {
      g_signal_emit_by_name (find (row, button_is, "Open"), "clicked");
      g_assert_true (sp_test_wait_for (has_window_with_text, (gpointer) "the plain text\n", 15000));
    }
  stall = sp_stall_take (sp_application_get_stall_meter (app));
  close_window (window);
  return stall;
}

static gboolean
is_file_chooser (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);
      if (GTK_IS_FILE_CHOOSER (toplevel))
        {
          *(GtkWidget **) data = GTK_WIDGET (toplevel);
          return TRUE;
        }
    }
  return FALSE;
}

/* A symlink named like the escaped name, to a file of the person's: the
 * preview shows the run's own file, Save As writes its bytes as a
 * regular file, and the symlink's own row offers neither. */
static void
test_symlink_twin (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-run-files-XXXXXX", NULL);
  g_autofree char *secret = g_build_filename (dir, "secret.txt", NULL);
  g_autofree char *saved = g_build_filename (dir, "notes.txt", NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (dir);
  SpStall control = plain_file_stall (FALSE);
  g_autofree char *code = NULL;
  g_autofree char *text = NULL;
  SpWindow *window;
  GtkWidget *panel, *row, *link_row, *chooser = NULL;
  GStatBuf st;

  g_assert_true (g_file_set_contents (secret, "the person's secret\n", -1, NULL));
  code = g_strdup_printf ("import os\n"
                          "open('notes\\n.txt', 'w').write('the run notes\\n')\n"
                          "os.symlink('%s', 'notes\\\\x0a.txt')\n"
                          "os.symlink('%s', 'link.txt')\n",
                          secret, secret);
  window = run_in_window (code);
  panel = sp_window_get_exec_panel (window);
  row = row_of (panel, "notes\\x0a.txt", "text/plain");
  /* The preview is read off the main thread: wait for it. */
  wait_find (row, label_has, "the run notes");
  g_assert_null (find (panel, label_has, "secret"));
  assert_responsive ("the run and its preview", &control);

  link_row = row_of (panel, "link.txt", "inode/symlink");
  g_assert_null (find (link_row, button_is, "Save As…"));
  g_assert_null (find (link_row, button_is, "Open"));
  g_assert_null (find (row_of (panel, "notes\\x0a.txt", "inode/symlink"), button_is, "Save As…"));

  g_signal_emit_by_name (find (row, button_is, "Save As…"), "clicked");
  g_assert_true (sp_test_wait_for (is_file_chooser, &chooser, 10000));
  g_assert_true (sp_ui_test_wait_chooser_folder (chooser, 10000));
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "notes.txt");
  g_assert_true (sp_ui_test_wait_chooser_folder (chooser, 10000));
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  wait_find (GTK_WIDGET (window), label_is, "Saved as notes.txt");
  g_assert_cmpint (g_lstat (saved, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_true (g_file_get_contents (saved, &text, NULL, NULL));
  g_assert_cmpstr (text, ==, "the run notes\n");

  g_unlink (saved);
  g_unlink (secret);
  g_rmdir (dir);
  close_window (window);
}

/* A FIFO named like the escaped name: the window keeps running (the
 * watchdog) and the preview and Open show the run's regular file. */
static void
test_fifo_twin (void)
{
  SpStall control = plain_file_stall (TRUE);
  SpWindow *window = run_in_window ("import os\n"
                                    "open('data\\n.txt', 'w').write('the run data\\n')\n"
                                    "os.mkfifo('data\\\\x0a.txt')\n");
  GtkWidget *panel, *row;

  panel = sp_window_get_exec_panel (window);
  row = row_of (panel, "data\\x0a.txt", "text/plain");
  wait_find (row, label_has, "the run data");
  g_assert_null (find (row_of (panel, "data\\x0a.txt", "inode/fifo"), button_is, "Open"));
  g_signal_emit_by_name (find (row, button_is, "Open"), "clicked");
  g_assert_true (sp_test_wait_for (has_window_with_text, (gpointer) "the run data\n", 15000));
  assert_responsive ("the run, preview and Open beside a FIFO", &control);
  close_window (window);
}

/* No visible label holds the character itself. */
static gboolean
label_holds (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL;
}

/* A name and output with characters that hide or reorder text (a
 * right-to-left override makes "invoice_<RLO>txt.exe" read as
 * "invoice_exe.txt"; zero-width and isolate characters are not seen):
 * each is shown as its code point, in markup of its own (the escape's
 * style), never as itself (issue 29). */
static void
test_hidden_chars (void)
{
  SpWindow *window = run_in_window ("open('invoice_\\u202etxt.exe', 'w').write('pay\\u200bme\\n')\n"
                                    "print('report\\u2066.pdf')\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *row = row_of (panel, "invoice_<U+202E>txt.exe", "text/plain");
  GtkWidget *out = wait_find (panel, label_has, "report<U+2066>.pdf");
  GtkWidget *title = find (row, label_has, "invoice_<U+202E>txt.exe");

  wait_find (row, label_has, "pay<U+200B>me");
  g_assert_true (gtk_label_get_use_markup (GTK_LABEL (out)));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (out)), "<span "));
  g_assert_true (gtk_label_get_use_markup (GTK_LABEL (title)));
  g_assert_null (find (panel, label_holds, "\u202e"));
  g_assert_null (find (panel, label_holds, "\u2066"));
  g_assert_null (find (panel, label_holds, "\u200b"));
  close_window (window);
}

static gboolean
has_window_holding (gpointer data)
{
  return window_with_text (data) != NULL;
}

/* Open of a run's file whose code hides what it does (Trojan Source: a
 * right-to-left override turns the text after it around, a zero-width
 * space is not seen): the editor keeps its bytes as they came, draws each
 * such character as a box (Pango's show-ignorables) underlined, and a bar
 * says there are two (issue 29). */
static void
test_open_hidden_chars (void)
{
  const char *expected = "ok = 'a\u202ecba\u200bz'\nprint(ok)\n";
  SpWindow *window = run_in_window ("open('trick.py', 'w').write("
                                    "\"ok = 'a\\u202ecba\\u200bz'\\nprint(ok)\\n\")\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *row = row_of (panel, "trick.py", "text/x-python");
  SpWindow *opened;
  SpReloadBar *bar;
  GtkTextBuffer *buffer;
  GtkTextTag *tag;
  GtkTextIter at;
  int show = 0;

  g_signal_emit_by_name (wait_find (row, button_is, "Open"), "clicked");
  g_assert_true (sp_test_wait_for (has_window_holding, (gpointer) expected, 15000));
  opened = window_with_text (expected);
  bar = sp_hidden_bar_get_reload_bar (sp_window_get_hidden_bar (opened));
  g_assert_nonnull (bar);
  g_assert_cmpstr (sp_reload_bar_get_kind (bar), ==, "hidden-chars");
  g_assert_nonnull (strstr (sp_reload_bar_get_message (bar), "2 characters"));
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (opened));
  tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), "sp-hidden-char");
  g_assert_nonnull (tag);
  g_object_get (tag, "show-spaces", &show, NULL);
  g_assert_true (show & PANGO_SHOW_IGNORABLES);
  /* The override and the zero-width space, and nothing else. */
  gtk_text_buffer_get_iter_at_offset (buffer, &at, 7);
  g_assert_cmpuint (gtk_text_iter_get_char (&at), ==, 0x202e);
  g_assert_true (gtk_text_iter_has_tag (&at, tag));
  gtk_text_buffer_get_iter_at_offset (buffer, &at, 11);
  g_assert_cmpuint (gtk_text_iter_get_char (&at), ==, 0x200b);
  g_assert_true (gtk_text_iter_has_tag (&at, tag));
  gtk_text_buffer_get_iter_at_offset (buffer, &at, 6);
  g_assert_false (gtk_text_iter_has_tag (&at, tag));
  close_window (opened);

  /* A file the person opens (an assistant may have written it) too; a
   * file without any shows no bar. */
  {
    g_autofree char *dir = g_dir_make_tmp ("sp-run-files-XXXXXX", NULL);
    g_autofree char *path = g_build_filename (dir, "trick.py", NULL);
    g_autofree char *plain = g_build_filename (dir, "plain.py", NULL);
    g_autoptr (GFile) file = g_file_new_for_path (path);
    g_autoptr (GFile) plain_file = g_file_new_for_path (plain);

    g_assert_true (g_file_set_contents (path, expected, -1, NULL));
    g_assert_true (g_file_set_contents (plain, "print('plain')\n", -1, NULL));
    opened = sp_window_new (app);
    gtk_window_present (GTK_WINDOW (opened));
    sp_window_load_file (opened, file);
    g_assert_true (sp_test_wait_for (has_window_holding, (gpointer) expected, 15000));
    g_assert_nonnull (sp_window_get_hidden_bar (opened));
    g_assert_cmpstr (sp_reload_bar_get_kind (
                       sp_hidden_bar_get_reload_bar (sp_window_get_hidden_bar (opened))),
                     ==, "hidden-chars");
    g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (opened))));
    sp_window_load_file (opened, plain_file);
    g_assert_true (sp_test_wait_for (has_window_holding, (gpointer) "print('plain')\n", 15000));
    g_assert_null (
      sp_reload_bar_get_kind (sp_hidden_bar_get_reload_bar (sp_window_get_hidden_bar (opened))));
    close_window (opened);
    g_unlink (path);
    g_unlink (plain);
    g_rmdir (dir);
  }
  close_window (window);
}

/* Save As of a display()ed image, which the app holds in memory only
 * (ui-images, display-killed): its PNG bytes, as the run sent them, in a
 * regular file. */
static void
test_display_save_as (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-run-files-XXXXXX", NULL);
  g_autofree char *saved = g_build_filename (dir, "result.png", NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (dir);
  g_autofree char *bytes = NULL;
  gsize len = 0;
  SpWindow *window = run_in_window ("from PIL import Image\n"
                                    "display(Image.new('RGB', (16, 16), 'red'))\n");
  GtkWidget *chooser = NULL;
  GStatBuf st;

  g_signal_emit_by_name (wait_find (GTK_WIDGET (window), button_is, "Save As…"), "clicked");
  g_assert_true (sp_test_wait_for (is_file_chooser, &chooser, 10000));
  g_assert_true (sp_ui_test_wait_chooser_folder (chooser, 10000));
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "result.png");
  g_assert_true (sp_ui_test_wait_chooser_folder (chooser, 10000));
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  wait_find (GTK_WIDGET (window), label_is, "Saved as result.png");
  g_assert_cmpint (g_lstat (saved, &st), ==, 0);
  g_assert_true (S_ISREG (st.st_mode));
  g_assert_true (g_file_get_contents (saved, &bytes, &len, NULL));
  g_assert_cmpuint (len, >, 8);
  g_assert_cmpmem (bytes, 8, "\x89PNG\r\n\x1a\n", 8);

  g_unlink (saved);
  g_rmdir (dir);
  close_window (window);
}

int
main (int argc, char **argv)
{
  GThread *thread;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_timeout_add (50, beat, NULL);
  thread = g_thread_new ("watchdog", watchdog, NULL);
  g_test_add_func ("/Sandpad/RunFiles/symlink-twin", test_symlink_twin);
  g_test_add_func ("/Sandpad/RunFiles/fifo-twin", test_fifo_twin);
  g_test_add_func ("/Sandpad/RunFiles/hidden-chars", test_hidden_chars);
  g_test_add_func ("/Sandpad/RunFiles/open-hidden-chars", test_open_hidden_chars);
  g_test_add_func ("/Sandpad/RunFiles/display-save-as", test_display_save_as);
  ret = g_test_run ();

  g_atomic_int_set (&done, 1);
  g_thread_join (thread);
  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
