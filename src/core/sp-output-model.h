/* sp-output-model.h: a run's output as a list the panel can show.
 *
 * Chunks arrive as the program writes them, often tiny and many. The model
 * coalesces consecutive text of the same stream into rows of at most
 * SP_OUTPUT_MODEL_ROW_LINES lines (one: rows of even height let a list view
 * guess the height of rows it has not laid out, and a label's layout costs
 * the square of its lines) and SP_OUTPUT_MODEL_ITEM_BYTES bytes of a line:
 * a longer line is folded, its row holding its start and counting the rest
 * (sp_output_item_get_folded), since laying out a label grows faster than
 * its text (issue 38: one line of 200,000 characters held the window for a
 * minute). It keeps only the tail: at most max_lines lines and max_bytes
 * bytes of text as rows hold it. The first lines past that are dropped
 * from the list and counted (hidden lines), and the whole output, both
 * streams in the order they came, is kept in a private temporary file
 * (sp-output-store.h) that save_async copies out and read_line_async reads
 * a folded line back from. Images, errors and files are never dropped.
 *
 * Batched, appends only collect text; the rows are built and views told in
 * one go at most every SP_OUTPUT_MODEL_BATCH_MS (or on flush), so a flood
 * of tiny chunks costs a view one update per batch, not one per chunk.
 * A view that paints frames publishes the batch itself, from its frame
 * clock (set_view_publishes, then publish_frame on each frame while
 * "has-pending"), so a batch is shown in the frame that follows it and no
 * more than one batch is published per frame.
 * Unbatched (the default), every append is shown at once. */
#pragma once

#include <gio/gio.h>

#include "sp-output-item.h"

G_BEGIN_DECLS

#define SP_OUTPUT_MODEL_DEFAULT_MAX_BYTES (2 * 1024 * 1024)
#define SP_OUTPUT_MODEL_DEFAULT_MAX_LINES 10000
#define SP_OUTPUT_MODEL_ITEM_BYTES (4 * 1024)
#define SP_OUTPUT_MODEL_ROW_LINES 1
#define SP_OUTPUT_MODEL_BATCH_MS 30
/* With a view publishing on its frames: how long text waits for one
 * before the model shows it anyway (a window that paints nothing). */
#define SP_OUTPUT_MODEL_BACKSTOP_MS 250

#define SP_TYPE_OUTPUT_MODEL (sp_output_model_get_type ())
G_DECLARE_FINAL_TYPE (SpOutputModel, sp_output_model, SP, OUTPUT_MODEL, GObject)

SpOutputModel *sp_output_model_new (void);
void sp_output_model_set_max_bytes (SpOutputModel *self, gsize max_bytes);
void sp_output_model_set_max_lines (SpOutputModel *self, guint max_lines);
void sp_output_model_set_batched (SpOutputModel *self, gboolean batched);
/* Batched: a view publishes the batches on its frames; the model's timer
 * waits SP_OUTPUT_MODEL_BACKSTOP_MS instead. */
void sp_output_model_set_view_publishes (SpOutputModel *self, gboolean view_publishes);
/* A view's frame: publishes the batch when one is due (at least the batch
 * time since the last, longer when showing one took long). TRUE while
 * text still waits, so the view asks for another frame. */
gboolean sp_output_model_publish_frame (SpOutputModel *self);
/* For a view that shows the end: trimming moves text through the rows it
 * already has (each notifies "text") instead of removing rows at the front
 * and adding rows at the end, as long as the list holds only text. */
void sp_output_model_set_keep_rows (SpOutputModel *self, gboolean keep_rows);
void sp_output_model_append (SpOutputModel *self, SpOutputKind kind, const char *text);
/* Shows what a batch holds now. */
void sp_output_model_flush (SpOutputModel *self);
/* Text collected but not shown yet (batched only). */
gboolean sp_output_model_has_pending (SpOutputModel *self);
void sp_output_model_clear (SpOutputModel *self);
/* Appends a whole item (an image, an error) as it is, after the text
 * (flushing first, so it comes after everything written before it). */
void sp_output_model_append_item (SpOutputModel *self, SpOutputItem *item);
/* As append, with the time the runner read the text (its clock, ms; -1:
 * unknown, as an older runner sends it). */
void sp_output_model_append_timed (SpOutputModel *self, SpOutputKind kind, const char *text,
                                   gint64 t_ms);
/* Places items (a run's plots and files) among the output by t_ms, the
 * time each was last written on the same clock: after the last row read at
 * or before it, before the rows read later. Items with t_ms -1 (or any,
 * when the text came untimed) go at the end, in the order given. */
void sp_output_model_insert_timed (SpOutputModel *self, SpOutputItem *const *items,
                                   const gint64 *t_ms, guint n_items);
/* Lines (newlines) of text dropped from the front; "notify::hidden". */
guint64 sp_output_model_get_hidden_lines (SpOutputModel *self);
/* Bytes of text dropped from the front (a line longer than the cap drops
 * its start without a newline). */
guint64 sp_output_model_get_hidden_bytes (SpOutputModel *self);
/* Whether anything was dropped: hidden bytes above zero. */
gboolean sp_output_model_get_truncated (SpOutputModel *self);
/* Bytes of the whole output, as received, kept for save_async. */
guint64 sp_output_model_get_total_bytes (SpOutputModel *self);
/* Copies the whole output (both streams, as the program wrote them) to
 * dest, replacing it. */
void sp_output_model_save_async (SpOutputModel *self, GFile *dest, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
gboolean sp_output_model_save_finish (SpOutputModel *self, GAsyncResult *result, GError **error);
/* The whole line of a row of the model (a folded one's too), as the
 * program wrote it, without its newline: read from the store in a worker
 * thread. An error when the store did not keep it. */
void sp_output_model_read_line_async (SpOutputModel *self, SpOutputItem *item,
                                      GCancellable *cancellable, GAsyncReadyCallback callback,
                                      gpointer user_data);
GBytes *sp_output_model_read_line_finish (SpOutputModel *self, GAsyncResult *result,
                                          GError **error);

G_END_DECLS
