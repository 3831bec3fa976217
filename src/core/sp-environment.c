/* sp-environment.c: finding and listing a workspace's environment; see
 * the header. */
#include "config.h"

#include "sp-environment.h"

#include <gio/gio.h>
#include <string.h>

static gboolean
accept (const char *language, const char *candidate)
{
  if (!g_file_test (candidate, G_FILE_TEST_IS_DIR))
    return FALSE;
  if (g_strcmp0 (language, "python") == 0)
    {
      g_autofree char *cfg = g_build_filename (candidate, "pyvenv.cfg", NULL);
      return g_file_test (cfg, G_FILE_TEST_IS_REGULAR);
    }
  return TRUE;
}

char *
sp_environment_find (const char *language, const char *dir, const char *workspace)
{
  static const char *const python_names[] = { ".venv", "venv", NULL };
  static const char *const js_names[] = { "node_modules", NULL };
  const char *const *names;
  g_autofree char *here = NULL;
  g_autofree char *stop = NULL;

  g_return_val_if_fail (dir != NULL, NULL);
  if (g_strcmp0 (language, "python") == 0)
    names = python_names;
  else if (g_strcmp0 (language, "javascript") == 0)
    names = js_names;
  else
    return NULL;
  here = g_canonicalize_filename (dir, NULL);
  stop = g_canonicalize_filename (workspace != NULL ? workspace : dir, NULL);
  /* Never above the workspace; a file outside it is looked at alone. */
  gboolean inside = g_str_equal (here, stop)
                    || (g_str_has_prefix (here, stop)
                        && (g_str_equal (stop, "/") || here[strlen (stop)] == '/'));
  for (;;)
    {
      for (gsize i = 0; names[i] != NULL; i++)
        {
          g_autofree char *candidate = g_build_filename (here, names[i], NULL);
          if (accept (language, candidate))
            return g_steal_pointer (&candidate);
        }
      if (!inside || g_str_equal (here, stop) || g_str_equal (here, "/"))
        return NULL;
      char *parent = g_path_get_dirname (here);
      g_free (here);
      here = parent;
    }
}

static gint
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

GStrv
sp_environment_list_packages (const char *venv, GError **error)
{
  g_autofree char *lib = g_build_filename (venv, "lib", NULL);
  g_autoptr (GDir) libdir = g_dir_open (lib, 0, error);
  g_autoptr (GPtrArray) out = g_ptr_array_new_with_free_func (g_free);
  const char *python;

  if (libdir == NULL)
    return NULL;
  while ((python = g_dir_read_name (libdir)) != NULL)
    {
      g_autofree char *site = g_build_filename (lib, python, "site-packages", NULL);
      g_autoptr (GDir) sitedir = NULL;
      const char *entry;

      if (!g_str_has_prefix (python, "python"))
        continue;
      sitedir = g_dir_open (site, 0, NULL);
      while (sitedir != NULL && (entry = g_dir_read_name (sitedir)) != NULL)
        {
          /* name-version.dist-info: wheel names use "_" for "-", so the
           * first dash splits them. */
          if (!g_str_has_suffix (entry, ".dist-info"))
            continue;
          g_autofree char *stem = g_strndup (entry, strlen (entry) - strlen (".dist-info"));
          char *dash = strchr (stem, '-');
          if (dash == NULL)
            continue;
          *dash = '\0';
          g_ptr_array_add (out, g_strdup_printf ("%s %s", stem, dash + 1));
        }
    }
  g_ptr_array_sort (out, compare_strings);
  g_ptr_array_add (out, NULL);
  return (GStrv) g_ptr_array_steal (out, NULL);
}

gboolean
sp_environment_includes_system (const char *venv)
{
  g_autofree char *cfg = g_build_filename (venv, "pyvenv.cfg", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  if (!g_file_get_contents (cfg, &text, NULL, NULL))
    return FALSE;
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto (GStrv) pair = g_strsplit (lines[i], "=", 2);

      if (pair[0] != NULL && pair[1] != NULL
          && g_str_equal (g_strstrip (pair[0]), "include-system-site-packages"))
        return g_ascii_strcasecmp (g_strstrip (pair[1]), "true") == 0;
    }
  return FALSE;
}

char *
sp_environment_find_sandpad_run (void)
{
  const char *env = g_getenv ("SANDPAD_RUN");
  g_autofree char *installed = g_build_filename (SANDPAD_BINDIR, "sandpad-run", NULL);

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (g_file_test (installed, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&installed);
  return g_strdup (SANDPAD_UNINSTALLED_RUN);
}
