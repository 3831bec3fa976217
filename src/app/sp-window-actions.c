/* sp-window-actions.c: what a window does: run (a Python snippet's
 * declared dependencies first, SpDeclaredInstall), stop, feed input, show
 * a run's results and open the files it made; New, Open, Open Folder,
 * Packages (Save is sp-window-save.c). The policy card follows the runs
 * by itself (SpPolicyCard, bound here). */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <stdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "sp-declared-install.h"
#include "sp-file-dialog.h"
#include "sp-image-texture.h"
#include "sp-run-result.h"
#include "sp-run-file.h"
#include "sp-window-private.h"

void
_sp_window_update_actions (SpWindow *self)
{
  gboolean ready = sp_runner_supervisor_is_ready (self->supervisor);
  gboolean running = sp_run_controller_get_running (self->runs)
                     || sp_declared_install_get_busy (self->declared);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run", ready && !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run-selection", ready && !running);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.stop", running);
  /* The input line is there while the program runs. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.focus-input",
                                 sp_run_controller_get_running (self->runs));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.goto-error",
                                 sp_error_mark_get_line (self->error_mark) > 0);
  gtk_widget_set_visible (self->run_button, !running);
  gtk_widget_set_visible (self->stop_button, running);
}

/* ---- running ---- */

/* The panel follows the controller: running, waiting for input. */
static void
on_running_changed (SpWindow *self)
{
  gboolean running = sp_run_controller_get_running (self->runs);
  GtkWidget *input = GTK_WIDGET (sp_exec_panel_get_input_entry (self->exec_panel));
  /* The input line goes with the run: had it the keyboard, keys would go
   * nowhere until a click. They go back to the editor. */
  gboolean input_had_focus = !running
                             && (gtk_widget_get_state_flags (input) & GTK_STATE_FLAG_FOCUS_WITHIN)
                                  != 0;

  sp_exec_panel_set_running (self->exec_panel, running);
  _sp_window_update_actions (self);
  if (input_had_focus || (!running && gtk_window_get_focus (GTK_WINDOW (self)) == NULL))
    gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
}

/* A wait gives the input line the keyboard unless the person has used
 * the editor since Run (SpInputFocus); the panel's cue follows where the
 * keyboard is. */
static void
on_waiting_changed (SpWindow *self)
{
  gboolean waiting = sp_run_controller_get_waiting (self->runs);

  if (waiting)
    sp_input_focus_offer (self->input_focus);
  sp_exec_panel_set_waiting (self->exec_panel, waiting,
                             g_settings_get_uint (self->settings, "run-timeout-seconds"));
}

static void
on_run_started (SpWindow *self)
{
  sp_exec_panel_set_started (self->exec_panel);
}

/* A compiled language's compile step, under its own limit, then the
 * program. */
static void
on_compiling_changed (SpWindow *self)
{
  gint64 ms = sp_run_controller_get_compile_timeout_ms (self->runs);

  sp_exec_panel_set_compiling (self->exec_panel, sp_run_controller_get_compiling (self->runs),
                               (guint) MIN ((ms + 999) / 1000, G_MAXUINT));
}

/* A new run's model is the one the panel shows. */
static void
on_output_changed (SpWindow *self)
{
  SpOutputModel *output = sp_run_controller_get_output (self->runs);

  sp_exec_panel_set_output (self->exec_panel, output ? G_LIST_MODEL (output) : NULL);
}

/* A result with an image: the controller put it in its place among the
 * output; decoded by the sandboxed helper, never in the app. A table is
 * the controller's alone (its text reaches the history through the
 * controller's "output"). */
static void
on_display (SpRunController *runs, SpOutputItem *item, SpWindow *self)
{
  g_autoptr (GPtrArray) items = NULL;

  if (sp_output_item_get_bytes (item) == NULL)
    return;
  items = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_add (items, g_object_ref (item));
  sp_page_add_images (self->page, items);
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
        return g_strdup_printf (_ ("Plot %u"), n);
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
          sp_output_item_set_size (item, file->size);
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
  sp_output_model_insert_timed (sp_run_controller_get_output (self->runs),
                                (SpOutputItem *const *) placed->pdata,
                                (const gint64 *) (gpointer) times->data, placed->len);
  /* Decoded by the sandboxed helper, never in the app, as each comes into
   * view; each row shows its picture, or why it cannot, when the helper
   * is done. */
  if (items->len > 0)
    sp_page_add_images (self->page, items);
}

/* The error, structured: its type and message first, its frames as links
 * to their lines, and the innermost line of the snippet marked, the caret
 * and the view left where the person is typing (SpErrorMark). The
 * runner's reading of it when it sent one; core's own parse of stderr
 * only as a fallback (a runner from before program_error). */
static void
add_error (SpWindow *self, SpRunResult *result)
{
  GFile *file = sp_document_get_file (self->document);
  g_autofree char *name = file ? g_file_get_basename (file) : NULL;
  const char *language = _sp_window_get_language (self);
  g_autofree char *fallback = _sp_window_file_name_for (self, "main");
  const char *snippet = name ? name : fallback;
  g_autoptr (SpErrorInfo) error = NULL;

  if (sp_run_result_get_error_info (result) != NULL)
    error = sp_error_info_ref (sp_run_result_get_error_info (result));
  else
    error = sp_error_info_parse (language, sp_run_controller_get_stderr (self->runs), snippet);
  g_autoptr (SpOutputItem) item = NULL;

  if (error == NULL)
    return;
  item = sp_output_item_new_error (error);
  sp_output_model_append_item (sp_run_controller_get_output (self->runs), item);
  if (sp_error_info_get_line (error) > 0)
    sp_error_mark_set_line (self->error_mark, sp_error_info_get_line (error));
}

static void
on_exited (SpRunController *runs, SpRunResult *result, SpWindow *self)
{
  g_autofree char *summary = sp_run_result_describe (result);

  sp_exec_panel_set_status (self->exec_panel, summary, !sp_run_result_succeeded (result));
  add_results (self, result);
  if (!sp_run_result_succeeded (result)
      && sp_run_result_get_cancelled (result) == SP_RUN_CANCEL_NONE)
    add_error (self, result);
}

static void
on_run_failed (SpRunController *runs, const char *message, SpWindow *self)
{
  sp_exec_panel_set_status (self->exec_panel, message, TRUE);
}

/* The runner died under the run: say so; the supervisor restarts it and
 * the next Run works. The text in the editor is untouched. */
static void
on_runner_lost (SpRunController *runs, SpWindow *self)
{
  sp_exec_panel_set_status (self->exec_panel,
                            _ ("The runner stopped unexpectedly; it is being restarted"), TRUE);
  self->runner_lost = TRUE;
}

static void guess_language (SpWindow *self, GFile *file);

static void
on_state_changed (SpRunnerSupervisor *sup, GParamSpec *pspec, SpWindow *self)
{
  SpRunnerState state = sp_runner_supervisor_get_state (sup);

  if (state == SP_RUNNER_STATE_READY && self->language_pending
      && sp_document_get_file (self->document) != NULL)
    guess_language (self, sp_document_get_file (self->document));
  /* "The runner stopped unexpectedly" was true until the new one came
   * up; after that it would only mislead. */
  if (state == SP_RUNNER_STATE_READY && self->runner_lost)
    {
      self->runner_lost = FALSE;
      sp_exec_panel_set_status (self->exec_panel, _ ("Idle: the runner was restarted"), FALSE);
    }
  _sp_window_update_actions (self);
}

static void on_declared_installing (SpDeclaredInstall *declared, guint n, SpWindow *self);
static void on_declared_finished (SpDeclaredInstall *declared, int outcome, SpWindow *self);

void
_sp_window_connect_runner (SpWindow *self)
{
  g_signal_connect_object (self->runs, "exited", G_CALLBACK (on_exited), self, 0);
  g_signal_connect_object (self->runs, "failed", G_CALLBACK (on_run_failed), self, 0);
  g_signal_connect_object (self->runs, "runner-lost", G_CALLBACK (on_runner_lost), self, 0);
  g_signal_connect_object (self->runs, "notify::running", G_CALLBACK (on_running_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::waiting", G_CALLBACK (on_waiting_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::compiling", G_CALLBACK (on_compiling_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "started", G_CALLBACK (on_run_started), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "notify::output", G_CALLBACK (on_output_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->runs, "display", G_CALLBACK (on_display), self, 0);
  g_signal_connect_object (self->error_mark, "notify::line", G_CALLBACK (_sp_window_update_actions),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->supervisor, "notify::state", G_CALLBACK (on_state_changed), self,
                           0);
  g_signal_connect_object (self->declared, "installing", G_CALLBACK (on_declared_installing), self,
                           0);
  g_signal_connect_object (self->declared, "finished", G_CALLBACK (on_declared_finished), self, 0);
  sp_policy_card_bind (sp_exec_panel_get_policy_card (self->exec_panel), self->supervisor,
                       self->runs, self->document, self->settings);
}

/* A saved file runs in its folder's environment (.venv or venv for
 * Python, node_modules for JavaScript, up to the workspace), an unsaved
 * buffer in the workspace's; read-only to the run. The runner checks it
 * again and refuses one not based on a system interpreter. */
static void
set_environment (SpWindow *self, SpRunRequest *request)
{
  g_autofree char *environment = sp_document_dup_environment (self->document);

  if (environment != NULL)
    sp_run_request_set_environment (request, environment);
}

static void run_now (SpWindow *self, const char *code);

/* ---- a Python snippet's declared dependencies (PEP 723) ---- */

/* The last run's output would read as this Run's: the panel shows only
 * what this one has to say (pip's words, or nothing). */
static void
show_declared_output (SpWindow *self, const char *text)
{
  g_autoptr (SpOutputModel) output = sp_output_model_new ();

  if (text != NULL && text[0] != '\0')
    {
      sp_output_model_append (output, SP_OUTPUT_STDERR, text);
      sp_output_model_append (output, SP_OUTPUT_STDERR, "\n");
      sp_output_model_flush (output);
    }
  sp_exec_panel_set_output (self->exec_panel, G_LIST_MODEL (output));
}

static void
on_declared_installing (SpDeclaredInstall *declared, guint n, SpWindow *self)
{
  g_autofree char *text = NULL;

  /* TRANSLATORS: %u is how many packages the script declares that its
   * environment lacks */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Installing %u declared package…",
                                       "Installing %u declared packages…", n),
                          n);
  sp_exec_panel_set_busy (self->exec_panel, text);
}

static void
on_declared_finished (SpDeclaredInstall *declared, int outcome, SpWindow *self)
{
  const char *reason = sp_declared_install_get_reason (declared);
  g_autofree char *text = NULL;

  _sp_window_update_actions (self);
  switch ((SpDeclaredOutcome) outcome)
    {
    case SP_DECLARED_NOTHING_TO_DO:
    case SP_DECLARED_INSTALLED:
      {
        g_autofree char *code = sp_declared_install_take_code (declared);
        run_now (self, code);
      }
      return;
    case SP_DECLARED_FAILED:
      sp_exec_panel_set_status (self->exec_panel, reason, TRUE);
      return;
    case SP_DECLARED_UNREADABLE:
      /* TRANSLATORS: %s is the runner's reason: the metadata's line, or the
       * Python version it requires */
      text = g_strdup_printf (_ ("Not run: %s"), reason);
      show_declared_output (self, NULL);
      break;
    case SP_DECLARED_REFUSED:
      /* TRANSLATORS: %s is why, as sandpad-run says it (it names the policy rule) */
      text = g_strdup_printf (_ ("Not run: its declared packages were not installed: %s"),
                              reason != NULL ? reason : _ ("the install failed"));
      show_declared_output (self, sp_declared_install_get_output (declared));
      break;
    case SP_DECLARED_NO_ENVIRONMENT:
      {
        const char *const *specs = sp_declared_install_get_specs (declared);
        g_autofree char *list = g_strjoinv (", ", (char **) specs);
        guint n = g_strv_length ((char **) specs);

        /* TRANSLATORS: %s lists the packages the script declares (PEP 723) */
        text = g_strdup_printf (
          g_dngettext (GETTEXT_PACKAGE,
                       "Not run: the script declares a package (%s), and no Python environment "
                       "is selected to install it into. Create one with Packages… in the menu "
                       "(beside the saved file), or open a folder that has one.",
                       "Not run: the script declares packages (%s), and no Python environment "
                       "is selected to install them into. Create one with Packages… in the menu "
                       "(beside the saved file), or open a folder that has one.",
                       n),
          list);
        /* The code is kept for Run Anyway. */
        show_declared_output (self, NULL);
        sp_exec_panel_set_status (self->exec_panel, text, TRUE);
        sp_exec_panel_set_status_action (self->exec_panel, _ ("Run _Anyway"), "win.run-anyway");
        gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.run-anyway", TRUE);
      }
      return;
    }
  sp_exec_panel_set_status (self->exec_panel, text, TRUE);
}

static void
run_anyway_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  g_autofree char *code = sp_declared_install_take_code (self->declared);

  gtk_widget_action_set_enabled (widget, "win.run-anyway", FALSE);
  sp_input_focus_run_started (self->input_focus);
  if (code != NULL && !sp_declared_install_get_busy (self->declared)
      && !sp_run_controller_get_running (self->runs))
    run_now (self, code);
}

static void
start_run (SpWindow *self, const char *code)
{
  const char *const *languages = sp_runner_supervisor_get_languages (self->supervisor);

  if (sp_run_controller_get_running (self->runs) || sp_declared_install_get_busy (self->declared))
    return;
  /* Keys typed from now on (while declared packages install too) are
   * typing in the editor that a wait for input must not take over. */
  sp_input_focus_run_started (self->input_focus);
  /* The dropdown offers what Sandpad knows; the runner says what this
   * system has (no node installed, say). */
  if (languages != NULL && !g_strv_contains (languages, _sp_window_get_language (self)))
    {
      g_autofree char *msg = g_strdup_printf (_ ("No interpreter for %s on this system"),
                                              _sp_window_get_language (self));
      sp_exec_panel_set_status (self->exec_panel, msg, TRUE);
      return;
    }
  /* A Python script's declared dependencies go in first. */
  if (g_strcmp0 (_sp_window_get_language (self), "python") == 0
      && sp_declared_install_start (self->declared, code))
    {
      sp_exec_panel_set_busy (self->exec_panel, _ ("Reading the script’s declared packages…"));
      _sp_window_update_actions (self);
      return;
    }
  run_now (self, code);
}

static void
run_now (SpWindow *self, const char *code)
{
  g_autoptr (SpRunRequest) request = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;

  if (sp_run_controller_get_running (self->runs))
    return;
  request = sp_run_request_new (_sp_window_get_language (self), code);
  if (sp_document_get_file (self->document) != NULL)
    {
      name = g_file_get_basename (sp_document_get_file (self->document));
      sp_run_request_set_name (request, name);
    }
  set_environment (self, request);
  sp_run_request_set_timeout_ms (request,
                                 g_settings_get_uint (self->settings, "run-timeout-seconds")
                                   * 1000);
  sp_run_request_set_memory_mib (request, g_settings_get_uint (self->settings, "memory-limit-mib"));
  sp_run_request_set_network (request, g_settings_get_boolean (self->settings, "network-allowed"));
  sp_run_request_set_output_limit (request,
                                   (gint64) g_settings_get_uint (self->settings, "output-limit-mib")
                                     * 1024 * 1024);
  sp_run_request_set_stdin_open (request, TRUE);

  sp_error_mark_clear (self->error_mark);
  /* The last run's images are not wanted any more. */
  sp_page_begin_run_images (self->page);
  if (!sp_run_controller_start (self->runs, request, &error))
    {
      sp_exec_panel_set_status (self->exec_panel, error->message, TRUE);
      return;
    }
  /* Error text names the snippet as the user knows it, with links. */
  {
    g_autofree char *run_name = name ? g_strdup (name) : _sp_window_file_name_for (self, "main");
    sp_exec_panel_set_snippet_names (self->exec_panel, run_name, name ? name : _ ("Untitled"));
  }
  {
    GFile *file = sp_document_get_file (self->document);
    g_autoptr (GFile) folder = file ? g_file_get_parent (file) : NULL;
    sp_exec_panel_set_save_folder (self->exec_panel, folder);
  }
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

static void
stop_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);

  if (sp_declared_install_stop (self->declared))
    {
      _sp_window_update_actions (self);
      sp_exec_panel_set_status (self->exec_panel,
                                _ ("Stopped: the script’s declared packages were not installed"),
                                TRUE);
    }
  else
    sp_run_controller_stop (self->runs);
}

static void
on_panel_input (SpExecPanel *panel, const char *line, SpWindow *self)
{
  sp_run_controller_send_input (self->runs, line);
}

static void
on_panel_goto_line (SpExecPanel *panel, int line, SpWindow *self)
{
  _sp_window_goto_line (self, line);
}

/* Ctrl+I: the keyboard to the input line, whether or not the program
 * waits yet (typing ahead is the person's choice). */
static void
focus_input_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);

  gtk_widget_grab_focus (GTK_WIDGET (sp_exec_panel_get_input_entry (self->exec_panel)));
}

/* Ctrl+E: to the line the last run failed on, as its traceback link. */
static void
goto_error_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_error_mark_jump (SP_WINDOW (widget)->error_mark);
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
      g_autofree char *msg = g_strdup_printf (_ ("Could not open the file: %s"), error->message);
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _sp_window_toast (self, msg);
      return;
    }
  contents = g_bytes_get_data (bytes, &len);
  if (!g_utf8_validate (contents, (gssize) len, NULL))
    {
      _sp_window_toast (self, _ ("The file is not UTF-8 text"));
      return;
    }
  other = SP_WINDOW (
    sp_app_context_new_window (self->context, gtk_window_get_application (GTK_WINDOW (self))));
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (other));
  len = sp_document_editor_length (contents, len);
  gtk_text_buffer_set_text (buffer, len > 0 ? contents : "", (int) len);
  gtk_text_buffer_set_modified (buffer, TRUE);
  /* Its bytes as they came, with what hides in them made visible. */
  sp_hidden_bar_check (other->hidden_bar);
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
  GListModel *output = sp_exec_panel_get_output (panel);

  /* Whichever model the panel shows: the window's run's, the declared
   * packages' install, an assistant's run. */
  if (output != NULL)
    sp_output_model_clear (SP_OUTPUT_MODEL (output));
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

/* The file's name as a person reads it, without asking the disk. */
static char *
file_display_name (GFile *file)
{
  g_autofree char *base = g_file_get_basename (file);

  return base != NULL ? g_filename_display_name (base) : g_file_get_parse_name (file);
}

/* A window made only to show a file that cannot be opened is never shown:
 * another of the app's windows says why, or a dialog does when there is
 * none. */
static void
refuse_elsewhere (SpWindow *self, const char *message)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  const char *heading;

  for (GList *l = app ? gtk_application_get_windows (app) : NULL; l != NULL; l = l->next)
    if (l->data != self && SP_IS_WINDOW (l->data) && gtk_widget_get_visible (l->data))
      {
        _sp_window_toast (l->data, message);
        return;
      }
  /* The file's name is in the message: a heading with a long name is
   * wider than the dialog measures it (a GTK warning with libadwaita
   * 1.7). */
  heading = _ ("Could Not Open File");
#if ADW_CHECK_VERSION(1, 5, 0)
  {
    /* No window to show it in: libadwaita gives it a window of its own,
     * which is not the application's, so the application is held while
     * it is up. (Its AdwMessageDialog measures such a heading too narrow,
     * a GTK warning, from 1.7.) */
    AdwDialog *dialog = adw_alert_dialog_new (heading, message);

    adw_alert_dialog_add_response (ADW_ALERT_DIALOG (dialog), "close", _ ("_Close"));
    if (app != NULL)
      {
        g_application_hold (G_APPLICATION (app));
        g_signal_connect_object (dialog, "closed", G_CALLBACK (g_application_release), app,
                                 G_CONNECT_SWAPPED);
      }
    adw_dialog_present (dialog, NULL);
  }
#else
  {
    AdwMessageDialog *dialog = ADW_MESSAGE_DIALOG (adw_message_dialog_new (NULL, heading, message));

    adw_message_dialog_add_response (dialog, "close", _ ("_Close"));
    if (app != NULL)
      gtk_window_set_application (GTK_WINDOW (dialog), app);
    gtk_window_present (GTK_WINDOW (dialog));
  }
#endif
}

static void
load_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GFile) file = NULL;
  g_autoptr (GBytes) contents = sp_document_load_finish (SP_DOCUMENT (object), result, &file,
                                                         &error);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GtkTextIter start;
  gsize len = 0;
  const char *data;

  if (contents == NULL)
    {
      g_autofree char *name = file_display_name (file);
      g_autofree char *msg = NULL;

      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA))
        msg = g_strdup_printf (_ ("Could not open “%s”: it is not UTF-8 text"), name);
      else
        msg = g_strdup_printf (_ ("Could not open “%s”: %s"), name, error->message);
      if (self->open_pending)
        {
          refuse_elsewhere (self, msg);
          gtk_window_destroy (GTK_WINDOW (self));
        }
      else
        _sp_window_toast (self, msg);
      return;
    }
  data = g_bytes_get_data (contents, &len);
  /* Its final line break is the buffer's implicit trailing newline. */
  len = sp_document_editor_length (data, len);
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, len > 0 ? data : "", (int) len);
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  /* A file an assistant or a run wrote may hide what its code does. */
  sp_hidden_bar_check (self->hidden_bar);
  gtk_text_buffer_set_modified (buffer, FALSE);
  guess_language (self, file);
  /* The editor holds the file's text: the document takes the file. */
  sp_document_set_file (self->document, file, contents);
  _sp_window_update_title (self);
  if (self->open_pending)
    {
      self->open_pending = FALSE;
      gtk_window_present (GTK_WINDOW (self));
    }
}

void
sp_window_load_file (SpWindow *self, GFile *file)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  sp_document_load_async (self->document, file, NULL, load_ready, g_object_ref (self));
}

void
sp_window_open_new_in (GtkApplication *app, SpAppContext *context, GFile *file)
{
  SpWindow *window;

  g_return_if_fail (GTK_IS_APPLICATION (app));
  g_return_if_fail (G_IS_FILE (file));

  window = SP_WINDOW (sp_app_context_new_window (context, app));
  window->open_pending = TRUE;
  sp_window_load_file (window, file);
}

static void
on_open_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;
  g_autoptr (GFile) file = sp_file_dialog_choose_finish (result, NULL);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));

  if (file == NULL)
    return;
  /* Unsaved text is never replaced: it opens in a new window. */
  if (gtk_text_buffer_get_modified (buffer) || sp_document_get_file (self->document) != NULL)
    sp_window_open_new_in (gtk_window_get_application (GTK_WINDOW (self)), self->context, file);
  else
    sp_window_load_file (self, file);
}

static void
open_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_file_dialog_choose_async (GTK_WINDOW (widget), SP_FILE_DIALOG_OPEN, _ ("Open Snippet"),
                               _ ("_Open"), NULL, NULL, NULL, on_open_chosen,
                               g_object_ref (widget));
}

/* Open Recent (SpRecentMenu fills the menu; each item's target is the
 * file's URI). */
static void
open_recent_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  g_autoptr (GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));

  /* As Open: unsaved text or another file is never replaced. */
  if (sp_document_get_file (self->document) != NULL || gtk_text_buffer_get_modified (buffer)
      || gtk_text_buffer_get_char_count (buffer) > 0)
    sp_window_open_new_in (gtk_window_get_application (GTK_WINDOW (self)), self->context, file);
  else
    sp_window_load_file (self, file);
}

/* "No Recent Files": the window keeps it disabled, so it shows greyed out. */
static void
no_recent_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
}

static void
new_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *other = SP_WINDOW (
    sp_app_context_new_window (SP_WINDOW (widget)->context,
                               gtk_window_get_application (GTK_WINDOW (widget))));
  gtk_window_present (GTK_WINDOW (other));
}

/* ---- Open Folder, Packages ---- */

/* The workspace bounds the search for an environment: from the file's
 * folder up to it; an unsaved buffer uses the workspace's own (SpDocument
 * finds it). */
static void
on_folder_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpWindow) self = user_data;
  g_autoptr (GFile) folder = sp_file_dialog_choose_finish (result, NULL);
  g_autofree char *path = folder != NULL ? g_file_get_path (folder) : NULL;

  if (path != NULL)
    {
      /* TRANSLATORS: %s is the folder just opened */
      g_autofree char *message = g_strdup_printf (_ ("Workspace: %s"), path);
      sp_window_set_workspace (self, path);
      _sp_window_toast (self, message);
    }
}

static void
open_folder_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_file_dialog_choose_async (GTK_WINDOW (widget), SP_FILE_DIALOG_FOLDER, _ ("Open Folder"),
                               _ ("_Open"), NULL, NULL, NULL, on_folder_chosen,
                               g_object_ref (widget));
}

static void
packages_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_window_show_packages (SP_WINDOW (widget));
}

void
_sp_window_install_actions (GtkWidgetClass *widget_class)
{
  gtk_widget_class_install_action (widget_class, "win.run", NULL, run_action);
  gtk_widget_class_install_action (widget_class, "win.run-selection", NULL, run_selection_action);
  gtk_widget_class_install_action (widget_class, "win.stop", NULL, stop_action);
  gtk_widget_class_install_action (widget_class, "win.focus-input", NULL, focus_input_action);
  gtk_widget_class_install_action (widget_class, "win.goto-error", NULL, goto_error_action);
  gtk_widget_class_install_action (widget_class, "win.run-anyway", NULL, run_anyway_action);
  gtk_widget_class_install_action (widget_class, "win.new", NULL, new_action);
  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.no-recent", NULL, no_recent_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.packages", NULL, packages_action);
}

void
_sp_window_connect_panel (SpWindow *self)
{
  g_signal_connect_object (self->exec_panel, "input", G_CALLBACK (on_panel_input), self, 0);
  g_signal_connect_object (self->exec_panel, "clear", G_CALLBACK (on_panel_clear), self, 0);
  g_signal_connect_object (self->exec_panel, "goto-line", G_CALLBACK (on_panel_goto_line), self, 0);
  g_signal_connect_object (self->exec_panel, "open-file", G_CALLBACK (on_panel_open_file), self, 0);
}

void
sp_window_set_workspace (SpWindow *self, const char *folder)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  sp_document_set_workspace (self->document, folder);
}

SpPackagesDialog *
sp_window_show_packages (SpWindow *self)
{
  SpPackagesDialog *dialog;

  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  dialog = sp_packages_dialog_new_for_document (GTK_WINDOW (self), self->settings, self->document);
  gtk_window_present (GTK_WINDOW (dialog));
  return dialog;
}
