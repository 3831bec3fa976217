/* sp-image-window.c: a plot or image of a run at its full size. */
#define G_LOG_DOMAIN "sp-image-window"

#include "config.h"

#include "sp-image-window.h"

struct _SpImageWindow
{
  GtkWindow parent_instance;
};

G_DEFINE_FINAL_TYPE (SpImageWindow, sp_image_window, GTK_TYPE_WINDOW)

/* Room for a window's frame and scrollbars around the picture. */
#define FRAME 24
#define MAX_WIDTH 1200
#define MAX_HEIGHT 900

static void
sp_image_window_class_init (SpImageWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  /* A window for a look, closed the way dialogs are. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close",
                                       NULL);
}

static void
sp_image_window_init (SpImageWindow *self)
{
}

GtkWidget *
sp_image_window_new (GtkWindow *parent, GdkPaintable *image, const char *title)
{
  SpImageWindow *self;
  GtkWidget *scroller = gtk_scrolled_window_new ();
  GtkWidget *picture = gtk_picture_new_for_paintable (image);
  int width = gdk_paintable_get_intrinsic_width (image);
  int height = gdk_paintable_get_intrinsic_height (image);

  g_return_val_if_fail (GDK_IS_PAINTABLE (image), NULL);

  self = g_object_new (SP_TYPE_IMAGE_WINDOW, "title", title, "transient-for", parent, NULL);
  /* Its own size: centred in a larger window, scrolled in a smaller one,
   * never scaled. */
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), FALSE);
  gtk_widget_set_halign (picture, GTK_ALIGN_CENTER);
  gtk_widget_set_valign (picture, GTK_ALIGN_CENTER);
  gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL, title,
                                  -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scroller), picture);
  gtk_window_set_child (GTK_WINDOW (self), scroller);
  gtk_window_set_default_size (GTK_WINDOW (self), CLAMP (width + FRAME, 200, MAX_WIDTH),
                               CLAMP (height + FRAME, 150, MAX_HEIGHT));
  return GTK_WIDGET (self);
}
