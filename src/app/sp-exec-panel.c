/* sp-exec-panel.c: the execution panel beside the editor. */
#define G_LOG_DOMAIN "sp-exec-panel"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sp-ansi.h"
#include "sp-csv.h"
#include "sp-run-file.h"
#include "sp-exec-panel.h"
#include "sp-file-dialog.h"
#include "sp-image-loader.h"
#include "sp-visible-text.h"
#include "sp-image-window.h"
#include "sp-output-item.h"
#include "sp-traceback.h"
#include "sp-transcript.h"

struct _SpExecPanel
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkSpinner *spinner;
  GtkLabel *status_label;
  GtkWidget *policy_card;
  GtkLabel *policy_title;
  GtkLabel *policy_warnings;
  GtkLabel *policy_limits;
  GtkExpander *policy_details;
  GtkLabel *policy_label;
  SpTranscript *transcript;
  GtkEntry *input_entry;

  GListModel *output;
  /* The snippet's name in the run (main.py) and the user's name for it,
   * to make error text link to the editor. */
  char *snippet_name;
  char *display_name;
  GFile *save_folder; /* where Save As starts; NULL: the home folder */
  GCancellable *reads; /* previews and saves of the run's files, cancelled in dispose */
  SpImageLoader *images; /* decodes the images in view */
  gboolean running;
  /* The program seems to wait for input; the limit keeps counting. */
  gboolean waiting;
  guint timeout_s;
  gint64 started_at;
  guint tick_id;
};

G_DEFINE_FINAL_TYPE (SpExecPanel, sp_exec_panel, GTK_TYPE_WIDGET)

/* A run's text in a label: a character that would hide or reorder it (a
 * bidi override in a file name, a zero-width space in output) shown as
 * its code point in a style of its own (sp-visible-text.h). */
static void
set_run_text (GtkWidget *label, const char *text)
{
  if (sp_visible_text_has_hidden (text, -1))
    {
      g_autofree char *markup = sp_visible_text_to_markup (text, -1);
      gtk_label_set_markup (GTK_LABEL (label), markup);
    }
  else
    gtk_label_set_text (GTK_LABEL (label), text);
}

enum
{
  INPUT,
  CLEAR,
  GOTO_LINE,
  OPEN_FILE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void on_action_clicked (GtkButton *button, SpExecPanel *self);
static gboolean on_activate_link (GtkLabel *label, const char *uri, SpExecPanel *self);
static void on_picture_released (GtkGestureClick *click, int n_press, double x, double y,
                                 SpExecPanel *self);

/* A row is a box holding a text label, a picture, an error block, file
 * actions and previews; bind shows what the item needs. All but the label
 * are only for images, errors and files: they are made the first time a
 * row shows one, so the many rows of text (a list view makes up to 200 at
 * once) cost one label each. */
static void
add_row_parts (GtkWidget *box, gpointer user_data)
{
  GtkWidget *picture = gtk_picture_new ();
  /* One button per frame, one Tab stop each, in the traceback's order. */
  GtkWidget *frames = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);

  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
  gtk_widget_set_size_request (picture, -1, 240);
  {
    /* A click on a plot opens it full size, like the Full Size button. */
    GtkGesture *click = gtk_gesture_click_new ();
    g_signal_connect_object (click, "released", G_CALLBACK (on_picture_released), user_data, 0);
    gtk_widget_add_controller (picture, GTK_EVENT_CONTROLLER (click));
  }
  GtkWidget *actions = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *preview = gtk_label_new (NULL);
  GtkWidget *table = gtk_grid_new ();
  const char *const buttons[][2] = { { "open", N_("Open") },
                                     { "save", N_("Save As…") },
                                     { "copy", N_("Copy") },
                                     { "full", N_("Full Size") },
                                     { "show", N_("Show") } };

  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    {
      GtkWidget *button = gtk_button_new_with_label (_(buttons[i][1]));
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_name (button, buttons[i][0]);
      g_signal_connect_object (button, "clicked", G_CALLBACK (on_action_clicked), user_data, 0);
      gtk_box_append (GTK_BOX (actions), button);
    }
  gtk_label_set_xalign (GTK_LABEL (preview), 0);
  gtk_label_set_selectable (GTK_LABEL (preview), TRUE);
  gtk_widget_add_css_class (preview, "output");
  gtk_widget_add_css_class (preview, "preview");
  gtk_grid_set_column_spacing (GTK_GRID (table), 12);
  gtk_widget_add_css_class (table, "preview");
  gtk_box_append (GTK_BOX (box), picture);
  gtk_box_append (GTK_BOX (box), frames);
  gtk_box_append (GTK_BOX (box), actions);
  gtk_box_append (GTK_BOX (box), preview);
  gtk_box_append (GTK_BOX (box), table);
}

static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "output");
  {
    /* Wrapped output must not gain hyphens that are not in it. */
    PangoAttrList *attrs = pango_attr_list_new ();
    pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
    gtk_label_set_attributes (GTK_LABEL (label), attrs);
    pango_attr_list_unref (attrs);
  }
  g_signal_connect_object (label, "activate-link", G_CALLBACK (on_activate_link), user_data, 0);
  gtk_box_append (GTK_BOX (box), label);
  gtk_list_item_set_child (item, box);
  gtk_list_item_set_activatable (item, FALSE);
  /* The row rebinds itself when its image arrives; the panel outlives
   * its rows. */
  g_object_set_data (G_OBJECT (item), "panel", user_data);
}

static void
on_frame_clicked (GtkButton *button, SpExecPanel *self)
{
  int line = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "line"));

  g_signal_emit (self, signals[GOTO_LINE], 0, line);
}

/* A link in error text ("File "main.py", line 4"): show that line. Other
 * links (none are made today) are not followed. */
static gboolean
on_activate_link (GtkLabel *label, const char *uri, SpExecPanel *self)
{
  int line = sp_traceback_link_line (uri);

  if (line > 0)
    g_signal_emit (self, signals[GOTO_LINE], 0, line);
  return TRUE;
}

static gboolean
frame_listed (SpErrorInfo *error, guint index)
{
  const SpErrorFrame *frame = sp_error_info_get_frame (error, index);

  for (guint i = 0; i < index; i++)
    {
      const SpErrorFrame *other = sp_error_info_get_frame (error, i);
      if (other->in_snippet && other->line == frame->line
          && g_strcmp0 (other->function, frame->function) == 0)
        return TRUE;
    }
  return FALSE;
}

static void
bind_error (SpExecPanel *self, GtkWidget *frames, SpErrorInfo *error)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (frames)) != NULL)
    gtk_box_remove (GTK_BOX (frames), child);
  /* In the traceback's order, read top to bottom, each place once (a
   * recursion repeats the same frames). */
  for (guint i = 0; i < sp_error_info_get_n_frames (error); i++)
    {
      const SpErrorFrame *frame = sp_error_info_get_frame (error, i);
      g_autofree char *text = NULL;
      GtkWidget *button;

      if (!frame->in_snippet || frame_listed (error, i))
        continue;
      text = frame->function ? g_strdup_printf (_("Line %d, in %s"), frame->line, frame->function)
                             : g_strdup_printf (_("Line %d"), frame->line);
      button = gtk_button_new_with_label (text);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_halign (button, GTK_ALIGN_START);
      gtk_widget_set_tooltip_text (button, _("Show this line in the editor"));
      g_object_set_data (G_OBJECT (button), "line", GINT_TO_POINTER (frame->line));
      g_signal_connect_object (button, "clicked", G_CALLBACK (on_frame_clicked), self, 0);
      gtk_box_append (GTK_BOX (frames), button);
    }
}

#define PREVIEW_LINES 8

#define PREVIEW_COLUMNS 8

/* CSV and TSV as a table: each quoted field one cell, so columns line up;
 * what is left out is said in the last row and column. */
static void
bind_table (GtkWidget *table, const char *head, gboolean whole, char separator)
{
  g_autoptr (SpCsvPreview) csv
    = sp_csv_preview_parse (head, whole, separator, PREVIEW_LINES, PREVIEW_COLUMNS);

  for (guint r = 0; r < csv->rows->len; r++)
    {
      char **cells = g_ptr_array_index (csv->rows, r);
      for (guint c = 0; cells[c] != NULL; c++)
        {
          GtkWidget *cell = gtk_label_new (cells[c]);
          gtk_label_set_xalign (GTK_LABEL (cell), 0);
          gtk_label_set_single_line_mode (GTK_LABEL (cell), TRUE);
          gtk_label_set_ellipsize (GTK_LABEL (cell), PANGO_ELLIPSIZE_END);
          gtk_label_set_max_width_chars (GTK_LABEL (cell), 24);
          gtk_widget_set_tooltip_text (cell, cells[c]);
          if (r == 0)
            gtk_widget_add_css_class (cell, "heading");
          gtk_grid_attach (GTK_GRID (table), cell, (int) c, (int) r, 1, 1);
        }
    }
  if (csv->more_cols)
    gtk_grid_attach (GTK_GRID (table), gtk_label_new ("…"), PREVIEW_COLUMNS, 0, 1, 1);
  if (csv->more_rows || csv->more_cols)
    {
      GtkWidget *note = gtk_label_new (
        csv->more_rows && csv->more_cols
          ? _("Only the first rows and columns are shown; Save As keeps the whole file")
        : csv->more_rows ? _("Only the first rows are shown; Save As keeps the whole file")
                         : _("Only the first columns are shown; Save As keeps the whole file"));
      gtk_label_set_xalign (GTK_LABEL (note), 0);
      gtk_label_set_wrap (GTK_LABEL (note), TRUE);
      gtk_widget_add_css_class (note, "dim-label");
      gtk_grid_attach (GTK_GRID (table), note, 0, (int) csv->rows->len, PREVIEW_COLUMNS + 1, 1);
    }
}

/* The first bytes of a text file, shown: its first lines, or CSV as a
 * small table. */
static void
show_preview (GtkWidget *preview, GtkWidget *table, SpOutputItem *item)
{
  const char *mime = sp_output_item_get_mime (item);
  gboolean whole = FALSE;
  GBytes *bytes = sp_output_item_get_preview (item, &whole);
  g_autofree char *head = NULL;
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;
  gsize len = 0;
  const char *data;

  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    return;
  data = g_bytes_get_data (bytes, &len);
  head = g_utf8_make_valid (data, (gssize) len);
  if (g_str_equal (mime, "text/csv") || g_str_equal (mime, "text/tab-separated-values"))
    {
      bind_table (table, head, whole, g_str_equal (mime, "text/csv") ? ',' : '\t');
      gtk_widget_set_visible (table, TRUE);
      return;
    }
  lines = g_strsplit (head, "\n", PREVIEW_LINES + 1);
  /* The split's last piece holds the rest of what was read: not shown,
   * but said. */
  if (g_strv_length (lines) > PREVIEW_LINES)
    {
      g_free (lines[PREVIEW_LINES]);
      lines[PREVIEW_LINES] = g_strdup ("…");
    }
  else if (!whole)
    {
      guint n = g_strv_length (lines);
      lines = g_renew (char *, lines, n + 2);
      lines[n] = g_strdup ("…");
      lines[n + 1] = NULL;
    }
  text = g_strjoinv ("\n", lines);
  set_run_text (preview, text);
  gtk_widget_set_visible (preview, TRUE);
}

/* A preview on its way: the row's preview label and the item it was for. */
typedef struct
{
  GtkWidget *preview;
  SpOutputItem *item;
} PreviewRead;

static void
preview_read_free (PreviewRead *r)
{
  g_object_unref (r->preview);
  g_object_unref (r->item);
  g_free (r);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PreviewRead, preview_read_free)

static void
on_preview_read (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (PreviewRead) r = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = NULL;
  gboolean whole = FALSE;
  GtkWidget *actions;

  bytes = sp_run_file_read_finish (result, &whole, &error);
  g_object_set_data (G_OBJECT (r->item), "sp-preview-reading", NULL);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bytes == NULL)
    {
      g_debug ("no preview of %s: %s", sp_output_item_get_label (r->item), error->message);
      /* A file the run made into a symlink or FIFO shows no preview, and
       * is not read again for each bind. */
      bytes = g_bytes_new (NULL, 0);
    }
  sp_output_item_set_preview (r->item, bytes, whole);
  /* Only if the row still shows the item it asked for. */
  actions = gtk_widget_get_prev_sibling (r->preview);
  if (actions != NULL && g_object_get_data (G_OBJECT (actions), "item") == r->item)
    show_preview (r->preview, gtk_widget_get_next_sibling (r->preview), r->item);
}

/* Text files preview their first lines, read off the main thread through
 * sp-run-file.h (a FIFO or a slow disk must not hold the window, a
 * symlink must not show its target); the bytes stay on the item for the
 * next bind. */
static void
bind_preview (SpExecPanel *self, GtkWidget *preview, GtkWidget *table, SpOutputItem *item)
{
  const char *mime = sp_output_item_get_mime (item);
  GtkWidget *child;
  PreviewRead *r;

  while ((child = gtk_widget_get_first_child (table)) != NULL)
    gtk_grid_remove (GTK_GRID (table), child);
  if (!g_str_has_prefix (mime, "text/") && !g_str_equal (mime, "application/json"))
    return;
  if (sp_output_item_get_name (item) == NULL)
    return;
  if (sp_output_item_get_preview (item, NULL) != NULL)
    {
      show_preview (preview, table, item);
      return;
    }
  if (g_object_get_data (G_OBJECT (item), "sp-preview-reading") != NULL)
    return;
  g_object_set_data (G_OBJECT (item), "sp-preview-reading", GINT_TO_POINTER (1));
  if (self->reads == NULL)
    self->reads = g_cancellable_new ();
  r = g_new0 (PreviewRead, 1);
  r->preview = g_object_ref (preview);
  r->item = g_object_ref (item);
  sp_run_file_read_async (sp_output_item_get_dir (item), sp_output_item_get_name (item), 4096,
                          SP_RUN_FILE_READ_HEAD, self->reads, on_preview_read, r);
}

/* Feedback where the window shows it (the toast overlay around us). */
static void
panel_toast (SpExecPanel *self, const char *text)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);

  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (text));
}

/* A save on its way: the panel to say how it went in, and the name saved as. */
typedef struct
{
  SpExecPanel *self;
  char *name;
} SaveDone;

static void
save_done_free (SaveDone *done)
{
  g_object_unref (done->self);
  g_free (done->name);
  g_free (done);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SaveDone, save_done_free)

static void
on_saved (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SaveDone) done = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *message = NULL;

  if (sp_run_file_save_finish (result, &error))
    message = g_strdup_printf (_("Saved as %s"), done->name);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  else
    message = g_strdup_printf (_("Could not save %s: %s"), done->name, error->message);
  panel_toast (done->self, message);
}

/* What Save As… was asked for, until the dialog answers. */
typedef struct
{
  SpExecPanel *self;
  SpOutputItem *item;
} SaveAs;

static void
on_save_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveAs *save_as = user_data;
  g_autoptr (SpExecPanel) self = save_as->self;
  g_autoptr (SpOutputItem) item = save_as->item;
  g_autoptr (GFile) dest = sp_file_dialog_choose_finish (result, NULL);

  g_free (save_as);
  if (dest != NULL)
    {
      SaveDone *done = g_new0 (SaveDone, 1);

      done->self = g_object_ref (self);
      done->name = g_file_get_basename (dest);
      if (self->reads == NULL)
        self->reads = g_cancellable_new ();
      /* The bytes of a regular file of the run, read through an fd that
       * followed no symlink: never a link (g_file_copy with
       * NOFOLLOW_SYMLINKS made report.csv -> ../.bashrc a link in the
       * person's folder, issue 29). */
      sp_run_file_save_async (sp_output_item_get_dir (item), sp_output_item_get_name (item), dest,
                              self->reads, on_saved, done);
    }
}

static void
on_action_clicked (GtkButton *button, SpExecPanel *self)
{
  GtkWidget *actions = gtk_widget_get_parent (GTK_WIDGET (button));
  SpOutputItem *item = g_object_get_data (G_OBJECT (actions), "item");
  const char *what = gtk_widget_get_name (GTK_WIDGET (button));
  GtkWindow *parent = GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self)));

  /* Open and Save As only for a regular file the runner could name. */
  if ((g_str_equal (what, "open") || g_str_equal (what, "save"))
      && sp_output_item_get_name (item) == NULL)
    return;
  if (g_str_equal (what, "open"))
    g_signal_emit (self, signals[OPEN_FILE], 0, item);
  else if (g_str_equal (what, "save"))
    {
      g_autofree char *base = g_path_get_basename (sp_output_item_get_label (item));
      g_autoptr (GFile) home = g_file_new_for_path (g_get_home_dir ());
      SaveAs *save_as = g_new0 (SaveAs, 1);

      save_as->self = g_object_ref (self);
      save_as->item = g_object_ref (item);
      /* The snippet's folder, or home: never the app's working directory
       * (and never the run's, which goes away with the next run). */
      sp_file_dialog_choose_async (parent, SP_FILE_DIALOG_SAVE, _("Save File"), _("_Save"),
                                   self->save_folder ? self->save_folder : home, base, NULL,
                                   on_save_chosen, save_as);
    }
  else if (g_str_equal (what, "copy"))
    {
      /* The texture the helper decoded: the file is never parsed here. */
      GObject *image = sp_output_item_get_image (item);
      if (GDK_IS_TEXTURE (image))
        {
          gdk_clipboard_set_texture (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                                     GDK_TEXTURE (image));
          panel_toast (self, _("Image copied"));
        }
    }
  else if (g_str_equal (what, "show"))
    sp_image_loader_show (self->images, item);
  else if (g_str_equal (what, "full") && GDK_IS_PAINTABLE (sp_output_item_get_image (item)))
    {
      GtkWidget *window = sp_image_window_new (
        parent, GDK_PAINTABLE (sp_output_item_get_image (item)), sp_output_item_get_label (item));
      gtk_window_present (GTK_WINDOW (window));
    }
}

static void
on_picture_released (GtkGestureClick *click, int n_press, double x, double y, SpExecPanel *self)
{
  GtkWidget *picture = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (click));
  GtkWidget *actions = gtk_widget_get_next_sibling (gtk_widget_get_next_sibling (picture));

  for (GtkWidget *b = gtk_widget_get_first_child (actions); b; b = gtk_widget_get_next_sibling (b))
    if (g_str_equal (gtk_widget_get_name (b), "full"))
      on_action_clicked (GTK_BUTTON (b), self);
}

/* The texture once the helper decoded it; until then an empty picture;
 * if it failed, crashed or timed out, a line saying so instead. */
static void
bind_image (GtkWidget *label, GtkWidget *picture, SpOutputItem *output)
{
  GObject *image = sp_output_item_get_image (output);
  const char *error = sp_output_item_get_image_error (output);
  g_autofree char *name = sp_visible_text_escape (sp_output_item_get_label (output), -1, NULL);

  gtk_picture_set_paintable (GTK_PICTURE (picture), GDK_IS_PAINTABLE (image)
                                                      ? GDK_PAINTABLE (image)
                                                      : NULL);
  gtk_picture_set_alternative_text (GTK_PICTURE (picture), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL, name,
                                  -1);
  if (sp_output_item_get_image_withheld (output))
    {
      /* A placeholder, so the person knows what is there and can still
       * see it: Show decodes this one alone. */
      g_autofree char *size = g_format_size ((guint64) MAX (sp_output_item_get_size (output), 0));
      g_autofree char *text = g_strdup_printf (
        _("%s · %s: not shown, to keep this window's memory for images (Show to see it)"),
        sp_output_item_get_label (output), size);
      gtk_widget_set_visible (picture, FALSE);
      gtk_widget_set_visible (label, TRUE);
      set_run_text (label, text);
      gtk_widget_add_css_class (label, "notice");
      gtk_accessible_update_property (GTK_ACCESSIBLE (label),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Notice"), -1);
    }
  else if (error != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Cannot show this image (%s): %s"),
                                               sp_output_item_get_label (output), error);
      gtk_widget_set_visible (picture, FALSE);
      gtk_widget_set_visible (label, TRUE);
      set_run_text (label, text);
      gtk_widget_add_css_class (label, "notice");
      gtk_accessible_update_property (GTK_ACCESSIBLE (label),
                                      GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Notice"), -1);
    }
}

static void bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, SpExecPanel *self);
static void bind_text (SpExecPanel *self, GtkWidget *label, SpOutputItem *output,
                       GtkWidget *frames, GtkWidget *preview, GtkWidget *table);

static void
on_item_image (SpOutputItem *output, GParamSpec *pspec, GtkListItem *item)
{
  bind_row (NULL, item, g_object_get_data (G_OBJECT (item), "panel"));
}

/* A text row grew or took other text: shown now, or once it may be seen
 * when it lies out of sight (the transcript says, and emits "rebind"). */
static void
on_item_text (SpOutputItem *output, GParamSpec *pspec, GtkListItem *item)
{
  SpExecPanel *self = g_object_get_data (G_OBJECT (item), "panel");

  if (sp_transcript_defer_rebind (self->transcript, item))
    return;
  bind_row (NULL, item, self);
}

static void
on_rebind (SpTranscript *transcript, GtkListItem *item, SpExecPanel *self)
{
  if (gtk_list_item_get_item (item) != NULL)
    bind_row (NULL, item, self);
}

static void
unbind_row (GtkSignalListItemFactory *factory, GtkListItem *item, SpExecPanel *self)
{
  SpOutputItem *output = gtk_list_item_get_item (item);

  sp_transcript_forget_row (self->transcript, item);
  if (output != NULL)
    {
      g_signal_handlers_disconnect_by_func (output, on_item_image, item);
      g_signal_handlers_disconnect_by_func (output, on_item_text, item);
    }
  /* Rows are unbound as the list goes, after the loader in dispose. */
  if (self->images != NULL)
    sp_image_loader_row_unbound (self->images, item);
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, SpExecPanel *self)
{
  SpOutputItem *output = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *label = gtk_widget_get_first_child (box);
  SpOutputKind kind = sp_output_item_get_kind (output);
  gboolean plain = kind == SP_OUTPUT_STDOUT || kind == SP_OUTPUT_STDERR
                   || kind == SP_OUTPUT_NOTICE || kind == SP_OUTPUT_INPUT;
  GtkWidget *picture, *frames, *actions, *preview, *table;

  /* Images are decoded as they come into view: the loader watches
   * where the rows are. */
  if (factory != NULL && self->images != NULL)
    sp_image_loader_row_bound (self->images, item);
  if (gtk_widget_get_next_sibling (label) == NULL && !plain)
    add_row_parts (box, self);
  gtk_widget_set_visible (label, kind != SP_OUTPUT_IMAGE);
  gtk_widget_remove_css_class (label, "stderr");
  gtk_widget_remove_css_class (label, "stdin");
  gtk_widget_remove_css_class (label, "notice");
  gtk_widget_remove_css_class (label, "error-title");
  /* Likewise a text row that grows as the program writes. */
  if (factory != NULL && (kind == SP_OUTPUT_STDOUT || kind == SP_OUTPUT_STDERR))
    g_signal_connect (output, "notify::text", G_CALLBACK (on_item_text), item);
  picture = gtk_widget_get_next_sibling (label);
  if (picture == NULL)
    {
      bind_text (self, label, output, NULL, NULL, NULL);
      return;
    }
  frames = gtk_widget_get_next_sibling (picture);
  actions = gtk_widget_get_next_sibling (frames);
  preview = gtk_widget_get_next_sibling (actions);
  table = gtk_widget_get_next_sibling (preview);
  gtk_widget_set_visible (picture, kind == SP_OUTPUT_IMAGE);
  gtk_widget_set_visible (frames, kind == SP_OUTPUT_ERROR);
  gtk_widget_set_visible (actions, kind == SP_OUTPUT_IMAGE || kind == SP_OUTPUT_FILE);
  gtk_widget_set_visible (preview, FALSE);
  gtk_widget_set_visible (table, FALSE);
  /* A bind from the factory (not from the image arriving): follow the
   * item's image until the row is unbound. */
  if (factory != NULL && kind == SP_OUTPUT_IMAGE)
    g_signal_connect (output, "notify::image", G_CALLBACK (on_item_image), item);
  /* The action buttons find the item through the row. */
  g_object_set_data_full (G_OBJECT (actions), "item", g_object_ref (output), g_object_unref);
  for (GtkWidget *b = gtk_widget_get_first_child (actions); b; b = gtk_widget_get_next_sibling (b))
    {
      const char *name = gtk_widget_get_name (b);
      const char *mime = sp_output_item_get_mime (output);
      gboolean is_text = mime != NULL
                      && (g_str_has_prefix (mime, "text/") || g_str_equal (mime, "application/json"));
      gboolean has_image = sp_output_item_get_image (output) != NULL;
      /* A symlink, FIFO or socket of the run, or a name the runner could
       * not carry, is listed only: nothing to open or save. */
      gboolean named = sp_output_item_get_name (output) != NULL;
      gboolean withheld = sp_output_item_get_image_withheld (output);
      gtk_widget_set_visible (b, (g_str_equal (name, "save") && named)
                                   || (kind == SP_OUTPUT_IMAGE && has_image
                                       && !g_str_equal (name, "open")
                                       && !g_str_equal (name, "show"))
                                   || (kind == SP_OUTPUT_IMAGE && withheld && !has_image
                                       && g_str_equal (name, "show"))
                                   || (kind == SP_OUTPUT_FILE && is_text && named
                                       && g_str_equal (name, "open")));
    }

  if (kind == SP_OUTPUT_IMAGE)
    {
      bind_image (label, picture, output);
      return;
    }
  gtk_picture_set_paintable (GTK_PICTURE (picture), NULL);
  bind_text (self, label, output, frames, preview, table);
}

/* The label of a row: its text (colours as markup), its stream's style
 * and its description; and an error's frames, a file's preview. */
static void
bind_text (SpExecPanel *self, GtkWidget *label, SpOutputItem *output, GtkWidget *frames,
           GtkWidget *preview, GtkWidget *table)
{
  SpOutputKind kind = sp_output_item_get_kind (output);
  const char *text = sp_output_item_get_text (output);
  gsize len = strlen (text);
  const char *description = _("Standard output");

  /* A trailing newline would show as an empty line under every chunk. */
  g_autofree char *trimmed = g_strndup (text, len > 0 && text[len - 1] == '\n' ? len - 1 : len);
  g_autofree char *linked = kind == SP_OUTPUT_STDERR && !sp_ansi_has_escapes (trimmed)
                              ? sp_traceback_to_markup (trimmed, self->snippet_name,
                                                        self->display_name)
                              : NULL;
  if (linked != NULL)
    /* Each place in the snippet links to its line, named as the user
     * knows the file. */
    gtk_label_set_markup (GTK_LABEL (label), linked);
  else if (sp_ansi_has_escapes (trimmed))
    {
      /* Colours become markup; other escape sequences are shown, inert. */
      /* Dark red and dark blue do not read on a dark background. */
      g_autofree char *markup = sp_ansi_to_markup_for (
        trimmed, adw_style_manager_get_dark (adw_style_manager_get_default ()));
      gtk_label_set_markup (GTK_LABEL (label), markup);
    }
  else
    set_run_text (label, trimmed);

  if (kind == SP_OUTPUT_STDERR)
    {
      gtk_widget_add_css_class (label, "stderr");
      description = _("Standard error");
    }
  else if (kind == SP_OUTPUT_INPUT)
    {
      gtk_widget_add_css_class (label, "stdin");
      description = _("Your input");
    }
  else if (kind == SP_OUTPUT_NOTICE)
    {
      gtk_widget_add_css_class (label, "notice");
      description = _("Notice");
    }
  else if (kind == SP_OUTPUT_ERROR)
    {
      SpErrorInfo *info = sp_output_item_get_error (output);
      /* The traceback above ends in "Type: message" already; this says
       * where, and the frames below lead there. */
      g_autofree char *where
        = sp_error_info_get_line (info) > 0
            ? g_strdup_printf (_("%s in line %d"), sp_error_info_get_error_type (info),
                               sp_error_info_get_line (info))
            : g_strdup (sp_error_info_get_error_type (info));
      gtk_label_set_text (GTK_LABEL (label), where);
      gtk_widget_add_css_class (label, "error-title");
      description = _("Error");
      bind_error (self, frames, sp_output_item_get_error (output));
    }
  else if (kind == SP_OUTPUT_FILE)
    {
      g_autofree char *size = g_format_size ((guint64) sp_output_item_get_size (output));
      g_autofree char *title = g_strdup_printf ("%s · %s · %s", sp_output_item_get_label (output),
                                                size, sp_output_item_get_mime (output));
      set_run_text (label, title);
      gtk_widget_add_css_class (label, "notice");
      description = _("Created file");
      bind_preview (self, preview, table, output);
    }
  /* Colour alone does not reach everyone: say which stream it is. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
}

/* The colours of output depend on light or dark: bind every row again. */
static void
on_dark_changed (SpExecPanel *self)
{
  g_autoptr (GListModel) output = self->output ? g_object_ref (self->output) : NULL;

  if (output == NULL)
    return;
  sp_exec_panel_set_output (self, NULL);
  sp_exec_panel_set_output (self, output);
}

static gboolean
tick (gpointer user_data)
{
  SpExecPanel *self = user_data;
  double seconds = (g_get_monotonic_time () - self->started_at) / (double) G_USEC_PER_SEC;
  g_autofree char *text = NULL;

  if (self->waiting)
    /* TRANSLATORS: seconds so far, then the time limit in seconds */
    text = g_strdup_printf (_("Waiting for input… %.1f s; the %u s time limit is paused"),
                            seconds, self->timeout_s);
  else
    text = g_strdup_printf (_("Running… %.1f s"), seconds);
  gtk_label_set_text (self->status_label, text);
  return G_SOURCE_CONTINUE;
}

static void
on_input_activate (GtkEntry *entry, SpExecPanel *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  g_signal_emit (self, signals[INPUT], 0, text);
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
}

static void
on_clear (GtkWidget *widget, const char *action_name, GVariant *param)
{
  g_signal_emit (widget, signals[CLEAR], 0);
}

static void
sp_exec_panel_dispose (GObject *object)
{
  SpExecPanel *self = SP_EXEC_PANEL (object);

  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_object (&self->output);
  g_clear_pointer (&self->snippet_name, g_free);
  g_clear_pointer (&self->display_name, g_free);
  g_clear_object (&self->save_folder);
  if (self->reads != NULL)
    g_cancellable_cancel (self->reads);
  g_clear_object (&self->reads);
  if (self->images != NULL)
    g_object_run_dispose (G_OBJECT (self->images));
  g_clear_object (&self->images);
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_EXEC_PANEL);
  G_OBJECT_CLASS (sp_exec_panel_parent_class)->dispose (object);
}

static void
sp_exec_panel_class_init (SpExecPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_exec_panel_dispose;

  /* The user typed a line for the program (without its newline). */
  signals[INPUT] = g_signal_new ("input", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The user asked to clear the output. */
  signals[CLEAR] = g_signal_new ("clear", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 0);
  /* The user picked a frame of an error: show that line (1-based). */
  signals[GOTO_LINE] = g_signal_new ("goto-line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  /* The user asked to open a text file the run made (its SpOutputItem,
   * which names it by directory and name: read it with sp-run-file.h). */
  signals[OPEN_FILE] = g_signal_new ("open-file", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);

  g_type_ensure (SP_TYPE_TRANSCRIPT);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-exec-panel.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, box);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, spinner);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, status_label);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_card);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_title);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_warnings);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_limits);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_details);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_label);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, transcript);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, input_entry);
  gtk_widget_class_install_action (widget_class, "panel.clear", NULL, on_clear);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sp_exec_panel_init (SpExecPanel *self)
{
  g_autoptr (GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  GtkListView *output_view;

  gtk_widget_init_template (GTK_WIDGET (self));
  output_view = sp_transcript_get_list_view (self->transcript);
  self->images = sp_image_loader_new ();
  sp_image_loader_watch (self->images, output_view);

  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_row), self);
  g_signal_connect_object (self->transcript, "rebind", G_CALLBACK (on_rebind), self, 0);
  gtk_list_view_set_factory (output_view, factory);
  /* Output is a log: screen readers announce additions politely. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (output_view),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Program output"), -1);

  g_signal_connect_object (self->input_entry, "activate", G_CALLBACK (on_input_activate), self, 0);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "panel.clear", FALSE);
}

GtkWidget *
sp_exec_panel_new (void)
{
  return g_object_new (SP_TYPE_EXEC_PANEL, NULL);
}

void
sp_exec_panel_set_output (SpExecPanel *self, GListModel *output)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  g_return_if_fail (output == NULL || G_IS_LIST_MODEL (output));

  if (!g_set_object (&self->output, output))
    return;
  sp_transcript_set_model (self->transcript, output);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "panel.clear", output != NULL);
}

GListModel *
sp_exec_panel_get_output (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->output;
}

void
sp_exec_panel_add_images (SpExecPanel *self, GPtrArray *items, SpImageBudget *budget,
                          GCancellable *cancellable)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  sp_image_loader_add_items (self->images, items, budget, cancellable);
}

SpImageLoader *
sp_exec_panel_get_image_loader (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->images;
}

static char *
join_lines (const char *const *lines, const char *bullet)
{
  g_autoptr (GString) text = g_string_new (NULL);

  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    g_string_append_printf (text, "%s%s%s", i > 0 ? "\n" : "", bullet, lines[i]);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

void
sp_exec_panel_set_policy (SpExecPanel *self, const char *limits, SpSandboxPolicy *policy)
{
  g_autofree char *warnings = NULL;
  g_autofree char *facts = NULL;
  gboolean reduced;

  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  if (policy == NULL)
    {
      gtk_label_set_text (self->policy_title, limits ? limits : "");
      gtk_widget_set_visible (GTK_WIDGET (self->policy_warnings), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->policy_limits), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->policy_details), FALSE);
      gtk_widget_remove_css_class (self->policy_card, "reduced");
      return;
    }
  reduced = sp_sandbox_policy_is_reduced (policy);
  warnings = join_lines (sp_sandbox_policy_get_warnings (policy), "⚠ ");
  facts = join_lines (sp_sandbox_policy_get_facts (policy), "• ");
  gtk_label_set_text (self->policy_title, sp_sandbox_policy_get_title (policy));
  /* What is missing comes before what holds. */
  gtk_label_set_text (self->policy_warnings, warnings);
  gtk_widget_set_visible (GTK_WIDGET (self->policy_warnings), warnings[0] != '\0');
  gtk_label_set_text (self->policy_limits, limits ? limits : "");
  gtk_widget_set_visible (GTK_WIDGET (self->policy_limits), limits != NULL);
  /* What holds is one click away; what is missing never is. */
  gtk_label_set_text (self->policy_label, facts);
  gtk_widget_set_visible (GTK_WIDGET (self->policy_details), facts[0] != '\0');
  if (reduced)
    gtk_widget_add_css_class (self->policy_card, "reduced");
  else
    gtk_widget_remove_css_class (self->policy_card, "reduced");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->policy_card),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  sp_sandbox_policy_get_title (policy), -1);
}

gboolean
sp_exec_panel_get_policy_reduced (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), FALSE);
  return gtk_widget_has_css_class (self->policy_card, "reduced");
}

char *
sp_exec_panel_get_policy_text (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return g_strjoin ("\n", gtk_label_get_text (self->policy_title),
                    gtk_widget_get_visible (GTK_WIDGET (self->policy_warnings))
                      ? gtk_label_get_text (self->policy_warnings) : "",
                    gtk_label_get_text (self->policy_limits),
                    gtk_label_get_text (self->policy_label), NULL);
}

void
sp_exec_panel_set_running (SpExecPanel *self, gboolean running)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  running = !!running;
  if (self->running == running)
    return;
  self->running = running;
  sp_exec_panel_set_waiting (self, FALSE, 0);
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->input_entry), running);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  if (running)
    {
      /* The last run's result no longer describes the line. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), NULL);
      self->started_at = g_get_monotonic_time ();
      self->tick_id = g_timeout_add (100, tick, self);
      tick (self);
    }
}

void
sp_exec_panel_set_status (SpExecPanel *self, const char *text, gboolean is_error)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  sp_exec_panel_set_running (self, FALSE);
  gtk_label_set_text (self->status_label, text);
  /* The line wraps; the tooltip repeats it for a panel too narrow even so. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), text);
  if (is_error)
    gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
}

void
sp_exec_panel_set_snippet_names (SpExecPanel *self, const char *run_name,
                                 const char *display_name)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  g_free (self->snippet_name);
  self->snippet_name = g_strdup (run_name);
  g_free (self->display_name);
  self->display_name = g_strdup (display_name);
}

void
sp_exec_panel_set_save_folder (SpExecPanel *self, GFile *folder)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  g_return_if_fail (folder == NULL || G_IS_FILE (folder));
  g_set_object (&self->save_folder, folder);
}

void
sp_exec_panel_set_waiting (SpExecPanel *self, gboolean waiting, guint timeout_s)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  waiting = !!waiting && self->running;
  if (self->waiting == waiting)
    return;
  self->waiting = waiting;
  self->timeout_s = timeout_s;
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label),
                               waiting ? _("The time limit stands still while the program "
                                           "waits for input; a wait longer than 15 minutes "
                                           "ends the run. Limits are in Preferences (Ctrl+,).")
                                       : NULL);
  if (self->running)
    tick (self);
  /* Shown, never given the keyboard: taking the focus from the editor
   * sent the rest of a line a person was typing to the program on Enter
   * (issue 29). */
  if (waiting)
    gtk_widget_add_css_class (GTK_WIDGET (self->input_entry), "input-wanted");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->input_entry), "input-wanted");
  gtk_entry_set_placeholder_text (self->input_entry,
                                  waiting ? _("The program waits for input: type here, "
                                              "Enter to send")
                                          : _("Input for the program, Enter to send"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->input_entry),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  waiting ? _("The program waits for input") : "", -1);
}

GtkEntry *
sp_exec_panel_get_input_entry (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->input_entry;
}

SpTranscript *
sp_exec_panel_get_transcript (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->transcript;
}
