/* sp-history-window.c: the runs of one file, and what changed between them.
 *
 * Its widgets are a template (ui/sp-history-window.ui): a list, a text
 * pane, a row of the run's kept plots under it and the header's buttons,
 * all filled from the store when it opens. The plots are the store's files, decoded the way the
 * panel decodes a run's (sp-image-texture.h: in the sandboxed helper, never
 * in this process): a kept image is still the program's output. A row of
 * a run that kept an image has a thumbnail of its first, decoded the same
 * way (shrunk by the helper), one at a time and only once its row has been
 * scrolled into view: a history of 200 plotting runs starts no helper for
 * the rows nobody looks at. */
#define G_LOG_DOMAIN "sp-history-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-history-window.h"
#include "sp-image-decode.h"
#include "sp-image-texture.h"
#include "sp-output-item.h"
#include "sp-text-fold.h"
#include "sp-visible-text.h"

/* A row's thumbnail: shown this high, decoded at twice that so that it
 * stays sharp at a scale of 2. */
#define THUMBNAIL_HEIGHT 48
#define THUMBNAIL_DECODE_SIDE (2 * THUMBNAIL_HEIGHT)
#define THUMBNAIL_PATH "sp-thumbnail-path"

struct _SpHistoryWindow
{
  AdwWindow parent_instance;

  GtkListBox *list;
  GtkTextView *text_view;
  GtkWidget *changes_button;
  GtkWidget *compare_button;
  GtkDropDown *compare_with; /* any run, to compare the selected one with */
  GtkStringList *run_names;  /* the drop-down's items, newest first as the list */
  GtkWidget *restore_button;
  GtkLabel *note;
  GtkWidget *plots_scroller;
  GtkBox *plots;

  GPtrArray *runs;         /* of SpRunRecord, oldest first */
  GCancellable *decoding;  /* the shown run's images */
  GCancellable *comparing; /* "Changes since last run", in a worker thread */
  GtkWidget *list_scroller;
  GCancellable *thumbnails;       /* the rows' thumbnails, one decode at a time */
  GtkPicture *decoding_thumbnail; /* the one being decoded, or NULL */
  guint thumbnail_idle;
};

enum
{
  RESTORE_CODE,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SpHistoryWindow, sp_history_window, ADW_TYPE_WINDOW)

/* The run a list row stands for; rows are newest first. */
static SpRunRecord *
selected_run (SpHistoryWindow *self, SpRunRecord **before)
{
  GtkListBoxRow *row = gtk_list_box_get_selected_row (self->list);
  guint index;

  if (before != NULL)
    *before = NULL;
  if (row == NULL || self->runs == NULL || self->runs->len == 0)
    return NULL;
  index = self->runs->len - 1 - (guint) gtk_list_box_row_get_index (row);
  if (before != NULL && index > 0)
    *before = g_ptr_array_index (self->runs, index - 1);
  return g_ptr_array_index (self->runs, index);
}

/* Colours the lines of a unified diff: added green, removed red. */
static void
tint_diff_lines (GtkTextBuffer *buffer)
{
  GtkTextIter line, end;

  gtk_text_buffer_get_start_iter (buffer, &line);
  while (!gtk_text_iter_is_end (&line))
    {
      g_autofree char *start = NULL;
      const char *tag;

      end = line;
      if (!gtk_text_iter_ends_line (&end))
        gtk_text_iter_forward_to_line_end (&end);
      start = gtk_text_iter_get_slice (&line, &end);
      /* "--- " and "+++ " name the two sides; they are not lines of them */
      if (g_str_has_prefix (start, "--- ") || g_str_has_prefix (start, "+++ "))
        tag = "header";
      else
        tag = start[0] == '+'   ? "added"
              : start[0] == '-' ? "removed"
              : start[0] == '@' ? "hunk"
                                : NULL;
      if (tag != NULL)
        gtk_text_buffer_apply_tag_by_name (buffer, tag, &line, &end);
      if (!gtk_text_iter_forward_line (&line))
        break;
    }
}

static void
stop_comparing (SpHistoryWindow *self)
{
  if (self->comparing != NULL)
    g_cancellable_cancel (self->comparing);
  g_clear_object (&self->comparing);
}

static void
show_text (SpHistoryWindow *self, const char *text, gboolean diff)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (SpVisibleSpan));
  /* A run's long lines folded (the record keeps them whole), and each
   * character that would hide or reorder text shown as its code point
   * (sp-visible-text.h). */
  g_autofree char *folded = sp_text_fold_lines (text, SP_TEXT_FOLD_VIEW_BYTES);
  g_autofree char *shown = sp_visible_text_escape (folded, -1, spans);
  gsize at = 0;
  glong offset = 0;

  /* Whatever is shown now replaces a comparison still being made. */
  stop_comparing (self);
  gtk_text_buffer_set_text (buffer, shown, -1);
  if (diff)
    tint_diff_lines (buffer);
  for (guint i = 0; i < spans->len; i++)
    {
      const SpVisibleSpan *span = &g_array_index (spans, SpVisibleSpan, i);
      GtkTextIter start, end;

      /* Counted on from the last escape: one pass over the text. */
      offset += g_utf8_pointer_to_offset (shown + at, shown + span->start);
      at = span->end;
      gtk_text_buffer_get_iter_at_offset (buffer, &start, (int) offset);
      end = start;
      /* An escape is ASCII: as many characters as bytes. */
      offset += (glong) (span->end - span->start);
      gtk_text_iter_forward_chars (&end, (int) (span->end - span->start));
      gtk_text_buffer_apply_tag_by_name (buffer, "hidden-char", &start, &end);
    }
}

/* The picture once the helper decoded it, or a line saying why not. */
static void
on_image_decoded (SpOutputItem *item, GParamSpec *pspec, GtkWidget *picture)
{
  GtkWidget *label = gtk_widget_get_next_sibling (picture);
  GObject *image = sp_output_item_get_image (item);
  const char *error = sp_output_item_get_image_error (item);

  gtk_picture_set_paintable (GTK_PICTURE (picture),
                             GDK_IS_PAINTABLE (image) ? GDK_PAINTABLE (image) : NULL);
  if (error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_ ("Cannot show this image (%s): %s"),
                                               sp_output_item_get_label (item), error);
      gtk_widget_set_visible (picture, FALSE);
      gtk_label_set_text (GTK_LABEL (label), text);
      gtk_widget_add_css_class (label, "warning");
    }
}

static void
clear_plots (SpHistoryWindow *self)
{
  GtkWidget *child;

  if (self->decoding != NULL)
    g_cancellable_cancel (self->decoding);
  g_clear_object (&self->decoding);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->plots))) != NULL)
    gtk_box_remove (self->plots, child);
  gtk_widget_set_visible (self->plots_scroller, FALSE);
}

/* The run's kept images, each decoded from where the store keeps it. */
static void
show_plots (SpHistoryWindow *self, SpRunRecord *run)
{
  g_autoptr (GPtrArray) items = g_ptr_array_new_with_free_func (g_object_unref);

  clear_plots (self);
  for (guint i = 0; i < run->images->len; i++)
    {
      SpRunImage *image = g_ptr_array_index (run->images, i);
      GtkWidget *box, *picture, *label;
      SpOutputItem *item;

      /* not stored (the store could not write the run): nothing to decode */
      if (image->path == NULL)
        continue;
      box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
      picture = gtk_picture_new ();
      label = gtk_label_new (image->name);
      item = sp_output_item_new_image (image->path, image->name);
      gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
      gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
      gtk_picture_set_alternative_text (GTK_PICTURE (picture), image->name);
      gtk_widget_set_size_request (picture, 320, 240);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_max_width_chars (GTK_LABEL (label), 40);
      gtk_widget_add_css_class (label, "dim-label");
      gtk_box_append (GTK_BOX (box), picture);
      gtk_box_append (GTK_BOX (box), label);
      gtk_box_append (self->plots, box);
      g_signal_connect_object (item, "notify::image", G_CALLBACK (on_image_decoded), picture, 0);
      g_ptr_array_add (items, item);
    }
  if (items->len == 0)
    return;
  gtk_widget_set_visible (self->plots_scroller, TRUE);
  self->decoding = g_cancellable_new ();
  /* At most eight kept images a run, each shrunk to display size. */
  sp_image_texture_decode_items (items, NULL, self->decoding);
}

static void
show_run (SpHistoryWindow *self)
{
  SpRunRecord *run = selected_run (self, NULL);
  g_autoptr (GString) text = g_string_new (NULL);

  gtk_widget_set_sensitive (self->restore_button, run != NULL);
  gtk_widget_set_sensitive (self->changes_button, run != NULL && self->runs->len > 1);
  gtk_widget_set_sensitive (self->compare_button, run != NULL && self->runs->len > 1);
  /* Compare With starts at the run before the selected one. */
  if (run != NULL && self->runs->len > 1)
    {
      guint selected = (guint) gtk_list_box_row_get_index (
        gtk_list_box_get_selected_row (self->list));
      gtk_drop_down_set_selected (self->compare_with,
                                  selected + 1 < self->runs->len ? selected + 1 : selected - 1);
    }
  if (run == NULL)
    {
      clear_plots (self);
      show_text (self, "", FALSE);
      return;
    }
  show_plots (self, run);
  g_string_append_printf (text, "%s\n", run->end);
  if (run->tool != NULL)
    /* TRANSLATORS: %s is the assistant's tool, "edit_and_execute" */
    g_string_append_printf (text, _ ("Run by an assistant (%s)\n"), run->tool);
  if (run->error != NULL)
    g_string_append_printf (text, _ ("Error: %s\n"), run->error);
  for (guint i = 0; run->files != NULL && run->files[i] != NULL; i++)
    g_string_append_printf (text, _ ("File: %s\n"), run->files[i]);
  g_string_append_printf (text, _ ("\n── Code (%s) ──\n%s"), run->language, run->code);
  if (!g_str_has_suffix (run->code, "\n"))
    g_string_append_c (text, '\n');
  if (run->diff != NULL && *run->diff != '\0')
    {
      g_string_append_printf (text, _ ("\n── The assistant's edit ──\n%s"), run->diff);
      if (!g_str_has_suffix (run->diff, "\n"))
        g_string_append_c (text, '\n');
    }
  g_string_append_printf (text, _ ("\n── stdout ──\n%s"), run->stdout_text);
  if (*run->stderr_text != '\0')
    g_string_append_printf (text, _ ("\n── stderr ──\n%s"), run->stderr_text);
  if (run->output_cut)
    g_string_append (text, _ ("\n(The output was longer; its start is kept.)\n"));
  show_text (self, text->str, FALSE);
}

static void
on_compared (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpHistoryWindow) self = user_data;
  g_autofree char *body = NULL;
  g_autoptr (SpRunComparison) comparison = sp_run_record_compare_finish (result, &body, NULL);
  g_autofree char *line = NULL;
  g_autofree char *text = NULL;

  /* Cancelled: another run was selected, or the window went. */
  if (comparison == NULL)
    return;
  line = sp_run_comparison_describe (comparison);
  text = g_strdup_printf ("%s\n\n%s", line, body);
  show_text (self, text, TRUE);
}

/* The diff of two runs' code and outputs (up to 256 KiB each) is made in
 * a worker thread: on the main thread a large one froze the window (issue
 * 29). The older of the two is the "last run" side. */
static void
compare_runs (SpHistoryWindow *self, SpRunRecord *run, SpRunRecord *other)
{
  /* the comparison is of text; the plots are the selected run's */
  clear_plots (self);
  if (run == NULL || other == NULL || run == other)
    {
      show_text (self, _ ("There is no earlier run to compare with."), FALSE);
      return;
    }
  show_text (self, _ ("Comparing…"), FALSE);
  self->comparing = g_cancellable_new ();
  if (other->time_us <= run->time_us)
    sp_run_record_compare_async (other, run, TRUE, self->comparing, on_compared,
                                 g_object_ref (self));
  else
    sp_run_record_compare_async (run, other, TRUE, self->comparing, on_compared,
                                 g_object_ref (self));
}

void
sp_history_window_show_changes (SpHistoryWindow *self)
{
  SpRunRecord *before = NULL;
  SpRunRecord *run;

  g_return_if_fail (SP_IS_HISTORY_WINDOW (self));
  run = selected_run (self, &before);
  compare_runs (self, run, before);
}

void
sp_history_window_compare_with (SpHistoryWindow *self, guint index)
{
  SpRunRecord *run;

  g_return_if_fail (SP_IS_HISTORY_WINDOW (self));
  run = selected_run (self, NULL);
  if (index >= self->runs->len)
    return;
  gtk_drop_down_set_selected (self->compare_with, index);
  compare_runs (self, run, g_ptr_array_index (self->runs, self->runs->len - 1 - index));
}

/* Whether "Changes since last run" is still being made. */
gboolean
sp_history_window_is_comparing (SpHistoryWindow *self)
{
  g_return_val_if_fail (SP_IS_HISTORY_WINDOW (self), FALSE);
  return self->comparing != NULL;
}

static void
on_changes_clicked (GtkButton *button, SpHistoryWindow *self)
{
  sp_history_window_show_changes (self);
}

static void
on_compare_clicked (GtkButton *button, SpHistoryWindow *self)
{
  sp_history_window_compare_with (self, gtk_drop_down_get_selected (self->compare_with));
}

static void
on_restore_clicked (GtkButton *button, SpHistoryWindow *self)
{
  SpRunRecord *run = selected_run (self, NULL);

  if (run != NULL)
    g_signal_emit (self, signals[RESTORE_CODE], 0, run->code, run->language);
}

static void
on_row_selected (GtkListBox *list, GtkListBoxRow *row, SpHistoryWindow *self)
{
  show_run (self);
}

static char *
run_time (SpRunRecord *run)
{
  g_autoptr (GDateTime) when = g_date_time_new_from_unix_local (run->time_us / G_USEC_PER_SEC);

  return g_date_time_format (when, "%x %X");
}

/* A row: when, how long, and what sets the run apart from the one before
 * (every run "Exited with code 0" told nothing); how it ended is the
 * tooltip, and a failed run is in the error colour. */
static GtkLabel *
row_label (GtkListBoxRow *row)
{
  GtkWidget *child = gtk_list_box_row_get_child (row);

  return GTK_LABEL (GTK_IS_BOX (child) ? gtk_widget_get_first_child (child) : child);
}

static GtkPicture *
row_thumbnail (GtkListBoxRow *row)
{
  GtkWidget *child = gtk_list_box_row_get_child (row);
  GtkWidget *last = child != NULL && GTK_IS_BOX (child) ? gtk_widget_get_last_child (child) : NULL;

  return last != NULL && GTK_IS_PICTURE (last) ? GTK_PICTURE (last) : NULL;
}

/* Whether any of the row is inside the list's viewport now. */
static gboolean
row_in_view (SpHistoryWindow *self, GtkWidget *row)
{
  graphene_rect_t bounds;
  int height = gtk_widget_get_height (self->list_scroller);

  if (!gtk_widget_get_mapped (row) || height <= 0
      || !gtk_widget_compute_bounds (row, self->list_scroller, &bounds))
    return FALSE;
  return bounds.origin.y + bounds.size.height > 0 && bounds.origin.y < height;
}

static void load_thumbnails (SpHistoryWindow *self);

static void
on_thumbnail_decoded (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpHistoryWindow) self = user_data;
  g_autoptr (SpDecodedImage) image = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GtkPicture) picture = NULL;

  image = sp_image_decode_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  picture = g_steal_pointer (&self->decoding_thumbnail);
  if (image != NULL)
    {
      g_autoptr (GdkTexture) texture = sp_image_texture_new (image);
      gtk_picture_set_paintable (picture, GDK_PAINTABLE (texture));
    }
  else
    {
      /* The row keeps its text; the picture says why it is empty. */
      g_debug ("no thumbnail: %s", error->message);
      gtk_widget_set_tooltip_text (GTK_WIDGET (picture), error->message);
    }
  load_thumbnails (self);
}

/* Starts the decode of the first thumbnail in view that has none yet,
 * unless one is being decoded: one helper at a time, and only for the
 * rows a person can see. */
static void
load_thumbnails (SpHistoryWindow *self)
{
  GtkListBoxRow *row;

  if (self->decoding_thumbnail != NULL || self->list == NULL)
    return;
  for (int i = 0; (row = gtk_list_box_get_row_at_index (self->list, i)) != NULL; i++)
    {
      GtkPicture *picture = row_thumbnail (row);
      const char *path;
      g_autofree char *dir = NULL;
      g_autofree char *name = NULL;

      if (picture == NULL || (path = g_object_get_data (G_OBJECT (picture), THUMBNAIL_PATH)) == NULL
          || !row_in_view (self, GTK_WIDGET (row)))
        continue;
      dir = g_path_get_dirname (path);
      name = g_path_get_basename (path);
      /* Asked for once: a failure is not retried at each scroll. */
      g_object_set_data (G_OBJECT (picture), THUMBNAIL_PATH, NULL);
      self->decoding_thumbnail = g_object_ref (picture);
      if (self->thumbnails == NULL)
        self->thumbnails = g_cancellable_new ();
      sp_image_decode_scaled_async (dir, name, THUMBNAIL_DECODE_SIDE, NULL, 0, self->thumbnails,
                                    on_thumbnail_decoded, g_object_ref (self));
      return;
    }
}

static gboolean
load_thumbnails_idle (gpointer data)
{
  SpHistoryWindow *self = data;

  self->thumbnail_idle = 0;
  load_thumbnails (self);
  return G_SOURCE_REMOVE;
}

/* Scrolled, resized or refilled: looked at once the layout settled. */
static void
queue_load_thumbnails (SpHistoryWindow *self)
{
  if (self->thumbnail_idle == 0)
    self->thumbnail_idle = g_idle_add_full (G_PRIORITY_LOW, load_thumbnails_idle, self, NULL);
}

/* The run's first kept image as a thumbnail at the row's end, to be
 * decoded when the row comes into view (its file's path is kept on the
 * picture until then); the label alone for a run that kept none. */
static GtkWidget *
with_thumbnail (SpRunRecord *run, GtkWidget *label)
{
  GtkWidget *box, *picture;
  SpRunImage *image = NULL;

  for (guint i = 0; i < run->images->len && image == NULL; i++)
    if (((SpRunImage *) g_ptr_array_index (run->images, i))->path != NULL)
      image = g_ptr_array_index (run->images, i);
  if (image == NULL)
    return label;
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  picture = gtk_picture_new ();
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
  gtk_picture_set_alternative_text (GTK_PICTURE (picture), image->name);
  gtk_widget_set_size_request (picture, THUMBNAIL_HEIGHT * 4 / 3, THUMBNAIL_HEIGHT);
  gtk_widget_set_valign (picture, GTK_ALIGN_CENTER);
  gtk_widget_set_margin_end (picture, 8);
  gtk_widget_add_css_class (picture, "sp-history-thumbnail");
  g_object_set_data_full (G_OBJECT (picture), THUMBNAIL_PATH, g_strdup (image->path), g_free);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), picture);
  return box;
}

static GtkWidget *
make_row (SpRunRecord *run, SpRunRecord *previous)
{
  g_autofree char *time = run_time (run);
  g_autofree char *summary = sp_run_record_summary (run, previous);
  g_autofree char *shown = sp_visible_text_escape (summary, -1, NULL);
  g_autofree char *line = NULL;
  GtkWidget *label;

  /* TRANSLATORS: a run in the history: date and time, seconds it took, then
   * on a line of its own what changed ("Code: x = 2") */
  if (run->tool != NULL)
    {
      g_autofree char *tool = sp_visible_text_escape (run->tool, -1, NULL);
      /* TRANSLATORS: as above, for a run an assistant made through
       * sandpad-mcp; the last %s is its tool ("edit_and_execute") */
      line = g_strdup_printf (_ ("%s · %.2f s · by an assistant (%s)\n%s"), time,
                              run->duration_ms / 1000.0, tool, shown);
    }
  else
    line = g_strdup_printf (_ ("%s · %.2f s\n%s"), time, run->duration_ms / 1000.0, shown);
  label = gtk_label_new (line);
  gtk_widget_set_tooltip_text (label, run->end);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_margin_start (label, 8);
  gtk_widget_set_margin_end (label, 8);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_margin_bottom (label, 6);
  if (!run->succeeded)
    gtk_widget_add_css_class (label, "error");
  if (run->tool != NULL)
    gtk_widget_add_css_class (label, "sp-assistant-run");
  return with_thumbnail (run, label);
}

static void
sp_history_window_dispose (GObject *object)
{
  SpHistoryWindow *self = SP_HISTORY_WINDOW (object);

  /* The list unselects its rows as it goes; nothing is left to show. */
  if (self->list != NULL)
    g_signal_handlers_disconnect_by_data (self->list, self);
  self->list = NULL;
  if (self->decoding != NULL)
    g_cancellable_cancel (self->decoding);
  g_clear_object (&self->decoding);
  if (self->thumbnails != NULL)
    g_cancellable_cancel (self->thumbnails);
  g_clear_object (&self->thumbnails);
  g_clear_object (&self->decoding_thumbnail);
  g_clear_handle_id (&self->thumbnail_idle, g_source_remove);
  stop_comparing (self);
  g_clear_pointer (&self->runs, g_ptr_array_unref);
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_HISTORY_WINDOW);
  G_OBJECT_CLASS (sp_history_window_parent_class)->dispose (object);
}

static void
sp_history_window_class_init (SpHistoryWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = sp_history_window_dispose;
  signals[RESTORE_CODE] = g_signal_new ("restore-code", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                        G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-history-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, list);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, list_scroller);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, text_view);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, changes_button);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, compare_button);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, compare_with);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, run_names);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, restore_button);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, note);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, plots_scroller);
  gtk_widget_class_bind_template_child (widget_class, SpHistoryWindow, plots);
  gtk_widget_class_bind_template_callback (widget_class, on_changes_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_compare_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_restore_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_row_selected);
}

static void
sp_history_window_init (SpHistoryWindow *self)
{
  GtkTextBuffer *buffer;
  GtkAdjustment *adjustment;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->runs = g_ptr_array_new_with_free_func ((GDestroyNotify) sp_run_record_free);

  /* value: scrolled; changed: laid out or resized (rows come into view) */
  adjustment = gtk_scrolled_window_get_vadjustment (GTK_SCROLLED_WINDOW (self->list_scroller));
  g_signal_connect_object (adjustment, "value-changed", G_CALLBACK (queue_load_thumbnails), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (adjustment, "changed", G_CALLBACK (queue_load_thumbnails), self,
                           G_CONNECT_SWAPPED);

  /* How a comparison and a hidden character are marked. */
  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_create_tag (buffer, "added", "paragraph-background", "rgba(46,194,126,0.22)",
                              NULL);
  gtk_text_buffer_create_tag (buffer, "removed", "paragraph-background", "rgba(224,27,36,0.18)",
                              NULL);
  gtk_text_buffer_create_tag (buffer, "hunk", "foreground", "#1c71d8", NULL);
  gtk_text_buffer_create_tag (buffer, "header", "weight", PANGO_WEIGHT_BOLD, NULL);
  gtk_text_buffer_create_tag (buffer, "hidden-char", "underline", PANGO_UNDERLINE_ERROR, "style",
                              PANGO_STYLE_ITALIC, NULL);
}

SpHistoryWindow *
sp_history_window_new (GtkWindow *parent, SpRunHistory *history, const char *key)
{
  SpHistoryWindow *self = g_object_new (SP_TYPE_HISTORY_WINDOW, "transient-for", parent, NULL);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);

  g_clear_pointer (&self->runs, g_ptr_array_unref);
  self->runs = sp_run_history_list (history, key, warnings);
  for (guint i = self->runs->len; i-- > 0;)
    {
      SpRunRecord *run = g_ptr_array_index (self->runs, i);
      g_autofree char *time = run_time (run);

      gtk_list_box_append (self->list,
                           make_row (run, i > 0 ? g_ptr_array_index (self->runs, i - 1) : NULL));
      gtk_string_list_append (self->run_names, time);
    }
  if (warnings->len > 0)
    {
      g_ptr_array_add (warnings, NULL);
      g_autofree char *text = g_strjoinv ("\n", (char **) warnings->pdata);
      gtk_label_set_text (self->note, text);
      gtk_widget_set_visible (GTK_WIDGET (self->note), TRUE);
    }
  if (self->runs->len == 0)
    show_text (self, _ ("This file has no runs yet."), FALSE);
  else
    sp_history_window_select (self, 0);
  show_run (self);
  queue_load_thumbnails (self);
  return self;
}

static void
on_recorded (SpHistoryWindow *self, SpRunRecord *record)
{
  sp_history_window_add_run (self, record);
}

SpHistoryWindow *
sp_history_window_new_for_recorder (GtkWindow *parent, SpRunRecorder *recorder)
{
  g_autofree char *key = NULL;
  SpHistoryWindow *self;

  g_return_val_if_fail (SP_IS_RUN_RECORDER (recorder), NULL);

  /* The key now: the file may have had another name when the window
   * opened before. */
  key = sp_run_recorder_dup_key (recorder);
  self = sp_history_window_new (parent, sp_run_recorder_get_store (recorder), key);
  g_signal_connect_object (recorder, "recorded", G_CALLBACK (on_recorded), self, G_CONNECT_SWAPPED);
  return self;
}

void
sp_history_window_select (SpHistoryWindow *self, guint index)
{
  GtkListBoxRow *row;

  g_return_if_fail (SP_IS_HISTORY_WINDOW (self));
  row = gtk_list_box_get_row_at_index (self->list, (int) index);
  if (row != NULL)
    gtk_list_box_select_row (self->list, row);
}

guint
sp_history_window_get_n_runs (SpHistoryWindow *self)
{
  g_return_val_if_fail (SP_IS_HISTORY_WINDOW (self), 0);
  return self->runs->len;
}

char *
sp_history_window_get_text (SpHistoryWindow *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (SP_IS_HISTORY_WINDOW (self), NULL);
  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

void
sp_history_window_add_run (SpHistoryWindow *self, const SpRunRecord *record)
{
  SpRunRecord *copy;

  g_return_if_fail (SP_IS_HISTORY_WINDOW (self));
  g_return_if_fail (record != NULL);
  copy = sp_run_record_copy (record);
  g_ptr_array_add (self->runs, copy);
  gtk_list_box_prepend (self->list,
                        make_row (copy, self->runs->len > 1
                                          ? g_ptr_array_index (self->runs, self->runs->len - 2)
                                          : NULL));
  {
    g_autofree char *time = run_time (copy);
    const char *names[] = { time, NULL };
    gtk_string_list_splice (self->run_names, 0, 0, names);
  }
  sp_history_window_select (self, 0);
  show_run (self);
  queue_load_thumbnails (self);
}

char *
sp_history_window_get_row_text (SpHistoryWindow *self, guint index)
{
  GtkListBoxRow *row;

  g_return_val_if_fail (SP_IS_HISTORY_WINDOW (self), NULL);
  row = gtk_list_box_get_row_at_index (self->list, (int) index);
  if (row == NULL)
    return NULL;
  return g_strdup (gtk_label_get_text (row_label (row)));
}

GdkPaintable *
sp_history_window_get_row_thumbnail (SpHistoryWindow *self, guint index, gboolean *has)
{
  GtkListBoxRow *row;
  GtkPicture *picture;

  g_return_val_if_fail (SP_IS_HISTORY_WINDOW (self), NULL);
  row = gtk_list_box_get_row_at_index (self->list, (int) index);
  picture = row != NULL ? row_thumbnail (row) : NULL;
  if (has != NULL)
    *has = picture != NULL;
  return picture != NULL ? gtk_picture_get_paintable (picture) : NULL;
}
