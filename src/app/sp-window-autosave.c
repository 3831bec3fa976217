/* sp-window-autosave.c: what the window says about its unsaved text's
 * copy, which SpDocument keeps in the state folder (a moment after typing
 * stops, and here when the window loses the focus), so a crash or a kill
 * loses nothing. A copy that is left is restored at the next start
 * (sp-app-session.c). A write that fails, a full disk say, is said in the
 * window: the text itself is still in the editor and nothing is removed.
 * When another process owns the state folder (sp-application.c), the
 * document keeps no copy, and the window says so once it has unsaved
 * text. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-window-private.h"

static void
show_save_as (SpWindow *self, const char *kind, const char *message)
{
  sp_reload_bar_show (self->autosave_bar, kind, message, TRUE);
  sp_reload_bar_add_button (self->autosave_bar, "save-as", _ ("Save _As…"), NULL);
}

static void
on_autosave_status (SpDocument *document, int status, const char *error, SpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  g_autofree char *message = NULL;

  switch ((SpDocumentAutosaveStatus) status)
    {
    case SP_DOCUMENT_AUTOSAVE_OK:
      if (g_strcmp0 (sp_reload_bar_get_kind (self->autosave_bar), "autosave-failed") == 0)
        sp_reload_bar_hide (self->autosave_bar);
      break;
    case SP_DOCUMENT_AUTOSAVE_FAILED:
      message = g_strdup_printf (_ ("Could not keep a copy of the unsaved text: %s. The text is "
                                    "still here; save it to keep it."),
                                 error);
      show_save_as (self, "autosave-failed", message);
      break;
    case SP_DOCUMENT_AUTOSAVE_OFF:
      {
        const char *why = SP_IS_APPLICATION (app)
                            ? sp_application_get_state_problem (SP_APPLICATION (app))
                            : NULL;
        if (app == NULL)
          break;
        /* TRANSLATORS: %s says which process has the folder */
        message = g_strdup_printf (_ ("Unsaved text in this window is not kept after a crash: "
                                      "%s. Save it to keep it."),
                                   why != NULL ? why
                                               : _ ("another Sandpad has the autosave folder"));
        show_save_as (self, "autosave-off", message);
      }
      break;
    default:
      g_assert_not_reached ();
    }
}

/* "Untitled 2": the window's place among the app's windows. */
static void
on_prepare_copy (SpDocument *document, SpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  GList *windows = app != NULL ? gtk_application_get_windows (app) : NULL;
  g_autofree char *name = g_strdup_printf (_ ("Untitled %u"),
                                           g_list_length (windows)
                                             - (guint) MAX (g_list_index (windows, self), 0));

  sp_document_set_untitled_name (document, name);
}

static void
on_buffer_changed (SpWindow *self)
{
  sp_document_text_changed (self->document);
}

static void
on_modified_changed (SpWindow *self)
{
  sp_document_set_modified (self->document, gtk_text_buffer_get_modified (
                                              GTK_TEXT_BUFFER (sp_window_get_buffer (self))));
}

/* The document found the text unsaved (its file went away, say). */
static void
on_document_modified (SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  gboolean modified = sp_document_get_modified (self->document);

  if (gtk_text_buffer_get_modified (buffer) != modified)
    gtk_text_buffer_set_modified (buffer, modified);
}

static void
on_active_changed (SpWindow *self)
{
  if (self->document == NULL)
    return; /* disposed */
  if (!gtk_window_is_active (GTK_WINDOW (self)) && sp_document_get_modified (self->document))
    sp_document_autosave_now (self->document);
}

static void
on_autosave_bar_response (SpReloadBar *bar, const char *response, SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GFile *file = sp_document_get_file (self->document);

  if (g_str_equal (response, "discard"))
    {
      /* Back to the file as it is on disk, or to an empty scratch buffer;
       * the copy goes. */
      sp_reload_bar_hide (bar);
      if (file != NULL && g_file_query_exists (file, NULL))
        sp_window_load_file (self, file);
      else
        {
          gtk_text_buffer_set_text (buffer, "", 0);
          gtk_text_buffer_set_modified (buffer, FALSE);
        }
      sp_document_autosave_forget (self->document);
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

  g_signal_connect_object (self->autosave_bar, "response", G_CALLBACK (on_autosave_bar_response),
                           self, 0);
  g_signal_connect_object (self->document, "autosave-status", G_CALLBACK (on_autosave_status), self,
                           0);
  g_signal_connect_object (self->document, "prepare-copy", G_CALLBACK (on_prepare_copy), self, 0);
  g_signal_connect_object (self->document, "notify::modified", G_CALLBACK (on_document_modified),
                           self, G_CONNECT_SWAPPED);
  g_signal_connect_object (buffer, "changed", G_CALLBACK (on_buffer_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (buffer, "modified-changed", G_CALLBACK (on_modified_changed), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect (self, "notify::is-active", G_CALLBACK (on_active_changed), NULL);
}

/* Before the view goes: the copy stays for the next start if the text is
 * unsaved and nobody said Discard. */
void
_sp_window_autosave_dispose (SpWindow *self)
{
  if (self->document == NULL || self->source_view == NULL)
    return;
  sp_document_close (self->document, self->close_confirmed);
  /* Tearing the view down changes the buffer: nothing of it may reach
   * the document any more. */
  g_signal_handlers_disconnect_by_func (sp_window_get_buffer (self), on_buffer_changed, self);
  g_signal_handlers_disconnect_by_func (sp_window_get_buffer (self), on_modified_changed, self);
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
