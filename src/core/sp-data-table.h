/* sp-data-table.h: a table a run displayed (a pandas DataFrame or Series),
 * read from its display bundle's application/vnd.dataresource+json entry
 * (Frictionless table data, pandas' `to_json(orient="table")`, with the
 * runner's `total_rows`, and `total_columns` when the runner sent only the
 * first columns of a wide frame).
 *
 * The run chose every byte of it: a program may send this MIME type from
 * its own _repr_mimebundle_. So it is read strictly for what is used (a
 * wrong type or a missing key fails, and the panel shows the text/plain
 * instead), and kept within caps whatever it says: at most
 * SP_DATA_TABLE_MAX_ROWS rows and SP_DATA_TABLE_MAX_COLUMNS columns (the
 * rest counted, not kept), each cell and column name cut to
 * SP_DATA_TABLE_MAX_CELL characters, line breaks and other control
 * characters as spaces, hidden characters (bidi controls, zero-width
 * spaces) as their code points (sp-visible-text.h). Cells are plain text
 * for the views, never markup. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SP_DATA_TABLE_MIME "application/vnd.dataresource+json"
#define SP_DATA_TABLE_MAX_ROWS 1000
#define SP_DATA_TABLE_MAX_COLUMNS 32
#define SP_DATA_TABLE_MAX_CELL 200

#define SP_TYPE_DATA_TABLE (sp_data_table_get_type ())
G_DECLARE_FINAL_TYPE (SpDataTable, sp_data_table, SP, DATA_TABLE, GObject)

/* json: the entry's value, as the protocol's decoder keeps it (compact
 * JSON text). G_IO_ERROR_INVALID_DATA names what is wrong. */
SpDataTable *sp_data_table_new_from_json (const char *json, GError **error);

/* A table not read yet: the JSON is kept (up to the runner's 3 MiB) and
 * read by sp_data_table_load_async() on a worker thread, so a table of a
 * thousand rows by 64 columns (~100 ms to read) never holds the window.
 * Until it is loaded it has no columns and no rows. */
SpDataTable *sp_data_table_new (const char *json);
/* Reads the JSON once (a second call waits for the same result); then
 * "loaded" is notified, whether it read or failed (get_error). */
void sp_data_table_load_async (SpDataTable *self, GCancellable *cancellable,
                               GAsyncReadyCallback callback, gpointer user_data);
gboolean sp_data_table_load_finish (SpDataTable *self, GAsyncResult *result, GError **error);
gboolean sp_data_table_get_loaded (SpDataTable *self);
/* Why it is no table (NULL when it is one, or not read yet). */
const GError *sp_data_table_get_error (SpDataTable *self);

/* The columns kept, the index's among them (a view shows them all). */
guint sp_data_table_get_n_columns (SpDataTable *self);
/* The columns the object had as pandas counts them ("[90 rows x 2
 * columns]"): its index (the schema's primaryKey) is not one; the
 * runner's total_columns when it sent only a wide frame's first ones. */
guint sp_data_table_get_total_columns (SpDataTable *self);
/* Of those, the ones not kept: past the cap, or never sent. */
guint sp_data_table_get_columns_left_out (SpDataTable *self);
const char *sp_data_table_get_column_name (SpDataTable *self, guint column);
/* Of type "integer" or "number" in the schema: sorted by value. */
gboolean sp_data_table_get_column_numeric (SpDataTable *self, guint column);
/* Part of the schema's primaryKey (pandas' index). */
gboolean sp_data_table_get_column_index (SpDataTable *self, guint column);

/* The rows kept, and how many the object had (at least as many). */
guint sp_data_table_get_n_rows (SpDataTable *self);
guint64 sp_data_table_get_total_rows (SpDataTable *self);
/* A cell as shown: "" for null. */
const char *sp_data_table_get_cell (SpDataTable *self, guint row, guint column);
/* Orders two rows by a column: numbers by value in a numeric column,
 * else text by its collation key; empty cells (null, NaN) after the rest
 * (a view that reverses the order shows them first). */
int sp_data_table_compare (SpDataTable *self, guint column, guint row_a, guint row_b);

/* SpDataRow items, one per row kept, in the table's order. */
GListModel *sp_data_table_get_rows (SpDataTable *self);
/* Tab-separated text of the header and the given rows (all kept rows in
 * order when order is NULL), for the clipboard. */
char *sp_data_table_to_tsv (SpDataTable *self, const guint *order, guint n_order);

G_END_DECLS
