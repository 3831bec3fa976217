/* sp-file-change-bar.c: what happened to a window's file on disk, shown
 * (sp-file-change-bar.h). */
#define G_LOG_DOMAIN "sp-file-change-bar"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-compare-window.h"
#include "sp-file-change-bar.h"
#include "sp-line-diff.h"

/* How long changed lines stay tinted after a reload. */
#define CHANGED_MARK_MS 4000

struct _SpFileChangeBar
{
  AdwBin parent_instance;

  SpReloadBar *bar; /* template */
  SpDocument *document;
  GtkSourceView *view;
  GtkTextTag *changed_tag;
  guint changed_tag_id;
  GtkTextMark *top_mark;     /* the line at the top of the view, kept by a reload */
  GtkWindow *compare_window; /* weak */
};

G_DEFINE_FINAL_TYPE (SpFileChangeBar, sp_file_change_bar, ADW_TYPE_BIN)

enum
{
  RELOADED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static GtkTextBuffer *
get_buffer (SpFileChangeBar *self)
{
  return gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->view));
}

static char *
get_text (SpFileChangeBar *self)
{
  GtkTextBuffer *buffer = get_buffer (self);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* ---- reloading ---- */

static void
remove_changed_tag (SpFileChangeBar *self)
{
  GtkTextBuffer *buffer = get_buffer (self);
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_tag (buffer, self->changed_tag, &start, &end);
}

static gboolean
clear_changed_tag (gpointer data)
{
  SpFileChangeBar *self = data;

  self->changed_tag_id = 0;
  remove_changed_tag (self);
  return G_SOURCE_REMOVE;
}

/* Tints the lines of new that old did not have (for a deletion, the line
 * that took its place), for a few seconds. */
static void
mark_changed_lines (SpFileChangeBar *self, const char *old_text, const char *new_text)
{
  GtkTextBuffer *buffer = get_buffer (self);
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
reload_with (SpFileChangeBar *self, GBytes *contents)
{
  GtkTextBuffer *buffer = get_buffer (self);
  g_autofree char *old_text = get_text (self);
  g_autofree char *new_text = NULL;
  GtkTextIter iter, start, end;
  GdkRectangle visible;
  int line, offset, top_line;
  gsize len = 0;
  const char *data = g_bytes_get_data (contents, &len);

  len = sp_document_editor_length (data, len);
  new_text = g_strndup (data, len);
  gtk_text_buffer_get_iter_at_mark (buffer, &iter, gtk_text_buffer_get_insert (buffer));
  line = gtk_text_iter_get_line (&iter);
  offset = gtk_text_iter_get_line_offset (&iter);
  /* The scroll position as the line at the top of the view: pixels are
   * meaningless while the view measures the new text. */
  gtk_text_view_get_visible_rect (GTK_TEXT_VIEW (self->view), &visible);
  gtk_text_view_get_line_at_y (GTK_TEXT_VIEW (self->view), &iter, visible.y, NULL);
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
  gtk_text_buffer_set_modified (buffer, FALSE);
  sp_document_reloaded (self->document, contents);
  mark_changed_lines (self, old_text, new_text);
  /* A mark: the view scrolls to it once it has measured the lines. */
  gtk_text_buffer_get_iter_at_line (buffer, &iter,
                                    MIN (top_line, gtk_text_buffer_get_line_count (buffer) - 1));
  gtk_text_buffer_move_mark (buffer, self->top_mark, &iter);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->view), self->top_mark, 0, TRUE, 0, 0);
  g_signal_emit (self, signals[RELOADED], 0);
}

static void
close_compare (SpFileChangeBar *self)
{
  if (self->compare_window != NULL)
    gtk_window_destroy (self->compare_window);
}

static void
on_response (SpReloadBar *bar, const char *response, SpFileChangeBar *self)
{
  if (g_str_equal (response, "reload") && sp_document_get_pending (self->document) != NULL)
    {
      g_autoptr (GBytes) contents = sp_document_take_pending (self->document);
      sp_reload_bar_hide (bar);
      close_compare (self);
      reload_with (self, contents);
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
      g_autofree char *name = sp_document_dup_display_name (self->document);
      g_autofree char *mine = get_text (self);
      gsize len = 0;
      const char *data = g_bytes_get_data (sp_document_get_pending (self->document), &len);
      g_autofree char *disk = g_strndup (data, len);
      GtkWidget *window;

      close_compare (self);
      window = sp_compare_window_new (GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self))), name,
                                      disk, mine);
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
show_conflict (SpFileChangeBar *self)
{
  g_autofree char *name = sp_document_dup_display_name (self->document);
  g_autofree char *message = g_strdup_printf (
    _ ("“%s” changed on disk, and the editor has unsaved changes. Reload replaces them with the "
       "file (Ctrl+Z brings them back); Keep Mine keeps the editor's text, which Save writes."),
    name);

  sp_reload_bar_show (self->bar, "changed", message, TRUE);
  sp_reload_bar_add_button (self->bar, "compare", _ ("_Compare"),
                            _ ("Show what differs between the file and the editor"));
  sp_reload_bar_add_button (self->bar, "keep", _ ("_Keep Mine"), _ ("Keep the editor's text"));
  sp_reload_bar_add_button (self->bar, "reload", _ ("_Reload"),
                            _ ("Replace the editor's text with the file"));
}

static void
show_gone (SpFileChangeBar *self, gboolean moved)
{
  g_autofree char *name = sp_document_dup_display_name (self->document);
  g_autofree char *message = g_strdup_printf (
    moved ? _ ("“%s” was moved away on disk. The editor keeps its text; Save writes it back "
               "under this name.")
          : _ ("“%s” was deleted on disk. The editor keeps its text; Save creates the file "
               "again."),
    name);

  close_compare (self);
  sp_reload_bar_show (self->bar, moved ? "moved" : "deleted", message, TRUE);
  sp_reload_bar_add_button (self->bar, "save", _ ("_Save"), _ ("Write the editor's text"));
}

static void
show_not_text (SpFileChangeBar *self)
{
  g_autofree char *name = sp_document_dup_display_name (self->document);
  g_autofree char *message = g_strdup_printf (
    _ ("“%s” changed on disk and is no longer UTF-8 text. The editor keeps its text."), name);

  sp_reload_bar_show (self->bar, "not-text", message, TRUE);
  sp_reload_bar_add_button (self->bar, "dismiss", _ ("_Dismiss"), NULL);
}

static void
on_disk_changed (SpDocument *document, int change, GBytes *contents, SpFileChangeBar *self)
{
  switch ((SpDocumentDiskChange) change)
    {
    case SP_DOCUMENT_DISK_UNCHANGED:
      /* Our own save, or a touch; or the file went back to what we knew,
       * which answers a pending question. */
      if (g_strcmp0 (sp_reload_bar_get_kind (self->bar), "changed") == 0)
        sp_reload_bar_hide (self->bar);
      break;
    case SP_DOCUMENT_DISK_SAME_AS_EDITOR:
      sp_reload_bar_hide (self->bar);
      break;
    case SP_DOCUMENT_DISK_RELOAD:
      sp_reload_bar_hide (self->bar);
      reload_with (self, contents);
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
      /* The window's to say (its title, a toast, the recent files). */
      break;
    default:
      g_assert_not_reached ();
    }
}

/* The document is a file's now (its text comes into the editor next). */
static void
on_loaded (SpFileChangeBar *self)
{
  sp_reload_bar_hide (self->bar);
}

/* The editor's text is on disk (the document's file, maybe new). */
static void
on_saved (SpFileChangeBar *self)
{
  sp_reload_bar_hide (self->bar);
  close_compare (self);
}

static void
sp_file_change_bar_dispose (GObject *object)
{
  SpFileChangeBar *self = SP_FILE_CHANGE_BAR (object);

  /* The template's one child is AdwBin's, which unparents it. */
  g_clear_handle_id (&self->changed_tag_id, g_source_remove);
  close_compare (self);
  if (self->document != NULL)
    g_signal_handlers_disconnect_by_data (self->document, self);
  g_clear_object (&self->document);
  g_clear_object (&self->view);
  G_OBJECT_CLASS (sp_file_change_bar_parent_class)->dispose (object);
}

static void
sp_file_change_bar_class_init (SpFileChangeBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_file_change_bar_dispose;

  signals[RELOADED] = g_signal_new ("reloaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 0);

  g_type_ensure (SP_TYPE_RELOAD_BAR);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-file-change-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, SpFileChangeBar, bar);
  gtk_widget_class_bind_template_callback (widget_class, on_response);
}

static void
sp_file_change_bar_init (SpFileChangeBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

void
sp_file_change_bar_bind (SpFileChangeBar *self, SpDocument *document, GtkSourceView *view)
{
  GtkTextBuffer *buffer;
  GtkTextIter start;

  g_return_if_fail (SP_IS_FILE_CHANGE_BAR (self));
  g_return_if_fail (SP_IS_DOCUMENT (document));
  g_return_if_fail (GTK_SOURCE_IS_VIEW (view));
  g_return_if_fail (self->document == NULL);

  self->document = g_object_ref (document);
  self->view = g_object_ref (view);
  buffer = get_buffer (self);
  g_signal_connect (document, "disk-changed", G_CALLBACK (on_disk_changed), self);
  g_signal_connect_swapped (document, "loaded", G_CALLBACK (on_loaded), self);
  g_signal_connect_swapped (document, "saved", G_CALLBACK (on_saved), self);
  self->changed_tag = gtk_text_buffer_create_tag (buffer, "sandpad-changed-line",
                                                  "paragraph-background", "rgba(53,132,228,0.22)",
                                                  NULL);
  gtk_text_buffer_get_start_iter (buffer, &start);
  self->top_mark = gtk_text_buffer_create_mark (buffer, NULL, &start, TRUE);
}

SpReloadBar *
sp_file_change_bar_get_reload_bar (SpFileChangeBar *self)
{
  g_return_val_if_fail (SP_IS_FILE_CHANGE_BAR (self), NULL);
  return self->bar;
}
