/* test-details.c: the small things of the panel, in a real window under
 * Xvfb against the real runner: colours that read in dark style, wrapped
 * output without invented hyphens, Copy and Save As that say what they
 * did (Save As starting at home for an untitled snippet), a CSV preview
 * whose columns stay in place and that says what it left out, the status
 * line's whole text as its tooltip, and the Full Size window at the
 * image's own size. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-image-window.h"
#include "sp-preferences-window.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

typedef gboolean (*WidgetTest) (GtkWidget *widget, gconstpointer data);

static GtkWidget *
find (GtkWidget *widget, WidgetTest test, gconstpointer data)
{
  if (gtk_widget_get_visible (widget) && test (widget, data))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find (child, test, data);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
label_is (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0;
}

static gboolean
label_starts (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), text);
}

static gboolean
button_is (GtkWidget *widget, gconstpointer text)
{
  return GTK_IS_BUTTON (widget)
         && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), text) == 0;
}

static gboolean
has_class (GtkWidget *widget, gconstpointer css_class)
{
  return GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, css_class);
}

static gboolean
has_picture (GtkWidget *widget, gconstpointer data)
{
  return GTK_IS_PICTURE (widget) && gtk_picture_get_paintable (GTK_PICTURE (widget)) != NULL;
}

typedef struct
{
  GtkWidget *root;
  WidgetTest test;
  gconstpointer data;
} FindWait;

static gboolean
found (gpointer data)
{
  FindWait *wait = data;
  return find (wait->root, wait->test, wait->data) != NULL;
}

static GtkWidget *
wait_find (GtkWidget *root, WidgetTest test, gconstpointer data)
{
  FindWait wait = { root, test, data };

  g_assert_true (sp_test_wait_for (found, &wait, 15000));
  return find (root, test, data);
}

static SpWindow *
run_in_window (const char *code)
{
  SpWindow *window = sp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

static void
test_dark_colours_and_hyphens (void)
{
  AdwStyleManager *style = adw_style_manager_get_default ();
  SpWindow *window;
  GtkWidget *label;
  PangoAttrList *attrs;
  gboolean no_hyphens = FALSE;

  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_FORCE_DARK);
  window = run_in_window ("print('\\033[31mred\\033[0m and \\033[34mblue\\033[0m')\n");
  label = wait_find (sp_window_get_exec_panel (window), label_is, "red and blue");
  g_test_message ("markup: %s", gtk_label_get_label (GTK_LABEL (label)));
  /* The dark style's red and blue, not the light style's. */
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "#ff7b63"));
  g_assert_nonnull (strstr (gtk_label_get_label (GTK_LABEL (label)), "#62a0ea"));

  /* Wrapping never inserts a hyphen. */
  attrs = gtk_label_get_attributes (GTK_LABEL (label));
  g_assert_nonnull (attrs);
  for (GSList *l = pango_attr_list_get_attributes (attrs); l != NULL;
       l = g_slist_delete_link (l, l))
    {
      PangoAttribute *attr = l->data;
      if (attr->klass->type == PANGO_ATTR_INSERT_HYPHENS && !((PangoAttrInt *) attr)->value)
        no_hyphens = TRUE;
      pango_attribute_destroy (attr);
    }
  g_assert_true (no_hyphens);
  close_window (window);
  adw_style_manager_set_color_scheme (style, ADW_COLOR_SCHEME_DEFAULT);
}

static gboolean
is_file_chooser (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);
      if (GTK_IS_FILE_CHOOSER (toplevel))
        {
          *(GtkWidget **) data = GTK_WIDGET (toplevel);
          return TRUE;
        }
    }
  return FALSE;
}

static void
test_csv_preview_and_save_as (void)
{
  SpWindow *window = run_in_window (
    "with open('people.csv', 'w') as f:\n"
    "    f.write('name,city,' + ','.join(f'c{i}' for i in range(10)) + '\\n')\n"
    "    f.write('\"Smith, John\",Oslo,' + ','.join('x' * 10) + '\\n')\n"
    "    for i in range(20):\n"
    "        f.write(f'p{i},here,' + ','.join('y' * 10) + '\\n')\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *smith, *oslo, *chooser = NULL;
  g_autoptr (GFile) current = NULL;
  g_autofree char *dir = g_dir_make_tmp ("sp-details-XXXXXX", NULL);
  g_autoptr (GFile) folder = g_file_new_for_path (dir);
  g_autofree char *saved = g_build_filename (dir, "copy.csv", NULL);
  const char *status_tip;
  GtkWidget *status;

  /* A quoted comma stays in its cell: Oslo is in the city column. */
  smith = wait_find (panel, label_is, "Smith, John");
  oslo = find (panel, label_is, "Oslo");
  g_assert_nonnull (oslo);
  {
    int col_smith, col_oslo, row_smith, row_oslo;
    GtkWidget *grid = gtk_widget_get_parent (smith);
    gtk_grid_query_child (GTK_GRID (grid), smith, &col_smith, &row_smith, NULL, NULL);
    gtk_grid_query_child (GTK_GRID (grid), oslo, &col_oslo, &row_oslo, NULL, NULL);
    g_assert_cmpint (col_smith, ==, 0);
    g_assert_cmpint (col_oslo, ==, 1);
    g_assert_cmpint (row_oslo, ==, row_smith);
  }
  /* What is left out is said. */
  g_assert_nonnull (find (panel, label_starts, "Only the first rows and columns are shown"));

  /* The status line's whole text on hover. */
  status = find (panel, has_class, "sp-status");
  g_assert_nonnull (status);
  status_tip = gtk_widget_get_tooltip_text (status);
  g_assert_cmpstr (status_tip, ==, gtk_label_get_text (GTK_LABEL (status)));

  /* Save As starts at home (an untitled snippet has no folder), and says
   * what it did. */
  g_signal_emit_by_name (find (panel, button_is, "Save As…"), "clicked");
  g_assert_true (sp_test_wait_for (is_file_chooser, &chooser, 10000));
  g_assert_true (sp_ui_test_wait_chooser_folder (chooser, 10000));
  current = gtk_file_chooser_get_current_folder (GTK_FILE_CHOOSER (chooser));
  g_test_message ("Save As starts in %s", g_file_peek_path (current));
  g_assert_cmpstr (g_file_peek_path (current), ==, g_get_home_dir ());
  g_assert_true (gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (chooser), folder, NULL));
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (chooser), "copy.csv");
  g_assert_true (sp_ui_test_wait_chooser_folder (chooser, 10000));
  gtk_dialog_response (GTK_DIALOG (chooser), GTK_RESPONSE_ACCEPT);
  wait_find (GTK_WIDGET (window), label_is, "Saved as copy.csv");
  g_assert_true (g_file_test (saved, G_FILE_TEST_EXISTS));

  g_unlink (saved);
  g_rmdir (dir);
  close_window (window);
}

static gboolean
is_image_window (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);
      if (SP_IS_IMAGE_WINDOW (toplevel))
        {
          *(GtkWidget **) data = GTK_WIDGET (toplevel);
          return TRUE;
        }
    }
  return FALSE;
}

typedef struct
{
  GtkWidget *widget;
  int width;
} WidthWait;

static gboolean
window_wider (gpointer data)
{
  WidthWait *wait = data;
  return gtk_widget_get_width (wait->widget) >= wait->width;
}

static void
test_copy_and_full_size (void)
{
  SpWindow *window = run_in_window ("import matplotlib.pyplot as plt\n"
                                    "plt.plot([1, 2, 3])\nplt.show()\n");
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *full = NULL, *picture;
  WidthWait wider;

  wait_find (panel, has_picture, NULL);
  /* Copy says it copied. */
  g_signal_emit_by_name (wait_find (panel, button_is, "Copy"), "clicked");
  wait_find (GTK_WIDGET (window), label_is, "Image copied");

  /* Full Size: the image's own size, not stretched to a larger window. */
  g_signal_emit_by_name (find (panel, button_is, "Full Size"), "clicked");
  g_assert_true (sp_test_wait_for (is_image_window, &full, 10000));
  gtk_window_set_default_size (GTK_WINDOW (full), 1100, 800);
  wider = (WidthWait){ full, 1000 };
  g_assert_true (sp_test_wait_for (window_wider, &wider, 10000));
  gtk_test_widget_wait_for_draw (full);
  picture = find (full, has_picture, NULL);
  g_assert_nonnull (picture);
  g_test_message ("window %d wide, picture %dx%d", gtk_widget_get_width (full),
                  gtk_widget_get_width (picture), gtk_widget_get_height (picture));
  g_assert_cmpint (gtk_widget_get_width (picture), ==, 640);
  g_assert_cmpint (gtk_widget_get_height (picture), ==, 480);
  gtk_window_destroy (GTK_WINDOW (full));
  close_window (window);
}

static GtkWidget *
find_action_row (GtkWidget *widget, const char *title)
{
  if (ADW_IS_ACTION_ROW (widget)
      && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_action_row (child, title);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkWidget *
find_spin (GtkWidget *widget)
{
  if (GTK_IS_SPIN_BUTTON (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_spin (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Issue 23: the output limit is in Preferences with the other limits, and
 * a long status line wraps at the window's default size instead of hiding
 * its end ("Output changed since the last run", a limit's reason) behind
 * "…". */
static void
test_output_limit_and_status (void)
{
  GSettings *settings = sp_application_get_settings (app);
  GtkWidget *prefs = sp_preferences_window_new (settings);
  GtkWidget *row, *spin, *status;
  SpWindow *window;
  const char *text = "Exited with code 0 · 0.05 s · 14 MiB peak memory · 0.03 s CPU · "
                     "Output changed since the last run: 3 lines of stdout differ, the error "
                     "is new";

  gtk_window_present (GTK_WINDOW (prefs));
  row = find_action_row (prefs, "Output Limit");
  g_assert_nonnull (row);
  g_assert_nonnull (find_action_row (prefs, "Memory Limit"));
  g_assert_true (gtk_widget_get_parent (row)
                 == gtk_widget_get_parent (find_action_row (prefs, "Memory Limit")));
  spin = find_spin (row);
  g_assert_nonnull (spin);
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 1);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 5);
  g_assert_cmpuint (g_settings_get_uint (settings, "output-limit-mib"), ==, 5);
  g_settings_reset (settings, "output-limit-mib");
  g_assert_cmpfloat (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), ==, 1);
  gtk_window_destroy (GTK_WINDOW (prefs));

  /* The window at the size it opens with. */
  window = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  sp_exec_panel_set_status (SP_EXEC_PANEL (sp_window_get_exec_panel (window)), text, FALSE);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  status = find_label (GTK_WIDGET (window), "sp-status");
  g_assert_nonnull (status);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (status)), ==, text);
  g_test_message ("status %d px wide in a panel of %d", gtk_widget_get_width (status),
                  gtk_widget_get_width (sp_window_get_exec_panel (window)));
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (status))));
  g_assert_cmpint (gtk_widget_get_width (status), <=,
                   gtk_widget_get_width (sp_window_get_exec_panel (window)));
  close_window (window);
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
  g_test_add_func ("/Sandpad/Details/dark-colours-and-hyphens", test_dark_colours_and_hyphens);
  g_test_add_func ("/Sandpad/Details/output-limit-and-status", test_output_limit_and_status);
  g_test_add_func ("/Sandpad/Details/csv-preview-and-save-as", test_csv_preview_and_save_as);
  g_test_add_func ("/Sandpad/Details/copy-and-full-size", test_copy_and_full_size);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
