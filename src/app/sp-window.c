/* sp-window.c: a window: the editor beside the execution panel.
 *
 * This file holds the type: the layout, the editor's language and style,
 * the title and closing, the run keys' guard, Keep State Between Runs, the
 * run history shown (SpRunRecorder's comparison in the status line, one
 * SpHistoryWindow at a time), sp-window.h's accessors, and the helpers
 * the sp-window-*.c files share (sp-window-private.h); running and files
 * are in sp-window-actions.c, Save and the unsaved text's copy in
 * sp-window-save.c. Changes on disk are SpFileChangeBar's; here a rename
 * is said, Run on Change's action shown and the recent files kept; an assistant's
 * runs of the file are followed here (shown by SpExecPanel, kept by
 * SpRunRecorder), and the Assistant Activity window opened. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-activity-follow.h"
#include "sp-activity-window.h"
#include "sp-alert.h"
#include "sp-app-session.h"
#include "sp-focus-walk.h"
#include "sp-window-private.h"

G_DEFINE_FINAL_TYPE (SpWindow, sp_window, ADW_TYPE_APPLICATION_WINDOW)

/* The source style follows the light or dark appearance. */
static void
update_style_scheme (SpWindow *self)
{
  GtkSourceStyleSchemeManager *manager = gtk_source_style_scheme_manager_get_default ();
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  GtkSourceStyleScheme *scheme
    = gtk_source_style_scheme_manager_get_scheme (manager, dark ? "Adwaita-dark" : "Adwaita");

  gtk_source_buffer_set_style_scheme (sp_window_get_buffer (self), scheme);
}

static void
update_font (SpWindow *self)
{
  g_autofree char *font = g_settings_get_string (self->settings, "editor-font");
  g_autoptr (PangoFontDescription) desc = pango_font_description_from_string (font);
  g_autofree char *css = NULL;
  const char *family = pango_font_description_get_family (desc);
  int size = pango_font_description_get_size (desc) / PANGO_SCALE;

  css = g_strdup_printf ("textview { font-family: \"%s\"; font-size: %dpt; }",
                         family ? family : "Monospace", size > 0 ? size : 11);
  gtk_css_provider_load_from_data (self->font_css, css, -1);
}

/* The document's view of the text: the file's, the buffer's with its
 * implicit trailing newline (sp_document_text_for_file()). */
static char *
document_text (gpointer self)
{
  g_autofree char *text = _sp_window_get_text (self);

  return sp_document_text_for_file (text);
}

static gboolean
close_idle (gpointer data)
{
  gtk_window_close (GTK_WINDOW (data));
  return G_SOURCE_REMOVE;
}

static void
on_close_response (SpAlert *dialog, const char *response, SpWindow *self)
{
  if (g_str_equal (response, "discard"))
    {
      self->close_confirmed = TRUE;
      /* Once the dialog is done with its response: closing the window
       * inside it finalizes the dialog's parent under it. */
      g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, close_idle, g_object_ref (self), g_object_unref);
    }
  else if (g_str_equal (response, "save"))
    _sp_window_save (self, sp_document_get_file (self->document), TRUE);
}

static gboolean
sp_window_close_request (GtkWindow *window)
{
  SpWindow *self = SP_WINDOW (window);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  SpAlert *dialog;

  if (!self->close_confirmed && gtk_text_buffer_get_modified (buffer))
    {
      dialog = sp_alert_new (
        window, _ ("Save Changes?"),
        _ ("The snippet has unsaved changes. Changes that are not saved are lost."));
      sp_alert (add_responses) (dialog, "cancel", _ ("_Cancel"), "discard", _ ("_Discard"), "save",
                                _ ("_Save"), NULL);
      sp_alert (set_response_appearance) (dialog, "discard", ADW_RESPONSE_DESTRUCTIVE);
      sp_alert (set_response_appearance) (dialog, "save", ADW_RESPONSE_SUGGESTED);
      sp_alert (set_default_response) (dialog, "save");
      sp_alert (set_close_response) (dialog, "cancel");
      g_signal_connect_object (dialog, "response", G_CALLBACK (on_close_response), self, 0);
      sp_alert_present (dialog, window);
      return TRUE;
    }

  /* Nobody is left to watch a run of this window. */
  sp_run_controller_stop (self->runs);
  sp_run_controller_release (self->runs);
  if (!gtk_window_is_maximized (window))
    {
      int width, height;
      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_int (self->settings, "window-width", width);
      g_settings_set_int (self->settings, "window-height", height);
    }
  g_settings_set_boolean (self->settings, "window-maximized", gtk_window_is_maximized (window));
  return GTK_WINDOW_CLASS (sp_window_parent_class)->close_request (window);
}

/* The run shortcuts never edit the text. Ctrl+Return and
 * Ctrl+Shift+Return are application accelerators, which the window
 * handles before the editor sees the key. But an accelerator whose action
 * is disabled (a run is going, the runner is not ready) lets the key
 * through, and the editor then inserted a newline into the code. A
 * capture-phase key controller on the editor catches what got that far:
 * it is never text. While a run is going the keys do nothing but say why
 * (Stop is Ctrl+Period); a run is never stopped by a key meant to start
 * one. */
static gboolean
is_run_key (guint keyval, GdkModifierType state)
{
  GdkModifierType mods = state & gtk_accelerator_get_default_mod_mask ();

  if ((mods & ~GDK_SHIFT_MASK) != GDK_CONTROL_MASK)
    return FALSE;
  return keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter;
}

static void
on_toast_dismissed (AdwToast *toast, SpWindow *self)
{
  if (self->busy_toast == toast)
    self->busy_toast = NULL;
}

/* One toast at a time, however often the key is pressed. */
static void
say_why (SpWindow *self)
{
  const char *why = sp_run_controller_get_running (self->runs)
                      ? _ ("A program is running: stop it first with Ctrl+Period")
                      : _ ("Runs are unavailable until the sandboxed runner is ready");

  if (self->busy_toast != NULL)
    return;
  self->busy_toast = adw_toast_new (why);
  g_signal_connect_object (self->busy_toast, "dismissed", G_CALLBACK (on_toast_dismissed), self, 0);
  adw_toast_overlay_add_toast (self->toast_overlay, self->busy_toast);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, SpWindow *self)
{
  if (!is_run_key (keyval, state))
    return GDK_EVENT_PROPAGATE;
  /* Reached the editor: the accelerator did not run (its action is
   * disabled), or it is the keypad's Enter. Run if allowed, never type. */
  if (sp_run_controller_get_running (self->runs)
      || !sp_runner_supervisor_is_ready (self->supervisor))
    say_why (self);
  else
    gtk_widget_activate_action (GTK_WIDGET (self),
                                (state & GDK_SHIFT_MASK) ? "win.run-selection" : "win.run", NULL);
  return GDK_EVENT_STOP;
}

static void
guard_run_keys (SpWindow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();

  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (on_key_pressed), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->source_view), keys);
}

/* "Keep state between runs", the window's side. The window's
 * SpRunController keeps the session (its Python runs share one runner
 * interpreter while the toggle is on); here are the stateful
 * win.keep-state action, Restart, and what the window says about them.
 * The toggle belongs to the window: each has its own, off when it opens,
 * and its own session. */
static void
keep_state_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  SpWindow *self = data;
  GAction *restart = g_action_map_lookup_action (G_ACTION_MAP (self), "restart-session");
  gboolean keep = g_variant_get_boolean (value);

  g_simple_action_set_state (action, value);
  sp_run_controller_set_keep_state (self->runs, keep);
  g_simple_action_set_enabled (G_SIMPLE_ACTION (restart), keep);
  gtk_widget_set_visible (self->restart_button, keep);
}

static void
restart_activated (GSimpleAction *action, GVariant *param, gpointer data)
{
  SpWindow *self = data;

  sp_run_controller_restart_session (self->runs);
  sp_exec_panel_set_status (self->exec_panel,
                            _ ("Session restarted: the next run starts with nothing defined"),
                            FALSE);
}

static void
on_session_ended (SpRunController *runs, const char *why, SpWindow *self)
{
  /* TRANSLATORS: %s says why (exited, timeout, limit, ...) */
  g_autofree char *status
    = g_strdup_printf (_ ("The session ended (%s): the next run starts with nothing defined"), why);

  sp_exec_panel_set_status (self->exec_panel, status, TRUE);
}

static void
session_init (SpWindow *self)
{
  g_autoptr (GSimpleAction) keep = NULL;
  g_autoptr (GSimpleAction) restart = NULL;

  keep = g_simple_action_new_stateful ("keep-state", NULL, g_variant_new_boolean (FALSE));
  g_signal_connect_object (keep, "change-state", G_CALLBACK (keep_state_changed), self, 0);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (keep));
  restart = g_simple_action_new ("restart-session", NULL);
  g_simple_action_set_enabled (restart, FALSE);
  g_signal_connect_object (restart, "activate", G_CALLBACK (restart_activated), self, 0);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (restart));
  /* After the window's "exited": the session's word is the status's last. */
  g_signal_connect_object (self->runs, "session-ended", G_CALLBACK (on_session_ended), self, 0);
}

/* ---- the run history: SpRunRecorder keeps each run of the window's
 * controller under the document's key (and each assistant's
 * edit_and_execute of its file that the window saw end, told by its
 * SpActivityFollow); the window shows the comparison with the run
 * before in the status line, and SpHistoryWindow the list ---- */

/* Its comparison with the one before, made in a worker thread: the status
 * line the window set (the result's summary) gets it after it. */
static void
on_compared (SpRunRecorder *recorder, SpRunRecord *record, const char *comparison, SpWindow *self)
{
  g_autofree char *status = NULL;

  /* An assistant's run: only while the panel shows it, worded as
   * SpExecPanel words its status line. */
  if (record->tool != NULL)
    {
      if (!sp_exec_panel_shows_activity (self->exec_panel))
        return;
      /* TRANSLATORS: how an assistant's run ended (the comparison
       * with the run before follows it) */
      status = g_strdup_printf (_ ("Run by an assistant: %s"), record->end);
    }
  else
    status = g_strdup (record->end);
  sp_exec_panel_set_status_detail (self->exec_panel, status, comparison, !record->succeeded);
}

/* The run itself is shown as always; only its keeping failed. */
static void
on_record_failed (SpRunRecorder *recorder, SpRunRecord *record, const char *message, SpWindow *self)
{
  g_autofree char *msg = g_strdup_printf (_ ("This run could not be kept in the history: %s"),
                                          message);

  _sp_window_toast (self, msg);
}

/* After the window's own "exited" handler: the comparison goes after the
 * status line that handler set. */
static void
history_init (SpWindow *self)
{
  g_autoptr (SpRunHistory) store
    = sp_run_history_new (NULL, (gint64) g_settings_get_uint (self->settings, "run-history-max-mib")
                                  * 1024 * 1024);

  self->recorder = sp_run_recorder_new (self->runs, self->document, store);
  g_signal_connect_object (self->recorder, "compared", G_CALLBACK (on_compared), self, 0);
  g_signal_connect_object (self->recorder, "failed", G_CALLBACK (on_record_failed), self, 0);
}

static void
on_restore_code (SpHistoryWindow *window, const char *code, const char *language, SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GtkTextIter start, end;

  /* One user action: a single Undo brings back the text it replaced. */
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_insert (buffer, &start, code, -1);
  gtk_text_buffer_end_user_action (buffer);
  if (language != NULL && *language != '\0')
    _sp_window_set_language (self, language);
  _sp_window_toast (self, _ ("The run's code is back in the editor; Undo takes it back"));
}

static void
open_history (SpWindow *self, gboolean changes)
{
  /* One at a time, and up to date: a new list (the file may have another
   * name since), which runs that end are added to while it is open. */
  if (self->history_window != NULL)
    gtk_window_destroy (GTK_WINDOW (self->history_window));
  self->history_window = sp_history_window_new_for_recorder (GTK_WINDOW (self), self->recorder);
  g_object_add_weak_pointer (G_OBJECT (self->history_window), (gpointer *) &self->history_window);
  g_signal_connect_object (self->history_window, "restore-code", G_CALLBACK (on_restore_code), self,
                           0);
  if (changes)
    sp_history_window_show_changes (self->history_window);
  gtk_window_present (GTK_WINDOW (self->history_window));
}

static void
history_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  open_history (SP_WINDOW (widget), FALSE);
}

static void
compare_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  open_history (SP_WINDOW (widget), TRUE);
}

/* ---- assistants: what they run, seen from a window. One SpActivityModel
 * per application follows sandpad-mcp's live journal for as long as the
 * app runs; Assistant Activity (win.activity) shows it in one window per
 * application. When an assistant's edit_and_execute runs the file this
 * window has open, the panel shows the run as it goes (SpExecPanel, over
 * an SpActivityFollow; the file watch, elsewhere, reloads the text), and
 * once it ends it is kept in the file's run history. ---- */

#define ACTIVITY_WINDOW_KEY "sp-activity-window"

static void
on_assistant_run_changed (SpActivityFollow *follow, SpActivityRun *run, SpWindow *self)
{
  /* Ended: kept in the file's history, as the window's own runs are. */
  if (!sp_activity_run_is_running (run) && self->recorder != NULL)
    sp_run_recorder_keep_assistant_run (self->recorder, run);
}

/* After history_init: the recorder keeps a run before the panel shows it. */
static void
activity_init (SpWindow *self)
{
  g_autoptr (SpActivityFollow) follow = sp_activity_follow_new (_sp_window_activity_model (self),
                                                                self->document);

  g_signal_connect_object (follow, "run-changed", G_CALLBACK (on_assistant_run_changed), self, 0);
  sp_exec_panel_follow_activity (self->exec_panel, follow, self->runs);
}

static void
forget_activity_window (GtkWindow *window, GtkApplication *app)
{
  if (g_object_get_data (G_OBJECT (app), ACTIVITY_WINDOW_KEY) == window)
    g_object_set_data (G_OBJECT (app), ACTIVITY_WINDOW_KEY, NULL);
}

static void
activity_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  SpWindow *self = SP_WINDOW (widget);
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  GtkWindow *window = g_object_get_data (G_OBJECT (app), ACTIVITY_WINDOW_KEY);

  if (window == NULL)
    {
      window = GTK_WINDOW (sp_activity_window_new (app, _sp_window_activity_model (self)));
      /* One per application; forgotten when it closes. */
      g_object_set_data (G_OBJECT (app), ACTIVITY_WINDOW_KEY, window);
      g_signal_connect_object (window, "destroy", G_CALLBACK (forget_activity_window), app, 0);
    }
  gtk_window_present (window);
}

/* ---- the file on disk: what a change is is SpDocument's, what it shows
 * SpFileChangeBar's (reloaded, tinted, the bar, Compare); here a rename
 * is said, the file added to the recent ones, and Run on Change's action
 * shown over self->run_on_change (SpRunOnChange decides when to run) ---- */

static void
on_run_on_change (GSimpleAction *action, GVariant *state, gpointer user_data)
{
  SpWindow *self = user_data;

  sp_run_on_change_set_active (self->run_on_change, g_variant_get_boolean (state));
}

static void
on_run_on_change_active (SpWindow *self)
{
  GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self), "run-on-change");

  g_simple_action_set_state (G_SIMPLE_ACTION (action),
                             g_variant_new_boolean (
                               sp_run_on_change_get_active (self->run_on_change)));
}

static void
on_rerun (SpWindow *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.run", NULL);
}

/* The file's new text is in the editor (SpFileChangeBar reloaded it). */
static void
on_file_reloaded (SpWindow *self)
{
  /* An assistant's edit may hide what the code does. */
  sp_hidden_bar_check (self->hidden_bar);
  _sp_window_update_title (self);
  sp_run_on_change_disk_changed (self->run_on_change);
}

/* The file is among the recent ones, and the session knows the window
 * shows it now. */
static void
add_recent (SpWindow *self)
{
  g_autofree char *uri = g_file_get_uri (sp_document_get_file (self->document));

  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
  sp_app_context_session_changed (self->context);
}

static void
on_disk_changed (SpDocument *document, int change, GBytes *contents, SpWindow *self)
{
  g_autofree char *name = NULL;
  g_autofree char *message = NULL;

  /* The rest is SpFileChangeBar's. */
  if (change != SP_DOCUMENT_DISK_RENAMED)
    return;
  name = sp_document_dup_display_name (self->document);
  message = g_strdup_printf (_ ("The file was renamed to “%s”"), name);
  _sp_window_update_title (self);
  _sp_window_toast (self, message);
  add_recent (self);
}

static void
file_init (SpWindow *self)
{
  g_autoptr (GSimpleAction) run_on_change
    = g_simple_action_new_stateful ("run-on-change", NULL, g_variant_new_boolean (FALSE));

  /* Made first: it hears the document's "loaded" and "saved" before the
   * bar and the window's handlers below do. */
  self->run_on_change = sp_run_on_change_new (self->document, self->runs,
                                              _sp_window_activity_model (self), self->settings);
  g_signal_connect_object (self->run_on_change, "notify::active",
                           G_CALLBACK (on_run_on_change_active), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run_on_change, "run", G_CALLBACK (on_rerun), self,
                           G_CONNECT_SWAPPED);
  sp_file_change_bar_bind (self->file_bar, self->document, self->source_view);
  g_signal_connect_object (self->file_bar, "reloaded", G_CALLBACK (on_file_reloaded), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "disk-changed", G_CALLBACK (on_disk_changed), self, 0);
  g_signal_connect_object (self->document, "loaded", G_CALLBACK (add_recent), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "saved", G_CALLBACK (add_recent), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect (run_on_change, "change-state", G_CALLBACK (on_run_on_change), self);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (run_on_change));
  self->recent = sp_recent_menu_new (self->recent_menu, gtk_recent_manager_get_default ());
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.no-recent", FALSE);
}

static void
sp_window_dispose (GObject *object)
{
  SpWindow *self = SP_WINDOW (object);

  /* Before the template goes: both look at the buffer. */
  _sp_window_autosave_dispose (self);
  /* Its install ends with the window (its callbacks hold it). */
  if (self->declared != NULL)
    sp_declared_install_stop (self->declared);
  g_clear_object (&self->declared);
  g_clear_object (&self->run_on_change);
  /* Both hold the editor; the mark leaves its buffer. */
  g_clear_object (&self->error_mark);
  g_clear_object (&self->input_focus);
  if (self->font_css != NULL)
    gtk_style_context_remove_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                                   GTK_STYLE_PROVIDER (self->font_css));
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_WINDOW);
  g_clear_object (&self->font_css);
  g_clear_object (&self->settings);
  g_clear_object (&self->supervisor);
  g_clear_object (&self->context);
  g_clear_object (&self->runs);
  g_clear_object (&self->recent);
  g_clear_object (&self->recorder);
  if (self->history_window != NULL)
    g_object_remove_weak_pointer (G_OBJECT (self->history_window),
                                  (gpointer *) &self->history_window);
  g_clear_object (&self->document);
  G_OBJECT_CLASS (sp_window_parent_class)->dispose (object);
}

static void
sp_window_class_init (SpWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = sp_window_dispose;
  window_class->close_request = sp_window_close_request;

  g_type_ensure (SP_TYPE_RUNNER_BANNER);
  g_type_ensure (SP_TYPE_PAGE);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SpWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, language_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, run_button);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, restart_button);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, runner_banner);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, page);
  gtk_widget_class_bind_template_child (widget_class, SpWindow, recent_menu);
  _sp_window_install_actions (widget_class);
  _sp_window_install_save_actions (widget_class);
  gtk_widget_class_install_action (widget_class, "win.history", NULL, history_action);
  gtk_widget_class_install_action (widget_class, "win.compare-runs", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.activity", NULL, activity_action);
}

#if ADW_CHECK_VERSION(1, 4, 0)
/* The narrowest window whose stacked layout fits: the header bar's buttons
 * need about 450 px (Debian 12 measures 451x384 for the content). With a
 * breakpoint the window no longer takes its minimum size from the content,
 * so it is said here. */
#define MIN_WIDTH 480
#define MIN_HEIGHT 400

/* libadwaita 1.4 and later: the window's breakpoint stacks the editor above
 * the panel, between frames, where the split would do it itself one frame
 * late (libadwaita 1.2: SpSplit's threshold). Same width as the split's. */
static void
use_breakpoint (SpWindow *self)
{
  g_autofree char *condition = g_strdup_printf ("max-width: %dpx", SP_SPLIT_STACK_BELOW - 1);
  AdwBreakpoint *narrow = adw_breakpoint_new (adw_breakpoint_condition_parse (condition));

  sp_split_set_threshold (self->split, 0);
  adw_breakpoint_add_setters (narrow, G_OBJECT (self->split), "stacked", TRUE, NULL);
  adw_application_window_add_breakpoint (ADW_APPLICATION_WINDOW (self), narrow);
  gtk_widget_set_size_request (GTK_WIDGET (self), MIN_WIDTH, MIN_HEIGHT);
}
#endif

static void
sp_window_init (SpWindow *self)
{
  g_autoptr (GtkStringList) languages = NULL;

  gtk_widget_init_template (GTK_WIDGET (self));
  /* The page's widgets, which the window still drives (sp-page.h). */
  self->split = sp_page_get_split (self->page);
  self->source_view = sp_page_get_source_view (self->page);
  self->exec_panel = sp_page_get_exec_panel (self->page);
  self->file_bar = sp_page_get_file_bar (self->page);
  self->autosave_bar = sp_page_get_autosave_bar (self->page);
  self->hidden_bar = sp_page_get_hidden_bar (self->page);
  _sp_window_connect_panel (self);
#if ADW_CHECK_VERSION(1, 4, 0)
  use_breakpoint (self);
#endif
  languages = gtk_string_list_new (
    (const char *[]){ _ ("Python"), _ ("JavaScript"), _ ("Bash"), _ ("C"), _ ("C++"), _ ("Rust"),
                      _ ("Go"), _ ("TypeScript"), _ ("Ruby"), _ ("R"), _ ("Java"), NULL });
  gtk_drop_down_set_model (self->language_dropdown, G_LIST_MODEL (languages));
  self->font_css = gtk_css_provider_new ();
  gtk_style_context_add_provider_for_display (gtk_widget_get_display (GTK_WIDGET (self)),
                                              GTK_STYLE_PROVIDER (self->font_css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}

SpWindow *
sp_window_new_in (GtkApplication *app, SpAppContext *context)
{
  SpWindow *self;
  GtkSourceBuffer *buffer;
  g_autofree char *language = NULL;

  g_return_val_if_fail (GTK_IS_APPLICATION (app), NULL);
  g_return_val_if_fail (SP_IS_APP_CONTEXT (context), NULL);

  self = g_object_new (SP_TYPE_WINDOW, "application", app, NULL);
  self->context = g_object_ref (context);
  {
    /* The copy's folder; NULL when another process owns it. */
    SpStateLock *lock = sp_app_context_get_state_lock (context);
    g_autofree char *autosave_dir = lock != NULL ? sp_state_lock_dup_autosave_dir (lock) : NULL;

    self->document = sp_document_new (autosave_dir);
    sp_document_set_text_func (self->document, document_text, self);
  }
  self->settings = g_object_ref (sp_app_context_get_settings (context));
  self->supervisor = g_object_ref (sp_app_context_get_supervisor (context));
  self->runs = sp_run_controller_new (self->supervisor);
  self->declared = sp_declared_install_new (self->document, self->settings);

  gtk_window_set_default_size (GTK_WINDOW (self),
                               g_settings_get_int (self->settings, "window-width"),
                               g_settings_get_int (self->settings, "window-height"));
  if (g_settings_get_boolean (self->settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
  /* A proportion, not pixels: a narrow window once must not leave a
   * sliver of an editor at the next start. */
  g_settings_bind (self->settings, "panel-fraction", self->split, "fraction",
                   G_SETTINGS_BIND_DEFAULT);
  g_signal_connect_object (self->settings, "changed::editor-font", G_CALLBACK (update_font), self,
                           G_CONNECT_SWAPPED);
  update_font (self);

  buffer = sp_window_get_buffer (self);
  g_signal_connect_object (buffer, "modified-changed", G_CALLBACK (_sp_window_update_title), self,
                           G_CONNECT_SWAPPED);
  self->error_mark = sp_error_mark_new (self->source_view);
  self->input_focus
    = sp_input_focus_new (GTK_WIDGET (self->source_view),
                          GTK_WIDGET (sp_exec_panel_get_input_entry (self->exec_panel)));
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_style_scheme), self, G_CONNECT_SWAPPED);
  update_style_scheme (self);

  g_signal_connect_object (self->language_dropdown, "notify::selected",
                           G_CALLBACK (_sp_window_language_changed), self, G_CONNECT_SWAPPED);
  language = g_settings_get_string (self->settings, "last-language");
  _sp_window_set_language (self, language);
  _sp_window_language_changed (self);

  session_init (self);
  _sp_window_connect_runner (self);
  history_init (self);
  sp_runner_banner_set_supervisor (self->runner_banner, self->supervisor);
  /* A new window is a new attempt: someone who closed the failed window
   * and opened another expects it to work now. */
  sp_runner_banner_retry (self->runner_banner);
  activity_init (self);
  guard_run_keys (self);
  /* Tab reaches every control of the panel, Escape comes back here. */
  sp_focus_walk_attach (GTK_WIDGET (self->exec_panel), GTK_WIDGET (self->source_view));
  _sp_window_update_title (self);
  _sp_window_update_actions (self);
  file_init (self);
  _sp_window_autosave_init (self);
  gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
  return self;
}

GtkWidget *
sp_window_get_exec_panel (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return GTK_WIDGET (self->exec_panel);
}

SpHiddenBar *
sp_window_get_hidden_bar (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->hidden_bar;
}

gboolean
sp_window_get_running (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), FALSE);
  return sp_run_controller_get_running (self->runs);
}

const char *
sp_window_get_workspace (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return sp_document_get_workspace (self->document);
}

SpAppContext *
sp_window_get_context (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->context;
}

GFile *
sp_window_get_file (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return sp_document_get_file (self->document);
}

const char *
sp_window_get_autosave_id (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return sp_document_get_autosave_id (self->document);
}

const char *
sp_window_get_language_name (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return _sp_window_get_language (self);
}

double
sp_window_get_panel_fraction (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), 0);
  return sp_split_get_fraction (self->split);
}

void
sp_window_set_panel_fraction (SpWindow *self, double fraction)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  if (fraction > 0)
    sp_split_set_fraction (self->split, fraction);
}

SpReloadBar *
sp_window_get_file_bar (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return sp_file_change_bar_get_reload_bar (self->file_bar);
}

SpReloadBar *
sp_window_get_notice_bar (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->notice_bar;
}

SpReloadBar *
sp_window_get_autosave_bar (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->autosave_bar;
}

gboolean
sp_window_get_run_on_change (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), FALSE);
  return self->run_on_change != NULL && sp_run_on_change_get_active (self->run_on_change);
}

GMenuModel *
sp_window_get_recent_menu (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return G_MENU_MODEL (self->recent_menu);
}
