/* sp-image-loader.h: a run's images decoded while they are in view.
 *
 * A run can list 200 images; decoding each as it arrives filled the
 * window's image budget with the first eight and withheld the rest, even
 * the ones the person scrolled to. The loader decodes only the images the
 * panel says are in view (or nearly), one helper at a time, in the list's
 * order; an image scrolled far away is dropped (its texture's pixels go
 * back to the budget) and decoded again when it returns. When the budget
 * has no room even after dropping what is out of view, the image is
 * withheld (sp_output_item_get_image_withheld()); Show asks for it alone,
 * counted with sp_image_budget_take_on_demand(). The panel owns one; the
 * window hands it each run's image items and its budget. */
#pragma once

#include <gtk/gtk.h>

#include "sp-image-budget.h"
#include "sp-output-item.h"

G_BEGIN_DECLS

#define SP_TYPE_IMAGE_LOADER (sp_image_loader_get_type ())
G_DECLARE_FINAL_TYPE (SpImageLoader, sp_image_loader, SP, IMAGE_LOADER, GObject)

SpImageLoader *sp_image_loader_new (void);
/* A run's image items (SpOutputItem of kind SP_OUTPUT_IMAGE), counted by
 * budget; added to the ones already given until cancellable is cancelled
 * (the next run), which drops them all and stops their helper. Nothing is
 * decoded until the panel says which are in view. */
void sp_image_loader_add_items (SpImageLoader *self, GPtrArray *items, SpImageBudget *budget,
                                GCancellable *cancellable);
/* The items whose rows are in view or about to be (decoded, in this
 * order), and those near enough to keep once decoded (visible ones
 * included); every other item's texture is dropped. */
void sp_image_loader_set_in_view (SpImageLoader *self, GPtrArray *visible, GPtrArray *near);
/* Show on a withheld image: decoded next, alone, at display size. */
void sp_image_loader_show (SpImageLoader *self, SpOutputItem *item);

/* Follows view: which of the rows given below are in it, on every scroll
 * and resize (at the next frame, after layout). */
void sp_image_loader_watch (SpImageLoader *self, GtkListView *view);
/* A row of view bound (to any item: the rows in view say where the view
 * is), and unbound again. */
void sp_image_loader_row_bound (SpImageLoader *self, GtkListItem *row);
void sp_image_loader_row_unbound (SpImageLoader *self, GtkListItem *row);

/* For tests: helpers started since the loader was made, and whether one
 * is running or wanted. */
guint sp_image_loader_get_n_decodes (SpImageLoader *self);
gboolean sp_image_loader_get_busy (SpImageLoader *self);
SpImageBudget *sp_image_loader_get_budget (SpImageLoader *self);

G_END_DECLS
