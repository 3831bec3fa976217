/* runner-sockets.c: see runner-sockets.h. */
#include "runner-sockets.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner-util.h"

/* In a forked child: joins pid's user namespace (unless it is ours) and
 * network namespace, makes the socket there and sends it back. */
static void __attribute__ ((noreturn)) diag_helper (int reply, int user_fd, int net_fd)
{
  struct stat ours, theirs;

  if (fstat (user_fd, &theirs) != 0 || stat ("/proc/self/ns/user", &ours) != 0)
    _exit (1);
  if ((ours.st_dev != theirs.st_dev || ours.st_ino != theirs.st_ino)
      && setns (user_fd, CLONE_NEWUSER) != 0)
    _exit (1);
  if (setns (net_fd, CLONE_NEWNET) != 0)
    _exit (1);
  int fd = socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0 || send_with_fds (reply, "s", 1, &fd, 1) != 0)
    _exit (1);
  _exit (0);
}

bool
runner_sockets_pidfd_exited (int pidfd)
{
  struct pollfd pfd = { .fd = pidfd, .events = POLLIN };

  return poll (&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

/* The helper: a socket made in the namespaces of user_fd and net_fd. */
static int
diag_in (int user_fd, int net_fd)
{
  int sv[2];

  if (socketpair (AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    return -1;
  pid_t child = fork ();
  if (child == 0)
    {
      close (sv[0]);
      diag_helper (sv[1], user_fd, net_fd);
    }
  close (sv[1]);
  int fd = -1;
  char byte;
  if (child > 0 && recv_with_fds (sv[0], &byte, 1, &fd, 1) != 1)
    fd = -1;
  int errsv = errno;
  close (sv[0]);
  if (child > 0)
    while (waitpid (child, NULL, 0) < 0 && errno == EINTR)
      ;
  errno = child > 0 ? (fd < 0 ? EPERM : errsv) : errsv;
  return fd;
}

int
runner_sockets_open_diag (pid_t pid, int pidfd)
{
  if (pid == 0)
    return socket (AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);

  char path[64];
  snprintf (path, sizeof path, "/proc/%d/ns/user", (int) pid);
  cleanup_fd int user_fd = open (path, O_RDONLY | O_CLOEXEC);
  int user_errno = errno;
  snprintf (path, sizeof path, "/proc/%d/ns/net", (int) pid);
  cleanup_fd int net_fd = open (path, O_RDONLY | O_CLOEXEC);
  int net_errno = errno;
  /* After the opens, not before: see the header. */
  if (pidfd >= 0 && runner_sockets_pidfd_exited (pidfd))
    {
      errno = ESRCH;
      return -1;
    }
  if (user_fd < 0 || net_fd < 0)
    {
      int err = user_fd < 0 ? user_errno : net_errno;
      errno = err == ENOENT && pidfd >= 0 ? ESRCH : err;
      return -1;
    }
  return diag_in (user_fd, net_fd);
}

typedef struct
{
  uint64_t *ino;
  size_t n, cap;
} InodeSet;

static int
cmp_ino (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;

  return x < y ? -1 : x > y;
}

static bool
has_ino (const InodeSet *set, uint64_t ino)
{
  return bsearch (&ino, set->ino, set->n, sizeof ino, cmp_ino) != NULL;
}

/* A pipe or FIFO, by the file system and inode its fds name: forks share
 * their parents' pipes, and a pipe counts once. */
typedef struct
{
  uint64_t dev, ino;
} PipeKey;

typedef struct
{
  PipeKey *key;
  size_t n, cap;
} PipeSet;

static int
cmp_pipe (const void *a, const void *b)
{
  const PipeKey *x = a, *y = b;

  if (x->dev != y->dev)
    return x->dev < y->dev ? -1 : 1;
  return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static void
add_ino (InodeSet *set, uint64_t ino)
{
  if (set->n == set->cap)
    {
      set->cap = set->cap ? set->cap * 2 : 64;
      set->ino = xrealloc (set->ino, set->cap * sizeof *set->ino);
    }
  set->ino[set->n++] = ino;
}

static void
add_pipe (PipeSet *set, const struct stat *st)
{
  if (set->n == set->cap)
    {
      set->cap = set->cap ? set->cap * 2 : 64;
      set->key = xrealloc (set->key, set->cap * sizeof *set->key);
    }
  set->key[set->n++] = (PipeKey){ (uint64_t) st->st_dev, (uint64_t) st->st_ino };
}

/* The socket inodes one process holds, from the names of its fd links,
 * and its pipes: anonymous ones ("pipe:[ino]") and FIFOs it opened by
 * name (a path whose inode, through the fd, is a FIFO). stat through the
 * fd link gives the pipe's own inode, whatever the name says. */
static void
add_process_fds (InodeSet *set, PipeSet *pipes, pid_t pid)
{
  char path[64], target[64];

  snprintf (path, sizeof path, "/proc/%d/fd", (int) pid);
  DIR *dir = opendir (path);
  if (dir == NULL)
    return;
  for (struct dirent *e; (e = readdir (dir)) != NULL;)
    {
      unsigned long long ino;
      struct stat st;
      ssize_t len = readlinkat (dirfd (dir), e->d_name, target, sizeof target - 1);
      if (len <= 0)
        continue;
      target[len] = '\0';
      if (sscanf (target, "socket:[%llu]", &ino) == 1)
        add_ino (set, ino);
      else if ((strncmp (target, "pipe:[", 6) == 0 || target[0] == '/')
               && fstatat (dirfd (dir), e->d_name, &st, 0) == 0 && S_ISFIFO (st.st_mode))
        add_pipe (pipes, &st);
    }
  closedir (dir);
}

/* One socket of the dump: what it holds, if it is the run's. */
static int64_t
socket_bytes (const InodeSet *set, const struct nlmsghdr *h)
{
  const struct unix_diag_msg *m = NLMSG_DATA (h);
  int64_t wmem = 0, rqueue = 0;
  uint64_t peer = 0;

  if (h->nlmsg_len < NLMSG_LENGTH (sizeof *m) || !has_ino (set, m->udiag_ino))
    return 0;
  int len = (int) (h->nlmsg_len - NLMSG_LENGTH (sizeof *m));
  for (const struct rtattr *a = (const void *) (m + 1); RTA_OK (a, len); a = RTA_NEXT (a, len))
    {
      const void *data = RTA_DATA (a);
      size_t size = RTA_PAYLOAD (a);
      if (a->rta_type == UNIX_DIAG_MEMINFO
          && size >= (SK_MEMINFO_WMEM_ALLOC + 1) * sizeof (uint32_t))
        wmem = ((const uint32_t *) data)[SK_MEMINFO_WMEM_ALLOC];
      else if (a->rta_type == UNIX_DIAG_RQLEN && size >= sizeof (struct unix_diag_rqlen))
        rqueue = ((const struct unix_diag_rqlen *) data)->udiag_rqueue;
      else if (a->rta_type == UNIX_DIAG_PEER && size >= sizeof (uint32_t))
        peer = *(const uint32_t *) data;
    }
  /* A listening socket's "rqueue" is its backlog, not bytes. */
  if (m->udiag_state == 10 /* TCP_LISTEN */)
    rqueue = 0;
  /* What waits here was sent by a socket that is not the run's (its
   * sender's wmem is counted where the sender is the run's). */
  return wmem + (peer != 0 && has_ino (set, peer) ? 0 : rqueue);
}

static int64_t
dump (int diag_fd, const InodeSet *set)
{
  struct
  {
    struct nlmsghdr h;
    struct unix_diag_req r;
  } req = {
    .h = { .nlmsg_len = sizeof req,
           .nlmsg_type = SOCK_DIAG_BY_FAMILY,
           .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
           .nlmsg_seq = (uint32_t) now_ns () },
    .r = { .sdiag_family = AF_UNIX,
           .udiag_states = ~0U,
           .udiag_show = UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN | UDIAG_SHOW_MEMINFO },
  };
  struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
  long buf[8192 / sizeof (long)];
  int64_t total = 0;

  if (sendto (diag_fd, &req, sizeof req, 0, (struct sockaddr *) &kernel, sizeof kernel) < 0)
    return -1;
  for (;;)
    {
      ssize_t n = recv (diag_fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      int len = (int) n;
      for (struct nlmsghdr *h = (void *) buf; NLMSG_OK (h, (unsigned) len); h = NLMSG_NEXT (h, len))
        {
          /* Left over from a dump that failed half-way. */
          if (h->nlmsg_seq != req.h.nlmsg_seq)
            continue;
          if (h->nlmsg_type == NLMSG_DONE)
            return total;
          if (h->nlmsg_type == NLMSG_ERROR)
            return -1;
          if (h->nlmsg_type == SOCK_DIAG_BY_FAMILY)
            total += socket_bytes (set, h);
        }
    }
}

/* What one pipe can hold: the kernel's default of 16 slots, each a page
 * (a run cannot grow a pipe past 64 KiB, runner-seccomp.c, nor gift pages
 * into one, vmsplice is not allowed). How full it is cannot be read from
 * outside without opening the pipe, and a slot pins its page whatever few
 * bytes it holds, so every pipe counts as full. */
static int64_t
pipe_capacity (void)
{
  long page = sysconf (_SC_PAGESIZE);

  return 16 * (int64_t) (page > 0 ? page : 4096);
}

int64_t
runner_sockets_bytes (int diag_fd, const pid_t *pids, size_t n, int64_t *pipe_bytes)
{
  InodeSet set = { 0 };
  PipeSet pipes = { 0 };
  int64_t total = 0;

  *pipe_bytes = 0;
  if (diag_fd < 0)
    return -1;
  for (size_t i = 0; i < n; i++)
    add_process_fds (&set, &pipes, pids[i]);
  if (pipes.n > 0)
    {
      size_t distinct = 1;

      qsort (pipes.key, pipes.n, sizeof *pipes.key, cmp_pipe);
      for (size_t i = 1; i < pipes.n; i++)
        if (cmp_pipe (&pipes.key[i - 1], &pipes.key[i]) != 0)
          distinct++;
      *pipe_bytes = (int64_t) distinct * pipe_capacity ();
    }
  if (set.n > 0)
    {
      qsort (set.ino, set.n, sizeof *set.ino, cmp_ino);
      total = dump (diag_fd, &set);
      /* Once more: a dump can fail for want of memory (ENOBUFS). */
      if (total < 0)
        total = dump (diag_fd, &set);
    }
  free (set.ino);
  free (pipes.key);
  return total;
}
