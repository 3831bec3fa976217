/* sp-image-window.h: a plot or image of a run at its full size.
 *
 * Shown at its own pixel size (never stretched; scrollbars when it is
 * larger than the window), closed with Escape or Ctrl+W like a dialog. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_IMAGE_WINDOW (sp_image_window_get_type ())
G_DECLARE_FINAL_TYPE (SpImageWindow, sp_image_window, SP, IMAGE_WINDOW, GtkWindow)

GtkWidget *sp_image_window_new (GtkWindow *parent, GdkPaintable *image, const char *title);

G_END_DECLS
