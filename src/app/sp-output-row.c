/* sp-output-row.c: one row of the output list (sp-output-row.h). */
#define G_LOG_DOMAIN "sp-output-row"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sp-ansi.h"
#include "sp-csv.h"
#include "sp-fold-bar.h"
#include "sp-image-window.h"
#include "sp-output-row.h"
#include "sp-run-file.h"
#include "sp-scaled-paintable.h"
#include "sp-table-view.h"
#include "sp-traceback.h"
#include "sp-visible-text.h"
#include "sp-wrap-attrs.h"

#define PREVIEW_LINES 8
#define PREVIEW_COLUMNS 8

struct _SpOutputRow
{
  GtkWidget parent_instance;

  /* The template's one child: every row is a label. */
  GtkWidget *label;
  /* Under a folded line (a line longer than a row shows): how much is not
   * shown, Copy Line and Save Line As; made the first time this row shows
   * one. */
  GtkWidget *fold;
  /* The parts only images, errors and files need, in this order after
   * the label; NULL until the row first shows such an item. */
  GtkWidget *picture;
  GtkWidget *frames;  /* one button per frame of an error */
  GtkWidget *actions; /* Open, Save As, Copy, Full Size, Show */
  GtkWidget *preview; /* a text file's first lines */
  GtkWidget *table;   /* a CSV or TSV file's first rows */
  /* A displayed table (a DataFrame): made the first time this row shows
   * one, as the parts above are for images, errors and files. */
  GtkWidget *table_view;

  SpOutputItem *item;
  GCancellable *cancellable;
};

G_DEFINE_FINAL_TYPE (SpOutputRow, sp_output_row, GTK_TYPE_WIDGET)

enum
{
  PROP_0,
  PROP_CANCELLABLE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  GOTO_LINE,
  OPEN_FILE,
  SAVE_FILE,
  SHOW_IMAGE,
  COPY_LINE,
  SAVE_LINE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

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

/* Pango markup for a run's text: hidden characters shown, colours kept. */
static char *
run_text_markup (const char *text, gsize len, gboolean dark)
{
  g_autofree char *part = g_strndup (text, len);

  if (sp_ansi_has_escapes (part))
    return sp_ansi_to_markup_for (part, dark);
  if (sp_visible_text_has_hidden (part, -1))
    return sp_visible_text_to_markup (part, -1);
  return g_markup_escape_text (part, -1);
}

/* A prompt and the answer sent to it, on one line as a terminal shows
 * them: the prompt as the program wrote it, the answer in the input style
 * (bold, the accent colour; style.css's label.stdin), which markup has to
 * spell out since one label holds both. */
static void
set_answer_text (GtkWidget *label, const char *text, gsize prompt_len)
{
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  g_autofree char *prompt = run_text_markup (text, prompt_len, dark);
  g_autofree char *answer = run_text_markup (text + prompt_len, strlen (text + prompt_len), dark);
  g_autofree char *markup = g_strdup_printf ("%s<span weight=\"bold\" foreground=\"%s\">%s</span>",
                                             prompt, dark ? "#78aeed" : "#1c71d8", answer);

  gtk_label_set_markup (GTK_LABEL (label), markup);
}

/* Feedback where the window shows it (the toast overlay around us). */
static void
row_toast (SpOutputRow *self, const char *text)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);

  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (text));
}

static void
show_full_size (SpOutputRow *self)
{
  GtkWindow *parent = GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self)));
  GObject *image = sp_output_item_get_image (self->item);
  GtkWidget *window;

  if (!GDK_IS_PAINTABLE (image))
    return;
  window = sp_image_window_new (parent, GDK_PAINTABLE (image),
                                sp_output_item_get_label (self->item));
  gtk_window_present (GTK_WINDOW (window));
}

static void
on_action_clicked (GtkButton *button, SpOutputRow *self)
{
  const char *what = gtk_widget_get_name (GTK_WIDGET (button));
  SpOutputItem *item = self->item;

  /* Open and Save As only for a regular file the runner could name, and
   * Save As for a display result the app holds as bytes. */
  if (g_str_equal (what, "open") && sp_output_item_get_name (item) == NULL)
    return;
  if (g_str_equal (what, "save") && sp_output_item_get_name (item) == NULL
      && sp_output_item_get_bytes (item) == NULL)
    return;
  if (g_str_equal (what, "open"))
    g_signal_emit (self, signals[OPEN_FILE], 0, item);
  else if (g_str_equal (what, "save"))
    g_signal_emit (self, signals[SAVE_FILE], 0, item);
  else if (g_str_equal (what, "copy"))
    {
      /* The texture the helper decoded: the file is never parsed here. */
      GObject *image = sp_output_item_get_image (item);
      if (GDK_IS_TEXTURE (image))
        {
          gdk_clipboard_set_texture (gtk_widget_get_clipboard (GTK_WIDGET (self)),
                                     GDK_TEXTURE (image));
          row_toast (self, _ ("Image copied"));
        }
    }
  else if (g_str_equal (what, "show"))
    g_signal_emit (self, signals[SHOW_IMAGE], 0, item);
  else if (g_str_equal (what, "full"))
    show_full_size (self);
}

/* A click on a plot opens it full size, like the Full Size button. */
static void
on_picture_released (GtkGestureClick *click, int n_press, double x, double y, SpOutputRow *self)
{
  show_full_size (self);
}

static void
on_frame_clicked (GtkButton *button, SpOutputRow *self)
{
  int line = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "line"));

  g_signal_emit (self, signals[GOTO_LINE], 0, line);
}

/* A link in error text ("File "main.py", line 4"): show that line. Other
 * links (none are made today) are not followed. */
static gboolean
on_activate_link (GtkLabel *label, const char *uri, SpOutputRow *self)
{
  int line = sp_traceback_link_line (uri);

  if (line > 0)
    g_signal_emit (self, signals[GOTO_LINE], 0, line);
  return TRUE;
}

/* All but the label are only for images, errors and files: they are made
 * the first time a row shows one, so the many rows of text (a list view
 * makes up to 200 at once) cost one label each. That is why they are not
 * in the template. */
static void
ensure_parts (SpOutputRow *self)
{
  const char *const buttons[][2] = { { "open", N_ ("Open") },
                                     { "save", N_ ("Save As…") },
                                     { "copy", N_ ("Copy") },
                                     { "full", N_ ("Full Size") },
                                     { "show", N_ ("Show") } };
  GtkGesture *click;

  if (self->picture != NULL)
    return;
  self->picture = gtk_picture_new ();
  gtk_picture_set_can_shrink (GTK_PICTURE (self->picture), TRUE);
  gtk_picture_set_content_fit (GTK_PICTURE (self->picture), GTK_CONTENT_FIT_CONTAIN);
  gtk_widget_set_size_request (self->picture, -1, 240);
  click = gtk_gesture_click_new ();
  g_signal_connect_object (click, "released", G_CALLBACK (on_picture_released), self, 0);
  gtk_widget_add_controller (self->picture, GTK_EVENT_CONTROLLER (click));
  /* One button per frame, one Tab stop each, in the traceback's order. */
  self->frames = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  self->actions = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  for (guint i = 0; i < G_N_ELEMENTS (buttons); i++)
    {
      GtkWidget *button = gtk_button_new_with_label (_ (buttons[i][1]));
      /* Not flat: on the transcript a flat button is bold text among the
       * output's, which nobody takes for something to click. */
      gtk_widget_set_name (button, buttons[i][0]);
      g_signal_connect_object (button, "clicked", G_CALLBACK (on_action_clicked), self, 0);
      gtk_box_append (GTK_BOX (self->actions), button);
    }
  self->preview = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->preview), 0);
  /* Each line ends in "…" where the row does: unwrapped, a file whose
   * first line is 10^4 characters asked for a row 32,768 pixels wide,
   * and the window for as much, which X refused (BadAlloc) and GDK
   * exits on. Open and Save As have the whole file. */
  gtk_label_set_ellipsize (GTK_LABEL (self->preview), PANGO_ELLIPSIZE_END);
  gtk_label_set_selectable (GTK_LABEL (self->preview), TRUE);
  gtk_widget_add_css_class (self->preview, "output");
  gtk_widget_add_css_class (self->preview, "preview");
  self->table = gtk_grid_new ();
  gtk_grid_set_column_spacing (GTK_GRID (self->table), 12);
  gtk_widget_add_css_class (self->table, "preview");
  gtk_widget_insert_before (self->picture, GTK_WIDGET (self), NULL);
  gtk_widget_insert_before (self->frames, GTK_WIDGET (self), NULL);
  gtk_widget_insert_before (self->actions, GTK_WIDGET (self), NULL);
  gtk_widget_insert_before (self->preview, GTK_WIDGET (self), NULL);
  gtk_widget_insert_before (self->table, GTK_WIDGET (self), NULL);
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
bind_error (SpOutputRow *self, SpErrorInfo *error)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->frames)) != NULL)
    gtk_box_remove (GTK_BOX (self->frames), child);
  /* In the traceback's order, read top to bottom, each place once (a
   * recursion repeats the same frames). */
  for (guint i = 0; i < sp_error_info_get_n_frames (error); i++)
    {
      const SpErrorFrame *frame = sp_error_info_get_frame (error, i);
      g_autofree char *text = NULL;
      GtkWidget *button;

      if (!frame->in_snippet || frame_listed (error, i))
        continue;
      text = frame->function ? g_strdup_printf (_ ("Line %d, in %s"), frame->line, frame->function)
                             : g_strdup_printf (_ ("Line %d"), frame->line);
      button = gtk_button_new_with_label (text);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_halign (button, GTK_ALIGN_START);
      gtk_widget_set_tooltip_text (button, _ ("Show this line in the editor"));
      g_object_set_data (G_OBJECT (button), "line", GINT_TO_POINTER (frame->line));
      g_signal_connect_object (button, "clicked", G_CALLBACK (on_frame_clicked), self, 0);
      gtk_box_append (GTK_BOX (self->frames), button);
    }
}

/* CSV and TSV as a table: each quoted field one cell, so columns line up;
 * what is left out is said in the last row and column. */
static void
bind_table (GtkWidget *table, const char *head, gboolean whole, char separator)
{
  g_autoptr (SpCsvPreview) csv = sp_csv_preview_parse (head, whole, separator, PREVIEW_LINES,
                                                       PREVIEW_COLUMNS);

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
          ? _ ("Only the first rows and columns are shown; Save As keeps the whole file")
        : csv->more_rows ? _ ("Only the first rows are shown; Save As keeps the whole file")
                         : _ ("Only the first columns are shown; Save As keeps the whole file"));
      gtk_label_set_xalign (GTK_LABEL (note), 0);
      gtk_label_set_wrap (GTK_LABEL (note), TRUE);
      gtk_widget_add_css_class (note, "dim-label");
      gtk_grid_attach (GTK_GRID (table), note, 0, (int) csv->rows->len, PREVIEW_COLUMNS + 1, 1);
    }
}

/* The first bytes of a text file, shown: its first lines, or CSV as a
 * small table. */
static void
show_preview (SpOutputRow *self, SpOutputItem *item)
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
      bind_table (self->table, head, whole, g_str_equal (mime, "text/csv") ? ',' : '\t');
      gtk_widget_set_visible (self->table, TRUE);
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
  set_run_text (self->preview, text);
  gtk_widget_set_visible (self->preview, TRUE);
}

/* A preview on its way: the row and the item it was for. */
typedef struct
{
  SpOutputRow *row;
  SpOutputItem *item;
} PreviewRead;

static void
preview_read_free (PreviewRead *r)
{
  g_object_unref (r->row);
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
  if (r->row->item == r->item)
    show_preview (r->row, r->item);
}

/* Text files preview their first lines, read off the main thread through
 * sp-run-file.h (a FIFO or a slow disk must not hold the window, a
 * symlink must not show its target); the bytes stay on the item for the
 * next bind. */
static void
bind_preview (SpOutputRow *self, SpOutputItem *item)
{
  const char *mime = sp_output_item_get_mime (item);
  GtkWidget *child;
  PreviewRead *r;

  while ((child = gtk_widget_get_first_child (self->table)) != NULL)
    gtk_grid_remove (GTK_GRID (self->table), child);
  if (!g_str_has_prefix (mime, "text/") && !g_str_equal (mime, "application/json"))
    return;
  if (sp_output_item_get_name (item) == NULL)
    return;
  if (sp_output_item_get_preview (item, NULL) != NULL)
    {
      show_preview (self, item);
      return;
    }
  if (g_object_get_data (G_OBJECT (item), "sp-preview-reading") != NULL)
    return;
  g_object_set_data (G_OBJECT (item), "sp-preview-reading", GINT_TO_POINTER (1));
  r = g_new0 (PreviewRead, 1);
  r->row = g_object_ref (self);
  r->item = g_object_ref (item);
  sp_run_file_read_async (sp_output_item_get_dir (item), sp_output_item_get_name (item), 4096,
                          SP_RUN_FILE_READ_HEAD, self->cancellable, on_preview_read, r);
}

/* The texture once the helper decoded it; until then an empty picture;
 * if it failed, crashed or timed out, a line saying so instead. */
static void
bind_image (SpOutputRow *self, SpOutputItem *output)
{
  GObject *image = sp_output_item_get_image (output);
  const char *error = sp_output_item_get_image_error (output);
  g_autofree char *name = sp_visible_text_escape (sp_output_item_get_label (output), -1, NULL);
  g_autofree char *text = NULL;
  guint scale = sp_output_item_get_image_scale (output);
  g_autoptr (GdkPaintable) paintable = NULL;

  /* A formula at its own size, where text starts, as Jupyter shows
   * LaTeX; a chart fitted to the panel's width. */
  if (GDK_IS_PAINTABLE (image))
    paintable = scale >= 1 ? sp_scaled_paintable_new (GDK_PAINTABLE (image), scale)
                           : g_object_ref (GDK_PAINTABLE (image));
  /* Its height asked for, as the chart's 240: a shrinkable picture's
   * minimum is nothing, and the list view gives a row its minimum. */
  gtk_widget_set_size_request (self->picture, -1,
                               scale < 1           ? 240
                               : paintable != NULL ? gdk_paintable_get_intrinsic_height (paintable)
                                                   : -1);
  gtk_widget_set_halign (self->picture, scale >= 1 ? GTK_ALIGN_START : GTK_ALIGN_FILL);
  gtk_picture_set_paintable (GTK_PICTURE (self->picture), paintable);
  gtk_picture_set_alternative_text (GTK_PICTURE (self->picture), name);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->picture), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  name, -1);
  if (sp_output_item_get_image_withheld (output))
    {
      /* A placeholder, so the person knows what is there and can still
       * see it: Show decodes this one alone. */
      g_autofree char *size = g_format_size ((guint64) MAX (sp_output_item_get_size (output), 0));
      text = g_strdup_printf (
        _ ("%s · %s: not shown, to keep this window's memory for images (Show to see it)"),
        sp_output_item_get_label (output), size);
    }
  else if (error != NULL)
    text = g_strdup_printf (_ ("Cannot show this image (%s): %s"),
                            sp_output_item_get_label (output), error);
  if (text == NULL)
    return;
  gtk_widget_set_visible (self->picture, FALSE);
  gtk_widget_set_visible (self->label, TRUE);
  set_run_text (self->label, text);
  gtk_widget_add_css_class (self->label, "notice");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _ ("Notice"), -1);
}

/* The buttons an item has: Save As for any regular file the runner
 * named, Copy and Full Size once an image is decoded, Show for a withheld
 * one, Open for a text file. */
static void
bind_actions (SpOutputRow *self, SpOutputItem *output)
{
  SpOutputKind kind = sp_output_item_get_kind (output);
  const char *mime = sp_output_item_get_mime (output);
  gboolean is_text
    = mime != NULL && (g_str_has_prefix (mime, "text/") || g_str_equal (mime, "application/json"));
  gboolean has_image = sp_output_item_get_image (output) != NULL;
  /* A symlink, FIFO or socket of the run, or a name the runner could
   * not carry, is listed only: nothing to open or save. */
  gboolean named = sp_output_item_get_name (output) != NULL;
  gboolean held = sp_output_item_get_bytes (output) != NULL;
  gboolean withheld = sp_output_item_get_image_withheld (output);

  for (GtkWidget *b = gtk_widget_get_first_child (self->actions); b != NULL;
       b = gtk_widget_get_next_sibling (b))
    {
      const char *name = gtk_widget_get_name (b);
      gtk_widget_set_visible (
        b, (g_str_equal (name, "save") && (named || held))
             || (kind == SP_OUTPUT_IMAGE && has_image && !g_str_equal (name, "open")
                 && !g_str_equal (name, "show"))
             || (kind == SP_OUTPUT_IMAGE && withheld && !has_image && g_str_equal (name, "show"))
             || (kind == SP_OUTPUT_FILE && is_text && named && g_str_equal (name, "open")));
    }
}

/* The label's text: colours as markup, traceback places as links. */
static void
bind_label_text (SpOutputRow *self, SpOutputItem *output, const char *snippet_name,
                 const char *display_name)
{
  const char *text = sp_output_item_get_text (output);
  gsize len = strlen (text);
  /* A trailing newline would show as an empty line under every chunk. */
  g_autofree char *trimmed = g_strndup (text, len > 0 && text[len - 1] == '\n' ? len - 1 : len);
  g_autofree char *linked = sp_output_item_get_kind (output) == SP_OUTPUT_STDERR
                                && !sp_ansi_has_escapes (trimmed)
                              ? sp_traceback_to_markup (trimmed, snippet_name, display_name)
                              : NULL;
  gsize prompt_len = sp_output_item_get_prompt_length (output);

  if (prompt_len > 0)
    set_answer_text (self->label, trimmed, MIN (prompt_len, strlen (trimmed)));
  else if (linked != NULL)
    /* Each place in the snippet links to its line, named as the user
     * knows the file. */
    gtk_label_set_markup (GTK_LABEL (self->label), linked);
  else if (sp_ansi_has_escapes (trimmed))
    {
      /* Colours become markup; other escape sequences are shown, inert. */
      /* Dark red and dark blue do not read on a dark background. */
      g_autofree char *markup
        = sp_ansi_to_markup_for (trimmed,
                                 adw_style_manager_get_dark (adw_style_manager_get_default ()));
      gtk_label_set_markup (GTK_LABEL (self->label), markup);
    }
  else
    set_run_text (self->label, trimmed);
}

/* The label of a row: its text, its stream's style and its description;
 * and an error's frames, a file's preview. */
static void
bind_text (SpOutputRow *self, SpOutputItem *output, const char *snippet_name,
           const char *display_name)
{
  GtkWidget *label = self->label;
  SpOutputKind kind = sp_output_item_get_kind (output);
  const char *description = _ ("Standard output");

  bind_label_text (self, output, snippet_name, display_name);
  if (kind == SP_OUTPUT_STDERR)
    {
      gtk_widget_add_css_class (label, "stderr");
      description = _ ("Standard error");
    }
  else if (kind == SP_OUTPUT_INPUT && sp_output_item_get_prompt_length (output) > 0)
    {
      gtk_widget_add_css_class (label, "prompt-answer");
      description = _ ("The program's prompt and your answer");
    }
  else if (kind == SP_OUTPUT_INPUT)
    {
      gtk_widget_add_css_class (label, "stdin");
      description = _ ("Your input");
    }
  else if (kind == SP_OUTPUT_NOTICE)
    {
      gtk_widget_add_css_class (label, "notice");
      description = _ ("Notice");
    }
  else if (kind == SP_OUTPUT_ERROR)
    {
      SpErrorInfo *info = sp_output_item_get_error (output);
      /* The traceback above ends in "Type: message" already; this says
       * where, and the frames below lead there. */
      g_autofree char *where = sp_error_info_get_line (info) > 0
                                 ? g_strdup_printf (_ ("%s in line %d"),
                                                    sp_error_info_get_error_type (info),
                                                    sp_error_info_get_line (info))
                                 : g_strdup (sp_error_info_get_error_type (info));
      gtk_label_set_text (GTK_LABEL (label), where);
      gtk_widget_add_css_class (label, "error-title");
      description = _ ("Error");
      bind_error (self, info);
    }
  else if (kind == SP_OUTPUT_FILE)
    {
      g_autofree char *size = g_format_size ((guint64) sp_output_item_get_size (output));
      g_autofree char *title = g_strdup_printf ("%s · %s · %s", sp_output_item_get_label (output),
                                                size, sp_output_item_get_mime (output));
      set_run_text (label, title);
      gtk_widget_add_css_class (label, "notice");
      description = _ ("Created file");
      bind_preview (self, output);
    }
  /* Colour alone does not reach everyone: say which stream it is. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
}

/* A table a run displayed: its columns and rows, each cell plain text
 * (sp-table-view.h). */
static void
bind_data_table (SpOutputRow *self, SpOutputItem *item)
{
  if (self->table_view == NULL)
    {
      self->table_view = sp_table_view_new ();
      gtk_widget_insert_before (self->table_view, GTK_WIDGET (self), NULL);
    }
  sp_table_view_set_table (SP_TABLE_VIEW (self->table_view), sp_output_item_get_table (item),
                           sp_output_item_get_label (item), sp_output_item_get_text (item));
  gtk_widget_set_visible (self->table_view, TRUE);
}

static void
on_fold_copy (SpFoldBar *bar, SpOutputRow *self)
{
  g_signal_emit (self, signals[COPY_LINE], 0, self->item);
}

static void
on_fold_save (SpFoldBar *bar, SpOutputRow *self)
{
  g_signal_emit (self, signals[SAVE_LINE], 0, self->item);
}

/* A folded line says so under its start, and offers the whole line. */
static void
bind_fold (SpOutputRow *self, SpOutputItem *item)
{
  guint64 folded = sp_output_item_get_folded (item);

  if (folded == 0)
    {
      if (self->fold != NULL)
        gtk_widget_set_visible (self->fold, FALSE);
      return;
    }
  if (self->fold == NULL)
    {
      self->fold = sp_fold_bar_new ();
      g_signal_connect_object (self->fold, "copy-line", G_CALLBACK (on_fold_copy), self, 0);
      g_signal_connect_object (self->fold, "save-line", G_CALLBACK (on_fold_save), self, 0);
      gtk_widget_insert_after (self->fold, GTK_WIDGET (self), self->label);
    }
  sp_fold_bar_set_folded (SP_FOLD_BAR (self->fold), sp_output_item_get_folded_chars (item));
  gtk_widget_set_visible (self->fold, TRUE);
}

static void
bind_parts (SpOutputRow *self, SpOutputItem *item, const char *snippet_name,
            const char *display_name)
{
  SpOutputKind kind;
  gboolean plain;

  kind = sp_output_item_get_kind (item);
  plain = kind == SP_OUTPUT_STDOUT || kind == SP_OUTPUT_STDERR || kind == SP_OUTPUT_NOTICE
          || kind == SP_OUTPUT_INPUT;
  g_set_object (&self->item, item);
  if (!plain)
    ensure_parts (self);
  gtk_widget_set_visible (self->label, kind != SP_OUTPUT_IMAGE && kind != SP_OUTPUT_TABLE);
  if (self->table_view != NULL && kind != SP_OUTPUT_TABLE)
    {
      /* Not kept for a row that shows something else: its rows go. */
      sp_table_view_set_table (SP_TABLE_VIEW (self->table_view), NULL, NULL, NULL);
      gtk_widget_set_visible (self->table_view, FALSE);
    }
  gtk_widget_remove_css_class (self->label, "stderr");
  gtk_widget_remove_css_class (self->label, "stdin");
  gtk_widget_remove_css_class (self->label, "prompt-answer");
  gtk_widget_remove_css_class (self->label, "notice");
  gtk_widget_remove_css_class (self->label, "error-title");
  if (self->picture == NULL)
    {
      bind_text (self, item, snippet_name, display_name);
      return;
    }
  gtk_widget_set_visible (self->picture, kind == SP_OUTPUT_IMAGE);
  gtk_widget_set_visible (self->frames, kind == SP_OUTPUT_ERROR);
  gtk_widget_set_visible (self->actions, kind == SP_OUTPUT_IMAGE || kind == SP_OUTPUT_FILE);
  gtk_widget_set_visible (self->preview, FALSE);
  gtk_widget_set_visible (self->table, FALSE);
  bind_actions (self, item);
  if (kind == SP_OUTPUT_IMAGE)
    {
      bind_image (self, item);
      return;
    }
  gtk_picture_set_paintable (GTK_PICTURE (self->picture), NULL);
  if (kind == SP_OUTPUT_TABLE)
    {
      bind_data_table (self, item);
      return;
    }
  bind_text (self, item, snippet_name, display_name);
}

void
sp_output_row_bind (SpOutputRow *self, SpOutputItem *item, const char *snippet_name,
                    const char *display_name)
{
  g_return_if_fail (SP_IS_OUTPUT_ROW (self));
  g_return_if_fail (SP_IS_OUTPUT_ITEM (item));

  bind_parts (self, item, snippet_name, display_name);
  if (gtk_widget_get_visible (self->label))
    sp_wrap_attrs_update (GTK_LABEL (self->label));
  bind_fold (self, item);
}

GtkWidget *
sp_output_row_get_table_view (SpOutputRow *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ROW (self), NULL);
  return self->table_view;
}

SpOutputItem *
sp_output_row_get_item (SpOutputRow *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ROW (self), NULL);
  return self->item;
}

GtkWidget *
sp_output_row_new (GCancellable *cancellable)
{
  g_return_val_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable), NULL);
  return g_object_new (SP_TYPE_OUTPUT_ROW, "cancellable", cancellable, NULL);
}

static void
sp_output_row_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SpOutputRow *self = SP_OUTPUT_ROW (object);

  switch (prop_id)
    {
    case PROP_CANCELLABLE:
      g_set_object (&self->cancellable, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_output_row_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpOutputRow *self = SP_OUTPUT_ROW (object);

  switch (prop_id)
    {
    case PROP_CANCELLABLE:
      g_value_set_object (value, self->cancellable);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_output_row_dispose (GObject *object)
{
  SpOutputRow *self = SP_OUTPUT_ROW (object);
  GtkWidget *child;

  g_clear_object (&self->item);
  g_clear_object (&self->cancellable);
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_OUTPUT_ROW);
  /* The parts made in code are not the template's. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  self->picture = self->frames = self->actions = self->preview = self->table = NULL;
  self->table_view = self->fold = NULL;
  G_OBJECT_CLASS (sp_output_row_parent_class)->dispose (object);
}

static void
sp_output_row_class_init (SpOutputRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_output_row_dispose;
  object_class->set_property = sp_output_row_set_property;
  object_class->get_property = sp_output_row_get_property;

  properties[PROP_CANCELLABLE] = g_param_spec_object ("cancellable", NULL, NULL, G_TYPE_CANCELLABLE,
                                                      G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY
                                                        | G_PARAM_STATIC_STRINGS
                                                        | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[GOTO_LINE] = g_signal_new ("goto-line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);
  signals[OPEN_FILE] = g_signal_new ("open-file", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);
  signals[SAVE_FILE] = g_signal_new ("save-file", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);
  signals[SHOW_IMAGE] = g_signal_new ("show-image", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                      NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);
  signals[COPY_LINE] = g_signal_new ("copy-line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);
  signals[SAVE_LINE] = g_signal_new ("save-line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-output-row.ui");
  gtk_widget_class_bind_template_child (widget_class, SpOutputRow, label);
  gtk_widget_class_bind_template_callback (widget_class, on_activate_link);
  gtk_widget_class_set_css_name (widget_class, "outputrow");
  /* A group of the parts, as the GtkBox it replaces was. */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sp_output_row_init (SpOutputRow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
