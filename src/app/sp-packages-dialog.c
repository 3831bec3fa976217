/* sp-packages-dialog.c: see the header.
 *
 * Nothing here runs the environment's interpreter: the list comes from
 * the *.dist-info names (sp_environment_list_packages), the venv is made
 * by the system's python3 (so the runner accepts it as based on a system
 * interpreter), and installs go through `sandpad-run --install`, which
 * runs pip in the sandbox and checks what it fetched against the policy.
 * Both run as child processes, read asynchronously, so the window never
 * waits on them. */
#define G_LOG_DOMAIN "sp-packages-dialog"

#include "config.h"

#include <glib/gi18n.h>
#include <signal.h>
#include <string.h>

#include "sp-environment.h"
#include "sp-packages-dialog.h"
#include "sp-declared.h"

/* How long a stopped install may take to clean up (sandpad-run removes its
 * files on SIGTERM) before it is killed. */
#define STOP_GRACE_SECONDS 10

typedef enum
{
  JOB_NONE,
  JOB_CREATE,
  JOB_INSTALL,
} Job;

struct _SpPackagesDialog
{
  AdwWindow parent_instance;

  GSettings *settings;
  char *folder;
  char *workspace;
  char *environment;
  GStrv packages;

  AdwWindowTitle *title;
  GtkLabel *where_label;
  GtkLabel *sources_label;
  GtkLabel *system_label;
  GtkWidget *output_card;
  AdwStatusPage *empty_page;
  GtkWidget *create_button;
  GtkWidget *installed_box;
  GtkListBox *list_box;
  GtkEntry *spec_entry;
  GtkWidget *install_button;
  GtkWidget *cancel_button;
  GtkLabel *result_label;
  GtkTextView *output_view;

  Job job;
  GSubprocess *process;
  GCancellable *cancellable;
  guint kill_id;
  char *result;
};

G_DEFINE_FINAL_TYPE (SpPackagesDialog, sp_packages_dialog, ADW_TYPE_WINDOW)

enum
{
  ENVIRONMENT_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
set_result (SpPackagesDialog *self, const char *text, gboolean is_error)
{
  g_free (self->result);
  self->result = g_strdup (text);
  gtk_label_set_text (self->result_label, text != NULL ? text : "");
  gtk_widget_set_visible (GTK_WIDGET (self->result_label), text != NULL && text[0] != '\0');
  gtk_widget_remove_css_class (GTK_WIDGET (self->result_label), "error");
  gtk_widget_remove_css_class (GTK_WIDGET (self->result_label), "success");
  if (text != NULL)
    gtk_widget_add_css_class (GTK_WIDGET (self->result_label), is_error ? "error" : "success");
}

static void
append_output (SpPackagesDialog *self, const char *text, gsize len)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->output_view);
  GtkTextIter end;
  g_autofree char *valid = g_utf8_make_valid (text, len);

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, valid, -1);
}

static void
keep_to_end (GtkAdjustment *adjustment)
{
  gtk_adjustment_set_value (adjustment, gtk_adjustment_get_upper (adjustment)
                                          - gtk_adjustment_get_page_size (adjustment));
}

static void
update_sensitivity (SpPackagesDialog *self)
{
  gboolean busy = self->job != JOB_NONE;

  gtk_widget_set_sensitive (self->install_button, !busy && self->environment != NULL);
  gtk_widget_set_sensitive (self->create_button, !busy && self->folder != NULL);
  gtk_widget_set_visible (self->cancel_button, busy);
}

/* Whether the settings name an index or a folder of wheels. */
static gboolean
has_source (SpPackagesDialog *self)
{
  g_autofree char *index_url = g_settings_get_string (self->settings, "install-index-url");
  g_autofree char *find_links = g_settings_get_string (self->settings, "install-find-links");

  return index_url[0] != '\0' || find_links[0] != '\0';
}

/* Where installs take packages from, as the settings say and as
 * sandpad-run --install reads them: no index URL is --no-index (offline),
 * never pip's default index. */
static void
show_sources (SpPackagesDialog *self)
{
  g_autofree char *index_url = g_settings_get_string (self->settings, "install-index-url");
  g_autofree char *find_links = g_settings_get_string (self->settings, "install-find-links");
  g_autofree char *text = NULL;

  if (index_url[0] != '\0' && find_links[0] != '\0')
    /* TRANSLATORS: the package index URL, then a folder of wheels */
    text = g_strdup_printf (_ ("Packages come from the index %s and the folder %s."), index_url,
                            find_links);
  else if (index_url[0] != '\0')
    /* TRANSLATORS: %s is the package index URL */
    text = g_strdup_printf (_ ("Packages come from the index %s."), index_url);
  else if (find_links[0] != '\0')
    /* TRANSLATORS: %s is a folder of wheels */
    text = g_strdup_printf (_ ("Packages come from the folder %s only (no index: offline)."),
                            find_links);
  else
    text = g_strdup (_ ("No package source: no index is set, so installs are offline, and no "
                        "folder of wheels either. Set one in Preferences, Package Installs."));
  gtk_label_set_text (self->sources_label, text);
}

/* Reads the environment again (after a create or an install) and shows
 * it, or what the person can do without one. */
static void
refresh (SpPackagesDialog *self)
{
  g_autoptr (GError) error = NULL;
  GtkWidget *child;

  g_clear_pointer (&self->environment, g_free);
  g_clear_pointer (&self->packages, g_strfreev);
  if (self->folder != NULL)
    self->environment = sp_environment_find ("python", self->folder, self->workspace);
  if (self->environment != NULL)
    {
      self->packages = sp_environment_list_packages (self->environment, &error);
      if (self->packages == NULL)
        set_result (self, error->message, TRUE);
    }

  adw_window_title_set_subtitle (self->title, self->environment != NULL ? self->environment : "");
  if (self->environment != NULL)
    {
      g_autofree char *where = NULL;
      /* TRANSLATORS: %s is the environment's folder */
      where = g_strdup_printf (_ ("Python runs of this file use %s (read-only)."),
                               self->environment);
      gtk_label_set_text (self->where_label, where);
    }
  else if (self->folder != NULL)
    {
      g_autofree char *where = NULL;
      /* TRANSLATORS: %s is a folder */
      where = g_strdup_printf (_ ("No .venv or venv in %s: runs use the system's packages."),
                               self->folder);
      gtk_label_set_text (self->where_label, where);
    }
  else
    gtk_label_set_text (self->where_label, _ ("Save the file first or open a folder"));
  if (self->workspace != NULL)
    {
      /* TRANSLATORS: the sentence above, then the window's workspace folder */
      g_autofree char *with = g_strdup_printf (_ ("%s Workspace: %s"),
                                               gtk_label_get_text (self->where_label),
                                               self->workspace);
      gtk_label_set_text (self->where_label, with);
    }

  gtk_label_set_text (
    self->system_label,
    self->environment != NULL && sp_environment_includes_system (self->environment)
      ? _ ("The system's Python packages import too (numpy, matplotlib and the others "
           "Debian installed, from /usr/lib/python3/dist-packages): this environment includes "
           "them. One installed here comes first.")
      : "");
  gtk_widget_set_visible (GTK_WIDGET (self->system_label),
                          gtk_label_get_text (self->system_label)[0] != '\0');
  gtk_widget_set_visible (GTK_WIDGET (self->empty_page), self->environment == NULL);
  gtk_widget_set_visible (self->installed_box, self->environment != NULL);
  adw_status_page_set_description (self->empty_page,
                                   self->folder != NULL
                                     ? _ ("Create one with the system's Python; Debian's packages "
                                          "stay importable.")
                                     : _ ("Save the file first or open a folder"));

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->list_box))) != NULL)
    gtk_list_box_remove (self->list_box, child);
  for (guint i = 0; self->packages != NULL && self->packages[i] != NULL; i++)
    {
      g_auto (GStrv) parts = g_strsplit (self->packages[i], " ", 2);
      GtkWidget *row = adw_action_row_new ();
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), parts[0]);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), parts[1] != NULL ? parts[1] : "");
      gtk_list_box_append (self->list_box, row);
    }
  update_sensitivity (self);
}

/* ---- the child process, read as it writes ---- */

static void finish_job (SpPackagesDialog *self, gboolean ok, const char *why);

static void
on_waited (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr (SpPackagesDialog) self = user_data;
  g_autoptr (GError) error = NULL;
  GSubprocess *process = G_SUBPROCESS (source);

  if (!g_subprocess_wait_finish (process, res, &error))
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        finish_job (self, FALSE, error->message);
      return;
    }
  if (g_subprocess_get_if_signaled (process))
    finish_job (self, FALSE, _ ("cancelled"));
  else
    finish_job (self, g_subprocess_get_exit_status (process) == 0, NULL);
}

static void
on_read (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr (SpPackagesDialog) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), res,
                                                               &error);

  if (bytes == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bytes != NULL && g_bytes_get_size (bytes) > 0)
    {
      gsize len;
      const char *data = g_bytes_get_data (bytes, &len);
      append_output (self, data, len);
      g_input_stream_read_bytes_async (G_INPUT_STREAM (source), 4096, G_PRIORITY_DEFAULT,
                                       self->cancellable, on_read, g_object_ref (self));
      return;
    }
  /* The end of its output (or a read error): what remains is how it ended. */
  g_subprocess_wait_async (self->process, self->cancellable, on_waited, g_object_ref (self));
}

static gboolean
start_process (SpPackagesDialog *self, Job job, const char *cwd, const char *const *argv)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GError) error = NULL;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_MERGE);
  if (cwd != NULL)
    g_subprocess_launcher_set_cwd (launcher, cwd);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->output_view), "", -1);
  gtk_widget_set_visible (self->output_card, TRUE);
  set_result (self, NULL, FALSE);
  self->process = g_subprocess_launcher_spawnv (launcher, argv, &error);
  if (self->process == NULL)
    {
      set_result (self, error->message, TRUE);
      return FALSE;
    }
  self->job = job;
  self->cancellable = g_cancellable_new ();
  g_input_stream_read_bytes_async (g_subprocess_get_stdout_pipe (self->process), 4096,
                                   G_PRIORITY_DEFAULT, self->cancellable, on_read,
                                   g_object_ref (self));
  update_sensitivity (self);
  return TRUE;
}

/* sandpad-run prints "sandpad: refused: NAME is refused by the block list
 * (pattern "P")" and the like as its last words: that is the reason. */
static char *
last_sandpad_line (SpPackagesDialog *self)
{
  g_autofree char *text = sp_packages_dialog_get_output (self);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);

  for (int i = (int) g_strv_length (lines) - 1; i >= 0; i--)
    if (g_str_has_prefix (lines[i], "sandpad: "))
      return g_strdup (lines[i] + strlen ("sandpad: "));
  return NULL;
}

static void
finish_job (SpPackagesDialog *self, gboolean ok, const char *why)
{
  Job job = self->job;
  g_autofree char *reason = NULL;

  g_clear_handle_id (&self->kill_id, g_source_remove);
  g_clear_object (&self->process);
  g_clear_object (&self->cancellable);
  self->job = JOB_NONE;
  refresh (self);
  if (job == JOB_CREATE)
    {
      if (ok && self->environment != NULL)
        set_result (self, _ ("Environment created"), FALSE);
      else
        {
          g_autofree char *said = why == NULL ? last_sandpad_line (self) : NULL;
          /* TRANSLATORS: %s is why (its output is shown below) */
          g_autofree char *text = g_strdup_printf (_ ("Not created: %s"),
                                                   why != NULL    ? why
                                                   : said != NULL ? said
                                                                  : _ ("python3 -m venv failed"));
          set_result (self, text, TRUE);
        }
      g_signal_emit (self, signals[ENVIRONMENT_CHANGED], 0);
      return;
    }
  if (ok)
    {
      set_result (self, _ ("Installed"), FALSE);
      return;
    }
  reason = why == NULL ? last_sandpad_line (self) : NULL;
  if (why == NULL)
    why = reason;
  {
    /* TRANSLATORS: %s is why, as sandpad-run says it (it names the policy rule) */
    g_autofree char *text = g_strdup_printf (_ ("Not installed: %s"),
                                             why != NULL ? why : _ ("the install failed"));
    set_result (self, text, TRUE);
  }
}

/* Through sandpad-run, which makes it an environment its installs accept:
 * owned by the uid programs run as, nobody's in a root session (made with
 * python3 -m venv here, a root app's Install was refused). */
static void
on_create_clicked (SpPackagesDialog *self)
{
  g_autofree char *sandpad_run = sp_environment_find_sandpad_run ();
  const char *argv[] = { sandpad_run, "--create-venv", ".venv", NULL };

  if (self->job != JOB_NONE || self->folder == NULL)
    return;
  start_process (self, JOB_CREATE, self->folder, argv);
}

static void
on_install_clicked (SpPackagesDialog *self)
{
  g_autoptr (GPtrArray) argv = NULL;
  g_auto (GStrv) specs = g_strsplit_set (gtk_editable_get_text (GTK_EDITABLE (self->spec_entry)),
                                         " \t,", -1);
  guint n_specs = 0;

  if (self->job != JOB_NONE || self->environment == NULL)
    return;
  argv = sp_declared_install_argv (self->settings, self->environment);
  for (guint i = 0; specs[i] != NULL; i++)
    if (specs[i][0] != '\0')
      {
        g_ptr_array_add (argv, g_strdup (specs[i]));
        n_specs++;
      }
  if (n_specs == 0)
    {
      set_result (self, _ ("Type one or more packages, such as “requests” or “tinypkg==1.0”"),
                  TRUE);
      return;
    }
  if (!has_source (self))
    {
      /* Said here, where the person asked, not only in the note below:
       * sandpad-run would refuse it the same way, offline. */
      set_result (self,
                  _ ("Not installed: no package source. No index URL is configured and no "
                     "folder of wheels either; set one in Preferences, Package Installs."),
                  TRUE);
      return;
    }
  g_ptr_array_add (argv, NULL);
  start_process (self, JOB_INSTALL, NULL, (const char *const *) argv->pdata);
}

static gboolean
kill_now (gpointer data)
{
  SpPackagesDialog *self = data;

  self->kill_id = 0;
  if (self->process != NULL)
    g_subprocess_force_exit (self->process);
  return G_SOURCE_REMOVE;
}

/* SIGTERM first: sandpad-run then cancels its step and removes its files;
 * a child that does not end in time is killed. */
static void
stop_job (SpPackagesDialog *self)
{
  if (self->process == NULL)
    return;
  g_subprocess_send_signal (self->process, SIGTERM);
  if (self->kill_id == 0)
    self->kill_id = g_timeout_add_seconds (STOP_GRACE_SECONDS, kill_now, self);
}

/* ---- the widget: a template (ui/sp-packages-dialog.ui) ---- */

static void
sp_packages_dialog_dispose (GObject *object)
{
  SpPackagesDialog *self = SP_PACKAGES_DIALOG (object);

  /* Nobody is left to watch it: let the install clean up and end. */
  if (self->process != NULL)
    g_subprocess_send_signal (self->process, SIGTERM);
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->process);
  g_clear_handle_id (&self->kill_id, g_source_remove);
  g_clear_object (&self->settings);
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_PACKAGES_DIALOG);
  G_OBJECT_CLASS (sp_packages_dialog_parent_class)->dispose (object);
}

static void
sp_packages_dialog_finalize (GObject *object)
{
  SpPackagesDialog *self = SP_PACKAGES_DIALOG (object);

  g_free (self->folder);
  g_free (self->workspace);
  g_free (self->environment);
  g_free (self->result);
  g_strfreev (self->packages);
  G_OBJECT_CLASS (sp_packages_dialog_parent_class)->finalize (object);
}

static void
sp_packages_dialog_class_init (SpPackagesDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_packages_dialog_dispose;
  object_class->finalize = sp_packages_dialog_finalize;
  /* A venv was made: the window's policy card names it now. */
  signals[ENVIRONMENT_CHANGED] = g_signal_new ("environment-changed", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                               0);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-packages-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, title);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, where_label);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, sources_label);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, system_label);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, output_card);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, empty_page);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, create_button);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, installed_box);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, list_box);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, spec_entry);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, install_button);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, result_label);
  gtk_widget_class_bind_template_child (widget_class, SpPackagesDialog, output_view);
  gtk_widget_class_bind_template_callback (widget_class, on_create_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_install_clicked);
  gtk_widget_class_bind_template_callback (widget_class, stop_job);
}

static void
sp_packages_dialog_init (SpPackagesDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  /* The output keeps to its end by setting the value, never with
   * gtk_text_view_scroll_to_iter: GTK 4.8 animates that, and a dialog
   * closed while it animates warns from its scroll bar's unmap. */
  g_signal_connect (gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->output_card)),
                    "changed", G_CALLBACK (keep_to_end), NULL);
}

SpPackagesDialog *
sp_packages_dialog_new (GtkWindow *parent, GSettings *settings, const char *folder,
                        const char *workspace)
{
  SpPackagesDialog *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SP_TYPE_PACKAGES_DIALOG, NULL);
  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (self), parent);
      gtk_window_set_modal (GTK_WINDOW (self), TRUE);
    }
  self->settings = g_object_ref (settings);
  g_signal_connect_object (settings, "changed::install-index-url", G_CALLBACK (show_sources), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (settings, "changed::install-find-links", G_CALLBACK (show_sources), self,
                           G_CONNECT_SWAPPED);
  show_sources (self);
  self->folder = folder != NULL ? g_canonicalize_filename (folder, NULL) : NULL;
  self->workspace = workspace != NULL ? g_canonicalize_filename (workspace, NULL) : NULL;
  refresh (self);
  return self;
}

SpPackagesDialog *
sp_packages_dialog_new_for_document (GtkWindow *parent, GSettings *settings, SpDocument *document)
{
  g_autofree char *folder = NULL;
  SpPackagesDialog *self;

  g_return_val_if_fail (SP_IS_DOCUMENT (document), NULL);

  folder = sp_document_dup_folder (document);
  self = sp_packages_dialog_new (parent, settings, folder, sp_document_get_workspace (document));
  g_signal_connect_object (self, "environment-changed",
                           G_CALLBACK (sp_document_environment_changed), document,
                           G_CONNECT_SWAPPED);
  return self;
}

const char *
sp_packages_dialog_get_environment (SpPackagesDialog *self)
{
  g_return_val_if_fail (SP_IS_PACKAGES_DIALOG (self), NULL);
  return self->environment;
}

GStrv
sp_packages_dialog_get_packages (SpPackagesDialog *self)
{
  g_return_val_if_fail (SP_IS_PACKAGES_DIALOG (self), NULL);
  return g_strdupv (self->packages);
}

gboolean
sp_packages_dialog_get_busy (SpPackagesDialog *self)
{
  g_return_val_if_fail (SP_IS_PACKAGES_DIALOG (self), FALSE);
  return self->job != JOB_NONE;
}

char *
sp_packages_dialog_get_output (SpPackagesDialog *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (SP_IS_PACKAGES_DIALOG (self), NULL);
  buffer = gtk_text_view_get_buffer (self->output_view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

const char *
sp_packages_dialog_get_sources (SpPackagesDialog *self)
{
  g_return_val_if_fail (SP_IS_PACKAGES_DIALOG (self), NULL);
  return gtk_label_get_text (self->sources_label);
}

const char *
sp_packages_dialog_get_result (SpPackagesDialog *self)
{
  g_return_val_if_fail (SP_IS_PACKAGES_DIALOG (self), NULL);
  return self->result;
}
