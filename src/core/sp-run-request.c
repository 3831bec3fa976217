/* sp-run-request.c: what to run and under which limits. */
#include <stdlib.h>
#include <string.h>

#include "sp-run-request-private.h"

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
  GStrv args;
  GHashTable *env; /* name → value, both owned */
  char *session;
  char *environment; /* a venv or node_modules, or NULL */
};

static int
compare_names (const char *const *a, const char *const *b)
{
  return strcmp (*a, *b);
}

G_DEFINE_BOXED_TYPE (SpRunRequest, sp_run_request, sp_run_request_ref, sp_run_request_unref)

SpRunRequest *
sp_run_request_new (const char *language, const char *code)
{
  SpRunRequest *self;

  g_return_val_if_fail (language != NULL, NULL);
  g_return_val_if_fail (code != NULL, NULL);

  self = g_new0 (SpRunRequest, 1);
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
  g_free (self->environment);
  g_free (self->cwd);
  g_free (self->session);
  g_strfreev (self->args);
  g_clear_pointer (&self->env, g_hash_table_unref);
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
sp_run_request_set_session (SpRunRequest *self, const char *session)
{
  g_return_if_fail (self != NULL);
  g_free (self->session);
  self->session = g_strdup (session);
}

void
sp_run_request_set_cwd (SpRunRequest *self, const char *cwd)
{
  g_free (self->cwd);
  self->cwd = g_strdup (cwd);
}

void
sp_run_request_set_args (SpRunRequest *self, const char *const *args)
{
  g_strfreev (self->args);
  self->args = g_strdupv ((char **) args);
}

void
sp_run_request_setenv (SpRunRequest *self, const char *name, const char *value)
{
  g_return_if_fail (name != NULL);
  g_return_if_fail (value != NULL);

  if (self->env == NULL)
    self->env = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_hash_table_replace (self->env, g_strdup (name), g_strdup (value));
}

const char *
sp_run_request_get_language (SpRunRequest *self)
{
  return self->language;
}

const char *
sp_run_request_get_code (SpRunRequest *self)
{
  return self->code;
}

/* "KEY=VALUE" strings in a stable order, allocated the protocol library's
 * way (sp_message_clear frees them). */
static char **
env_to_strv (GHashTable *env)
{
  g_autofree gpointer *names = NULL;
  guint n = 0;
  char **strv;

  if (env == NULL || g_hash_table_size (env) == 0)
    return NULL;
  names = g_hash_table_get_keys_as_array (env, &n);
  qsort (names, n, sizeof (gpointer), (int (*) (const void *, const void *)) compare_names);
  strv = calloc (n + 1, sizeof (char *));
  g_assert (strv != NULL);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *kv = g_strconcat (names[i], "=", g_hash_table_lookup (env, names[i]), NULL);
      strv[i] = strdup (kv);
      g_assert (strv[i] != NULL);
    }
  return strv;
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
  msg->u.run.session = g_strdup (self->session);
  msg->u.run.args = sp_strv_copy (self->args);
  msg->u.run.env = env_to_strv (self->env);
  msg->u.run.environment = g_strdup (self->environment);
}

void
sp_run_request_set_environment (SpRunRequest *self, const char *environment)
{
  g_return_if_fail (self != NULL);
  g_return_if_fail (environment == NULL || g_path_is_absolute (environment));

  g_free (self->environment);
  self->environment = g_strdup (environment);
}

const char *
sp_run_request_get_environment (SpRunRequest *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->environment;
}
