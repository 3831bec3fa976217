/* test-results.c: a run's results the way Jupyter gives them (issue 25),
 * in a real window against the real runner: prints (one by a `!echo`
 * line), a value, a LaTeX formula (IPython.display's Math, with no IPython
 * installed) and a display()ed image, and a pandas DataFrame as the last
 * expression, each in its place; the DataFrame as a table with its
 * columns and rows, sorted by value when its header is clicked; and a
 * screenshot of it all (docs/screenshots/results.png comes from it). */
#include "config.h"

#include <X11/Xlib.h>
#include <X11/extensions/XTest.h>
#include <gdk/x11/gdkx.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-data-row.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-output-row.h"
#include "sp-stall-meter.h"
#include "sp-table-view.h"
#include "sp-test-wait.h"
#include "sp-ui-stall.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

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

static GtkWidget *
find_picture (GtkWidget *widget, guint *count)
{
  if (GTK_IS_PICTURE (widget) && gtk_picture_get_paintable (GTK_PICTURE (widget)) != NULL
      && gtk_widget_get_mapped (widget))
    (*count)++;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    find_picture (child, count);
  return NULL;
}

/* The picture whose alternative text is name, or a label showing it. */
static GtkWidget *
find_named (GtkWidget *widget, const char *name)
{
  if ((GTK_IS_PICTURE (widget)
       && g_strcmp0 (gtk_picture_get_alternative_text (GTK_PICTURE (widget)), name) == 0)
      || (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), name) == 0))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_named (child, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
laid_out (gpointer data)
{
  return gtk_widget_get_height (data) > 0;
}

/* A typeset formula (issue 38 item 5): at text's size, where text starts,
 * and drawn at twice that in pixels (sharp on a 2x display); before, it
 * was a bitmap stretched to the panel's width, 240 pixels high. The
 * image beside it is the control: a picture still fills its row. */
static void
assert_formula_like_text (GtkWidget *panel)
{
  GtkWidget *formula = find_named (panel, "Result 1");
  GtkWidget *image = find_named (panel, "Result 2");
  GtkWidget *text = find_named (panel, "a formula and an image:");
  GdkPaintable *paintable;
  SpOutputItem *item;
  graphene_rect_t at, line;
  int width, height, line_height, pixels;

  g_assert_nonnull (formula);
  g_assert_nonnull (image);
  g_assert_nonnull (text);
  g_assert_true (sp_test_wait_for (laid_out, formula, 5000));
  g_assert_true (gtk_widget_compute_bounds (formula, panel, &at));
  g_assert_true (gtk_widget_compute_bounds (text, panel, &line));
  width = gtk_widget_get_width (formula);
  height = gtk_widget_get_height (formula);
  line_height = gtk_widget_get_height (text);
  paintable = gtk_picture_get_paintable (GTK_PICTURE (formula));
  g_test_message ("formula %d x %d at x %.0f (text line %d high at x %.0f; panel %d wide); "
                  "its pixels %d x %d; the image beside it %d high",
                  width, height, at.origin.x, line_height, line.origin.x,
                  gtk_widget_get_width (panel), gdk_paintable_get_intrinsic_width (paintable),
                  gdk_paintable_get_intrinsic_height (paintable), gtk_widget_get_height (image));
  g_assert_cmpint (line_height, >, 0);
  /* A sum over a fraction: taller than one line, not four. */
  g_assert_cmpint (height, >=, line_height);
  g_assert_cmpint (height, <=, 4 * line_height);
  g_assert_cmpint (width, <, gtk_widget_get_width (panel) / 2);
  g_assert_cmpfloat (ABS (at.origin.x - line.origin.x), <=, 2);
  /* What the row was given is twice its size in pixels. */
  item = sp_output_row_get_item (SP_OUTPUT_ROW (gtk_widget_get_parent (formula)));
  g_assert_true (GDK_IS_TEXTURE (sp_output_item_get_image (item)));
  pixels = gdk_texture_get_width (GDK_TEXTURE (sp_output_item_get_image (item)));
  g_assert_cmpint (ABS (pixels - 2 * gdk_paintable_get_intrinsic_width (paintable)), <=, 1);
  g_assert_cmpint (gdk_paintable_get_intrinsic_width (paintable), <=, width);
  g_assert_cmpint (gtk_widget_get_height (image), >=, 240);
}

static gboolean
has_two_pictures (gpointer data)
{
  guint count = 0;

  find_picture (data, &count);
  return count >= 2;
}

/* The column n's cells in the order the view shows its rows. */
static char *
shown_column (SpTableView *view, guint column)
{
  GListModel *rows = sp_table_view_get_shown_rows (view);
  SpDataTable *table = sp_table_view_get_table (view);
  g_autoptr (GString) out = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (rows); i++)
    {
      g_autoptr (SpDataRow) row = g_list_model_get_item (rows, i);
      g_string_append_printf (out, "%s%s", i ? " " : "",
                              sp_data_table_get_cell (table, sp_data_row_get_index (row), column));
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Lets GTK see what the X server did. */
static void
settle (void)
{
  gint64 until = g_get_monotonic_time () + 300 * 1000;

  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
count_change (GtkSorter *sorter, GtkSorterChange change, gpointer data)
{
  (*(guint *) data)++;
}

/* The X server's click has reached GTK once the header's sorter changed:
 * a loaded machine can take longer than any fixed pause to deliver it. */
static gboolean
is_nonzero (gpointer data)
{
  return *(guint *) data > 0;
}

/* The middle of a header, in its window's coordinates. */
static graphene_point_t
header_point (GtkWidget *header, GtkNative *native)
{
  graphene_point_t at;

  g_assert_true (
    gtk_widget_compute_point (header, GTK_WIDGET (native),
                              &GRAPHENE_POINT_INIT (gtk_widget_get_width (header) / 2.f,
                                                    gtk_widget_get_height (header) / 2.f),
                              &at));
  return at;
}

/* A column's header clicked as a person clicks it: the pointer moved to
 * its middle and button 1 pressed and released, through the X server's
 * XTEST extension. */
static void
click_header (GtkColumnView *view, const char *title)
{
  GtkWidget *found = NULL;
  GtkWidget *header = gtk_widget_get_first_child (GTK_WIDGET (view));
  GtkNative *native = gtk_widget_get_native (GTK_WIDGET (view));
  Display *dpy = gdk_x11_display_get_xdisplay (gtk_widget_get_display (GTK_WIDGET (view)));
  graphene_point_t at;
  double sx, sy;
  int rx, ry;
  Window child;
  GtkSorter *sorter = gtk_column_view_get_sorter (view);
  guint changes = 0;
  gulong handler;

  for (GtkWidget *w = gtk_widget_get_first_child (header); w != NULL && found == NULL;
       w = gtk_widget_get_next_sibling (w))
    {
      GtkWidget *label = sp_ui_test_find_of_type (w, GTK_TYPE_LABEL);
      if (label != NULL && g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), title) == 0)
        found = w;
    }
  g_assert_nonnull (found);
  g_assert_true (gtk_widget_get_mapped (found));
  /* Where the header is once the panel stopped moving: decoded pictures
   * and the output's follow-the-end scrolling move the table under a
   * click aimed at where it was (a loaded CI run's click missed). */
  at = header_point (found, native);
  for (int same = 0, frame = 0; same < 3 && frame < 100; frame++)
    {
      graphene_point_t now;

      gtk_test_widget_wait_for_draw (GTK_WIDGET (native));
      now = header_point (found, native);
      same = graphene_point_equal (&now, &at) ? same + 1 : 0;
      at = now;
    }
  gtk_native_get_surface_transform (native, &sx, &sy);
  XTranslateCoordinates (dpy, gdk_x11_surface_get_xid (gtk_native_get_surface (native)),
                         DefaultRootWindow (dpy), (int) (at.x + sx), (int) (at.y + sy), &rx, &ry,
                         &child);
  /* Apart from the last click by more than a double click's time. */
  g_usleep (600 * 1000);
  XTestFakeMotionEvent (dpy, -1, rx, ry, CurrentTime);
  XTestFakeButtonEvent (dpy, 1, True, CurrentTime);
  XTestFakeButtonEvent (dpy, 1, False, CurrentTime);
  handler = g_signal_connect (sorter, "changed", G_CALLBACK (count_change), &changes);
  XFlush (dpy);
  g_assert_true (sp_test_wait_for (is_nonzero, &changes, 10000));
  g_signal_handler_disconnect (sorter, handler);
  settle ();
}

static void
test_results (void)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *panel = sp_window_get_exec_panel (window);
  /* Written as in Jupyter (issue 42 item 1): IPython.display's Math
   * without IPython installed, and a shell command's line. */
  const char *code = "import pandas as pd\n"
                     "from IPython.display import Math\n"
                     "from PIL import Image\n"
                     "\n"
                     "!echo a value:\n"
                     "display(6 * 7)\n"
                     "print('a formula and an image:')\n"
                     "display(Math(r'\\sum_{k=1}^{n} k = \\frac{n(n+1)}{2}'))\n"
                     "display(Image.radial_gradient('L').resize((96, 96)))\n"
                     "print('a table:')\n"
                     "df = pd.DataFrame({'name': ['ten', 'nine', 'hundred', 'two', '<b>x</b>'],\n"
                     "                   'n': [10, 9, 100, 2, None]})\n"
                     "df\n";
  g_autoptr (GString) seen = g_string_new (NULL);
  g_autofree char *path = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  GListModel *model;
  SpTableView *view;
  GtkColumnView *columns;
  SpDataTable *table;
  gpointer weak = window;

  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  gtk_text_buffer_insert_interactive_at_cursor (buffer, code, -1, TRUE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));

  /* In the order the program gave them, among its prints. */
  model = sp_exec_panel_get_output (SP_EXEC_PANEL (panel));
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      SpOutputKind kind = sp_output_item_get_kind (item);

      if (kind == SP_OUTPUT_STDOUT)
        g_string_append (seen, sp_output_item_get_text (item));
      else if (kind == SP_OUTPUT_IMAGE)
        g_string_append_printf (seen, "[image %s]", sp_output_item_get_label (item));
      else if (kind == SP_OUTPUT_TABLE)
        g_string_append_printf (seen, "[table %s]", sp_output_item_get_label (item));
      else
        g_string_append_printf (seen, "[other %s]", sp_output_item_get_text (item));
    }
  g_assert_cmpstr (seen->str, ==,
                   "a value:\n42\na formula and an image:\n[image Result 1][image Result 2]"
                   "a table:\n[table Result 3]");

  /* The table: the index first, then the columns; its rows as sent. */
  g_assert_true (sp_test_wait_for (has_table_view, panel, 5000));
  view = SP_TABLE_VIEW (sp_ui_test_find_of_type (panel, SP_TYPE_TABLE_VIEW));
  table = sp_table_view_get_table (view);
  columns = sp_table_view_get_column_view (view);
  g_assert_cmpuint (g_list_model_get_n_items (gtk_column_view_get_columns (columns)), ==, 3);
  for (guint c = 0; c < 3; c++)
    {
      const char *titles[] = { "index", "name", "n" };
      g_autoptr (GtkColumnViewColumn) column
        = g_list_model_get_item (gtk_column_view_get_columns (columns), c);
      g_assert_cmpstr (gtk_column_view_column_get_title (column), ==, titles[c]);
    }
  g_assert_cmpuint (sp_data_table_get_n_rows (table), ==, 5);
  g_autofree char *names = shown_column (view, 1);
  g_assert_cmpstr (names, ==, "ten nine hundred two <b>x</b>");
  /* Markup from the run is text in a cell. */
  g_assert_true (sp_ui_test_find_of_type (GTK_WIDGET (columns), GTK_TYPE_LABEL) != NULL);

  /* Sorted by the n header: by value (as text, 10 would come before 9),
   * the empty cell last; again, the other way round. */
  /* Both pictures decoded before clicking: they move the table. */
  g_assert_true (sp_test_wait_for (has_two_pictures, panel, 10000));
  assert_formula_like_text (panel);
  click_header (columns, "n");
  g_autofree char *up = shown_column (view, 2);
  g_assert_cmpstr (up, ==, "2.0 9.0 10.0 100.0 ");
  click_header (columns, "n");
  g_autofree char *down = shown_column (view, 2);
  g_assert_cmpstr (down, ==, " 100.0 10.0 9.0 2.0");
  click_header (columns, "name");
  g_autofree char *by_name = shown_column (view, 1);
  g_assert_cmpstr (by_name, ==, "<b>x</b> hundred nine ten two");

  /* Then the screenshot. */
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  texture = sp_ui_test_render (GTK_WINDOW (window));
  path = g_build_filename (dir ? dir : g_get_tmp_dir (), "sandpad-results.png", NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_text_buffer_set_modified (buffer, FALSE);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (is_null, &weak, 5000));
}

static gboolean
tables_loaded (gpointer data)
{
  GListModel *model = data;
  guint n = 0;

  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == SP_OUTPUT_TABLE
          && sp_data_table_get_loaded (sp_output_item_get_table (item)))
        n++;
    }
  return n == 2;
}

/* The first label under widget whose text starts with prefix. */
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

/* Runs code in a new window of the test's size, from Run to the output
 * shown (with tables: both read and the wide one's view made): the
 * window, and the app's stall meter's figures in *stall. */
static SpWindow *
run_measured (const char *code, gboolean tables, SpStall *stall)
{
  SpWindow *window = sp_window_new (app);
  GtkWidget *panel = sp_window_get_exec_panel (window);
  SpStallMeter *meter = sp_application_get_stall_meter (app);

  g_assert_nonnull (meter);
  gtk_window_set_default_size (GTK_WINDOW (window), 1100, 760);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  settle ();
  sp_stall_meter_reset (meter);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
  if (tables)
    g_assert_true (
      sp_test_wait_for (tables_loaded, sp_exec_panel_get_output (SP_EXEC_PANEL (panel)), 10000));
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  if (tables)
    g_assert_true (sp_test_wait_for (has_table_view, panel, 5000));
  settle ();
  *stall = sp_stall_take (meter);
  return window;
}

static void
close_results_window (SpWindow *window)
{
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (is_null, &weak, 5000));
}

/* What a run may send: a table wider and longer than the caps (within
 * the app's 1 MiB output limit, which a display counts against; read off
 * the main thread, which the app's stall meter watches), and a bundle
 * that claims the table type but is no table, shown as its text. The
 * main loop is held no longer than for a control in the same test
 * (sp-ui-stall.h): as many bytes as the table's JSON (its first 1000 rows,
 * as the bundle carries them) printed in lines of 80. */
static void
test_big_and_bad (void)
{
  const char *control_code
    = "import json, sys\n"
      "import pandas as pd\n"
      "df = pd.DataFrame({f'c{c}': range(1500) for c in range(70)})\n"
      "n = len(json.dumps(json.loads(df.head(1000).to_json(orient='table'))))\n"
      "sys.stdout.write(('x' * 79 + '\\n') * (n // 80))\n";
  const char *code
    = "import pandas as pd\n"
      "display({'text/plain': 'no table here',\n"
      "         'application/vnd.dataresource+json': {'schema': {'fields': 'x'}}}, raw=True)\n"
      "pd.DataFrame({f'c{c}': range(1500) for c in range(70)})\n";
  SpStall control, stall;
  SpWindow *window;
  GtkWidget *panel;

  window = run_measured (control_code, FALSE, &control);
  close_results_window (window);

  window = run_measured (code, TRUE, &stall);
  panel = sp_window_get_exec_panel (window);
  /* The wide one: 32 of its 71 columns (the index and 31 of its 70). */
  g_assert_nonnull (find_label_text (
    panel, "Result 2 · showing 1000 of 1500 rows × 70 columns · 39 more columns not shown"));
  /* The bad one: its text, no table. */
  g_assert_nonnull (find_label_text (panel, "no table here"));
  sp_stall_assert_within ("a wide table and a bad one", &stall, &control);
  close_results_window (window);
}

int
main (int argc, char **argv)
{
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE)
      || system ("/usr/bin/python3 -c 'import pandas, PIL, matplotlib' 2>/dev/null") != 0)
    {
      g_print ("1..0 # SKIP /usr/bin/python3 has no pandas, PIL or matplotlib\n");
      return 77;
    }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/Results/in-order-with-table", test_results);
  g_test_add_func ("/Sandpad/Results/big-and-bad", test_big_and_bad);
  ret = g_test_run ();
  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
