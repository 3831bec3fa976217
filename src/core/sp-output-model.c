/* sp-output-model.c: a run's output as a list the panel can show. */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "sp-output-model.h"

struct _SpOutputModel
{
  GObject parent_instance;
  GPtrArray *items;
  gsize bytes;
  gsize max_bytes;
  gboolean truncated;
  /* A chunk ended in '\r': a carriage return, unless '\n' comes next. */
  gboolean pending_cr;
  SpOutputKind pending_cr_kind;
};

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
sp_output_model_finalize (GObject *object)
{
  g_ptr_array_unref (SP_OUTPUT_MODEL (object)->items);
  G_OBJECT_CLASS (sp_output_model_parent_class)->finalize (object);
}

static void
sp_output_model_class_init (SpOutputModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sp_output_model_finalize;
}

static void
sp_output_model_init (SpOutputModel *self)
{
  self->items = g_ptr_array_new_with_free_func (g_object_unref);
  self->max_bytes = SP_OUTPUT_MODEL_DEFAULT_MAX_BYTES;
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
  self->max_bytes = max_bytes;
}

gboolean
sp_output_model_get_truncated (SpOutputModel *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_MODEL (self), FALSE);
  return self->truncated;
}

static void
add_item (SpOutputModel *self, SpOutputKind kind, const char *text, gsize len)
{
  g_autofree char *copy = g_strndup (text, len);

  g_ptr_array_add (self->items, sp_output_item_new (kind, copy));
  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 0, 1);
}

/* Cuts at most max bytes of text, never inside a UTF-8 character. */
static gsize
utf8_prefix (const char *text, gsize len, gsize max)
{
  if (len <= max)
    return len;
  const char *end = g_utf8_find_prev_char (text, text + max + 1);
  return end != NULL && end > text ? (gsize) (end - text) : max;
}

static void
append_len (SpOutputModel *self, SpOutputKind kind, const char *text, gsize len)
{
  if (self->truncated || len == 0)
    return;
  if (self->bytes + len > self->max_bytes)
    {
      len = utf8_prefix (text, len, self->max_bytes - self->bytes);
      self->truncated = TRUE;
    }

  while (len > 0)
    {
      SpOutputItem *last = self->items->len
                             ? g_ptr_array_index (self->items, self->items->len - 1)
                             : NULL;
      gsize room;

      if (last != NULL && sp_output_item_get_kind (last) == kind
          && (room = SP_OUTPUT_MODEL_ITEM_BYTES - MIN (SP_OUTPUT_MODEL_ITEM_BYTES,
                                                       sp_output_item_get_length (last)))
               > 0)
        {
          gsize take = utf8_prefix (text, len, room);
          if (take == 0)
            take = MIN (len, room);
          _sp_output_item_append (last, text, take);
          /* A changed row: views rebind it. */
          g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 1, 1);
          text += take;
          len -= take;
          self->bytes += take;
          continue;
        }
      gsize take = utf8_prefix (text, len, SP_OUTPUT_MODEL_ITEM_BYTES);
      if (take == 0)
        take = MIN (len, SP_OUTPUT_MODEL_ITEM_BYTES);
      add_item (self, kind, text, take);
      text += take;
      len -= take;
      self->bytes += take;
    }

  if (self->truncated)
    {
      const char *notice = _("Output truncated: the panel keeps the first part only.");
      add_item (self, SP_OUTPUT_NOTICE, notice, strlen (notice));
    }
}

/* A carriage return: the line being written starts over, so progress bars
 * update in place instead of flooding. Drops the text after the last
 * newline of the stream's last row. */
static void
carriage_return (SpOutputModel *self, SpOutputKind kind)
{
  SpOutputItem *last = self->items->len ? g_ptr_array_index (self->items, self->items->len - 1)
                                        : NULL;
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
  self->bytes -= len - keep;
  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 1, 1);
}

void
sp_output_model_append (SpOutputModel *self, SpOutputKind kind, const char *text)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  g_return_if_fail (text != NULL);

  if (self->pending_cr)
    {
      self->pending_cr = FALSE;
      if (text[0] == '\n' && kind == self->pending_cr_kind)
        ; /* CRLF split across chunks: just the newline that follows */
      else
        carriage_return (self, self->pending_cr_kind);
    }
  for (const char *p = text;;)
    {
      const char *cr = strchr (p, '\r');

      if (cr == NULL)
        {
          append_len (self, kind, p, strlen (p));
          return;
        }
      append_len (self, kind, p, (gsize) (cr - p));
      if (cr[1] == '\0')
        {
          self->pending_cr = TRUE;
          self->pending_cr_kind = kind;
          return;
        }
      if (cr[1] != '\n')
        carriage_return (self, kind);
      p = cr + 1;
    }
}

void
sp_output_model_append_item (SpOutputModel *self, SpOutputItem *item)
{
  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));
  g_return_if_fail (SP_IS_OUTPUT_ITEM (item));

  g_ptr_array_add (self->items, g_object_ref (item));
  g_list_model_items_changed (G_LIST_MODEL (self), self->items->len - 1, 0, 1);
}

void
sp_output_model_clear (SpOutputModel *self)
{
  guint n;

  g_return_if_fail (SP_IS_OUTPUT_MODEL (self));

  n = self->items->len;
  g_ptr_array_set_size (self->items, 0);
  self->bytes = 0;
  self->truncated = FALSE;
  self->pending_cr = FALSE;
  if (n > 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, n, 0);
}
