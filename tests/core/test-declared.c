/* test-declared.c: what Run asks before a Python snippet with a PEP 723
 * block runs (sp-declared.c), against the real sandpad-run: whether there
 * is a block at all, and which declared specs an environment lacks, as
 * the runner's one parser reads them. */
#include "config.h"

#include <glib/gstdio.h>

#include "sp-declared.h"

#define SCRIPT                                                                                     \
  "# /// script\n"                                                                                 \
  "# dependencies = [\"tinypkg\", \"other-pkg==2.0\"]\n"                                           \
  "# ///\n"                                                                                        \
  "import tinypkg\n"

static void
test_has_block (void)
{
  g_assert_true (sp_declared_has_block (SCRIPT));
  g_assert_true (sp_declared_has_block ("x = 1\n# /// script  \r\n# ///\n"));
  /* Controls: the opening line exactly, at the start of a line. */
  g_assert_false (sp_declared_has_block ("print('hello')\n"));
  g_assert_false (sp_declared_has_block ("x = 1  # /// script\n"));
  g_assert_false (sp_declared_has_block ("# /// scripts\n"));
  g_assert_false (sp_declared_has_block ("# /// pyproject\n"));
  g_assert_false (sp_declared_has_block (""));
}

static void
on_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  GAsyncResult **out = user_data;
  *out = g_object_ref (result);
}

static GStrv
list (const char *code, const char *environment, GError **error)
{
  g_autoptr (GAsyncResult) result = NULL;

  sp_declared_list_async (code, environment, NULL, on_listed, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  return sp_declared_list_finish (result, error);
}

/* A venv as far as the listing reads one: pyvenv.cfg, and a dist-info
 * directory per installed distribution. */
static char *
make_venv (const char *const *dists)
{
  g_autofree char *root = g_dir_make_tmp ("sandpad-declared-XXXXXX", NULL);
  char *venv = g_build_filename (root, ".venv", NULL);
  g_autofree char *site = g_build_filename (venv, "lib", "python3.11", "site-packages", NULL);
  g_autofree char *cfg = g_build_filename (venv, "pyvenv.cfg", NULL);

  g_assert_cmpint (g_mkdir_with_parents (site, 0755), ==, 0);
  g_assert_true (g_file_set_contents (
    cfg, "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n", -1, NULL));
  for (guint i = 0; dists != NULL && dists[i] != NULL; i++)
    {
      g_autofree char *d = g_build_filename (site, dists[i], NULL);
      g_assert_cmpint (g_mkdir (d, 0755), ==, 0);
    }
  return venv;
}

static void
remove_venv (const char *venv)
{
  g_autofree char *root = g_path_get_dirname (venv);
  const char *argv[] = { "rm", "-rf", root, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               NULL, NULL, NULL));
}

static void
test_list (void)
{
  const char *none[] = { NULL };
  const char *some[] = { "tinypkg-1.0.dist-info", "other_pkg-1.0.dist-info", NULL };
  const char *all[] = { "tinypkg-1.0.dist-info", "Other_Pkg-2.0.dist-info", NULL };
  g_autofree char *empty = make_venv (none);
  g_autofree char *partly = make_venv (some);
  g_autofree char *full = make_venv (all);
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) specs = NULL;

  /* No environment chosen: every declared spec, to say so. */
  specs = list (SCRIPT, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (specs), ==, 2);
  g_assert_cmpstr (specs[0], ==, "tinypkg");
  g_assert_cmpstr (specs[1], ==, "other-pkg==2.0");
  g_clear_pointer (&specs, g_strfreev);
  specs = list (SCRIPT, empty, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (specs), ==, 2);
  g_clear_pointer (&specs, g_strfreev);
  /* tinypkg is there; other-pkg too, but not the pinned version. */
  specs = list (SCRIPT, partly, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (specs), ==, 1);
  g_assert_cmpstr (specs[0], ==, "other-pkg==2.0");
  g_clear_pointer (&specs, g_strfreev);
  specs = list (SCRIPT, full, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (specs), ==, 0);
  g_clear_pointer (&specs, g_strfreev);
  /* Control: no block, nothing to install. */
  specs = list ("import tinypkg\n", NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (g_strv_length (specs), ==, 0);
  g_clear_pointer (&specs, g_strfreev);
  /* A malformed block: the runner's words, its line. */
  specs = list ("# /// script\n# dependencies = [\"tinypkg\"\nprint(1)\n", empty, &error);
  g_assert_null (specs);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_FAILED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "PEP 723"));
  g_assert_nonnull (strstr (error->message, "line"));
  g_clear_error (&error);
  /* requires-python the environment does not meet. */
  specs = list ("# /// script\n# requires-python = \">=3.99\"\n# dependencies = [\"x\"]\n# ///\n",
                empty, &error);
  g_assert_null (specs);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  remove_venv (empty);
  remove_venv (partly);
  remove_venv (full);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/declared/has-block", test_has_block);
  g_test_add_func ("/Sandpad/declared/list", test_list);
  return g_test_run ();
}
