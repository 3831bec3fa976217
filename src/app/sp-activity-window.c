/* sp-activity-window.c: what assistants run through sandpad-mcp, live.
 *
 * A template (ui/sp-activity-window.ui), as SpHistoryWindow: a list
 * bound to the model and a detail pane rebuilt (at most once per
 * main-loop turn) when the shown run changes. */
#define G_LOG_DOMAIN "sp-activity-window"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include <gtksourceview/gtksource.h>

#include "sp-activity-window.h"
#include "sp-traceback.h"
#include "sp-visible-text.h"

struct _SpActivityWindow
{
  AdwWindow parent_instance;

  SpActivityModel *model;
  GtkListBox *list;
  GtkLabel *title;
  GtkLabel *status;
  GtkWidget *stop_button;
  GtkTextView *text_view;
  GtkLabel *empty;

  SpActivityRun *shown;
  gulong shown_changed_id;
  guint refresh_id;
  /* What the text view holds of the shown run: its output up to this
   * chunk and the last one's length, and whether it was running. */
  guint shown_chunks;
  gsize shown_last_len;
  gboolean shown_running;
  /* Where the output begins: the diff goes there when the run ends. */
  GtkTextMark *output_start;
};

G_DEFINE_FINAL_TYPE (SpActivityWindow, sp_activity_window, ADW_TYPE_WINDOW)

static char *
first_line (const char *text)
{
  const char *nl = text ? strchr (text, '\n') : NULL;

  if (text == NULL)
    return g_strdup ("");
  return nl ? g_strdup_printf ("%.*s…", (int) (nl - text), text) : g_strdup (text);
}

static void
update_row (GtkLabel *label, SpActivityRun *run)
{
  g_autofree char *what = first_line (sp_activity_run_get_source (run));
  g_autofree char *how = sp_activity_run_describe (run);
  g_autofree char *text
    = g_strdup_printf ("%s · %s\n%s",
                       sp_activity_run_get_tool (run) ? sp_activity_run_get_tool (run) : "?", what,
                       how);

  g_autofree char *shown = sp_visible_text_escape (text, -1, NULL);

  gtk_label_set_text (label, shown);
  if (sp_activity_run_is_running (run) || sp_activity_run_get_exit_code (run) == 0)
    gtk_widget_remove_css_class (GTK_WIDGET (label), "error");
  else
    gtk_widget_add_css_class (GTK_WIDGET (label), "error");
}

static GtkWidget *
create_row (gpointer item, gpointer user_data)
{
  SpActivityRun *run = item;
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_set_margin_start (label, 8);
  gtk_widget_set_margin_end (label, 8);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_margin_bottom (label, 6);
  update_row (GTK_LABEL (label), run);
  g_signal_connect_object (run, "changed", G_CALLBACK (update_row), label, G_CONNECT_SWAPPED);
  return label;
}

/* Inserts text at at with tag and tag2 (either NULL), each character
 * that would hide or reorder text (a bidi override in an assistant's
 * code, a zero-width space in a run's output) shown as its code point in
 * a style of its own (sp-visible-text.h): the pane shows what the journal
 * holds, never a line that reads as something else. */
static void
insert_visible (GtkTextBuffer *buffer, GtkTextIter *at, const char *text, gssize len,
                const char *tag, const char *tag2)
{
  g_autoptr (GArray) spans = NULL;
  g_autofree char *shown = NULL;
  int start_offset;
  gsize from = 0;
  glong offset;

  if (!sp_visible_text_has_hidden (text, len))
    {
      if (tag != NULL)
        gtk_text_buffer_insert_with_tags_by_name (buffer, at, text, (int) len, tag, tag2, NULL);
      else
        gtk_text_buffer_insert (buffer, at, text, (int) len);
      return;
    }
  spans = g_array_new (FALSE, FALSE, sizeof (SpVisibleSpan));
  shown = sp_visible_text_escape (text, len, spans);
  start_offset = gtk_text_iter_get_offset (at);
  if (tag != NULL)
    gtk_text_buffer_insert_with_tags_by_name (buffer, at, shown, -1, tag, tag2, NULL);
  else
    gtk_text_buffer_insert (buffer, at, shown, -1);
  offset = start_offset;
  for (guint i = 0; i < spans->len; i++)
    {
      const SpVisibleSpan *span = &g_array_index (spans, SpVisibleSpan, i);
      GtkTextIter a, b;

      offset += g_utf8_pointer_to_offset (shown + from, shown + span->start);
      from = span->end;
      gtk_text_buffer_get_iter_at_offset (buffer, &a, (int) offset);
      /* An escape is ASCII: as many characters as bytes. */
      offset += (glong) (span->end - span->start);
      gtk_text_buffer_get_iter_at_offset (buffer, &b, (int) offset);
      gtk_text_buffer_apply_tag_by_name (buffer, "hidden-char", &a, &b);
    }
}

static void
append_tagged (GtkTextBuffer *buffer, const char *text, const char *tag)
{
  GtkTextIter end;

  gtk_text_buffer_get_end_iter (buffer, &end);
  insert_visible (buffer, &end, text, -1, tag, NULL);
}

/* After the output, once the run has ended: its error and its files. */
static void
append_end (SpActivityWindow *self, SpActivityRun *run)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  const char *const *files = sp_activity_run_get_files (run);

  if (sp_activity_run_get_error (run) != NULL)
    {
      append_tagged (buffer, "\n", NULL);
      append_tagged (buffer, sp_activity_run_get_error (run), "stderr");
      append_tagged (buffer, "\n", NULL);
    }
  for (guint i = 0; files != NULL && files[i] != NULL; i++)
    {
      /* TRANSLATORS: a file (a plot, say) the assistant's run made */
      g_autofree char *line = g_strdup_printf (_ ("Made %s\n"), files[i]);
      append_tagged (buffer, line, "file");
    }
}

/* edit_and_execute's edit, between the code and the output (the journal
 * says it with the end). */
static void
insert_diff (SpActivityWindow *self, SpActivityRun *run)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  GtkTextIter at;

  if (sp_activity_run_get_diff (run) == NULL)
    return;
  gtk_text_buffer_get_iter_at_mark (buffer, &at, self->output_start);
  /* Line by line, each in its diff colour. */
  for (const char *line = sp_activity_run_get_diff (run); *line != '\0';)
    {
      const char *nl = strchr (line, '\n');
      gsize len = nl != NULL ? (gsize) (nl - line) + 1 : strlen (line);
      const char *kind = NULL;

      if (g_str_has_prefix (line, "+++") || g_str_has_prefix (line, "---"))
        kind = "diff:diff-file";
      else if (g_str_has_prefix (line, "@@"))
        kind = "diff:location";
      else if (line[0] == '+')
        kind = "diff:added-line";
      else if (line[0] == '-')
        kind = "diff:removed-line";
      insert_visible (buffer, &at, line, (gssize) len, "code", kind);
      line += len;
    }
  gtk_text_buffer_insert (buffer, &at, "\n", -1);
}

/* The diff's colours are GtkSourceView's own, from its diff language's
 * styles in the Adwaita scheme for the style in use. */
static void
update_diff_colours (SpActivityWindow *self)
{
  static const char *const kinds[] = { "diff:diff-file", "diff:location", "diff:added-line",
                                       "diff:removed-line" };
  GtkTextTagTable *table = gtk_text_buffer_get_tag_table (
    gtk_text_view_get_buffer (self->text_view));
  GtkSourceStyleScheme *scheme = gtk_source_style_scheme_manager_get_scheme (
    gtk_source_style_scheme_manager_get_default (),
    adw_style_manager_get_dark (adw_style_manager_get_default ()) ? "Adwaita-dark" : "Adwaita");

  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      GtkTextTag *tag = gtk_text_tag_table_lookup (table, kinds[i]);
      GtkSourceStyle *style = scheme != NULL ? gtk_source_style_scheme_get_style (scheme, kinds[i])
                                             : NULL;

      if (tag == NULL)
        {
          tag = gtk_text_tag_new (kinds[i]);
          gtk_text_tag_table_add (table, tag);
          g_object_unref (tag);
        }
      if (style != NULL)
        gtk_source_style_apply (style, tag);
    }
}

/* Output as the user knows the file: an edit_and_execute ran it under its
 * own name in the sandbox (/code/prog.py); the main window says "prog.py". */
static char *
output_for_person (SpActivityRun *run, const char *text, gboolean is_stderr)
{
  g_autofree char *name = NULL;

  if (!is_stderr || sp_activity_run_get_file (run) == NULL)
    return g_strdup (text);
  name = g_path_get_basename (sp_activity_run_get_file (run));
  return sp_traceback_rename (text, name, name);
}

static void
show_state (SpActivityWindow *self, SpActivityRun *run)
{
  g_autofree char *how = sp_activity_run_describe (run);

  gtk_label_set_text (self->status, how);
  gtk_widget_set_sensitive (self->stop_button, sp_activity_run_is_running (run));
}

static void
refresh (SpActivityWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  SpActivityRun *run = self->shown;
  g_autofree char *title = NULL;
  GtkTextIter end;
  GArray *output;

  gtk_widget_set_visible (GTK_WIDGET (self->empty), run == NULL);
  gtk_text_buffer_set_text (buffer, "", 0);
  self->shown_running = FALSE;
  if (run == NULL)
    {
      gtk_label_set_text (self->title, "");
      gtk_label_set_text (self->status, "");
      gtk_widget_set_sensitive (self->stop_button, FALSE);
      return;
    }
  {
    g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
    g_autofree char *when = sp_activity_run_format_time (run, now);

    /* TRANSLATORS: tool · language · "in" workspace · local time, how long ago */
    title = g_strdup_printf (_ ("%s · %s · in %s · %s"),
                             sp_activity_run_get_tool (run) ? sp_activity_run_get_tool (run) : "?",
                             sp_activity_run_get_language (run) ? sp_activity_run_get_language (run)
                                                                : _ ("shell"),
                             sp_activity_run_get_workspace (run)
                               ? sp_activity_run_get_workspace (run)
                               : _ ("a private directory"),
                             when ? when : "");
  }
  {
    g_autofree char *shown = sp_visible_text_escape (title, -1, NULL);
    gtk_label_set_text (self->title, shown);
  }
  show_state (self, run);

  append_tagged (buffer, sp_activity_run_get_source (run) ? sp_activity_run_get_source (run) : "",
                 "code");
  append_tagged (buffer, "\n\n", NULL);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_move_mark (buffer, self->output_start, &end);
  insert_diff (self, run);
  output = sp_activity_run_get_output (run);
  for (guint i = 0; i < output->len; i++)
    {
      SpActivityChunk *chunk = &g_array_index (output, SpActivityChunk, i);
      g_autofree char *text = output_for_person (run, chunk->text, chunk->is_stderr);
      append_tagged (buffer, text, chunk->is_stderr ? "stderr" : NULL);
    }
  self->shown_chunks = output->len;
  self->shown_last_len = output->len > 0
                           ? strlen (g_array_index (output, SpActivityChunk, output->len - 1).text)
                           : 0;
  if (!sp_activity_run_is_running (run))
    append_end (self, run);
  /* Only a run whose start line was read has its code above the output
   * already: until then, each change rebuilds the text. */
  self->shown_running = sp_activity_run_is_running (run) && sp_activity_run_get_tool (run) != NULL;
}

/* While the run goes, its output only grows at the end of the text: the
 * rest of the chunk that was last, then new chunks. */
static void
append_new_output (SpActivityWindow *self, SpActivityRun *run)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->text_view);
  GArray *output = sp_activity_run_get_output (run);
  guint first = self->shown_chunks > 0 ? self->shown_chunks - 1 : 0;

  for (guint i = first; i < output->len; i++)
    {
      SpActivityChunk *chunk = &g_array_index (output, SpActivityChunk, i);
      gsize len = strlen (chunk->text);
      gsize from = i + 1 == self->shown_chunks ? self->shown_last_len : 0;

      if (len > from)
        {
          g_autofree char *text = output_for_person (run, chunk->text + from, chunk->is_stderr);
          append_tagged (buffer, text, chunk->is_stderr ? "stderr" : NULL);
        }
      self->shown_last_len = len;
    }
  self->shown_chunks = output->len;
}

/* On the frame clock, once per frame at most however many journal lines
 * came, and only what is new (issue 29: a rebuild of the whole text for
 * each of 1,500 lines froze the window for 54 s). */
static gboolean
refresh_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  SpActivityWindow *self = SP_ACTIVITY_WINDOW (widget);
  SpActivityRun *run = self->shown;

  self->refresh_id = 0;
  if (run == NULL || !self->shown_running)
    {
      refresh (self);
      return G_SOURCE_REMOVE;
    }
  append_new_output (self, run);
  show_state (self, run);
  if (!sp_activity_run_is_running (run))
    {
      insert_diff (self, run);
      append_end (self, run);
      self->shown_running = FALSE;
    }
  return G_SOURCE_REMOVE;
}

static void
queue_refresh (SpActivityWindow *self)
{
  if (self->refresh_id == 0)
    self->refresh_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), refresh_tick, NULL, NULL);
}

static void
show_run (SpActivityWindow *self, SpActivityRun *run)
{
  if (self->shown != NULL)
    g_clear_signal_handler (&self->shown_changed_id, self->shown);
  g_set_object (&self->shown, run);
  if (run != NULL)
    self->shown_changed_id = g_signal_connect_object (run, "changed", G_CALLBACK (queue_refresh),
                                                      self, G_CONNECT_SWAPPED);
  refresh (self);
}

static void
on_row_selected (GtkListBox *list, GtkListBoxRow *row, SpActivityWindow *self)
{
  g_autoptr (SpActivityRun) run = NULL;

  if (row == NULL)
    return;
  run = g_list_model_get_item (G_LIST_MODEL (self->model), gtk_list_box_row_get_index (row));
  show_run (self, run);
}

/* A new run is what a person watching wants to see. */
static void
on_run_added (SpActivityModel *model, SpActivityRun *run, SpActivityWindow *self)
{
  GtkListBoxRow *row;

  row = gtk_list_box_get_row_at_index (self->list,
                                       (int) g_list_model_get_n_items (G_LIST_MODEL (model)) - 1);
  if (row != NULL)
    gtk_list_box_select_row (self->list, row);
}

static void
on_stop_clicked (GtkButton *button, SpActivityWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (self->shown == NULL)
    return;
  if (!sp_activity_model_request_stop (self->model, sp_activity_run_get_id (self->shown), &error))
    gtk_label_set_text (self->status, error->message);
  else
    gtk_label_set_text (self->status, _ ("Stopping…"));
}

static void
sp_activity_window_dispose (GObject *object)
{
  SpActivityWindow *self = SP_ACTIVITY_WINDOW (object);

  if (self->shown != NULL)
    g_clear_signal_handler (&self->shown_changed_id, self->shown);
  g_clear_object (&self->shown);
  if (self->refresh_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->refresh_id);
  self->refresh_id = 0;
  if (self->list != NULL)
    g_signal_handlers_disconnect_by_data (self->list, self);
  self->list = NULL;
  g_clear_object (&self->model);
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_ACTIVITY_WINDOW);
  G_OBJECT_CLASS (sp_activity_window_parent_class)->dispose (object);
}

static void
sp_activity_window_class_init (SpActivityWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->dispose = sp_activity_window_dispose;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-activity-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SpActivityWindow, list);
  gtk_widget_class_bind_template_child (widget_class, SpActivityWindow, title);
  gtk_widget_class_bind_template_child (widget_class, SpActivityWindow, status);
  gtk_widget_class_bind_template_child (widget_class, SpActivityWindow, stop_button);
  gtk_widget_class_bind_template_child (widget_class, SpActivityWindow, text_view);
  gtk_widget_class_bind_template_child (widget_class, SpActivityWindow, empty);
  gtk_widget_class_bind_template_callback (widget_class, on_stop_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_row_selected);
}

static void
sp_activity_window_init (SpActivityWindow *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start;

  gtk_widget_init_template (GTK_WIDGET (self));
  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_create_tag (buffer, "code", "paragraph-background", "rgba(127,127,127,0.12)",
                              NULL);
  gtk_text_buffer_create_tag (buffer, "stderr", "foreground", "#c01c28", NULL);
  gtk_text_buffer_create_tag (buffer, "file", "style", PANGO_STYLE_ITALIC, NULL);
  gtk_text_buffer_create_tag (buffer, "hidden-char", "underline", PANGO_UNDERLINE_ERROR, "style",
                              PANGO_STYLE_ITALIC, NULL);
  update_diff_colours (self);
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (update_diff_colours), self, G_CONNECT_SWAPPED);
  /* Left gravity: it stays before what is inserted at it, the diff. */
  gtk_text_buffer_get_start_iter (buffer, &start);
  self->output_start = gtk_text_buffer_create_mark (buffer, NULL, &start, TRUE);
}

SpActivityWindow *
sp_activity_window_new (GtkApplication *app, SpActivityModel *model)
{
  SpActivityWindow *self = g_object_new (SP_TYPE_ACTIVITY_WINDOW, "application", app, NULL);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (model));

  self->model = g_object_ref (model);
  gtk_list_box_bind_model (self->list, G_LIST_MODEL (model), create_row, self, NULL);
  g_signal_connect_object (model, "run-added", G_CALLBACK (on_run_added), self, G_CONNECT_AFTER);
  if (n > 0)
    gtk_list_box_select_row (self->list, gtk_list_box_get_row_at_index (self->list, (int) n - 1));
  else
    refresh (self);
  return self;
}

SpActivityRun *
sp_activity_window_get_shown (SpActivityWindow *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_WINDOW (self), NULL);
  return self->shown;
}

char *
sp_activity_window_get_text (SpActivityWindow *self)
{
  GtkTextBuffer *buffer;
  GtkTextIter start, end;

  g_return_val_if_fail (SP_IS_ACTIVITY_WINDOW (self), NULL);
  buffer = gtk_text_view_get_buffer (self->text_view);
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

const char *
sp_activity_window_get_status (SpActivityWindow *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_WINDOW (self), NULL);
  return gtk_label_get_text (self->status);
}

const char *
sp_activity_window_get_title_text (SpActivityWindow *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_WINDOW (self), NULL);
  return gtk_label_get_text (self->title);
}

GtkTextView *
sp_activity_window_get_text_view (SpActivityWindow *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_WINDOW (self), NULL);
  return self->text_view;
}
