/* runner-files.c: what a run created or changed in its working directory. */
#include "runner-files.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "runner-util.h"
#include "sp-utf8.h"

/* Interpreter droppings and tool caches are not results. */
static bool
ignored (const char *name, bool is_dir)
{
  static const char *const dirs[] = { "__pycache__", ".pytest_cache", ".mypy_cache",
                                      ".ipynb_checkpoints", NULL };
  size_t len = strlen (name);

  if (is_dir)
    {
      for (size_t i = 0; dirs[i] != NULL; i++)
        if (strcmp (name, dirs[i]) == 0)
          return true;
      return false;
    }
  return len > 4 && (strcmp (name + len - 4, ".pyc") == 0 || strcmp (name + len - 4, ".pyo") == 0);
}

typedef struct
{
  RunnerFileSnap *snap;
  size_t cap;
  size_t visited;
} Walk;

static void
add_entry (Walk *walk, const char *path, const struct stat *st)
{
  RunnerFileSnap *snap = walk->snap;

  if (snap->n == walk->cap)
    {
      walk->cap = walk->cap ? walk->cap * 2 : 64;
      snap->entries = xrealloc (snap->entries, walk->cap * sizeof *snap->entries);
    }
  snap->entries[snap->n++] = (RunnerFileEntry){
    .path = xstrdup (path),
    .size = st->st_size,
    .mtime_ns = (int64_t) st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
    .ino = st->st_ino,
    .blocks = st->st_blocks,
  };
}

static void
walk_dir (Walk *walk, int dfd, const char *prefix, int depth)
{
  DIR *dir = fdopendir (dfd);
  struct dirent *entry;

  if (dir == NULL)
    {
      close (dfd);
      return;
    }
  while ((entry = readdir (dir)) != NULL)
    {
      struct stat st;

      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      if (++walk->visited > RUNNER_FILES_MAX_WALK)
        {
          walk->snap->truncated = true;
          break;
        }
      /* lstat semantics: a symlink is never followed, nor listed. */
      if (fstatat (dirfd (dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;

      cleanup_free char *path = prefix[0] ? xasprintf ("%s/%s", prefix, entry->d_name)
                                          : xstrdup (entry->d_name);
      if (S_ISDIR (st.st_mode))
        {
          if (ignored (entry->d_name, true))
            continue;
          if (depth >= RUNNER_FILES_MAX_DEPTH)
            {
              walk->snap->truncated = true;
              continue;
            }
          int sub = openat (dirfd (dir), entry->d_name,
                            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub >= 0)
            walk_dir (walk, sub, path, depth + 1);
        }
      else if (S_ISREG (st.st_mode) && !ignored (entry->d_name, false))
        add_entry (walk, path, &st);
    }
  closedir (dir);
}

static int
cmp_entry (const void *a, const void *b)
{
  return strcmp (((const RunnerFileEntry *) a)->path, ((const RunnerFileEntry *) b)->path);
}

void
runner_files_snapshot (const char *dir, RunnerFileSnap *snap)
{
  Walk walk = { .snap = snap };
  int dfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  memset (snap, 0, sizeof *snap);
  if (dfd < 0)
    return;
  walk_dir (&walk, dfd, "", 0);
  if (snap->n > 1)
    qsort (snap->entries, snap->n, sizeof *snap->entries, cmp_entry);
}

int64_t
runner_files_usage (const char *dir)
{
  RunnerFileSnap snap;
  int64_t total = 0;

  runner_files_snapshot (dir, &snap);
  for (size_t i = 0; i < snap.n; i++)
    total += snap.entries[i].blocks * 512;
  runner_files_snap_clear (&snap);
  return total;
}

void
runner_files_snap_clear (RunnerFileSnap *snap)
{
  for (size_t i = 0; i < snap->n; i++)
    free (snap->entries[i].path);
  free (snap->entries);
  memset (snap, 0, sizeof *snap);
}

char *
runner_files_base64 (const char *dir, const char *rel_path, size_t max_bytes)
{
  static const char alphabet[]
    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  cleanup_free char *full = xasprintf ("%s/%s", dir, rel_path);
  cleanup_fd int fd = open (full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  Buf data = { 0 };
  char chunk[65536];
  ssize_t n;

  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || (size_t) st.st_size > max_bytes)
    return NULL;
  while ((n = read (fd, chunk, sizeof chunk)) > 0 && data.len + (size_t) n <= max_bytes)
    buf_append (&data, chunk, (size_t) n);
  if (n != 0)
    {
      /* An error, or the file grew past the cap while we read it. */
      buf_clear (&data);
      return NULL;
    }

  char *out = xmalloc ((data.len + 2) / 3 * 4 + 1);
  const unsigned char *in = (const unsigned char *) data.data;
  size_t o = 0;
  for (size_t i = 0; i < data.len; i += 3)
    {
      uint32_t v = (uint32_t) in[i] << 16;
      if (i + 1 < data.len)
        v |= (uint32_t) in[i + 1] << 8;
      if (i + 2 < data.len)
        v |= in[i + 2];
      out[o++] = alphabet[v >> 18 & 63];
      out[o++] = alphabet[v >> 12 & 63];
      out[o++] = i + 1 < data.len ? alphabet[v >> 6 & 63] : '=';
      out[o++] = i + 2 < data.len ? alphabet[v & 63] : '=';
    }
  out[o] = '\0';
  buf_clear (&data);
  return out;
}

static uint32_t
be32 (const unsigned char *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

/* Pixel size from the image's own header: PNG's IHDR, GIF's logical
 * screen, JPEG's first start-of-frame. Never decodes the image, and reads
 * at most 64 KiB of a file the run may have crafted. */
static void
image_size (const char *dir, const char *rel_path, const char *mime, int64_t *width,
            int64_t *height)
{
  cleanup_free char *full = xasprintf ("%s/%s", dir, rel_path);
  cleanup_fd int fd = open (full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  unsigned char head[65536];
  ssize_t n = fd >= 0 ? read (fd, head, sizeof head) : -1;

  *width = *height = 0;
  if (n >= 24 && strcmp (mime, "image/png") == 0 && memcmp (head + 12, "IHDR", 4) == 0)
    {
      *width = be32 (head + 16);
      *height = be32 (head + 20);
    }
  else if (n >= 10 && strcmp (mime, "image/gif") == 0)
    {
      *width = head[6] | head[7] << 8;
      *height = head[8] | head[9] << 8;
    }
  else if (n >= 4 && strcmp (mime, "image/jpeg") == 0)
    {
      for (ssize_t i = 2; i + 9 < n;)
        {
          if (head[i] != 0xff)
            break;
          unsigned char marker = head[i + 1];
          size_t len = (size_t) head[i + 2] << 8 | head[i + 3];
          if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8
              && marker != 0xcc)
            {
              *height = head[i + 5] << 8 | head[i + 6];
              *width = head[i + 7] << 8 | head[i + 8];
              break;
            }
          i += 2 + (ssize_t) len;
        }
    }
  if (*width <= 0 || *height <= 0 || *width > INT32_MAX || *height > INT32_MAX)
    *width = *height = 0;
}

void
runner_files_changes (const char *dir, const RunnerFileSnap *before, SpFileInfo **files,
                      size_t *n_files, bool *truncated)
{
  RunnerFileSnap after;
  SpFileInfo *list = NULL;
  size_t n = 0;

  runner_files_snapshot (dir, &after);
  *truncated = after.truncated;
  for (size_t i = 0; i < after.n; i++)
    {
      const RunnerFileEntry *now = &after.entries[i];
      const RunnerFileEntry *then
        = before && before->n > 0
            ? bsearch (now, before->entries, before->n, sizeof *now, cmp_entry)
            : NULL;

      if (then != NULL && then->size == now->size && then->mtime_ns == now->mtime_ns
          && then->ino == now->ino)
        continue;
      if (n == RUNNER_FILES_MAX_REPORT)
        {
          *truncated = true;
          break;
        }
      list = xrealloc (list, (n + 1) * sizeof *list);
      list[n] = (SpFileInfo){ 0 };
      list[n].path = xstrdup (now->path);
      list[n].size = now->size;
      list[n].mime = runner_files_mime (dir, now->path);
      list[n].created = then == NULL;
      image_size (dir, now->path, list[n].mime, &list[n].width, &list[n].height);
      n++;
    }
  runner_files_snap_clear (&after);
  *files = list;
  *n_files = n;
}

static const struct
{
  const char *ext;
  const char *mime;
} mime_table[] = {
  { "png", "image/png" },         { "jpg", "image/jpeg" },
  { "jpeg", "image/jpeg" },       { "gif", "image/gif" },
  { "svg", "image/svg+xml" },     { "webp", "image/webp" },
  { "bmp", "image/bmp" },         { "pdf", "application/pdf" },
  { "csv", "text/csv" },          { "tsv", "text/tab-separated-values" },
  { "txt", "text/plain" },        { "log", "text/plain" },
  { "md", "text/markdown" },      { "json", "application/json" },
  { "html", "text/html" },        { "htm", "text/html" },
  { "xml", "application/xml" },   { "yaml", "application/yaml" },
  { "yml", "application/yaml" },  { "py", "text/x-python" },
  { "js", "text/javascript" },    { "mjs", "text/javascript" },
  { "sh", "application/x-sh" },   { "zip", "application/zip" },
  { "gz", "application/gzip" },   { "tar", "application/x-tar" },
  { "npy", "application/octet-stream" },
};

char *
runner_files_mime (const char *dir, const char *rel_path)
{
  const char *base = strrchr (rel_path, '/');
  const char *dot = strrchr (base ? base : rel_path, '.');
  unsigned char head[512];
  ssize_t n = 0;

  if (dot != NULL)
    for (size_t i = 0; i < N_ELEMENTS (mime_table); i++)
      if (strcasecmp (dot + 1, mime_table[i].ext) == 0)
        return xstrdup (mime_table[i].mime);

  /* Unknown extension: look at the content, never following a symlink. */
  cleanup_free char *full = xasprintf ("%s/%s", dir, rel_path);
  cleanup_fd int fd = open (full, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0)
    n = read (fd, head, sizeof head);
  if (n <= 0)
    return xstrdup (n == 0 ? "text/plain" : "application/octet-stream");
  if (n >= 8 && memcmp (head, "\x89PNG\r\n\x1a\n", 8) == 0)
    return xstrdup ("image/png");
  if (n >= 3 && memcmp (head, "\xff\xd8\xff", 3) == 0)
    return xstrdup ("image/jpeg");
  if (n >= 4 && memcmp (head, "GIF8", 4) == 0)
    return xstrdup ("image/gif");
  if (n >= 5 && memcmp (head, "%PDF-", 5) == 0)
    return xstrdup ("application/pdf");

  /* Text if valid UTF-8, allowing a character cut at the 512-byte edge. */
  size_t consumed = 0;
  free (sp_utf8_sanitize ((const char *) head, (size_t) n, false, &consumed, NULL));
  if (memchr (head, 0, (size_t) n) == NULL && sp_utf8_valid ((const char *) head, consumed)
      && (size_t) n - consumed < 4)
    return xstrdup ("text/plain");
  return xstrdup ("application/octet-stream");
}
