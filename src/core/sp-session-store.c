/* sp-session-store.c: the open windows, in a key file. */
#define G_LOG_DOMAIN "sp-session"

#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>

#include "sp-session-store.h"

#define VERSION_GROUP "Sandpad Session"

void
sp_session_window_free (SpSessionWindow *window)
{
  if (window == NULL)
    return;
  g_free (window->path);
  g_free (window->autosave_id);
  g_free (window->language);
  g_free (window);
}

char *
sp_session_store_default_path (void)
{
  return g_build_filename (g_get_user_state_dir (), "sandpad", "session.ini", NULL);
}

gboolean
sp_session_store_save (const char *path, GPtrArray *windows, GError **error)
{
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *data = NULL;
  gsize len = 0;

  g_key_file_set_integer (file, VERSION_GROUP, "Version", 1);
  g_key_file_set_integer (file, VERSION_GROUP, "Windows", (int) windows->len);
  for (guint i = 0; i < windows->len; i++)
    {
      const SpSessionWindow *w = g_ptr_array_index (windows, i);
      g_autofree char *group = g_strdup_printf ("Window %u", i);

      if (w->path != NULL)
        {
          /* A URI keeps any file name intact. */
          g_autofree char *uri = g_filename_to_uri (w->path, NULL, NULL);
          if (uri != NULL)
            g_key_file_set_string (file, group, "Uri", uri);
        }
      if (w->autosave_id != NULL)
        g_key_file_set_string (file, group, "Autosave", w->autosave_id);
      if (w->language != NULL)
        g_key_file_set_string (file, group, "Language", w->language);
      if (w->panel_fraction > 0)
        g_key_file_set_double (file, group, "PanelFraction", w->panel_fraction);
    }
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  data = g_key_file_to_data (file, &len, NULL);
  return g_file_set_contents_full (path, data, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                   error);
}

GPtrArray *
sp_session_store_load (const char *path, GError **error)
{
  g_autoptr (GPtrArray) windows = g_ptr_array_new_with_free_func (
    (GDestroyNotify) sp_session_window_free);
  g_autoptr (GKeyFile) file = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  int n;

  if (!g_key_file_load_from_file (file, path, G_KEY_FILE_NONE, &local))
    {
      if (g_error_matches (local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        return g_steal_pointer (&windows);
      g_propagate_prefixed_error (error, g_steal_pointer (&local), "%s: ", path);
      return NULL;
    }
  n = g_key_file_get_integer (file, VERSION_GROUP, "Windows", &local);
  if (local != NULL || n < 0 || n > 1000
      || g_key_file_get_integer (file, VERSION_GROUP, "Version", NULL) != 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: not a Sandpad session", path);
      return NULL;
    }
  for (int i = 0; i < n; i++)
    {
      g_autofree char *group = g_strdup_printf ("Window %d", i);
      g_autofree char *uri = g_key_file_get_string (file, group, "Uri", NULL);
      SpSessionWindow *w;

      if (!g_key_file_has_group (file, group))
        continue;
      w = g_new0 (SpSessionWindow, 1);
      w->path = uri != NULL ? g_filename_from_uri (uri, NULL, NULL) : NULL;
      w->autosave_id = g_key_file_get_string (file, group, "Autosave", NULL);
      w->language = g_key_file_get_string (file, group, "Language", NULL);
      w->panel_fraction = g_key_file_get_double (file, group, "PanelFraction", NULL);
      g_ptr_array_add (windows, w);
    }
  return g_steal_pointer (&windows);
}
