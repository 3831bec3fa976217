/* sp-window-runner.c: what a window says about the shared runner's state,
 * and the way out when it has failed.
 *
 * The supervisor gives up after 3 restarts in 10 s (SP_RUNNER_STATE_FAILED)
 * so a runner that cannot start does not spin. Giving up must not be a
 * dead end for the person at the window: the banner says what happened,
 * in the runner's own words, and offers Retry; a window opened later
 * retries by itself, since opening one is also a way of asking again. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-window-private.h"

/* A fresh start with a full restart budget; only from FAILED (or STOPPED),
 * so a runner that is starting or serving runs is never cut short. */
static void
retry_runner (SpWindow *self)
{
  SpRunnerState state = sp_runner_supervisor_get_state (self->supervisor);

  if (state == SP_RUNNER_STATE_FAILED || state == SP_RUNNER_STATE_STOPPED)
    sp_runner_supervisor_start (self->supervisor);
}

static void
retry_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  retry_runner (SP_WINDOW (widget));
}

void
_sp_window_update_runner_banner (SpWindow *self)
{
  SpRunnerState state = sp_runner_supervisor_get_state (self->supervisor);
  gboolean failed = state == SP_RUNNER_STATE_FAILED;
  const char *reason = sp_runner_supervisor_get_last_error (self->supervisor);
  g_autofree char *text = NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.retry-runner", failed);
  if (failed)
    {
      text = reason != NULL
               ? g_strdup_printf (_("The sandboxed runner keeps failing, so runs are "
                                    "unavailable. Last error: %s"),
                                  reason)
               : g_strdup (_("The sandboxed runner keeps failing, so runs are unavailable."));
      gtk_label_set_text (self->runner_banner_label, text);
      /* The reason can be long: the whole of it on hover. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->runner_banner_label), text);
    }
  gtk_revealer_set_reveal_child (self->runner_banner, failed);
}

/* Called once the runner reached a state; clears what no longer holds. */
void
_sp_window_runner_state_changed (SpWindow *self)
{
  SpRunnerState state = sp_runner_supervisor_get_state (self->supervisor);

  /* "The runner stopped unexpectedly" was true until the new one came
   * up; after that it would only mislead. */
  if (state == SP_RUNNER_STATE_READY && self->runner_lost)
    {
      self->runner_lost = FALSE;
      sp_exec_panel_set_status (self->exec_panel, _("Idle: the runner was restarted"), FALSE);
    }
  _sp_window_update_runner_banner (self);
}

void
_sp_window_connect_runner_state (SpWindow *self)
{
  /* A new window is a new attempt: someone who closed the failed window
   * and opened another expects it to work now. */
  retry_runner (self);
  _sp_window_update_runner_banner (self);
}

void
_sp_window_install_runner_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.retry-runner", NULL, retry_action);
}
