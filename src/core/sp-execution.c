/* sp-execution.c: one run of a snippet, as the app follows it. */
#include "config.h"

#include "sp-execution.h"
#include "sp-runner-error.h"

struct _SpExecution
{
  GObject parent_instance;

  char *id;
  char *language;
  SpExecutionState state;
  SpRunResult *result;
  GError *error;
  char *cwd;
  SpOutputModel *output;
  gint64 started_at; /* monotonic µs, 0 before started */
  gint64 ended_at;
};

G_DEFINE_ENUM_TYPE (SpExecutionState, sp_execution_state,
                    G_DEFINE_ENUM_VALUE (SP_EXECUTION_QUEUED, "queued"),
                    G_DEFINE_ENUM_VALUE (SP_EXECUTION_RUNNING, "running"),
                    G_DEFINE_ENUM_VALUE (SP_EXECUTION_EXITED, "exited"),
                    G_DEFINE_ENUM_VALUE (SP_EXECUTION_FAILED, "failed"))

G_DEFINE_FINAL_TYPE (SpExecution, sp_execution, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ID,
  PROP_LANGUAGE,
  PROP_STATE,
  PROP_RESULT,
  PROP_OUTPUT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
sp_execution_dispose (GObject *object)
{
  SpExecution *self = SP_EXECUTION (object);

  g_clear_object (&self->output);
  g_clear_pointer (&self->result, sp_run_result_unref);
  G_OBJECT_CLASS (sp_execution_parent_class)->dispose (object);
}

static void
sp_execution_finalize (GObject *object)
{
  SpExecution *self = SP_EXECUTION (object);

  g_free (self->id);
  g_free (self->language);
  g_free (self->cwd);
  g_clear_error (&self->error);
  G_OBJECT_CLASS (sp_execution_parent_class)->finalize (object);
}

static void
sp_execution_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpExecution *self = SP_EXECUTION (object);

  switch (prop_id)
    {
    case PROP_ID:
      g_value_set_string (value, self->id);
      break;
    case PROP_LANGUAGE:
      g_value_set_string (value, self->language);
      break;
    case PROP_STATE:
      g_value_set_enum (value, self->state);
      break;
    case PROP_RESULT:
      g_value_set_boxed (value, self->result);
      break;
    case PROP_OUTPUT:
      g_value_set_object (value, self->output);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_execution_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SpExecution *self = SP_EXECUTION (object);

  switch (prop_id)
    {
    case PROP_ID:
      self->id = g_value_dup_string (value);
      break;
    case PROP_LANGUAGE:
      self->language = g_value_dup_string (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_execution_class_init (SpExecutionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS | G_PARAM_EXPLICIT_NOTIFY;
  GParamFlags co = G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS;

  object_class->dispose = sp_execution_dispose;
  object_class->finalize = sp_execution_finalize;
  object_class->get_property = sp_execution_get_property;
  object_class->set_property = sp_execution_set_property;

  properties[PROP_ID] = g_param_spec_string ("id", NULL, NULL, NULL, co);
  properties[PROP_LANGUAGE] = g_param_spec_string ("language", NULL, NULL, NULL, co);
  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL, SP_TYPE_EXECUTION_STATE,
                                              SP_EXECUTION_QUEUED, ro);
  properties[PROP_RESULT] = g_param_spec_boxed ("result", NULL, NULL, SP_TYPE_RUN_RESULT, ro);
  properties[PROP_OUTPUT] = g_param_spec_object ("output", NULL, NULL, SP_TYPE_OUTPUT_MODEL, ro);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sp_execution_init (SpExecution *self)
{
  self->output = sp_output_model_new ();
}

SpExecution *
sp_execution_new (const char *id, const char *language)
{
  g_return_val_if_fail (id != NULL, NULL);
  g_return_val_if_fail (language != NULL, NULL);

  return g_object_new (SP_TYPE_EXECUTION, "id", id, "language", language, NULL);
}

const char *
sp_execution_get_id (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), NULL);
  return self->id;
}

const char *
sp_execution_get_language (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), NULL);
  return self->language;
}

SpExecutionState
sp_execution_get_state (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), SP_EXECUTION_FAILED);
  return self->state;
}

gboolean
sp_execution_is_finished (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), TRUE);
  return self->state == SP_EXECUTION_EXITED || self->state == SP_EXECUTION_FAILED;
}

SpRunResult *
sp_execution_get_result (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), NULL);
  return self->result;
}

const GError *
sp_execution_get_error (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), NULL);
  return self->error;
}

const char *
sp_execution_get_cwd (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), NULL);
  return self->cwd;
}

SpOutputModel *
sp_execution_get_output (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), NULL);
  return self->output;
}

gint64
sp_execution_get_elapsed_ms (SpExecution *self)
{
  g_return_val_if_fail (SP_IS_EXECUTION (self), 0);

  if (self->started_at == 0)
    return 0;
  return ((self->ended_at ? self->ended_at : g_get_monotonic_time ()) - self->started_at) / 1000;
}

static void
set_state (SpExecution *self, SpExecutionState state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

void
_sp_execution_set_started (SpExecution *self, const char *cwd)
{
  g_return_if_fail (SP_IS_EXECUTION (self));

  if (sp_execution_is_finished (self))
    return;
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
  self->started_at = g_get_monotonic_time ();
  set_state (self, SP_EXECUTION_RUNNING);
}

void
_sp_execution_append_output (SpExecution *self, SpOutputKind kind, const char *text, gint64 t_ms)
{
  g_return_if_fail (SP_IS_EXECUTION (self));

  if (!sp_execution_is_finished (self))
    sp_output_model_append_timed (self->output, kind, text, t_ms);
}

static void
finish (SpExecution *self)
{
  gint64 now = g_get_monotonic_time ();

  self->ended_at = now;
  if (self->started_at == 0)
    self->started_at = now;
}

void
_sp_execution_set_exited (SpExecution *self, SpRunResult *result)
{
  g_return_if_fail (SP_IS_EXECUTION (self));
  g_return_if_fail (result != NULL);

  if (sp_execution_is_finished (self))
    return;
  finish (self);
  self->result = sp_run_result_ref (result);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RESULT]);
  if (sp_run_result_get_end (result) == SP_RUN_END_FAILED)
    {
      /* It never ran (the interpreter could not be executed): a failure,
       * with the runner's reason, though the result is there too. */
      self->error = g_error_new_literal (SP_RUNNER_ERROR, SP_RUNNER_ERROR_FAILED,
                                         sp_run_result_get_error (result)
                                           ? sp_run_result_get_error (result)
                                           : "");
      set_state (self, SP_EXECUTION_FAILED);
    }
  else
    set_state (self, SP_EXECUTION_EXITED);
}

void
_sp_execution_set_failed (SpExecution *self, const GError *error)
{
  g_return_if_fail (SP_IS_EXECUTION (self));
  g_return_if_fail (error != NULL);

  if (sp_execution_is_finished (self))
    return;
  finish (self);
  self->error = g_error_copy (error);
  set_state (self, SP_EXECUTION_FAILED);
}
