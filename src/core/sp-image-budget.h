/* sp-image-budget.h: how many decoded pixels a window holds.
 *
 * Each image is bounded alone (the helper's limits, then the display size
 * it is shrunk to), but a run can list 200 of them: without a total, 30
 * small PNGs claiming 8192 x 8192 took 8.8 GiB of the app. A budget counts
 * the pixels of the current run's decoded images and of every texture the
 * window still holds (a run's images outlive it in a Full Size window).
 * The panel decodes only the images in view (sp-image-loader.h) and
 * drops those scrolled far away; a dropped texture gives its pixels back
 * to both counts. An image past either bound is not kept: its row says so
 * and offers to show it alone, on demand, within one image's allowance
 * past the window's bound. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

/* The largest side of an image as the panel shows it: what the helper is
 * asked to shrink to (4 Mpx, 16 MiB as RGBA). */
#define SP_IMAGE_DISPLAY_MAX_SIDE 2048
/* Eight display-size images a run, sixteen a window. */
#define SP_IMAGE_BUDGET_RUN_PIXELS ((guint64) 32 * 1024 * 1024)
#define SP_IMAGE_BUDGET_WINDOW_PIXELS ((guint64) 64 * 1024 * 1024)
/* What Show may take past the window's bound: one display-size image. */
#define SP_IMAGE_BUDGET_ON_DEMAND_PIXELS                                                           \
  ((guint64) SP_IMAGE_DISPLAY_MAX_SIDE * SP_IMAGE_DISPLAY_MAX_SIDE)

#define SP_TYPE_IMAGE_BUDGET (sp_image_budget_get_type ())
G_DECLARE_FINAL_TYPE (SpImageBudget, sp_image_budget, SP, IMAGE_BUDGET, GObject)

SpImageBudget *sp_image_budget_new (guint64 run_pixels, guint64 window_pixels);
/* A new run: its count starts again (what the window holds does not;
 * what the last run's textures give back later goes to the window's
 * count only). */
void sp_image_budget_begin_run (SpImageBudget *self);
/* Whether another image could still fit at all (before starting a helper). */
gboolean sp_image_budget_has_room (SpImageBudget *self);
/* Counts pixels against both bounds and ties them to holder (the
 * texture): both counts drop when holder is finalized, even after the
 * budget is gone. FALSE, counting nothing, past either bound. */
gboolean sp_image_budget_take (SpImageBudget *self, guint64 pixels, GObject *holder);
/* The same for one image the person asked to see: past the run's bound,
 * and past the window's by at most SP_IMAGE_BUDGET_ON_DEMAND_PIXELS in
 * all (so a second Show while the first is held must wait for room). */
gboolean sp_image_budget_take_on_demand (SpImageBudget *self, guint64 pixels, GObject *holder);
guint64 sp_image_budget_get_run_used (SpImageBudget *self);
guint64 sp_image_budget_get_window_used (SpImageBudget *self);

G_END_DECLS
