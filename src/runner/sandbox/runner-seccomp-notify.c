/* runner-seccomp-notify.c: the run init's answer to a program's futimens
 * in fallback mode (see runner-seccomp-notify.h).
 *
 * The filter hands over utimensat(fd, NULL, times, flags) only; every
 * form with a path is refused by the filter itself. The init then:
 *
 *  1. reads the caller's thread group and file system ids from /proc and
 *     opens a pidfd of its process, then checks the notification is still
 *     pending (SECCOMP_IOCTL_NOTIF_ID_VALID): the caller waits in the call
 *     until answered, so a pending notification means the pid read was the
 *     caller's, not a process that took its number since;
 *  2. takes the file itself (pidfd_getfd), once: never lets the call go on
 *     by its number (SECCOMP_USER_NOTIF_FLAG_CONTINUE), which another thread
 *     could point at a read-only file between the check and the call;
 *  3. refuses (EPERM) unless that file is open for writing (a read-only
 *     fd is how the run reached files it may only read, and Landlock
 *     checked the open for writing) or is a directory, which cannot be
 *     opened for writing, beneath one Landlock lets the run write (its
 *     working directory, its tmp, a writable environment: the program
 *     sends them with the listener), found by walking its ".." links;
 *  4. reads the times from the caller's memory, checks the notification
 *     again, and sets them through its own fd with the caller's file system
 *     uid and gid, so the kernel applies its rules as for the caller
 *     (explicit times only on the caller's own files; a root init's fsuid
 *     change drops the capabilities that would pass over that), and the
 *     ownership is checked here too, in case the init holds a capability an
 *     fsuid change leaves.
 *
 * Anything else, or a step that fails, is EPERM (or the kernel's own errno
 * for a bad fd, flags or times). Should the init be gone, the kernel
 * answers a waiting caller ENOSYS: no run hangs on it. */
#include "runner-seccomp-notify.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "runner-util.h"

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* Not an errno: the notification is gone, nothing to answer. */
#define GONE (-1)

bool
runner_seccomp_notifies (const struct sock_fprog *prog)
{
  for (unsigned int i = 0; prog != NULL && i < prog->len; i++)
    if (prog->filter[i].code == (BPF_RET | BPF_K)
        && (prog->filter[i].k & SECCOMP_RET_ACTION_FULL) == SECCOMP_RET_USER_NOTIF)
      return true;
  return false;
}

typedef struct
{
  pid_t tgid;
  uid_t fsuid;
  gid_t fsgid;
} Caller;

/* "Uid:\tREAL\tEFFECTIVE\tSAVED\tFS": the last. */
static bool
fs_id (const char *status, const char *key, unsigned int *id)
{
  const char *line = strstr (status, key);
  unsigned int ids[4];

  if (line == NULL
      || sscanf (line + strlen (key), "%u %u %u %u", &ids[0], &ids[1], &ids[2], &ids[3]) != 4)
    return false;
  *id = ids[3];
  return true;
}

/* The calling thread's process and file system ids. */
static int
read_caller (pid_t tid, Caller *c)
{
  char path[64], status[4096];
  const char *line;
  unsigned int uid, gid;

  snprintf (path, sizeof path, "/proc/%d/status", (int) tid);
  cleanup_fd int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, status, sizeof status - 1) : -1;
  if (n <= 0)
    return -1;
  status[n] = '\0';
  line = strstr (status, "\nTgid:");
  if (line == NULL || sscanf (line + strlen ("\nTgid:"), "%d", &c->tgid) != 1 || c->tgid <= 0
      || !fs_id (status, "\nUid:", &uid) || !fs_id (status, "\nGid:", &gid))
    return -1;
  c->fsuid = uid;
  c->fsgid = gid;
  return 0;
}

static bool
still_pending (int listener, uint64_t id)
{
  return ioctl (listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* Explicit times need the file's owner; the current time (NULL, or both
 * UTIME_NOW) needs write access, which a file open for writing shows. */
static bool
explicit_times (const struct timespec *ts)
{
  return ts != NULL && !(ts[0].tv_nsec == UTIME_NOW && ts[1].tv_nsec == UTIME_NOW);
}

/* futimens on fd with the caller's file system ids. 0 or an errno. */
static int
futimens_as (int fd, const struct timespec *ts, const Caller *c)
{
  struct stat st;

  if (explicit_times (ts) && (fstat (fd, &st) != 0 || st.st_uid != c->fsuid))
    return EPERM;
  int old_gid = setfsgid (c->fsgid);
  int old_uid = setfsuid (c->fsuid);
  int err = 0;
  /* setfsuid says nothing of failure: an id of -1 only reads it back. */
  if ((uid_t) setfsuid ((uid_t) -1) != c->fsuid || (gid_t) setfsgid ((gid_t) -1) != c->fsgid)
    err = EPERM;
  else if (futimens (fd, ts) != 0)
    err = errno;
  setfsuid ((uid_t) old_uid);
  setfsgid ((gid_t) old_gid);
  return err;
}

/* The times the caller passed, from its memory, into ts: 0, or EFAULT. */
static int
read_times (pid_t tid, uint64_t address, struct timespec ts[2])
{
  struct iovec local = { .iov_base = ts, .iov_len = 2 * sizeof *ts };
  struct iovec remote = { .iov_base = (void *) (uintptr_t) address, .iov_len = 2 * sizeof *ts };

  return process_vm_readv (tid, &local, 1, &remote, 1, 0) == (ssize_t) (2 * sizeof *ts) ? 0
                                                                                        : EFAULT;
}

/* Whether the directory dir is one of writable or lies beneath one, by
 * its ".." links (the hierarchy Landlock's rules are on). */
static bool
beneath (int dir, const RunnerDirId *writable, size_t n_writable)
{
  cleanup_fd int at = fcntl (dir, F_DUPFD_CLOEXEC, 0);
  struct stat st, up_st;

  for (int depth = 0; at >= 0 && depth < 4096 && fstat (at, &st) == 0; depth++)
    {
      for (size_t i = 0; i < n_writable; i++)
        if (st.st_dev == writable[i].dev && st.st_ino == writable[i].ino)
          return true;
      int up = openat (at, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
      bool top = up < 0 || fstat (up, &up_st) != 0
                 || (up_st.st_dev == st.st_dev && up_st.st_ino == st.st_ino);
      close (at);
      at = up;
      if (top)
        return false;
    }
  return false;
}

/* The answer to utimensat: 0, an errno, or GONE. The kernel's own checks
 * come in its order (times, then the fd). */
static int
answer_utimensat (int listener, const struct seccomp_notif *req, const RunnerDirId *writable,
                  size_t n_writable)
{
  const struct seccomp_data *d = &req->data;
  int dirfd = (int) (uint32_t) d->args[0];
  struct timespec ts[2];
  Caller c;

  if (d->nr != SYS_utimensat || d->args[1] != 0)
    return EPERM; /* the filter hands over nothing else */
  /* A thread's id: pidfd_open takes its process's (Linux before 6.9), and
   * a thread shares its process's fds (a run cannot unshare them). */
  if (read_caller ((pid_t) req->pid, &c) != 0)
    return still_pending (listener, req->id) ? EPERM : GONE;
  cleanup_fd int pidfd = (int) syscall (SYS_pidfd_open, c.tgid, 0);
  if (!still_pending (listener, req->id))
    return GONE;
  if (pidfd < 0)
    return EPERM;
  if (d->args[2] != 0)
    {
      int err = read_times ((pid_t) req->pid, d->args[2], ts);
      if (err != 0 || (ts[0].tv_nsec == UTIME_OMIT && ts[1].tv_nsec == UTIME_OMIT))
        return err; /* both omitted: nothing to do, as the kernel says */
    }
  /* No path to look up; flags without a path. */
  if (dirfd == AT_FDCWD)
    return EFAULT;
  if ((uint32_t) d->args[3] != 0)
    return EINVAL;
  cleanup_fd int fd = (int) syscall (SYS_pidfd_getfd, pidfd, dirfd, 0);
  if (fd < 0)
    return errno == EBADF ? EBADF : EPERM;
  int flags = fcntl (fd, F_GETFL);
  if (flags < 0 || (flags & O_PATH) != 0)
    return EBADF; /* futimens refuses an O_PATH fd itself */
  /* Open for writing, which Landlock checked; or a directory (which
   * cannot be) beneath one Landlock lets the run write. */
  struct stat st;
  if ((flags & O_ACCMODE) != O_WRONLY && (flags & O_ACCMODE) != O_RDWR
      && (fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode) || !beneath (fd, writable, n_writable)))
    return EPERM;
  /* Still waiting: the times read were the caller's, not those of a
   * process that took its pid since. */
  if (!still_pending (listener, req->id))
    return GONE;
  return futimens_as (fd, d->args[2] != 0 ? ts : NULL, &c);
}

int
runner_seccomp_notify_answer (int listener, const RunnerDirId *writable, size_t n_writable)
{
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;

  memset (&req, 0, sizeof req);
  if (ioctl (listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
    /* EINTR, or ENOENT: the caller was killed before we read it. */
    return errno == EINTR || errno == ENOENT ? 0 : -1;
  int err = answer_utimensat (listener, &req, writable, n_writable);
  if (err == GONE)
    return 0;
  memset (&resp, 0, sizeof resp);
  resp.id = req.id;
  resp.error = -err;
  /* ENOENT: the caller went away since; nobody waits for the answer. */
  ioctl (listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
  return 0;
}
