/* sp-app-context.c: what windows and the session need of the
 * application; see the header. */
#include "config.h"

#include "sp-app-context.h"

struct _SpAppContext
{
  GObject parent_instance;

  GSettings *settings;
  SpRunnerSupervisor *supervisor;
  SpStateLock *lock;
  char *problem;
  SpAppWindowFactory window_factory;
};

G_DEFINE_FINAL_TYPE (SpAppContext, sp_app_context, G_TYPE_OBJECT)

enum
{
  SESSION_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

SpAppContext *
sp_app_context_new (GSettings *settings, SpRunnerSupervisor *supervisor, SpStateLock *lock,
                    const char *problem)
{
  SpAppContext *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  g_return_val_if_fail (SP_IS_RUNNER_SUPERVISOR (supervisor), NULL);
  self = g_object_new (SP_TYPE_APP_CONTEXT, NULL);
  self->settings = g_object_ref (settings);
  self->supervisor = g_object_ref (supervisor);
  self->lock = lock != NULL ? g_object_ref (lock) : NULL;
  self->problem = g_strdup (problem);
  return self;
}

GSettings *
sp_app_context_get_settings (SpAppContext *self)
{
  g_return_val_if_fail (SP_IS_APP_CONTEXT (self), NULL);
  return self->settings;
}

SpRunnerSupervisor *
sp_app_context_get_supervisor (SpAppContext *self)
{
  g_return_val_if_fail (SP_IS_APP_CONTEXT (self), NULL);
  return self->supervisor;
}

SpStateLock *
sp_app_context_get_state_lock (SpAppContext *self)
{
  g_return_val_if_fail (SP_IS_APP_CONTEXT (self), NULL);
  return self->lock;
}

const char *
sp_app_context_get_state_problem (SpAppContext *self)
{
  g_return_val_if_fail (SP_IS_APP_CONTEXT (self), NULL);
  return self->problem;
}

void
sp_app_context_session_changed (SpAppContext *self)
{
  g_return_if_fail (SP_IS_APP_CONTEXT (self));
  g_signal_emit (self, signals[SESSION_CHANGED], 0);
}

static void
sp_app_context_finalize (GObject *object)
{
  SpAppContext *self = SP_APP_CONTEXT (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->supervisor);
  g_clear_object (&self->lock);
  g_free (self->problem);
  G_OBJECT_CLASS (sp_app_context_parent_class)->finalize (object);
}

static void
sp_app_context_class_init (SpAppContextClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sp_app_context_finalize;
  signals[SESSION_CHANGED] = g_signal_new ("session-changed", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sp_app_context_init (SpAppContext *self)
{
}

void
sp_app_context_set_window_factory (SpAppContext *self, SpAppWindowFactory factory)
{
  g_return_if_fail (SP_IS_APP_CONTEXT (self));
  self->window_factory = factory;
}

GtkWindow *
sp_app_context_new_window (SpAppContext *self, GtkApplication *app)
{
  g_return_val_if_fail (SP_IS_APP_CONTEXT (self), NULL);
  g_return_val_if_fail (self->window_factory != NULL, NULL);
  return self->window_factory (app, self);
}
