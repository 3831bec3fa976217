/* runner-install-guard.c: what an install step may not change in a venv;
 * see runner-install.h.
 *
 * The install step must write the venv (that is the install), and a
 * wheel's .data/scripts land in bin/. A wheel allowed by name could so
 * replace bin/activate, which the person `source`s in a shell outside any
 * sandbox, pyvenv.cfg (its home= picks the interpreter) or bin/python*.
 * The runner keeps those files before the step and compares after it: a
 * change is put back byte for byte, and the install fails naming the
 * files. Every look is through the venv's fd, beneath it and refusing
 * symlinks, and a restore writes a new file and renames it over the name,
 * so a symlink the step planted is replaced, never written through by a
 * runner that may be root. The step's processes are all gone by then (its
 * run init kills the tree), so nothing races the check. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-install-guard.h"
#include "sp-proto.h"

/* activate scripts are a few KiB; anything past this is not one. */
#define KEPT_MAX_BYTES (1024 * 1024)
#define RESTORE_TMP ".sandpad-restore"

typedef struct
{
  char *name; /* in its directory: "pyvenv.cfg", "activate" */
  bool in_bin;
  bool link;
  char *data; /* the file's bytes, or the link's target */
  size_t len;
  mode_t mode;
  uid_t uid;
  gid_t gid;
} Kept;

struct RunnerVenvGuard
{
  char *dir;  /* the venv, canonical (messages and remove_tree) */
  int env_fd; /* the venv, held from before the step */
  Kept *kept;
  size_t n_kept;
  char **bin_before;  /* every name in bin/ before the step */
  struct stat bin_st; /* bin/ itself, to recreate it if it was replaced */
};

/* Commands a person types in a shell where the venv is activated (bin/
 * comes first on PATH): a new script by one of these names runs instead
 * of the system's. */
static const char *const common_commands[]
  = { "ls",      "cd",   "cp",        "mv",     "rm",       "cat",  "echo",   "env",
      "sh",      "bash", "dash",      "zsh",    "fish",     "sudo", "su",     "doas",
      "git",     "ssh",  "scp",       "sftp",   "curl",     "wget", "python", "python3",
      "pip",     "pip3", "make",      "gcc",    "cc",       "ln",   "chmod",  "chown",
      "find",    "grep", "sed",       "awk",    "tar",      "less", "vi",     "vim",
      "nano",    "man",  "which",     "ps",     "kill",     "id",   "mkdir",  "touch",
      "head",    "tail", "xargs",     "docker", "npm",      "node", "gpg",    "apt",
      "apt-get", "dpkg", "systemctl", "mount",  "xdg-open", "code", "top",    NULL };

static bool
protected_in_bin (const char *name)
{
  return strncmp (name, "activate", 8) == 0 || strncmp (name, "python", 6) == 0;
}

static bool
strv_has (char *const *v, const char *s)
{
  for (size_t i = 0; v != NULL && v[i] != NULL; i++)
    if (strcmp (v[i], s) == 0)
      return true;
  return false;
}

/* bin/ beneath the venv, a real directory; -1 when it is not one. */
static int
open_bin (RunnerVenvGuard *g)
{
  return openat_beneath (g->env_fd, "bin", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
}

static void
kept_clear (Kept *k)
{
  free (k->name);
  free (k->data);
}

/* Reads dir_fd/name (a regular file or a symlink, not followed) into k.
 * ENOENT leaves k->name NULL; another kind is an error. */
static int
read_entry (int dir_fd, const char *name, Kept *k, char *msg, size_t msg_len)
{
  struct stat st;

  *k = (Kept){ 0 };
  if (fstatat (dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
    return errno == ENOENT ? 0 : (snprintf (msg, msg_len, "%s: %s", name, strerror (errno)), -1);
  if (!S_ISREG (st.st_mode) && !S_ISLNK (st.st_mode))
    return snprintf (msg, msg_len, "%s is neither a file nor a symlink", name), -1;
  if (st.st_size > KEPT_MAX_BYTES)
    return snprintf (msg, msg_len, "%s is larger than %d bytes", name, KEPT_MAX_BYTES), -1;
  k->link = S_ISLNK (st.st_mode);
  k->mode = st.st_mode & 07777;
  k->uid = st.st_uid;
  k->gid = st.st_gid;
  k->data = xmalloc ((size_t) st.st_size + 1);
  if (k->link)
    {
      ssize_t n = readlinkat (dir_fd, name, k->data, (size_t) st.st_size + 1);
      if (n < 0 || n > st.st_size)
        return free (k->data), k->data = NULL,
                               snprintf (msg, msg_len, "%s: cannot read the link", name), -1;
      k->len = (size_t) n;
    }
  else
    {
      cleanup_fd int fd = openat_beneath (dir_fd, name,
                                          O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW, 0);
      ssize_t n = fd < 0 ? -1 : read (fd, k->data, (size_t) st.st_size + 1);
      if (n < 0 || n > st.st_size)
        return free (k->data), k->data = NULL, snprintf (msg, msg_len, "%s: cannot read it", name),
                               -1;
      k->len = (size_t) n;
    }
  k->name = xstrdup (name);
  return 0;
}

static int
keep (RunnerVenvGuard *g, int dir_fd, const char *name, bool in_bin, char *msg, size_t msg_len)
{
  Kept k;

  if (read_entry (dir_fd, name, &k, msg, msg_len) != 0)
    return -1;
  if (k.name == NULL)
    return 0;
  k.in_bin = in_bin;
  g->kept = xrealloc (g->kept, (g->n_kept + 1) * sizeof *g->kept);
  g->kept[g->n_kept++] = k;
  return 0;
}

/* The names in a directory, "." and ".." left out. */
static char **
list_names (int dir_fd)
{
  int fd = dup (dir_fd);
  DIR *dir = fd < 0 ? NULL : fdopendir (fd);
  char **names = xcalloc (1, sizeof *names);
  size_t n = 0;
  struct dirent *e;

  if (dir == NULL)
    {
      if (fd >= 0)
        close (fd);
      return names;
    }
  rewinddir (dir);
  while ((e = readdir (dir)) != NULL)
    {
      if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
        continue;
      names = xrealloc (names, (n + 2) * sizeof *names);
      names[n++] = xstrdup (e->d_name);
      names[n] = NULL;
    }
  closedir (dir);
  return names;
}

RunnerVenvGuard *
runner_venv_guard_new (const char *venv, char *msg, size_t msg_len)
{
  RunnerVenvGuard *g = xcalloc (1, sizeof *g);
  cleanup_fd int bin_fd = -1;

  g->dir = xstrdup (venv);
  g->env_fd = open_no_symlinks (venv, O_PATH | O_DIRECTORY);
  if (g->env_fd < 0 || (bin_fd = open_bin (g)) < 0 || fstat (bin_fd, &g->bin_st) != 0)
    {
      snprintf (msg, msg_len, "cannot open %.200s/bin: %s", venv, strerror (errno));
      runner_venv_guard_free (g);
      return NULL;
    }
  g->bin_before = list_names (bin_fd);
  int rc = keep (g, g->env_fd, "pyvenv.cfg", false, msg, msg_len);
  for (size_t i = 0; rc == 0 && g->bin_before[i] != NULL; i++)
    if (protected_in_bin (g->bin_before[i]))
      rc = keep (g, bin_fd, g->bin_before[i], true, msg, msg_len);
  if (rc != 0)
    {
      runner_venv_guard_free (g);
      return NULL;
    }
  return g;
}

static bool
same (const Kept *a, const Kept *b)
{
  return a->name != NULL && b->name != NULL && a->link == b->link && a->len == b->len
         && memcmp (a->data, b->data, a->len) == 0 && (a->link || a->mode == b->mode);
}

/* Removes dir_fd/name whatever it is now (a directory the step made at a
 * kept name goes as a tree, through its path, never followed). */
static int
remove_entry (RunnerVenvGuard *g, int dir_fd, bool in_bin, const char *name)
{
  if (unlinkat (dir_fd, name, 0) == 0 || errno == ENOENT)
    return 0;
  if (errno != EISDIR)
    return -1;
  cleanup_free char *path = xasprintf ("%s/%s%s", g->dir, in_bin ? "bin/" : "", name);
  return remove_tree (path);
}

/* Puts k back: a new file (or symlink) under a temporary name with the
 * kept bytes, mode and owner, renamed over whatever holds the name. */
static int
restore (RunnerVenvGuard *g, int dir_fd, const Kept *k)
{
  if (remove_entry (g, dir_fd, k->in_bin, RESTORE_TMP) != 0)
    return -1;
  if (k->link)
    {
      cleanup_free char *target = strndup (k->data, k->len);
      if (symlinkat (target, dir_fd, RESTORE_TMP) != 0
          || (geteuid () == 0
              && fchownat (dir_fd, RESTORE_TMP, k->uid, k->gid, AT_SYMLINK_NOFOLLOW) != 0))
        return -1;
    }
  else
    {
      cleanup_fd int fd = openat (dir_fd, RESTORE_TMP,
                                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd < 0 || write_all (fd, k->data, k->len) != 0
          || (geteuid () == 0 && fchown (fd, k->uid, k->gid) != 0) || fchmod (fd, k->mode) != 0)
        return -1;
    }
  /* rename cannot replace a directory; one at the name goes first. */
  struct stat st;
  if (fstatat (dir_fd, k->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR (st.st_mode)
      && remove_entry (g, dir_fd, k->in_bin, k->name) != 0)
    return -1;
  return renameat (dir_fd, RESTORE_TMP, dir_fd, k->name);
}

static void
note (Buf *changed, const char *what, const char *name, const char *how)
{
  cleanup_free char *one = xasprintf ("%s%s%s%s", changed->len ? ", " : "", what, name, how);
  buf_append (changed, one, strlen (one));
}

/* bin/ as a real directory again, when the step replaced it by a symlink
 * or a file (its kept entries are restored into it next). */
static int
reopen_bin (RunnerVenvGuard *g, Buf *changed)
{
  int fd = open_bin (g);

  if (fd >= 0)
    return fd;
  note (changed, "", "bin", " (replaced)");
  if (remove_entry (g, g->env_fd, false, "bin") != 0 || mkdirat (g->env_fd, "bin", 0755) != 0)
    return -1;
  fd = open_bin (g);
  if (fd >= 0
      && ((geteuid () == 0 && fchown (fd, g->bin_st.st_uid, g->bin_st.st_gid) != 0)
          || fchmod (fd, g->bin_st.st_mode & 07777) != 0))
    {
      close (fd);
      return -1;
    }
  return fd;
}

int
runner_venv_guard_check (RunnerVenvGuard *g, char **changed_out, char ***shadowing_out, char *msg,
                         size_t msg_len)
{
  Buf changed = { 0 };
  cleanup_fd int bin_fd = reopen_bin (g, &changed);
  int rc = bin_fd < 0 ? -1 : 0;

  *changed_out = NULL;
  *shadowing_out = NULL;
  for (size_t i = 0; rc == 0 && i < g->n_kept; i++)
    {
      const Kept *k = &g->kept[i];
      int dir_fd = k->in_bin ? bin_fd : g->env_fd;
      Kept now;
      char ignored[256];
      if (read_entry (dir_fd, k->name, &now, ignored, sizeof ignored) == 0 && same (k, &now))
        {
          kept_clear (&now);
          continue;
        }
      kept_clear (&now);
      note (&changed, k->in_bin ? "bin/" : "", k->name, "");
      rc = restore (g, dir_fd, k);
    }
  /* New protected names (bin/python3.99, bin/activate.xsh) go. */
  char **after = rc == 0 ? list_names (bin_fd) : NULL;
  char **shadowing = xcalloc (1, sizeof *shadowing);
  size_t n_shadowing = 0;
  for (size_t i = 0; after != NULL && after[i] != NULL && rc == 0; i++)
    {
      if (strv_has (g->bin_before, after[i]) || strcmp (after[i], RESTORE_TMP) == 0)
        continue;
      if (protected_in_bin (after[i]))
        {
          note (&changed, "bin/", after[i], " (new)");
          rc = remove_entry (g, bin_fd, true, after[i]);
        }
      else if (strv_has ((char *const *) common_commands, after[i]))
        {
          shadowing = xrealloc (shadowing, (n_shadowing + 2) * sizeof *shadowing);
          shadowing[n_shadowing++] = xstrdup (after[i]);
          shadowing[n_shadowing] = NULL;
        }
    }
  sp_strv_free (after);
  if (rc != 0)
    {
      snprintf (msg, msg_len, "could not put back what the install changed in %.200s (%s): %s",
                g->dir, changed.len ? changed.data : "bin", strerror (errno));
      buf_clear (&changed);
      sp_strv_free (shadowing);
      return -1;
    }
  if (changed.len > 0)
    {
      buf_append (&changed, "", 1);
      *changed_out = steal_pointer (&changed.data);
    }
  buf_clear (&changed);
  *shadowing_out = shadowing;
  return 0;
}

void
runner_venv_guard_free (RunnerVenvGuard *g)
{
  if (g == NULL)
    return;
  for (size_t i = 0; i < g->n_kept; i++)
    kept_clear (&g->kept[i]);
  free (g->kept);
  sp_strv_free (g->bin_before);
  if (g->env_fd >= 0)
    close (g->env_fd);
  free (g->dir);
  free (g);
}
