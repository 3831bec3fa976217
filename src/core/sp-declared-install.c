/* sp-declared-install.c: a snippet's declared dependencies seen to
 * before Run; see sp-declared-install.h. */
#define G_LOG_DOMAIN "sp-declared"

#include "config.h"

#include <signal.h>

#include "sp-declared-install.h"
#include "sp-declared.h"

struct _SpDeclaredInstall
{
  GObject parent_instance;

  SpDocument *document;
  GSettings *settings;
  /* There while a listing or an install goes on. */
  GCancellable *cancellable;
  GSubprocess *process;
  char *code;
  char *reason;
  char *output;
  GStrv specs;
};

G_DEFINE_FINAL_TYPE (SpDeclaredInstall, sp_declared_install, G_TYPE_OBJECT)

enum
{
  SIGNAL_INSTALLING,
  SIGNAL_FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
finish (SpDeclaredInstall *self, SpDeclaredOutcome outcome)
{
  g_clear_object (&self->cancellable);
  g_clear_object (&self->process);
  g_signal_emit (self, signals[SIGNAL_FINISHED], 0, (int) outcome);
}

/* sandpad-run's last "sandpad: " line is the reason (it names the rule);
 * what came before it is pip's. */
static char *
split_reason (const char *text, char **before)
{
  g_auto (GStrv) lines = g_strsplit (text != NULL ? text : "", "\n", -1);
  g_autoptr (GString) pip = g_string_new (NULL);
  int last = -1;

  for (int i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "sandpad: "))
      last = i;
  for (int i = 0; lines[i] != NULL; i++)
    if (i != last)
      g_string_append_printf (pip, "%s\n", lines[i]);
  *before = g_string_free (g_steal_pointer (&pip), FALSE);
  return last >= 0 ? g_strdup (lines[last] + strlen ("sandpad: ")) : NULL;
}

static void
on_installed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpDeclaredInstall) self = user_data;
  GSubprocess *process = G_SUBPROCESS (source);
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;

  if (!g_subprocess_communicate_utf8_finish (process, result, &out, NULL, &error))
    {
      /* Stopped: the caller knows. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_free (self->reason);
          self->reason = g_strdup (error->message);
          finish (self, SP_DECLARED_FAILED);
        }
      return;
    }
  g_clear_object (&self->cancellable);
  g_clear_object (&self->process);
  /* The Packages dialog's list and the policy card read the venv again. */
  sp_document_environment_changed (self->document);
  if (g_subprocess_get_if_exited (process) && g_subprocess_get_exit_status (process) == 0)
    {
      finish (self, SP_DECLARED_INSTALLED);
      return;
    }
  g_free (self->reason);
  g_free (self->output);
  self->reason = split_reason (out, &self->output);
  g_strstrip (self->output);
  finish (self, SP_DECLARED_REFUSED);
}

static void
install (SpDeclaredInstall *self, const char *environment)
{
  g_autoptr (GPtrArray) argv = sp_declared_install_argv (self->settings, environment);
  g_autoptr (GError) error = NULL;
  guint n = g_strv_length (self->specs);

  /* pip's words only when it fails (sandpad-run then prints them). */
  g_ptr_array_insert (argv, 2, g_strdup ("--quiet"));
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (argv, g_strdup (self->specs[i]));
  g_ptr_array_add (argv, NULL);
  self->process
    = g_subprocess_newv ((const char *const *) argv->pdata,
                         G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
  if (self->process == NULL)
    {
      self->reason = g_strdup (error->message);
      finish (self, SP_DECLARED_FAILED);
      return;
    }
  g_signal_emit (self, signals[SIGNAL_INSTALLING], 0, n);
  g_subprocess_communicate_utf8_async (self->process, NULL, self->cancellable, on_installed,
                                       g_object_ref (self));
}

static void
on_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpDeclaredInstall) self = user_data;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) specs = sp_declared_list_finish (result, &error);
  g_autofree char *environment = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (specs == NULL)
    {
      self->reason = g_strdup (error->message);
      finish (self, SP_DECLARED_UNREADABLE);
      return;
    }
  self->specs = g_steal_pointer (&specs);
  if (self->specs[0] == NULL)
    {
      finish (self, SP_DECLARED_NOTHING_TO_DO);
      return;
    }
  environment = sp_document_dup_environment (self->document);
  if (environment == NULL)
    {
      finish (self, SP_DECLARED_NO_ENVIRONMENT);
      return;
    }
  install (self, environment);
}

gboolean
sp_declared_install_start (SpDeclaredInstall *self, const char *code)
{
  g_autofree char *environment = NULL;

  g_return_val_if_fail (SP_IS_DECLARED_INSTALL (self), FALSE);
  g_return_val_if_fail (code != NULL, FALSE);

  if (!sp_declared_has_block (code))
    return FALSE;
  sp_declared_install_stop (self);
  g_free (self->code);
  self->code = g_strdup (code);
  g_clear_pointer (&self->reason, g_free);
  g_clear_pointer (&self->output, g_free);
  g_clear_pointer (&self->specs, g_strfreev);
  self->cancellable = g_cancellable_new ();
  environment = sp_document_dup_environment (self->document);
  sp_declared_list_async (code, environment, self->cancellable, on_listed, g_object_ref (self));
  return TRUE;
}

gboolean
sp_declared_install_get_busy (SpDeclaredInstall *self)
{
  g_return_val_if_fail (SP_IS_DECLARED_INSTALL (self), FALSE);
  return self->cancellable != NULL;
}

gboolean
sp_declared_install_stop (SpDeclaredInstall *self)
{
  g_return_val_if_fail (SP_IS_DECLARED_INSTALL (self), FALSE);

  if (self->cancellable == NULL)
    return FALSE;
  g_cancellable_cancel (self->cancellable);
  /* SIGTERM: sandpad-run cancels its step and removes its files. */
  if (self->process != NULL)
    g_subprocess_send_signal (self->process, SIGTERM);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->process);
  return TRUE;
}

const char *
sp_declared_install_get_reason (SpDeclaredInstall *self)
{
  g_return_val_if_fail (SP_IS_DECLARED_INSTALL (self), NULL);
  return self->reason;
}

const char *
sp_declared_install_get_output (SpDeclaredInstall *self)
{
  g_return_val_if_fail (SP_IS_DECLARED_INSTALL (self), NULL);
  return self->output;
}

const char *const *
sp_declared_install_get_specs (SpDeclaredInstall *self)
{
  g_return_val_if_fail (SP_IS_DECLARED_INSTALL (self), NULL);
  return (const char *const *) self->specs;
}

char *
sp_declared_install_take_code (SpDeclaredInstall *self)
{
  g_return_val_if_fail (SP_IS_DECLARED_INSTALL (self), NULL);
  return g_steal_pointer (&self->code);
}

SpDeclaredInstall *
sp_declared_install_new (SpDocument *document, GSettings *settings)
{
  SpDeclaredInstall *self = g_object_new (SP_TYPE_DECLARED_INSTALL, NULL);

  g_return_val_if_fail (SP_IS_DOCUMENT (document), NULL);
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);
  self->document = g_object_ref (document);
  self->settings = g_object_ref (settings);
  return self;
}

static void
sp_declared_install_dispose (GObject *object)
{
  SpDeclaredInstall *self = SP_DECLARED_INSTALL (object);

  sp_declared_install_stop (self);
  g_clear_object (&self->document);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (sp_declared_install_parent_class)->dispose (object);
}

static void
sp_declared_install_finalize (GObject *object)
{
  SpDeclaredInstall *self = SP_DECLARED_INSTALL (object);

  g_free (self->code);
  g_free (self->reason);
  g_free (self->output);
  g_strfreev (self->specs);
  G_OBJECT_CLASS (sp_declared_install_parent_class)->finalize (object);
}

static void
sp_declared_install_class_init (SpDeclaredInstallClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sp_declared_install_dispose;
  object_class->finalize = sp_declared_install_finalize;

  /* How many declared specs go in now (the install started). */
  signals[SIGNAL_INSTALLING] = g_signal_new ("installing", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 1,
                                             G_TYPE_UINT);
  /* The SpDeclaredOutcome, once per start that was not stopped. */
  signals[SIGNAL_FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                           0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
}

static void
sp_declared_install_init (SpDeclaredInstall *self)
{
}
