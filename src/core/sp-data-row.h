/* sp-data-row.h: one row of an SpDataTable, as an item of its list model.
 *
 * Only the row's place in the table: the views that show it (a column
 * view's cells, its sorters) know the table and read the cells there, so
 * a thousand rows cost a thousand small objects and no copies. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SP_TYPE_DATA_ROW (sp_data_row_get_type ())
G_DECLARE_FINAL_TYPE (SpDataRow, sp_data_row, SP, DATA_ROW, GObject)

SpDataRow *sp_data_row_new (guint index);
/* The row's index in its table (the order the run sent). */
guint sp_data_row_get_index (SpDataRow *self);

G_END_DECLS
