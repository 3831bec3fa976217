/* sp-output-store.h: the whole of a run's output, kept on disk.
 *
 * The output model shows only a tail, and of a long line only its start
 * (sp-output-model.h); everything the program wrote, both streams in the
 * order they came, goes here: a private temporary file without a name
 * (made on first use), so an app that is killed leaves nothing behind.
 * Save Output copies all of it, and Copy Line reads one line back by its
 * offsets. Writes are collected in memory and made once per batch (or when
 * 64 KiB wait); readers first write what waits.
 *
 * A plain structure the model owns, not a GObject: its reads and copies
 * run in worker threads on their own duplicate of the file descriptor, so
 * the model may clear or replace the store meanwhile. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct _SpOutputStore SpOutputStore;

SpOutputStore *sp_output_store_new (void);
void sp_output_store_free (SpOutputStore *self);
/* Forgets everything (a new run, Clear): the file goes, the next append
 * makes a new one and offsets start again at 0. */
void sp_output_store_reset (SpOutputStore *self);
/* Keeps text; returns its offset in the store, or -1 when it is not kept
 * (the file could not be made or written, or the store is full). */
gint64 sp_output_store_append (SpOutputStore *self, const char *text, gsize len);
/* Writes what waits in memory to the file. */
void sp_output_store_flush (SpOutputStore *self);
/* Bytes kept so far. */
guint64 sp_output_store_get_size (SpOutputStore *self);

/* Copies everything kept so far to dest, replacing it, in a worker
 * thread; source_object is the GTask's (the model). */
void sp_output_store_save_async (SpOutputStore *self, gpointer source_object, gpointer source_tag,
                                 GFile *dest, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);
/* Reads len bytes at offset at, in a worker thread; the task returns a
 * GBytes (g_task_propagate_pointer). */
void sp_output_store_read_async (SpOutputStore *self, gpointer source_object, gpointer source_tag,
                                 guint64 at, guint64 len, GCancellable *cancellable,
                                 GAsyncReadyCallback callback, gpointer user_data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpOutputStore, sp_output_store_free)

G_END_DECLS
