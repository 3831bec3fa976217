/* sp-window-display.c: a run's rich results with an image (a Python
 * value such as a PIL image, a LaTeX formula, display()ed PNGs) shown in
 * the panel among what the run printed (issue 25).
 *
 * The runner sends the image inside a display event, not as a file: the
 * window writes it into a private folder of its own (0700, removed with
 * the window, emptied when another run shows one) and shows it as it
 * shows a plot, decoded by the sandboxed helper, never in the app. */
#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sp-exec-panel.h"
#include "sp-window-private.h"

static void
remove_files (const char *dir)
{
  g_autoptr (GDir) handle = g_dir_open (dir, 0, NULL);
  const char *name;

  while (handle != NULL && (name = g_dir_read_name (handle)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_unlink (path);
    }
}

void
_sp_window_display_dispose (SpWindow *self)
{
  if (self->display_dir != NULL)
    {
      remove_files (self->display_dir);
      g_rmdir (self->display_dir);
    }
  g_clear_pointer (&self->display_dir, g_free);
  g_clear_pointer (&self->display_run, g_free);
}

void
_sp_window_display_image (SpWindow *self, const char *run_id, const char *text, GBytes *png)
{
  g_autoptr (GError) error = NULL;

  if (self->display_dir == NULL)
    self->display_dir = g_dir_make_tmp ("sandpad-display-XXXXXX", &error);
  if (self->display_dir == NULL)
    {
      sp_output_model_append (self->output, SP_OUTPUT_NOTICE, error->message);
      return;
    }
  /* Only the shown run's images are kept. */
  if (g_strcmp0 (self->display_run, run_id) != 0)
    {
      remove_files (self->display_dir);
      g_free (self->display_run);
      self->display_run = g_strdup (run_id);
      self->display_count = 0;
    }
  self->display_count++;
  g_autofree char *name = g_strdup_printf ("result-%u.png", self->display_count);
  g_autofree char *path = g_build_filename (self->display_dir, name, NULL);
  gsize len = 0;
  const char *data = g_bytes_get_data (png, &len);
  if (!g_file_set_contents_full (path, data, (gssize) len, G_FILE_SET_CONTENTS_NONE, 0600,
                                 &error))
    {
      g_autofree char *line = g_strconcat (text, "\n", NULL);
      sp_output_model_append (self->output, SP_OUTPUT_STDOUT, line);
      return;
    }
  /* Translators: an image a program showed as a result; %u counts them. */
  g_autofree char *label = g_strdup_printf (_("Result %u"), self->display_count);
  g_autoptr (SpOutputItem) item = sp_output_item_new_image (path, label);
  sp_output_item_set_source (item, self->display_dir, name);
  sp_output_item_set_size (item, (gint64) len);
  sp_output_model_append_item (self->output, item);
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (items, g_object_ref (item));
  sp_exec_panel_add_images (self->exec_panel, items, self->image_budget,
                            self->decode_cancellable);
}
