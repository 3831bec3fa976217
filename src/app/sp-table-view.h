/* sp-table-view.h: a table a run displayed, as a sortable column view.
 *
 * Each column of the SpDataTable is a column of a GtkColumnView (the index
 * first, as pandas gives it), sorted by clicking its header: numeric
 * columns by value, others as text, empty cells last. Cells are labels set
 * with plain text, never markup. The view shows the sorted rows 40 at a
 * time (Show More Rows adds 40: a list view makes widgets for up to 200
 * rows, a label a cell) and scrolls within a bounded height; a line says
 * how many rows there are and how many are shown, and Copy puts the rows
 * on the clipboard as tab-separated text, in the order shown. */
#pragma once

#include <gtk/gtk.h>

#include "sp-data-table.h"

G_BEGIN_DECLS

#define SP_TYPE_TABLE_VIEW (sp_table_view_get_type ())
G_DECLARE_FINAL_TYPE (SpTableView, sp_table_view, SP, TABLE_VIEW, GtkWidget)

GtkWidget *sp_table_view_new (void);
/* Shows table (NULL: none); the same table again keeps the sort. One not
 * loaded yet (sp_data_table_load_async) says so and is shown when it is;
 * one that is no table shows text, the result's text/plain, instead. */
void sp_table_view_set_table (SpTableView *self, SpDataTable *table, const char *label,
                              const char *text);
SpDataTable *sp_table_view_get_table (SpTableView *self);
GtkColumnView *sp_table_view_get_column_view (SpTableView *self);
/* The rows in the order shown (SpDataRow items). */
GListModel *sp_table_view_get_shown_rows (SpTableView *self);

G_END_DECLS
