/* sp-test-wait.h: spin the main loop until a condition holds, for tests
 * that drive asynchronous GLib code (the runner, windows). */
#pragma once

#include <glib.h>

typedef gboolean (*SpTestCondition) (gpointer data);

/* Returns whether cond became true within timeout_ms. */
static inline gboolean
sp_test_wait_for (SpTestCondition cond, gpointer data, guint timeout_ms)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!cond (data))
    {
      if (g_get_monotonic_time () > deadline)
        return FALSE;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (500);
    }
  return TRUE;
}
