/* runner-venv.c: finding and checking a run's environment; see the header. */
#include "runner-venv.h"

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "runner-base.h"

const char *const runner_venv_system_dirs[] = { "/usr/bin", "/usr/local/bin", NULL };

bool
runner_env_within (const char *path, const char *dir)
{
  size_t len = strlen (dir);

  if (strcmp (dir, "/") == 0)
    return path[0] == '/';
  return strncmp (path, dir, len) == 0 && (path[len] == '\0' || path[len] == '/');
}

static bool
is_dir (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

static bool
is_venv (const char *dir)
{
  cleanup_free char *cfg = xasprintf ("%s/pyvenv.cfg", dir);
  struct stat st;

  return is_dir (dir) && stat (cfg, &st) == 0 && S_ISREG (st.st_mode);
}

static bool
is_node_modules (const char *dir)
{
  return is_dir (dir);
}

/* Walks from start up to stop, trying each name in each directory. */
static char *
find_up (const char *start_dir, const char *stop_dir, const char *const *names,
         bool (*accept) (const char *))
{
  cleanup_free char *dir = realpath (start_dir, NULL);
  cleanup_free char *stop = stop_dir ? realpath (stop_dir, NULL) : xstrdup ("/");

  if (dir == NULL || stop == NULL)
    return NULL;
  bool inside = runner_env_within (dir, stop);
  for (;;)
    {
      for (size_t i = 0; names[i] != NULL; i++)
        {
          cleanup_free char *candidate = xasprintf ("%s/%s", strcmp (dir, "/") == 0 ? "" : dir,
                                                    names[i]);
          if (accept (candidate))
            return realpath (candidate, NULL);
        }
      /* Up to the workspace root, and never above it. */
      if (!inside || strcmp (dir, stop) == 0 || strcmp (dir, "/") == 0)
        return NULL;
      char *slash = strrchr (dir, '/');
      if (slash == dir)
        slash[1] = '\0';
      else
        *slash = '\0';
    }
}

char *
runner_venv_find (const char *start_dir, const char *stop_dir)
{
  static const char *const names[] = { ".venv", "venv", NULL };

  return find_up (start_dir, stop_dir, names, is_venv);
}

char *
runner_node_modules_find (const char *start_dir, const char *stop_dir)
{
  static const char *const names[] = { "node_modules", NULL };

  return find_up (start_dir, stop_dir, names, is_node_modules);
}

static int refuse (char *msg, size_t msg_len, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

static int
refuse (char *msg, size_t msg_len, const char *fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  vsnprintf (msg, msg_len, fmt, args);
  va_end (args);
  return -1;
}

static bool
in_system_dir (const char *canonical)
{
  for (size_t i = 0; runner_venv_system_dirs[i] != NULL; i++)
    {
      const char *dir = runner_venv_system_dirs[i];
      size_t len = strlen (dir);
      /* Directly in it: /usr/bin/python3.11, not /usr/bin/x/python. */
      if (strncmp (canonical, dir, len) == 0 && canonical[len] == '/'
          && strchr (canonical + len + 1, '/') == NULL)
        return true;
    }
  return false;
}

char *
runner_venv_cfg_get (const char *dir, const char *key)
{
  size_t key_len = strlen (key);
  cleanup_free char *cfg = xasprintf ("%s/pyvenv.cfg", dir);
  cleanup_fd int fd = open (cfg, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  char text[4097];
  struct stat st;
  ssize_t n;

  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    return NULL;
  n = read (fd, text, sizeof text - 1);
  if (n <= 0)
    return NULL;
  text[n] = '\0';
  for (char *line = strtok (text, "\n"); line != NULL; line = strtok (NULL, "\n"))
    {
      line += strspn (line, " \t");
      if (strncmp (line, key, key_len) != 0)
        continue;
      char *p = line + key_len;
      p += strspn (p, " \t");
      if (*p != '=')
        continue;
      p++;
      p += strspn (p, " \t");
      size_t len = strlen (p);
      while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t' || p[len - 1] == '\r'))
        p[--len] = '\0';
      return xstrdup (p);
    }
  return NULL;
}

static int
check_venv (const char *dir, RunnerEnv *env, char *msg, size_t msg_len)
{
  cleanup_free char *home = NULL;
  cleanup_free char *home_real = NULL;
  cleanup_free char *python = xasprintf ("%s/bin/python", dir);
  cleanup_free char *base = NULL;
  struct stat st;

  if (!is_venv (dir))
    return refuse (msg, msg_len, "%.200s is not a Python virtual environment (no pyvenv.cfg)", dir);
  home = runner_venv_cfg_get (dir, "home");
  if (home == NULL)
    return refuse (msg, msg_len, "%.200s/pyvenv.cfg names no \"home\" interpreter directory", dir);
  home_real = realpath (home, NULL);
  bool home_ok = false;
  for (size_t i = 0; home_real != NULL && runner_venv_system_dirs[i] != NULL; i++)
    home_ok |= strcmp (home_real, runner_venv_system_dirs[i]) == 0;
  if (!home_ok)
    return refuse (msg, msg_len,
                   "the environment %.200s is based on %.200s, which is not one of the "
                   "system's interpreter directories (/usr/bin, /usr/local/bin); make it with "
                   "/usr/bin/python3 -m venv",
                   dir, home);
  if (lstat (python, &st) != 0)
    return refuse (msg, msg_len, "the environment %.200s has no bin/python", dir);
  /* A copy (venv --copies) or a script in its place is an executable the
   * system's package manager never installed. */
  if (!S_ISLNK (st.st_mode))
    return refuse (msg, msg_len,
                   "%.200s/bin/python is not a link to a system interpreter (a copy or a "
                   "script); make the environment with /usr/bin/python3 -m venv, without "
                   "--copies",
                   dir);
  base = realpath (python, NULL);
  if (base == NULL || !in_system_dir (base) || strncmp (strrchr (base, '/'), "/python", 7) != 0
      || stat (base, &st) != 0 || !S_ISREG (st.st_mode) || access (base, X_OK) != 0)
    return refuse (msg, msg_len,
                   "%.200s/bin/python resolves to %.200s, which is not one of the system's "
                   "interpreters (in /usr/bin or /usr/local/bin)",
                   dir, base ? base : "nothing");
  env->python = steal_pointer (&python);
  env->base = steal_pointer (&base);
  return 0;
}

int
runner_env_check (const char *language, const char *path, RunnerEnv *env, char *msg, size_t msg_len)
{
  cleanup_free char *dir = realpath (path, NULL);
  struct stat st;

  *env = (RunnerEnv){ 0 };
  if (dir == NULL)
    return refuse (msg, msg_len, "environment %.200s: %s", path, strerror (errno));
  /* What is checked below is this directory: its id is taken first, from
   * an fd of the canonical name with no symlink in it, and the sandbox
   * binds and grants only a directory with that id. */
  cleanup_fd int fd = open_no_symlinks (dir, O_PATH | O_DIRECTORY);
  if (strcmp (dir, "/") == 0 || fd < 0 || fstat (fd, &st) != 0)
    return refuse (msg, msg_len, "environment %.200s is not a directory other than /", path);
  /* The system's own directories are never an environment to bind. */
  for (size_t i = 0; runner_venv_system_dirs[i] != NULL; i++)
    if (runner_env_within (runner_venv_system_dirs[i], dir))
      return refuse (msg, msg_len, "environment %.200s holds the system's interpreters", dir);
  /* A bash run (a command) gets a venv activated, as `activate` would:
   * its python and scripts first on PATH. */
  if (strcmp (language, "python") == 0 || strcmp (language, "bash") == 0)
    {
      env->kind = RUNNER_ENV_PYTHON_VENV;
      if (check_venv (dir, env, msg, msg_len) != 0)
        {
          runner_env_clear (env);
          return -1;
        }
    }
  else if (strcmp (language, "javascript") == 0)
    {
      const char *slash = strrchr (dir, '/');
      env->kind = RUNNER_ENV_NODE_MODULES;
      if (strcmp (slash + 1, "node_modules") != 0)
        return refuse (msg, msg_len,
                       "a JavaScript environment is a node_modules directory; %.200s is not", dir);
    }
  else
    return refuse (msg, msg_len, "language \"%.64s\" has no environments", language);
  /* The name still leads to the directory checked (no swap meanwhile). */
  struct stat now;
  cleanup_fd int again = open_no_symlinks (dir, O_PATH | O_DIRECTORY);
  if (again < 0 || fstat (again, &now) != 0 || now.st_dev != st.st_dev || now.st_ino != st.st_ino)
    {
      runner_env_clear (env);
      return refuse (msg, msg_len, "environment %.200s changed while it was checked", dir);
    }
  env->dev = st.st_dev;
  env->ino = st.st_ino;
  env->dir = steal_pointer (&dir);
  return 0;
}

void
runner_env_clear (RunnerEnv *env)
{
  free (env->dir);
  free (env->python);
  free (env->base);
  *env = (RunnerEnv){ 0 };
}
