/* sp-ui-test.h: the small helpers every UI test uses, header-only so each
 * test stays one translation unit. */
#pragma once

#include <gtk/gtk.h>
#include <gtksourceview/gtksource.h>

#include "sp-alert.h"
#include "sp-error-mark.h"
#include "sp-test-wait.h"
#include "sp-window.h"

static inline gboolean
is_idle (gpointer data)
{
  return !sp_window_get_running (data);
}

static inline gboolean
is_running (gpointer data)
{
  return sp_window_get_running (data);
}

/* The question (sp-alert.h) shown over WINDOW, or over any window when
 * WINDOW is NULL; NULL when none is. */
static inline SpAlert *
sp_ui_test_find_alert (GtkWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWindow) w = g_list_model_get_item (toplevels, i);
#if ADW_CHECK_VERSION(1, 5, 0)
      AdwDialog *dialog;

      if (!ADW_IS_APPLICATION_WINDOW (w) || (window != NULL && w != window))
        continue;
      dialog = adw_application_window_get_visible_dialog (ADW_APPLICATION_WINDOW (w));
      if (ADW_IS_ALERT_DIALOG (dialog))
        return ADW_ALERT_DIALOG (dialog);
#else
      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w))
          && (window == NULL || gtk_window_get_transient_for (w) == window))
        return ADW_MESSAGE_DIALOG (w);
#endif
    }
  return NULL;
}

/* Answers ALERT as its RESPONSE button does, and closes it. */
static inline void
sp_ui_test_alert_respond (SpAlert *alert, const char *response)
{
  g_object_ref (alert);
#if ADW_CHECK_VERSION(1, 5, 0)
  g_signal_emit_by_name (alert, "response", response);
  adw_dialog_force_close (ADW_DIALOG (alert));
#else
  adw_message_dialog_response (alert, response);
  gtk_window_destroy (GTK_WINDOW (alert));
#endif
  g_object_unref (alert);
}

/* Closes a test's window without the unsaved-text question. */
static inline void
close_window (SpWindow *window)
{
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* False, after telling TAP the test is skipped, when there is no display
 * to open a window on. */
static inline gboolean
sp_ui_test_have_display (void)
{
  if (g_getenv ("DISPLAY") != NULL || g_getenv ("WAYLAND_DISPLAY") != NULL)
    return TRUE;
  g_print ("1..0 # SKIP no display\n");
  return FALSE;
}

/* The first button under widget with this label, depth first. */
static inline GtkWidget *
find_button (GtkWidget *widget, const char *label)
{
  if (GTK_IS_BUTTON (widget) && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), label) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_button (child, label);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The first label under widget carrying css_class, depth first. */
static inline GtkWidget *
find_label (GtkWidget *widget, const char *css_class)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, css_class))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label (child, css_class);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The editor's cursor line, counted from 1 as people do. */
static inline int
cursor_line (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  return gtk_text_iter_get_line (&iter) + 1;
}

/* The editor's lines (from 1) the last failed run marked, as "2" or
 * "2,5"; "" when none is. */
static inline char *
sp_ui_test_marked_lines (SpWindow *window)
{
  GtkSourceBuffer *buffer = sp_window_get_buffer (window);
  GString *lines = g_string_new (NULL);

  for (int line = 0; line < gtk_text_buffer_get_line_count (GTK_TEXT_BUFFER (buffer)); line++)
    {
      GSList *marks = gtk_source_buffer_get_source_marks_at_line (buffer, line,
                                                                  SP_ERROR_MARK_CATEGORY);
      if (marks != NULL)
        g_string_append_printf (lines, "%s%d", lines->len > 0 ? "," : "", line + 1);
      g_slist_free (marks);
    }
  return g_string_free (lines, FALSE);
}

/* Whether a label under widget, depth first, reads text. */
static inline gboolean
sp_ui_test_has_label_text (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && g_strcmp0 (gtk_label_get_text (GTK_LABEL (widget)), text) == 0)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (sp_ui_test_has_label_text (child, text))
      return TRUE;
  return FALSE;
}

/* The first widget of type under widget (itself included), depth first,
 * or NULL. */
static inline GtkWidget *
sp_ui_test_find_of_type (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = sp_ui_test_find_of_type (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The chooser's path bar (a private GTK type, found by name), or NULL. */
static inline GtkWidget *
sp_ui_test_find_path_bar (GtkWidget *widget)
{
  if (g_str_equal (G_OBJECT_TYPE_NAME (widget), "GtkPathBar"))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = sp_ui_test_find_path_bar (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Whether the file chooser (a GtkFileChooserDialog) has a current folder
 * and its path bar shows it. The path bar labels a folder with its display
 * name, which for the plain ASCII names the tests use is its base name. */
static inline gboolean
sp_ui_test_chooser_shows_folder (gpointer data)
{
  g_autoptr (GFile) folder = gtk_file_chooser_get_current_folder (data);
  g_autofree char *name = folder != NULL ? g_file_get_basename (folder) : NULL;
  GtkWidget *bar = sp_ui_test_find_path_bar (data);

  return name != NULL && bar != NULL && sp_ui_test_has_label_text (bar, name);
}

/* Waits until the file chooser shows its current folder in its path bar.
 * The path bar looks up each folder of the path one after the other, off
 * the main loop, and puts its buttons in only when the last lookup is
 * done; a lookup cancelled halfway, by a new folder or by the dialog
 * answered and destroyed, removes buttons it never put in (GTK 4.18:
 * "gtk_box_remove: assertion ... failed" from a GIO callback, fatal under
 * G_DEBUG=fatal-warnings). A person never answers within those
 * milliseconds; a test waits as a person does, after opening the chooser
 * and after each folder it sets. Returns whether it showed in timeout_ms. */
static inline gboolean
sp_ui_test_wait_chooser_folder (GtkWidget *chooser, guint timeout_ms)
{
  return sp_test_wait_for (sp_ui_test_chooser_shows_folder, chooser, timeout_ms);
}

/* A window as GTK draws it, once it has drawn (a snapshot can come back
 * empty before the first frame: tried again, up to 50 frames). */
static inline GdkTexture *
sp_ui_test_render (GtkWindow *window)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  g_autoptr (GskRenderNode) node = NULL;

  for (int attempt = 0; node == NULL && attempt < 50; attempt++)
    {
      GtkSnapshot *snapshot = gtk_snapshot_new ();

      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (GTK_WIDGET (window)),
                              gtk_widget_get_height (GTK_WIDGET (window)));
      node = gtk_snapshot_free_to_node (snapshot);
    }
  g_assert_nonnull (node);
  return gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node, NULL);
}
