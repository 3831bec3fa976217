/* sp-window-display.c: a run's rich results with an image (a Python
 * value such as a PIL image, a LaTeX formula, display()ed PNGs) shown in
 * the panel among what the run printed (issue 25).
 *
 * The runner sends the image inside a display event, not as a file. The
 * window keeps its bytes in memory, in the panel's item (at most 3 MiB
 * each, what the runner lets through), and shows it as it shows a plot,
 * decoded by the sandboxed helper, never in the app. They were once
 * written to a folder in /tmp, which an app killed with SIGKILL left
 * behind for any later process of the person to read (issue 29): bytes
 * held by the process go with it. */
#include "config.h"

#include <glib/gi18n.h>

#include "sp-exec-panel.h"
#include "sp-window-private.h"

void
_sp_window_display_dispose (SpWindow *self)
{
  g_clear_pointer (&self->display_run, g_free);
}

void
_sp_window_display_image (SpWindow *self, const char *run_id, GBytes *png)
{
  /* Results are counted per run. */
  if (g_strcmp0 (self->display_run, run_id) != 0)
    {
      g_free (self->display_run);
      self->display_run = g_strdup (run_id);
      self->display_count = 0;
    }
  self->display_count++;
  /* Translators: an image a program showed as a result; %u counts them. */
  g_autofree char *label = g_strdup_printf (_("Result %u"), self->display_count);
  g_autoptr (SpOutputItem) item = sp_output_item_new_image (label, label);
  sp_output_item_set_bytes (item, png);
  sp_output_item_set_size (item, (gint64) g_bytes_get_size (png));
  sp_output_model_append_item (self->output, item);
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (items, g_object_ref (item));
  sp_exec_panel_add_images (self->exec_panel, items, self->image_budget,
                            self->decode_cancellable);
}
