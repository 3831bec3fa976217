/* runner-util.h: small helpers for the runner, bubblewrap style.
 *
 * The runner links no GLib on purpose: it sits at the security boundary
 * and should be readable in one sitting. These helpers give it cleanup
 * attributes, checked allocation and a growable byte buffer: only what
 * the sandbox uses; the service's own are in ../base/runner-base.h. */
#pragma once

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

/* A directory as the runner checked it; ino 0: not checked (looked up by
 * name, the runner's own directories only). The sandbox binds, and gives
 * Landlock, a directory only while its name still leads to this one. */
typedef struct
{
  dev_t dev;
  ino_t ino;
} RunnerDirId;

#define N_ELEMENTS(a) (sizeof (a) / sizeof ((a)[0]))

static inline void
cleanup_freep (void *p)
{
  void **pp = p;
  free (*pp);
}

static inline void
cleanup_fdp (int *fdp)
{
  if (*fdp >= 0)
    {
      int errsv = errno;
      close (*fdp);
      errno = errsv;
    }
}

#define cleanup_free __attribute__ ((cleanup (cleanup_freep)))
#define cleanup_fd __attribute__ ((cleanup (cleanup_fdp)))

/* Fatal errors are only for setup, before the runner serves anyone. */
void die (const char *fmt, ...) __attribute__ ((noreturn, format (printf, 1, 2)));

void *xmalloc (size_t size);
void *xrealloc (void *ptr, size_t size);
char *xasprintf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Writes everything, retrying on EINTR; for blocking fds only. */
int write_all (int fd, const void *buf, size_t len);
/* Writes text to the file path (relative to the directory fd dir, or
 * AT_FDCWD), which must exist: a /proc or cgroup file. 0, or -1 with
 * errno set (the open's ENOENT included). */
int write_file_at (int dir, const char *path, const char *text);

/* Passing fds over a unix socket (SCM_RIGHTS), one message at a time.
 * send: all of data and the n fds, retrying on EINTR, no SIGPIPE; 0 or -1
 * with errno set. recv: one message and exactly n fds (close-on-exec):
 * its length, 0 at EOF, or -1 with errno set (EBADMSG, the fds that came
 * closed, for a truncated message or another number of fds). At most
 * RUNNER_MAX_PASSED_FDS fds. */
#define RUNNER_MAX_PASSED_FDS 8
int send_with_fds (int sock, const void *data, size_t len, const int *fds, size_t n);
ssize_t recv_with_fds (int sock, void *buf, size_t size, int *fds, size_t n);
/* The same with min to max fds (at most RUNNER_MAX_PASSED_FDS); *n_fds
 * says how many came. */
ssize_t recv_with_some_fds (int sock, void *buf, size_t size, int *fds, size_t min, size_t max,
                            size_t *n_fds);

/* Monotonic clock in nanoseconds. */
int64_t now_ns (void);

/* Opens a canonical path refusing a symlink in any component (openat2
 * RESOLVE_NO_SYMLINKS; before Linux 5.6 only the last component is
 * checked). O_CLOEXEC is always added. */
int open_no_symlinks (const char *path, int flags);

/* A growable byte buffer. */
typedef struct
{
  char *data;
  size_t len;
  size_t cap;
} Buf;

void buf_append (Buf *buf, const void *data, size_t len);
