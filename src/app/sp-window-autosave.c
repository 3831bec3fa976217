/* sp-window-autosave.c: a copy of the window's unsaved text, kept in the
 * state folder a moment after typing stops and when the window loses the
 * focus, so a crash or a kill loses nothing (sp-autosave.c writes it
 * atomically). Saving, or closing with Discard, removes the copy; a copy
 * that is left is restored at the next start (sp-app-session.c). A write
 * that fails, a full disk say, is said in the window: the text itself is
 * still in the editor and nothing is removed. When another process owns
 * the state folder (sp-application.c), the window neither writes nor
 * removes a copy, and says so once it has unsaved text. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-autosave.h"
#include "sp-window-private.h"
#include "sp-window-restore.h"

/* A moment after the last key: long enough not to write on every key,
 * short enough that a crash costs nothing noticeable. */
#define AUTOSAVE_DELAY_MS 1000

static gboolean
is_modified (SpWindow *self)
{
  return gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (self)));
}

void
_sp_window_autosave_forget (SpWindow *self)
{
  g_autoptr (GError) error = NULL;

  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  if (self->autosave_id != NULL && self->autosave_dir != NULL
      && !sp_autosave_remove (self->autosave_dir, self->autosave_id, &error))
    g_message ("cannot remove the autosave copy: %s", error->message);
  if (self->autosave_failed)
    {
      self->autosave_failed = FALSE;
      if (g_strcmp0 (sp_reload_bar_get_kind (self->autosave_bar), "autosave-failed") == 0)
        sp_reload_bar_hide (self->autosave_bar);
    }
}

/* Another process owns the autosave folder: say once, when there is
 * first something to lose, that this window's text is not kept. */
static void
show_not_kept (SpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  const char *why
    = SP_IS_APPLICATION (app) ? sp_application_get_state_problem (SP_APPLICATION (app)) : NULL;
  g_autofree char *message = NULL;

  if (self->autosave_off_said || app == NULL)
    return;
  self->autosave_off_said = TRUE;
  /* TRANSLATORS: %s says which process has the folder */
  message = g_strdup_printf (_("Unsaved text in this window is not kept after a crash: %s. "
                               "Save it to keep it."),
                             why != NULL ? why : _("another Sandpad has the autosave folder"));
  sp_reload_bar_show (self->autosave_bar, "autosave-off", message, TRUE);
  sp_reload_bar_add_button (self->autosave_bar, "save-as", _("Save _As…"), NULL);
}

void
_sp_window_autosave_now (SpWindow *self)
{
  const char *dir = self->autosave_dir;
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  SpAutosaveEntry entry = { 0 };

  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  if (!is_modified (self))
    {
      _sp_window_autosave_forget (self);
      return;
    }
  if (dir == NULL)
    {
      show_not_kept (self);
      return;
    }
  if (self->file == NULL && self->autosave_title == NULL)
    {
      /* "Untitled 2": the window's place among the app's windows. */
      GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
      GList *windows = app != NULL ? gtk_application_get_windows (app) : NULL;
      self->autosave_title = g_strdup_printf (_("Untitled %u"), g_list_length (windows)
                                                                  - (guint) MAX (
                                                                    g_list_index (windows, self),
                                                                    0));
    }
  text = _sp_window_get_text (self);
  path = self->file != NULL ? g_file_get_path (self->file) : NULL;
  entry.id = self->autosave_id;
  entry.path = path;
  entry.title = self->autosave_title;
  entry.language = (char *) _sp_window_get_language (self);
  entry.time = g_get_real_time () / G_USEC_PER_SEC;
  entry.text = text;
  entry.length = strlen (text);
  if (!sp_autosave_write (dir, &entry, &error))
    {
      g_autofree char *message = g_strdup_printf (
        _("Could not keep a copy of the unsaved text: %s. The text is still here; save it to "
          "keep it."),
        error->message);
      g_message ("autosave: %s", error->message);
      self->autosave_failed = TRUE;
      sp_reload_bar_show (self->autosave_bar, "autosave-failed", message, TRUE);
      sp_reload_bar_add_button (self->autosave_bar, "save-as", _("Save _As…"), NULL);
      return;
    }
  if (self->autosave_failed)
    {
      self->autosave_failed = FALSE;
      if (g_strcmp0 (sp_reload_bar_get_kind (self->autosave_bar), "autosave-failed") == 0)
        sp_reload_bar_hide (self->autosave_bar);
    }
}

static gboolean
autosave_timeout (gpointer data)
{
  SpWindow *self = data;

  self->autosave_timer = 0;
  _sp_window_autosave_now (self);
  return G_SOURCE_REMOVE;
}

static void
on_buffer_changed (SpWindow *self)
{
  if (self->autosave_id == NULL)
    return; /* disposed: the buffer is being torn down */
  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  self->autosave_timer = g_timeout_add (AUTOSAVE_DELAY_MS, autosave_timeout, self);
}

static void
on_modified_changed (SpWindow *self)
{
  /* Saved, reloaded or undone back to the file: no copy is needed. */
  if (!is_modified (self))
    _sp_window_autosave_forget (self);
}

static void
on_active_changed (SpWindow *self)
{
  if (!gtk_window_is_active (GTK_WINDOW (self)) && is_modified (self))
    _sp_window_autosave_now (self);
}

static void
on_autosave_bar_response (SpReloadBar *bar, const char *response, SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));

  if (g_str_equal (response, "discard"))
    {
      /* Back to the file as it is on disk, or to an empty scratch buffer;
       * the copy goes. */
      sp_reload_bar_hide (bar);
      if (self->file != NULL && g_file_query_exists (self->file, NULL))
        sp_window_load_file (self, self->file);
      else
        {
          gtk_text_buffer_set_text (buffer, "", 0);
          gtk_text_buffer_set_modified (buffer, FALSE);
        }
      _sp_window_autosave_forget (self);
    }
  else if (g_str_equal (response, "keep"))
    sp_reload_bar_hide (bar);
  else if (g_str_equal (response, "save-as"))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.save-as", NULL);
}

void
_sp_window_autosave_init (SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));

  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SpStateLock *lock = SP_IS_APPLICATION (app) ? sp_application_get_state_lock (SP_APPLICATION (app))
                                              : NULL;

  /* Known now, while the window has its application: the copy is
   * written or removed at dispose too, when it no longer does. */
  if (lock != NULL)
    self->autosave_dir = sp_state_lock_dup_autosave_dir (lock);
  self->autosave_id = sp_autosave_new_id ();
  self->autosave_bar = sp_reload_bar_new ();
  gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (GTK_WIDGET (self->file_bar))),
                              GTK_WIDGET (self->autosave_bar), GTK_WIDGET (self->file_bar));
  g_signal_connect_object (self->autosave_bar, "response",
                           G_CALLBACK (on_autosave_bar_response), self, 0);
  g_signal_connect_object (buffer, "changed", G_CALLBACK (on_buffer_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (buffer, "modified-changed", G_CALLBACK (on_modified_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (on_active_changed), NULL);
}

/* The copy goes when the text is safe or unwanted: unmodified, or closed
 * with Discard. A window torn down with unsaved text and no answer (the
 * app killed, the session ending) keeps its copy for the next start. */
void
_sp_window_autosave_dispose (SpWindow *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (self->source_view);

  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  if (self->autosave_id != NULL && view != NULL)
    {
      if (!is_modified (self) || self->close_confirmed)
        _sp_window_autosave_forget (self);
      else
        _sp_window_autosave_now (self);
      /* Tearing the view down changes the buffer: no timer may start
       * for a window that is going. */
      g_signal_handlers_disconnect_by_func (sp_window_get_buffer (self), on_buffer_changed, self);
      g_signal_handlers_disconnect_by_func (sp_window_get_buffer (self), on_modified_changed,
                                            self);
    }
  g_clear_pointer (&self->autosave_id, g_free);
  g_clear_pointer (&self->autosave_title, g_free);
  g_clear_pointer (&self->autosave_dir, g_free);
}
