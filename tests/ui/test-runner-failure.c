/* test-runner-failure.c: a runner that keeps failing is never a dead end,
 * in a real window under Xvfb.
 *
 * The app's runner is a wrapper around the real sandpad-runner that fails
 * at once (exit 3, as a runner missing a library would) while a flag file
 * exists, and otherwise records its pid and becomes the real runner. So the
 * test can make the runner fail, let it work again, and kill it. */
#include "config.h"

#include <signal.h>

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;
static char *dir;

static char *
in_dir (const char *name)
{
  return g_build_filename (dir, name, NULL);
}

static void
set_crashing (gboolean crashing)
{
  g_autofree char *flag = in_dir ("crash");

  if (crashing)
    g_assert_true (g_file_set_contents (flag, "", 0, NULL));
  else
    g_unlink (flag);
}

/* How many times the app started its runner. */
static guint
n_starts (void)
{
  g_autofree char *path = in_dir ("starts");
  g_autofree char *text = NULL;
  guint n = 0;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return 0;
  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

static void
kill_runner (void)
{
  g_autofree char *path = in_dir ("pid");
  g_autofree char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_assert_cmpint (kill ((pid_t) g_ascii_strtoll (text, NULL, 10), SIGKILL), ==, 0);
}

static SpRunnerState
state (void)
{
  return sp_runner_supervisor_get_state (sp_application_get_supervisor (app));
}

static gboolean
is_failed (gpointer data)
{
  return state () == SP_RUNNER_STATE_FAILED;
}

static gboolean
is_ready (gpointer data)
{
  return state () == SP_RUNNER_STATE_READY;
}

static gboolean
more_starts (gpointer data)
{
  return n_starts () > GPOINTER_TO_UINT (data);
}

static void
iterate (void)
{
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
}

static GtkWidget *
find_widget (GtkWidget *widget, GType type, const char *css_class)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type)
      && (css_class == NULL || gtk_widget_has_css_class (widget, css_class)))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type, css_class);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_action_button (GtkWidget *widget, const char *action)
{
  if (GTK_IS_BUTTON (widget)
      && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_action_button (child, action);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The strip that says the runner failed, or NULL when it is not shown. */
static GtkLabel *
shown_banner (SpWindow *window)
{
  GtkWidget *revealer = find_widget (GTK_WIDGET (window), GTK_TYPE_REVEALER, NULL);
  GtkWidget *strip;

  g_assert_nonnull (revealer);
  if (!gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)))
    return NULL;
  strip = find_widget (revealer, GTK_TYPE_BOX, "sp-runner-banner");
  g_assert_nonnull (strip);
  return GTK_LABEL (find_widget (strip, GTK_TYPE_LABEL, NULL));
}

static const char *
status_text (SpWindow *window)
{
  GtkWidget *label = find_widget (sp_window_get_exec_panel (window), GTK_TYPE_LABEL, "sp-status");

  g_assert_nonnull (label);
  return gtk_label_get_text (GTK_LABEL (label));
}

static gboolean
output_has (SpWindow *window, const char *needle)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (strstr (sp_output_item_get_text (item), needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
run_code (SpWindow *window, const char *code)
{
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
}

static void
test_failure_is_not_a_dead_end (void)
{
  SpWindow *first, *second;
  GtkLabel *banner;
  GtkWidget *retry;
  g_autofree char *policy = NULL;
  guint starts;

  /* The runner failed from the start: the supervisor gave up. */
  g_assert_true (sp_test_wait_for (is_failed, NULL, 20000));

  /* A window opened now tries again by itself (and fails again). */
  starts = n_starts ();
  first = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (first));
  g_assert_true (sp_test_wait_for (more_starts, GUINT_TO_POINTER (starts), 10000));
  g_assert_true (sp_test_wait_for (is_failed, NULL, 20000));
  iterate ();

  /* It says what happened, offers Retry, and no longer claims to start. */
  banner = shown_banner (first);
  g_assert_nonnull (banner);
  g_test_message ("banner: %s", gtk_label_get_text (banner));
  /* In the supervisor's words: why the runner was last lost. */
  g_assert_nonnull (sp_runner_supervisor_get_last_error (sp_application_get_supervisor (app)));
  g_assert_nonnull (strstr (gtk_label_get_text (banner), sp_runner_supervisor_get_last_error (
                                                           sp_application_get_supervisor (app))));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (GTK_WIDGET (banner)), ==,
                   gtk_label_get_text (banner));
  policy = sp_exec_panel_get_policy_text (SP_EXEC_PANEL (sp_window_get_exec_panel (first)));
  g_assert_null (strstr (policy, "Starting"));
  g_assert_false (gtk_widget_is_sensitive (find_action_button (GTK_WIDGET (first), "win.run")));
  retry = find_button (GTK_WIDGET (first), "_Retry");
  g_assert_nonnull (retry);
  g_assert_true (gtk_widget_is_sensitive (retry));

  /* The cause is gone; Retry brings the runner back and Run works. */
  set_crashing (FALSE);
  g_signal_emit_by_name (retry, "clicked");
  g_assert_true (sp_test_wait_for (is_ready, NULL, 20000));
  iterate ();
  g_assert_null (shown_banner (first));
  g_assert_true (gtk_widget_is_sensitive (find_action_button (GTK_WIDGET (first), "win.run")));
  run_code (first, "print('back again')\n");
  g_assert_true (sp_test_wait_for (is_idle, first, 30000));
  g_assert_true (output_has (first, "back again"));

  /* The runner dies under a run: the status says so, and once the new
   * runner is up the message is gone. */
  run_code (first, "import time\ntime.sleep(60)\n");
  g_assert_true (sp_test_wait_for (is_running, first, 10000));
  kill_runner ();
  g_assert_true (sp_test_wait_for (is_idle, first, 10000));
  g_assert_nonnull (strstr (status_text (first), "stopped unexpectedly"));
  g_assert_true (sp_test_wait_for (is_ready, NULL, 20000));
  iterate ();
  g_test_message ("status after the restart: %s", status_text (first));
  g_assert_null (strstr (status_text (first), "stopped unexpectedly"));

  /* It fails for good again; a new window brings it back by itself, and
   * the first window's banner goes away too. */
  set_crashing (TRUE);
  kill_runner ();
  g_assert_true (sp_test_wait_for (is_failed, NULL, 20000));
  iterate ();
  g_assert_nonnull (shown_banner (first));
  set_crashing (FALSE);
  second = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (second));
  g_assert_true (sp_test_wait_for (is_ready, NULL, 20000));
  iterate ();
  g_assert_null (shown_banner (first));
  g_assert_null (shown_banner (second));
  run_code (second, "print('second window')\n");
  g_assert_true (sp_test_wait_for (is_idle, second, 30000));
  g_assert_true (output_has (second, "second window"));

  close_window (second);
  close_window (first);
}

/* The wrapper the app starts as its runner. */
static char *
write_wrapper (void)
{
  char *path = in_dir ("runner");
  g_autofree char *script
    = g_strdup_printf ("#!/bin/sh\n"
                       "echo start >> '%s/starts'\n"
                       "if [ -e '%s/crash' ]; then echo 'failing on purpose' >&2; exit 3; fi\n"
                       "echo $$ > '%s/pid'\n"
                       "exec '%s' \"$@\"\n",
                       dir, dir, dir, g_getenv ("SANDPAD_RUNNER"));

  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return path;
}

int
main (int argc, char **argv)
{
  g_autofree char *wrapper = NULL;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  dir = g_dir_make_tmp ("sp-runner-failure-XXXXXX", NULL);
  g_assert_nonnull (dir);
  wrapper = write_wrapper ();
  g_setenv ("SANDPAD_RUNNER", wrapper, TRUE);
  set_crashing (TRUE);

  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/RunnerFailure/not-a-dead-end", test_failure_is_not_a_dead_end);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  for (const char *const *name = (const char *const[]){ "runner", "starts", "pid", "crash", NULL };
       *name != NULL; name++)
    {
      g_autofree char *path = in_dir (*name);
      g_unlink (path);
    }
  g_rmdir (dir);
  g_free (dir);
  return ret;
}
