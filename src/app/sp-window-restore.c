/* sp-window-restore.c: what the session and its restore need of a
 * window (its file, copy id, language and split; putting a restored copy
 * in it; a notice about skipped files), and what tests look at. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-window-private.h"
#include "sp-window-restore.h"

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
  if (entry->language != NULL)
    _sp_window_set_language (self, entry->language);
  gtk_text_buffer_begin_irreversible_action (buffer);
  gtk_text_buffer_set_text (buffer, entry->text, (int) entry->length);
  gtk_text_buffer_end_irreversible_action (buffer);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_buffer_set_modified (buffer, TRUE);
  /* The file (and what it holds now), id, language and name; the text is
   * unsaved. */
  sp_document_restore (self->document, entry);
  _sp_window_update_title (self);

  time = g_date_time_new_from_unix_local (entry->time);
  when = time != NULL ? g_date_time_format (time, "%x %X") : g_strdup ("?");
  /* Discard does what it can: an untitled buffer has no file to go back
   * to, and empties. */
  if (entry->path != NULL)
    message = g_strdup_printf (_ ("Unsaved text from %s was restored: Sandpad did not close "
                                  "normally. Save keeps it; Discard goes back to the file."),
                               when);
  else
    message = g_strdup_printf (_ ("Unsaved text from %s was restored: Sandpad did not close "
                                  "normally. Save As keeps it; Discard empties the editor."),
                               when);
  sp_reload_bar_show (self->autosave_bar, "restored", message, FALSE);
  sp_reload_bar_add_button (self->autosave_bar, "keep", _ ("_Keep"), NULL);
  sp_reload_bar_add_button (self->autosave_bar, "discard", _ ("_Discard"),
                            _ ("Throw the restored text away"));
}

void
sp_window_show_autosave_notice (SpWindow *self, const char *message)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  if (self->notice_bar == NULL)
    {
      self->notice_bar = sp_reload_bar_new ();
      gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (GTK_WIDGET (self->autosave_bar))),
                                  GTK_WIDGET (self->notice_bar), GTK_WIDGET (self->autosave_bar));
      g_signal_connect (self->notice_bar, "response", G_CALLBACK (sp_reload_bar_hide), NULL);
    }
  sp_reload_bar_show (self->notice_bar, "notice", message, TRUE);
  sp_reload_bar_add_button (self->notice_bar, "dismiss", _ ("_Dismiss"), NULL);
}

void
sp_window_autosave_now (SpWindow *self)
{
  g_return_if_fail (SP_IS_WINDOW (self));
  sp_document_autosave_now (self->document);
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

GMenuModel *
sp_window_get_recent_menu (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return G_MENU_MODEL (self->recent_menu);
}
