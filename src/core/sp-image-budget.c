/* sp-image-budget.c: decoded pixels counted per run and per window. */
#define G_LOG_DOMAIN "sp-image-budget"

#include "config.h"

#include "sp-image-budget.h"

struct _SpImageBudget
{
  GObject parent_instance;
  guint64 run_limit;
  guint64 window_limit;
  guint64 run_used;
  guint64 window_used;
  guint run_serial; /* which run run_used counts */
};

G_DEFINE_FINAL_TYPE (SpImageBudget, sp_image_budget, G_TYPE_OBJECT)

/* What a holder owes the budget; the budget may be gone first. */
typedef struct
{
  GWeakRef budget;
  guint64 pixels;
  guint run_serial;
} Ticket;

static void
ticket_free (gpointer data)
{
  Ticket *ticket = data;
  g_autoptr (SpImageBudget) budget = g_weak_ref_get (&ticket->budget);

  if (budget != NULL)
    {
      g_assert (budget->window_used >= ticket->pixels);
      budget->window_used -= ticket->pixels;
      /* A texture of this run dropped (scrolled far away): the run may
       * decode another in its place. */
      if (ticket->run_serial == budget->run_serial)
        {
          g_assert (budget->run_used >= ticket->pixels);
          budget->run_used -= ticket->pixels;
        }
    }
  g_weak_ref_clear (&ticket->budget);
  g_free (ticket);
}

static void
sp_image_budget_class_init (SpImageBudgetClass *klass)
{
}

static void
sp_image_budget_init (SpImageBudget *self)
{
}

SpImageBudget *
sp_image_budget_new (guint64 run_pixels, guint64 window_pixels)
{
  SpImageBudget *self = g_object_new (SP_TYPE_IMAGE_BUDGET, NULL);

  self->run_limit = run_pixels;
  self->window_limit = window_pixels;
  return self;
}

void
sp_image_budget_begin_run (SpImageBudget *self)
{
  g_return_if_fail (SP_IS_IMAGE_BUDGET (self));
  self->run_used = 0;
  self->run_serial++;
}

gboolean
sp_image_budget_has_room (SpImageBudget *self)
{
  g_return_val_if_fail (SP_IS_IMAGE_BUDGET (self), FALSE);
  return self->run_used < self->run_limit && self->window_used < self->window_limit;
}

static void
count (SpImageBudget *self, guint64 pixels, GObject *holder)
{
  Ticket *ticket;
  g_autofree char *key = NULL;

  self->run_used += pixels;
  self->window_used += pixels;
  ticket = g_new0 (Ticket, 1);
  g_weak_ref_init (&ticket->budget, self);
  ticket->pixels = pixels;
  ticket->run_serial = self->run_serial;
  /* A key per budget, so one holder can be counted by two windows. */
  key = g_strdup_printf ("sp-image-budget-%p", (void *) self);
  g_object_set_data_full (holder, g_intern_string (key), ticket, ticket_free);
}

gboolean
sp_image_budget_take (SpImageBudget *self, guint64 pixels, GObject *holder)
{
  g_return_val_if_fail (SP_IS_IMAGE_BUDGET (self), FALSE);
  g_return_val_if_fail (G_IS_OBJECT (holder), FALSE);

  if (pixels > self->run_limit - MIN (self->run_used, self->run_limit)
      || pixels > self->window_limit - MIN (self->window_used, self->window_limit))
    return FALSE;
  count (self, pixels, holder);
  return TRUE;
}

gboolean
sp_image_budget_take_on_demand (SpImageBudget *self, guint64 pixels, GObject *holder)
{
  guint64 limit;

  g_return_val_if_fail (SP_IS_IMAGE_BUDGET (self), FALSE);
  g_return_val_if_fail (G_IS_OBJECT (holder), FALSE);

  /* The run's bound is for what comes unasked; the window's holds, with
   * room for one image more. */
  limit = self->window_limit + SP_IMAGE_BUDGET_ON_DEMAND_PIXELS;
  if (pixels > limit - MIN (self->window_used, limit))
    return FALSE;
  count (self, pixels, holder);
  return TRUE;
}

guint64
sp_image_budget_get_run_used (SpImageBudget *self)
{
  g_return_val_if_fail (SP_IS_IMAGE_BUDGET (self), 0);
  return self->run_used;
}

guint64
sp_image_budget_get_window_used (SpImageBudget *self)
{
  g_return_val_if_fail (SP_IS_IMAGE_BUDGET (self), 0);
  return self->window_used;
}
