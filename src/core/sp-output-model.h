/* sp-output-model.h: a run's output as a list the panel can show.
 *
 * Chunks arrive as the program writes them, often tiny and many. The model
 * coalesces consecutive text of the same stream into one item (up to a
 * size, so no row grows without bound), and keeps at most max_bytes of
 * text: past that, one notice says the output was truncated and further
 * text is dropped, so a flood costs bounded memory and few rows. */
#pragma once

#include <gio/gio.h>

#include "sp-output-item.h"

G_BEGIN_DECLS

#define SP_OUTPUT_MODEL_DEFAULT_MAX_BYTES (2 * 1024 * 1024)
#define SP_OUTPUT_MODEL_ITEM_BYTES (16 * 1024)

#define SP_TYPE_OUTPUT_MODEL (sp_output_model_get_type ())
G_DECLARE_FINAL_TYPE (SpOutputModel, sp_output_model, SP, OUTPUT_MODEL, GObject)

SpOutputModel *sp_output_model_new (void);
void sp_output_model_set_max_bytes (SpOutputModel *self, gsize max_bytes);
void sp_output_model_append (SpOutputModel *self, SpOutputKind kind, const char *text);
void sp_output_model_clear (SpOutputModel *self);
/* Appends a whole item (an image, an error) as it is, after the text. */
void sp_output_model_append_item (SpOutputModel *self, SpOutputItem *item);
gboolean sp_output_model_get_truncated (SpOutputModel *self);

G_END_DECLS
