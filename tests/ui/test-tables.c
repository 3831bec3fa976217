/* test-tables.c: a DataFrame as a table (issue 38, item 7), in a real
 * window against the real runner: its columns counted as pandas counts
 * them (the index shown first, not counted), its headers in the text's
 * colour rather than dimmed like a disabled control, and a frame of 10^4
 * columns a table that says how many are not shown, not text.
 *
 * pandas is not on every machine the tests run on (Debian 12's image has
 * none), so the frames are a stand-in class the runner's prelude takes for
 * one (its type's module and name, what it uses of a frame: shape, len,
 * head, iloc, to_json(orient="table")). The last test is the same with
 * pandas itself, skipped with the reason where there is none. */
#include "config.h"

#include <gtksourceview/gtksource.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-table-view.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

/* What the prelude reads of a pandas DataFrame, for a frame of ROWS rows
 * and COLUMNS integer columns, its index 0..ROWS-1. */
#define FAKE_FRAME                                                                                 \
  "import json\n"                                                                                  \
  "class DataFrame:\n"                                                                             \
  "    __module__ = 'pandas.core.frame'\n"                                                         \
  "    def __init__(self, rows, columns):\n"                                                       \
  "        self.shape = (rows, columns)\n"                                                         \
  "    def __len__(self):\n"                                                                       \
  "        return self.shape[0]\n"                                                                 \
  "    def head(self, n):\n"                                                                       \
  "        return DataFrame(min(n, self.shape[0]), self.shape[1])\n"                               \
  "    @property\n"                                                                                \
  "    def iloc(self):\n"                                                                          \
  "        frame = self\n"                                                                         \
  "        class ILoc:\n"                                                                          \
  "            def __getitem__(self, key):\n"                                                      \
  "                kept = len(range(frame.shape[1])[key[1]])\n"                                    \
  "                return DataFrame(frame.shape[0], kept)\n"                                       \
  "        return ILoc()\n"                                                                        \
  "    def to_json(self, orient, default_handler):\n"                                              \
  "        rows, columns = self.shape\n"                                                           \
  "        fields = [{'name': 'index', 'type': 'integer'}]\n"                                      \
  "        fields += [{'name': f'c{c}', 'type': 'integer'} for c in range(columns)]\n"             \
  "        data = [dict(index=r, **{f'c{c}': r + c for c in range(columns)})\n"                    \
  "                for r in range(rows)]\n"                                                        \
  "        return json.dumps({'schema': {'fields': fields, 'primaryKey': ['index']},\n"            \
  "                           'data': data})\n"                                                    \
  "    def __repr__(self):\n"                                                                      \
  "        return f'[{self.shape[0]} rows x {self.shape[1]} columns]'\n"

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static gboolean
is_null (gpointer data)
{
  return *(gpointer *) data == NULL;
}

static gboolean
has_table_view (gpointer data)
{
  GtkWidget *view = sp_ui_test_find_of_type (data, SP_TYPE_TABLE_VIEW);

  return view != NULL && gtk_widget_get_mapped (view)
         && sp_table_view_get_table (SP_TABLE_VIEW (view)) != NULL
         && sp_data_table_get_loaded (sp_table_view_get_table (SP_TABLE_VIEW (view)));
}

/* The first mapped label under widget whose text starts with prefix. */
static GtkWidget *
find_label_text (GtkWidget *widget, const char *prefix)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget)
      && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), prefix))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label_text (child, prefix);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Runs code in a new window until its table is shown; the window. */
static SpWindow *
run_to_table (const char *code)
{
  SpWindow *window = sp_window_new (app);
  GtkWidget *panel = sp_window_get_exec_panel (window);

  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
  g_assert_true (sp_test_wait_for (has_table_view, panel, 10000));
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

static void
close_tables_window (SpWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (is_null, &weak, 5000));
}

/* The alpha of the colour a label is drawn in. */
static double
label_alpha (GtkWidget *label)
{
  GdkRGBA color;

#if GTK_CHECK_VERSION(4, 10, 0)
  gtk_widget_get_color (label, &color);
#else
  gtk_style_context_get_color (gtk_widget_get_style_context (label), &color);
#endif
  return color.alpha;
}

/* A frame of two columns: "90 rows × 2 columns", as pandas says
 * "[90 rows x 2 columns]", though the view shows the index as a third;
 * the headers in the cells' colour (libadwaita draws a column view's at
 * 40 %, which reads as disabled). */
static void
test_count_and_header (void)
{
  SpWindow *window = run_to_table (FAKE_FRAME "DataFrame(90, 2)\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  SpTableView *view = SP_TABLE_VIEW (sp_ui_test_find_of_type (panel, SP_TYPE_TABLE_VIEW));
  GtkColumnView *columns = sp_table_view_get_column_view (view);
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (columns));
  GtkWidget *title = find_label_text (header, "c0");
  GtkWidget *cell;

  g_assert_cmpuint (g_list_model_get_n_items (gtk_column_view_get_columns (columns)), ==, 3);
  g_assert_nonnull (find_label_text (panel, "Result 1 · 90 rows × 2 columns"));
  g_assert_null (find_label_text (panel, "Result 1 · 90 rows × 3 columns"));

  /* A cell of c0 (not the index, which is dimmed on purpose). */
  g_assert_nonnull (title);
  cell = find_label_text (gtk_widget_get_next_sibling (header), "1");
  g_assert_nonnull (cell);
  g_test_message ("header alpha %.2f, cell alpha %.2f", label_alpha (title), label_alpha (cell));
  g_assert_cmpfloat (label_alpha (title), >=, label_alpha (cell) - 0.01);
  close_tables_window (window);
}

/* 10^4 columns by 40 rows: sent whole (4 MB of JSON) it passed the
 * display's size cap and showed as text; now a table of the first
 * columns, saying how many more there are. */
static void
test_wide (void)
{
  SpWindow *window = run_to_table (FAKE_FRAME "DataFrame(40, 10**4)\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  SpTableView *view = SP_TABLE_VIEW (sp_ui_test_find_of_type (panel, SP_TYPE_TABLE_VIEW));
  SpDataTable *table = sp_table_view_get_table (view);

  g_assert_null (sp_data_table_get_error (table));
  g_assert_cmpuint (sp_data_table_get_n_columns (table), ==, SP_DATA_TABLE_MAX_COLUMNS);
  g_assert_cmpuint (sp_data_table_get_n_rows (table), ==, 40);
  g_assert_nonnull (
    find_label_text (panel, "Result 1 · 40 rows × 10000 columns · 9969 more columns not shown"));
  close_tables_window (window);
}

/* The same with pandas itself, where it is installed. */
static void
test_wide_pandas (void)
{
  SpWindow *window;
  GtkWidget *panel;

  if (system ("/usr/bin/python3 -c 'import pandas' 2>/dev/null") != 0)
    {
      g_test_skip ("/usr/bin/python3 has no pandas");
      return;
    }
  window = run_to_table ("import pandas as pd\n"
                         "pd.DataFrame({f'c{c}': range(40) for c in range(10**4)})\n");
  panel = sp_window_get_exec_panel (window);
  g_assert_nonnull (
    find_label_text (panel, "Result 1 · 40 rows × 10000 columns · 9969 more columns not shown"));
  close_tables_window (window);
}

int
main (int argc, char **argv)
{
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/Tables/count-and-header", test_count_and_header);
  g_test_add_func ("/Sandpad/Tables/wide", test_wide);
  g_test_add_func ("/Sandpad/Tables/wide-pandas", test_wide_pandas);
  ret = g_test_run ();
  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
