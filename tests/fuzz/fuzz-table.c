/* fuzz-table.c: sp_data_table_new_from_json on arbitrary bytes, as the app
 * reads a display's application/vnd.dataresource+json, which any program
 * may send (src/core/sp-data-table.h).
 *
 * Beyond "no crash, no leak" (ASan, UBSan), for every input:
 * - a refused one has G_IO_ERROR_INVALID_DATA and a non-empty message in
 *   valid UTF-8;
 * - an accepted one is within the caps (rows, columns), counts at least
 *   the rows it kept, and every column name and cell is valid UTF-8 on one
 *   line with no control character and no hidden one left (bidi, zero
 *   width: sp-visible-text.h), at most the cap in characters before its
 *   escapes; sorting is consistent (antisymmetric, reflexive) on its rows;
 *   its tab-separated copy has one line per row and the header. */
#include <string.h>

#include "fuzz-check.h"
#include "sp-data-table.h"
#include "sp-visible-text.h"

static void
check_text (const char *text)
{
  FUZZ_REQUIRE (text != NULL);
  FUZZ_REQUIRE (fuzz_utf8_valid (text, strlen (text)));
  FUZZ_REQUIRE (!sp_visible_text_has_hidden (text, -1));
  for (const unsigned char *p = (const unsigned char *) text; *p != '\0'; p++)
    FUZZ_REQUIRE (*p >= 0x20 && *p != 0x7f);
  /* The cap, with "…", and each escape "<U+XXXXXX>" in place of one. */
  FUZZ_REQUIRE (g_utf8_strlen (text, -1) <= (SP_DATA_TABLE_MAX_CELL + 1) * 10);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  g_autofree char *json = g_strndup ((const char *) data, size);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpDataTable) table = sp_data_table_new_from_json (json, &error);
  guint rows, cols;

  if (table == NULL)
    {
      FUZZ_REQUIRE (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA));
      FUZZ_REQUIRE (error->message[0] != '\0');
      FUZZ_REQUIRE (fuzz_utf8_valid (error->message, strlen (error->message)));
      return 0;
    }
  FUZZ_REQUIRE (error == NULL);
  rows = sp_data_table_get_n_rows (table);
  cols = sp_data_table_get_n_columns (table);
  FUZZ_REQUIRE (rows <= SP_DATA_TABLE_MAX_ROWS);
  FUZZ_REQUIRE (cols >= 1 && cols <= SP_DATA_TABLE_MAX_COLUMNS);
  FUZZ_REQUIRE (sp_data_table_get_total_rows (table) >= rows);
  for (guint c = 0; c < cols; c++)
    {
      check_text (sp_data_table_get_column_name (table, c));
      for (guint r = 0; r < rows; r++)
        {
          check_text (sp_data_table_get_cell (table, r, c));
          FUZZ_REQUIRE (sp_data_table_compare (table, c, r, r) == 0);
          if (r > 0)
            {
              int ab = sp_data_table_compare (table, c, r - 1, r);
              int ba = sp_data_table_compare (table, c, r, r - 1);
              FUZZ_REQUIRE ((ab > 0) == (ba < 0) && (ab == 0) == (ba == 0));
            }
        }
    }
  g_autofree char *tsv = sp_data_table_to_tsv (table, NULL, 0);
  guint lines = 0;
  for (const char *p = tsv; *p != '\0'; p++)
    lines += *p == '\n';
  FUZZ_REQUIRE (lines == rows + 1);
  return 0;
}
