/* test-compile-links.c: a compiler's errors point at the person's file
 * (issue 38, item 6), in a real window under Xvfb against the real runner
 * and the real gcc, clicked through XTEST. A saved hello.c that does not
 * compile: the panel names "hello.c:5:18", never the sandbox's
 * /code/hello.c, as a link; the failed run leaves the caret where the
 * person had it; a click on the link takes the caret to line 5. And the
 * status says "Compiling…" while the compiler runs, then "Running…". */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-test-wait.h"
#include "sp-ui-keys.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

/* Line 5 names an undeclared m, line 6 lacks its semicolon. */
static const char broken_c[] = "#include <stdio.h>\n"
                               "\n"
                               "int main(void) {\n"
                               "  int n = 3;\n"
                               "  printf(\"%d\\n\", m);\n"
                               "  return 0\n"
                               "}\n";

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static gboolean
have_c (void)
{
  const char *const *have = sp_runner_supervisor_get_languages (
    sp_application_get_supervisor (app));

  return have != NULL && g_strv_contains (have, "c");
}

/* The caret as "line:column", both from 1. */
static char *
caret (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter at;

  gtk_text_buffer_get_iter_at_mark (buffer, &at, gtk_text_buffer_get_insert (buffer));
  return g_strdup_printf ("%d:%d", gtk_text_iter_get_line (&at) + 1,
                          gtk_text_iter_get_line_offset (&at) + 1);
}

typedef struct
{
  SpWindow *window;
  const char *where;
} CaretWait;

static gboolean
caret_is (gpointer data)
{
  CaretWait *wait = data;
  g_autofree char *now = caret (wait->window);

  return g_str_equal (now, wait->where);
}

/* The shown label under widget whose markup holds markup. */
static GtkWidget *
label_with_markup (GtkWidget *widget, const char *markup)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget)
      && strstr (gtk_label_get_label (GTK_LABEL (widget)), markup) != NULL)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = label_with_markup (child, markup);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether a shown label under widget has text in its text. */
static gboolean
shows_text (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget)
      && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;
  return FALSE;
}

static gboolean
summary_shown (gpointer data)
{
  return shows_text (data, "in line 5");
}

static gboolean
link_shown (gpointer data)
{
  return label_with_markup (data, "<a href=\"line:5\">hello.c:5:18</a>") != NULL;
}

/* Where in label the text shown begins, as Pango lays it out. */
static void
text_position (GtkLabel *label, const char *text, double *x, double *y)
{
  PangoLayout *layout = gtk_label_get_layout (label);
  const char *all = pango_layout_get_text (layout);
  const char *at = strstr (all, text);
  PangoRectangle rect;
  int ox, oy;

  g_assert_nonnull (at);
  pango_layout_index_to_pos (layout, (int) (at - all), &rect);
  gtk_label_get_layout_offsets (label, &ox, &oy);
  /* Layout offsets are in the label's coordinates; a few pixels into the
   * first character. */
  *x = ox + pango_units_to_double (rect.x) + 4;
  *y = oy + pango_units_to_double (rect.y + rect.height / 2);
}

static SpWindow *
open_saved (const char *dir, const char *code)
{
  g_autofree char *path = g_build_filename (dir, "hello.c", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GError) error = NULL;
  SpWindow *window = sp_window_new (app);

  g_file_set_contents (path, code, -1, &error);
  g_assert_no_error (error);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  sp_window_load_file (window, file);
  /* The editor holds a file's final newline as GtkSourceView's implicit
   * one, not as text (Save writes it back). */
  g_autofree char *shown = g_str_has_suffix (code, "\n") ? g_strndup (code, strlen (code) - 1)
                                                         : g_strdup (code);
  sp_ui_keys_wait_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), shown);
  g_assert_cmpstr (sp_window_get_language_name (window), ==, "c");
  return window;
}

static void
test_link_clicked (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-compile-links-XXXXXX", NULL);
  SpWindow *window;
  GtkWidget *view, *panel, *label;
  GtkTextBuffer *buffer;
  GtkTextIter at;
  CaretWait on_5 = { NULL, "5:1" };
  g_autofree char *after_run = NULL;
  g_autofree char *marked = NULL;
  double x, y;

  g_assert_nonnull (dir);
  window = open_saved (dir, broken_c);
  if (!have_c ())
    {
      close_window (window);
      g_test_skip ("gcc is not installed here: the runner has no C");
      return;
    }
  view = sp_ui_test_find_of_type (GTK_WIDGET (window), GTK_SOURCE_TYPE_VIEW);
  panel = sp_window_get_exec_panel (window);
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));

  /* The person's caret at the start of line 3, in the editor. */
  gtk_text_buffer_get_iter_at_line (buffer, &at, 2);
  gtk_text_buffer_place_cursor (buffer, &at);
  sp_ui_keys_focus_window (GTK_WINDOW (window));
  gtk_widget_grab_focus (view);
  g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, view, 5000));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 120000));
  g_assert_true (sp_test_wait_for (link_shown, panel, 10000));
  /* The whole error shown (its summary under the text) and drawn: a row
   * bound again under the pointer would lose the click. */
  g_assert_true (sp_test_wait_for (summary_shown, panel, 10000));
  for (int i = 0; i < 3; i++)
    gtk_test_widget_wait_for_draw (panel);

  /* The error names the person's file, never the sandbox's path. */
  label = label_with_markup (panel, "<a href=\"line:5\">hello.c:5:18</a>");
  g_test_message ("shown: %s", gtk_label_get_text (GTK_LABEL (label)));
  g_assert_null (strstr (gtk_label_get_text (GTK_LABEL (label)), "/code/"));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "hello.c:5:18: error: "));
  /* The failed run marked line 5 and left the caret alone. */
  after_run = caret (window);
  g_assert_cmpstr (after_run, ==, "3:1");
  marked = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (marked, ==, "5");

  /* A click on the link: the caret to line 5, the keyboard to the code. */
  text_position (GTK_LABEL (label), "hello.c:5:18", &x, &y);
  sp_ui_keys_click_at (label, x, y);
  on_5.window = window;
  if (!sp_test_wait_for (caret_is, &on_5, 10000))
    {
      g_autofree char *now = caret (window);
      g_assert_cmpstr (now, ==, "5:1");
    }
  g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, view, 5000));

  gtk_text_buffer_set_modified (buffer, FALSE);
  close_window (window);
  {
    g_autofree char *path = g_build_filename (dir, "hello.c", NULL);
    g_unlink (path);
    g_rmdir (dir);
  }
}

static void
on_status (GtkLabel *label, GParamSpec *pspec, GPtrArray *seen)
{
  g_ptr_array_add (seen, g_strdup (gtk_label_get_text (label)));
}

/* A C program from an empty cache: while gcc runs the status says
 * "Compiling…" with the compile step's own limit, then "Running…" counts
 * the program's time from zero. Before, it read "Running…" from the
 * start, as if the run's limit were running out while gcc worked. */
static void
test_compile_phase (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sandpad-compile-phase-XXXXXX", NULL);
  /* Code no earlier run compiled: the cache cannot serve it. */
  g_autofree char *code = g_strdup_printf ("#include <stdio.h>\n/* %" G_GINT64_FORMAT " */\n"
                                           "int main(void) { puts(\"ran\"); return 0; }\n",
                                           g_get_real_time ());
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);
  SpWindow *window;
  GtkWidget *status;
  int compiling = -1, running = -1;

  g_assert_nonnull (dir);
  window = open_saved (dir, code);
  if (!have_c ())
    {
      close_window (window);
      g_test_skip ("gcc is not installed here: the runner has no C");
      return;
    }
  status = find_label (sp_window_get_exec_panel (window), "sp-status");
  g_assert_nonnull (status);
  g_signal_connect (status, "notify::label", G_CALLBACK (on_status), seen);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 120000));
  g_signal_handlers_disconnect_by_func (status, on_status, seen);

  for (guint i = 0; i < seen->len; i++)
    {
      const char *text = seen->pdata[i];
      g_test_message ("status: %s", text);
      if (g_str_has_prefix (text, "Compiling… ") && compiling < 0)
        compiling = (int) i;
      if (g_str_has_prefix (text, "Running… ") && compiling >= 0 && running < 0)
        running = (int) i;
    }
  g_assert_cmpint (compiling, >=, 0);
  g_assert_nonnull (strstr (seen->pdata[compiling], " s (limit "));
  /* Nothing said "Running…" before the compile step... */
  for (int i = 0; i < compiling; i++)
    g_assert_false (g_str_has_prefix (seen->pdata[i], "Running… "));
  /* ...and the program's time starts at its own start. */
  g_assert_cmpint (running, >, compiling);
  g_assert_cmpstr (seen->pdata[running], ==, "Running… 0.0 s");
  for (int i = running; i < (int) seen->len; i++)
    g_assert_false (g_str_has_prefix (seen->pdata[i], "Compiling… "));

  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  close_window (window);
  {
    g_autofree char *path = g_build_filename (dir, "hello.c", NULL);
    g_unlink (path);
    g_rmdir (dir);
  }
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
  g_test_add_func ("/Sandpad/CompileLinks/link-clicked", test_link_clicked);
  g_test_add_func ("/Sandpad/CompileLinks/compile-phase", test_compile_phase);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
