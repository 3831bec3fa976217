/* sp-output-item.c: one piece of a run's output. */
#include "sp-output-item.h"

struct _SpOutputItem
{
  GObject parent_instance;
  SpOutputKind kind;
  GString *text;
  char *label;
  SpErrorInfo *error;
  SpDataTable *table;
  gint64 size;
  char *mime;
  GObject *image;
  char *image_error;
  gboolean image_withheld;
  gint64 t_ms;
  char *dir;         /* a run's file: its directory */
  char *name;        /* and its name's bytes beneath it */
  GBytes *bytes;     /* or the image itself */
  guint image_scale; /* the image's pixels per logical pixel; 0: fills */
  GBytes *preview;
  gboolean preview_whole;
  gsize prompt_len; /* an input row: the prompt's bytes before the answer */
  /* A row whose line is longer than it may show: the bytes and characters
   * of the line left out (its newline not counted), and where the whole
   * line's text is in the model's store ([line_at, line_end), -1: not
   * known). */
  guint64 folded;
  guint64 folded_chars;
  gint64 line_at;
  gint64 line_end;
};

enum
{
  PROP_0,
  PROP_IMAGE,
  PROP_TEXT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];
/* Set once in class_init, like properties: GObject's "notify" and the
 * detail "text", to ask whether anyone listens. */
static guint notify_signal_id;
static GQuark text_quark;

G_DEFINE_ENUM_TYPE (SpOutputKind, sp_output_kind, G_DEFINE_ENUM_VALUE (SP_OUTPUT_STDOUT, "stdout"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_STDERR, "stderr"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_NOTICE, "notice"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_IMAGE, "image"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_ERROR, "error"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_FILE, "file"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_INPUT, "input"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_TABLE, "table"))

G_DEFINE_FINAL_TYPE (SpOutputItem, sp_output_item, G_TYPE_OBJECT)

static void
sp_output_item_finalize (GObject *object)
{
  SpOutputItem *self = SP_OUTPUT_ITEM (object);

  g_string_free (self->text, TRUE);
  g_free (self->label);
  g_free (self->mime);
  g_free (self->image_error);
  g_free (self->dir);
  g_free (self->name);
  g_clear_pointer (&self->bytes, g_bytes_unref);
  g_clear_pointer (&self->preview, g_bytes_unref);
  g_clear_object (&self->image);
  g_clear_object (&self->table);
  g_clear_pointer (&self->error, sp_error_info_unref);
  G_OBJECT_CLASS (sp_output_item_parent_class)->finalize (object);
}

static void
sp_output_item_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpOutputItem *self = SP_OUTPUT_ITEM (object);

  switch (prop_id)
    {
    case PROP_IMAGE:
      g_value_set_object (value, self->image);
      break;
    case PROP_TEXT:
      g_value_set_string (value, self->text->str);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_output_item_class_init (SpOutputItemClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sp_output_item_finalize;
  object_class->get_property = sp_output_item_get_property;
  /* Notified when the image or its error arrives. */
  properties[PROP_IMAGE] = g_param_spec_object ("image", NULL, NULL, G_TYPE_OBJECT,
                                                G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                  | G_PARAM_EXPLICIT_NOTIFY);
  /* Notified when the model changed a row views already show (it grew, or
   * a carriage return rewrote its last line). */
  properties[PROP_TEXT] = g_param_spec_string ("text", NULL, NULL, NULL,
                                               G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                 | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  notify_signal_id = g_signal_lookup ("notify", G_TYPE_OBJECT);
  text_quark = g_quark_from_static_string ("text");
}

static void
sp_output_item_init (SpOutputItem *self)
{
  self->text = g_string_new (NULL);
  self->t_ms = -1;
  self->line_at = self->line_end = -1;
}

SpOutputItem *
sp_output_item_new (SpOutputKind kind, const char *text)
{
  SpOutputItem *self = g_object_new (SP_TYPE_OUTPUT_ITEM, NULL);

  self->kind = kind;
  g_string_assign (self->text, text ? text : "");
  return self;
}

SpOutputItem *
sp_output_item_new_image (const char *path, const char *label)
{
  SpOutputItem *self = sp_output_item_new (SP_OUTPUT_IMAGE, path);

  self->label = g_strdup (label);
  return self;
}

SpOutputItem *
sp_output_item_new_table (SpDataTable *table, const char *text, const char *label)
{
  SpOutputItem *self;

  g_return_val_if_fail (SP_IS_DATA_TABLE (table), NULL);
  self = sp_output_item_new (SP_OUTPUT_TABLE, text);
  self->table = g_object_ref (table);
  self->label = g_strdup (label);
  return self;
}

SpDataTable *
sp_output_item_get_table (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->table;
}

SpOutputItem *
sp_output_item_new_error (SpErrorInfo *error)
{
  g_autofree char *text = g_strdup_printf ("%s: %s", sp_error_info_get_error_type (error),
                                           sp_error_info_get_message (error));
  SpOutputItem *self = sp_output_item_new (SP_OUTPUT_ERROR, text);

  self->error = sp_error_info_ref (error);
  return self;
}

SpOutputItem *
sp_output_item_new_file (const char *path, const char *label, gint64 size, const char *mime)
{
  SpOutputItem *self = sp_output_item_new (SP_OUTPUT_FILE, path);

  self->label = g_strdup (label);
  self->size = size;
  self->mime = g_strdup (mime);
  return self;
}

void
sp_output_item_set_source (SpOutputItem *self, const char *dir, const char *name)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));

  g_free (self->dir);
  self->dir = g_strdup (dir);
  g_free (self->name);
  self->name = g_strdup (name);
}

const char *
sp_output_item_get_dir (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->dir;
}

void
sp_output_item_set_bytes (SpOutputItem *self, GBytes *bytes)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));

  g_clear_pointer (&self->bytes, g_bytes_unref);
  self->bytes = bytes ? g_bytes_ref (bytes) : NULL;
}

GBytes *
sp_output_item_get_bytes (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->bytes;
}

const char *
sp_output_item_get_name (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->name;
}

GBytes *
sp_output_item_get_preview (SpOutputItem *self, gboolean *whole)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  if (whole != NULL)
    *whole = self->preview_whole;
  return self->preview;
}

void
sp_output_item_set_preview (SpOutputItem *self, GBytes *head, gboolean whole)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));

  g_clear_pointer (&self->preview, g_bytes_unref);
  self->preview = head ? g_bytes_ref (head) : NULL;
  self->preview_whole = whole;
}

gint64
sp_output_item_get_size (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), 0);
  return self->size;
}

void
sp_output_item_set_size (SpOutputItem *self, gint64 size)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));
  self->size = size;
}

guint
sp_output_item_get_image_scale (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), 0);
  return self->image_scale;
}

void
sp_output_item_set_image_scale (SpOutputItem *self, guint scale)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));
  self->image_scale = scale;
}

const char *
sp_output_item_get_mime (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->mime;
}

const char *
sp_output_item_get_label (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->label;
}

SpErrorInfo *
sp_output_item_get_error (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->error;
}

SpOutputKind
sp_output_item_get_kind (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), SP_OUTPUT_STDOUT);
  return self->kind;
}

const char *
sp_output_item_get_text (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->text->str;
}

GObject *
sp_output_item_get_image (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->image;
}

const char *
sp_output_item_get_image_error (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), NULL);
  return self->image_error;
}

void
sp_output_item_set_image (SpOutputItem *self, GObject *image)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));
  g_return_if_fail (image == NULL || G_IS_OBJECT (image));

  if (g_set_object (&self->image, image))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IMAGE]);
}

void
sp_output_item_set_image_error (SpOutputItem *self, const char *message)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));

  if (g_strcmp0 (self->image_error, message) == 0)
    return;
  g_free (self->image_error);
  self->image_error = g_strdup (message);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IMAGE]);
}

gboolean
sp_output_item_get_image_withheld (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), FALSE);
  return self->image_withheld;
}

void
sp_output_item_set_image_withheld (SpOutputItem *self, gboolean withheld)
{
  g_return_if_fail (SP_IS_OUTPUT_ITEM (self));

  withheld = !!withheld;
  if (self->image_withheld == withheld)
    return;
  self->image_withheld = withheld;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_IMAGE]);
}

gsize
sp_output_item_get_length (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), 0);
  return self->text->len;
}

void
_sp_output_item_truncate (SpOutputItem *self, gsize len)
{
  g_string_truncate (self->text, len);
  self->prompt_len = MIN (self->prompt_len, self->text->len);
}

guint64
sp_output_item_get_folded (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), 0);
  return self->folded;
}

guint64
sp_output_item_get_folded_chars (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), 0);
  return self->folded_chars;
}

void
_sp_output_item_add_folded (SpOutputItem *self, guint64 bytes, guint64 chars)
{
  self->folded += bytes;
  self->folded_chars += chars;
}

void
_sp_output_item_start_line (SpOutputItem *self, gint64 at)
{
  self->folded = self->folded_chars = 0;
  self->line_at = self->line_end = at;
}

void
_sp_output_item_extend_line (SpOutputItem *self, gint64 at, gsize len)
{
  if (len == 0)
    return;
  if (self->line_at >= 0 && at == self->line_end)
    self->line_end += (gint64) len;
  else
    /* Not where the line left off (the store failed): not known now. */
    self->line_at = self->line_end = -1;
}

gboolean
_sp_output_item_get_line (SpOutputItem *self, gint64 *at, gint64 *end)
{
  *at = self->line_at;
  *end = self->line_end;
  return self->line_at >= 0;
}

void
_sp_output_item_append (SpOutputItem *self, const char *text, gsize len)
{
  g_string_append_len (self->text, text, (gssize) len);
}

void
_sp_output_item_erase_front (SpOutputItem *self, gsize len)
{
  g_string_erase (self->text, 0, (gssize) len);
  self->prompt_len -= MIN (self->prompt_len, len);
}

void
_sp_output_item_notify_text (SpOutputItem *self)
{
  /* A flood rewrites every row of the tail in place on each batch, and
   * only the few a view has bound listen: the others' notify is skipped
   * (GLib 2.74 builds a notify queue for each, which made rewriting a
   * full tail cost tens of milliseconds). */
  if (!g_signal_has_handler_pending (self, notify_signal_id, text_quark, FALSE))
    return;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TEXT]);
}

void
_sp_output_item_replace (SpOutputItem *self, SpOutputKind kind, const char *text, gint64 t_ms)
{
  self->kind = kind;
  self->t_ms = t_ms;
  self->prompt_len = 0;
  self->folded = self->folded_chars = 0;
  self->line_at = self->line_end = -1;
  g_string_assign (self->text, text);
}

void
_sp_output_item_take_place (SpOutputItem *self, SpOutputItem *from)
{
  self->kind = from->kind;
  self->t_ms = from->t_ms;
  self->prompt_len = from->prompt_len;
  self->folded = from->folded;
  self->folded_chars = from->folded_chars;
  self->line_at = from->line_at;
  self->line_end = from->line_end;
  g_string_assign (self->text, from->text->str);
}

gsize
sp_output_item_get_prompt_length (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), 0);
  return self->kind == SP_OUTPUT_INPUT ? self->prompt_len : 0;
}

void
_sp_output_item_set_prompt_length (SpOutputItem *self, gsize len)
{
  self->prompt_len = MIN (len, self->text->len);
}

gint64
_sp_output_item_get_t_ms (SpOutputItem *self)
{
  return self->t_ms;
}

void
_sp_output_item_set_t_ms (SpOutputItem *self, gint64 t_ms)
{
  self->t_ms = t_ms;
}
