/* sp-fold-bar.h: what an output row says under a folded line.
 *
 * A line longer than a row shows is folded by the output model: its row
 * holds the line's start (sp_output_item_get_folded). Under it this bar
 * says how much of the line is not shown and offers the whole line: Copy
 * Line and Save Line As…, which the row passes on to the panel as its
 * "copy-line" and "save-line". A row makes one the first time it shows a
 * folded line. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_FOLD_BAR (sp_fold_bar_get_type ())
G_DECLARE_FINAL_TYPE (SpFoldBar, sp_fold_bar, SP, FOLD_BAR, GtkWidget)

GtkWidget *sp_fold_bar_new (void);
/* How many characters of the line are not shown. */
void sp_fold_bar_set_folded (SpFoldBar *self, guint64 chars);
/* What the bar says (for tests). */
const char *sp_fold_bar_get_text (SpFoldBar *self);

/* Signals, each the user's request: "copy-line" and "save-line" (no
 * arguments). */

G_END_DECLS
