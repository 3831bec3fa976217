/* sp-run-file.h: reading a file a run made, as hostile data.
 *
 * A run's directory is the program's to shape: any name in it may be a
 * symlink to the person's files, a FIFO that blocks whoever opens it, or
 * swapped for one after the runner listed it (a session's thread goes on
 * running). So a file of a run is opened by its name's bytes (never by
 * the runner's escaped text) beneath the run's directory, no symlink
 * followed at any step, without blocking, and read only if it is a
 * regular file; its size is checked with fstat before a byte is read.
 * Reading happens in a worker thread. */
#pragma once

#include <gio/gio.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/* The most Open reads into an editor. */
#define SP_RUN_FILE_OPEN_MAX (4 * 1024 * 1024)

/* Opens name (relative, as on disk) beneath dir: O_RDONLY, O_CLOEXEC,
 * no symlink followed anywhere (openat2 RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS), O_NONBLOCK so a FIFO cannot hang the open; then
 * a regular file only (G_IO_ERROR_NOT_REGULAR_FILE), its stat in *st.
 * Returns the fd (blocking again) or -1 with error. */
int sp_run_file_open (const char *dir, const char *name, struct stat *st, GError **error);

typedef enum
{
  SP_RUN_FILE_READ_HEAD,  /* the first max bytes; *whole says whether that was all */
  SP_RUN_FILE_READ_WHOLE, /* all of it, or G_IO_ERROR_MESSAGE_TOO_LARGE past max */
} SpRunFileRead;

GBytes *sp_run_file_read (const char *dir, const char *name, gsize max, SpRunFileRead how,
                          gboolean *whole, GCancellable *cancellable, GError **error);
void sp_run_file_read_async (const char *dir, const char *name, gsize max, SpRunFileRead how,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
GBytes *sp_run_file_read_finish (GAsyncResult *result, gboolean *whole, GError **error);

/* Copies the file's bytes to dest (replaced, as GIO's replace does), read
 * through sp_run_file_open(): a symlink or FIFO of the run is refused,
 * never recreated at dest. */
gboolean sp_run_file_save (const char *dir, const char *name, GFile *dest,
                           GCancellable *cancellable, GError **error);
void sp_run_file_save_async (const char *dir, const char *name, GFile *dest,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
gboolean sp_run_file_save_finish (GAsyncResult *result, GError **error);

G_END_DECLS
