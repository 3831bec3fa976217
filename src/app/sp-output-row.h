/* sp-output-row.h: one row of the output list.
 *
 * Shows one SpOutputItem: a chunk of output (stdout, stderr, input,
 * notices; colours and traceback links as markup), an error's summary
 * and the frames that lead to it, an image (decoded elsewhere: the row
 * shows the item's texture, a placeholder or why it cannot be shown) or a
 * file the run made (its first lines or a CSV table, and actions), or a
 * table the run displayed (a DataFrame, sp-table-view.h). The
 * list view reuses rows: bind shows another item in the same row, and
 * the panel decides when (sp-exec-panel.c). What outlives a row, opening
 * and saving a file, decoding an image, a line of the snippet, is asked
 * of the panel by signal. */
#pragma once

#include <gtk/gtk.h>

#include "sp-output-item.h"

G_BEGIN_DECLS

#define SP_TYPE_OUTPUT_ROW (sp_output_row_get_type ())
G_DECLARE_FINAL_TYPE (SpOutputRow, sp_output_row, SP, OUTPUT_ROW, GtkWidget)

/* cancellable stops the previews being read when the panel goes (it
 * outlives the rows, which the list view makes and drops as it likes). */
GtkWidget *sp_output_row_new (GCancellable *cancellable);

/* Shows item; snippet_name is the snippet's name in the run (main.py) and
 * display_name the user's name for it, so error text links each place in
 * the snippet to its line under the name the user knows. */
void sp_output_row_bind (SpOutputRow *self, SpOutputItem *item, const char *snippet_name,
                         const char *display_name);
/* The item last bound, or NULL. */
SpOutputItem *sp_output_row_get_item (SpOutputRow *self);
/* The SpTableView of a row that has shown a table, or NULL. */
GtkWidget *sp_output_row_get_table_view (SpOutputRow *self);

/* Signals, each the user's request:
 * "goto-line" (int line): show this line of the snippet (1-based);
 * "open-file" (SpOutputItem *): open a text file the run made;
 * "save-file" (SpOutputItem *): Save As a file the run made;
 * "show-image" (SpOutputItem *): decode a withheld image after all;
 * "copy-line", "save-line" (SpOutputItem *): the whole of a folded line
 * (sp_output_item_get_folded), to the clipboard or a file. */

G_END_DECLS
