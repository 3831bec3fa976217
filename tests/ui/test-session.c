/* test-session.c: "Keep state between runs" in a real window under Xvfb,
 * against the real runner. With the toggle on, `x = 41` then
 * `print(x + 1)` shows 42; Restart forgets x (NameError); with the toggle
 * off (the control), the second run never knew x; the policy card says
 * "session" while the toggle is on. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <string.h>

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

static char *
output_text (SpWindow *window, SpOutputKind kind)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  GString *text = g_string_new (NULL);

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == kind)
        g_string_append (text, sp_output_item_get_text (item));
    }
  return g_string_free (text, FALSE);
}

/* Runs code in the window and waits for the run to end. */
static void
run (SpWindow *window, const char *code)
{
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 30000));
  g_assert_true (sp_test_wait_for (is_idle, window, 60000));
}

static void
set_keep_state (SpWindow *window, gboolean on)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (window), "keep-state");

  g_assert_nonnull (action);
  g_action_change_state (action, g_variant_new_boolean (on));
}

static SpWindow *
new_window (void)
{
  SpWindow *window = sp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  return window;
}

static void
test_keep_state (void)
{
  SpWindow *window = new_window ();
  SpExecPanel *panel = SP_EXEC_PANEL (sp_window_get_exec_panel (window));
  g_autofree char *policy_off = NULL, *policy_on = NULL;
  g_autofree char *out = NULL, *err = NULL;

  policy_off = sp_exec_panel_get_policy_text (panel);
  g_assert_null (strstr (policy_off, "session"));
  set_keep_state (window, TRUE);
  policy_on = sp_exec_panel_get_policy_text (panel);
  g_test_message ("policy with the toggle on: %s", policy_on);
  g_assert_nonnull (strstr (policy_on, "session"));

  run (window, "x = 41\n");
  run (window, "print(x + 1)\n");
  out = output_text (window, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "42\n");

  /* Restart forgets x: the next run fails with NameError, in line 1. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.restart-session", NULL));
  run (window, "print(x + 1)\n");
  err = output_text (window, SP_OUTPUT_STDERR);
  g_test_message ("stderr after Restart: %s", err);
  g_assert_nonnull (strstr (err, "NameError: name 'x' is not defined"));
  g_assert_nonnull (strstr (err, "line 1"));
  close_window (window);
}

/* Chooses the language the menu calls name. */
static void
choose_language (SpWindow *window, const char *name)
{
  GtkDropDown *dropdown = GTK_DROP_DOWN (
    sp_ui_test_find_of_type (GTK_WIDGET (window), GTK_TYPE_DROP_DOWN));
  GListModel *menu = gtk_drop_down_get_model (dropdown);
  guint index = G_MAXUINT;

  for (guint i = 0; i < g_list_model_get_n_items (menu); i++)
    if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (menu), i), name) == 0)
      index = i;
  g_assert_cmpuint (index, !=, G_MAXUINT);
  gtk_drop_down_set_selected (dropdown, index);
}

/* R keeps its state too (issue 42), in a session of its own: Python's
 * runs between two R runs neither see R's variables nor end them, and
 * Restart forgets both. */
static void
test_keep_state_r (void)
{
  SpWindow *window;
  const char *const *have = sp_runner_supervisor_get_languages (
    sp_application_get_supervisor (app));
  g_autofree char *out = NULL, *py = NULL, *err = NULL;

  if (have == NULL || !g_strv_contains (have, "r"))
    {
      g_test_skip ("R is not installed here");
      return;
    }
  window = new_window ();
  set_keep_state (window, TRUE);
  choose_language (window, "R");
  run (window, "x <- 41\n");
  choose_language (window, "Python");
  run (window, "print('x' in dir())\n");
  py = output_text (window, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (py, ==, "False\n");
  choose_language (window, "R");
  run (window, "x + 1\n");
  out = output_text (window, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "[1] 42\n");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.restart-session", NULL));
  run (window, "x + 1\n");
  err = output_text (window, SP_OUTPUT_STDERR);
  g_test_message ("stderr after Restart: %s", err);
  g_assert_nonnull (strstr (err, "object 'x' not found"));
  /* New windows take the language last chosen: Python again. */
  choose_language (window, "Python");
  close_window (window);
}

static void
test_off_is_fresh (void)
{
  SpWindow *window = new_window ();
  g_autofree char *err = NULL;

  /* The control: the same two runs without the toggle. */
  run (window, "x = 41\n");
  run (window, "print(x + 1)\n");
  err = output_text (window, SP_OUTPUT_STDERR);
  g_assert_nonnull (strstr (err, "NameError"));
  close_window (window);
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
  g_test_add_func ("/Sandpad/Session/keep-state", test_keep_state);
  g_test_add_func ("/Sandpad/Session/keep-state-r", test_keep_state_r);
  g_test_add_func ("/Sandpad/Session/off-is-fresh", test_off_is_fresh);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
