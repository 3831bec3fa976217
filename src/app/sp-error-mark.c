/* sp-error-mark.c: the line a failed run stopped on, marked in the editor.
 *
 * A run can fail while the person types elsewhere in the code. Putting
 * the caret on the error line then sent the next keys there (issue 38:
 * typed at the end of line 4, they landed at the start of line 2), and
 * scrolling to it took the view away from the typing. So the line is only
 * marked: a GtkSourceMark whose category paints the line's background,
 * kept where the text moves it, and the jump is the person's to ask for
 * (a traceback link, a frame, Ctrl+E). */
#define G_LOG_DOMAIN "sp-error-mark"

#include "config.h"

#include "sp-error-mark.h"

struct _SpErrorMark
{
  GObject parent_instance;

  GtkSourceView *view;
  GtkTextBuffer *buffer; /* the view's, when made */
  GtkTextMark *mark;     /* at the marked line; NULL when none */
  /* The deletion under way removes the marked line: the mark goes once it
   * is done (deleting a mark during it invalidates the buffer's iters). */
  gboolean doomed;
};

G_DEFINE_FINAL_TYPE (SpErrorMark, sp_error_mark, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_LINE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
line_bounds (SpErrorMark *self, GtkTextIter *start, GtkTextIter *end)
{
  gtk_text_buffer_get_iter_at_mark (self->buffer, start, self->mark);
  gtk_text_iter_set_line_offset (start, 0);
  *end = *start;
  if (!gtk_text_iter_ends_line (end))
    gtk_text_iter_forward_to_line_end (end);
}

/* The marked line's text deleted as a whole (a reload, a restore, the
 * line cut) takes the mark with it: what is left there is other code. A
 * deletion within the line, or an edit anywhere else, keeps it. */
static void
on_delete_range (GtkTextBuffer *buffer, GtkTextIter *start, GtkTextIter *end, SpErrorMark *self)
{
  GtkTextIter line_start, line_end;

  if (self->mark == NULL || gtk_text_iter_equal (start, end))
    return;
  line_bounds (self, &line_start, &line_end);
  self->doomed = gtk_text_iter_compare (start, &line_start) <= 0
                 && gtk_text_iter_compare (end, &line_end) >= 0;
}

static void
on_range_deleted (GtkTextBuffer *buffer, GtkTextIter *start, GtkTextIter *end, SpErrorMark *self)
{
  if (self->doomed)
    sp_error_mark_clear (self);
  self->doomed = FALSE;
}

static void
sp_error_mark_dispose (GObject *object)
{
  SpErrorMark *self = SP_ERROR_MARK (object);

  if (self->buffer != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->buffer, self);
      if (self->mark != NULL)
        gtk_text_buffer_delete_mark (self->buffer, self->mark);
    }
  g_clear_object (&self->mark);
  g_clear_object (&self->buffer);
  g_clear_object (&self->view);
  G_OBJECT_CLASS (sp_error_mark_parent_class)->dispose (object);
}

static void
sp_error_mark_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpErrorMark *self = SP_ERROR_MARK (object);

  switch (prop_id)
    {
    case PROP_LINE:
      g_value_set_int (value, sp_error_mark_get_line (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_error_mark_class_init (SpErrorMarkClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sp_error_mark_dispose;
  object_class->get_property = sp_error_mark_get_property;

  /* Notified when a line is marked or the mark goes, not as edits move
   * it. */
  properties[PROP_LINE] = g_param_spec_int ("line", NULL, NULL, 0, G_MAXINT, 0,
                                            G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                              | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sp_error_mark_init (SpErrorMark *self)
{
}

SpErrorMark *
sp_error_mark_new (GtkSourceView *view)
{
  g_autoptr (GtkSourceMarkAttributes) attributes = gtk_source_mark_attributes_new ();
  SpErrorMark *self;
  GdkRGBA tint;

  g_return_val_if_fail (GTK_SOURCE_IS_VIEW (view), NULL);

  self = g_object_new (SP_TYPE_ERROR_MARK, NULL);
  self->view = g_object_ref (view);
  self->buffer = g_object_ref (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)));
  /* The view paints a mark's background across its line whether or not
   * the gutter shows marks: no gutter appears (and shifts the text) when
   * a run fails. The red reads in light and dark styles alike. */
  gdk_rgba_parse (&tint, "rgba(224,27,36,0.18)");
  gtk_source_mark_attributes_set_background (attributes, &tint);
  gtk_source_view_set_mark_attributes (view, SP_ERROR_MARK_CATEGORY, attributes, 10);
  g_signal_connect (self->buffer, "delete-range", G_CALLBACK (on_delete_range), self);
  g_signal_connect_after (self->buffer, "delete-range", G_CALLBACK (on_range_deleted), self);
  return self;
}

void
sp_error_mark_set_line (SpErrorMark *self, int line)
{
  GtkTextIter at;

  g_return_if_fail (SP_IS_ERROR_MARK (self));

  sp_error_mark_clear (self);
  if (line < 1 || line > gtk_text_buffer_get_line_count (self->buffer))
    return;
  gtk_text_buffer_get_iter_at_line (self->buffer, &at, line - 1);
  /* Right gravity: a new line typed at its start pushes the code, and
   * the mark with it, down. Only a mark is added: the insert and
   * selection marks, and so the caret and the view, are untouched. */
  self->mark = g_object_new (GTK_SOURCE_TYPE_MARK, "category", SP_ERROR_MARK_CATEGORY,
                             "left-gravity", FALSE, NULL);
  gtk_text_buffer_add_mark (self->buffer, self->mark, &at);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LINE]);
}

void
sp_error_mark_clear (SpErrorMark *self)
{
  g_autoptr (GtkTextMark) mark = NULL;

  g_return_if_fail (SP_IS_ERROR_MARK (self));

  if (self->mark == NULL)
    return;
  mark = g_steal_pointer (&self->mark);
  gtk_text_buffer_delete_mark (self->buffer, mark);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LINE]);
}

int
sp_error_mark_get_line (SpErrorMark *self)
{
  GtkTextIter at;

  g_return_val_if_fail (SP_IS_ERROR_MARK (self), 0);

  if (self->mark == NULL)
    return 0;
  gtk_text_buffer_get_iter_at_mark (self->buffer, &at, self->mark);
  return gtk_text_iter_get_line (&at) + 1;
}

gboolean
sp_error_mark_jump (SpErrorMark *self)
{
  GtkTextIter start, end;

  g_return_val_if_fail (SP_IS_ERROR_MARK (self), FALSE);

  if (self->mark == NULL)
    return FALSE;
  line_bounds (self, &start, &end);
  gtk_text_buffer_place_cursor (self->buffer, &start);
  /* A mark, not the iter: the view scrolls once it has measured the
   * lines, however recently the text changed. */
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->view),
                                gtk_text_buffer_get_insert (self->buffer), 0.2, FALSE, 0, 0);
  gtk_widget_grab_focus (GTK_WIDGET (self->view));
  return TRUE;
}
