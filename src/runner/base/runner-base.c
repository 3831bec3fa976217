/* runner-base.c: the service's base helpers, which the sandbox does not
 * use (moved out of sandbox/runner-util.c so that the boundary's library
 * holds only what the boundary runs). */
#include "runner-base.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

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
xcalloc (size_t n, size_t size)
{
  void *p = calloc (n ? n : 1, size ? size : 1);
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

char **
strv_add (char **v, const char *s)
{
  size_t n = 0;

  while (v != NULL && v[n] != NULL)
    n++;
  v = xrealloc (v, (n + 2) * sizeof *v);
  v[n] = xstrdup (s);
  v[n + 1] = NULL;
  return v;
}

int
openat_beneath (int dir_fd, const char *name, int flags, mode_t mode)
{
  struct open_how how = {
    .flags = (uint64_t) flags | O_CLOEXEC,
    .mode = mode,
    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
  };

  return (int) syscall (SYS_openat2, dir_fd, name, &how, sizeof how);
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

int
open_parent_checked (int fd, dev_t dev, ino_t ino)
{
  struct stat st;
  int parent = openat (fd, "..", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  if (parent < 0)
    return -1;
  if (fstat (parent, &st) != 0 || st.st_dev != dev || st.st_ino != ino)
    {
      close (parent);
      errno = ESTALE;
      return -1;
    }
  return parent;
}

int
dir_chmod_at (int parent, const char *name, mode_t mode)
{
  cleanup_fd int path_fd = openat (parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  char proc[64];

  if (path_fd < 0)
    return -1;
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", path_fd);
  return chmod (proc, mode);
}

/* Gives the owner rwx on a directory the run may have chmod'ed 000 or
 * 0500. */
static void
make_removable (int parent, const char *name)
{
  struct stat st;

  if (fstatat (parent, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR (st.st_mode)
      || (st.st_mode & 0700) == 0700)
    return;
  dir_chmod_at (parent, name, (st.st_mode & 07777) | 0700);
}

/* One directory on the way down: its name in its parent and who it is. */
typedef struct
{
  char *name;
  dev_t dev;
  ino_t ino;
} RemoveLevel;

/* Unlinks every non-directory in fd's directory and returns the name of
 * one subdirectory left in it (NULL: none, or an error with errno set). */
static char *
clear_files (int fd, int *err)
{
  int dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  DIR *dir = dup_fd >= 0 ? fdopendir (dup_fd) : NULL;
  struct dirent *entry;
  char *subdir = NULL;

  *err = 0;
  if (dir == NULL)
    {
      *err = errno;
      if (dup_fd >= 0)
        close (dup_fd);
      return NULL;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      struct stat st;

      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      if (fstatat (fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (!S_ISDIR (st.st_mode))
        {
          if (unlinkat (fd, entry->d_name, 0) != 0 && errno != ENOENT)
            *err = errno;
        }
      else if (subdir == NULL)
        subdir = xstrdup (entry->d_name);
    }
  closedir (dir);
  return subdir;
}

/* Depth first without recursion and with two fds at most: the path down
 * is a stack of names and identities in memory, and the way back up is
 * "..", checked against the identity recorded on the way down, so a tree
 * of any depth goes and nothing outside it is touched even if a directory
 * were moved meanwhile. A directory is re-read after each subdirectory is
 * gone, which also catches entries that appeared while we were below. */
int
remove_tree (const char *path)
{
  RemoveLevel *stack = NULL;
  size_t depth = 0, cap = 0;
  struct stat st;
  int result = 0, err = 0;
  int fd;

  if (lstat (path, &st) != 0)
    return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR (st.st_mode))
    return unlink (path);
  make_removable (AT_FDCWD, path);
  fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || fstat (fd, &st) != 0)
    result = -1;
  while (result == 0)
    {
      cleanup_free char *sub = clear_files (fd, &err);

      if (sub != NULL)
        {
          struct stat sub_st;
          int sub_fd;

          make_removable (fd, sub);
          sub_fd = openat (fd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub_fd < 0 || fstat (sub_fd, &sub_st) != 0)
            {
              result = -1;
              break;
            }
          if (depth == cap)
            {
              cap = cap ? cap * 2 : 64;
              stack = xrealloc (stack, cap * sizeof *stack);
            }
          stack[depth++] = (RemoveLevel){ steal_pointer (&sub), st.st_dev, st.st_ino };
          close (fd);
          fd = sub_fd;
          st = sub_st;
          continue;
        }
      if (err != 0)
        {
          errno = err;
          result = -1;
          break;
        }
      if (depth == 0)
        break;

      /* This directory is empty: back up to its parent and remove it. */
      RemoveLevel *up = &stack[--depth];
      int parent = open_parent_checked (fd, up->dev, up->ino);
      close (fd);
      fd = parent;
      if (fd < 0 || fstat (fd, &st) != 0)
        result = -1;
      else if (unlinkat (fd, up->name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        result = -1;
      free (up->name);
    }
  if (fd >= 0)
    close (fd);
  for (size_t i = 0; i < depth; i++)
    free (stack[i].name);
  free (stack);
  if (result != 0)
    return -1;
  return rmdir (path);
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
