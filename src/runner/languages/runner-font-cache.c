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
 * (fontconfig's settings). */
static const char *const font_dirs[] = {
  "/usr/share/fonts", "/usr/local/share/fonts", "/usr/lib/X11/fonts",
  "/etc/fonts",       "/etc/fonts/conf.d",
};
/* fontconfig's caches: fc-cache rewrites a file here (a new name, renamed
 * into place) whenever a font directory changed, which every Debian font
 * package's trigger runs, so a font replaced deep in a tree changes this
 * directory's mtime even when no directory we stat changed. */
static const char *const fontconfig_cache_dirs[] = {
  "/var/cache/fontconfig",
  "/usr/lib/fontconfig/cache",
};
/* The first level below a font directory is listed (truetype/, opentype/,
 * a package's own directory in /usr/local/share/fonts): a few entries. A
 * key is made for each run, so nothing deeper is walked. */
#define LIST_MAX_ENTRIES 256

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

/* A font directory and the directories right below it: one getdents and
 * a stat each. */
static void
hash_font_dir (RunnerSha256 *ctx, const char *path)
{
  hash_stat (ctx, path);
  DIR *dir = opendir (path);
  if (dir == NULL)
    return;
  struct dirent *de;
  int n = 0;
  while ((de = readdir (dir)) != NULL && n < LIST_MAX_ENTRIES)
    if (de->d_name[0] != '.' && (de->d_type == DT_DIR || de->d_type == DT_UNKNOWN))
      {
        cleanup_free char *sub = xasprintf ("%s/%s", path, de->d_name);
        hash_stat (ctx, sub);
        n++;
      }
  closedir (dir);
}

/* matplotlib as the interpreter finds it: Debian's, or pip's under
 * /usr/local/lib/python3.N (which comes first on sys.path). Its version
 * file names the release; font_manager.py decides the list's shape. */
static void
hash_matplotlib_at (RunnerSha256 *ctx, const char *dir)
{
  static const char *const files[] = { "", "/_version.py", "/font_manager.py" };

  for (size_t i = 0; i < N_ELEMENTS (files); i++)
    {
      cleanup_free char *path = xasprintf ("%s%s", dir, files[i]);
      hash_stat (ctx, path);
    }
}

static void
hash_matplotlib (RunnerSha256 *ctx)
{
  hash_matplotlib_at (ctx, "/usr/lib/python3/dist-packages/matplotlib");
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
        hash_matplotlib_at (ctx, sub);
      }
  closedir (dir);
}

void
runner_font_cache_key (const RunnerLanguage *python, char key[65])
{
  RunnerSha256 ctx;

  runner_sha256_init (&ctx);
  hash_field (&ctx, "sandpad font cache 2");
  hash_field (&ctx, python->path != NULL ? python->path : "");
  if (python->path != NULL)
    hash_stat (&ctx, python->path);
  hash_matplotlib (&ctx);
  for (size_t i = 0; i < N_ELEMENTS (font_dirs); i++)
    hash_font_dir (&ctx, font_dirs[i]);
  for (size_t i = 0; i < N_ELEMENTS (fontconfig_cache_dirs); i++)
    hash_stat (&ctx, fontconfig_cache_dirs[i]);
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

/* A font's file as the list names it: relative to matplotlib's data
 * directory (its own fonts), or absolute under /usr or /opt, where the
 * system's fonts are and no run can write. No "." or ".." step and no
 * empty one, so the prefix is where the path really starts. The list
 * comes from a run of the runner's own; this keeps a list that names a
 * file a run could plant (in /tmp, /dev/shm, a workspace) from being
 * handed to every later run even if that run was misled. */
static bool
font_path_ok (const char *fname)
{
  const char *p = fname;

  if (fname[0] == '/')
    {
      if (strncmp (fname, "/usr/", 5) != 0 && strncmp (fname, "/opt/", 5) != 0)
        return false;
      p = fname + 1;
    }
  if (*p == '\0' || strlen (fname) > 4096)
    return false;
  while (*p != '\0')
    {
      size_t n = strcspn (p, "/");
      if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
        return false;
      p += n;
      if (*p == '/')
        p++;
      if (*p == '\0' && p[-1] == '/')
        return false;
    }
  return true;
}

static bool
font_entries_ok (json_t *list)
{
  size_t i;
  json_t *entry;

  if (!json_is_array (list))
    return false;
  json_array_foreach (list, i, entry)
    {
      json_t *fname = json_object_get (entry, "fname");
      if (!json_is_object (entry) || !json_is_string (fname)
          || !font_path_ok (json_string_value (fname)))
        return false;
    }
  return true;
}

/* matplotlib's shape: an object with its format's version (which names
 * the file) and the lists of fonts, each naming a file where fonts are.
 * Anything else is not used: matplotlib would load it as its font list.
 * Returns the version or -1. */
static long long
check_list (const char *buf, size_t len)
{
  json_error_t error;
  json_t *root = json_loadb (buf, len, JSON_REJECT_DUPLICATES, &error);
  long long version = -1;

  if (root != NULL && json_is_object (root) && json_is_integer (json_object_get (root, "_version"))
      && font_entries_ok (json_object_get (root, "ttflist"))
      && font_entries_ok (json_object_get (root, "afmlist")))
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

void
runner_font_memo_clear (RunnerFontMemo *memo)
{
  free (memo->bytes);
  *memo = (RunnerFontMemo){ 0 };
}

static bool
same_time (const struct timespec *a, const struct timespec *b)
{
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* Whether st is the very file memo was read from, unchanged: a write
 * moves its ctime (which no one can set back), a replacement its inode.
 * A same-size rewrite within one clock tick could go unseen: the runs
 * after it get the list checked before it, never an unchecked one. */
static bool
memo_holds (const RunnerFontMemo *memo, const char *name, const struct stat *st)
{
  const struct stat *m = &memo->st;

  return memo->bytes != NULL && strcmp (memo->name, name) == 0 && m->st_dev == st->st_dev
         && m->st_ino == st->st_ino && m->st_size == st->st_size
         && same_time (&m->st_mtim, &st->st_mtim) && same_time (&m->st_ctim, &st->st_ctim);
}

int
runner_font_cache_fetch (RunnerCompileCache *cache, RunnerFontMemo *memo, const char *key,
                         int dest_dir_fd)
{
  char name[80], dest[64];
  struct stat st;

  if (cache->dir_fd < 0)
    return -1;
  entry_name (key, name);
  cleanup_fd int from = openat (cache->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (from < 0 || fstat (from, &st) != 0)
    return -1;
  if (!memo_holds (memo, name, &st))
    {
      /* Checked again here: the directory is the user's, and a list that
       * does not parse would only cost each run a rebuild, one that parses
       * as something else could mislead matplotlib. st was taken before
       * the read: a change during it makes the next fetch read again. */
      size_t len = 0;
      char *buf = read_capped (from, &len);
      long long version = buf != NULL ? check_list (buf, len) : -1;
      runner_font_memo_clear (memo);
      if (version < 0)
        {
          free (buf);
          return -1;
        }
      memcpy (memo->name, name, sizeof name);
      memo->st = st;
      memo->bytes = xrealloc (buf, len); /* not the cap's 4 MiB */
      memo->len = len;
      memo->version = version;
    }
  snprintf (dest, sizeof dest, "fontlist-v%lld.json", memo->version);
  cleanup_fd int to = openat (dest_dir_fd, dest,
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
  if (to < 0)
    return -1;
  if (write_all (to, memo->bytes, memo->len) != 0)
    {
      unlinkat (dest_dir_fd, dest, 0);
      return -1;
    }
  return 0;
}

typedef struct
{
  char name[80];
  struct timespec made;
} KeptList;

static int
newer_first (const void *a, const void *b)
{
  const struct timespec *x = &((const KeptList *) a)->made, *y = &((const KeptList *) b)->made;
  if (x->tv_sec != y->tv_sec)
    return x->tv_sec < y->tv_sec ? 1 : -1;
  return x->tv_nsec < y->tv_nsec ? 1 : (x->tv_nsec > y->tv_nsec ? -1 : 0);
}

/* The compile cache's trim counts only its own 64-digit names, so the font
 * lists are trimmed here: a new key is a font or matplotlib change, and
 * the lists of keys before it are kept only as a few (two interpreters
 * sharing the cache each keep theirs), never one per change for good. */
static void
forget_old_lists (RunnerCompileCache *cache)
{
  int fd = openat (cache->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir (fd) : NULL;
  KeptList *lists = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;

  if (dir == NULL)
    {
      if (fd >= 0)
        close (fd);
      return;
    }
  while ((de = readdir (dir)) != NULL)
    {
      struct stat st;
      if (strncmp (de->d_name, "fonts-", 6) != 0 || strlen (de->d_name) != 6 + 64
          || fstatat (cache->dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (n == cap)
        {
          cap = cap ? cap * 2 : 8;
          lists = xrealloc (lists, cap * sizeof *lists);
        }
      /* "fonts-" and 64 digits and the NUL, checked above. */
      memcpy (lists[n].name, de->d_name, 6 + 64 + 1);
      lists[n].made = st.st_mtim;
      n++;
    }
  closedir (dir);
  qsort (lists, n, sizeof *lists, newer_first);
  for (size_t i = RUNNER_FONT_CACHE_KEEP; i < n; i++)
    unlinkat (cache->dir_fd, lists[i].name, 0);
  free (lists);
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
  forget_old_lists (cache);
  return 0;
}
