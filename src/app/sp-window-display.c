/* sp-window-display.c: a run's rich results with an image (a Python
 * value such as a PIL image, a LaTeX formula, display()ed PNGs) shown in
 * the panel among what the run printed (issue 25).
 *
 * The runner sends the image inside a display event, not as a file. The
 * window keeps its bytes in memory, in the panel's item (at most 3 MiB
 * each, what the runner lets through), and shows it as it shows a plot,
 * decoded by the sandboxed helper, never in the app. A table (a pandas
 * DataFrame) is shown as a table (sp-table-view.h). Images were once
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

/* "Result 1", "Result 2": results are counted per run. */
static char *
next_label (SpWindow *self, const char *run_id)
{
  if (g_strcmp0 (self->display_run, run_id) != 0)
    {
      g_free (self->display_run);
      self->display_run = g_strdup (run_id);
      self->display_count = 0;
    }
  self->display_count++;
  /* Translators: an image or table a program showed as a result; %u
   * counts them. */
  return g_strdup_printf (_ ("Result %u"), self->display_count);
}

void
_sp_window_display_image (SpWindow *self, const char *run_id, GBytes *png)
{
  g_autofree char *label = next_label (self, run_id);
  g_autoptr (SpOutputItem) item = sp_output_item_new_image (label, label);
  sp_output_item_set_bytes (item, png);
  sp_output_item_set_size (item, (gint64) g_bytes_get_size (png));
  sp_output_model_append_item (self->output, item);
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (items, g_object_ref (item));
  sp_exec_panel_add_images (self->exec_panel, items, self->image_budget, self->decode_cancellable);
}

/* A table (a pandas DataFrame): its rows are the run's text, shown cell by
 * cell as plain text by the row's table view (sp-table-view.h). */
void
_sp_window_display_table (SpWindow *self, const char *run_id, const char *text, SpDataTable *table)
{
  g_autofree char *label = next_label (self, run_id);
  g_autoptr (SpOutputItem) item = sp_output_item_new_table (table, text, label);

  /* Read on a worker thread; the row shows it once it is. */
  sp_data_table_load_async (table, self->decode_cancellable, NULL, NULL);
  sp_output_model_append_item (self->output, item);
}
