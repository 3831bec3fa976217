/* sp-run-file.c: a run's file opened beneath its directory, no symlink
 * followed, never blocking, regular files only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp-run-file.h"

#define OPEN_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

static void
set_errno_error (GError **error, int errsv, const char *name)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), _ ("Cannot open %s: %s"), name,
               g_strerror (errsv));
}

/* Where openat2 is missing (before Linux 5.6, or a seccomp filter that
 * refuses it), the same walk by hand: each directory opened with
 * O_NOFOLLOW | O_DIRECTORY from the one before, so no part may be a
 * symlink; "." and ".." parts are refused, as RESOLVE_BENEATH would. */
static int
open_by_parts (int root, const char *name)
{
  g_auto (GStrv) parts = g_strsplit (name, "/", -1);
  int fd = dup (root);

  for (guint i = 0; fd >= 0 && parts[i] != NULL; i++)
    {
      gboolean last = parts[i + 1] == NULL;
      int next;

      if (parts[i][0] == '\0' || g_str_equal (parts[i], ".") || g_str_equal (parts[i], ".."))
        {
          close (fd);
          errno = EXDEV;
          return -1;
        }
      next = openat (fd, parts[i],
                     last ? OPEN_FLAGS : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      close (fd);
      fd = next;
    }
  return fd;
}

static int
open_beneath (int root, const char *name)
{
  struct open_how how = {
    .flags = OPEN_FLAGS,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  int fd = (int) syscall (SYS_openat2, root, name, &how, sizeof how);

  if (fd < 0 && (errno == ENOSYS || errno == EPERM))
    fd = open_by_parts (root, name);
  return fd;
}

int
sp_run_file_open (const char *dir, const char *name, struct stat *st, GError **error)
{
  int root, fd, errsv;

  g_return_val_if_fail (dir != NULL && name != NULL && st != NULL, -1);

  /* The directory is the runner's (from its started event), not the run's
   * to name; beneath it, nothing is followed. */
  root = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (root < 0)
    {
      set_errno_error (error, errno, name);
      return -1;
    }
  fd = name[0] == '/' ? (errno = EXDEV, -1) : open_beneath (root, name);
  errsv = errno;
  close (root);
  if (fd < 0)
    {
      /* ELOOP (a symlink at some step) and EXDEV (out of the directory)
       * both mean the run planted something: say what it is not. */
      if (errsv == ELOOP || errsv == EXDEV)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                     _ ("%s is not a regular file of the run"), name);
      else
        set_errno_error (error, errsv, name);
      return -1;
    }
  if (fstat (fd, st) != 0 || !S_ISREG (st->st_mode))
    {
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                   _ ("%s is not a regular file of the run"), name);
      return -1;
    }
  /* Regular files never block; reads that follow need not retry EAGAIN. */
  fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

GBytes *
sp_run_file_read (const char *dir, const char *name, gsize max, SpRunFileRead how, gboolean *whole,
                  GCancellable *cancellable, GError **error)
{
  struct stat st;
  int fd = sp_run_file_open (dir, name, &st, error);
  g_autofree char *buf = NULL;
  gsize len = 0;

  if (fd < 0)
    return NULL;
  /* The size first: a 1 GiB file is refused before a byte of it is read. */
  if (how == SP_RUN_FILE_READ_WHOLE && (guint64) st.st_size > max)
    {
      g_autofree char *limit = g_format_size (max);
      close (fd);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, _ ("%s is larger than %s"),
                   name, limit);
      return NULL;
    }
  /* One byte more than max says whether there was more (the file may
   * have grown since fstat). */
  buf = g_malloc (max + 1);
  while (len < max + 1)
    {
      gssize n;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          close (fd);
          return NULL;
        }
      n = read (fd, buf + len, max + 1 - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int errsv = errno;
          close (fd);
          set_errno_error (error, errsv, name);
          return NULL;
        }
      if (n == 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  if (len > max && how == SP_RUN_FILE_READ_WHOLE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE, _ ("%s grew while read"), name);
      return NULL;
    }
  if (whole != NULL)
    *whole = len <= max;
  return g_bytes_new_take (g_steal_pointer (&buf), MIN (len, max));
}

typedef struct
{
  char *dir;
  char *name;
  gsize max;
  SpRunFileRead how;
  GFile *dest;
} Job;

static void
job_free (Job *job)
{
  g_free (job->dir);
  g_free (job->name);
  g_clear_object (&job->dest);
  g_free (job);
}

static GTask *
job_task (const char *dir, const char *name, GCancellable *cancellable,
          GAsyncReadyCallback callback, gpointer user_data, gpointer tag, Job **out)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Job *job = g_new0 (Job, 1);

  g_task_set_source_tag (task, tag);
  job->dir = g_strdup (dir);
  job->name = g_strdup (name);
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  *out = job;
  return task;
}

/* What read_thread hands back: the bytes and whether they are all. */
typedef struct
{
  GBytes *bytes;
  gboolean whole;
} ReadResult;

static void
read_result_free (ReadResult *r)
{
  g_bytes_unref (r->bytes);
  g_free (r);
}

static void
read_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  GError *error = NULL;
  ReadResult *r = g_new0 (ReadResult, 1);

  r->bytes = sp_run_file_read (job->dir, job->name, job->max, job->how, &r->whole, cancellable,
                               &error);
  if (r->bytes == NULL)
    {
      g_free (r);
      g_task_return_error (task, error);
      return;
    }
  g_task_return_pointer (task, r, (GDestroyNotify) read_result_free);
}

void
sp_run_file_read_async (const char *dir, const char *name, gsize max, SpRunFileRead how,
                        GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  Job *job;
  g_autoptr (GTask) task = job_task (dir, name, cancellable, callback, user_data,
                                     sp_run_file_read_async, &job);

  job->max = max;
  job->how = how;
  g_task_run_in_thread (task, read_thread);
}

GBytes *
sp_run_file_read_finish (GAsyncResult *result, gboolean *whole, GError **error)
{
  ReadResult *r;
  GBytes *bytes;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  r = g_task_propagate_pointer (G_TASK (result), error);
  if (r == NULL)
    return NULL;
  if (whole != NULL)
    *whole = r->whole;
  bytes = g_steal_pointer (&r->bytes);
  g_free (r);
  return bytes;
}

gboolean
sp_run_file_save (const char *dir, const char *name, GFile *dest, GCancellable *cancellable,
                  GError **error)
{
  struct stat st;
  int fd = sp_run_file_open (dir, name, &st, error);
  g_autoptr (GFileOutputStream) out = NULL;
  g_autofree char *buf = NULL;
  gboolean ok = FALSE;

  if (fd < 0)
    return FALSE;
  /* A new regular file (or the chosen file's contents replaced): the
   * bytes, never a link into the run's directory or out of it. */
  out = g_file_replace (dest, NULL, FALSE, G_FILE_CREATE_NONE, cancellable, error);
  buf = g_malloc (64 * 1024);
  while (out != NULL)
    {
      gssize n = read (fd, buf, 64 * 1024);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          set_errno_error (error, errno, name);
          break;
        }
      if (n == 0)
        {
          ok = g_output_stream_close (G_OUTPUT_STREAM (out), cancellable, error);
          break;
        }
      if (!g_output_stream_write_all (G_OUTPUT_STREAM (out), buf, (gsize) n, NULL, cancellable,
                                      error))
        break;
    }
  close (fd);
  if (!ok && out != NULL)
    {
      /* Closing after a failure would put a partial copy in place. */
      g_autoptr (GCancellable) abandon = g_cancellable_new ();
      g_cancellable_cancel (abandon);
      g_output_stream_close (G_OUTPUT_STREAM (out), abandon, NULL);
    }
  return ok;
}

static void
save_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  Job *job = data;
  GError *error = NULL;

  if (sp_run_file_save (job->dir, job->name, job->dest, cancellable, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

void
sp_run_file_save_async (const char *dir, const char *name, GFile *dest, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  Job *job;
  g_autoptr (GTask) task = job_task (dir, name, cancellable, callback, user_data,
                                     sp_run_file_save_async, &job);

  job->dest = g_object_ref (dest);
  g_task_run_in_thread (task, save_thread);
}

gboolean
sp_run_file_save_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
