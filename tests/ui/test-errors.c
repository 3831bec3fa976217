/* test-errors.c: a failing run's error reads like Thonny's, in a real
 * window under Xvfb against the real runner: each place in the traceback
 * text is a link to its line and names the file as the user knows it; the
 * snippet's frames are listed once each, in the traceback's order, one Tab
 * stop per link; the error's last line is not shown twice. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static GtkWidget *
find_visible_label (GtkWidget *widget, const char *css_class)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget)
      && gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_visible_label (child, css_class);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Every visible label with the class, depth first: the transcript shows
 * one line per row, so a traceback is several labels. */
static void
find_labels (GtkWidget *widget, const char *css_class, GPtrArray *out)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget)
      && gtk_widget_has_css_class (widget, css_class))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    find_labels (child, css_class, out);
}

static gboolean
has_error_title (gpointer data)
{
  return find_visible_label (data, "error-title") != NULL;
}

/* Everything under widget that takes a Tab stop, depth first. */
static void
collect_focusable (GtkWidget *widget, GPtrArray *out)
{
  if (gtk_widget_get_focusable (widget) && gtk_widget_get_visible (widget))
    g_ptr_array_add (out, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_focusable (child, out);
}

static void
test_error_reads_well (void)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *title, *block, *stderr_label = NULL;
  g_autoptr (GPtrArray) stops = g_ptr_array_new ();
  g_autoptr (GPtrArray) stderr_labels = g_ptr_array_new ();
  g_autoptr (GString) shown = g_string_new (NULL);
  g_autoptr (GString) markup = g_string_new (NULL);
  gboolean handled = FALSE;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  /* A recursion: the same frame four times in the traceback. */
  gtk_text_buffer_set_text (buffer, "def f(n):\n    return f(n + 1) if n < 3 else 1 / 0\n\nf(0)\n",
                            -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
  g_assert_true (sp_test_wait_for (has_error_title, panel, 10000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* The summary says where; the message is the traceback's last line and
   * is not repeated. */
  title = find_visible_label (panel, "error-title");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (title)), ==, "ZeroDivisionError in line 2");

  /* The frames: once each, top to bottom as in the traceback, one Tab
   * stop each. */
  block = gtk_widget_get_parent (title);
  /* The row: title, picture (hidden), frames, ... */
  collect_focusable (gtk_widget_get_next_sibling (gtk_widget_get_next_sibling (title)), stops);
  g_assert_cmpuint (stops->len, ==, 2);
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (stops->pdata[0])), ==, "Line 4, in <module>");
  g_assert_cmpstr (gtk_button_get_label (GTK_BUTTON (stops->pdata[1])), ==, "Line 2, in f");
  g_assert_nonnull (block);

  /* The traceback text: the user's name for the file, links to lines. */
  find_labels (panel, "stderr", stderr_labels);
  g_assert_cmpuint (stderr_labels->len, >, 0);
  for (guint i = 0; i < stderr_labels->len; i++)
    {
      GtkLabel *label = stderr_labels->pdata[i];
      g_string_append_printf (shown, "%s\n", gtk_label_get_text (label));
      g_string_append_printf (markup, "%s\n", gtk_label_get_label (label));
      if (stderr_label == NULL && strstr (gtk_label_get_label (label), "<a href=\"line:4\">"))
        stderr_label = GTK_WIDGET (label);
    }
  g_test_message ("stderr as shown:\n%s", shown->str);
  g_assert_null (strstr (shown->str, "/code/"));
  g_assert_nonnull (strstr (shown->str, "File \"Untitled\", line 4, in <module>"));
  g_assert_nonnull (strstr (markup->str, "<a href=\"line:2\">"));
  g_assert_nonnull (stderr_label);
  {
    /* Tab walks the labels' links, one stop each. */
    int stops_in_text = 0;
    int links = 0;
    int lines_with_links = 0;
    for (guint i = 0; i < stderr_labels->len; i++)
      {
        GtkWidget *label = stderr_labels->pdata[i];
        int n = 0;
        if (strstr (gtk_label_get_label (GTK_LABEL (label)), "<a href=") == NULL)
          continue;
        lines_with_links++;
        while (n < 20 && gtk_widget_child_focus (label, GTK_DIR_TAB_FORWARD))
          n++;
        stops_in_text += n;
      }
    for (const char *p = strstr (shown->str, "File \"Untitled\""); p != NULL;
         p = strstr (p + 1, "File \"Untitled\""))
      links++;
    g_test_message ("Tab stops in the traceback text: %d, links %d", stops_in_text, links);
    /* Python folds the repeated frames: module, f, f, f, "[Previous line
     * repeated 1 more time]". */
    g_assert_cmpint (links, ==, 4);
    /* Each linked line: the text itself (it is selectable), then its link. */
    g_assert_cmpint (stops_in_text, >=, links);
    g_assert_cmpint (stops_in_text, <=, links + lines_with_links);
  }
  g_signal_emit_by_name (stderr_label, "activate-link", "line:4", &handled);
  g_assert_true (handled);
  g_assert_cmpint (cursor_line (window), ==, 4);

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
  g_test_add_func ("/Sandpad/Errors/reads-well", test_error_reads_well);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
