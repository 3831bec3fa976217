/* sp-window-session.c: "Keep state between runs", the window's side. The
 * window's SpRunController keeps the session (its Python runs share one
 * runner interpreter while the toggle is on); here are the stateful
 * win.keep-state action, Restart, and what the window says about them.
 * The toggle belongs to the window: each has its own, off when it opens,
 * and its own session. */
#include "config.h"

#include <glib/gi18n.h>

#include "sp-window-private.h"

static void
keep_state_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  SpWindow *self = data;
  GAction *restart = g_action_map_lookup_action (G_ACTION_MAP (self), "restart-session");
  gboolean keep = g_variant_get_boolean (value);

  g_simple_action_set_state (action, value);
  sp_run_controller_set_keep_state (self->runs, keep);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (restart), keep);
  gtk_widget_set_visible (self->restart_button, keep);
}

static void
restart_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  SpWindow *self = data;

  sp_run_controller_restart_session (self->runs);
  sp_exec_panel_set_status (self->exec_panel,
                            _("Session restarted: the next run starts with nothing defined"),
                            FALSE);
}

static void
on_session_ended (SpRunController *runs, const char *why, SpWindow *self)
{
  /* TRANSLATORS: %s says why (exited, timeout, limit, ...) */
  g_autofree char *status
    = g_strdup_printf (_("The session ended (%s): the next run starts with nothing defined"), why);

  sp_exec_panel_set_status (self->exec_panel, status, TRUE);
}

void
_sp_window_session_init (SpWindow *self)
{
  g_autoptr (GSimpleAction) keep = NULL;
  g_autoptr (GSimpleAction) restart = NULL;

  keep = g_simple_action_new_stateful ("keep-state", NULL, g_variant_new_boolean (FALSE));
  g_signal_connect_object (keep, "change-state", G_CALLBACK (keep_state_changed), self, 0);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (keep));
  restart = g_simple_action_new ("restart-session", NULL);
  g_simple_action_set_enabled (restart, FALSE);
  g_signal_connect_object (restart, "activate", G_CALLBACK (restart_activated), self, 0);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (restart));
  /* After the window's "exited": the session's word is the status's last. */
  g_signal_connect_object (self->runs, "session-ended", G_CALLBACK (on_session_ended), self, 0);
}
