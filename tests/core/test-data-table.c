/* test-data-table.c: a displayed table (a pandas DataFrame's
 * application/vnd.dataresource+json) read strictly and kept within caps,
 * whatever the run sent: its cells plain, one line, cut; sorting by
 * value or text with empty cells last; and what is not a table refused
 * with the reason. */
#include <string.h>

#include "sp-data-row.h"
#include "sp-data-table.h"

/* What pandas' to_json(orient="table") gives, with the runner's count. */
#define FRAME                                                                                      \
  "{\"schema\":{\"fields\":[{\"name\":\"index\",\"type\":\"integer\"},"                            \
  "{\"name\":\"n\",\"type\":\"integer\"},{\"name\":\"s\",\"type\":\"string\"},"                    \
  "{\"name\":\"f\",\"type\":\"number\"}],\"primaryKey\":[\"index\"],\"pandas_version\":\"1.4.0\"}" \
  ","                                                                                              \
  "\"data\":[{\"index\":0,\"n\":10,\"s\":\"x\",\"f\":1.5},"                                        \
  "{\"index\":1,\"n\":9,\"s\":null,\"f\":null},"                                                   \
  "{\"index\":2,\"n\":-2,\"s\":\"<b>z</b>\",\"f\":-2.0}],\"total_rows\":1500}"

static void
test_frame (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpDataTable) table = sp_data_table_new_from_json (FRAME, &error);
  g_autofree char *tsv = NULL;

  g_assert_no_error (error);
  g_assert_cmpuint (sp_data_table_get_n_columns (table), ==, 4);
  g_assert_cmpstr (sp_data_table_get_column_name (table, 0), ==, "index");
  g_assert_true (sp_data_table_get_column_index (table, 0));
  g_assert_false (sp_data_table_get_column_index (table, 1));
  g_assert_true (sp_data_table_get_column_numeric (table, 1));
  g_assert_false (sp_data_table_get_column_numeric (table, 2));
  g_assert_true (sp_data_table_get_column_numeric (table, 3));
  g_assert_cmpuint (sp_data_table_get_n_rows (table), ==, 3);
  g_assert_cmpuint (sp_data_table_get_total_rows (table), ==, 1500);
  g_assert_cmpstr (sp_data_table_get_cell (table, 0, 1), ==, "10");
  g_assert_cmpstr (sp_data_table_get_cell (table, 0, 3), ==, "1.5");
  g_assert_cmpstr (sp_data_table_get_cell (table, 1, 2), ==, "");
  /* Markup is text: shown as its characters. */
  g_assert_cmpstr (sp_data_table_get_cell (table, 2, 2), ==, "<b>z</b>");
  g_assert_cmpstr (sp_data_table_get_cell (table, 2, 3), ==, "-2.0");
  g_assert_cmpuint (g_list_model_get_n_items (sp_data_table_get_rows (table)), ==, 3);

  tsv = sp_data_table_to_tsv (table, (guint[]){ 2, 0 }, 2);
  g_assert_cmpstr (tsv, ==, "index\tn\ts\tf\n2\t-2\t<b>z</b>\t-2.0\n0\t10\tx\t1.5\n");
  g_assert_finalize_object (g_steal_pointer (&table));
}

/* Numbers by value (10 after 9, which text order would not give), text
 * by collation, empty cells after the rest. */
static void
test_compare (void)
{
  g_autoptr (SpDataTable) table = sp_data_table_new_from_json (FRAME, NULL);

  g_assert_cmpint (sp_data_table_compare (table, 1, 1, 0), <, 0); /* 9 < 10 */
  g_assert_cmpint (sp_data_table_compare (table, 1, 2, 1), <, 0); /* -2 < 9 */
  g_assert_cmpint (sp_data_table_compare (table, 1, 0, 0), ==, 0);
  g_assert_cmpint (sp_data_table_compare (table, 3, 1, 0), >, 0); /* null last */
  g_assert_cmpint (sp_data_table_compare (table, 3, 0, 1), <, 0);
  g_assert_cmpint (sp_data_table_compare (table, 2, 2, 0), <, 0); /* "<b>z</b>" < "x" */
  g_assert_cmpint (sp_data_table_compare (table, 2, 1, 2), >, 0); /* null last */
}

/* A number past 64 bits comes as its text (the runner's prelude sends it
 * so): it still sorts by value in a numeric column. */
static void
test_big_number (void)
{
  g_autoptr (SpDataTable) table = sp_data_table_new_from_json (
    "{\"schema\":{\"fields\":[{\"name\":\"u\",\"type\":\"integer\"}]},"
    "\"data\":[{\"u\":\"18446744073709551615\"},{\"u\":1},{\"u\":\"x\"}]}",
    NULL);

  g_assert_nonnull (table);
  g_assert_cmpstr (sp_data_table_get_cell (table, 0, 0), ==, "18446744073709551615");
  g_assert_cmpint (sp_data_table_compare (table, 0, 1, 0), <, 0);
  /* Text that is no number sorts with the empty cells. */
  g_assert_cmpint (sp_data_table_compare (table, 0, 0, 2), <, 0);
}

/* The caps: rows and columns past them counted, not kept; a long cell
 * cut; line breaks, escapes and hidden characters never reach a label. */
static void
test_caps (void)
{
  g_autoptr (GString) json = g_string_new ("{\"schema\":{\"fields\":[");
  g_autoptr (SpDataTable) table = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *long_cell = g_strnfill (5000, 'a');
  const char *cell;

  for (guint c = 0; c < SP_DATA_TABLE_MAX_COLUMNS + 6; c++)
    g_string_append_printf (json, "%s{\"name\":\"c%u\"}", c ? "," : "", c);
  g_string_append (json, "]},\"data\":[");
  for (guint r = 0; r < SP_DATA_TABLE_MAX_ROWS + 10; r++)
    g_string_append_printf (json,
                            "%s{\"c0\":\"%s\",\"c1\":\"a\\nb\\u001b[31mc\\u202ed\","
                            "\"c2\":[1,{\"k\":true}],\"c3\":false}",
                            r ? "," : "", r == 0 ? long_cell : "x");
  g_string_append (json, "]}");
  table = sp_data_table_new_from_json (json->str, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sp_data_table_get_n_columns (table), ==, SP_DATA_TABLE_MAX_COLUMNS);
  g_assert_cmpuint (sp_data_table_get_columns_left_out (table), ==, 6);
  g_assert_cmpuint (sp_data_table_get_n_rows (table), ==, SP_DATA_TABLE_MAX_ROWS);
  g_assert_cmpuint (sp_data_table_get_total_rows (table), ==, SP_DATA_TABLE_MAX_ROWS + 10);
  cell = sp_data_table_get_cell (table, 0, 0);
  g_assert_cmpuint (g_utf8_strlen (cell, -1), ==, SP_DATA_TABLE_MAX_CELL + 1);
  g_assert_true (g_str_has_suffix (cell, "…"));
  g_assert_cmpstr (sp_data_table_get_cell (table, 0, 1), ==, "a b [31mc<U+202E>d");
  g_assert_cmpstr (sp_data_table_get_cell (table, 0, 2), ==, "[1,{\"k\":true}]");
  g_assert_cmpstr (sp_data_table_get_cell (table, 0, 3), ==, "False");
  /* A missing key is an empty cell. */
  g_assert_cmpstr (sp_data_table_get_cell (table, 0, 4), ==, "");
}

/* Columns counted as pandas counts them: "[90 rows x 2 columns]" for a
 * frame of two columns, its index (the primaryKey) shown first but not
 * counted; a wide frame's first columns with the runner's total_columns,
 * the rest counted as left out. */
static void
test_column_count (void)
{
  g_autoptr (SpDataTable) frame = sp_data_table_new_from_json (FRAME, NULL);
  g_autoptr (GString) json = g_string_new ("{\"schema\":{\"fields\":[{\"name\":\"index\"}");
  g_autoptr (SpDataTable) wide = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_cmpuint (sp_data_table_get_n_columns (frame), ==, 4);
  g_assert_cmpuint (sp_data_table_get_total_columns (frame), ==, 3);
  g_assert_cmpuint (sp_data_table_get_columns_left_out (frame), ==, 0);

  /* 40 sent of 10,000: 31 kept beside the index. */
  for (guint c = 0; c < 40; c++)
    g_string_append_printf (json, ",{\"name\":\"c%u\",\"type\":\"integer\"}", c);
  g_string_append (json, "],\"primaryKey\":[\"index\"]},\"data\":[{\"index\":0,\"c0\":1}],"
                         "\"total_rows\":1,\"total_columns\":10000}");
  wide = sp_data_table_new_from_json (json->str, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (sp_data_table_get_n_columns (wide), ==, SP_DATA_TABLE_MAX_COLUMNS);
  g_assert_cmpuint (sp_data_table_get_total_columns (wide), ==, 10000);
  g_assert_cmpuint (sp_data_table_get_columns_left_out (wide), ==,
                    10000 - (SP_DATA_TABLE_MAX_COLUMNS - 1));
  g_assert_cmpstr (sp_data_table_get_cell (wide, 0, 1), ==, "1");
}

static void
test_refused (void)
{
  const char *bad[][2] = {
    { "[1,2]", "not an object" },
    { "{\"data\":[]}", "there is no schema" },
    { "{\"schema\":{\"fields\":[]},\"data\":[]}", "schema.fields" },
    { "{\"schema\":{\"fields\":[{\"type\":\"integer\"}]},\"data\":[]}", "a field has no name" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\",\"type\":3}]},\"data\":[]}", "type" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"}],\"primaryKey\":3},\"data\":[]}", "primaryKey" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"}]},\"data\":{}}", "data is not a list" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"}]},\"data\":[{\"a\":1},2]}", "a row is not" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"}]},\"data\":[],\"total_rows\":-1}", "total_rows" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"}]},\"data\":[{},{}],\"total_rows\":1}",
      "less than" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"}]},\"data\":[],\"data\":[]}", "duplicate" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"},{\"name\":\"b\"}]},\"data\":[],"
      "\"total_columns\":1}",
      "total_columns" },
    { "{\"schema\":{\"fields\":[{\"name\":\"a\"}]},\"data\":[],\"total_columns\":\"9\"}",
      "total_columns" },
    { "{\"schema\":", "" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (SpDataTable) table = sp_data_table_new_from_json (bad[i][0], &error);

      g_assert_null (table);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      if (strstr (error->message, bad[i][1]) == NULL)
        g_error ("%s: %s, not %s", bad[i][0], error->message, bad[i][1]);
    }
}

static void
on_load (GObject *object, GAsyncResult *result, gpointer user_data)
{
  GError **error = user_data;

  g_assert_false (sp_data_table_load_finish (SP_DATA_TABLE (object), result, error)
                  && *error != NULL);
  if (*error == NULL)
    *error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_EXISTS, "loaded");
}

/* Read on a worker thread: nothing before, all of it after, "loaded"
 * notified once; one that is no table loaded too, with its error. */
static void
test_load_async (void)
{
  g_autoptr (SpDataTable) table = sp_data_table_new (FRAME);
  g_autoptr (SpDataTable) bad = sp_data_table_new ("{\"data\":[]}");
  g_autoptr (GError) done = NULL;
  g_autoptr (GError) failed = NULL;
  guint notified = 0;

  g_signal_connect_swapped (table, "notify::loaded", G_CALLBACK (g_atomic_int_inc), &notified);
  g_assert_false (sp_data_table_get_loaded (table));
  g_assert_cmpuint (sp_data_table_get_n_columns (table), ==, 0);
  g_assert_cmpuint (sp_data_table_get_n_rows (table), ==, 0);
  sp_data_table_load_async (table, NULL, on_load, &done);
  sp_data_table_load_async (bad, NULL, on_load, &failed);
  while (done == NULL || failed == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (done, G_IO_ERROR, G_IO_ERROR_EXISTS); /* no error: it read */
  g_assert_true (sp_data_table_get_loaded (table));
  g_assert_cmpuint (notified, ==, 1);
  g_assert_null (sp_data_table_get_error (table));
  g_assert_cmpuint (sp_data_table_get_n_columns (table), ==, 4);
  g_assert_cmpstr (sp_data_table_get_cell (table, 2, 2), ==, "<b>z</b>");
  g_assert_error (failed, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_true (sp_data_table_get_loaded (bad));
  g_assert_nonnull (sp_data_table_get_error (bad));
  g_assert_cmpuint (sp_data_table_get_n_columns (bad), ==, 0);
  /* Each read's worker thread lets go of its task, and so of the table,
   * only after the callback ran here: wait for those last references. */
  SpDataTable *gone[] = { g_steal_pointer (&table), g_steal_pointer (&bad) };
  for (guint t = 0; t < G_N_ELEMENTS (gone); t++)
    {
      g_object_add_weak_pointer (G_OBJECT (gone[t]), (gpointer *) &gone[t]);
      g_object_unref (gone[t]);
    }
  for (guint i = 0; (gone[0] != NULL || gone[1] != NULL) && i < 10000; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (gone[0]);
  g_assert_null (gone[1]);
}

/* jansson quotes the bytes where it stopped, which need not be UTF-8:
 * the message is made valid (found by tests/fuzz/fuzz-table). */
static void
test_error_utf8 (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpDataTable) table = sp_data_table_new_from_json ("{\"a\":\"\\u20\xd8\x9a\xff\"}",
                                                               &error);

  g_assert_null (table);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_true (g_utf8_validate (error->message, -1, NULL));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/data-table/frame", test_frame);
  g_test_add_func ("/data-table/compare", test_compare);
  g_test_add_func ("/data-table/big-number", test_big_number);
  g_test_add_func ("/data-table/load-async", test_load_async);
  g_test_add_func ("/data-table/caps", test_caps);
  g_test_add_func ("/data-table/column-count", test_column_count);
  g_test_add_func ("/data-table/refused", test_refused);
  g_test_add_func ("/data-table/error-utf8", test_error_utf8);
  return g_test_run ();
}
