/* sp-output-store.c: the whole of a run's output, kept on disk. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "sp-output-store.h"

/* The whole output is kept up to this much; the runner's own output limit
 * (at most 64 MiB a stream) stops a run long before. */
#define STORE_MAX_BYTES (G_GUINT64_CONSTANT (256) * 1024 * 1024)
/* Kept bytes wait in memory up to this much: a flood comes in many small
 * chunks, and a write for each was a tenth of the window's work (issue
 * 30). */
#define STORE_BUF_BYTES (64 * 1024)
#define COPY_BUF_BYTES (64 * 1024)

struct _SpOutputStore
{
  /* -1 when there is none (or writing to it failed). */
  int fd;
  gboolean failed;
  guint64 size;
  /* Kept bytes not written yet. */
  GString *buf;
};

SpOutputStore *
sp_output_store_new (void)
{
  SpOutputStore *self = g_new0 (SpOutputStore, 1);

  self->fd = -1;
  self->buf = g_string_new (NULL);
  return self;
}

void
sp_output_store_reset (SpOutputStore *self)
{
  if (self->fd >= 0)
    close (self->fd);
  self->fd = -1;
  self->failed = FALSE;
  self->size = 0;
  g_string_truncate (self->buf, 0);
}

void
sp_output_store_free (SpOutputStore *self)
{
  if (self == NULL)
    return;
  sp_output_store_reset (self);
  g_string_free (self->buf, TRUE);
  g_free (self);
}

guint64
sp_output_store_get_size (SpOutputStore *self)
{
  return self->size;
}

/* A file only this process can reach: O_TMPFILE never has a name; where
 * the file system lacks it, a named one is unlinked at once (a kill in
 * between those two calls is the only way one is left). */
static int
open_store (GError **error)
{
  const char *tmp = g_get_tmp_dir ();
  g_autofree char *path = NULL;
  int fd = open (tmp, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

  if (fd >= 0)
    return fd;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", tmp,
                   g_strerror (errsv));
      return -1;
    }
  path = g_build_filename (tmp, "sandpad-output-XXXXXX", NULL);
  fd = g_mkstemp_full (path, O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "%s: %s", path,
                   g_strerror (errsv));
      return -1;
    }
  g_unlink (path);
  return fd;
}

/* The page cache takes this at once; a write error (a full /tmp) ends the
 * store, never the run's display. */
void
sp_output_store_flush (SpOutputStore *self)
{
  guint64 at = self->size - self->buf->len;
  gsize done = 0;

  if (self->buf->len == 0 || self->fd < 0)
    {
      g_string_truncate (self->buf, 0);
      return;
    }
  while (done < self->buf->len)
    {
      gssize n = pwrite (self->fd, self->buf->str + done, self->buf->len - done,
                         (off_t) (at + done));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          g_warning ("cannot keep the whole output: %s", g_strerror (errno));
          close (self->fd);
          self->fd = -1;
          self->failed = TRUE;
          break;
        }
      done += (gsize) n;
    }
  g_string_truncate (self->buf, 0);
}

gint64
sp_output_store_append (SpOutputStore *self, const char *text, gsize len)
{
  g_autoptr (GError) error = NULL;
  guint64 at = self->size;

  if (self->failed || self->size + len > STORE_MAX_BYTES)
    return -1;
  if (self->fd < 0)
    {
      self->fd = open_store (&error);
      if (self->fd < 0)
        {
          g_warning ("cannot keep the whole output: %s", error->message);
          self->failed = TRUE; /* and do not try again */
          return -1;
        }
    }
  g_string_append_len (self->buf, text, (gssize) len);
  self->size += len;
  if (self->buf->len >= STORE_BUF_BYTES)
    sp_output_store_flush (self);
  return self->failed ? -1 : (gint64) at;
}

/* What a copy or a read works on: its own fd of the store (a clear or a
 * new run closes the store's) and the range to take. */
typedef struct
{
  int fd;
  guint64 at;
  guint64 len;
  GFile *dest; /* a save's; NULL for a read */
} Job;

static void
job_free (Job *job)
{
  if (job->fd >= 0)
    close (job->fd);
  g_clear_object (&job->dest);
  g_free (job);
}

/* Reads up to len bytes at off into buf: how many, or -1 with error set
 * when the file ends or fails first. */
static gssize
read_at (int fd, char *buf, gsize len, guint64 off, GError **error)
{
  for (;;)
    {
      gssize n = pread (fd, buf, len, (off_t) off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int errsv = n < 0 ? errno : EIO;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv),
                       _ ("Cannot read the kept output: %s"), g_strerror (errsv));
          return -1;
        }
      return n;
    }
}

static void
save_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  g_autoptr (GFileOutputStream) out = NULL;
  g_autofree char *buf = g_malloc (COPY_BUF_BYTES);
  GError *error = NULL;
  guint64 off = 0;

  out = g_file_replace (job->dest, NULL, FALSE, G_FILE_CREATE_NONE, cancellable, &error);
  while (out != NULL && error == NULL && off < job->len)
    {
      gssize n = read_at (job->fd, buf, (gsize) MIN (job->len - off, COPY_BUF_BYTES), job->at + off,
                          &error);
      if (n > 0
          && g_output_stream_write_all (G_OUTPUT_STREAM (out), buf, (gsize) n, NULL, cancellable,
                                        &error))
        off += (guint64) n;
    }
  if (out != NULL && error == NULL)
    g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, &error);
  else if (out != NULL)
    {
      /* Closing after a failure would put a partial copy in place. */
      g_autoptr (GCancellable) abandon = g_cancellable_new ();
      g_cancellable_cancel (abandon);
      g_output_stream_close (G_OUTPUT_STREAM (out), abandon, NULL);
    }
  if (error != NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
read_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  g_autofree char *buf = g_try_malloc (MAX (job->len, 1));
  GError *error = NULL;
  guint64 off = 0;

  if (buf == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NO_SPACE, "%s", g_strerror (ENOMEM));
      return;
    }
  while (off < job->len)
    {
      gssize n;

      if (g_task_return_error_if_cancelled (task))
        return;
      n = read_at (job->fd, buf + off, (gsize) MIN (job->len - off, COPY_BUF_BYTES * 16),
                   job->at + off, &error);
      if (n < 0)
        {
          g_task_return_error (task, error);
          return;
        }
      off += (guint64) n;
    }
  g_task_return_pointer (task, g_bytes_new_take (g_steal_pointer (&buf), (gsize) job->len),
                         (GDestroyNotify) g_bytes_unref);
}

/* A task over a snapshot of what came so far, read at its offsets: later
 * output goes on being written past it. NULL when the task already
 * returned an error. */
static Job *
start_job (SpOutputStore *self, GTask *task, guint64 at, guint64 len)
{
  Job *job;

  sp_output_store_flush (self);
  if (self->fd < 0 || at + len > self->size)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "%s",
                               _ ("The whole output was not kept"));
      return NULL;
    }
  job = g_new0 (Job, 1);
  job->fd = fcntl (self->fd, F_DUPFD_CLOEXEC, 0);
  job->at = at;
  job->len = len;
  if (job->fd < 0)
    {
      int errsv = errno;
      job_free (job);
      g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (errsv), "%s",
                               g_strerror (errsv));
      return NULL;
    }
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  return job;
}

void
sp_output_store_save_async (SpOutputStore *self, gpointer source_object, gpointer source_tag,
                            GFile *dest, GCancellable *cancellable, GAsyncReadyCallback callback,
                            gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (source_object, cancellable, callback, user_data);
  Job *job;

  g_task_set_source_tag (task, source_tag);
  job = start_job (self, task, 0, self->size);
  if (job == NULL)
    return;
  job->dest = g_object_ref (dest);
  g_task_run_in_thread (task, save_thread);
}

void
sp_output_store_read_async (SpOutputStore *self, gpointer source_object, gpointer source_tag,
                            guint64 at, guint64 len, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (source_object, cancellable, callback, user_data);

  g_task_set_source_tag (task, source_tag);
  if (start_job (self, task, at, len) != NULL)
    g_task_run_in_thread (task, read_thread);
}
