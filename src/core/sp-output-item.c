/* sp-output-item.c: one piece of a run's output. */
#include "sp-output-item.h"

struct _SpOutputItem
{
  GObject parent_instance;
  SpOutputKind kind;
  GString *text;
  char *label;
  SpErrorInfo *error;
  gint64 size;
  char *mime;
};

G_DEFINE_ENUM_TYPE (SpOutputKind, sp_output_kind,
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_STDOUT, "stdout"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_STDERR, "stderr"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_NOTICE, "notice"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_IMAGE, "image"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_ERROR, "error"),
                    G_DEFINE_ENUM_VALUE (SP_OUTPUT_FILE, "file"))

G_DEFINE_FINAL_TYPE (SpOutputItem, sp_output_item, G_TYPE_OBJECT)

static void
sp_output_item_finalize (GObject *object)
{
  SpOutputItem *self = SP_OUTPUT_ITEM (object);

  g_string_free (self->text, TRUE);
  g_free (self->label);
  g_free (self->mime);
  g_clear_pointer (&self->error, sp_error_info_unref);
  G_OBJECT_CLASS (sp_output_item_parent_class)->finalize (object);
}

static void
sp_output_item_class_init (SpOutputItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sp_output_item_finalize;
}

static void
sp_output_item_init (SpOutputItem *self)
{
  self->text = g_string_new (NULL);
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

gint64
sp_output_item_get_size (SpOutputItem *self)
{
  g_return_val_if_fail (SP_IS_OUTPUT_ITEM (self), 0);
  return self->size;
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
}

void
_sp_output_item_append (SpOutputItem *self, const char *text, gsize len)
{
  g_string_append_len (self->text, text, (gssize) len);
}
