/* sp-window-session.c: "Keep state between runs". While it is on, the
 * window's Python runs share one runner session (docs/protocol.md,
 * "Sessions"): an interpreter that keeps variables, imports and its
 * working directory from run to run, in a sandbox of its own. Restart
 * forgets that state; turning the toggle off closes the session. The
 * toggle belongs to the window: each window has its own, off when it
 * opens, and its own session. */
#include "config.h"

#include <glib/gi18n.h>

#include "sp-window-private.h"

/* The runner only has the session once a run asked for it; a restart or
 * close before that would be answered with unknown_session. */
static void
end_session (SpWindow *self, gboolean restart)
{
  g_autoptr (GError) error = NULL;
  SpRunnerClient *client;

  if (!self->session_used || self->supervisor == NULL)
    return;
  self->session_used = FALSE;
  client = sp_runner_supervisor_get_client (self->supervisor);
  if (client != NULL && sp_runner_client_is_ready (client)
      && !sp_runner_client_end_session (client, self->session_id, restart, &error))
    g_debug ("ending the session: %s", error->message);
}

static void
keep_state_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  SpWindow *self = data;
  GAction *restart = g_action_map_lookup_action (G_ACTION_MAP (self), "restart-session");

  g_simple_action_set_state (action, value);
  self->keep_state = g_variant_get_boolean (value);
  /* Off: the state is not wanted any more. */
  if (!self->keep_state)
    end_session (self, FALSE);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (restart), self->keep_state);
  gtk_widget_set_visible (self->restart_button, self->keep_state);
  _sp_window_update_policy (self);
}

static void
restart_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  SpWindow *self = data;

  end_session (self, TRUE);
  sp_exec_panel_set_status (self->exec_panel,
                            _("Session restarted: the next run starts with nothing defined"),
                            FALSE);
}

void
_sp_window_session_init (SpWindow *self)
{
  g_autoptr (GSimpleAction) keep = NULL;
  g_autoptr (GSimpleAction) restart = NULL;
  g_autofree char *uuid = g_uuid_string_random ();

  /* Unique per window (a protocol id: printable ASCII, at most 64). */
  self->session_id = g_strdup_printf ("window-%s", uuid);
  keep = g_simple_action_new_stateful ("keep-state", NULL, g_variant_new_boolean (FALSE));
  g_signal_connect_object (keep, "change-state", G_CALLBACK (keep_state_changed), self, 0);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (keep));
  restart = g_simple_action_new ("restart-session", NULL);
  g_simple_action_set_enabled (restart, FALSE);
  g_signal_connect_object (restart, "activate", G_CALLBACK (restart_activated), self, 0);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (restart));
}

void
_sp_window_session_apply (SpWindow *self, SpRunRequest *request)
{
  /* Sessions are Python's; other languages run afresh as always. */
  if (!self->keep_state || g_strcmp0 (sp_run_request_get_language (request), "python") != 0)
    return;
  sp_run_request_set_session (request, self->session_id);
  self->session_used = TRUE;
}

void
_sp_window_session_exited (SpWindow *self, SpRunResult *result)
{
  const char *ended = sp_run_result_get_session_ended (result);
  g_autofree char *status = NULL;

  if (ended == NULL)
    return;
  self->session_used = FALSE;
  /* TRANSLATORS: %s says why (exited, timeout, limit, ...) */
  status = g_strdup_printf (_("The session ended (%s): the next run starts with nothing defined"),
                            ended);
  sp_exec_panel_set_status (self->exec_panel, status, TRUE);
}

const char *
_sp_window_session_label (SpWindow *self)
{
  return self->keep_state ? _("session") : NULL;
}

void
_sp_window_session_dispose (SpWindow *self)
{
  end_session (self, FALSE);
  g_clear_pointer (&self->session_id, g_free);
}
