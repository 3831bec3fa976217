/* sp-run-request.c: what to run and under which limits. */
#include <string.h>

#include "sp-run-request.h"

struct _SpRunRequest
{
  gatomicrefcount ref_count;
  char *language;
  char *code;
  char *name;
  char *stdin_text;
  gboolean stdin_open;
  gint64 timeout_ms;
  gint64 memory_mib;
  gint64 output_limit;
  gboolean network;
  char *cwd;
};

G_DEFINE_BOXED_TYPE (SpRunRequest, sp_run_request, sp_run_request_ref, sp_run_request_unref)

SpRunRequest *
sp_run_request_new (const char *language, const char *code)
{
  SpRunRequest *self = g_new0 (SpRunRequest, 1);

  g_return_val_if_fail (language != NULL, NULL);
  g_return_val_if_fail (code != NULL, NULL);

  g_atomic_ref_count_init (&self->ref_count);
  self->language = g_strdup (language);
  self->code = g_strdup (code);
  return self;
}

SpRunRequest *
sp_run_request_ref (SpRunRequest *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sp_run_request_unref (SpRunRequest *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->language);
  g_free (self->code);
  g_free (self->name);
  g_free (self->stdin_text);
  g_free (self->cwd);
  g_free (self);
}

void
sp_run_request_set_name (SpRunRequest *self, const char *name)
{
  g_free (self->name);
  self->name = g_strdup (name);
}

void
sp_run_request_set_stdin (SpRunRequest *self, const char *text)
{
  g_free (self->stdin_text);
  self->stdin_text = g_strdup (text);
}

void
sp_run_request_set_stdin_open (SpRunRequest *self, gboolean open)
{
  self->stdin_open = !!open;
}

void
sp_run_request_set_timeout_ms (SpRunRequest *self, gint64 timeout_ms)
{
  self->timeout_ms = timeout_ms;
}

void
sp_run_request_set_memory_mib (SpRunRequest *self, gint64 memory_mib)
{
  self->memory_mib = memory_mib;
}

void
sp_run_request_set_output_limit (SpRunRequest *self, gint64 bytes)
{
  self->output_limit = bytes;
}

void
sp_run_request_set_network (SpRunRequest *self, gboolean network)
{
  self->network = !!network;
}

void
sp_run_request_set_cwd (SpRunRequest *self, const char *cwd)
{
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
}

void
_sp_run_request_to_message (SpRunRequest *self, const char *id, SpMessage *msg)
{
  memset (msg, 0, sizeof *msg);
  msg->type = SP_MSG_RUN;
  msg->u.run.id = g_strdup (id);
  msg->u.run.language = g_strdup (self->language);
  msg->u.run.code = g_strdup (self->code);
  msg->u.run.name = g_strdup (self->name);
  msg->u.run.stdin_data = g_strdup (self->stdin_text);
  msg->u.run.stdin_open = self->stdin_open;
  msg->u.run.timeout_ms = self->timeout_ms;
  msg->u.run.memory_mib = self->memory_mib;
  msg->u.run.output_limit = self->output_limit;
  msg->u.run.network = self->network;
  msg->u.run.cwd = g_strdup (self->cwd);
}
