/* test-input.c: a program that asks for input, in a real window under
 * Xvfb against the real runner: the status says it waits (and where the
 * time limit is changed), the input line shows it is wanted and, with
 * nothing typed in the editor since Run, has the keyboard
 * (test-input-focus types, into the editor too), and the line sent is
 * echoed on the prompt's line, in the input style, as a terminal shows
 * it. */
#include "config.h"

#include <gtksourceview/gtksource.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
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
find_status (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "sp-status"))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_status (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static const char *
status_text (SpWindow *window)
{
  GtkWidget *label = find_status (sp_window_get_exec_panel (window));

  g_assert_nonnull (label);
  return gtk_label_get_text (GTK_LABEL (label));
}

static gboolean
says_waiting (gpointer data)
{
  return g_str_has_prefix (status_text (data), "Waiting for input");
}

static gboolean
has_output (gpointer data)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (data)));

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (strstr (sp_output_item_get_text (item), "hello Ada") != NULL)
        return TRUE;
    }
  return FALSE;
}

/* The transcript as "kind:text|..." for the text kinds. */
static char *
transcript (SpWindow *window)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      SpOutputKind kind = sp_output_item_get_kind (item);
      g_autoptr (GEnumClass) kinds = g_type_class_ref (SP_TYPE_OUTPUT_KIND);
      g_string_append_printf (text, "%s:%s|", g_enum_get_value (kinds, kind)->value_nick,
                              sp_output_item_get_text (item));
    }
  return g_string_free (text, FALSE);
}

/* Whether the window's keyboard is in the input line (its text field). */
static gboolean
focus_in_entry (gpointer data)
{
  GtkWidget *focus = gtk_window_get_focus (GTK_WINDOW (gtk_widget_get_root (data)));

  return focus != NULL && (focus == data || gtk_widget_is_ancestor (focus, data));
}

static gboolean
shows_answer_line (gpointer data)
{
  return find_label (data, "prompt-answer") != NULL;
}

/* Whether the label's text is bold at byte index. */
static gboolean
is_bold (GtkWidget *label, int index)
{
  PangoAttrList *attrs = pango_layout_get_attributes (gtk_label_get_layout (GTK_LABEL (label)));
  PangoAttrIterator *iter;
  gboolean bold = FALSE;

  if (attrs == NULL)
    return FALSE;
  iter = pango_attr_list_get_iterator (attrs);
  do
    {
      int start, end;
      pango_attr_iterator_range (iter, &start, &end);
      if (index >= start && index < end)
        {
          PangoAttrInt *weight = (PangoAttrInt *) pango_attr_iterator_get (iter, PANGO_ATTR_WEIGHT);
          bold = weight != NULL && weight->value >= PANGO_WEIGHT_BOLD;
          break;
        }
    }
  while (pango_attr_iterator_next (iter));
  pango_attr_iterator_destroy (iter);
  return bold;
}

static void
test_input_waits_and_echoes (void)
{
  SpWindow *window = sp_window_new (app);
  SpExecPanel *panel = SP_EXEC_PANEL (sp_window_get_exec_panel (window));
  GtkEntry *entry = sp_exec_panel_get_input_entry (panel);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *before, *answer;
  g_autofree char *text = NULL;
  const char *tooltip;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer, "name = input('name? ')\nprint('hello', name)\n", -1);
  before = gtk_window_get_focus (GTK_WINDOW (window));
  g_assert_nonnull (before);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));

  /* The prompt came and nothing followed: the program waits. */
  g_assert_true (sp_test_wait_for (says_waiting, window, 20000));
  g_test_message ("status: %s", status_text (window));
  g_assert_nonnull (strstr (status_text (window), "time limit"));
  tooltip = gtk_widget_get_tooltip_text (find_status (GTK_WIDGET (panel)));
  g_assert_nonnull (tooltip);
  g_assert_nonnull (strstr (tooltip, "Preferences"));
  /* The input line shows it is wanted, and has the keyboard: nothing was
   * typed in the editor since Run. */
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "input-wanted"));
  g_assert_true (sp_test_wait_for (focus_in_entry, entry, 5000));
  g_assert_false (gtk_window_get_focus (GTK_WINDOW (window)) == before);

  gtk_editable_set_text (GTK_EDITABLE (entry), "Ada");
  g_signal_emit_by_name (entry, "activate");
  g_assert_false (says_waiting (window));
  g_assert_false (gtk_widget_has_css_class (GTK_WIDGET (entry), "input-wanted"));
  g_assert_true (sp_test_wait_for (has_output, window, 20000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));

  /* The typed line goes on the prompt's line, as a terminal echoes it,
   * marked as input, never as the program's output; the program's answer
   * follows on a line of its own. */
  text = transcript (window);
  g_test_message ("transcript: %s", text);
  g_assert_cmpstr (text, ==, "input:name? Ada\n|stdout:hello Ada\n|");
  g_assert_true (sp_test_wait_for (shows_answer_line, panel, 5000));
  answer = find_label (GTK_WIDGET (panel), "prompt-answer");
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (answer)), ==, "name? Ada");
  /* The prompt as the program wrote it, the answer in the input style. */
  g_assert_false (is_bold (answer, 0));
  g_assert_true (is_bold (answer, strlen ("name? ")));

  gtk_text_buffer_set_modified (buffer, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

static gboolean
has_text (SpWindow *window, const char *needle)
{
  g_autofree char *text = transcript (window);

  return strstr (text, needle) != NULL;
}

static gboolean
says_got (gpointer data)
{
  return has_text (data, "got 7");
}

/* A program that reads with no prompt at all: the runner's input_wait
 * says it waits, where a guess from the output's look saw nothing, and
 * the input line gets the keyboard from an editor nobody typed in. */
static void
test_no_prompt_waits (void)
{
  SpWindow *window = sp_window_new (app);
  SpExecPanel *panel = SP_EXEC_PANEL (sp_window_get_exec_panel (window));
  GtkEntry *entry = sp_exec_panel_get_input_entry (panel);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *before;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer,
                            "import sys\nline = sys.stdin.readline()\nprint('got', line.strip())\n",
                            -1);
  before = gtk_window_get_focus (GTK_WINDOW (window));
  g_assert_true (GTK_SOURCE_IS_VIEW (before));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (says_waiting, window, 20000));
  g_assert_true (gtk_widget_has_css_class (GTK_WIDGET (entry), "input-wanted"));
  g_assert_true (sp_test_wait_for (focus_in_entry, entry, 5000));
  g_assert_false (gtk_widget_has_focus (before));

  gtk_editable_set_text (GTK_EDITABLE (entry), "7");
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (sp_test_wait_for (says_got, window, 20000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  gtk_text_buffer_set_modified (buffer, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* An open line and then quiet is not a wait when the program is busy:
 * a prompt-like line followed by work is never called "waiting". */
static void
test_quiet_work_is_not_waiting (void)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  gint64 until;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer,
                            "import time\nprint('thinking: ', end='', flush=True)\n"
                            "time.sleep(2)\nprint('done')\n",
                            -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  until = g_get_monotonic_time () + 1500 * 1000;
  while (g_get_monotonic_time () < until && sp_window_get_running (window))
    {
      g_main_context_iteration (NULL, FALSE);
      g_assert_false (says_waiting (window));
      g_usleep (1000);
    }
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  gtk_text_buffer_set_modified (buffer, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* With a 1 s time limit, an input() answered after 2.5 s still ends
 * normally: the time limit stood still while the program waited. */
static void
test_wait_outlives_time_limit (void)
{
  g_autoptr (GSettings) settings = g_settings_new ("io.github.sandpad.Sandpad");
  SpWindow *window = sp_window_new (app);
  SpExecPanel *panel = SP_EXEC_PANEL (sp_window_get_exec_panel (window));
  GtkEntry *entry = sp_exec_panel_get_input_entry (panel);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  gint64 until;

  g_settings_set_uint (settings, "run-timeout-seconds", 1);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer, "n = input('n? ')\nprint('got', n)\n", -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (says_waiting, window, 20000));
  until = g_get_monotonic_time () + 2500 * 1000;
  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_true (sp_window_get_running (window));
  gtk_editable_set_text (GTK_EDITABLE (entry), "7");
  g_signal_emit_by_name (entry, "activate");
  g_assert_true (sp_test_wait_for (says_got, window, 20000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  g_test_message ("status: %s", status_text (window));
  g_assert_null (strstr (status_text (window), "time limit"));
  g_settings_reset (settings, "run-timeout-seconds");
  gtk_text_buffer_set_modified (buffer, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A progress bar rewritten with \r pauses too, but is not a prompt. */
static void
test_progress_is_not_a_prompt (void)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  gint64 until;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer,
                            "import sys, time\nsys.stdout.write('\\r 50%')\nsys.stdout.flush()\n"
                            "time.sleep(2)\nprint()\n",
                            -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  until = g_get_monotonic_time () + 1500 * 1000;
  while (g_get_monotonic_time () < until && sp_window_get_running (window))
    {
      g_main_context_iteration (NULL, FALSE);
      g_assert_false (says_waiting (window));
      g_usleep (1000);
    }
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
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
  g_test_add_func ("/Sandpad/Input/waits-and-echoes", test_input_waits_and_echoes);
  g_test_add_func ("/Sandpad/Input/progress-is-not-a-prompt", test_progress_is_not_a_prompt);
  g_test_add_func ("/Sandpad/Input/no-prompt-waits", test_no_prompt_waits);
  g_test_add_func ("/Sandpad/Input/quiet-work-is-not-waiting", test_quiet_work_is_not_waiting);
  g_test_add_func ("/Sandpad/Input/wait-outlives-time-limit", test_wait_outlives_time_limit);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
