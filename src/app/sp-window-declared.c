/* sp-window-declared.c: Run of a Python snippet that declares its
 * dependencies (PEP 723, `# /// script`): the ones its environment lacks
 * are installed first, through the Packages dialog's install request and
 * the user's package settings (sp-declared.h), then it runs. A refusal
 * (the policy's rule, a malformed block) or no environment to install
 * into says so and runs nothing: code that declares a package would only
 * fail on its import. Run Anyway is there for the last case. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>
#include <signal.h>

#include "sp-declared.h"
#include "sp-window-private.h"

gboolean
_sp_window_declared_busy (SpWindow *self)
{
  return self->declared_cancellable != NULL;
}

static void
finish (SpWindow *self)
{
  g_clear_object (&self->declared_cancellable);
  g_clear_object (&self->declared_process);
  _sp_window_update_actions (self);
}

/* sandpad-run's last "sandpad: " line is the reason (it names the rule);
 * what came before it is pip's, shown in the output. */
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

/* The last run's output would read as this Run's: the panel shows only
 * what this one has to say (pip's words, or nothing). */
static void
show_output (SpWindow *self, const char *text)
{
  g_autoptr (SpOutputModel) output = sp_output_model_new ();

  if (text != NULL && text[0] != '\0')
    {
      sp_output_model_append (output, SP_OUTPUT_STDERR, text);
      sp_output_model_append (output, SP_OUTPUT_STDERR, "\n");
      sp_output_model_flush (output);
    }
  g_set_object (&self->output, output);
  sp_exec_panel_set_output (self->exec_panel, G_LIST_MODEL (output));
}

static void
on_installed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;
  GSubprocess *process = G_SUBPROCESS (source);
  g_autoptr (GError) error = NULL;
  g_autofree char *out = NULL;
  g_autofree char *code = NULL;

  if (!g_subprocess_communicate_utf8_finish (process, result, &out, NULL, &error))
    {
      /* Stopped: the status says so already. */
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          sp_exec_panel_set_status (self->exec_panel, error->message, TRUE);
          finish (self);
        }
      return;
    }
  code = g_steal_pointer (&self->declared_code);
  finish (self);
  /* The Packages dialog's list and the card read the venv again. */
  sp_document_environment_changed (self->document);
  if (g_subprocess_get_if_exited (process) && g_subprocess_get_exit_status (process) == 0)
    {
      _sp_window_start_run (self, code);
      return;
    }
  {
    g_autofree char *pip = NULL;
    g_autofree char *why = split_reason (out, &pip);
    /* TRANSLATORS: %s is why, as sandpad-run says it (it names the policy rule) */
    g_autofree char *text = g_strdup_printf (_ ("Not run: its declared packages were not "
                                                "installed: %s"),
                                             why != NULL ? why : _ ("the install failed"));

    g_strstrip (pip);
    show_output (self, pip);
    sp_exec_panel_set_status (self->exec_panel, text, TRUE);
  }
}

static void
install (SpWindow *self, const char *environment, char **specs)
{
  g_autoptr (GPtrArray) argv = sp_declared_install_argv (self->settings, environment);
  g_autoptr (GError) error = NULL;
  guint n = g_strv_length (specs);
  g_autofree char *text = NULL;

  /* pip's words only when it fails (sandpad-run then prints them). */
  g_ptr_array_insert (argv, 2, g_strdup ("--quiet"));
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (argv, g_strdup (specs[i]));
  g_ptr_array_add (argv, NULL);
  self->declared_process
    = g_subprocess_newv ((const char *const *) argv->pdata,
                         G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_MERGE, &error);
  if (self->declared_process == NULL)
    {
      sp_exec_panel_set_status (self->exec_panel, error->message, TRUE);
      finish (self);
      return;
    }
  /* TRANSLATORS: %u is how many packages the script declares that its
   * environment lacks */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Installing %u declared package…",
                                       "Installing %u declared packages…", n),
                          n);
  sp_exec_panel_set_busy (self->exec_panel, text);
  g_subprocess_communicate_utf8_async (self->declared_process, NULL, self->declared_cancellable,
                                       on_installed, g_object_ref (self));
}

static void
on_listed (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) specs = sp_declared_list_finish (result, &error);
  g_autofree char *environment = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (specs == NULL)
    {
      /* TRANSLATORS: %s is the runner's reason: the metadata's line, or the
       * Python version it requires */
      g_autofree char *text = g_strdup_printf (_ ("Not run: %s"), error->message);
      show_output (self, NULL);
      sp_exec_panel_set_status (self->exec_panel, text, TRUE);
      finish (self);
      return;
    }
  if (specs[0] == NULL)
    {
      g_autofree char *code = g_steal_pointer (&self->declared_code);
      finish (self);
      _sp_window_start_run (self, code);
      return;
    }
  environment = sp_document_dup_environment (self->document);
  if (environment == NULL)
    {
      g_autofree char *list = g_strjoinv (", ", specs);
      guint n = g_strv_length (specs);
      /* TRANSLATORS: %s lists the packages the script declares (PEP 723) */
      g_autofree char *text = g_strdup_printf (
        g_dngettext (GETTEXT_PACKAGE,
                     "Not run: the script declares a package (%s), and no Python environment "
                     "is selected to install it into. Create one with Packages… in the menu "
                     "(beside the saved file), or open a folder that has one.",
                     "Not run: the script declares packages (%s), and no Python environment "
                     "is selected to install them into. Create one with Packages… in the menu "
                     "(beside the saved file), or open a folder that has one.",
                     n),
        list);
      finish (self);
      /* Kept for Run Anyway. */
      show_output (self, NULL);
      sp_exec_panel_set_status (self->exec_panel, text, TRUE);
      sp_exec_panel_set_status_action (self->exec_panel, _ ("Run _Anyway"), "win.run-anyway");
      gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run-anyway", TRUE);
      return;
    }
  install (self, environment, specs);
}

gboolean
_sp_window_declared_before_run (SpWindow *self, const char *code)
{
  g_autofree char *environment = NULL;

  if (!sp_declared_has_block (code))
    return FALSE;
  _sp_window_declared_stop (self);
  g_free (self->declared_code);
  self->declared_code = g_strdup (code);
  self->declared_cancellable = g_cancellable_new ();
  environment = sp_document_dup_environment (self->document);
  sp_exec_panel_set_busy (self->exec_panel, _ ("Reading the script’s declared packages…"));
  _sp_window_update_actions (self);
  sp_declared_list_async (code, environment, self->declared_cancellable, on_listed,
                          g_object_ref (self));
  return TRUE;
}

void
_sp_window_declared_stop (SpWindow *self)
{
  if (self->declared_cancellable == NULL)
    return;
  g_cancellable_cancel (self->declared_cancellable);
  /* SIGTERM: sandpad-run cancels its step and removes its files. */
  if (self->declared_process != NULL)
    g_subprocess_send_signal (self->declared_process, SIGTERM);
  finish (self);
  sp_exec_panel_set_status (self->exec_panel,
                            _ ("Stopped: the script’s declared packages were not installed"), TRUE);
}

static void
run_anyway_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  g_autofree char *code = g_steal_pointer (&self->declared_code);

  gtk_widget_action_set_enabled (widget, "win.run-anyway", FALSE);
  if (code != NULL && !_sp_window_declared_busy (self)
      && !sp_run_controller_get_running (self->runs))
    _sp_window_start_run (self, code);
}

void
_sp_window_install_declared_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.run-anyway", NULL, run_anyway_action);
}

void
_sp_window_declared_dispose (SpWindow *self)
{
  if (self->declared_cancellable != NULL)
    g_cancellable_cancel (self->declared_cancellable);
  if (self->declared_process != NULL)
    g_subprocess_send_signal (self->declared_process, SIGTERM);
  g_clear_object (&self->declared_cancellable);
  g_clear_object (&self->declared_process);
  g_clear_pointer (&self->declared_code, g_free);
}
