/* runner-font-cache.c: matplotlib's font list, built once, copied into
 * each Python run. */
#include "runner-font-cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-sha256.h"

/* Where a font matplotlib lists can come from, and what it reads besides
 * (fontconfig's settings, Debian's matplotlibrc). */
static const char *const font_dirs[] = {
  "/usr/share/fonts",
  "/usr/local/share/fonts",
  "/usr/lib/X11/fonts",
  "/etc/fonts",
};
/* Walked this deep and this wide at most: a key is made for each run. */
#define WALK_MAX_DEPTH 4
#define WALK_MAX_DIRS 4096

static void
hash_field (RunnerSha256 *ctx, const char *text)
{
  uint64_t len = strlen (text);

  runner_sha256_update (ctx, &len, sizeof len);
  runner_sha256_update (ctx, text, len);
}

/* A path's identity and change time, or "-" when it is not there: a font
 * added, removed or replaced changes its directory's mtime. */
static void
hash_stat (RunnerSha256 *ctx, const char *path)
{
  struct stat st;
  char identity[160];

  hash_field (ctx, path);
  if (lstat (path, &st) != 0)
    {
      hash_field (ctx, "-");
      return;
    }
  snprintf (identity, sizeof identity, "%llu:%llu:%lld:%lld.%ld:%lld.%ld",
            (unsigned long long) st.st_dev, (unsigned long long) st.st_ino, (long long) st.st_size,
            (long long) st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long) st.st_ctim.tv_sec,
            st.st_ctim.tv_nsec);
  hash_field (ctx, identity);
}

static void
hash_tree (RunnerSha256 *ctx, const char *path, int depth, int *budget)
{
  struct stat st;

  if (*budget <= 0 || lstat (path, &st) != 0 || !S_ISDIR (st.st_mode))
    return;
  (*budget)--;
  hash_stat (ctx, path);
  if (depth >= WALK_MAX_DEPTH)
    return;
  DIR *dir = opendir (path);
  if (dir == NULL)
    return;
  struct dirent *de;
  while ((de = readdir (dir)) != NULL)
    if (de->d_name[0] != '.' && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN))
      {
        cleanup_free char *sub = xasprintf ("%s/%s", path, de->d_name);
        hash_tree (ctx, sub, depth + 1, budget);
      }
  closedir (dir);
}

/* matplotlib as the interpreter finds it: Debian's, or pip's under
 * /usr/local/lib/python3.N (which comes first on sys.path). */
static void
hash_matplotlib (RunnerSha256 *ctx)
{
  hash_stat (ctx, "/usr/lib/python3/dist-packages/matplotlib");
  hash_stat (ctx, "/usr/lib/python3/dist-packages/matplotlib/font_manager.py");
  hash_stat (ctx, "/etc/matplotlibrc");
  DIR *dir = opendir ("/usr/local/lib");
  if (dir == NULL)
    return;
  struct dirent *de;
  while ((de = readdir (dir)) != NULL)
    if (strncmp (de->d_name, "python3", 7) == 0)
      {
        cleanup_free char *sub = xasprintf ("/usr/local/lib/%s/dist-packages/matplotlib",
                                            de->d_name);
        hash_stat (ctx, sub);
      }
  closedir (dir);
}

void
runner_font_cache_key (const RunnerLanguage *python, char key[65])
{
  RunnerSha256 ctx;
  int budget = WALK_MAX_DIRS;

  runner_sha256_init (&ctx);
  hash_field (&ctx, "sandpad font cache 1");
  hash_field (&ctx, python->path != NULL ? python->path : "");
  if (python->path != NULL)
    hash_stat (&ctx, python->path);
  hash_matplotlib (&ctx);
  for (size_t i = 0; i < N_ELEMENTS (font_dirs); i++)
    hash_tree (&ctx, font_dirs[i], 0, &budget);
  runner_sha256_hex (&ctx, key);
}

/* Reads an open file whole, refusing anything but a regular file of at
 * most the cap. NULL when refused. */
static char *
read_capped (int fd, size_t *len)
{
  struct stat st;

  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > RUNNER_FONT_CACHE_MAX_BYTES)
    return NULL;
  char *buf = xmalloc (RUNNER_FONT_CACHE_MAX_BYTES + 1);
  size_t total = 0;
  ssize_t n;
  /* The size may grow after fstat: the cap holds for what is read. */
  while ((n = read (fd, buf + total, RUNNER_FONT_CACHE_MAX_BYTES + 1 - total)) > 0)
    {
      total += (size_t) n;
      if (total > RUNNER_FONT_CACHE_MAX_BYTES)
        break;
    }
  if (n < 0 || total > RUNNER_FONT_CACHE_MAX_BYTES || total == 0)
    {
      free (buf);
      return NULL;
    }
  *len = total;
  return buf;
}

/* matplotlib's shape: an object with its format's version (which names
 * the file) and the list of fonts. Anything else is not used: matplotlib
 * would load it as its font list. Returns the version or -1. */
static long long
check_list (const char *buf, size_t len)
{
  json_error_t error;
  json_t *root = json_loadb (buf, len, JSON_REJECT_DUPLICATES, &error);
  long long version = -1;

  if (root != NULL && json_is_object (root) && json_is_integer (json_object_get (root, "_version"))
      && json_is_array (json_object_get (root, "ttflist"))
      && json_is_array (json_object_get (root, "afmlist")))
    {
      version = json_integer_value (json_object_get (root, "_version"));
      if (version < 0 || version > 1000000)
        version = -1;
    }
  json_decref (root);
  return version;
}

static void
entry_name (const char *key, char name[80])
{
  snprintf (name, 80, "fonts-%s", key);
}

bool
runner_font_cache_has (RunnerCompileCache *cache, const char *key)
{
  char name[80];
  struct stat st;

  entry_name (key, name);
  return cache->dir_fd >= 0 && fstatat (cache->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0
         && S_ISREG (st.st_mode);
}

int
runner_font_cache_fetch (RunnerCompileCache *cache, const char *key, int dest_dir_fd)
{
  char name[80], dest[64];
  size_t len = 0;

  if (cache->dir_fd < 0)
    return -1;
  entry_name (key, name);
  cleanup_fd int from = openat (cache->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  cleanup_free char *buf = from >= 0 ? read_capped (from, &len) : NULL;
  /* Checked again here: the directory is the user's, and a list that
   * does not parse would only cost each run a rebuild, one that parses
   * as something else could mislead matplotlib. */
  long long version = buf != NULL ? check_list (buf, len) : -1;
  if (version < 0)
    return -1;
  snprintf (dest, sizeof dest, "fontlist-v%lld.json", version);
  cleanup_fd int to = openat (dest_dir_fd, dest,
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
  if (to < 0)
    return -1;
  if (write_all (to, buf, len) != 0)
    {
      unlinkat (dest_dir_fd, dest, 0);
      return -1;
    }
  return 0;
}

int
runner_font_cache_harvest (RunnerCompileCache *cache, const char *key, int mpl_dir_fd)
{
  char name[80], tmp[96];
  int fd = -1;

  if (cache->dir_fd < 0)
    return -1;
  int dup_fd = openat (mpl_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = dup_fd >= 0 ? fdopendir (dup_fd) : NULL;
  if (dir == NULL)
    {
      if (dup_fd >= 0)
        close (dup_fd);
      return -1;
    }
  /* The one file matplotlib writes there, fontlist-vN.json. */
  struct dirent *de;
  while (fd < 0 && (de = readdir (dir)) != NULL)
    {
      size_t n = strlen (de->d_name);
      if (strncmp (de->d_name, "fontlist-v", 10) == 0 && n > 15
          && strcmp (de->d_name + n - 5, ".json") == 0)
        fd = openat (mpl_dir_fd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    }
  closedir (dir);
  if (fd < 0)
    return -1;
  size_t len = 0;
  cleanup_free char *buf = read_capped (fd, &len);
  close (fd);
  if (buf == NULL || check_list (buf, len) < 0)
    return -1;
  entry_name (key, name);
  snprintf (tmp, sizeof tmp, ".new-%ld-%.16s", (long) getpid (), name + 6);
  cleanup_fd int to = openat (cache->dir_fd, tmp,
                              O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (to < 0)
    return -1;
  /* Whole or not at all, as a compiled program is kept. */
  if (write_all (to, buf, len) != 0 || renameat (cache->dir_fd, tmp, cache->dir_fd, name) != 0)
    {
      unlinkat (cache->dir_fd, tmp, 0);
      return -1;
    }
  return 0;
}
