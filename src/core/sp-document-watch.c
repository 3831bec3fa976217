/* sp-document-watch.c: the document's file, watched.
 *
 * An assistant (sandpad-mcp's edit_and_execute), another editor or a
 * script may change the file while it is open. Every monitor event only
 * schedules a look at the file a moment later: an atomic replace (write a
 * temporary file, rename it over ours) is a burst of events, and what
 * counts is what the file holds afterwards, compared with what we last
 * knew it to hold (disk_text). So our own saves, and a touch that changes
 * nothing, are no change. What the look found goes to the view as
 * "disk-changed"; the view decides how to show it. */
#define G_LOG_DOMAIN "sp-document"

#include "config.h"

#include <string.h>

#include "sp-document-private.h"

/* Events come in bursts; the file is read once they stop. */
#define CHECK_DELAY_MS 150

static void check_file (SpDocument *self);

static gboolean
bytes_equal_text (GBytes *bytes, const char *text)
{
  gsize len = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &len) : NULL;

  return bytes != NULL && text != NULL && len == strlen (text)
         && (len == 0 || memcmp (data, text, len) == 0);
}

void
_sp_document_stop_watch (SpDocument *self)
{
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  if (self->check_cancellable != NULL)
    g_cancellable_cancel (self->check_cancellable);
  g_clear_object (&self->check_cancellable);
  g_clear_handle_id (&self->check_id, g_source_remove);
}

static gboolean
check_timeout (gpointer data)
{
  SpDocument *self = data;

  self->check_id = 0;
  check_file (self);
  return G_SOURCE_REMOVE;
}

static void
on_monitor_changed (GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event,
                    SpDocument *self)
{
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_RENAMED:
      /* Ours renamed to other; or another file renamed onto ours (an
       * atomic replace), which is a change like any other. Whether a
       * rename is a move or the first half of a replace (some editors
       * rename the old file to a backup, then write a new one) shows
       * once the burst is over. */
      if (self->file != NULL && g_file_equal (file, self->file) && other != NULL)
        g_set_object (&self->renamed_to, other);
      break;
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
      /* Into a folder the monitor does not watch: gone from here, and
       * said as moved rather than deleted. */
      if (self->file != NULL && g_file_equal (file, self->file))
        self->moved_away = TRUE;
      break;
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
      return;
    default:
      break;
    }
  g_clear_handle_id (&self->check_id, g_source_remove);
  self->check_id = g_timeout_add (CHECK_DELAY_MS, check_timeout, self);
}

void
_sp_document_watch (SpDocument *self)
{
  g_autoptr (GError) error = NULL;

  _sp_document_stop_watch (self);
  if (self->file == NULL)
    return;
  /* WATCH_MOVES: a rename is reported as one, with both names, so a
   * rename of our file can be followed and a replace by rename seen. */
  self->monitor = g_file_monitor_file (self->file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    {
      g_debug ("cannot watch the file: %s", error->message);
      return;
    }
  g_signal_connect_object (self->monitor, "changed", G_CALLBACK (on_monitor_changed), self, 0);
}

/* The file is gone from where it was: renamed within its folder and
 * nothing took its place (followed), else deleted or moved away. */
static void
file_missing (SpDocument *self)
{
  if (self->renamed_to != NULL && g_file_query_exists (self->renamed_to, NULL))
    {
      g_autoptr (GFile) to = g_object_ref (self->renamed_to);

      g_clear_object (&self->renamed_to);
      _sp_document_set_file_only (self, to);
      _sp_document_watch (self);
      _sp_document_emit_disk (self, SP_DOCUMENT_DISK_RENAMED, NULL);
      return;
    }
  if (self->gone)
    return;
  self->gone = TRUE;
  g_clear_pointer (&self->disk_text, g_bytes_unref);
  g_clear_pointer (&self->pending_disk, g_bytes_unref);
  /* Nothing on disk holds this text any more: closing asks, autosave
   * keeps a copy. */
  sp_document_set_modified (self, TRUE);
  _sp_document_emit_disk (self,
                          self->renamed_to != NULL || self->moved_away ? SP_DOCUMENT_DISK_MOVED
                                                                       : SP_DOCUMENT_DISK_DELETED,
                          NULL);
}

/* What the file holds now, against what we knew and what the editor has. */
static void
compare_contents (SpDocument *self, GBytes *contents)
{
  g_autofree char *text = sp_document_dup_text (self);
  gsize len = 0;
  const char *data = g_bytes_get_data (contents, &len);

  g_clear_object (&self->renamed_to);
  self->moved_away = FALSE;
  self->gone = FALSE;
  if (self->disk_text != NULL && g_bytes_equal (contents, self->disk_text))
    {
      g_clear_pointer (&self->pending_disk, g_bytes_unref);
      _sp_document_emit_disk (self, SP_DOCUMENT_DISK_UNCHANGED, contents);
      return;
    }
  if ((self->saving_text != NULL && g_bytes_equal (contents, self->saving_text))
      || bytes_equal_text (contents, text))
    {
      /* The file holds what the editor holds (a save of ours on its way,
       * or the same edit made twice): nothing to reload or ask. */
      _sp_document_set_bytes (&self->disk_text, g_bytes_ref (contents));
      _sp_document_emit_disk (self, SP_DOCUMENT_DISK_SAME_AS_EDITOR, contents);
      return;
    }
  if (!g_utf8_validate (data, (gssize) len, NULL) || memchr (data, '\0', len) != NULL)
    {
      g_clear_pointer (&self->disk_text, g_bytes_unref);
      sp_document_set_modified (self, TRUE);
      _sp_document_emit_disk (self, SP_DOCUMENT_DISK_NOT_TEXT, contents);
      return;
    }
  if (!self->modified)
    _sp_document_emit_disk (self, SP_DOCUMENT_DISK_RELOAD, contents);
  else
    {
      _sp_document_set_bytes (&self->pending_disk, g_bytes_ref (contents));
      _sp_document_emit_disk (self, SP_DOCUMENT_DISK_CONFLICT, contents);
    }
}

static void
check_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpDocument) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  g_autoptr (GBytes) contents = NULL;
  gsize len = 0;

  if (!g_file_load_contents_finish (G_FILE (object), result, &data, &len, NULL, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_debug ("cannot read the changed file: %s", error->message);
      else
        file_missing (self);
      return;
    }
  if (self->file == NULL || !g_file_equal (G_FILE (object), self->file))
    return; /* read for a file the document no longer has */
  contents = g_bytes_new_take (g_steal_pointer (&data), len);
  compare_contents (self, contents);
}

static void
check_file (SpDocument *self)
{
  if (self->file == NULL)
    return;
  if (self->check_cancellable != NULL)
    g_cancellable_cancel (self->check_cancellable);
  g_clear_object (&self->check_cancellable);
  self->check_cancellable = g_cancellable_new ();
  g_file_load_contents_async (self->file, self->check_cancellable, check_ready,
                              g_object_ref (self));
}

/* ---- answers ---- */

void
sp_document_reloaded (SpDocument *self, GBytes *contents)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  _sp_document_set_bytes (&self->disk_text, g_bytes_ref (contents));
  g_clear_pointer (&self->pending_disk, g_bytes_unref);
  sp_document_set_modified (self, FALSE);
}

GBytes *
sp_document_get_pending (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->pending_disk;
}

GBytes *
sp_document_take_pending (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return g_steal_pointer (&self->pending_disk);
}

void
sp_document_keep_mine (SpDocument *self)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  if (self->pending_disk != NULL)
    _sp_document_set_bytes (&self->disk_text, g_steal_pointer (&self->pending_disk));
}
