/* sp-csv.h: the first rows of a CSV or TSV file, for a preview.
 *
 * Quoted fields (with the separator, doubled quotes or line breaks inside)
 * stay one cell, so a row never shifts its columns. The preview says what
 * it left out: rows past max_rows (or past the part of the file read) and
 * columns past max_cols. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  GPtrArray *rows;    /* of GStrv, each at most max_cols cells */
  gboolean more_rows; /* rows were left out */
  gboolean more_cols; /* some row had more than max_cols cells */
} SpCsvPreview;

/* text: the start of the file; whole: whether it is all of the file (if
 * not, its last, perhaps cut, row is left out and counts as more). */
SpCsvPreview *sp_csv_preview_parse (const char *text, gboolean whole, char separator,
                                    guint max_rows, guint max_cols);
void sp_csv_preview_free (SpCsvPreview *preview);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpCsvPreview, sp_csv_preview_free)

G_END_DECLS
