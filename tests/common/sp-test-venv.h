/* sp-test-venv.h: where a venv made by /usr/bin/python3 keeps its
 * packages. The directory is named after the interpreter's version
 * (lib/python3.11 on Debian 12, lib/python3.13 on Debian 13), so tests
 * look it up instead of naming one. */
#pragma once

#include <glib.h>

/* VENV/lib/python3.X/site-packages, or NULL when the venv has none. */
static inline char *
sp_test_venv_site_packages (const char *venv)
{
  g_autofree char *lib = g_build_filename (venv, "lib", NULL);
  g_autoptr (GDir) dir = g_dir_open (lib, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      if (g_str_has_prefix (name, "python3."))
        return g_build_filename (lib, name, "site-packages", NULL);
    }
  return NULL;
}
