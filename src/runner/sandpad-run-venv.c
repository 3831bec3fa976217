/* sandpad-run-venv.c: `sandpad-run --create-venv DIR`, a Python
 * environment that `--install` then accepts.
 *
 * Installs run as the uid programs run as (runner-install.c refuses an
 * environment another uid owns, rather than let pip fail half-way): the
 * caller's own, or nobody's when the runner is root. So a root caller
 * (the app in a root session, CI) that made the venv with python3 -m venv
 * got one its installs refused. Here the folder is made and held as an fd
 * first, python3 -m venv fills it from inside (its cwd), and under root
 * the tree is handed to nobody through that fd, each entry by its parent
 * fd, links never followed: a path swapped while venv runs changes
 * nothing that is handed over. */
#include "sandpad-run-venv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-sandbox.h"

#define EXIT_SANDPAD 125
/* Debian's, as the app's and the warm pool's. */
#define SYSTEM_PYTHON "/usr/bin/python3"
/* A venv is a few levels deep; a tree deeper than this is not one. */
#define MAX_DEPTH 32

/* Every entry beneath dir_fd, then dir_fd itself, to uid. */
static int
give_tree (int dir_fd, uid_t uid, int depth)
{
  int fd;
  DIR *dir;
  struct dirent *entry;
  int result = 0;

  if (depth > MAX_DEPTH || (fd = dup (dir_fd)) < 0)
    return -1;
  dir = fdopendir (fd);
  if (dir == NULL)
    {
      close (fd);
      return -1;
    }
  while (result == 0 && (errno = 0, entry = readdir (dir)) != NULL)
    {
      struct stat st;

      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      if (fstatat (dirfd (dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0
          || fchownat (dirfd (dir), entry->d_name, uid, uid, AT_SYMLINK_NOFOLLOW) != 0)
        result = -1;
      else if (S_ISDIR (st.st_mode))
        {
          int sub = openat (dirfd (dir), entry->d_name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          result = sub >= 0 ? give_tree (sub, uid, depth + 1) : -1;
          if (sub >= 0)
            close (sub);
        }
    }
  if (entry == NULL && errno != 0)
    result = -1;
  closedir (dir);
  return result == 0 ? fchown (dir_fd, uid, uid) : -1;
}

/* python3 -m venv in the folder held by fd (as its cwd, so it never
 * looks the folder up by name). Returns its exit status, or -1. */
static int
run_venv (int fd)
{
  int status = 0;
  pid_t child = fork ();

  if (child == 0)
    {
      /* argv[0] its full path: Python finds its own executable by looking
       * argv[0] up in PATH, and venv writes that into pyvenv.cfg as the
       * base (a pyenv shim first in PATH made a venv the runner refuses). */
      if (fchdir (fd) != 0)
        _exit (127);
      execl (SYSTEM_PYTHON, SYSTEM_PYTHON, "-m", "venv", "--system-site-packages", ".",
             (char *) NULL);
      fprintf (stderr, "sandpad: cannot run %s: %s\n", SYSTEM_PYTHON, strerror (errno));
      _exit (127);
    }
  if (child < 0)
    return -1;
  while (waitpid (child, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

int
sandpad_run_create_venv (int argc, char **argv)
{
  char *path, *slash, *name;
  const char *parent;
  int parent_fd, fd, status, exit_status = 1;

  bool help = argc == 3 && strcmp (argv[2], "--help") == 0;

  if (help || argc != 3 || argv[2][0] == '\0')
    {
      fputs ("Usage: sandpad-run --create-venv DIR\n"
             "Make DIR, a new folder, a Python environment (python3 -m venv\n"
             "--system-site-packages) that sandpad-run --install fills: owned by the\n"
             "uid programs run as (nobody's when run as root).\n",
             help ? stdout : stderr);
      return help ? 0 : EXIT_SANDPAD;
    }
  path = xstrdup (argv[2]);
  while (strlen (path) > 1 && path[strlen (path) - 1] == '/')
    path[strlen (path) - 1] = '\0';
  slash = strrchr (path, '/');
  name = slash ? slash + 1 : path;
  parent = slash == NULL ? "." : slash == path ? "/" : path;
  if (slash != NULL)
    *slash = '\0';
  if (name[0] == '\0' || strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
    {
      fprintf (stderr, "sandpad: %s does not name a new folder\n", argv[2]);
      free (path);
      return EXIT_SANDPAD;
    }
  parent_fd = open (parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd < 0 || mkdirat (parent_fd, name, 0755) != 0)
    {
      fprintf (stderr, "sandpad: cannot make %s: %s\n", argv[2],
               errno == EEXIST ? "it already exists" : strerror (errno));
      if (parent_fd >= 0)
        close (parent_fd);
      free (path);
      return 1;
    }
  fd = openat (parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  close (parent_fd);
  free (path);
  if (fd < 0)
    {
      fprintf (stderr, "sandpad: cannot open %s: %s\n", argv[2], strerror (errno));
      return 1;
    }
  status = run_venv (fd);
  if (status != 0)
    fprintf (stderr, "sandpad: python3 -m venv failed (exit status %d)\n", status);
  else if (geteuid () == 0 && give_tree (fd, RUNNER_SANDBOX_NOBODY, 0) != 0)
    fprintf (stderr, "sandpad: cannot give %s to uid %d, which runs installs: %s\n", argv[2],
             RUNNER_SANDBOX_NOBODY, strerror (errno));
  else
    {
      printf ("sandpad: created %s\n", argv[2]);
      exit_status = 0;
    }
  close (fd);
  return exit_status;
}
