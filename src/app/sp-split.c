/* sp-split.c: the editor beside the panel, or above it in a narrow window.
 *
 * The proportion is applied in size_allocate, where the width is known,
 * and only when the width or the proportion changed: the paned clamps a
 * position to its children's minimum sizes, and setting it again on every
 * frame would make it relayout forever. A drag of the divider is the only
 * thing that changes the proportion; the paned's own clamping during
 * allocation does not. Changing the orientation invalidates the sizes
 * just measured, so it waits for an idle moment after the allocation that
 * crossed the threshold (one frame later). With a threshold of 0 the split
 * never decides by itself: "stacked" is set from outside, as libadwaita
 * 1.4's AdwBreakpoint does (sp-window.c), which changes it between frames. */
#define G_LOG_DOMAIN "sp-split"

#include "config.h"

#include "sp-split.h"

struct _SpSplit
{
  GtkWidget parent_instance;

  GtkPaned *paned;
  double fraction;
  int threshold;
  gboolean stacked;
  gboolean allocating;
  int applied_extent; /* the extent the position was last set for */
  double applied_fraction;
  guint orient_id;
};

G_DEFINE_FINAL_TYPE (SpSplit, sp_split, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_FRACTION,
  PROP_THRESHOLD,
  PROP_STACKED,
  PROP_START_CHILD,
  PROP_END_CHILD,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
apply_orientation (gpointer user_data)
{
  SpSplit *self = user_data;

  self->orient_id = 0;
  gtk_orientable_set_orientation (GTK_ORIENTABLE (self->paned), self->stacked
                                                                  ? GTK_ORIENTATION_VERTICAL
                                                                  : GTK_ORIENTATION_HORIZONTAL);
  self->applied_extent = -1;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STACKED]);
  return G_SOURCE_REMOVE;
}

static void
sp_split_size_allocate (GtkWidget *widget, int width, int height, int baseline)
{
  SpSplit *self = SP_SPLIT (widget);
  gboolean stacked = self->threshold > 0 ? width < self->threshold : self->stacked;
  gboolean vertical = gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned))
                      == GTK_ORIENTATION_VERTICAL;
  int extent = vertical ? height : width;

  if (stacked != self->stacked)
    {
      self->stacked = stacked;
      if (self->orient_id == 0)
        self->orient_id = g_idle_add_full (G_PRIORITY_HIGH_IDLE, apply_orientation, self, NULL);
    }
  self->allocating = TRUE;
  if (extent != self->applied_extent || self->fraction != self->applied_fraction)
    {
      self->applied_extent = extent;
      self->applied_fraction = self->fraction;
      gtk_paned_set_position (self->paned, (int) (self->fraction * extent + 0.5));
    }
  gtk_widget_allocate (GTK_WIDGET (self->paned), width, height, baseline, NULL);
  self->allocating = FALSE;
}

static void
sp_split_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum,
                  int *natural, int *minimum_baseline, int *natural_baseline)
{
  gtk_widget_measure (GTK_WIDGET (SP_SPLIT (widget)->paned), orientation, for_size, minimum,
                      natural, minimum_baseline, natural_baseline);
}

static GtkSizeRequestMode
sp_split_get_request_mode (GtkWidget *widget)
{
  return gtk_widget_get_request_mode (GTK_WIDGET (SP_SPLIT (widget)->paned));
}

/* The user moved the divider: that is the new proportion. */
static void
on_position (GtkPaned *paned, GParamSpec *pspec, SpSplit *self)
{
  gboolean vertical = gtk_orientable_get_orientation (GTK_ORIENTABLE (paned))
                      == GTK_ORIENTATION_VERTICAL;
  int extent = vertical ? gtk_widget_get_height (GTK_WIDGET (self))
                        : gtk_widget_get_width (GTK_WIDGET (self));

  if (self->allocating || extent <= 0 || self->orient_id != 0)
    return;
  self->applied_extent = extent;
  sp_split_set_fraction (self, (double) gtk_paned_get_position (paned) / extent);
  self->applied_fraction = self->fraction;
}

static void
sp_split_dispose (GObject *object)
{
  SpSplit *self = SP_SPLIT (object);

  g_clear_handle_id (&self->orient_id, g_source_remove);
  g_clear_pointer ((GtkWidget **) &self->paned, gtk_widget_unparent);
  G_OBJECT_CLASS (sp_split_parent_class)->dispose (object);
}

static void
sp_split_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpSplit *self = SP_SPLIT (object);

  switch (prop_id)
    {
    case PROP_FRACTION:
      g_value_set_double (value, self->fraction);
      break;
    case PROP_THRESHOLD:
      g_value_set_int (value, self->threshold);
      break;
    case PROP_STACKED:
      g_value_set_boolean (value, sp_split_get_stacked (self));
      break;
    case PROP_START_CHILD:
      g_value_set_object (value, gtk_paned_get_start_child (self->paned));
      break;
    case PROP_END_CHILD:
      g_value_set_object (value, gtk_paned_get_end_child (self->paned));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_split_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SpSplit *self = SP_SPLIT (object);

  switch (prop_id)
    {
    case PROP_FRACTION:
      sp_split_set_fraction (self, g_value_get_double (value));
      break;
    case PROP_THRESHOLD:
      sp_split_set_threshold (self, g_value_get_int (value));
      break;
    case PROP_STACKED:
      sp_split_set_stacked (self, g_value_get_boolean (value));
      break;
    case PROP_START_CHILD:
      sp_split_set_start_child (self, g_value_get_object (value));
      break;
    case PROP_END_CHILD:
      sp_split_set_end_child (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_split_class_init (SpSplitClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_split_dispose;
  object_class->get_property = sp_split_get_property;
  object_class->set_property = sp_split_set_property;
  widget_class->size_allocate = sp_split_size_allocate;
  widget_class->measure = sp_split_measure;
  widget_class->get_request_mode = sp_split_get_request_mode;

  properties[PROP_FRACTION] = g_param_spec_double ("fraction", NULL, NULL, SP_SPLIT_MIN_FRACTION,
                                                   SP_SPLIT_MAX_FRACTION, 0.55,
                                                   G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
                                                     | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_THRESHOLD]
    = g_param_spec_int ("threshold", NULL, NULL, 0, G_MAXINT, SP_SPLIT_STACK_BELOW,
                        G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_STACKED] = g_param_spec_boolean ("stacked", NULL, NULL, FALSE,
                                                   G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
                                                     | G_PARAM_EXPLICIT_NOTIFY);
  properties[PROP_START_CHILD] = g_param_spec_object ("start-child", NULL, NULL, GTK_TYPE_WIDGET,
                                                      G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  properties[PROP_END_CHILD] = g_param_spec_object ("end-child", NULL, NULL, GTK_TYPE_WIDGET,
                                                    G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sp_split_init (SpSplit *self)
{
  self->fraction = 0.55;
  self->threshold = SP_SPLIT_STACK_BELOW;
  self->applied_extent = -1;
  self->paned = GTK_PANED (gtk_paned_new (GTK_ORIENTATION_HORIZONTAL));
  /* Never squeezed: each side keeps at least its minimum size. */
  gtk_paned_set_shrink_start_child (self->paned, FALSE);
  gtk_paned_set_shrink_end_child (self->paned, FALSE);
  gtk_widget_set_parent (GTK_WIDGET (self->paned), GTK_WIDGET (self));
  g_signal_connect_object (self->paned, "notify::position", G_CALLBACK (on_position), self, 0);
}

GtkWidget *
sp_split_new (void)
{
  return g_object_new (SP_TYPE_SPLIT, NULL);
}

void
sp_split_set_start_child (SpSplit *self, GtkWidget *child)
{
  g_return_if_fail (SP_IS_SPLIT (self));
  gtk_paned_set_start_child (self->paned, child);
}

void
sp_split_set_end_child (SpSplit *self, GtkWidget *child)
{
  g_return_if_fail (SP_IS_SPLIT (self));
  gtk_paned_set_end_child (self->paned, child);
}

double
sp_split_get_fraction (SpSplit *self)
{
  g_return_val_if_fail (SP_IS_SPLIT (self), 0.5);
  return self->fraction;
}

void
sp_split_set_fraction (SpSplit *self, double fraction)
{
  g_return_if_fail (SP_IS_SPLIT (self));

  fraction = CLAMP (fraction, SP_SPLIT_MIN_FRACTION, SP_SPLIT_MAX_FRACTION);
  if (G_APPROX_VALUE (fraction, self->fraction, 1e-4))
    return;
  self->fraction = fraction;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
}

void
sp_split_set_threshold (SpSplit *self, int width)
{
  g_return_if_fail (SP_IS_SPLIT (self));

  if (self->threshold == width)
    return;
  self->threshold = width;
  gtk_widget_queue_allocate (GTK_WIDGET (self));
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_THRESHOLD]);
}

void
sp_split_set_stacked (SpSplit *self, gboolean stacked)
{
  g_return_if_fail (SP_IS_SPLIT (self));
  g_return_if_fail (self->threshold == 0);

  stacked = !!stacked;
  if (stacked == self->stacked)
    return;
  self->stacked = stacked;
  /* Not inside an allocation: the orientation changes now. */
  g_clear_handle_id (&self->orient_id, g_source_remove);
  apply_orientation (self);
}

gboolean
sp_split_get_stacked (SpSplit *self)
{
  g_return_val_if_fail (SP_IS_SPLIT (self), FALSE);
  return gtk_orientable_get_orientation (GTK_ORIENTABLE (self->paned)) == GTK_ORIENTATION_VERTICAL;
}

GtkPaned *
sp_split_get_paned (SpSplit *self)
{
  g_return_val_if_fail (SP_IS_SPLIT (self), NULL);
  return self->paned;
}
