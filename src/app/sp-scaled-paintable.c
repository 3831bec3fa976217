/* sp-scaled-paintable.c: a picture shown at a size of its own
 * (sp-scaled-paintable.h). */
#define G_LOG_DOMAIN "sp-scaled-paintable"

#include "config.h"

#include "sp-scaled-paintable.h"

struct _SpScaledPaintable
{
  GObject parent_instance;

  GdkPaintable *image;
  guint scale;
};

static void sp_scaled_paintable_paintable_init (GdkPaintableInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SpScaledPaintable, sp_scaled_paintable, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GDK_TYPE_PAINTABLE,
                                                      sp_scaled_paintable_paintable_init))

static void
sp_scaled_paintable_snapshot (GdkPaintable *paintable, GdkSnapshot *snapshot, double width,
                              double height)
{
  SpScaledPaintable *self = SP_SCALED_PAINTABLE (paintable);

  gdk_paintable_snapshot (self->image, snapshot, width, height);
}

/* Rounded up: a formula a pixel narrower than its pixels say is cut. */
static int
sp_scaled_paintable_get_intrinsic_width (GdkPaintable *paintable)
{
  SpScaledPaintable *self = SP_SCALED_PAINTABLE (paintable);
  int width = gdk_paintable_get_intrinsic_width (self->image);

  return (width + (int) self->scale - 1) / (int) self->scale;
}

static int
sp_scaled_paintable_get_intrinsic_height (GdkPaintable *paintable)
{
  SpScaledPaintable *self = SP_SCALED_PAINTABLE (paintable);
  int height = gdk_paintable_get_intrinsic_height (self->image);

  return (height + (int) self->scale - 1) / (int) self->scale;
}

static double
sp_scaled_paintable_get_intrinsic_aspect_ratio (GdkPaintable *paintable)
{
  return gdk_paintable_get_intrinsic_aspect_ratio (SP_SCALED_PAINTABLE (paintable)->image);
}

static GdkPaintableFlags
sp_scaled_paintable_get_flags (GdkPaintable *paintable)
{
  return gdk_paintable_get_flags (SP_SCALED_PAINTABLE (paintable)->image);
}

static void
sp_scaled_paintable_paintable_init (GdkPaintableInterface *iface)
{
  iface->snapshot = sp_scaled_paintable_snapshot;
  iface->get_intrinsic_width = sp_scaled_paintable_get_intrinsic_width;
  iface->get_intrinsic_height = sp_scaled_paintable_get_intrinsic_height;
  iface->get_intrinsic_aspect_ratio = sp_scaled_paintable_get_intrinsic_aspect_ratio;
  iface->get_flags = sp_scaled_paintable_get_flags;
}

static void
sp_scaled_paintable_dispose (GObject *object)
{
  SpScaledPaintable *self = SP_SCALED_PAINTABLE (object);

  g_clear_object (&self->image);
  G_OBJECT_CLASS (sp_scaled_paintable_parent_class)->dispose (object);
}

static void
sp_scaled_paintable_class_init (SpScaledPaintableClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sp_scaled_paintable_dispose;
}

static void
sp_scaled_paintable_init (SpScaledPaintable *self)
{
}

GdkPaintable *
sp_scaled_paintable_new (GdkPaintable *image, guint scale)
{
  SpScaledPaintable *self;

  g_return_val_if_fail (GDK_IS_PAINTABLE (image), NULL);
  g_return_val_if_fail (scale >= 1, NULL);

  self = g_object_new (SP_TYPE_SCALED_PAINTABLE, NULL);
  self->image = g_object_ref (image);
  self->scale = scale;
  return GDK_PAINTABLE (self);
}
