/* test-csv.c: the CSV preview keeps each row's columns in place (quoted
 * separators, quotes, line breaks) and says what it left out. */
#include "config.h"

#include "sp-csv.h"

static const char *
cell (SpCsvPreview *preview, guint row, guint col)
{
  char **cells = g_ptr_array_index (preview->rows, row);

  g_assert_cmpuint (col, <, g_strv_length (cells));
  return cells[col];
}

static void
test_quoted (void)
{
  g_autoptr (SpCsvPreview) p = sp_csv_preview_parse (
    "name,note,score\r\n\"Smith, John\",\"said \"\"hi\"\"\",3\n\"two\nlines\",,4\n", TRUE, ',', 8,
    8);

  g_assert_cmpuint (p->rows->len, ==, 3);
  g_assert_false (p->more_rows);
  g_assert_false (p->more_cols);
  g_assert_cmpstr (cell (p, 0, 2), ==, "score");
  g_assert_cmpstr (cell (p, 1, 0), ==, "Smith, John");
  g_assert_cmpstr (cell (p, 1, 1), ==, "said \"hi\"");
  g_assert_cmpstr (cell (p, 1, 2), ==, "3");
  g_assert_cmpstr (cell (p, 2, 0), ==, "two\nlines");
  g_assert_cmpstr (cell (p, 2, 1), ==, "");
  g_assert_cmpstr (cell (p, 2, 2), ==, "4");
}

static void
test_truncation (void)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autoptr (SpCsvPreview) rows = NULL;
  g_autoptr (SpCsvPreview) cut = NULL;
  g_autoptr (SpCsvPreview) tsv = NULL;

  for (int r = 0; r < 20; r++)
    {
      for (int c = 0; c < 12; c++)
        g_string_append_printf (text, "%s%d", c ? "," : "", r * 100 + c);
      g_string_append_c (text, '\n');
    }
  rows = sp_csv_preview_parse (text->str, TRUE, ',', 8, 8);
  g_assert_cmpuint (rows->rows->len, ==, 8);
  g_assert_true (rows->more_rows);
  g_assert_true (rows->more_cols);
  g_assert_cmpuint (g_strv_length (g_ptr_array_index (rows->rows, 7)), ==, 8);
  g_assert_cmpstr (cell (rows, 7, 7), ==, "707");

  /* Only the start of the file was read: its last row may be cut. */
  cut = sp_csv_preview_parse ("a,b\n1,2\n3,", FALSE, ',', 8, 8);
  g_assert_cmpuint (cut->rows->len, ==, 2);
  g_assert_true (cut->more_rows);

  tsv = sp_csv_preview_parse ("a\tb\n1\t2", TRUE, '\t', 8, 8);
  g_assert_cmpuint (tsv->rows->len, ==, 2);
  g_assert_false (tsv->more_rows);
  g_assert_cmpstr (cell (tsv, 1, 1), ==, "2");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Csv/quoted", test_quoted);
  g_test_add_func ("/Sandpad/Csv/truncation", test_truncation);
  return g_test_run ();
}
