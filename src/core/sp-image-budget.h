/* sp-image-budget.h: how many decoded pixels a window holds.
 *
 * Each image is bounded alone (the helper's limits, then the display size
 * it is shrunk to), but a run can list 200 of them: without a total, 30
 * small PNGs claiming 8192 x 8192 took 8.8 GiB of the app. A budget counts
 * the pixels of the current run's decoded images and of every texture the
 * window still holds (a run's images outlive it in a Full Size window);
 * an image past either bound is not kept, and its row says so. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* The largest side of an image as the panel shows it: what the helper is
 * asked to shrink to (4 Mpx, 16 MiB as RGBA). */
#define SP_IMAGE_DISPLAY_MAX_SIDE 2048
/* Eight display-size images a run, sixteen a window. */
#define SP_IMAGE_BUDGET_RUN_PIXELS ((guint64) 32 * 1024 * 1024)
#define SP_IMAGE_BUDGET_WINDOW_PIXELS ((guint64) 64 * 1024 * 1024)

#define SP_TYPE_IMAGE_BUDGET (sp_image_budget_get_type ())
G_DECLARE_FINAL_TYPE (SpImageBudget, sp_image_budget, SP, IMAGE_BUDGET, GObject)

SpImageBudget *sp_image_budget_new (guint64 run_pixels, guint64 window_pixels);
/* A new run: its count starts again (what the window holds does not). */
void sp_image_budget_begin_run (SpImageBudget *self);
/* Whether another image could still fit at all (before starting a helper). */
gboolean sp_image_budget_has_room (SpImageBudget *self);
/* Counts pixels against both bounds and ties them to holder (the
 * texture): the window's count drops when holder is finalized, even after
 * the budget is gone. FALSE, counting nothing, past either bound. */
gboolean sp_image_budget_take (SpImageBudget *self, guint64 pixels, GObject *holder);
guint64 sp_image_budget_get_run_used (SpImageBudget *self);
guint64 sp_image_budget_get_window_used (SpImageBudget *self);

G_END_DECLS
