/* test-output-limit.c: the output limit bounds what is kept, not the run
 * (issue 38, item 4), in a real window under Xvfb against the real runner.
 * `for i in range(10**6): print(i)` runs to its end (exit 0, not "output
 * limit reached" after ~165,000 lines); the panel says, in a notice row in
 * its place, how many bytes and lines were left out of the middle and the
 * run's file that holds all of it, which the panel lists; it ends with the
 * program's last line, and Save Output starts with its first. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-model.h"
#include "sp-test-wait.h"
#include "sp-transcript.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static SpExecPanel *
panel_of (SpWindow *window)
{
  return SP_EXEC_PANEL (sp_window_get_exec_panel (window));
}

/* The run is over and all its output shown. */
static gboolean
shown (gpointer data)
{
  SpWindow *window = data;

  return !sp_window_get_running (window)
         && !sp_transcript_get_busy (sp_exec_panel_get_transcript (panel_of (window)));
}

static gboolean
is_true (gpointer data)
{
  return *(gboolean *) data;
}

static void
on_saved (GObject *source, GAsyncResult *result, gpointer data)
{
  g_assert_true (sp_output_model_save_finish (SP_OUTPUT_MODEL (source), result, NULL));
  *(gboolean *) data = TRUE;
}

/* A label drawn now (mapped, in the window) whose text has needle. */
static GtkWidget *
find_mapped_label (GtkWidget *widget, const char *needle)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget)
      && strstr (gtk_label_get_text (GTK_LABEL (widget)), needle) != NULL)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_mapped_label (child, needle);
      if (found != NULL)
        return found;
    }
  return NULL;
}

typedef struct
{
  GtkWidget *root;
  const char *needle;
} Look;

static gboolean
label_mapped (gpointer data)
{
  Look *look = data;

  return find_mapped_label (look->root, look->needle) != NULL;
}

static void
test_million_lines (void)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  SpExecPanel *panel = panel_of (window);
  GListModel *model;
  SpOutputItem *notice = NULL, *last_text = NULL;
  guint n_notices = 0, notice_at = 0;
  gboolean file_listed = FALSE, done = FALSE;
  g_autofree char *path = NULL, *saved = NULL;
  g_autoptr (GFile) dest = NULL;
  gsize saved_len = 0;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer, "for i in range(10**6): print(i)\n", -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000));
  g_assert_true (sp_test_wait_for (shown, window, 170000));

  /* It ran to its end: not stopped by the output limit. */
  g_test_message ("status: %s", sp_exec_panel_get_status (panel));
  g_assert_true (g_str_has_prefix (sp_exec_panel_get_status (panel), "Exited with code 0"));

  model = sp_exec_panel_get_output (panel);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      SpOutputKind kind = sp_output_item_get_kind (item);

      if (kind == SP_OUTPUT_NOTICE)
        {
          g_clear_object (&notice);
          notice = g_object_ref (item);
          notice_at = i;
          n_notices++;
        }
      else if (kind == SP_OUTPUT_STDOUT)
        {
          g_clear_object (&last_text);
          last_text = g_object_ref (item);
        }
      else if (kind == SP_OUTPUT_FILE
               && g_strcmp0 (sp_output_item_get_label (item), "sandpad-stdout.txt") == 0)
        file_listed = TRUE;
    }

  /* One note, in its place, of what was left out and where all of it is. */
  g_assert_cmpuint (n_notices, ==, 1);
  g_test_message ("notice: %s", sp_output_item_get_text (notice));
  g_assert_true (g_regex_match_simple ("^[0-9,]+ bytes \\([0-9,]+ lines\\) of output left out "
                                       "here, past the output limit\\. The whole output is in "
                                       "the run's file sandpad-stdout\\.txt\\.$",
                                       sp_output_item_get_text (notice), 0, 0));
  g_assert_true (g_ascii_strtoull (sp_output_item_get_text (notice), NULL, 10) > 5000000);
  g_assert_true (file_listed);
  /* The end: the program's last line. */
  g_assert_nonnull (last_text);
  g_assert_cmpstr (sp_output_item_get_text (last_text), ==, "999999\n");

  /* The start: everything the window got, from the first line on. */
  path = g_build_filename (g_get_tmp_dir (), "sandpad-output-limit-XXXXXX", NULL);
  g_close (g_mkstemp (path), NULL);
  dest = g_file_new_for_path (path);
  sp_output_model_save_async (SP_OUTPUT_MODEL (model), dest, NULL, on_saved, &done);
  g_assert_true (sp_test_wait_for (is_true, &done, 10000));
  g_assert_true (g_file_get_contents (path, &saved, &saved_len, NULL));
  g_unlink (path);
  g_assert_true (g_str_has_prefix (saved, "0\n1\n2\n3\n"));
  g_assert_true (g_str_has_suffix (saved, "999998\n999999\n"));
  g_assert_cmpuint (saved_len, <=, 1024 * 1024 + 256 * 1024 + 1024);

  /* And the window shows the note: scrolled to, it is drawn. */
  {
    GtkListView *list = sp_transcript_get_list_view (sp_exec_panel_get_transcript (panel));
    Look look = { GTK_WIDGET (list), "left out here" };

    g_assert_true (
      gtk_widget_activate_action (GTK_WIDGET (list), "list.scroll-to-item", "u", notice_at));
    g_assert_true (sp_test_wait_for (label_mapped, &look, 10000));
  }

  g_clear_object (&notice);
  g_clear_object (&last_text);
  gtk_text_buffer_set_modified (buffer, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
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
  g_test_add_func ("/Sandpad/OutputLimit/million-lines", test_million_lines);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
