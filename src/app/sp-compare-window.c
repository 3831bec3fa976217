/* sp-compare-window.c: disk against editor, as a unified diff. */
#define G_LOG_DOMAIN "sp-compare-window"

#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>

#include "sp-compare-window.h"
#include "sp-line-diff.h"

struct _SpCompareWindow
{
  AdwWindow parent_instance;

  GtkSourceView *view;
};

G_DEFINE_FINAL_TYPE (SpCompareWindow, sp_compare_window, ADW_TYPE_WINDOW)

static void
sp_compare_window_class_init (SpCompareWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close",
                                       NULL);
}

static void
update_scheme (SpCompareWindow *self)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->view));

  gtk_source_buffer_set_style_scheme (
    GTK_SOURCE_BUFFER (buffer),
    gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita"));
}

static void
sp_compare_window_init (SpCompareWindow *self)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkSourceLanguageManager *languages = gtk_source_language_manager_get_default ();
  g_autoptr (GtkSourceBuffer) buffer = gtk_source_buffer_new_with_language (
    gtk_source_language_manager_get_language (languages, "diff"));

  self->view = GTK_SOURCE_VIEW (gtk_source_view_new_with_buffer (buffer));
  gtk_text_view_set_editable (GTK_TEXT_VIEW (self->view), FALSE);
  gtk_text_view_set_monospace (GTK_TEXT_VIEW (self->view), TRUE);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (self->view), 6);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->view), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _ ("Differences"), -1);
  gtk_widget_set_vexpand (scroller, TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), GTK_WIDGET (self->view));
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), scroller);
  adw_window_set_content (ADW_WINDOW (self), box);
  gtk_window_set_default_size (GTK_WINDOW (self), 760, 560);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_scheme), self, G_CONNECT_SWAPPED);
  update_scheme (self);
}

GtkWidget *
sp_compare_window_new (GtkWindow *parent, const char *name, const char *disk_text,
                       const char *editor_text)
{
  SpCompareWindow *self;
  g_autoptr (SpLineDiff) diff = sp_line_diff (disk_text, editor_text);
  g_autofree char *disk_label = g_strdup_printf (_ ("%s on disk"), name);
  g_autofree char *editor_label = g_strdup_printf (_ ("%s in the editor (unsaved)"), name);
  g_autofree char *patch = sp_line_diff_to_unified (diff, disk_label, editor_label, 3);
  g_autofree char *title = g_strdup_printf (_ ("Compare %s"), name);

  self = g_object_new (SP_TYPE_COMPARE_WINDOW, "title", title, "transient-for", parent, NULL);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->view)),
                            patch[0] != '\0' ? patch
                                             : _ ("The file on disk and the editor's text "
                                                  "are the same."),
                            -1);
  return GTK_WIDGET (self);
}

char *
sp_compare_window_get_text (SpCompareWindow *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (SP_IS_COMPARE_WINDOW (self), NULL);
  buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->view));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}
