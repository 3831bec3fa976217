/* sp-test-tree.h: removing a test's temporary directory tree. */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* Removes path and everything beneath it; a symlink is removed, never
 * followed. Best effort: a test's leftovers are not its result. */
static inline void
sp_test_remove_tree (const char *path)
{
  g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);
      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        sp_test_remove_tree (child);
      else
        g_unlink (child);
    }
  g_rmdir (path);
}
