/* sp-output-model.c: a run's output as a list the panel can show. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <stdlib.h>
#include <string.h>

#include "sp-output-model.h"
#include "sp-output-store.h"

/* Folding counts on a row being one line: a row full of bytes whose line
 * goes on is a line longer than a row shows. */
G_STATIC_ASSERT (SP_OUTPUT_MODEL_ROW_LINES == 1);

typedef struct
{
  SpOutputKind kind;
  GString *text;
  gint64 t_ms;     /* when the runner read it; chunks of other times stay apart */
  gint64 store_at; /* where text starts in the store; -1: not kept there */
} Segment;

struct _SpOutputModel
{
  GObject parent_instance;
  GPtrArray *items;
  gsize max_bytes;
  guint max_lines;
  /* Text in rows: bytes and newlines. */
  gsize bytes;
  guint64 lines;
  guint64 hidden_lines;
  guint64 hidden_bytes;
  /* A chunk ended in '\r': a carriage return, unless '\n' comes next. */
  gboolean pending_cr;
  SpOutputKind pending_cr_kind;

  gboolean batched;
  /* A view publishes on its frames (sp_output_model_publish_frame); the
   * timer is only a backstop for a view that paints none. */
  gboolean view_publishes;
  guint batch_id;
  gint64 published_at;
  /* "has-pending" was notified TRUE (batched only: unbatched, text never
   * waits). */
  gboolean pending_told;
  gboolean keep_rows;
  gint64 batch_ms;
  /* While publishing: the first row changed or added, for views. */
  guint first_changed;
  GQueue pending; /* of Segment, in arrival order */
  /* Text rows no view has seen, kept for the next rows a batch builds:
   * following a flood, each batch builds as many rows as it pushes out of
   * the tail, and making and freeing an object for each was most of what
   * showing a batch cost (issue 30). */
  GPtrArray *spare;
  /* The latest time text came with (-1: none): rows never go back in
   * time, so the run's files are placed in one pass. */
  gint64 last_t_ms;

  /* The whole output, for Save Output and a folded line's Copy. */
  SpOutputStore *store;
};

enum
{
  PROP_0,
  PROP_HIDDEN,
  PROP_HAS_PENDING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SpOutputModel, sp_output_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
get_item_type (GListModel *model)
{
  return SP_TYPE_OUTPUT_ITEM;
}

static guint
get_n_items (GListModel *model)
{
  return SP_OUTPUT_MODEL (model)->items->len;
}

static gpointer
get_item (GListModel *model, guint position)
{
  SpOutputModel *self = SP_OUTPUT_MODEL (model);

  if (position >= self->items->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->items, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static void
segment_free (gpointer data)
{
  Segment *segment = data;

  g_string_free (segment->text, TRUE);
  g_free (segment);
}

static void
sp_output_model_finalize (GObject *object)
{
  SpOutputModel *self = SP_OUTPUT_MODEL (object);

  g_clear_handle_id (&self->batch_id, g_source_remove);
  g_queue_clear_full (&self->pending, segment_free);
  sp_output_store_free (self->store);
  g_ptr_array_unref (self->spare);
  g_ptr_array_unref (self->items);
  G_OBJECT_CLASS (sp_output_model_parent_class)->finalize (object);
}

static void
sp_output_model_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpOutputModel *self = SP_OUTPUT_MODEL (object);

  switch (prop_id)
    {
    case PROP_HIDDEN:
      g_value_set_uint64 (value, self->hidden_lines);
      break;
    case PROP_HAS_PENDING:
      g_value_set_boolean (value, self->pending.length > 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_output_model_class_init (SpOutputModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sp_output_model_finalize;
  object_class->get_property = sp_output_model_get_property;
  /* Lines dropped from the front; notified whenever more text is dropped
   * (bytes of a long line too) and on clear. */
  properties[PROP_HIDDEN] = g_param_spec_uint64 ("hidden", NULL, NULL, 0, G_MAXUINT64, 0,
                                                 G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                   | G_PARAM_EXPLICIT_NOTIFY);
  /* Text collected and not shown yet: a view that publishes on its frames
   * asks for frames while it is TRUE. */
  properties[PROP_HAS_PENDING] = g_param_spec_boolean ("has-pending", NULL, NULL, FALSE,
                                                       G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                         | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sp_output_model_init (SpOutputModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->spare = g_ptr_array_new_with_free_func (g_object_unref);
  self->store = sp_output_store_new ();
  self->max_bytes = SP_OUTPUT_MODEL_DEFAULT_MAX_BYTES;
  self->max_lines = SP_OUTPUT_MODEL_DEFAULT_MAX_LINES;
  self->batch_ms = SP_OUTPUT_MODEL_BATCH_MS;
  g_queue_init (&self->pending);
  self->last_t_ms = -1;
}

SpOutputModel *
sp_output_model_new (void)
{
  return g_object_new (SP_TYPE_OUTPUT_MODEL, NULL);
}

void
sp_output_model_set_max_bytes (SpOutputModel *self, gsize max_bytes)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  self->max_bytes = MAX (max_bytes, 1);
}

void
sp_output_model_set_max_lines (SpOutputModel *self, guint max_lines)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  self->max_lines = MAX (max_lines, 1);
}

guint64
sp_output_model_get_hidden_lines (SpOutputModel *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_MODEL (self), 0);
  return self->hidden_lines;
}

guint64
sp_output_model_get_hidden_bytes (SpOutputModel *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_MODEL (self), 0);
  return self->hidden_bytes;
}

gboolean
sp_output_model_get_truncated (SpOutputModel *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_MODEL (self), FALSE);
  return self->hidden_bytes > 0;
}

guint64
sp_output_model_get_total_bytes (SpOutputModel *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_MODEL (self), 0);
  return sp_output_store_get_size (self->store);
}

gboolean
sp_output_model_has_pending (SpOutputModel *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_MODEL (self), FALSE);
  return self->pending.length > 0;
}

static guint
count_lines (const char *text, gsize len)
{
  guint n = 0;

  for (const char *p = text, *end = text + len; (p = memchr (p, '\n', (gsize) (end - p))) != NULL;
       p++)
    n++;
  return n;
}

/* ---- building rows ---- */

/* Characters in len bytes of UTF-8 (what a folded line says it left out). */
static guint64
count_chars (const char *text, gsize len)
{
  guint64 n = 0;

  for (gsize i = 0; i < len; i++)
    n += ((guchar) text[i] & 0xC0) != 0x80;
  return n;
}

/* The longest start of text of at most max bytes that ends between two
 * characters (0 when its first character is longer). */
static gsize
utf8_prefix (const char *text, gsize len, gsize max)
{
  gsize end = max;

  if (len <= max)
    return len;
  while (end > 0 && ((guchar) text[end] & 0xC0) == 0x80)
    end--;
  return end;
}

/* How much of text a row of row_len bytes shows: up to its room, and the
 * newline that ends its line (even just past the room). */
static gsize
row_take (const char *text, gsize len, gsize row_len)
{
  gsize room = SP_OUTPUT_MODEL_ITEM_BYTES - MIN (SP_OUTPUT_MODEL_ITEM_BYTES, row_len);
  gsize take = utf8_prefix (text, len, room);
  const char *nl = memchr (text, '\n', MIN (len, take + 1));

  return nl != NULL ? (gsize) (nl - text) + 1 : take;
}

static SpOutputItem *
last_item (SpOutputModel *self)
{
  return self->items->len ? g_ptr_array_index (self->items, self->items->len - 1) : NULL;
}

static gboolean
is_text (SpOutputItem *item)
{
  SpOutputKind kind = sp_output_item_get_kind (item);

  return kind == SP_OUTPUT_STDOUT || kind == SP_OUTPUT_STDERR;
}

/* A row's line is over once it has its newline: the next text starts a
 * row of its own. */
static gboolean
row_closed (SpOutputItem *row)
{
  gsize len = sp_output_item_get_length (row);

  return len > 0 && sp_output_item_get_text (row)[len - 1] == '\n';
}

/* The bytes of a piece of a line that are its text: all but its newline. */
static gsize
line_part (const char *text, gsize len)
{
  return len > 0 && text[len - 1] == '\n' ? len - 1 : len;
}

/* A text row: a spare one if there is one, else a new one. at is where
 * text is in the store (-1: not kept). */
static SpOutputItem *
new_row (SpOutputModel *self, SpOutputKind kind, const char *text, gsize len, gint64 t_ms,
         gint64 at)
{
  SpOutputItem *row;

  if (self->spare->len == 0)
    row = sp_output_item_new (kind, NULL);
  else
    {
      row = g_ptr_array_steal_index_fast (self->spare, self->spare->len - 1);
      _sp_output_item_replace (row, kind, "", t_ms);
    }
  _sp_output_item_append (row, text, len);
  _sp_output_item_set_t_ms (row, t_ms);
  _sp_output_item_start_line (row, at);
  _sp_output_item_extend_line (row, at, line_part (text, len));
  return row;
}

static void
grow_row (SpOutputModel *self, SpOutputItem *row, const char *text, gsize len, gint64 at)
{
  _sp_output_item_append (row, text, len);
  _sp_output_item_extend_line (row, at, line_part (text, len));
  self->lines += len > 0 && text[len - 1] == '\n';
  self->bytes += len;
}

/* The row shows all of its line it may and the line goes on: the rest,
 * up to its newline, is only counted (the store keeps it), and the
 * newline ends the row. A long line costs a view one row of bounded text,
 * however long it is: laying out a label grows faster than its length
 * (issue 38: one line of 200,000 characters held the window for a
 * minute). Returns how much of text it took. */
static gsize
fold_line (SpOutputModel *self, SpOutputItem *row, const char *text, gsize len, gint64 at)
{
  const char *nl = memchr (text, '\n', len);
  gsize n = nl != NULL ? (gsize) (nl - text) : len;

  _sp_output_item_add_folded (row, n, count_chars (text, n));
  _sp_output_item_extend_line (row, at, n);
  if (nl == NULL)
    return n;
  _sp_output_item_append (row, "\n", 1);
  self->lines++;
  self->bytes++;
  return n + 1;
}

/* A line the user sent while the last row is a line the program left
 * open (a prompt, "Name: "): the answer goes on that line, as a terminal
 * echoes it, so the row becomes an input row that knows where the prompt
 * ends. FALSE when there is no such line (the input gets its own row). */
static gboolean
answer_prompt (SpOutputModel *self, const char *text, gsize len, gint64 t_ms)
{
  SpOutputItem *last = last_item (self);
  g_autoptr (GString) line = NULL;
  gsize prompt_len;

  if (last == NULL || !is_text (last) || sp_output_item_get_folded (last) > 0)
    return FALSE;
  prompt_len = sp_output_item_get_length (last);
  if (prompt_len == 0 || row_closed (last) || prompt_len + len > SP_OUTPUT_MODEL_ITEM_BYTES)
    return FALSE;
  line = g_string_new_len (sp_output_item_get_text (last), (gssize) prompt_len);
  g_string_append_len (line, text, (gssize) len);
  _sp_output_item_replace (last, SP_OUTPUT_INPUT, line->str, t_ms);
  _sp_output_item_set_prompt_length (last, prompt_len);
  self->first_changed = MIN (self->first_changed, self->items->len - 1);
  self->lines += count_lines (text, len);
  self->bytes += len;
  return TRUE;
}

/* Adds text (kept at at in the store, -1: not kept) to the rows without
 * telling views; the caller does. */
static void
append_len (SpOutputModel *self, SpOutputKind kind, const char *text, gsize len, gint64 t_ms,
            gint64 at)
{
  if (kind == SP_OUTPUT_INPUT && len > 0 && answer_prompt (self, text, len, t_ms))
    return;
  while (len > 0)
    {
      SpOutputItem *last = last_item (self);
      gsize take;

      if (last != NULL && sp_output_item_get_kind (last) == kind && !row_closed (last))
        {
          /* Once a line is folded, nothing more of it is shown. */
          take = sp_output_item_get_folded (last) == 0
                   ? row_take (text, len, sp_output_item_get_length (last))
                   : 0;
          if (take > 0)
            grow_row (self, last, text, take, at);
          else
            take = fold_line (self, last, text, len, at);
          _sp_output_item_set_t_ms (last, t_ms);
          self->first_changed = MIN (self->first_changed, self->items->len - 1);
        }
      else
        {
          /* A row's room always takes a character (never cut inside one:
           * text is UTF-8 from the runner; whatever comes, it moves on). */
          take = row_take (text, len, 0);
          if (take == 0)
            take = MIN (len, SP_OUTPUT_MODEL_ITEM_BYTES);
          self->first_changed = MIN (self->first_changed, self->items->len);
          g_ptr_array_add (self->items, new_row (self, kind, text, take, t_ms, at));
          self->lines += text[take - 1] == '\n';
          self->bytes += take;
        }
      text += take;
      len -= take;
      if (at >= 0)
        at += (gint64) take;
    }
}

/* A carriage return: the line being written starts over (at at in the
 * store), so progress bars update in place instead of flooding. Drops the
 * text after the last newline of the stream's last row, and what was
 * folded of it. */
static void
carriage_return (SpOutputModel *self, SpOutputKind kind, gint64 at)
{
  SpOutputItem *last = last_item (self);
  const char *text, *nl;
  gsize keep, len;

  if (last == NULL || sp_output_item_get_kind (last) != kind)
    return;
  text = sp_output_item_get_text (last);
  len = sp_output_item_get_length (last);
  nl = strrchr (text, '\n');
  keep = nl ? (gsize) (nl - text) + 1 : 0;
  if (keep == len)
    return;
  _sp_output_item_truncate (last, keep);
  _sp_output_item_start_line (last, at);
  self->bytes -= len - keep;
  self->first_changed = MIN (self->first_changed, self->items->len - 1);
}

/* Text of one kind, kept at at in the store (-1: not kept), into rows. */
static void
apply (SpOutputModel *self, SpOutputKind kind, const char *text, gint64 t_ms, gint64 at)
{
  if (self->pending_cr)
    {
      self->pending_cr = FALSE;
      if (text[0] == '\n' && kind == self->pending_cr_kind)
        ; /* CRLF split across chunks: just the newline that follows */
      else
        carriage_return (self, self->pending_cr_kind, kind == self->pending_cr_kind ? at : -1);
    }
  for (const char *p = text;;)
    {
      const char *cr = strchr (p, '\r');
      gint64 p_at = at >= 0 ? at + (p - text) : -1;

      if (cr == NULL)
        {
          append_len (self, kind, p, strlen (p), t_ms, p_at);
          return;
        }
      append_len (self, kind, p, (gsize) (cr - p), t_ms, p_at);
      if (cr[1] == '\0')
        {
          self->pending_cr = TRUE;
          self->pending_cr_kind = kind;
          return;
        }
      if (cr[1] != '\n')
        carriage_return (self, kind, at >= 0 ? at + (cr + 1 - text) : -1);
      p = cr + 1;
    }
}

/* ---- keeping the tail ---- */

static void
hide (SpOutputModel *self, guint64 lines, guint64 bytes)
{
  self->hidden_lines += lines;
  self->hidden_bytes += bytes;
}

static gboolean
over (SpOutputModel *self)
{
  return self->lines > self->max_lines || self->bytes > self->max_bytes;
}

/* Trimming cuts down to three quarters of the caps: a view pays for
 * removed rows once per quarter of the tail, not on every batch. Rows
 * rewritten in place cost a view nothing to trim: there the tail stays
 * full, and the number of rows stays put through a flood. */
static guint64
trim_lines (SpOutputModel *self)
{
  return self->keep_rows ? self->max_lines : self->max_lines - self->max_lines / 4;
}

static gsize
trim_bytes (SpOutputModel *self)
{
  return self->keep_rows ? self->max_bytes : self->max_bytes - self->max_bytes / 4;
}

static gboolean
above_trim (SpOutputModel *self)
{
  return self->lines > trim_lines (self) || self->bytes > trim_bytes (self);
}

/* What rows will hold of text: its lines, and their bytes as shown (of a
 * long line its first SP_OUTPUT_MODEL_ITEM_BYTES, the rest is folded). A
 * line that goes on in the next segment is counted in each: an estimate,
 * on the side of showing less. */
static void
count_shown (const char *text, gsize len, guint64 *lines, guint64 *bytes)
{
  for (gsize at = 0; at < len;)
    {
      const char *nl = memchr (text + at, '\n', len - at);
      gsize end = nl != NULL ? (gsize) (nl - text) + 1 : len;

      *lines += nl != NULL;
      *bytes += MIN (line_part (text + at, end - at), SP_OUTPUT_MODEL_ITEM_BYTES) + (nl != NULL);
      at = end;
    }
}

/* The first n bytes of a segment become a segment of their own, before it. */
static void
split_segment (SpOutputModel *self, GList *link, gsize n)
{
  Segment *segment = link->data;
  Segment *first = g_new0 (Segment, 1);

  first->kind = segment->kind;
  first->t_ms = segment->t_ms;
  first->store_at = segment->store_at;
  first->text = g_string_new_len (segment->text->str, (gssize) n);
  g_string_erase (segment->text, 0, (gssize) n);
  if (segment->store_at >= 0)
    segment->store_at += (gint64) n;
  g_queue_insert_before (&self->pending, link, first);
}

/* Where skipping may start: after the line the last row left open, which
 * the batch finishes first (its row keeps the line's start, and folds the
 * rest); NULL when the batch never finishes it. */
static GList *
after_open_line (SpOutputModel *self)
{
  SpOutputItem *last = last_item (self);
  GList *l = self->pending.head;

  if (last == NULL || row_closed (last))
    return l;
  for (; l != NULL; l = l->next)
    {
      Segment *segment = l->data;
      const char *nl;

      if (segment->kind != sp_output_item_get_kind (last))
        return l; /* another stream: the row's line ends there */
      nl = memchr (segment->text->str, '\n', segment->text->len);
      if (nl == NULL)
        continue;
      if ((gsize) (nl - segment->text->str) + 1 == segment->text->len)
        return l->next;
      /* The line's end goes before the rest, which l holds now. */
      split_segment (self, l, (gsize) (nl - segment->text->str) + 1);
      return l;
    }
  return NULL;
}

/* When the batch alone holds more than the tail, its first lines would
 * only be built into rows to be dropped again: skip them, counted as
 * hidden. Whole lines only, each ending in its segment, counted as rows
 * show them: no row shows a line from its middle, nor loses its end. */
static gboolean
skip_pending_excess (SpOutputModel *self)
{
  guint64 lines = 0, bytes = 0, drop_lines, drop_bytes;
  GList *l;

  for (l = self->pending.head; l != NULL; l = l->next)
    {
      Segment *segment = l->data;
      count_shown (segment->text->str, segment->text->len, &lines, &bytes);
    }
  if (lines <= self->max_lines && bytes <= self->max_bytes)
    return FALSE;
  drop_lines = lines > trim_lines (self) ? lines - trim_lines (self) : 0;
  drop_bytes = bytes > trim_bytes (self) ? bytes - trim_bytes (self) : 0;
  for (l = after_open_line (self); l != NULL && (drop_lines > 0 || drop_bytes > 0);)
    {
      Segment *segment = l->data;
      const char *text = segment->text->str;
      gsize len = segment->text->len, cut = 0;
      GList *next = l->next;

      /* A notice is no line of output to skip: it stays, and so does
       * what follows it; the front is trimmed later, around it. */
      if (segment->kind == SP_OUTPUT_NOTICE)
        break;
      while (cut < len && (drop_lines > 0 || drop_bytes > 0))
        {
          const char *nl = memchr (text + cut, '\n', len - cut);
          gsize end;

          if (nl == NULL)
            break;
          end = (gsize) (nl - text) + 1;
          hide (self, 1, end - cut);
          drop_lines -= MIN (drop_lines, 1);
          drop_bytes -= MIN (drop_bytes, MIN (end - cut - 1, SP_OUTPUT_MODEL_ITEM_BYTES) + 1);
          cut = end;
        }
      if (cut == len)
        {
          segment_free (segment);
          g_queue_delete_link (&self->pending, l);
          l = next;
          continue;
        }
      g_string_erase (segment->text, 0, (gssize) cut);
      if (segment->store_at >= 0)
        segment->store_at += (gint64) cut;
      /* A line that goes on in the next segment stays, and what follows
       * it with it. */
      break;
    }
  return TRUE;
}

/* How much of the front of a row must go for the tail to fit. */
static gsize
front_cut (SpOutputModel *self, SpOutputItem *item)
{
  const char *text = sp_output_item_get_text (item);
  gsize len = sp_output_item_get_length (item), cut = 0;
  guint64 need_lines = self->lines > trim_lines (self) ? self->lines - trim_lines (self) : 0;
  gsize need_bytes = self->bytes > trim_bytes (self) ? self->bytes - trim_bytes (self) : 0;

  for (; need_lines > 0 && cut < len; need_lines--)
    {
      const char *nl = memchr (text + cut, '\n', len - cut);
      cut = nl ? (gsize) (nl - text) + 1 : len;
    }
  if (need_bytes > cut)
    cut = MIN (len, need_bytes);
  while (cut < len && ((guchar) text[cut] & 0xC0) == 0x80)
    cut++;
  return cut;
}

/* Drops text rows from the front until the tail fits, telling views one
 * run of removed rows at a time; images, errors and files stay. */
static void
trim_front (SpOutputModel *self)
{
  guint i = 0;

  if (!over (self))
    return;
  while (above_trim (self) && i < self->items->len)
    {
      guint start = i;

      while (i < self->items->len && above_trim (self)
             && is_text (g_ptr_array_index (self->items, i)))
        {
          SpOutputItem *item = g_ptr_array_index (self->items, i);
          gsize len = sp_output_item_get_length (item);
          guint n = count_lines (sp_output_item_get_text (item), len);
          gsize cut = front_cut (self, item);

          if (cut < len)
            {
              /* Part of this row is enough: the tail stays as long as
               * allowed, never empty while a row still grows. */
              guint cut_lines = count_lines (sp_output_item_get_text (item), cut);
              _sp_output_item_erase_front (item, cut);
              self->lines -= cut_lines;
              self->bytes -= cut;
              hide (self, cut_lines, cut);
              if (i > start)
                break;
              _sp_output_item_notify_text (item);
              return;
            }
          self->lines -= n;
          self->bytes -= len;
          hide (self, n, len + sp_output_item_get_folded (item));
          i++;
        }
      if (i > start)
        {
          g_ptr_array_remove_range (self->items, start, i - start);
          g_list_model_items_changed (G_LIST_MODEL (self), start, i - start, 0);
          i = start;
        }
      else
        i++; /* an image, an error or a file */
    }
}

/* Builds the batch into rows and tells views: one change for the rows
 * that grew or came, then the removals at the front. */
static void
apply_pending (SpOutputModel *self)
{
  while (self->pending.length > 0)
    {
      Segment *segment = g_queue_pop_head (&self->pending);
      apply (self, segment->kind, segment->text->str, segment->t_ms, segment->store_at);
      segment_free (segment);
    }
}

/* The rows and the batch that comes: a notice in the batch (what the
 * runner left out past the output limit) is a row the quiet trim would
 * drop as text, and rewrite into. */
static gboolean
all_text (SpOutputModel *self)
{
  for (guint i = 0; i < self->items->len; i++)
    if (!is_text (g_ptr_array_index (self->items, i)))
      return FALSE;
  for (GList *l = self->pending.head; l != NULL; l = l->next)
    if (((Segment *) l->data)->kind == SP_OUTPUT_NOTICE)
      return FALSE;
  return TRUE;
}

/* Trims the front while views are told nothing: the caller rewrites rows
 * in place. Returns how many whole rows went; a row cut in part keeps its
 * place. */
static guint
trim_front_quietly (SpOutputModel *self, gboolean *cut_row)
{
  guint k = 0;

  *cut_row = FALSE;
  if (!over (self))
    return 0;
  while (k < self->items->len && above_trim (self))
    {
      SpOutputItem *item = g_ptr_array_index (self->items, k);
      gsize len = sp_output_item_get_length (item);
      guint n = count_lines (sp_output_item_get_text (item), len);
      gsize cut = front_cut (self, item);

      if (cut < len)
        {
          guint cut_lines = count_lines (sp_output_item_get_text (item), cut);
          _sp_output_item_erase_front (item, cut);
          self->lines -= cut_lines;
          self->bytes -= cut;
          hide (self, cut_lines, cut);
          *cut_row = TRUE;
          break;
        }
      self->lines -= n;
      self->bytes -= len;
      hide (self, n, len + sp_output_item_get_folded (item));
      k++;
    }
  return k;
}

/* Text only, and views keep to the end: the rows views have keep their
 * places and take the text that now belongs there, so a view rebinds the
 * few rows it shows instead of dropping rows at the front and making new
 * ones at the end on every batch of a flood. */
static void
publish_in_place (SpOutputModel *self)
{
  guint old_len = self->items->len, k, n_final, common;
  gboolean cut_row;

  self->first_changed = G_MAXUINT;
  apply_pending (self);
  k = trim_front_quietly (self, &cut_row);
  n_final = self->items->len - k;
  common = MIN (old_len, n_final);
  if (k > 0)
    for (guint i = 0; i < common; i++)
      {
        SpOutputItem *from = g_ptr_array_index (self->items, i + k);
        SpOutputItem *to = g_ptr_array_index (self->items, i);
        _sp_output_item_take_place (to, from);
      }
  /* The k rows after the common ones gave their text away and leave the
   * list; those this batch made were never seen by a view, and become
   * spares for the next batch instead of being freed. */
  for (guint i = common; i < common + k; i++)
    if (i >= old_len && self->spare->len < self->max_lines)
      g_ptr_array_add (self->spare, g_object_ref (g_ptr_array_index (self->items, i)));
  if (k > 0)
    g_ptr_array_remove_range (self->items, common, k);
  if (k > 0 || cut_row)
    self->first_changed = 0;
  for (guint i = self->first_changed; i < common; i++)
    _sp_output_item_notify_text (g_ptr_array_index (self->items, i));
  if (old_len != common || n_final != common)
    g_list_model_items_changed (G_LIST_MODEL (self), common, old_len - common, n_final - common);
}

static void publish_text (SpOutputModel *self);

/* Notifies "has-pending" when it changed from what views were told. */
static void
tell_pending (SpOutputModel *self)
{
  gboolean pending = self->pending.length > 0;

  if (pending == self->pending_told)
    return;
  self->pending_told = pending;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_PENDING]);
}

static void
publish (SpOutputModel *self)
{
  g_clear_handle_id (&self->batch_id, g_source_remove);
  sp_output_store_flush (self->store);
  if (self->pending.length == 0)
    return;
  self->published_at = g_get_monotonic_time ();
  publish_text (self);
  tell_pending (self);
}

static void
publish_text (SpOutputModel *self)
{
  guint old_len = self->items->len;
  guint64 hidden_before = self->hidden_bytes;

  skip_pending_excess (self);
  if (self->keep_rows && all_text (self))
    {
      publish_in_place (self);
      if (self->hidden_bytes != hidden_before)
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIDDEN]);
      return;
    }
  self->first_changed = G_MAXUINT;
  apply_pending (self);
  /* A row views already show grew or was rewritten by a carriage return:
   * it says so itself, views need not replace it. New rows are one
   * addition. */
  if (self->first_changed < old_len)
    _sp_output_item_notify_text (g_ptr_array_index (self->items, self->first_changed));
  if (self->items->len > old_len)
    g_list_model_items_changed (G_LIST_MODEL (self), old_len, 0, self->items->len - old_len);
  trim_front (self);
  if (self->hidden_bytes != hidden_before)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIDDEN]);
}

/* Publishes a batch, timed: showing a batch (views rebind in the
 * handlers) may take at most about a fifth of the time, so a slow view
 * gets bigger, rarer batches. */
static void
publish_batch (SpOutputModel *self)
{
  gint64 start = g_get_monotonic_time ();

  publish (self);
  self->batch_ms = CLAMP ((g_get_monotonic_time () - start) * 4 / 1000, SP_OUTPUT_MODEL_BATCH_MS,
                          SP_OUTPUT_MODEL_BATCH_MS * 8);
}

static gboolean
batch_due (gpointer user_data)
{
  SpOutputModel *self = user_data;

  self->batch_id = 0;
  publish_batch (self);
  return G_SOURCE_REMOVE;
}

gboolean
sp_output_model_publish_frame (SpOutputModel *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_MODEL (self), FALSE);

  if (self->pending.length == 0)
    return FALSE;
  if (g_get_monotonic_time () - self->published_at < self->batch_ms * 1000)
    return TRUE;
  publish_batch (self);
  return FALSE;
}

void
sp_output_model_set_view_publishes (SpOutputModel *self, gboolean view_publishes)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  self->view_publishes = !!view_publishes;
}

void
sp_output_model_flush (SpOutputModel *self)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  publish (self);
}

void
sp_output_model_set_keep_rows (SpOutputModel *self, gboolean keep_rows)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  self->keep_rows = !!keep_rows;
}

void
sp_output_model_set_batched (SpOutputModel *self, gboolean batched)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  self->batched = !!batched;
  if (!self->batched)
    publish (self);
}

void
sp_output_model_append (SpOutputModel *self, SpOutputKind kind, const char *text)
{
  sp_output_model_append_timed (self, kind, text, -1);
}

void
sp_output_model_append_timed (SpOutputModel *self, SpOutputKind kind, const char *text, gint64 t_ms)
{
  Segment *tail;
  gsize len;
  gint64 at;

  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  g_return_if_fail (text != NULL);

  len = strlen (text);
  if (len == 0)
    return;
  at = sp_output_store_append (self->store, text, len);
  /* Untimed text (an older runner) goes with what came before it. */
  self->last_t_ms = MAX (self->last_t_ms, t_ms);
  t_ms = self->last_t_ms;
  tail = g_queue_peek_tail (&self->pending);
  if (tail != NULL && tail->kind == kind && tail->t_ms == t_ms)
    {
      /* Nothing was kept between the two, so they follow each other in
       * the store too, unless this part was not kept. */
      if (at < 0 || tail->store_at < 0 || at != tail->store_at + (gint64) tail->text->len)
        tail->store_at = -1;
      g_string_append_len (tail->text, text, (gssize) len);
    }
  else
    {
      Segment *segment = g_new0 (Segment, 1);
      segment->kind = kind;
      segment->text = g_string_new_len (text, (gssize) len);
      segment->t_ms = t_ms;
      segment->store_at = at;
      g_queue_push_tail (&self->pending, segment);
    }
  if (!self->batched)
    {
      publish (self);
      return;
    }
  /* A view publishing on its frames does it once per frame at most; the
   * timer then only shows text a view that paints nothing (a hidden
   * window) would keep waiting. */
  if (self->batch_id == 0)
    self->batch_id = g_timeout_add ((guint) (self->view_publishes ? SP_OUTPUT_MODEL_BACKSTOP_MS
                                                                  : self->batch_ms),
                                    batch_due, self);
  tell_pending (self);
}

void
sp_output_model_append_item (SpOutputModel *self, SpOutputItem *item)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  g_return_if_fail (SP_IS_OUTPUT_ITEM (item));

  publish (self);
  _sp_output_item_set_t_ms (item, self->last_t_ms);
  g_ptr_array_add (self->items, g_object_ref (item));
  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 0, 1);
}

typedef struct
{
  SpOutputItem *item;
  gint64 t_ms; /* G_MAXINT64 when unknown: after everything */
  guint index; /* keeps equal times in the order given */
} Placed;

static int
by_time (gconstpointer a, gconstpointer b)
{
  const Placed *x = a, *y = b;

  if (x->t_ms != y->t_ms)
    return x->t_ms < y->t_ms ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* One pass: rows never go back in time (see last_t_ms), so each item goes
 * before the first entry read after it, which is after the last row read
 * at or before it (ties go after the text). An item older than every row
 * left (its rows were trimmed from the front) comes first. */
void
sp_output_model_insert_timed (SpOutputModel *self, SpOutputItem *const *items, const gint64 *t_ms,
                              guint n_items)
{
  g_autofree Placed *placed = NULL;
  GPtrArray *result;
  guint old_len, first = G_MAXUINT, j = 0;

  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  g_return_if_fail (n_items == 0 || (items != NULL && t_ms != NULL));

  publish (self);
  if (n_items == 0)
    return;
  placed = g_new (Placed, n_items);
  for (guint i = 0; i < n_items; i++)
    placed[i] = (Placed){ items[i], t_ms[i] < 0 || self->last_t_ms < 0 ? G_MAXINT64 : t_ms[i], i };
  qsort (placed, n_items, sizeof *placed, by_time);

  old_len = self->items->len;
  result = g_ptr_array_new_full (old_len + n_items, g_object_unref);
  for (guint i = 0; i <= old_len; i++)
    {
      SpOutputItem *entry = i < old_len ? g_ptr_array_index (self->items, i) : NULL;

      gint64 entry_t_ms = entry ? _sp_output_item_get_t_ms (entry) : G_MAXINT64;

      for (; j < n_items && (entry == NULL || placed[j].t_ms < entry_t_ms); j++)
        {
          first = MIN (first, result->len);
          _sp_output_item_set_t_ms (placed[j].item, MIN (placed[j].t_ms, self->last_t_ms));
          g_ptr_array_add (result, g_object_ref (placed[j].item));
        }
      if (entry != NULL)
        g_ptr_array_add (result, g_object_ref (entry));
    }
  g_ptr_array_unref (self->items);
  self->items = result;
  g_list_model_items_changed (G_LIST_MODEL (self), first, old_len - first,
                              self->items->len - first);
}

void
sp_output_model_clear (SpOutputModel *self)
{
  guint n;
  gboolean was_hidden;

  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));

  g_clear_handle_id (&self->batch_id, g_source_remove);
  g_queue_clear_full (&self->pending, segment_free);
  sp_output_store_reset (self->store);
  n = self->items->len;
  was_hidden = self->hidden_bytes > 0;
  /* A new array: the old one's storage goes back, not just its items. */
  g_ptr_array_unref (self->items);
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  g_ptr_array_set_size (self->spare, 0);
  self->bytes = 0;
  self->lines = 0;
  self->hidden_lines = 0;
  self->hidden_bytes = 0;
  self->pending_cr = FALSE;
  self->last_t_ms = -1;
  if (n > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
  if (was_hidden)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HIDDEN]);
  tell_pending (self);
}

void
sp_output_model_save_async (SpOutputModel *self, GFile *dest, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  g_return_if_fail (G_IS_FILE (dest));

  sp_output_store_save_async (self->store, self, sp_output_model_save_async, dest, cancellable,
                              callback, user_data);
}

gboolean
sp_output_model_save_finish (SpOutputModel *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

void
sp_output_model_read_line_async (SpOutputModel *self, SpOutputItem *item, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;
  gint64 at, end;
  const char *text;
  gsize len;

  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  g_return_if_fail (SP_IS_OUTPUT_ITEM (item));

  /* Where the item's line is (a row of this model: a cleared one's
   * offsets would read another run's output). */
  if (g_ptr_array_find (self->items, item, NULL) && _sp_output_item_get_line (item, &at, &end))
    {
      sp_output_store_read_async (self->store, self, sp_output_model_read_line_async, (guint64) at,
                                  (guint64) (end - at), cancellable, callback, user_data);
      return;
    }
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_output_model_read_line_async);
  if (sp_output_item_get_folded (item) > 0)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s",
                               _ ("The whole line was not kept"));
      return;
    }
  /* A row that holds its whole line. */
  text = sp_output_item_get_text (item);
  len = sp_output_item_get_length (item);
  g_task_return_pointer (task, g_bytes_new (text, line_part (text, len)),
                         (GDestroyNotify) g_bytes_unref);
}

GBytes *
sp_output_model_read_line_finish (SpOutputModel *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
