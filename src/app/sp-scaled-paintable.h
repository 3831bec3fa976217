/* sp-scaled-paintable.h: a picture shown at a size of its own.
 *
 * GtkPicture sizes itself by its paintable's intrinsic size, which for a
 * texture is its pixels. A typeset formula is drawn at twice (or more)
 * the logical size, so it stays sharp on a 2x display; wrapped in this, it
 * asks for its pixels divided by that scale, and a row can show it at
 * text's size, where text starts, instead of stretched to the panel. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_SCALED_PAINTABLE (sp_scaled_paintable_get_type ())
G_DECLARE_FINAL_TYPE (SpScaledPaintable, sp_scaled_paintable, SP, SCALED_PAINTABLE, GObject)

/* scale: the image's pixels per logical pixel, at least 1. */
GdkPaintable *sp_scaled_paintable_new (GdkPaintable *image, guint scale);

G_END_DECLS
