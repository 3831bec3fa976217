/* test-polish.c: the small things of issue 38's item 9, in a real window:
 * the Shortcuts window names no key "KP_Enter" and tells Ctrl+, from
 * Ctrl+. in words; the restore bar's date is no "12/05/26" but day, month's
 * name and year; a run's Save As, Copy and Full Size look like buttons,
 * not bold text. (Save's final newline is in test-save, the typed answer
 * and the status line's colour in test-history.) */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-reload-bar.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

/* The visible labels' texts under widget, joined by "|". */
static void
collect_labels (GtkWidget *widget, GString *out)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget))
    g_string_append_printf (out, "%s|", gtk_label_get_text (GTK_LABEL (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    collect_labels (c, out);
}

/* The GtkShortcutsShortcut whose title is title, under widget. */
static GtkWidget *
find_shortcut (GtkWidget *widget, const char *title)
{
  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    {
      g_autofree char *t = NULL;
      g_object_get (widget, "title", &t, NULL);
      if (g_strcmp0 (t, title) == 0)
        return widget;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_shortcut (c, title);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* What the Shortcuts window shows: no key by its X name, and Ctrl+, and
 * Ctrl+. (whose keycaps look alike) told apart in words. */
static void
test_shortcuts_window (void)
{
  g_autoptr (GtkBuilder) builder = gtk_builder_new_from_resource (
    "/io/github/sandpad/Sandpad/gtk/help-overlay.ui");
  GtkWidget *overlay = GTK_WIDGET (gtk_builder_get_object (builder, "help_overlay"));
  g_autoptr (GString) all = g_string_new (NULL);
  g_autoptr (GString) stop = g_string_new (NULL);
  g_autoptr (GString) prefs = g_string_new (NULL);

  g_assert_nonnull (overlay);
  gtk_window_present (GTK_WINDOW (overlay));
  gtk_test_widget_wait_for_draw (overlay);
  collect_labels (overlay, all);
  g_test_message ("shown: %s", all->str);
  g_assert_null (strstr (all->str, "KP_"));
  collect_labels (find_shortcut (overlay, "Stop"), stop);
  collect_labels (find_shortcut (overlay, "Preferences"), prefs);
  g_assert_nonnull (strstr (stop->str, "period"));
  g_assert_nonnull (strstr (prefs->str, "comma"));
  gtk_window_destroy (GTK_WINDOW (overlay));
}

/* The restore bar says when the copy was written as day, month's name and
 * year (C.UTF-8's "%x" made it "12/05/26"). */
static void
test_restore_date (void)
{
  SpWindow *window = sp_window_new (app);
  g_autofree char *id = g_strdup ("0123456789abcdef");
  g_autoptr (GDateTime) when = g_date_time_new_local (2026, 12, 5, 14, 32, 0);
  SpAutosaveEntry entry = { id, NULL, NULL, NULL, g_date_time_to_unix (when), "x = 1\n", 6 };
  const char *message;

  gtk_window_present (GTK_WINDOW (window));
  sp_window_restore_autosave (window, &entry);
  message = sp_reload_bar_get_message (sp_window_get_autosave_bar (window));
  g_test_message ("%s", message);
  g_assert_nonnull (strstr (message, "5 December 2026, 14:32"));
  g_assert_null (strstr (message, "12/05/26"));
  close_window (window);
}

/* A color node that paints something, under node. */
static gboolean
has_fill (GskRenderNode *node)
{
  switch (gsk_render_node_get_node_type (node))
    {
    case GSK_COLOR_NODE:
      return gsk_color_node_get_color (node)->alpha > 0.01;
    case GSK_CONTAINER_NODE:
      for (guint i = 0; i < gsk_container_node_get_n_children (node); i++)
        if (has_fill (gsk_container_node_get_child (node, i)))
          return TRUE;
      return FALSE;
    case GSK_ROUNDED_CLIP_NODE:
      return has_fill (gsk_rounded_clip_node_get_child (node));
    case GSK_CLIP_NODE:
      return has_fill (gsk_clip_node_get_child (node));
    case GSK_TRANSFORM_NODE:
      return has_fill (gsk_transform_node_get_child (node));
    case GSK_OPACITY_NODE:
      return has_fill (gsk_opacity_node_get_child (node));
    case GSK_DEBUG_NODE:
      return has_fill (gsk_debug_node_get_child (node));
    default:
      return FALSE;
    }
}

/* The button labelled label under widget, mapped. */
static GtkWidget *
find_mapped_button (GtkWidget *widget, const char *label)
{
  if (GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget)
      && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL;
       c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_mapped_button (c, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_save_button (gpointer data)
{
  return find_mapped_button (data, "Save As…") != NULL;
}

/* A file the run made: its Open and Save As draw a button's background,
 * not only their (bold) text. */
static void
test_buttons_look (void)
{
  SpWindow *window = sp_window_new (app);
  GtkWidget *panel = sp_window_get_exec_panel (window);
  const char *labels[] = { "Open", "Save As…" };

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)),
                            "open('out.txt', 'w').write('made by the run\\n')", -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 30000));
  g_assert_true (sp_test_wait_for (has_save_button, panel, 10000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  for (guint i = 0; i < G_N_ELEMENTS (labels); i++)
    {
      GtkWidget *button = find_mapped_button (panel, labels[i]);
      g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (button);
      GtkSnapshot *snapshot = gtk_snapshot_new ();
      g_autoptr (GskRenderNode) node = NULL;

      gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (button),
                              gtk_widget_get_height (button));
      node = gtk_snapshot_free_to_node (snapshot);
      g_assert_nonnull (node);
      if (!has_fill (node))
        g_error ("%s draws no background: it reads as bold text", labels[i]);
    }
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
  g_test_add_func ("/Sandpad/Polish/shortcuts-window", test_shortcuts_window);
  g_test_add_func ("/Sandpad/Polish/restore-date", test_restore_date);
  g_test_add_func ("/Sandpad/Polish/buttons-look", test_buttons_look);
  ret = g_test_run ();
  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
