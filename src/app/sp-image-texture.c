/* sp-image-texture.c: decoded pixels to textures, one image at a time. */
#define G_LOG_DOMAIN "sp-image-texture"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-image-decode.h"
#include "sp-image-texture.h"
#include "sp-output-item.h"

typedef struct
{
  GPtrArray *items;
  guint next;
  SpImageBudget *budget; /* NULL: none */
  GCancellable *cancellable;
} Queue;

static void
queue_free (Queue *queue)
{
  g_ptr_array_unref (queue->items);
  g_clear_object (&queue->cancellable);
  g_clear_object (&queue->budget);
  g_free (queue);
}

static void decode_next (Queue *queue);

/* The row keeps its file (Save As) and says why there is no picture. */
static void
withhold (SpOutputItem *item)
{
  sp_output_item_set_image_error (item, _ ("too large to show: this run's images are over the "
                                           "memory Sandpad keeps for them"));
}

GdkTexture *
sp_image_texture_new (SpDecodedImage *image)
{
  /* The helper sends straight RGBA; GDK premultiplies when it uploads. */
  return gdk_memory_texture_new (sp_decoded_image_get_width (image),
                                 sp_decoded_image_get_height (image), GDK_MEMORY_R8G8B8A8,
                                 sp_decoded_image_get_pixels (image),
                                 sp_decoded_image_get_stride (image));
}

static void
on_decoded (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Queue *queue = user_data;
  SpOutputItem *item = g_ptr_array_index (queue->items, queue->next);
  g_autoptr (SpDecodedImage) image = NULL;
  g_autoptr (GError) error = NULL;

  image = sp_image_decode_finish (result, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      queue_free (queue);
      return;
    }
  if (image != NULL)
    {
      g_autoptr (GdkTexture) texture = sp_image_texture_new (image);
      guint64 pixels = (guint64) sp_decoded_image_get_width (image)
                       * (guint64) sp_decoded_image_get_height (image);

      /* Counted for as long as the texture lives, wherever it goes. */
      if (queue->budget == NULL || sp_image_budget_take (queue->budget, pixels, G_OBJECT (texture)))
        sp_output_item_set_image (item, G_OBJECT (texture));
      else
        withhold (item);
    }
  else
    {
      g_debug ("cannot show %s: %s", sp_output_item_get_text (item), error->message);
      sp_output_item_set_image_error (item, error->message);
    }
  queue->next++;
  decode_next (queue);
}

static void
decode_next (Queue *queue)
{
  SpOutputItem *item;

  if (queue->next >= queue->items->len)
    {
      queue_free (queue);
      return;
    }
  item = g_ptr_array_index (queue->items, queue->next);
  /* Spent already: no helper is started for a picture that cannot be kept. */
  if (queue->budget != NULL && !sp_image_budget_has_room (queue->budget))
    {
      withhold (item);
      queue->next++;
      decode_next (queue);
      return;
    }
  sp_image_texture_decode_item_async (item, queue->cancellable, on_decoded, queue);
}

void
sp_image_texture_decode_item_async (SpOutputItem *item, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data)
{
  /* A run's image by its directory and name's bytes; a display result
   * from the bytes the item holds; one of the history's own files by its
   * path there. */
  if (sp_output_item_get_bytes (item) != NULL)
    sp_image_decode_bytes_scaled_async (sp_output_item_get_bytes (item), SP_IMAGE_DISPLAY_MAX_SIDE,
                                        NULL, 0, cancellable, callback, user_data);
  else if (sp_output_item_get_name (item) != NULL)
    sp_image_decode_scaled_async (sp_output_item_get_dir (item), sp_output_item_get_name (item),
                                  SP_IMAGE_DISPLAY_MAX_SIDE, NULL, 0, cancellable, callback,
                                  user_data);
  else
    {
      g_autofree char *dir = g_path_get_dirname (sp_output_item_get_text (item));
      g_autofree char *name = g_path_get_basename (sp_output_item_get_text (item));
      sp_image_decode_scaled_async (dir, name, SP_IMAGE_DISPLAY_MAX_SIDE, NULL, 0, cancellable,
                                    callback, user_data);
    }
}

void
sp_image_texture_decode_items (GPtrArray *items, SpImageBudget *budget, GCancellable *cancellable)
{
  Queue *queue;

  g_return_if_fail (items != NULL);

  queue = g_new0 (Queue, 1);
  queue->items = g_ptr_array_ref (items);
  queue->cancellable = cancellable ? g_object_ref (cancellable) : NULL;
  queue->budget = budget ? g_object_ref (budget) : NULL;
  decode_next (queue);
}
