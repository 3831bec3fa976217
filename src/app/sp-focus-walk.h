/* sp-focus-walk.h: Tab through a container's controls in order, each with
 * its focus ring, and Escape to leave it. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* From now on Tab and Shift+Tab inside container move among its visible
 * controls in reading order, round and round: buttons, expanders, entries,
 * and the links of labels (a label without links is text, not a stop).
 * Escape gives the focus to home. */
void sp_focus_walk_attach (GtkWidget *container, GtkWidget *home);

G_END_DECLS
