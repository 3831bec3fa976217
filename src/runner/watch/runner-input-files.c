/* runner-input-files.c: files a front end hands a run (see
 * runner-input-files.h). */
#include "runner-input-files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-base.h"

/* A relative path of plain components: no "..", no ".", no empty part,
 * nothing absolute, so a file can only land beneath the directory. */
static bool
path_valid (const char *path)
{
  size_t len = strlen (path);

  if (len == 0 || len > RUNNER_INPUT_PATH_MAX || path[0] == '/' || path[len - 1] == '/')
    return false;
  for (const char *part = path; *part != '\0';)
    {
      size_t n = strcspn (part, "/");
      if (n == 0 || n > 255 || (n == 1 && part[0] == '.')
          || (n == 2 && part[0] == '.' && part[1] == '.'))
        return false;
      part += n + (part[n] == '/');
    }
  return true;
}

/* a is b, or a directory on b's way. */
static bool
path_covers (const char *a, const char *b)
{
  size_t len = strlen (a);

  return strncmp (a, b, len) == 0 && (b[len] == '\0' || b[len] == '/');
}

int
runner_input_files_check (const RunnerInputFile *files, size_t n, int64_t max_bytes,
                          SpProtoError *err)
{
  int64_t total = 0;

  if (n > RUNNER_INPUT_FILES_MAX)
    return sp_proto_set_error (err, SP_ERR_LIMIT, "more than %d input files",
                               RUNNER_INPUT_FILES_MAX);
  for (size_t i = 0; i < n; i++)
    {
      if (files[i].path == NULL || !path_valid (files[i].path))
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "input file %zu: its path must be relative, at most %d bytes, "
                                   "without empty, \".\" or \"..\" parts",
                                   i, RUNNER_INPUT_PATH_MAX);
      for (size_t j = 0; j < i; j++)
        if (path_covers (files[j].path, files[i].path)
            || path_covers (files[i].path, files[j].path))
          return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "input file %zu (\"%.200s\"): %s",
                                     i, files[i].path,
                                     strcmp (files[i].path, files[j].path) == 0
                                       ? "given twice"
                                       : "a file is given as a directory of another");
      total += (int64_t) files[i].len;
      if (max_bytes > 0 && total > max_bytes)
        return sp_proto_set_error (err, SP_ERR_LIMIT,
                                   "input files: %lld bytes or more, over the run's disk cap of "
                                   "%lld bytes (input files count toward it)",
                                   (long long) total, (long long) max_bytes);
    }
  return 0;
}

/* What stands at a path where the runner would not write, in words. */
static const char *
refusal (int errsv)
{
  switch (errsv)
    {
    case ELOOP:
      return "a symlink is there, and it is not followed";
    case ENOTDIR:
      return "a part of it is not a directory";
    case EISDIR:
      return "a directory is there";
    case ENXIO:
      return "a FIFO or socket is there";
    case EXDEV:
      return "it leads onto another mount";
    default:
      return strerror (errsv);
    }
}

/* The directory of path (all but its last part) beneath dir_fd, made
 * where missing; *last is the file's own name. */
static int
open_parent (int dir_fd, char *path, uid_t owner, char **last, SpProtoError *err, const char *shown)
{
  cleanup_fd int fd = openat_beneath (dir_fd, ".", O_PATH | O_DIRECTORY, 0);
  char *part = path;

  if (fd < 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot open the run's directory: %s",
                               strerror (errno));
  for (char *slash; (slash = strchr (part, '/')) != NULL; part = slash + 1)
    {
      *slash = '\0';
      bool made = mkdirat (fd, part, 0755) == 0;
      if (!made && errno != EEXIST)
        return sp_proto_set_error (err, SP_ERR_IO, "cannot create the directory of \"%.200s\": %s",
                                   shown, refusal (errno));
      /* No O_NOFOLLOW: with O_DIRECTORY it would call a symlink "not a
       * directory"; RESOLVE_NO_SYMLINKS refuses it as one (ELOOP). */
      int sub = openat_beneath (fd, part, O_RDONLY | O_DIRECTORY, 0);
      if (sub < 0)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "input file \"%.200s\": %s", shown,
                                   refusal (errno));
      /* Only what the runner just made; the rest is the program's own. */
      if (made && owner != geteuid () && fchown (sub, owner, owner) != 0)
        {
          close (sub);
          return sp_proto_set_error (err, SP_ERR_IO,
                                     "cannot hand over the directory of "
                                     "\"%.200s\": %s",
                                     shown, strerror (errno));
        }
      close (fd);
      fd = sub;
    }
  *last = part;
  int out = fd;
  fd = -1;
  return out;
}

static int
write_one (int dir_fd, const RunnerInputFile *file, uid_t owner, SpProtoError *err)
{
  cleanup_free char *copy = xstrdup (file->path);
  char *name = NULL;
  cleanup_fd int parent = open_parent (dir_fd, copy, owner, &name, err, file->path);
  struct stat st;

  if (parent < 0)
    return -1;
  /* O_NONBLOCK: a FIFO put there must not hold the runner, whether or
   * not something reads it (it is refused below, or ENXIO here). */
  cleanup_fd int fd = openat_beneath (parent, name,
                                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK, 0644);
  bool created = fd >= 0;
  if (fd < 0 && errno == EEXIST)
    fd = openat_beneath (parent, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK, 0);
  if (fd < 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "cannot write input file \"%.200s\": %s",
                               file->path, refusal (errno));
  if (fstat (fd, &st) != 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot write input file \"%.200s\": %s", file->path,
                               strerror (errno));
  /* An existing file is replaced in place only when it is plainly the
   * program's: a hard link could be a file of someone else's. */
  const char *why = !S_ISREG (st.st_mode)                ? "it is not a regular file"
                    : !created && st.st_nlink != 1       ? "it has other hard links"
                    : !created && st.st_uid != owner     ? "it belongs to another user"
                    : !created && ftruncate (fd, 0) != 0 ? strerror (errno)
                                                         : NULL;
  if (why != NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "cannot write input file \"%.200s\": %s",
                               file->path, why);
  if ((!created && (st.st_mode & (S_ISUID | S_ISGID)) != 0 && fchmod (fd, st.st_mode & 0777) != 0)
      || (file->len > 0 && write_all (fd, file->data, file->len) != 0))
    return sp_proto_set_error (err, SP_ERR_IO, "cannot write input file \"%.200s\": %s", file->path,
                               strerror (errno));
  /* The program runs as its own uid and may change what it was given. */
  if (created && owner != geteuid () && fchown (fd, owner, owner) != 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot hand over input file \"%.200s\": %s",
                               file->path, strerror (errno));
  return 0;
}

int
runner_input_files_write (int dir_fd, const RunnerInputFile *files, size_t n, uid_t owner,
                          SpProtoError *err)
{
  for (size_t i = 0; i < n; i++)
    if (write_one (dir_fd, &files[i], owner, err) != 0)
      return -1;
  return 0;
}

RunnerInputFile *
runner_input_files_copy (const RunnerInputFile *files, size_t n)
{
  RunnerInputFile *copy = xcalloc (n + 1, sizeof *copy);

  for (size_t i = 0; i < n; i++)
    {
      copy[i].path = xstrdup (files[i].path);
      copy[i].data = xmalloc (files[i].len + 1);
      if (files[i].len > 0)
        memcpy (copy[i].data, files[i].data, files[i].len);
      copy[i].len = files[i].len;
    }
  return copy;
}

void
runner_input_files_free (RunnerInputFile *files, size_t n)
{
  if (files == NULL)
    return;
  for (size_t i = 0; i < n; i++)
    {
      free (files[i].path);
      free (files[i].data);
    }
  free (files);
}
