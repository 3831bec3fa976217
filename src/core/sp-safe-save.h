/* sp-safe-save.h: saving a file so that a failure leaves it whole.
 *
 * The new text goes to a temporary file beside the target, is flushed to
 * the disk, takes the original's mode, owner and ACL where permitted, and
 * only then is renamed over it; a full disk, a read-only folder or a
 * crash at any point leaves the original as it was. A symlink is saved
 * through: its target is replaced and the link kept. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Replaces file's contents with contents. When expected is not NULL, the
 * file must still hold those bytes (what the caller last read or wrote),
 * else nothing is written and the error is G_IO_ERROR_WRONG_ETAG; a file
 * that is gone, or that already holds contents, is no conflict. Other
 * errors are G_IO_ERROR's, from errno (G_IO_ERROR_NO_SPACE,
 * G_IO_ERROR_PERMISSION_DENIED for a folder or file that is not
 * writable, G_IO_ERROR_READ_ONLY, ...). A file without a local path is
 * written by GIO's own replace. Blocking: see sp_safe_save_async(). */
gboolean sp_safe_save (GFile *file, GBytes *contents, GBytes *expected, GCancellable *cancellable,
                       GError **error);

/* The same in a worker thread. */
void sp_safe_save_async (GFile *file, GBytes *contents, GBytes *expected, GCancellable *cancellable,
                         GAsyncReadyCallback callback, gpointer user_data);
gboolean sp_safe_save_finish (GAsyncResult *result, GError **error);

G_END_DECLS
