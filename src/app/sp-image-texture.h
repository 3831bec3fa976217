/* sp-image-texture.h: a run's images as textures, decoded outside the app.
 *
 * Each image item's file goes to the sandboxed decoding helper
 * (sp-image-decode.h); the pixels that come back become a
 * GdkMemoryTexture set on the item, or the reason it cannot be shown.
 * One helper at a time, so a run with a hundred plots does not start a
 * hundred processes. Never blocks the main loop. */
#pragma once

#include <gtk/gtk.h>

#include "sp-image-budget.h"
#include "sp-image-decode.h"
#include "sp-output-item.h"

G_BEGIN_DECLS

/* items: SpOutputItem of kind SP_OUTPUT_IMAGE (referenced until done).
 * Each is shrunk by the helper to SP_IMAGE_DISPLAY_MAX_SIDE; with a
 * budget, an image past it is not kept and its item says it is too large
 * to show (its file can still be saved). Cancelling leaves the remaining
 * items undecoded. */
void sp_image_texture_decode_items (GPtrArray *items, SpImageBudget *budget,
                                    GCancellable *cancellable);
/* One image item's file to the helper, shrunk to display size; finish
 * with sp_image_decode_finish(). */
void sp_image_texture_decode_item_async (SpOutputItem *item, GCancellable *cancellable,
                                         GAsyncReadyCallback callback, gpointer user_data);
/* The helper's straight RGBA as a texture (GDK premultiplies on upload). */
GdkTexture *sp_image_texture_new (SpDecodedImage *image);

G_END_DECLS
