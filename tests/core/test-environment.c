/* test-environment.c: the app's side of environments (sp-environment.c)
 * and a run request naming one, through the real runner as the app
 * starts it (--allow-any-environment): the venv's packages import. */
#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "sp-environment.h"
#include "sp-test-client.h"
#include "sp-test-venv.h"

typedef struct
{
  char *root; /* the workspace */
  char *venv; /* root/.venv */
  char *deep; /* root/a/b */
} Workspace;

static void
workspace_init (Workspace *ws)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("sandpad-core-env-XXXXXX", &error);
  g_autofree char *site = NULL;
  int status = 0;

  g_assert_no_error (error);
  ws->root = g_canonicalize_filename (tmp, NULL);
  g_chmod (ws->root, 0755);
  ws->venv = g_build_filename (ws->root, ".venv", NULL);
  ws->deep = g_build_filename (ws->root, "a", "b", NULL);
  g_assert_cmpint (g_mkdir_with_parents (ws->deep, 0755), ==, 0);
  const char *argv[] = { "/usr/bin/python3", "-m",     "venv", "--system-site-packages",
                         "--without-pip",    ws->venv, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                               &status, &error));
  g_assert_no_error (error);
  g_assert_cmpint (status, ==, 0);
  /* A module and a distribution's metadata, as an install leaves them. */
  site = sp_test_venv_site_packages (ws->venv);
  g_assert_nonnull (site);
  g_autofree char *module = g_build_filename (site, "corepkg.py", NULL);
  g_autofree char *dist = g_build_filename (site, "corepkg-2.5.dist-info", NULL);
  g_assert_true (g_file_set_contents (module, "WORD = 'from-core'\n", -1, &error));
  g_assert_cmpint (g_mkdir (dist, 0755), ==, 0);
  g_chmod (module, 0644);
}

static void
workspace_clear (Workspace *ws)
{
  const char *argv[] = { "rm", "-rf", ws->root, NULL };
  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                NULL);
  g_free (ws->root);
  g_free (ws->venv);
  g_free (ws->deep);
}

static void
test_find (void)
{
  Workspace ws;
  g_autofree char *above = NULL;

  workspace_init (&ws);
  g_autofree char *found = sp_environment_find ("python", ws.deep, ws.root);
  g_assert_cmpstr (found, ==, ws.venv);
  /* Never above the workspace. */
  g_autofree char *stopped = sp_environment_find ("python", ws.deep, ws.deep);
  g_assert_null (stopped);
  g_autofree char *bash = sp_environment_find ("bash", ws.deep, ws.root);
  g_assert_null (bash);
  /* A directory named .venv without pyvenv.cfg is not a venv. */
  above = g_build_filename (ws.deep, ".venv", NULL);
  g_assert_cmpint (g_mkdir (above, 0755), ==, 0);
  g_autofree char *skipped = sp_environment_find ("python", ws.deep, ws.root);
  g_assert_cmpstr (skipped, ==, ws.venv);
  workspace_clear (&ws);
}

static void
test_list (void)
{
  Workspace ws;
  g_autoptr (GError) error = NULL;

  workspace_init (&ws);
  g_auto (GStrv) packages = sp_environment_list_packages (ws.venv, &error);
  g_assert_no_error (error);
  g_assert_true (g_strv_contains ((const char *const *) packages, "corepkg 2.5"));
  g_auto (GStrv) none = sp_environment_list_packages ("/nonexistent-venv", &error);
  g_assert_null (none);
  g_assert_nonnull (error);
  /* Made with --system-site-packages: the system's import too (the
   * dialog says so); a pyvenv.cfg that says false, and none, do not. */
  g_assert_true (sp_environment_includes_system (ws.venv));
  g_autofree char *cfg = g_build_filename (ws.venv, "pyvenv.cfg", NULL);
  g_assert_true (
    g_file_set_contents (cfg, "home = /usr/bin\ninclude-system-site-packages = false\n", -1, NULL));
  g_assert_false (sp_environment_includes_system (ws.venv));
  g_assert_false (sp_environment_includes_system ("/nonexistent-venv"));
  workspace_clear (&ws);
}

static void
test_run (void)
{
  Workspace ws;
  Started started;
  Recorder rec;
  const char *args[] = { "--allow-any-environment", NULL };
  g_autoptr (GError) error = NULL;

  workspace_init (&ws);
  if (geteuid () == 0)
    {
      /* Runs are nobody's under a root runner: the venv must be readable. */
      const char *argv[] = { "chmod", "-R", "a+rX", ws.root, NULL };
      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, NULL,
                    NULL);
    }
  SpRunnerClient *client = client_start (g_getenv ("SANDPAD_RUNNER"), args, 0, &started);
  recorder_init (&rec, client);
  g_assert_true (sp_test_wait_for (start_done, &started, 15000));
  g_assert_true (started.ok);

  g_autoptr (SpRunRequest) request
    = sp_run_request_new ("python", "import sys, corepkg\nprint(corepkg.WORD, sys.prefix)\n");
  sp_run_request_set_environment (request, ws.venv);
  g_assert_cmpstr (sp_run_request_get_environment (request), ==, ws.venv);
  g_autofree char *id = sp_runner_client_run (client, request, &error);
  g_assert_no_error (error);
  RunLog *log = recorder_wait (&rec, id, "qsoe", 30000);
  g_autofree char *want = g_strdup_printf ("from-core %s\n", ws.venv);
  g_assert_cmpstr (log->out->str, ==, want);

  /* Control: the same code without the environment fails to import. */
  g_autoptr (SpRunRequest) plain = sp_run_request_new ("python", "import corepkg\n");
  g_autofree char *id2 = sp_runner_client_run (client, plain, &error);
  g_assert_no_error (error);
  RunLog *log2 = recorder_wait (&rec, id2, "qsoe", 30000);
  g_assert_nonnull (strstr (log2->err->str, "ModuleNotFoundError"));

  recorder_clear (&rec);
  sp_runner_client_stop (client);
  finalize_when_idle (client);
  workspace_clear (&ws);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Environment/find", test_find);
  g_test_add_func ("/Sandpad/Environment/list", test_list);
  g_test_add_func ("/Sandpad/Environment/run", test_run);
  return g_test_run ();
}
