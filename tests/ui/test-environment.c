/* test-environment.c: a saved Python file in a folder with a .venv, in a
 * real window under Xvfb with the real runner as the app starts it: the
 * policy card names the environment, and the run imports the venv's
 * module. Control: the same file without the venv cannot. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <unistd.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-test-venv.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static gboolean
buffer_has_text (gpointer data)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (data));
  return gtk_text_buffer_get_char_count (buffer) > 0;
}

static char *
stdout_text (SpWindow *window)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  GString *text = g_string_new (NULL);

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == SP_OUTPUT_STDOUT)
        g_string_append (text, sp_output_item_get_text (item));
    }
  return g_string_free (text, FALSE);
}

static char *
run_file (const char *path, char **card)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SpWindow *window = sp_window_new (app);
  char *out;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 560);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (buffer_has_text, window, 5000));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000) || is_idle (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
  out = stdout_text (window);
  /* The card as the run left it (refreshed when the run started). */
  *card = sp_exec_panel_get_policy_text (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  close_window (window);
  return out;
}

static void
test_venv (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sandpad-ui-env-XXXXXX", NULL);
  g_autofree char *dir = g_canonicalize_filename (tmp, NULL);
  g_autofree char *venv = g_build_filename (dir, ".venv", NULL);
  g_autofree char *script = g_build_filename (dir, "probe.py", NULL);
  g_autofree char *site = NULL;
  g_autofree char *module = NULL;
  const char *argv[] = { "/usr/bin/python3", "-m", "venv", "--system-site-packages",
                         "--without-pip",    venv, NULL };
  const char *chmod_argv[] = { "chmod", "-R", "a+rX", dir, NULL };
  const char *rm_argv[] = { "rm", "-rf", venv, NULL };
  g_autofree char *card = NULL;
  g_autofree char *card2 = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                               &status, NULL));
  g_assert_cmpint (status, ==, 0);
  site = sp_test_venv_site_packages (venv);
  g_assert_nonnull (site);
  module = g_build_filename (site, "uipkg.py", NULL);
  g_assert_true (g_file_set_contents (module, "WORD = 'from-the-ui-venv'\n", -1, NULL));
  g_assert_true (g_file_set_contents (script, "import uipkg\nprint(uipkg.WORD)\n", -1, NULL));
  g_spawn_sync (NULL, (char **) chmod_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                NULL);

  g_autofree char *out = run_file (script, &card);
  g_test_message ("card: %s", card);
  g_assert_nonnull (strstr (card, venv));
  g_assert_nonnull (strstr (card, "read-only"));
  g_assert_cmpstr (out, ==, "from-the-ui-venv\n");

  /* Control: without the venv the module is not there. */
  g_spawn_sync (NULL, (char **) rm_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                NULL);
  g_autofree char *out2 = run_file (script, &card2);
  g_assert_null (strstr (card2, ".venv"));
  g_assert_cmpstr (out2, ==, "");
  g_unlink (script);
  g_rmdir (dir);
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
  g_test_add_func ("/Sandpad/UI/environment", test_venv);
  ret = g_test_run ();
  g_object_unref (app);
  return ret;
}
