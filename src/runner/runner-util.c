/* runner-util.c: small helpers for the runner. */
#include "runner-util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void
die (const char *fmt, ...)
{
  va_list args;

  fputs ("sandpad-runner: ", stderr);
  va_start (args, fmt);
  vfprintf (stderr, fmt, args);
  va_end (args);
  fputc ('\n', stderr);
  exit (125);
}

void
die_with_error (const char *fmt, ...)
{
  int errsv = errno; /* save before any call can clobber it */
  va_list args;

  fputs ("sandpad-runner: ", stderr);
  va_start (args, fmt);
  vfprintf (stderr, fmt, args);
  va_end (args);
  fprintf (stderr, ": %s\n", strerror (errsv));
  exit (125);
}

void *
xmalloc (size_t size)
{
  void *p = malloc (size ? size : 1);
  if (p == NULL)
    die ("out of memory");
  return p;
}

void *
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size ? size : 1);
  if (p == NULL)
    die ("out of memory");
  return p;
}

void *
xrealloc (void *ptr, size_t size)
{
  void *p = realloc (ptr, size ? size : 1);
  if (p == NULL)
    die ("out of memory");
  return p;
}

char *
xstrdup (const char *s)
{
  char *p;

  if (s == NULL)
    return NULL;
  p = strdup (s);
  if (p == NULL)
    die ("out of memory");
  return p;
}

char *
xasprintf (const char *fmt, ...)
{
  va_list args;
  char *s = NULL;

  va_start (args, fmt);
  if (vasprintf (&s, fmt, args) < 0)
    die ("out of memory");
  va_end (args);
  return s;
}

int
write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;

  while (len > 0)
    {
      ssize_t n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      p += n;
      len -= (size_t) n;
    }
  return 0;
}

int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
set_nonblocking (int fd, bool nonblocking)
{
  int flags = fcntl (fd, F_GETFL);

  if (flags < 0)
    return -1;
  flags = nonblocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
  return fcntl (fd, F_SETFL, flags);
}

static int
remove_tree_at (int parent, const char *name, int depth)
{
  struct stat st;

  if (fstatat (parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR (st.st_mode) || depth > 256)
    return unlinkat (parent, name, 0);

  /* A run may chmod 000 its own directories; undo it through an fd opened
   * without following symlinks (fchmodat would follow one). O_PATH needs
   * no read permission; fchmod on it does not work, so go via /proc. */
  int fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == EACCES)
    {
      int path_fd = openat (parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (path_fd >= 0)
        {
          char proc[64];
          snprintf (proc, sizeof proc, "/proc/self/fd/%d", path_fd);
          chmod (proc, 0700);
          close (path_fd);
        }
      fd = openat (parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
  if (fd >= 0)
    {
      DIR *dir = fdopendir (fd);
      struct dirent *entry;

      if (dir == NULL)
        close (fd);
      else
        {
          while ((entry = readdir (dir)) != NULL)
            if (strcmp (entry->d_name, ".") != 0 && strcmp (entry->d_name, "..") != 0)
              remove_tree_at (dirfd (dir), entry->d_name, depth + 1);
          closedir (dir);
        }
    }
  return unlinkat (parent, name, AT_REMOVEDIR);
}

int
remove_tree (const char *path)
{
  return remove_tree_at (AT_FDCWD, path, 0);
}

void
buf_append (Buf *buf, const void *data, size_t len)
{
  if (len == 0)
    return;
  if (buf->len + len > buf->cap)
    {
      size_t cap = buf->cap ? buf->cap : 256;
      while (cap < buf->len + len)
        cap *= 2;
      buf->data = xrealloc (buf->data, cap);
      buf->cap = cap;
    }
  memcpy (buf->data + buf->len, data, len);
  buf->len += len;
}

void
buf_consume (Buf *buf, size_t len)
{
  if (len >= buf->len)
    {
      buf->len = 0;
      return;
    }
  memmove (buf->data, buf->data + len, buf->len - len);
  buf->len -= len;
}

void
buf_clear (Buf *buf)
{
  free (buf->data);
  buf->data = NULL;
  buf->len = buf->cap = 0;
}
