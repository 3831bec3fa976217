/* sp-image-decode.c: one image, decoded by sandpad-imagedecode. */
#define G_LOG_DOMAIN "sp-image-decode"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-image-decode.h"
#include "sp-run-file.h"
#include "sp-image-limits.h"

G_DEFINE_QUARK (sp - image - decode - error - quark, sp_image_decode_error)

struct _SpDecodedImage
{
  gatomicrefcount ref_count;
  int width;
  int height;
  gsize stride;
  GBytes *pixels;
};

G_DEFINE_BOXED_TYPE (SpDecodedImage, sp_decoded_image, sp_decoded_image_ref, sp_decoded_image_unref)

SpDecodedImage *
sp_decoded_image_ref (SpDecodedImage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sp_decoded_image_unref (SpDecodedImage *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_bytes_unref (self->pixels);
  g_free (self);
}

int
sp_decoded_image_get_width (SpDecodedImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->width;
}

int
sp_decoded_image_get_height (SpDecodedImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->height;
}

gsize
sp_decoded_image_get_stride (SpDecodedImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->stride;
}

GBytes *
sp_decoded_image_get_pixels (SpDecodedImage *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->pixels;
}

static char *
find_helper (const char *env_name, const char *name, const char *uninstalled)
{
  const char *env = g_getenv (env_name);
  g_autofree char *installed = g_build_filename (SANDPAD_LIBEXECDIR, name, NULL);

  if (env != NULL && env[0] != '\0')
    return g_strdup (env);
  if (g_file_test (installed, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&installed);
  return g_strdup (uninstalled);
}

char *
sp_image_decode_find_helper (void)
{
  return find_helper ("SANDPAD_IMAGEDECODE", "sandpad-imagedecode",
                      SANDPAD_UNINSTALLED_IMAGEDECODE);
}

char *
sp_runner_find_helper (void)
{
  return find_helper ("SANDPAD_RUNNER", "sandpad-runner", SANDPAD_UNINSTALLED_RUNNER);
}

/* ---- one decode ---- */

/* "SPIMG\0\0\1" and three uint32: width, height, stride. */
#define HEADER_SIZE 20
static const char header_magic[8] = { 'S', 'P', 'I', 'M', 'G', 0, 0, 1 };

typedef struct
{
  GSubprocess *process;
  GInputStream *out;
  guint8 header[HEADER_SIZE];
  guint8 *pixels;
  gsize pixels_len;
  int width;
  int height;
  gsize stride;
  guint max_side; /* 0: the bounds of sp-image-limits.h only */
  guint timeout_id;
  GCancellable *cancellable;
  gulong cancel_id;
  gboolean timed_out;
  /* Set when the output did not add up, before the exit status is known. */
  GError *protocol_error;
} Decode;

static void
decode_free (gpointer data)
{
  Decode *d = data;

  g_clear_handle_id (&d->timeout_id, g_source_remove);
  if (d->cancellable != NULL)
    g_cancellable_disconnect (d->cancellable, d->cancel_id);
  g_clear_object (&d->cancellable);
  if (d->process != NULL)
    g_subprocess_force_exit (d->process);
  g_clear_object (&d->process);
  g_clear_object (&d->out);
  g_free (d->pixels);
  g_clear_error (&d->protocol_error);
  g_free (d);
}

/* Opens the run's file as every file of a run is opened (sp-run-file.h:
 * beneath its directory, no symlink at any step, no FIFO or device, which
 * could block or never end), then checks the helper's input cap. */
static int
open_image (const char *dir, const char *name, GError **error)
{
  g_autoptr (GError) local = NULL;
  struct stat st;
  int fd = sp_run_file_open (dir, name, &st, &local);

  if (fd < 0)
    {
      g_set_error (error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_FILE,
                   _ ("Cannot open the image: %s"), local->message);
      return -1;
    }
  if ((gsize) st.st_size > SP_DECODE_MAX_INPUT)
    {
      close (fd);
      g_set_error_literal (error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_FILE,
                           _ ("The image is not a regular file of at most 64 MiB"));
      return -1;
    }
  return fd;
}

static void
child_setup (gpointer user_data)
{
  /* The helper dies with the app. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static gboolean
on_timeout (gpointer user_data)
{
  Decode *d = user_data;

  d->timeout_id = 0;
  d->timed_out = TRUE;
  g_subprocess_force_exit (d->process);
  return G_SOURCE_REMOVE;
}

static void
on_cancelled (GCancellable *cancellable, gpointer user_data)
{
  Decode *d = user_data;

  g_subprocess_force_exit (d->process);
}

static void
fail_from_status (GTask *task, Decode *d)
{
  GSubprocess *process = d->process;
  int code;

  if (g_task_return_error_if_cancelled (task))
    return;
  if (d->timed_out)
    {
      g_task_return_new_error (task, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_TIMED_OUT,
                               _ ("Decoding the image took too long"));
      return;
    }
  /* We killed it for what it sent: that, not our SIGKILL, is the cause. */
  if (d->protocol_error != NULL)
    {
      g_task_return_error (task, g_steal_pointer (&d->protocol_error));
      return;
    }
  if (g_subprocess_get_if_signaled (process))
    {
      g_task_return_new_error (task, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_CRASHED,
                               _ ("The image decoder crashed (signal %d)"),
                               g_subprocess_get_term_sig (process));
      return;
    }
  code = g_subprocess_get_exit_status (process);
  g_task_return_new_error (task, SP_IMAGE_DECODE_ERROR,
                           code == 2   ? SP_IMAGE_DECODE_ERROR_UNSUPPORTED
                           : code == 3 ? SP_IMAGE_DECODE_ERROR_TOO_LARGE
                           : code == 4 ? SP_IMAGE_DECODE_ERROR_INVALID
                                       : SP_IMAGE_DECODE_ERROR_PROTOCOL,
                           code == 2 ? _ ("Not a PNG, JPEG or GIF image")
                           : code == 3
                             ? _ ("The image is larger than 16384 pixels a side or 64 megapixels")
                           : code == 4 ? _ ("The image is damaged or incomplete")
                                       : _ ("The image decoder failed"));
}

static void
on_waited (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  Decode *d = g_task_get_task_data (task);
  SpDecodedImage *image;

  g_subprocess_wait_finish (G_SUBPROCESS (object), result, NULL);
  g_clear_handle_id (&d->timeout_id, g_source_remove);
  if (d->pixels == NULL || !g_subprocess_get_successful (d->process) || d->timed_out)
    {
      fail_from_status (task, d);
      return;
    }
  image = g_new0 (SpDecodedImage, 1);
  g_atomic_ref_count_init (&image->ref_count);
  image->width = d->width;
  image->height = d->height;
  image->stride = d->stride;
  image->pixels = g_bytes_new_take (g_steal_pointer (&d->pixels), d->pixels_len);
  g_task_return_pointer (task, image, (GDestroyNotify) sp_decoded_image_unref);
}

static void
wait_for_exit (GTask *task)
{
  Decode *d = g_task_get_task_data (task);

  g_subprocess_wait_async (d->process, NULL, on_waited, task);
}

static void
on_pixels_read (GObject *object, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Decode *d = g_task_get_task_data (task);
  gsize got = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (object), result, &got, NULL)
      || got != d->pixels_len)
    g_clear_pointer (&d->pixels, g_free);
  wait_for_exit (task);
}

/* Every number the helper sends is checked against the same bounds it
 * applies: a helper that was taken over gets no more out of the app than
 * one image's worth of memory. */
static gboolean
parse_header (Decode *d)
{
  guint32 fields[3];

  if (memcmp (d->header, header_magic, sizeof header_magic) != 0)
    return FALSE;
  memcpy (fields, d->header + sizeof header_magic, sizeof fields);
  if (!sp_image_size_allowed (fields[0], fields[1]) || fields[2] != fields[0] * 4)
    return FALSE;
  /* No more than was asked for, the point of asking. */
  if (d->max_side > 0 && (fields[0] > d->max_side || fields[1] > d->max_side))
    return FALSE;
  d->width = (int) fields[0];
  d->height = (int) fields[1];
  d->stride = fields[2];
  d->pixels_len = d->stride * (gsize) d->height;
  return TRUE;
}

static void
on_header_read (GObject *object, GAsyncResult *result, gpointer user_data)
{
  GTask *task = user_data;
  Decode *d = g_task_get_task_data (task);
  gsize got = 0;

  if (!g_input_stream_read_all_finish (G_INPUT_STREAM (object), result, &got, NULL)
      || got != HEADER_SIZE)
    {
      wait_for_exit (task); /* it failed before any pixels: the status says why */
      return;
    }
  if (!parse_header (d))
    {
      g_set_error_literal (&d->protocol_error, SP_IMAGE_DECODE_ERROR,
                           SP_IMAGE_DECODE_ERROR_PROTOCOL,
                           _ ("The image decoder sent an impossible size"));
      g_subprocess_force_exit (d->process);
      wait_for_exit (task);
      return;
    }
  d->pixels = g_try_malloc (d->pixels_len);
  if (d->pixels == NULL)
    {
      g_subprocess_force_exit (d->process);
      wait_for_exit (task);
      return;
    }
  g_input_stream_read_all_async (d->out, d->pixels, d->pixels_len, G_PRIORITY_DEFAULT, NULL,
                                 on_pixels_read, task);
}

static gboolean
spawn_helper (Decode *d, int fd, const char *const *argv, GError **error)
{
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  const char *empty_env[] = { NULL };

  /* Its diagnostics are not shown: the exit status says what failed. */
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_SILENCE);
  /* Nothing of the app's environment (GDK_PIXBUF_MODULE_FILE, G_DEBUG)
   * reaches the decoder. */
  g_subprocess_launcher_set_environ (launcher, (char **) empty_env);
  g_subprocess_launcher_take_stdin_fd (launcher, fd);
  g_subprocess_launcher_set_child_setup (launcher, child_setup, NULL, NULL);
  d->process = g_subprocess_launcher_spawnv (launcher, argv, error);
  if (d->process == NULL)
    return FALSE;
  d->out = g_object_ref (g_subprocess_get_stdout_pipe (d->process));
  return TRUE;
}

/* The helper's command line: the given one (or the helper found) and the
 * size asked for. */
static GPtrArray *
helper_command (const char *const *helper_argv, guint max_side)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);

  if (helper_argv == NULL)
    g_ptr_array_add (argv, sp_image_decode_find_helper ());
  for (guint i = 0; helper_argv != NULL && helper_argv[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (helper_argv[i]));
  if (max_side > 0)
    {
      g_ptr_array_add (argv, g_strdup ("--max-side"));
      g_ptr_array_add (argv, g_strdup_printf ("%u", max_side));
    }
  g_ptr_array_add (argv, NULL);
  return argv;
}

void
sp_image_decode_async (const char *dir, const char *name, const char *const *helper_argv,
                       guint timeout_ms, GCancellable *cancellable, GAsyncReadyCallback callback,
                       gpointer user_data)
{
  sp_image_decode_scaled_async (dir, name, 0, helper_argv, timeout_ms, cancellable, callback,
                                user_data);
}

/* Starts the helper on fd (taken) for task; an fd of -1 returns error. */
static void
decode_fd (GTask *task, int fd, GError *open_error, guint max_side, const char *const *helper_argv,
           guint timeout_ms, GCancellable *cancellable)
{
  g_autoptr (GError) error = open_error;
  g_autoptr (GPtrArray) argv = NULL;
  Decode *d;

  d = g_new0 (Decode, 1);
  d->max_side = max_side;
  g_task_set_task_data (task, d, decode_free);

  if (fd < 0)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      g_object_unref (task);
      return;
    }
  argv = helper_command (helper_argv, max_side);
  if (!spawn_helper (d, fd, (const char *const *) argv->pdata, &error))
    {
      g_task_return_new_error (task, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_SPAWN,
                               _ ("Cannot start the image decoder: %s"), error->message);
      g_object_unref (task);
      return;
    }
  d->timeout_id = g_timeout_add (timeout_ms ? timeout_ms : SP_IMAGE_DECODE_DEFAULT_TIMEOUT_MS,
                                 on_timeout, d);
  if (cancellable != NULL)
    {
      d->cancellable = g_object_ref (cancellable);
      d->cancel_id = g_cancellable_connect (cancellable, G_CALLBACK (on_cancelled), d, NULL);
    }
  g_input_stream_read_all_async (d->out, d->header, HEADER_SIZE, G_PRIORITY_DEFAULT, NULL,
                                 on_header_read, task);
}

void
sp_image_decode_scaled_async (const char *dir, const char *name, guint max_side,
                              const char *const *helper_argv, guint timeout_ms,
                              GCancellable *cancellable, GAsyncReadyCallback callback,
                              gpointer user_data)
{
  GTask *task;
  GError *error = NULL;
  int fd;

  g_return_if_fail (dir != NULL && name != NULL);
  g_return_if_fail (max_side <= SP_IMAGE_MAX_SIDE);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_image_decode_async);
  fd = open_image (dir, name, &error);
  decode_fd (task, fd, error, max_side, helper_argv, timeout_ms, cancellable);
}

/* An unnamed file holding data, sealed, at its start: the helper's stdin.
 * The memfd lives in the app only as long as the helper reads it, and is
 * gone with the process however it ends. */
static int
memfd_of (GBytes *data, GError **error)
{
  gsize len = 0;
  const guint8 *bytes = g_bytes_get_data (data, &len);
  int fd;

  if (len > SP_DECODE_MAX_INPUT)
    {
      g_set_error_literal (error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_FILE,
                           _ ("The image is not a regular file of at most 64 MiB"));
      return -1;
    }
  fd = memfd_create ("sandpad-image", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  for (gsize done = 0; fd >= 0 && done < len;)
    {
      ssize_t n = write (fd, bytes + done, len - done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = errno;
          close (fd);
          errno = n < 0 ? saved : EIO;
          fd = -1;
          break;
        }
      done += (gsize) n;
    }
  if (fd >= 0)
    {
      /* Nothing can change the bytes while the helper reads them. */
      fcntl (fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
      if (lseek (fd, 0, SEEK_SET) == 0)
        return fd;
      close (fd);
    }
  g_set_error (error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_FILE,
               _ ("Cannot hand the image to the decoder: %s"), g_strerror (errno));
  return -1;
}

void
sp_image_decode_bytes_scaled_async (GBytes *data, guint max_side, const char *const *helper_argv,
                                    guint timeout_ms, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;
  GError *error = NULL;
  int fd;

  g_return_if_fail (data != NULL);
  g_return_if_fail (max_side <= SP_IMAGE_MAX_SIDE);

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_image_decode_async);
  fd = memfd_of (data, &error);
  decode_fd (task, fd, error, max_side, helper_argv, timeout_ms, cancellable);
}

SpDecodedImage *
sp_image_decode_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
