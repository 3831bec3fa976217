/* runner-policy.c: which host paths a request may name; see the header. */
#include "runner-policy.h"

#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "runner-base.h"

int
runner_policy_allow (char ***list, const char *dir)
{
  char *canonical = realpath (dir, NULL);
  struct stat st;
  size_t n = 0;

  if (canonical == NULL)
    return -1;
  /* "/" would allow everything; a file is not a directory of anything. */
  if (strcmp (canonical, "/") == 0 || stat (canonical, &st) != 0 || !S_ISDIR (st.st_mode))
    {
      free (canonical);
      errno = EINVAL;
      return -1;
    }
  while (*list != NULL && (*list)[n] != NULL)
    n++;
  *list = xrealloc (*list, (n + 2) * sizeof **list);
  (*list)[n] = canonical;
  (*list)[n + 1] = NULL;
  return 0;
}

void
runner_policy_clear (RunnerPathPolicy *policy)
{
  sp_strv_free (policy->paths);
  sp_strv_free (policy->cwds);
  sp_strv_free (policy->environments);
  *policy = (RunnerPathPolicy){ 0 };
}

/* Whether canonical path equals dir or lies below it ("/a/bc" is not
 * below "/a/b"). Both are realpath results: no "..", no "//". */
static bool
within (const char *path, const char *dir)
{
  size_t len = strlen (dir);

  return strncmp (path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

static bool
within_any (const char *path, char *const *dirs)
{
  for (size_t i = 0; dirs != NULL && dirs[i] != NULL; i++)
    if (within (path, dirs[i]))
      return true;
  return false;
}

/* Whether the fd's current name, as the kernel tracks it, is path. */
static bool
fd_is_path (int fd, const char *path)
{
  char proc[64], name[PATH_MAX];
  ssize_t n;

  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  n = readlink (proc, name, sizeof name - 1);
  if (n < 0)
    return false;
  name[n] = '\0';
  return strcmp (name, path) == 0;
}

/* The checks cwd and path share: resolved, not "/", under an allowed
 * directory, and clear of the runner's own directory of runs (other runs'
 * code and files), whichever contains the other. */
static int
resolve_allowed (const char *field, const char *flag, char *const *allowed, const char *private_dir,
                 const char *name, SpProtoErrorCode missing, char **canonical, SpProtoError *err)
{
  if (allowed == NULL || allowed[0] == NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"%s\" is not allowed: this runner was started without %s",
                               field, flag);
  *canonical = realpath (name, NULL);
  if (*canonical == NULL)
    return sp_proto_set_error (err, missing, "field \"%s\": cannot resolve %.100s: %s", field, name,
                               strerror (errno));
  if (strcmp (*canonical, "/") == 0 || !within_any (*canonical, allowed))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"%s\": %.100s is outside the directories this runner "
                               "allows (%s)",
                               field, *canonical, flag);
  if (within (*canonical, private_dir) || within (private_dir, *canonical))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"%s\": %.100s overlaps the runner's own run directories",
                               field, *canonical);
  return 0;
}

int
runner_policy_check_cwd (const RunnerPathPolicy *policy, const char *private_dir, const char *cwd,
                         uid_t run_uid, char **canonical, int *dir_fd, SpProtoError *err)
{
  cleanup_free char *resolved = NULL;
  cleanup_fd int fd = -1;
  struct stat st;

  if (resolve_allowed ("cwd", "--allow-cwd", policy->cwds, private_dir, cwd, SP_ERR_INVALID_VALUE,
                       &resolved, err)
      != 0)
    return -1;
  fd = open_no_symlinks (resolved, O_PATH | O_DIRECTORY);
  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISDIR (st.st_mode))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"cwd\": %.100s: %s", resolved,
                               fd < 0 ? strerror (errno) : "not a directory");
  /* The run gets this directory writable (a bind mount in namespace
   * mode): only one that is already the run's own, never a shared or
   * system directory the run's uid happens to be able to write to. */
  if (!policy->cwd_any_owner && st.st_uid != run_uid)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"cwd\": %.100s is not owned by uid %d, which runs the "
                               "program",
                               resolved, (int) run_uid);
  /* realpath and the open are two lookups: a directory exchanged between
   * them (renameat2 RENAME_EXCHANGE) passes both. The fd's own name says
   * which directory we hold; it must be the one the checks above judged. */
  if (!fd_is_path (fd, resolved))
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"cwd\": %.100s changed while it was checked", resolved);
  *canonical = steal_pointer (&resolved);
  if (dir_fd != NULL)
    *dir_fd = steal_fd (&fd);
  return 0;
}

/* Opens and reads the file into *out (at most max_bytes + 1, so that a
 * larger file shows up as such); returns 0 or an errno (EISDIR for
 * anything but a regular file). */
static int
read_file (const char *path, size_t max_bytes, Buf *out)
{
  /* O_NONBLOCK: a FIFO must not hang us in open(); it is refused below. */
  cleanup_fd int fd = open_no_symlinks (path, O_RDONLY | O_NONBLOCK);
  struct stat st;
  char chunk[65536];
  ssize_t n;

  if (fd < 0 || fstat (fd, &st) != 0)
    return errno;
  if (!S_ISREG (st.st_mode))
    return EISDIR;
  while (out->len <= max_bytes && (n = read (fd, chunk, sizeof chunk)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return errno;
      buf_append (out, chunk, (size_t) n);
    }
  return 0;
}

/* A root runner reads as the run's uid, in a child that drops every
 * privilege first, so the kernel's own permission checks (directories on
 * the way, ACLs, modes) decide what the run could read: root's power to
 * read /etc/shadow never reaches a run. The child sends a 4-byte errno,
 * then the bytes. */
static int
read_file_as (uid_t uid, const char *path, size_t max_bytes, Buf *out)
{
  int fds[2];
  int32_t result = EIO;
  char chunk[65536];
  ssize_t n;

  if (pipe2 (fds, O_CLOEXEC) != 0)
    return errno;
  pid_t pid = fork ();
  if (pid < 0)
    {
      int errsv = errno;
      close (fds[0]);
      close (fds[1]);
      return errsv;
    }
  if (pid == 0)
    {
      Buf data = { 0 };
      close (fds[0]);
      if (setgroups (0, NULL) != 0 || setresgid (uid, uid, uid) != 0
          || setresuid (uid, uid, uid) != 0)
        result = errno;
      else
        result = read_file (path, max_bytes, &data);
      if (write_all (fds[1], &result, sizeof result) != 0
          || (result == 0 && write_all (fds[1], data.data, data.len) != 0))
        _exit (1);
      _exit (0);
    }
  close (fds[1]);
  Buf got = { 0 };
  while (got.len <= sizeof result + max_bytes && (n = read (fds[0], chunk, sizeof chunk)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        break;
      buf_append (&got, chunk, (size_t) n);
    }
  close (fds[0]);
  kill (pid, SIGKILL); /* it is done, or sending more than we take */
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
  if (got.len >= sizeof result)
    {
      memcpy (&result, got.data, sizeof result);
      if (result == 0)
        buf_append (out, got.data + sizeof result, got.len - sizeof result);
    }
  buf_clear (&got);
  return result;
}

int
runner_policy_read_path (const RunnerPathPolicy *policy, const char *private_dir, const char *path,
                         uid_t run_uid, size_t max_bytes, char **text, char **canonical,
                         SpProtoError *err)
{
  cleanup_free char *resolved = NULL;
  Buf buf = { 0 };
  int errnum;

  if (resolve_allowed ("path", "--allow-path", policy->paths, private_dir, path, SP_ERR_IO,
                       &resolved, err)
      != 0)
    return -1;
  errnum = geteuid () == 0 && run_uid != 0 ? read_file_as (run_uid, resolved, max_bytes, &buf)
                                           : read_file (resolved, max_bytes, &buf);
  if (errnum == EISDIR)
    {
      buf_clear (&buf);
      return sp_proto_set_error (err, SP_ERR_IO, "field \"path\": %.100s is not a regular file",
                                 resolved);
    }
  if (errnum != 0)
    {
      buf_clear (&buf);
      return sp_proto_set_error (err, SP_ERR_IO, "field \"path\": cannot read %.100s as uid %d: %s",
                                 resolved, (int) run_uid, strerror (errnum));
    }
  if (buf.len > max_bytes)
    {
      buf_clear (&buf);
      return sp_proto_set_error (err, SP_ERR_LIMIT,
                                 "field \"path\": %.100s is larger than %zu bytes", resolved,
                                 max_bytes);
    }
  if (memchr (buf.data, '\0', buf.len) != NULL)
    {
      buf_clear (&buf);
      return sp_proto_set_error (err, SP_ERR_IO, "field \"path\": %.100s is not text", resolved);
    }
  buf_append (&buf, "", 1);
  *text = steal_pointer (&buf.data);
  *canonical = steal_pointer (&resolved);
  return 0;
}
