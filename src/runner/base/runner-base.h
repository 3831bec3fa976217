/* runner-base.h: the runner service's base helpers, on top of the
 * sandbox's own (runner-util.h), which the boundary does not use: fatal
 * errors with errno, more allocation, stealing cleanup-owned values, fd
 * flags, removing a tree without following symlinks, and the rest of Buf.
 * Kept out of sandbox/ so that directory is exactly the boundary. */
#pragma once

#include <sys/stat.h>

#include "runner-util.h"

static inline void *
steal_pointer_ (void *pp)
{
  void **ptr = pp;
  void *ref = *ptr;
  *ptr = NULL;
  return ref;
}
#define steal_pointer(pp) ((__typeof__ (*(pp))) steal_pointer_ (pp))

static inline int
steal_fd (int *fdp)
{
  int fd = *fdp;
  *fdp = -1;
  return fd;
}

void die_with_error (const char *fmt, ...) __attribute__ ((noreturn, format (printf, 1, 2)));

void *xcalloc (size_t n, size_t size);
char *xstrdup (const char *s);

/* Appends a copy of s to the NULL-terminated v (NULL for none); returns
 * the grown vector. */
char **strv_add (char **v, const char *s);

int set_nonblocking (int fd, bool nonblocking);

/* openat beneath dir_fd alone (O_CLOEXEC added): never through a symlink
 * (nor /proc's magic ones), never onto another mount, never out of it,
 * so what a program put there since cannot lead the runner elsewhere. */
int openat_beneath (int dir_fd, const char *name, int flags, mode_t mode);

/* Removes a directory tree of any depth without following symlinks, with
 * bounded recursion and fds; a program may have left unreadable or
 * unwritable directories behind, so permissions are fixed on the way. */
int remove_tree (const char *path);

/* Opens fd's "..", checking it is the directory (dev, ino) we came down
 * from; -1 with errno ESTALE if it is not (it was moved meanwhile). */
int open_parent_checked (int fd, dev_t dev, ino_t ino);

/* Sets the mode of the directory parent/name without following a symlink:
 * through an O_PATH fd (which needs no permission on the directory) and
 * its /proc link, since fchmod does not work on O_PATH and fchmodat
 * follows. Returns -1 with errno set. */
int dir_chmod_at (int parent, const char *name, mode_t mode);

void buf_consume (Buf *buf, size_t len);
void buf_clear (Buf *buf);
