/* test-image-budget.c: decoded pixels counted per run and per window, and
 * given back when the texture that held them goes. */
#include "config.h"

#include "sp-image-budget.h"

static GObject *
holder (void)
{
  return g_object_new (G_TYPE_OBJECT, NULL);
}

/* 30 display-size images of one run: the first eight fit, the rest are
 * refused and count nothing (before, every one was kept: 30 x 4 Mpx at
 * display size, 30 x 64 Mpx at full size). */
static void
test_run_bound (void)
{
  g_autoptr (SpImageBudget) budget = sp_image_budget_new (SP_IMAGE_BUDGET_RUN_PIXELS,
                                                          SP_IMAGE_BUDGET_WINDOW_PIXELS);
  guint64 one = (guint64) SP_IMAGE_DISPLAY_MAX_SIDE * SP_IMAGE_DISPLAY_MAX_SIDE;
  g_autoptr (GPtrArray) kept = g_ptr_array_new_with_free_func (g_object_unref);
  guint taken = 0;

  for (guint i = 0; i < 30; i++)
    {
      g_autoptr (GObject) texture = holder ();
      if (sp_image_budget_take (budget, one, texture))
        {
          taken++;
          g_ptr_array_add (kept, g_steal_pointer (&texture));
        }
    }
  g_assert_cmpuint (taken, ==, 8);
  g_assert_cmpuint (sp_image_budget_get_run_used (budget), ==, 8 * one);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 8 * one);
  g_assert_false (sp_image_budget_has_room (budget));
  /* A small one still fits nowhere: the run's share is spent. */
  {
    g_autoptr (GObject) texture = holder ();
    g_assert_false (sp_image_budget_take (budget, 1, texture));
  }

  /* The next run counts again; the window still holds the first's. */
  sp_image_budget_begin_run (budget);
  g_assert_true (sp_image_budget_has_room (budget));
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 8 * one);
  for (guint i = 0; i < 30; i++)
    {
      g_autoptr (GObject) texture = holder ();
      if (sp_image_budget_take (budget, one, texture))
        g_ptr_array_add (kept, g_steal_pointer (&texture));
    }
  /* The window's bound stopped it at sixteen in all. */
  g_assert_cmpuint (kept->len, ==, 16);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 16 * one);

  /* The textures go (the rows of the old runs were cleared): the window
   * has room again. */
  g_ptr_array_set_size (kept, 0);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 0);
  sp_image_budget_begin_run (budget);
  {
    g_autoptr (GObject) texture = holder ();
    g_assert_true (sp_image_budget_take (budget, one, texture));
  }
  g_assert_finalize_object (g_steal_pointer (&budget));
}

/* A texture can outlive the window's budget (a Full Size window still
 * open): dropping it later touches nothing freed. */
static void
test_holder_outlives_budget (void)
{
  SpImageBudget *budget = sp_image_budget_new (100, 100);
  g_autoptr (GObject) texture = holder ();
  g_autoptr (GObject) other = holder ();
  SpImageBudget *second = sp_image_budget_new (100, 100);

  g_assert_true (sp_image_budget_take (budget, 60, texture));
  /* One texture counted by two windows is counted by each. */
  g_assert_true (sp_image_budget_take (second, 60, texture));
  g_assert_false (sp_image_budget_take (budget, 41, other));
  g_assert_true (sp_image_budget_take (budget, 40, other));
  g_assert_finalize_object (budget);
  g_clear_object (&other);
  g_assert_cmpuint (sp_image_budget_get_window_used (second), ==, 60);
  g_clear_object (&texture);
  g_assert_cmpuint (sp_image_budget_get_window_used (second), ==, 0);
  g_assert_finalize_object (second);
}

/* The panel drops an image scrolled far away: its pixels go back to the
 * run's count too, so the run can decode the ones in view instead (before,
 * the run's count only ever grew, and the ninth image of a run stayed
 * withheld however many were dropped). A texture of an earlier run gives
 * back to the window's count only. */
static void
test_dropped_gives_back (void)
{
  g_autoptr (SpImageBudget) budget = sp_image_budget_new (SP_IMAGE_BUDGET_RUN_PIXELS,
                                                          SP_IMAGE_BUDGET_WINDOW_PIXELS);
  guint64 one = (guint64) SP_IMAGE_DISPLAY_MAX_SIDE * SP_IMAGE_DISPLAY_MAX_SIDE;
  g_autoptr (GPtrArray) kept = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GObject) old = holder ();

  g_assert_true (sp_image_budget_take (budget, one, old));
  sp_image_budget_begin_run (budget);
  /* 60 images scrolled past one after another, eight held at a time. */
  for (guint i = 0; i < 60; i++)
    {
      g_autoptr (GObject) texture = holder ();
      if (kept->len == 8)
        g_ptr_array_remove_index (kept, 0);
      g_assert_true (sp_image_budget_take (budget, one, texture));
      g_ptr_array_add (kept, g_steal_pointer (&texture));
      g_assert_cmpuint (sp_image_budget_get_run_used (budget), <=, SP_IMAGE_BUDGET_RUN_PIXELS);
    }
  g_assert_cmpuint (sp_image_budget_get_run_used (budget), ==, 8 * one);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 9 * one);
  /* The last run's texture goes: the window's count only. */
  g_clear_object (&old);
  g_assert_cmpuint (sp_image_budget_get_run_used (budget), ==, 8 * one);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 8 * one);
  g_ptr_array_set_size (kept, 0);
  g_assert_cmpuint (sp_image_budget_get_run_used (budget), ==, 0);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 0);
}

/* Show on a withheld image: past the run's bound, and past the window's
 * by one display-size image at most, never more. */
static void
test_on_demand (void)
{
  g_autoptr (SpImageBudget) budget = sp_image_budget_new (100, 200);
  guint64 extra = SP_IMAGE_BUDGET_ON_DEMAND_PIXELS;
  g_autoptr (GObject) a = holder ();
  g_autoptr (GObject) b = holder ();
  g_autoptr (GObject) shown = holder ();
  g_autoptr (GObject) second = holder ();

  g_assert_true (sp_image_budget_take (budget, 100, a));
  /* Another window's textures hold the rest of this window's share. */
  g_assert_true (sp_image_budget_take_on_demand (budget, 100, b));
  g_assert_false (sp_image_budget_take (budget, 1, shown));
  g_assert_true (sp_image_budget_take_on_demand (budget, extra, shown));
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 200 + extra);
  /* The allowance is spent: a second Show waits for room. */
  g_assert_false (sp_image_budget_take_on_demand (budget, 1, second));
  g_clear_object (&shown);
  g_assert_true (sp_image_budget_take_on_demand (budget, extra, second));
  g_clear_object (&second);
  g_clear_object (&a);
  g_clear_object (&b);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), ==, 0);
  g_assert_cmpuint (sp_image_budget_get_run_used (budget), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/image-budget/run-bound", test_run_bound);
  g_test_add_func ("/image-budget/holder-outlives-budget", test_holder_outlives_budget);
  g_test_add_func ("/image-budget/dropped-gives-back", test_dropped_gives_back);
  g_test_add_func ("/image-budget/on-demand", test_on_demand);
  return g_test_run ();
}
