/* sp-window-autosave.c: a copy of the window's unsaved text, kept in the
 * state folder a moment after typing stops and when the window loses the
 * focus, so a crash or a kill loses nothing (sp-autosave.c writes it
 * atomically). Saving, or closing with Discard, removes the copy; a copy
 * that is left is restored at the next start (sp-app-session.c). A write
 * that fails, a full disk say, is said in the window: the text itself is
 * still in the editor and nothing is removed. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-app-session.h"
#include "sp-autosave.h"
#include "sp-window-private.h"
#include "sp-window-session.h"

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
  g_autofree char *dir = sp_autosave_default_dir ();
  g_autoptr (GError) error = NULL;

  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  if (self->autosave_id != NULL && !sp_autosave_remove (dir, self->autosave_id, &error))
    g_message ("cannot remove the autosave copy: %s", error->message);
  if (self->autosave_failed)
    {
      self->autosave_failed = FALSE;
      if (g_strcmp0 (sp_reload_bar_get_kind (self->autosave_bar), "autosave-failed") == 0)
        sp_reload_bar_hide (self->autosave_bar);
    }
}

void
_sp_window_autosave_now (SpWindow *self)
{
  g_autofree char *dir = sp_autosave_default_dir ();
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
    }
  g_clear_pointer (&self->autosave_id, g_free);
  g_clear_pointer (&self->autosave_title, g_free);
}

/* ---- sp-window-session.h ---- */

GFile *
sp_window_get_file (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->file;
}

const char *
sp_window_get_autosave_id (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->autosave_id;
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

void
sp_window_set_untitled_name (SpWindow *self, const char *name)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  g_free (self->autosave_title);
  self->autosave_title = g_strdup (name);
}

void
sp_window_restore_autosave (SpWindow *self, const SpAutosaveEntry *entry)
{
  GtkTextBuffer *buffer;
  g_autofree char *when = NULL;
  g_autofree char *message = NULL;
  g_autoptr (GDateTime) time = NULL;
  GtkTextIter start;

  g_return_if_fail (SP_IS_WINDOW (self));
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  if (entry->path != NULL)
    {
      g_autofree char *contents = NULL;
      gsize len = 0;

      self->file = g_file_new_for_path (entry->path);
      /* What the file holds now, so a later change on disk is told from
       * the restored text. */
      if (g_file_get_contents (entry->path, &contents, &len, NULL))
        _sp_window_file_loaded (self, contents, len);
      else
        _sp_window_file_watch (self);
    }
  if (entry->language != NULL)
    _sp_window_set_language (self, entry->language);
  sp_window_set_untitled_name (self, entry->title);
  g_free (self->autosave_id);
  self->autosave_id = g_strdup (entry->id);
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, entry->text, (int) entry->length);
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_buffer_set_modified (buffer, TRUE);
  _sp_window_update_title (self);

  time = g_date_time_new_from_unix_local (entry->time);
  when = time != NULL ? g_date_time_format (time, "%x %X") : g_strdup ("?");
  message = g_strdup_printf (_("Unsaved text from %s was restored: Sandpad did not close "
                               "normally. Save keeps it; Discard goes back to the file."),
                             when);
  sp_reload_bar_show (self->autosave_bar, "restored", message, FALSE);
  sp_reload_bar_add_button (self->autosave_bar, "keep", _("_Keep"), NULL);
  sp_reload_bar_add_button (self->autosave_bar, "discard", _("_Discard"),
                            _("Throw the restored text away"));
}

void
sp_window_show_autosave_notice (SpWindow *self, const char *message)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  if (self->notice_bar == NULL)
    {
      self->notice_bar = sp_reload_bar_new ();
      gtk_box_insert_child_after (
        GTK_BOX (gtk_widget_get_parent (GTK_WIDGET (self->autosave_bar))),
        GTK_WIDGET (self->notice_bar), GTK_WIDGET (self->autosave_bar));
      g_signal_connect (self->notice_bar, "response", G_CALLBACK (sp_reload_bar_hide), NULL);
    }
  sp_reload_bar_show (self->notice_bar, "notice", message, TRUE);
  sp_reload_bar_add_button (self->notice_bar, "dismiss", _("_Dismiss"), NULL);
}

void
sp_window_autosave_now (SpWindow *self)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  _sp_window_autosave_now (self);
}

SpReloadBar *
sp_window_get_file_bar (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->file_bar;
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
  return self->run_on_change;
}
