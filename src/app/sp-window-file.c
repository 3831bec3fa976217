/* sp-window-file.c: how the window shows what happens to its file on
 * disk (SpDocument watches it and says what a change is).
 *
 * An outside change with no unsaved edits reloads the editor, keeping
 * the cursor's line and the scroll position, and tints the changed lines
 * for a few seconds. With unsaved edits nothing is overwritten: a bar
 * offers Reload, Keep Mine and Compare. A deleted or moved file keeps its
 * text, which Save writes back; a rename is followed. Also here: Run on
 * change's action (SpRunOnChange decides when to run), and the file
 * added to the recent ones (Open Recent is SpRecentMenu's). */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sp-app-session.h"
#include "sp-compare-window.h"
#include "sp-line-diff.h"
#include "sp-window-private.h"

/* How long changed lines stay tinted after a reload. */
#define CHANGED_MARK_MS 4000
static void add_recent (SpWindow *self);

static GFile *
get_file (SpWindow *self)
{
  return sp_document_get_file (self->document);
}

static char *
file_name (SpWindow *self)
{
  return sp_document_dup_display_name (self->document);
}

/* ---- Run on change (SpRunOnChange decides; the action shows it) ---- */

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

/* ---- reloading ---- */

static void
remove_changed_tag (SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, self->changed_tag, &start, &end);
}

static gboolean
clear_changed_tag (gpointer data)
{
  SpWindow *self = data;

  self->changed_tag_id = 0;
  remove_changed_tag (self);
  return G_SOURCE_REMOVE;
}

/* Tints the lines of new that old did not have (for a deletion, the line
 * that took its place), for a few seconds. */
static void
mark_changed_lines (SpWindow *self, const char *old_text, const char *new_text)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  g_autoptr (SpLineDiff) diff = sp_line_diff (old_text, new_text);
  int n_lines = gtk_text_buffer_get_line_count (buffer);

  g_clear_handle_id (&self->changed_tag_id, g_source_remove);
  remove_changed_tag (self);
  for (guint i = 0; i < diff->ops->len; i++)
    {
      const SpLineDiffOp *op = &g_array_index (diff->ops, SpLineDiffOp, i);
      guint first = op->new_start, count = op->n_lines;
      GtkTextIter start, end;

      if (op->kind == SP_LINE_DIFF_EQUAL)
        continue;
      if (op->kind == SP_LINE_DIFF_DELETE)
        count = 1;
      if ((int) first >= n_lines)
        first = (guint) MAX (n_lines - 1, 0);
      gtk_text_buffer_get_iter_at_line (buffer, &start, (int) first);
      gtk_text_buffer_get_iter_at_line (buffer, &end,
                                        (int) MIN (first + count - 1, (guint) n_lines - 1));
      gtk_text_iter_forward_to_line_end (&end);
      gtk_text_buffer_apply_tag (buffer, self->changed_tag, &start, &end);
    }
  g_clear_handle_id (&self->changed_tag_id, g_source_remove);
  self->changed_tag_id = g_timeout_add (CHANGED_MARK_MS, clear_changed_tag, self);
}

/* Puts text in the editor as the file's, keeping the cursor's line and
 * the scroll position. One undoable step: Ctrl+Z brings back what the
 * editor held before. */
static void
reload_with (SpWindow *self, GBytes *contents)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  g_autofree char *old_text = _sp_window_get_text (self);
  g_autofree char *new_text = NULL;
  GtkTextIter iter, start, end;
  GdkRectangle visible;
  int line, offset, top_line;
  gsize len = 0;
  const char *data = g_bytes_get_data (contents, &len);

  new_text = g_strndup (data, len);
  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  line = gtk_text_iter_get_line (&iter);
  offset = gtk_text_iter_get_line_offset (&iter);
  /* The scroll position as the line at the top of the view: pixels are
   * meaningless while the view measures the new text. */
  gtk_text_view_get_visible_rect (GTK_TEXT_VIEW (self->source_view), &visible);
  gtk_text_view_get_line_at_y (GTK_TEXT_VIEW (self->source_view), &iter, visible.y, NULL);
  top_line = gtk_text_iter_get_line (&iter);
  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));

  /* Not set_text: that would make the step irreversible. */
  gtk_text_buffer_begin_user_action (buffer);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_insert (buffer, &start, new_text, (int) len);
  gtk_text_buffer_end_user_action (buffer);

  line = MIN (line, gtk_text_buffer_get_line_count (buffer) - 1);
  gtk_text_buffer_get_iter_at_line (buffer, &iter, line);
  if (offset > 0 && !gtk_text_iter_ends_line (&iter))
    {
      gtk_text_iter_forward_to_line_end (&iter);
      if (gtk_text_iter_get_line_offset (&iter) > offset)
        gtk_text_iter_set_line_offset (&iter, offset);
    }
  gtk_text_buffer_place_cursor (buffer, &iter);
  /* An assistant's edit may hide what the code does. */
  sp_hidden_bar_check (self->hidden_bar);
  gtk_text_buffer_set_modified (buffer, FALSE);
  sp_document_reloaded (self->document, contents);
  mark_changed_lines (self, old_text, new_text);
  /* A mark: the view scrolls to it once it has measured the lines. */
  gtk_text_buffer_get_iter_at_line (buffer, &iter,
                                    MIN (top_line, gtk_text_buffer_get_line_count (buffer) - 1));
  gtk_text_buffer_move_mark (buffer, self->top_mark, &iter);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->source_view), self->top_mark, 0, TRUE, 0, 0);
  _sp_window_update_title (self);
}

static void
close_compare (SpWindow *self)
{
  if (self->compare_window != NULL)
    gtk_window_destroy (self->compare_window);
}

static void
on_file_bar_response (SpReloadBar *bar, const char *response, SpWindow *self)
{
  if (g_str_equal (response, "reload") && sp_document_get_pending (self->document) != NULL)
    {
      g_autoptr (GBytes) contents = sp_document_take_pending (self->document);
      sp_reload_bar_hide (bar);
      close_compare (self);
      reload_with (self, contents);
      sp_run_on_change_disk_changed (self->run_on_change);
    }
  else if (g_str_equal (response, "keep"))
    {
      /* The disk's version is known and declined: not asked again until
       * it changes once more. Save writes the editor's text over it. */
      sp_document_keep_mine (self->document);
      sp_reload_bar_hide (bar);
      close_compare (self);
    }
  else if (g_str_equal (response, "compare") && sp_document_get_pending (self->document) != NULL)
    {
      g_autofree char *name = file_name (self);
      g_autofree char *mine = _sp_window_get_text (self);
      gsize len = 0;
      const char *data = g_bytes_get_data (sp_document_get_pending (self->document), &len);
      g_autofree char *disk = g_strndup (data, len);
      GtkWidget *window;

      close_compare (self);
      window = sp_compare_window_new (GTK_WINDOW (self), name, disk, mine);
      self->compare_window = GTK_WINDOW (window);
      g_object_add_weak_pointer (G_OBJECT (window), (gpointer *) &self->compare_window);
      gtk_window_present (GTK_WINDOW (window));
    }
  else if (g_str_equal (response, "save"))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.save", NULL);
  else if (g_str_equal (response, "dismiss"))
    sp_reload_bar_hide (bar);
}

static void
show_conflict (SpWindow *self)
{
  g_autofree char *name = file_name (self);
  g_autofree char *message = g_strdup_printf (
    _ ("“%s” changed on disk, and the editor has unsaved changes. Reload replaces them with the "
       "file (Ctrl+Z brings them back); Keep Mine keeps the editor's text, which Save writes."),
    name);

  sp_reload_bar_show (self->file_bar, "changed", message, TRUE);
  sp_reload_bar_add_button (self->file_bar, "compare", _ ("_Compare"),
                            _ ("Show what differs between the file and the editor"));
  sp_reload_bar_add_button (self->file_bar, "keep", _ ("_Keep Mine"), _ ("Keep the editor's text"));
  sp_reload_bar_add_button (self->file_bar, "reload", _ ("_Reload"),
                            _ ("Replace the editor's text with the file"));
}

static void
show_gone (SpWindow *self, gboolean moved)
{
  g_autofree char *name = file_name (self);
  g_autofree char *message = g_strdup_printf (
    moved ? _ ("“%s” was moved away on disk. The editor keeps its text; Save writes it back "
               "under this name.")
          : _ ("“%s” was deleted on disk. The editor keeps its text; Save creates the file "
               "again."),
    name);

  close_compare (self);
  sp_reload_bar_show (self->file_bar, moved ? "moved" : "deleted", message, TRUE);
  sp_reload_bar_add_button (self->file_bar, "save", _ ("_Save"), _ ("Write the editor's text"));
}

static void
show_renamed (SpWindow *self)
{
  g_autofree char *name = file_name (self);
  g_autofree char *message = g_strdup_printf (_ ("The file was renamed to “%s”"), name);

  _sp_window_update_title (self);
  _sp_window_toast (self, message);
  add_recent (self);
}

static void
show_not_text (SpWindow *self)
{
  g_autofree char *name = file_name (self);
  g_autofree char *message = g_strdup_printf (
    _ ("“%s” changed on disk and is no longer UTF-8 text. The editor keeps its text."), name);

  sp_reload_bar_show (self->file_bar, "not-text", message, TRUE);
  sp_reload_bar_add_button (self->file_bar, "dismiss", _ ("_Dismiss"), NULL);
}

static void
on_disk_changed (SpDocument *document, int change, GBytes *contents, SpWindow *self)
{
  switch ((SpDocumentDiskChange) change)
    {
    case SP_DOCUMENT_DISK_UNCHANGED:
      /* Our own save, or a touch; or the file went back to what we knew,
       * which answers a pending question. */
      if (g_strcmp0 (sp_reload_bar_get_kind (self->file_bar), "changed") == 0)
        sp_reload_bar_hide (self->file_bar);
      break;
    case SP_DOCUMENT_DISK_SAME_AS_EDITOR:
      sp_reload_bar_hide (self->file_bar);
      break;
    case SP_DOCUMENT_DISK_RELOAD:
      sp_reload_bar_hide (self->file_bar);
      reload_with (self, contents);
      sp_run_on_change_disk_changed (self->run_on_change);
      break;
    case SP_DOCUMENT_DISK_CONFLICT:
      show_conflict (self);
      break;
    case SP_DOCUMENT_DISK_NOT_TEXT:
      show_not_text (self);
      break;
    case SP_DOCUMENT_DISK_DELETED:
    case SP_DOCUMENT_DISK_MOVED:
      show_gone (self, change == SP_DOCUMENT_DISK_MOVED);
      break;
    case SP_DOCUMENT_DISK_RENAMED:
      show_renamed (self);
      break;
    default:
      g_assert_not_reached ();
    }
}

/* The file is among the recent ones, and the session knows the window
 * shows it now. */
static void
add_recent (SpWindow *self)
{
  g_autofree char *uri = g_file_get_uri (get_file (self));

  gtk_recent_manager_add_item (gtk_recent_manager_get_default (), uri);
  sp_app_session_save (gtk_window_get_application (GTK_WINDOW (self)));
}

/* The document is a file's now (its text comes into the editor next). */
static void
on_loaded (SpWindow *self)
{
  sp_reload_bar_hide (self->file_bar);
  add_recent (self);
}

/* The editor's text is on disk (the document's file, maybe new). */
static void
on_saved (SpWindow *self)
{
  sp_reload_bar_hide (self->file_bar);
  close_compare (self);
  add_recent (self);
}

void
_sp_window_file_init (SpWindow *self)
{
  g_autoptr (GSimpleAction) run_on_change
    = g_simple_action_new_stateful ("run-on-change", NULL, g_variant_new_boolean (FALSE));

  /* Made first: it hears the document's "loaded" and "saved" before the
   * window's handlers below do, the order they had in this file. */
  self->run_on_change = sp_run_on_change_new (self->document, self->runs,
                                              _sp_window_activity_model (self), self->settings);
  g_signal_connect_object (self->run_on_change, "notify::active",
                           G_CALLBACK (on_run_on_change_active), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->run_on_change, "run", G_CALLBACK (on_rerun), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->file_bar, "response", G_CALLBACK (on_file_bar_response), self, 0);
  g_signal_connect_object (self->document, "disk-changed", G_CALLBACK (on_disk_changed), self, 0);
  g_signal_connect_object (self->document, "loaded", G_CALLBACK (on_loaded), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->document, "saved", G_CALLBACK (on_saved), self, G_CONNECT_SWAPPED);
  self->changed_tag = gtk_text_buffer_create_tag (GTK_TEXT_BUFFER (sp_window_get_buffer (self)),
                                                  "sandpad-changed-line", "paragraph-background",
                                                  "rgba(53,132,228,0.22)", NULL);
  {
    GtkTextIter start;
    gtk_text_buffer_get_start_iter (GTK_TEXT_BUFFER (sp_window_get_buffer (self)), &start);
    self->top_mark = gtk_text_buffer_create_mark (GTK_TEXT_BUFFER (sp_window_get_buffer (self)),
                                                  NULL, &start, TRUE);
  }
  g_signal_connect (run_on_change, "change-state", G_CALLBACK (on_run_on_change), self);
  g_action_map_add_action (G_ACTION_MAP (self), G_ACTION (run_on_change));
}

void
_sp_window_file_dispose (SpWindow *self)
{
  g_clear_handle_id (&self->changed_tag_id, g_source_remove);
  g_clear_object (&self->run_on_change);
  close_compare (self);
}
