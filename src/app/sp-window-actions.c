/* sp-window-actions.c: what a window does: run, stop, feed input, and
 * new, open (Save is sp-window-save.c). */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "sp-image-texture.h"
#include "sp-run-result.h"
#include "sp-run-file.h"
#include "sp-window-private.h"

void
_sp_window_update_actions (SpWindow *self)
{
  gboolean ready = sp_runner_supervisor_is_ready (self->supervisor);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run", ready && !self->running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run-selection", ready && !self->running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", self->running);
  gtk_widget_set_visible (self->run_button, !self->running);
  gtk_widget_set_visible (self->stop_button, self->running);
}

/* "main.py": the name the runner gives a snippet of the window's
 * language (its first extension, from the ready event), for a stem. */
char *
_sp_window_file_name_for (SpWindow *self, const char *stem)
{
  SpRunnerClient *client = sp_runner_supervisor_get_client (self->supervisor);
  const char *const *extensions = NULL;

  if (client != NULL && sp_runner_client_is_ready (client))
    extensions = sp_runner_client_get_language_extensions (client, _sp_window_get_language (self));
  if (extensions == NULL || extensions[0] == NULL)
    return g_strdup (stem);
  return g_strconcat (stem, ".", extensions[0], NULL);
}

/* ---- the policy card ---- */

/* The card says what the sandbox really holds, from the layers the runner
 * reported: those of the run shown while it has started, else those every
 * run gets (the ready event). Never a fixed promise. */
static void
update_policy (SpWindow *self)
{
  g_autoptr (SpSandboxPolicy) policy = NULL;
  g_autofree char *limits = NULL;
  gboolean network = g_settings_get_boolean (self->settings, "network-allowed");
  const char *mode = NULL;
  const char *const *layers = NULL;

  if (!sp_runner_supervisor_is_ready (self->supervisor))
    {
      SpRunnerState state = sp_runner_supervisor_get_state (self->supervisor);
      /* Failed is not "starting": the banner above says why and offers
       * Retry. */
      sp_exec_panel_set_policy (self->exec_panel,
                                state == SP_RUNNER_STATE_FAILED
                                    || state == SP_RUNNER_STATE_STOPPED
                                  ? _("No sandboxed runner: runs are unavailable")
                                  : _("Starting the sandboxed runner…"),
                                NULL);
      return;
    }
  if (self->run_id == NULL
      || !sp_runner_supervisor_get_run_sandbox (self->supervisor, self->run_id, &mode, &layers))
    {
      mode = sp_runner_supervisor_get_sandbox_mode (self->supervisor);
      layers = sp_runner_supervisor_get_sandbox_layers (self->supervisor);
    }
  policy = sp_sandbox_policy_new (mode, layers);
  /* TRANSLATORS: network on/off · time limit · memory limit */
  limits = g_strdup_printf (_("Network %s · %u s · %u MiB"), network ? _("on") : _("off"),
                            g_settings_get_uint (self->settings, "run-timeout-seconds"),
                            g_settings_get_uint (self->settings, "memory-limit-mib"));
  if (_sp_window_session_label (self) != NULL)
    {
      /* The runs keep their state: say so where the limits are. */
      char *with_session = g_strdup_printf ("%s · %s", limits, _sp_window_session_label (self));
      g_free (limits);
      limits = with_session;
    }
  if (self->run_start != NULL)
    {
      /* TRANSLATORS: the limits line, then how the last run started */
      char *with_start = g_strdup_printf (_("%s · %s"), limits, self->run_start);
      g_free (limits);
      limits = with_start;
    }
  g_autofree char *environment = _sp_window_environment (self);
  if (environment != NULL)
    {
      /* TRANSLATORS: the limits line, then the environment's path */
      char *with_env = g_strdup_printf (_("%s · environment %s (read-only)"), limits, environment);
      g_free (limits);
      limits = with_env;
    }
  sp_exec_panel_set_policy (self->exec_panel, limits, policy);
}

void
_sp_window_update_policy (SpWindow *self)
{
  update_policy (self);
}

/* ---- running ---- */

static gboolean
is_current (SpWindow *self, const char *run_id)
{
  return self->run_id != NULL && g_strcmp0 (self->run_id, run_id) == 0;
}

static void
set_running (SpWindow *self, gboolean running)
{
  self->running = running;
  _sp_window_input_reset (self);
  sp_exec_panel_set_running (self->exec_panel, running);
  _sp_window_update_actions (self);
}

static void
on_output (SpRunnerSupervisor *sup, const char *run_id, SpOutputKind kind, const char *text,
           gint64 t_ms, SpWindow *self)
{
  if (!is_current (self, run_id))
    return;
  sp_output_model_append_timed (self->output, kind, text, t_ms);
  _sp_window_input_saw_output (self, text);
  _sp_window_history_saw_output (self, kind, text);
  /* Kept (bounded) to find the error in, once the run is over. */
  if (kind == SP_OUTPUT_STDERR && self->stderr_text->len < 256 * 1024)
    g_string_append (self->stderr_text, text);
}

static void
on_display (SpRunnerSupervisor *sup, const char *run_id, const char *text, GBytes *png,
            gint64 t_ms, SpWindow *self)
{
  g_autofree char *line = NULL;

  if (!is_current (self, run_id))
    return;
  line = g_strconcat (text, "\n", NULL);
  _sp_window_display_image (self, run_id, text, png);
  _sp_window_history_saw_output (self, SP_OUTPUT_STDOUT, line);
}

static gint64
mtime_ns (const SpRunFile *file)
{
  GStatBuf st;

  /* Only an order for an older runner's files (no t_ms): an lstat of the
   * name the runner gave, never a read. */
  if (file->path == NULL || g_lstat (file->path, &st) != 0)
    return 0;
  return (gint64) st.st_mtim.tv_sec * G_GINT64_CONSTANT (1000000000) + st.st_mtim.tv_nsec;
}

static int
by_mtime (gconstpointer a, gconstpointer b)
{
  gint64 ta = mtime_ns (*(const SpRunFile *const *) a);
  gint64 tb = mtime_ns (*(const SpRunFile *const *) b);

  return ta < tb ? -1 : ta > tb;
}

/* The prelude saves the figures plt.show() shows as plot-N.png: those are
 * "Plot N"; an image the snippet saved itself is named by its file, as the
 * snippet named it. */
static char *
image_label (const SpRunFile *file)
{
  guint n = 0;

  /* Exactly the prelude's spelling, nothing more around it. */
  if (sscanf (file->relative, "plot-%u.png", &n) == 1 && n > 0)
    {
      g_autofree char *prelude = g_strdup_printf ("plot-%u.png", n);
      if (g_str_equal (prelude, file->relative))
        return g_strdup_printf (_("Plot %u"), n);
    }
  return g_strdup (file->relative);
}

/* Plots, images and every other file the run made, each where the run
 * made it among what it printed: the model places them by the runner's
 * times (an older runner sends none: then after the text, in the order of
 * their modification times, as the runner lists files by name). Images
 * show inline; other files are listed, and a regular file the runner
 * could name is previewed, opened and saved through sp-run-file.h. */
static void
add_results (SpWindow *self, SpRunResult *result)
{
  const char *const *images = sp_run_result_get_images (result);
  g_autoptr (GPtrArray) ordered = g_ptr_array_new ();
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GPtrArray) placed = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; i < sp_run_result_get_n_files (result); i++)
    g_ptr_array_add (ordered, (gpointer) sp_run_result_get_file (result, i));
  g_ptr_array_sort (ordered, by_mtime);
  for (guint i = 0; i < ordered->len; i++)
    {
      const SpRunFile *file = g_ptr_array_index (ordered, i);
      g_autoptr (SpOutputItem) item = NULL;
      gboolean image = file->path != NULL && images != NULL && g_strv_contains (images, file->path);

      if (image)
        {
          g_autofree char *label = image_label (file);
          item = sp_output_item_new_image (file->path, label);
          g_ptr_array_add (items, g_object_ref (item));
        }
      else
        item = sp_output_item_new_file (file->path ? file->path : file->relative, file->relative,
                                        file->size, file->mime);
      if (file->kind == SP_RUN_FILE_REGULAR && file->name != NULL)
        sp_output_item_set_source (item, file->dir, file->name);
      g_ptr_array_add (placed, g_object_ref (item));
      g_array_append_val (times, file->t_ms);
    }
  sp_output_model_insert_timed (self->output, (SpOutputItem *const *) placed->pdata,
                                (const gint64 *) (gpointer) times->data, placed->len);
  /* Decoded by the sandboxed helper, never in the app; each row shows its
   * picture, or why it cannot, when the helper is done. */
  if (items->len > 0)
    sp_image_texture_decode_items (items, self->image_budget, self->decode_cancellable);
}

/* The error, structured: its type and message first, its frames as links
 * to their lines, and the innermost line of the snippet marked. The
 * runner's reading of it when it sent one; core's own parse of stderr
 * only as a fallback (a runner from before program_error). */
static void
add_error (SpWindow *self, SpRunResult *result)
{
  g_autofree char *name = self->file ? g_file_get_basename (self->file) : NULL;
  const char *language = _sp_window_get_language (self);
  g_autofree char *fallback = _sp_window_file_name_for (self, "main");
  const char *snippet = name ? name : fallback;
  g_autoptr (SpErrorInfo) error = NULL;

  if (sp_run_result_get_error_info (result) != NULL)
    error = sp_error_info_ref (sp_run_result_get_error_info (result));
  else
    error = sp_error_info_parse (language, self->stderr_text->str, snippet);
  g_autoptr (SpOutputItem) item = NULL;

  if (error == NULL)
    return;
  item = sp_output_item_new_error (error);
  sp_output_model_append_item (self->output, item);
  if (sp_error_info_get_line (error) > 0)
    _sp_window_goto_line (self, sp_error_info_get_line (error), TRUE);
}

static void
on_started (SpRunnerSupervisor *sup, const char *run_id, SpWindow *self)
{
  if (is_current (self, run_id))
    update_policy (self);
}

static void
on_exited (SpRunnerSupervisor *sup, const char *run_id, SpRunResult *result, SpWindow *self)
{
  g_autofree char *summary = NULL;

  if (!is_current (self, run_id))
    return;
  summary = sp_run_result_describe (result);
  self->run_exited = TRUE;
  /* Everything the program wrote comes before its plots, files and error. */
  sp_output_model_flush (self->output);
  set_running (self, FALSE);
  sp_exec_panel_set_status (self->exec_panel, summary, !sp_run_result_succeeded (result));
  add_results (self, result);
  g_free (self->run_start);
  if (sp_run_result_get_warm (result))
    self->run_start = g_strdup (_("warm start"));
  else if (sp_run_result_get_cold_reason (result) != NULL)
    /* TRANSLATORS: the runner turned its warm starts off; %s says why */
    self->run_start
      = g_strdup_printf (_("cold start: %s"), sp_run_result_get_cold_reason (result));
  else
    self->run_start = g_strdup (_("cold start"));
  update_policy (self);
  if (!sp_run_result_succeeded (result) && sp_run_result_get_cancelled (result) == SP_RUN_CANCEL_NONE)
    add_error (self, result);
  _sp_window_history_run_ended (self, result, summary);
  _sp_window_session_exited (self, result);
}

static void
on_run_error (SpRunnerSupervisor *sup, const char *run_id, const char *code, const char *message,
              SpWindow *self)
{
  if (run_id != NULL && !is_current (self, run_id))
    return;
  set_running (self, FALSE);
  sp_exec_panel_set_status (self->exec_panel, message, TRUE);
}

static void guess_language (SpWindow *self, GFile *file);

static void
on_state_changed (SpRunnerSupervisor *sup, GParamSpec *pspec, SpWindow *self)
{
  SpRunnerState state = sp_runner_supervisor_get_state (sup);

  if (self->running && state != SP_RUNNER_STATE_READY)
    {
      /* The runner died under the run: say so; the supervisor restarts it
       * and the next Run works. The text in the editor is untouched. */
      set_running (self, FALSE);
      sp_exec_panel_set_status (self->exec_panel,
                                _("The runner stopped unexpectedly; it is being restarted"),
                                TRUE);
      self->runner_lost = TRUE;
    }
  if (state == SP_RUNNER_STATE_READY && self->language_pending && self->file != NULL)
    guess_language (self, self->file);
  _sp_window_runner_state_changed (self);
  update_policy (self);
  _sp_window_update_actions (self);
}

void
_sp_window_connect_runner (SpWindow *self)
{
  g_signal_connect_object (self->supervisor, "output", G_CALLBACK (on_output), self, 0);
  g_signal_connect_object (self->supervisor, "display", G_CALLBACK (on_display), self, 0);
  g_signal_connect_object (self->supervisor, "started", G_CALLBACK (on_started), self, 0);
  g_signal_connect_object (self->supervisor, "exited", G_CALLBACK (on_exited), self, 0);
  g_signal_connect_object (self->supervisor, "error", G_CALLBACK (on_run_error), self, 0);
  g_signal_connect_object (self->supervisor, "notify::state", G_CALLBACK (on_state_changed), self,
                           0);
  g_signal_connect_object (self->settings, "changed", G_CALLBACK (update_policy), self,
                           G_CONNECT_SWAPPED);
  update_policy (self);
}


/* A saved file runs in its folder's environment (.venv or venv for
 * Python, node_modules for JavaScript, up to the workspace), an unsaved
 * buffer in the workspace's; read-only to the run. The runner checks it
 * again and refuses one not based on a system interpreter. */
static void
set_environment (SpWindow *self, SpRunRequest *request)
{
  g_autofree char *environment = _sp_window_environment (self);

  if (environment != NULL)
    sp_run_request_set_environment (request, environment);
}

static void
start_run (SpWindow *self, const char *code)
{
  g_autoptr (SpRunRequest) request = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  const char *const *languages = sp_runner_supervisor_get_languages (self->supervisor);

  if (self->running)
    return;
  /* The dropdown offers what Sandpad knows; the runner says what this
   * system has (no node installed, say). */
  if (languages != NULL && !g_strv_contains (languages, _sp_window_get_language (self)))
    {
      g_autofree char *msg = g_strdup_printf (_("No interpreter for %s on this system"),
                                              _sp_window_get_language (self));
      sp_exec_panel_set_status (self->exec_panel, msg, TRUE);
      return;
    }
  request = sp_run_request_new (_sp_window_get_language (self), code);
  if (self->file != NULL)
    {
      name = g_file_get_basename (self->file);
      sp_run_request_set_name (request, name);
    }
  set_environment (self, request);
  sp_run_request_set_timeout_ms (request,
                                 g_settings_get_uint (self->settings, "run-timeout-seconds") * 1000);
  sp_run_request_set_memory_mib (request, g_settings_get_uint (self->settings, "memory-limit-mib"));
  sp_run_request_set_network (request, g_settings_get_boolean (self->settings, "network-allowed"));
  sp_run_request_set_output_limit (
    request, (gint64) g_settings_get_uint (self->settings, "output-limit-mib") * 1024 * 1024);
  sp_run_request_set_stdin_open (request, TRUE);
  _sp_window_session_apply (self, request);

  _sp_window_release_run (self);
  _sp_window_clear_mark (self);
  /* The last run's images are not wanted any more. */
  g_cancellable_cancel (self->decode_cancellable);
  g_clear_object (&self->decode_cancellable);
  self->decode_cancellable = g_cancellable_new ();
  sp_image_budget_begin_run (self->image_budget);
  g_string_truncate (self->stderr_text, 0);
  self->run_exited = FALSE;
  self->run_id = sp_runner_supervisor_run (self->supervisor, request, &error);
  if (self->run_id == NULL)
    {
      sp_exec_panel_set_status (self->exec_panel, error->message, TRUE);
      return;
    }
  _sp_window_history_run_started (self, code, _sp_window_get_language (self));
  g_clear_object (&self->output);
  self->output = sp_output_model_new ();
  /* Error text names the snippet as the user knows it, with links. */
  {
    g_autofree char *run_name = name ? g_strdup (name) : _sp_window_file_name_for (self, "main");
    sp_exec_panel_set_snippet_names (self->exec_panel, run_name, name ? name : _("Untitled"));
  }
  {
    g_autoptr (GFile) folder = self->file ? g_file_get_parent (self->file) : NULL;
    sp_exec_panel_set_save_folder (self->exec_panel, folder);
  }
  /* Output is shown in batches, a few dozen times a second at most, so a
   * flood of tiny writes costs the window one update per batch. */
  sp_output_model_set_batched (self->output, TRUE);
  sp_exec_panel_set_output (self->exec_panel, G_LIST_MODEL (self->output));
  set_running (self, TRUE);
}

static void
run_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  g_autofree char *code = NULL;
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  code = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  start_run (self, code);
}

/* Runs the selected lines (whole lines). Blank lines stand in for the ones
 * above, so the interpreter's line numbers are the editor's. */
static void
run_selection_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  g_autofree char *selected = NULL;
  g_autofree char *padding = NULL;
  g_autofree char *code = NULL;
  GtkTextIter start, end;

  if (!gtk_text_buffer_get_selection_bounds (buffer, &start, &end))
    {
      run_action (widget, action_name, param);
      return;
    }
  gtk_text_iter_set_line_offset (&start, 0);
  if (gtk_text_iter_get_line_offset (&end) > 0 || gtk_text_iter_equal (&start, &end))
    gtk_text_iter_forward_to_line_end (&end);
  selected = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  padding = g_strnfill ((gsize) gtk_text_iter_get_line (&start), '\n');
  code = g_strconcat (padding, selected, "\n", NULL);
  start_run (self, code);
}

void
_sp_window_release_run (SpWindow *self)
{
  /* The previous run's files go with it. */
  if (self->run_id != NULL && self->run_exited)
    sp_runner_supervisor_release (self->supervisor, self->run_id);
  g_clear_pointer (&self->run_id, g_free);
}

void
_sp_window_stop_run (SpWindow *self)
{
  if (self->running && self->run_id != NULL)
    sp_runner_supervisor_cancel (self->supervisor, self->run_id);
}

static void
stop_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  _sp_window_stop_run (SP_WINDOW (widget));
}

static void
on_panel_input (SpExecPanel *panel, const char *line, SpWindow *self)
{
  g_autofree char *with_newline = g_strconcat (line, "\n", NULL);

  if (self->running && self->run_id != NULL)
    {
      sp_runner_supervisor_send_stdin (self->supervisor, self->run_id, with_newline, FALSE);
      _sp_window_input_sent (self, line);
    }
}

static void
on_panel_goto_line (SpExecPanel *panel, int line, SpWindow *self)
{
  _sp_window_goto_line (self, line, FALSE);
}

static void guess_language (SpWindow *self, GFile *file);

/* An Open on its way: the window that asked and the name the file shows. */
typedef struct
{
  SpWindow *self;
  char *label;
} OpenRead;

static void
open_read_free (OpenRead *r)
{
  g_object_unref (r->self);
  g_free (r->label);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (OpenRead, open_read_free)

static void
on_run_file_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (OpenRead) r = user_data;
  SpWindow *self = r->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = sp_run_file_read_finish (result, NULL, &error);
  g_autoptr (GFile) file = NULL;
  const char *contents;
  gsize len = 0;
  SpWindow *other;
  GtkTextBuffer *buffer;

  if (bytes == NULL)
    {
      g_autofree char *msg = g_strdup_printf (_("Could not open the file: %s"), error->message);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _sp_window_toast (self, msg);
      return;
    }
  contents = g_bytes_get_data (bytes, &len);
  if (!g_utf8_validate (contents, (gssize) len, NULL))
    {
      _sp_window_toast (self, _("The file is not UTF-8 text"));
      return;
    }
  other = sp_window_new (SP_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (other));
  gtk_text_buffer_set_text (buffer, len > 0 ? contents : "", (int) len);
  gtk_text_buffer_set_modified (buffer, TRUE);
  /* Only its extension counts: the language, as the runner names it. */
  file = g_file_new_for_path (r->label);
  guess_language (other, file);
  gtk_window_present (GTK_WINDOW (other));
}

/* A text file the run made opens in a new window as an untitled copy:
 * the run's directory goes away with the next run, and Sandpad never hands
 * a run's files to another program. It is read as every file of a run is
 * (sp-run-file.h: beneath the run's directory, no symlink, no FIFO, at
 * most 4 MiB by its size before a byte is read), in a worker thread. */
static void
on_panel_open_file (SpExecPanel *panel, SpOutputItem *item, SpWindow *self)
{
  OpenRead *r;

  if (sp_output_item_get_name (item) == NULL)
    return;
  r = g_new0 (OpenRead, 1);
  r->self = g_object_ref (self);
  r->label = g_strdup (sp_output_item_get_label (item));
  sp_run_file_read_async (sp_output_item_get_dir (item), sp_output_item_get_name (item),
                          SP_RUN_FILE_OPEN_MAX, SP_RUN_FILE_READ_WHOLE, NULL, on_run_file_read, r);
}

static void
on_panel_clear (SpExecPanel *panel, SpWindow *self)
{
  if (self->output != NULL)
    sp_output_model_clear (self->output);
#ifdef __GLIBC__
  /* A flood's rows are many small blocks; glibc keeps freed ones for
   * reuse unless asked to give the pages back. */
  malloc_trim (0);
#endif
}

/* ---- files ---- */

/* Which language a file name means is the runner's to say (its ready
 * event lists each language's extensions); a file opened before the
 * runner is ready gets its language once it is. */
static void
guess_language (SpWindow *self, GFile *file)
{
  SpRunnerClient *client = sp_runner_supervisor_get_client (self->supervisor);
  g_autofree char *name = g_file_get_basename (file);
  const char *language = NULL;

  self->language_pending = !sp_runner_supervisor_is_ready (self->supervisor);
  if (!self->language_pending && client != NULL)
    language = sp_runner_client_language_for_file (client, name);
  if (language != NULL)
    _sp_window_set_language (self, language);
}

static void
load_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize len = 0;
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GtkTextIter start;

  if (!g_file_load_contents_finish (G_FILE (object), result, &contents, &len, NULL, &error))
    {
      g_autofree char *msg = g_strdup_printf (_("Could not open the file: %s"), error->message);
      _sp_window_toast (self, msg);
      return;
    }
  if (!g_utf8_validate (contents, (gssize) len, NULL))
    {
      _sp_window_toast (self, _("The file is not UTF-8 text"));
      return;
    }
  g_set_object (&self->file, G_FILE (object));
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, contents, (int) len);
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_buffer_set_modified (buffer, FALSE);
  guess_language (self, self->file);
  _sp_window_update_title (self);
  _sp_window_file_loaded (self, contents, len);
}

void
sp_window_load_file (SpWindow *self, GFile *file)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  g_file_load_contents_async (file, NULL, load_ready, g_object_ref (self));
}

static void
save_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  _sp_window_save (self, self->file, FALSE);
}

static void
save_as_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  _sp_window_save (SP_WINDOW (widget), NULL, FALSE);
}

static void
on_open_response (GtkNativeDialog *dialog, int response, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr (GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
      /* Unsaved text is never replaced: it opens in a new window. */
      if (gtk_text_buffer_get_modified (buffer) || self->file != NULL)
        {
          SpWindow *other = sp_window_new (
            SP_APPLICATION (gtk_window_get_application (GTK_WINDOW (self))));
          sp_window_load_file (other, file);
          gtk_window_present (GTK_WINDOW (other));
        }
      else
        sp_window_load_file (self, file);
    }
  g_object_unref (dialog);
}

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  GtkFileChooserNative *chooser = gtk_file_chooser_native_new (
    _("Open Snippet"), GTK_WINDOW (widget), GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"),
    _("_Cancel"));

  g_signal_connect (chooser, "response", G_CALLBACK (on_open_response), g_object_ref (widget));
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (chooser));
}

static void
new_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *other
    = sp_window_new (SP_APPLICATION (gtk_window_get_application (GTK_WINDOW (widget))));
  gtk_window_present (GTK_WINDOW (other));
}

void
_sp_window_install_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "win.run-selection", NULL, run_selection_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "win.save-as", NULL, save_as_action);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_input);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_clear);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_goto_line);
  gtk_widget_class_bind_template_callback (widget_class, on_panel_open_file);
}
