/* sp-state-lock.c: an flock on <dir>/session.lock, held for the process's
 * lifetime.
 *
 * flock rather than a pid file: the kernel releases it when the process
 * dies (SIGKILL included), so a crash never leaves a stale lock that a
 * person would have to remove, and two starts racing for it cannot both
 * win. The holder writes its pid into the file only so that the one that
 * lost can say who has it. */
#define G_LOG_DOMAIN "sp-state-lock"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "sp-state-lock.h"

#define LOCK_NAME "session.lock"

struct _SpStateLock
{
  GObject parent_instance;

  char *dir;
  int fd; /* holds the lock; -1 once finalized */
};

G_DEFINE_FINAL_TYPE (SpStateLock, sp_state_lock, G_TYPE_OBJECT)

static void
sp_state_lock_finalize (GObject *object)
{
  SpStateLock *self = SP_STATE_LOCK (object);

  /* Closing the fd drops the lock. */
  if (self->fd >= 0)
    g_close (self->fd, NULL);
  g_free (self->dir);
  G_OBJECT_CLASS (sp_state_lock_parent_class)->finalize (object);
}

static void
sp_state_lock_class_init (SpStateLockClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sp_state_lock_finalize;
}

static void
sp_state_lock_init (SpStateLock *self)
{
  self->fd = -1;
}

char *
sp_state_lock_default_dir (void)
{
  return g_build_filename (g_get_user_state_dir (), "sandpad", NULL);
}

static gboolean
set_errno_error (GError **error, int saved, const char *path)
{
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path,
               g_strerror (saved));
  return FALSE;
}

/* The pid the holder wrote, or 0 when the file does not hold one yet
 * (the holder may be between taking the lock and writing it). */
static long
read_holder (int fd)
{
  char buf[32] = { 0 };
  ssize_t n = pread (fd, buf, sizeof buf - 1, 0);
  char *end = NULL;
  long pid;

  if (n <= 0)
    return 0;
  pid = strtol (buf, &end, 10);
  return end != buf && *end == '\n' && pid > 0 ? pid : 0;
}

static void
set_busy_error (GError **error, int fd, const char *dir)
{
  long pid = read_holder (fd);

  if (pid > 0)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY,
                 "%s is in use by another Sandpad (process %ld)", dir, pid);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, "%s is in use by another Sandpad", dir);
}

/* Our pid in the file, for the message of whoever loses the race next. */
static void
write_holder (int fd)
{
  g_autofree char *text = g_strdup_printf ("%ld\n", (long) getpid ());
  gsize len = strlen (text);

  if (ftruncate (fd, 0) != 0 || pwrite (fd, text, len, 0) != (ssize_t) len)
    g_debug ("cannot note our pid in the lock file: %s", g_strerror (errno));
}

SpStateLock *
sp_state_lock_acquire (const char *dir, GError **error)
{
  g_autoptr (SpStateLock) self = NULL;
  g_autofree char *path = NULL;
  int fd;

  g_return_val_if_fail (dir != NULL, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    return set_errno_error (error, errno, dir), NULL;
  path = g_build_filename (dir, LOCK_NAME, NULL);
  /* O_CLOEXEC: a runner or helper we start must not keep the lock after
   * we are gone. O_NOFOLLOW: the lock is ours, not a file a link names. */
  fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0)
    return set_errno_error (error, errno, path), NULL;
  self = g_object_new (SP_TYPE_STATE_LOCK, NULL);
  self->fd = fd;
  self->dir = g_strdup (dir);
  while (flock (fd, LOCK_EX | LOCK_NB) != 0)
    {
      int saved = errno;

      if (saved == EINTR)
        continue;
      if (saved == EWOULDBLOCK)
        set_busy_error (error, fd, dir);
      else
        set_errno_error (error, saved, path);
      return NULL;
    }
  write_holder (fd);
  return g_steal_pointer (&self);
}

const char *
sp_state_lock_get_dir (SpStateLock *self)
{
  g_return_val_if_fail (SP_IS_STATE_LOCK (self), NULL);
  return self->dir;
}

char *
sp_state_lock_dup_autosave_dir (SpStateLock *self)
{
  g_return_val_if_fail (SP_IS_STATE_LOCK (self), NULL);
  return g_build_filename (self->dir, "autosave", NULL);
}

char *
sp_state_lock_dup_session_path (SpStateLock *self)
{
  g_return_val_if_fail (SP_IS_STATE_LOCK (self), NULL);
  return g_build_filename (self->dir, "session.ini", NULL);
}
