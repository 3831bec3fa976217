/* sp-runner-banner.c: what a window says about the shared runner's state,
 * and the way out when it has failed.
 *
 * The supervisor gives up after 3 restarts in 10 s (SP_RUNNER_STATE_FAILED)
 * so a runner that cannot start does not spin. Giving up must not be a
 * dead end for the person at the window: the banner says what happened,
 * in the runner's own words, and offers Retry (a fresh start with a full
 * restart budget). */
#define G_LOG_DOMAIN "sp-runner-banner"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-runner-banner.h"

struct _SpRunnerBanner
{
  AdwBin parent_instance;

  GtkRevealer *revealer;
  GtkLabel *label;
  SpRunnerSupervisor *supervisor;
};

G_DEFINE_FINAL_TYPE (SpRunnerBanner, sp_runner_banner, ADW_TYPE_BIN)

void
sp_runner_banner_retry (SpRunnerBanner *self)
{
  SpRunnerState state;

  g_return_if_fail (SP_IS_RUNNER_BANNER (self));
  if (self->supervisor == NULL)
    return;
  state = sp_runner_supervisor_get_state (self->supervisor);
  if (state == SP_RUNNER_STATE_FAILED || state == SP_RUNNER_STATE_STOPPED)
    sp_runner_supervisor_start (self->supervisor);
}

static void
retry_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_runner_banner_retry (SP_RUNNER_BANNER (widget));
}

static void
update (SpRunnerBanner *self)
{
  SpRunnerState state = sp_runner_supervisor_get_state (self->supervisor);
  gboolean failed = state == SP_RUNNER_STATE_FAILED;
  const char *reason = sp_runner_supervisor_get_last_error (self->supervisor);
  g_autofree char *text = NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "banner.retry", failed);
  if (failed)
    {
      text = reason != NULL
               ? g_strdup_printf (_ ("The sandboxed runner keeps failing, so runs are "
                                     "unavailable. Last error: %s"),
                                  reason)
               : g_strdup (_ ("The sandboxed runner keeps failing, so runs are unavailable."));
      gtk_label_set_text (self->label, text);
      /* The reason can be long: the whole of it on hover. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->label), text);
    }
  gtk_revealer_set_reveal_child (self->revealer, failed);
}

void
sp_runner_banner_set_supervisor (SpRunnerBanner *self, SpRunnerSupervisor *supervisor)
{
  g_return_if_fail (SP_IS_RUNNER_BANNER (self));
  g_return_if_fail (SP_IS_RUNNER_SUPERVISOR (supervisor));
  if (self->supervisor != NULL)
    g_signal_handlers_disconnect_by_data (self->supervisor, self);
  g_set_object (&self->supervisor, supervisor);
  g_signal_connect_object (supervisor, "notify::state", G_CALLBACK (update), self,
                           G_CONNECT_SWAPPED);
  update (self);
}

static void
sp_runner_banner_dispose (GObject *object)
{
  SpRunnerBanner *self = SP_RUNNER_BANNER (object);

  /* The template's one child is AdwBin's, which unparents it. */
  g_clear_object (&self->supervisor);
  G_OBJECT_CLASS (sp_runner_banner_parent_class)->dispose (object);
}

static void
sp_runner_banner_class_init (SpRunnerBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_runner_banner_dispose;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-runner-banner.ui");
  gtk_widget_class_bind_template_child (widget_class, SpRunnerBanner, revealer);
  gtk_widget_class_bind_template_child (widget_class, SpRunnerBanner, label);
  gtk_widget_class_install_action (widget_class, "banner.retry", NULL, retry_action);
}

static void
sp_runner_banner_init (SpRunnerBanner *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "banner.retry", FALSE);
}
