/* runner-daemon-path.c: where the per-user resident runner listens. */
#include "runner-daemon-path.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "runner-base.h"

/* Ours alone: a directory (not a symlink to one), owned by us, that no
 * one else may enter or change. */
static int
check_dir (const char *path)
{
  cleanup_fd int fd = open (path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  struct stat st;

  if (fd < 0 || fstat (fd, &st) != 0)
    return -1;
  if (!S_ISDIR (st.st_mode) || st.st_uid != geteuid () || (st.st_mode & 077) != 0)
    {
      errno = EPERM;
      return -1;
    }
  return 0;
}

char *
runner_daemon_dir (void)
{
  const char *runtime = getenv ("XDG_RUNTIME_DIR");
  char *dir;

  /* Only an absolute runtime directory that is ours alone: a stale or
   * foreign value falls back to /tmp, made and checked the same way. */
  if (runtime != NULL && runtime[0] == '/' && check_dir (runtime) == 0)
    dir = xasprintf ("%s/sandpad", runtime);
  else
    dir = xasprintf ("/tmp/sandpad-%u", (unsigned) geteuid ());
  if ((mkdir (dir, 0700) != 0 && errno != EEXIST) || check_dir (dir) != 0)
    {
      int errsv = errno;
      free (dir);
      errno = errsv;
      return NULL;
    }
  return dir;
}

char *
runner_daemon_socket_name (const char *runner_path)
{
  struct stat st;
  uint64_t h = 1469598103934665603ULL;

  if (strcmp (runner_path, SANDPAD_LIBEXECDIR "/sandpad-runner") == 0)
    return xstrdup ("runner.sock");
  /* FNV-1a over the path and the file's identity: a rebuilt runner gets
   * a new socket, and its old daemon idles out alone. */
  for (const char *p = runner_path; *p; p++)
    h = (h ^ (unsigned char) *p) * 1099511628211ULL;
  if (stat (runner_path, &st) == 0)
    {
      uint64_t parts[] = { st.st_dev, st.st_ino, (uint64_t) st.st_mtim.tv_sec,
                           (uint64_t) st.st_mtim.tv_nsec, (uint64_t) st.st_size };
      for (size_t i = 0; i < N_ELEMENTS (parts); i++)
        h = (h ^ parts[i]) * 1099511628211ULL;
    }
  return xasprintf ("runner-%016llx.sock", (unsigned long long) h);
}
