/* sp-split.h: the editor beside the panel, or above it in a narrow window.
 *
 * A GtkPaned whose divider is kept as a proportion ("fraction", the start
 * child's share), so a window opened at another size keeps the same
 * balance instead of a remembered pixel position, and which stacks its
 * children (vertical) while its width is below "threshold" (or, with a
 * threshold of 0, while "stacked" is set). Neither child is ever squeezed
 * below its minimum size. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_SPLIT (sp_split_get_type ())
G_DECLARE_FINAL_TYPE (SpSplit, sp_split, SP, SPLIT, GtkWidget)

#define SP_SPLIT_MIN_FRACTION 0.15
#define SP_SPLIT_MAX_FRACTION 0.85
/* The default threshold: side by side from this width up. */
#define SP_SPLIT_STACK_BELOW 720

GtkWidget *sp_split_new (void);

void sp_split_set_start_child (SpSplit *self, GtkWidget *child);
void sp_split_set_end_child (SpSplit *self, GtkWidget *child);
/* The start child's share of the width (or height, when stacked). */
double sp_split_get_fraction (SpSplit *self);
void sp_split_set_fraction (SpSplit *self, double fraction);
/* Below this width (logical pixels) the children stack; 0: only when
 * sp_split_set_stacked says so. */
void sp_split_set_threshold (SpSplit *self, int width);
void sp_split_set_stacked (SpSplit *self, gboolean stacked);
gboolean sp_split_get_stacked (SpSplit *self);
GtkPaned *sp_split_get_paned (SpSplit *self);

G_END_DECLS
