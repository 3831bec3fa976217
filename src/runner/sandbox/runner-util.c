/* runner-util.c: the small base the sandbox itself uses (what the
 * service alone needs is in base/runner-base.c). */
#include "runner-util.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

void *
xmalloc (size_t size)
{
  void *p = malloc (size ? size : 1);
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

int
write_file_at (int dir, const char *path, const char *text)
{
  cleanup_fd int fd = openat (dir, path, O_WRONLY | O_CLOEXEC);

  if (fd < 0)
    return -1;
  return write_all (fd, text, strlen (text));
}

int
send_with_fds (int sock, const void *data, size_t len, const int *fds, size_t n)
{
  union
  {
    struct cmsghdr hdr;
    char space[CMSG_SPACE (RUNNER_MAX_PASSED_FDS * sizeof (int))];
  } control;
  struct iovec iov = { .iov_base = (void *) data, .iov_len = len };
  struct msghdr msg = { .msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.space,
                        .msg_controllen = CMSG_SPACE (n * sizeof (int)) };
  ssize_t sent;

  if (n == 0 || n > RUNNER_MAX_PASSED_FDS)
    {
      errno = EINVAL;
      return -1;
    }
  memset (&control, 0, sizeof control);
  struct cmsghdr *c = CMSG_FIRSTHDR (&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN (n * sizeof (int));
  memcpy (CMSG_DATA (c), fds, n * sizeof (int));
  do
    sent = sendmsg (sock, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent >= 0 && (size_t) sent != len)
    errno = EMSGSIZE;
  return sent >= 0 && (size_t) sent == len ? 0 : -1;
}

ssize_t
recv_with_fds (int sock, void *buf, size_t size, int *fds, size_t n)
{
  size_t n_got;

  return recv_with_some_fds (sock, buf, size, fds, n, n, &n_got);
}

ssize_t
recv_with_some_fds (int sock, void *buf, size_t size, int *fds, size_t min, size_t max,
                    size_t *n_fds)
{
  union
  {
    struct cmsghdr hdr;
    char space[CMSG_SPACE (RUNNER_MAX_PASSED_FDS * sizeof (int))];
  } control;
  struct iovec iov = { .iov_base = buf, .iov_len = size };
  struct msghdr msg = { .msg_iov = &iov,
                        .msg_iovlen = 1,
                        .msg_control = control.space,
                        .msg_controllen = sizeof control.space };
  int got[RUNNER_MAX_PASSED_FDS];
  size_t n_got = 0;
  ssize_t len;

  do
    len = recvmsg (sock, &msg, MSG_CMSG_CLOEXEC);
  while (len < 0 && errno == EINTR);
  if (len < 0)
    return -1;
  for (struct cmsghdr *c = CMSG_FIRSTHDR (&msg); c != NULL; c = CMSG_NXTHDR (&msg, c))
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
      {
        size_t k = (c->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        for (size_t i = 0; i < k && n_got < N_ELEMENTS (got); i++)
          memcpy (&got[n_got++], CMSG_DATA (c) + i * sizeof (int), sizeof (int));
      }
  if (len == 0 && n_got == 0)
    return 0;
  if ((msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 || n_got < min || n_got > max)
    {
      for (size_t i = 0; i < n_got; i++)
        close (got[i]);
      errno = EBADMSG;
      return -1;
    }
  memcpy (fds, got, n_got * sizeof (int));
  *n_fds = n_got;
  return len;
}

int64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
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

/* Opens a canonical path refusing a symlink in any component: realpath
 * resolved them all, so one found now was put there since, to swap the
 * target under us. Before openat2 (Linux 5.6), only the last component is
 * checked. */
int
open_no_symlinks (const char *path, int flags)
{
  /* openat2 takes no flag O_PATH ignores, O_NOCTTY among them. */
  if ((flags & O_PATH) == 0)
    flags |= O_NOCTTY;
  struct open_how how = {
    .flags = (uint64_t) (flags | O_CLOEXEC),
    .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
  };
  int fd = (int) syscall (SYS_openat2, AT_FDCWD, path, &how, sizeof how);

  if (fd < 0 && errno == ENOSYS)
    fd = open (path, flags | O_CLOEXEC | O_NOFOLLOW);
  return fd;
}
