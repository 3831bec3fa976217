/* runner-files.c: what a run wrote in its directories, and how much. */
#include "runner-files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-event.h"
#include "runner-base.h"
#include "sp-utf8.h"

/* ---- The walk ------------------------------------------------------- */

typedef enum
{
  WALK_NEXT, /* go on; descend if it is a directory */
  WALK_SKIP, /* go on, but not into this directory */
} WalkStep;

/* dfd is the entry's directory, name its name there, path its path from
 * the walk's root (raw bytes). */
typedef WalkStep (*WalkFn) (void *data, int dfd, const char *name, const char *path,
                            const struct stat *st);

typedef struct
{
  size_t max_entries;
  size_t max_depth;
  bool stop_at_bounds; /* any bound ends the walk; else too-deep directories are skipped */
  WalkFn fn;
  void *data;
  size_t entries; /* out: entries seen */
  bool bounded;   /* out: a bound was hit, something was not seen */
  bool failed;    /* out: a directory could not be read, or moved under us */
} Walk;

/* One directory on the current path: its names, read once in full so no
 * fd has to stay open for it while we are below. */
typedef struct
{
  char **names;
  size_t n, next;
  dev_t dev;
  ino_t ino;
  size_t path_len;
  int restore_mode; /* >= 0: the mode to put back when leaving (see open_subdir) */
} WalkLevel;

/* Reads the names in fd's directory, at most budget + 1 of them; 1 when
 * it stopped there, with names left unread. */
static int
read_names (int fd, size_t budget, WalkLevel *level)
{
  int dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0);
  DIR *dir = dup_fd >= 0 ? fdopendir (dup_fd) : NULL;
  struct dirent *entry = NULL;
  size_t cap = 0;

  if (dir == NULL)
    {
      if (dup_fd >= 0)
        close (dup_fd);
      return -1;
    }
  while (level->n <= budget && (entry = readdir (dir)) != NULL)
    {
      if (strcmp (entry->d_name, ".") == 0 || strcmp (entry->d_name, "..") == 0)
        continue;
      if (level->n == cap)
        {
          cap = cap ? cap * 2 : 16;
          level->names = xrealloc (level->names, cap * sizeof *level->names);
        }
      level->names[level->n++] = xstrdup (entry->d_name);
    }
  closedir (dir);
  return level->n > budget ? 1 : 0;
}

static void
level_clear (WalkLevel *level)
{
  for (size_t i = 0; i < level->n; i++)
    free (level->names[i]);
  free (level->names);
}

static bool
walk_push (Walk *walk, WalkLevel **stack, size_t *depth, size_t *cap, int fd, size_t path_len)
{
  struct stat st;
  WalkLevel level = { .path_len = path_len, .restore_mode = -1 };
  int r = fstat (fd, &st) == 0 ? read_names (fd, walk->max_entries - walk->entries, &level) : -1;

  if (r < 0)
    {
      level_clear (&level);
      walk->failed = true;
      return false;
    }
  if (r > 0)
    walk->bounded = true;
  level.dev = st.st_dev;
  level.ino = st.st_ino;
  if (*depth == *cap)
    {
      *cap = *cap ? *cap * 2 : 16;
      *stack = xrealloc (*stack, *cap * sizeof **stack);
    }
  (*stack)[(*depth)++] = level;
  return true;
}

/* Opens the subdirectory name of fd, checking it is the one fstatat saw
 * (st), so that an identity recorded for the way back up is right.
 *
 * A run may make one of its directories unreadable to its own uid, which
 * is ours when the runner is the user's (the desktop case; as root it can
 * read anyway). As its owner the runner then gives itself r-x on it while
 * the walk is inside (the way back up, "..", needs the x) and the walk puts
 * the mode back on leaving: *restore_mode says which, -1 when nothing was
 * changed. Without this the walk could not see everything and would call
 * the run over a limit it has not reached. */
static int
open_subdir (int fd, const char *name, const struct stat *st, int *restore_mode)
{
  struct stat sub_st;
  int sub = openat (fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

  *restore_mode = -1;
  if (sub < 0 && errno == EACCES && st->st_uid == geteuid () && geteuid () != 0
      && (st->st_mode & 0500) != 0500)
    {
      mode_t mode = st->st_mode & 07777;
      if (dir_chmod_at (fd, name, mode | 0500) == 0)
        {
          sub = openat (fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
          if (sub < 0)
            dir_chmod_at (fd, name, mode);
          else
            *restore_mode = (int) mode;
        }
      else
        errno = EACCES;
    }
  if (sub >= 0
      && (fstat (sub, &sub_st) != 0 || sub_st.st_ino != st->st_ino || sub_st.st_dev != st->st_dev))
    {
      if (*restore_mode >= 0)
        fchmod (sub, (mode_t) *restore_mode);
      close (sub);
      errno = ESTALE;
      return -1;
    }
  return sub;
}

/* Visits every entry beneath root_fd, depth first, with at most three fds
 * open. Entries that vanish while we look are skipped (they use nothing);
 * anything else we cannot look at sets failed. */
static void
walk_tree (int root_fd, Walk *walk)
{
  WalkLevel *stack = NULL;
  size_t depth = 0, cap = 0;
  Buf path = { 0 };
  int fd = openat (root_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  buf_append (&path, "", 1);
  path.len = 0;
  if (fd < 0 || !walk_push (walk, &stack, &depth, &cap, fd, 0))
    walk->failed = true;
  while (depth > 0 && !((walk->bounded || walk->failed) && walk->stop_at_bounds))
    {
      WalkLevel *top = &stack[depth - 1];

      if (top->next == top->n)
        {
          int restore_mode = top->restore_mode;
          level_clear (top);
          if (--depth == 0)
            break;
          /* Lost on the way up: nothing more can be trusted. */
          int parent = open_parent_checked (fd, stack[depth - 1].dev, stack[depth - 1].ino);
          if (restore_mode >= 0)
            fchmod (fd, (mode_t) restore_mode);
          close (fd);
          fd = parent;
          if (fd < 0)
            {
              walk->failed = true;
              break;
            }
          path.len = stack[depth - 1].path_len;
          path.data[path.len] = '\0';
          continue;
        }

      const char *name = top->names[top->next++];
      struct stat st;
      if (fstatat (fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        {
          if (errno != ENOENT)
            walk->failed = true;
          continue;
        }
      if (++walk->entries > walk->max_entries)
        {
          walk->bounded = true;
          break; /* nothing more is looked at either way */
        }
      path.len = top->path_len;
      if (path.len > 0)
        buf_append (&path, "/", 1);
      buf_append (&path, name, strlen (name) + 1);
      path.len--;
      if (walk->fn (walk->data, fd, name, path.data, &st) == WALK_SKIP || !S_ISDIR (st.st_mode))
        continue;
      if (depth >= walk->max_depth)
        {
          walk->bounded = true;
          continue;
        }

      int restore_mode;
      int sub = open_subdir (fd, name, &st, &restore_mode);
      if (sub < 0)
        {
          if (errno != ENOENT)
            walk->failed = true;
          continue;
        }
      if (!walk_push (walk, &stack, &depth, &cap, sub, path.len))
        {
          if (restore_mode >= 0)
            fchmod (sub, (mode_t) restore_mode);
          close (sub);
          continue;
        }
      stack[depth - 1].restore_mode = restore_mode;
      close (fd);
      fd = sub;
    }
  /* Stopped early: the directory we are in gets its mode back; one above
   * it that the walk opened the same way keeps the owner's r-x. */
  if (depth > 0 && stack[depth - 1].restore_mode >= 0 && fd >= 0)
    fchmod (fd, (mode_t) stack[depth - 1].restore_mode);
  for (size_t i = 0; i < depth; i++)
    level_clear (&stack[i]);
  free (stack);
  buf_clear (&path);
  if (fd >= 0)
    close (fd);
}

/* The walks start from the directory the caller holds open, never from a
 * name: a name is looked up again, and the run may have swapped one of its
 * parts for a symlink since the check (issue "Close the seams"). */
static int
open_root (int dir_fd)
{
  return openat (dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* ---- Usage ---------------------------------------------------------- */

static WalkStep
count_entry (void *data, int dfd, const char *name, const char *path, const struct stat *st)
{
  RunnerUsage *usage = data;
  int64_t bytes = (int64_t) st->st_blocks * 512;

  usage->bytes += bytes > RUNNER_FILES_ENTRY_MIN_BYTES ? bytes : RUNNER_FILES_ENTRY_MIN_BYTES;
  usage->entries++;
  return WALK_NEXT;
}

void
runner_files_usage (int dir_fd, int64_t max_entries, RunnerUsage *usage)
{
  cleanup_fd int root = open_root (dir_fd);

  /* A rename under the walk makes the way back up fail its check; that is
   * a race, not a verdict, so try again before calling it over. */
  for (int attempt = 0; attempt < 3; attempt++)
    {
      Walk walk = {
        .max_entries = max_entries > 0 ? (size_t) max_entries : 0,
        .max_depth = RUNNER_FILES_USAGE_MAX_DEPTH,
        .stop_at_bounds = true,
        .fn = count_entry,
        .data = usage,
      };

      *usage = (RunnerUsage){ 0 };
      if (root < 0)
        return;
      walk_tree (root, &walk);
      usage->complete = !walk.bounded && !walk.failed;
      if (usage->complete || walk.bounded)
        return;
    }
}

void
runner_files_space_usage (int work_fd, int tmp_fd, int64_t max_entries, RunnerUsage *usage)
{
  RunnerUsage tmp = { .complete = true };

  runner_files_usage (work_fd, max_entries, usage);
  if (tmp_fd >= 0 && usage->complete)
    runner_files_usage (tmp_fd, max_entries, &tmp);
  usage->bytes += tmp.bytes;
  usage->entries += tmp.entries;
  usage->complete = usage->complete && tmp.complete;
}

/* ---- Snapshot ------------------------------------------------------- */

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
} SnapWalk;

static WalkStep
snap_entry (void *data, int dfd, const char *name, const char *path, const struct stat *st)
{
  SnapWalk *sw = data;
  RunnerFileSnap *snap = sw->snap;
  char target[RUNNER_FILES_MAX_SHOWN_TARGET + 1];
  ssize_t target_len = -1;

  if (S_ISDIR (st->st_mode))
    return ignored (name, true) ? WALK_SKIP : WALK_NEXT;
  if (S_ISREG (st->st_mode) && ignored (name, false))
    return WALK_NEXT;
  if (S_ISLNK (st->st_mode))
    target_len = readlinkat (dfd, name, target, sizeof target - 1);
  if (snap->n == sw->cap)
    {
      sw->cap = sw->cap ? sw->cap * 2 : 64;
      snap->entries = xrealloc (snap->entries, sw->cap * sizeof *snap->entries);
    }
  if (target_len >= 0)
    target[target_len] = '\0';
  snap->entries[snap->n++] = (RunnerFileEntry){
    .path = xstrdup (path),
    .target = target_len >= 0 ? xstrdup (target) : NULL,
    .size = st->st_size,
    .mtime_ns = (int64_t) st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
    .ino = st->st_ino,
    .mode = st->st_mode,
  };
  return WALK_NEXT;
}

static int
cmp_entry (const void *a, const void *b)
{
  return strcmp (((const RunnerFileEntry *) a)->path, ((const RunnerFileEntry *) b)->path);
}

void
runner_files_snapshot (int dir_fd, RunnerFileSnap *snap)
{
  cleanup_fd int root = open_root (dir_fd);
  SnapWalk sw = { .snap = snap };
  Walk walk = {
    .max_entries = RUNNER_FILES_SNAP_MAX_ENTRIES,
    .max_depth = RUNNER_FILES_SNAP_MAX_DEPTH,
    .fn = snap_entry,
    .data = &sw,
  };

  memset (snap, 0, sizeof *snap);
  if (root < 0)
    return;
  walk_tree (root, &walk);
  snap->truncated = walk.bounded || walk.failed;
  if (snap->n > 1)
    qsort (snap->entries, snap->n, sizeof *snap->entries, cmp_entry);
}

void
runner_files_snap_clear (RunnerFileSnap *snap)
{
  for (size_t i = 0; i < snap->n; i++)
    {
      free (snap->entries[i].path);
      free (snap->entries[i].target);
    }
  free (snap->entries);
  memset (snap, 0, sizeof *snap);
}

static const RunnerFileEntry *
snap_find (const RunnerFileSnap *snap, const char *path)
{
  RunnerFileEntry key = { .path = (char *) path };

  if (snap == NULL || snap->n == 0)
    return NULL;
  return bsearch (&key, snap->entries, snap->n, sizeof key, cmp_entry);
}

/* ---- Setuid and setgid ---------------------------------------------- */

static WalkStep
strip_entry (void *data, int dfd, const char *name, const char *path, const struct stat *st)
{
  const RunnerFileSnap *before = data;
  const RunnerFileEntry *then;

  if (!S_ISREG (st->st_mode) || (st->st_mode & (S_ISUID | S_ISGID)) == 0)
    return WALK_NEXT;
  /* The user's own setuid files in a named directory stay as they were. */
  then = snap_find (before, path);
  if (then != NULL && then->ino == st->st_ino
      && (then->mode & (S_ISUID | S_ISGID)) == (st->st_mode & (S_ISUID | S_ISGID)))
    return WALK_NEXT;

  /* On the inode we opened, not on a name the run could swap meanwhile:
   * O_PATH needs no permission and never follows the last component;
   * its /proc link names that very inode. */
  cleanup_fd int fd = openat (dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  struct stat now;
  char proc[64];
  if (fd < 0 || fstat (fd, &now) != 0 || !S_ISREG (now.st_mode))
    return WALK_NEXT;
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  chmod (proc, now.st_mode & 07777 & ~(mode_t) (S_ISUID | S_ISGID));
  return WALK_NEXT;
}

void
runner_files_strip_setid (int dir_fd, const RunnerFileSnap *before)
{
  cleanup_fd int root = open_root (dir_fd);
  Walk walk = {
    .max_entries = RUNNER_FILES_STRIP_MAX_ENTRIES,
    .max_depth = SIZE_MAX,
    .fn = strip_entry,
    .data = (void *) before,
  };

  if (root >= 0)
    walk_tree (root, &walk);
}

/* ---- Typing by content ---------------------------------------------- */

static uint32_t
be32 (const unsigned char *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static bool
size_ok (int64_t width, int64_t height)
{
  return width > 0 && height > 0 && width <= RUNNER_FILES_IMAGE_MAX_SIDE
         && height <= RUNNER_FILES_IMAGE_MAX_SIDE
         && width * height <= RUNNER_FILES_IMAGE_MAX_PIXELS;
}

/* GIF: the logical screen, and the first image, which must lie within it
 * (a decoder allocates for either). */
static bool
gif_size (int fd, const unsigned char *head, size_t n, int64_t *width, int64_t *height)
{
  unsigned char block[10];
  off_t off = 13;

  if (n < 13)
    return false;
  *width = head[6] | head[7] << 8;
  *height = head[8] | head[9] << 8;
  if (head[10] & 0x80)
    off += 3 << ((head[10] & 7) + 1);
  for (int blocks = 0; blocks < 64; blocks++)
    {
      if (pread (fd, block, 2, off) != 2)
        return false;
      if (block[0] == 0x2c)
        {
          if (pread (fd, block, 10, off) != 10)
            return false;
          int64_t left = block[1] | block[2] << 8, top = block[3] | block[4] << 8;
          int64_t w = block[5] | block[6] << 8, h = block[7] | block[8] << 8;
          return w > 0 && h > 0 && left + w <= *width && top + h <= *height;
        }
      if (block[0] != 0x21)
        return false;
      /* An extension: label, then sub-blocks until a zero length. */
      off += 2;
      for (int subs = 0; subs < 4096; subs++)
        {
          if (pread (fd, block, 1, off) != 1)
            return false;
          off += 1 + block[0];
          if (block[0] == 0)
            break;
        }
    }
  return false;
}

/* JPEG: the first start-of-frame, found by walking the segments. */
static bool
jpeg_size (int fd, int64_t *width, int64_t *height)
{
  unsigned char seg[9];
  off_t off = 2;

  for (int segments = 0; segments < 256 && off < 16 * 1024 * 1024; segments++)
    {
      if (pread (fd, seg, 4, off) != 4 || seg[0] != 0xff)
        return false;
      unsigned char marker = seg[1];
      size_t len = (size_t) seg[2] << 8 | seg[3];
      if (marker == 0xff)
        {
          off++; /* fill byte */
          continue;
        }
      if (len < 2 || marker == 0xd9 || marker == 0xda)
        return false;
      if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc)
        {
          if (pread (fd, seg, 9, off) != 9)
            return false;
          *height = seg[5] << 8 | seg[6];
          *width = seg[7] << 8 | seg[8];
          return true;
        }
      off += 2 + (off_t) len;
    }
  return false;
}

/* The image formats clients show, by their magic bytes only. Returns the
 * MIME type when the file is one and its header gives a size within
 * bounds; NULL with *claimed set when it looks like one but is not a
 * bounded, well-formed one. The image itself is never decoded here. */
static const char *
image_type (int fd, const unsigned char *head, size_t n, bool *claimed, int64_t *width,
            int64_t *height)
{
  const char *mime = NULL;
  bool sized = false;

  *width = *height = 0;
  if (n >= 8 && memcmp (head, "\x89PNG\r\n\x1a\n", 8) == 0)
    {
      mime = "image/png";
      /* IHDR comes first and is 13 bytes long. */
      if (n >= 24 && be32 (head + 8) == 13 && memcmp (head + 12, "IHDR", 4) == 0)
        {
          *width = be32 (head + 16);
          *height = be32 (head + 20);
          sized = true;
        }
    }
  else if (n >= 6 && (memcmp (head, "GIF87a", 6) == 0 || memcmp (head, "GIF89a", 6) == 0))
    {
      mime = "image/gif";
      sized = gif_size (fd, head, n, width, height);
    }
  else if (n >= 3 && memcmp (head, "\xff\xd8\xff", 3) == 0)
    {
      mime = "image/jpeg";
      sized = jpeg_size (fd, width, height);
    }
  *claimed = mime != NULL;
  if (mime == NULL || !sized || !size_ok (*width, *height))
    {
      *width = *height = 0;
      return NULL;
    }
  return mime;
}

static const struct
{
  const char *ext;
  const char *mime;
} mime_table[] = {
  /* Bitmap formats are typed by content only (image_type); their
   * extensions here only stop them from being sniffed as text. */
  { "png", NULL },
  { "jpg", NULL },
  { "jpeg", NULL },
  { "gif", NULL },
  { "webp", NULL },
  { "bmp", NULL },
  { "ico", NULL },
  { "tif", NULL },
  { "tiff", NULL },
  /* SVG is text to every client: shown as a file, never rendered. */
  { "svg", "image/svg+xml" },
  { "pdf", "application/pdf" },
  { "csv", "text/csv" },
  { "tsv", "text/tab-separated-values" },
  { "txt", "text/plain" },
  { "log", "text/plain" },
  { "md", "text/markdown" },
  { "json", "application/json" },
  { "html", "text/html" },
  { "htm", "text/html" },
  { "xml", "application/xml" },
  { "yaml", "application/yaml" },
  { "yml", "application/yaml" },
  { "py", "text/x-python" },
  { "js", "text/javascript" },
  { "mjs", "text/javascript" },
  { "sh", "application/x-sh" },
  { "zip", "application/zip" },
  { "gz", "application/gzip" },
  { "tar", "application/x-tar" },
  { "npy", "application/octet-stream" },
};

static const char *
sniff (const unsigned char *head, size_t n)
{
  if (n == 0)
    return "text/plain";
  if (n >= 5 && memcmp (head, "%PDF-", 5) == 0)
    return "application/pdf";

  /* Text if valid UTF-8, allowing a character cut at the 512-byte edge. */
  size_t consumed = 0;
  free (sp_utf8_sanitize ((const char *) head, n, false, &consumed, NULL));
  if (memchr (head, 0, n) == NULL && sp_utf8_valid ((const char *) head, consumed)
      && n - consumed < 4)
    return "text/plain";
  return "application/octet-stream";
}

/* A regular file's MIME type: image types by magic bytes and a bounded
 * size only, the rest by extension, then by a look at the first bytes. */
static char *
file_type (int fd, const char *path, int64_t *width, int64_t *height)
{
  const char *base = strrchr (path, '/');
  const char *dot = strrchr (base ? base : path, '.');
  unsigned char head[512];
  ssize_t n = pread (fd, head, sizeof head, 0);
  bool claimed = false;
  const char *mime;

  *width = *height = 0;
  if (n < 0)
    return xstrdup ("application/octet-stream");
  mime = image_type (fd, head, (size_t) n, &claimed, width, height);
  if (mime != NULL)
    return xstrdup (mime);
  if (claimed)
    return xstrdup ("application/octet-stream");
  if (dot != NULL)
    for (size_t i = 0; i < N_ELEMENTS (mime_table); i++)
      if (strcasecmp (dot + 1, mime_table[i].ext) == 0)
        return xstrdup (mime_table[i].mime ? mime_table[i].mime : "application/octet-stream");
  return xstrdup (sniff (head, (size_t) n));
}

static char *
read_base64 (int fd, size_t max_bytes)
{
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  Buf data = { 0 };
  char chunk[65536];
  ssize_t n;
  off_t off = 0;

  while ((n = pread (fd, chunk, sizeof chunk, off)) > 0 && data.len + (size_t) n <= max_bytes)
    {
      buf_append (&data, chunk, (size_t) n);
      off += n;
    }
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

/* ---- The report ----------------------------------------------------- */

static SpFileKind
kind_of (mode_t mode)
{
  if (S_ISREG (mode))
    return SP_FILE_REGULAR;
  if (S_ISLNK (mode))
    return SP_FILE_SYMLINK;
  if (S_ISFIFO (mode))
    return SP_FILE_FIFO;
  if (S_ISSOCK (mode))
    return SP_FILE_SOCKET;
  if (S_ISCHR (mode) || S_ISBLK (mode))
    return SP_FILE_DEVICE;
  return SP_FILE_OTHER;
}

/* Worth a person's attention: not a plain file, executable, or hidden
 * (.envrc, .bashrc, .git/hooks/...): what a run could plant for later. */
static bool
notable (const RunnerFileEntry *entry)
{
  return !S_ISREG (entry->mode) || (entry->mode & 0111) != 0 || entry->path[0] == '.'
         || strstr (entry->path, "/.") != NULL;
}

static bool
unchanged (const RunnerFileEntry *then, const RunnerFileEntry *now)
{
  if (then == NULL || then->size != now->size || then->mtime_ns != now->mtime_ns
      || then->ino != now->ino || then->mode != now->mode)
    return false;
  if ((then->target == NULL) != (now->target == NULL))
    return false;
  return then->target == NULL || strcmp (then->target, now->target) == 0;
}

static int
cmp_notable_first (const void *a, const void *b)
{
  const RunnerFileEntry *x = *(const RunnerFileEntry *const *) a;
  const RunnerFileEntry *y = *(const RunnerFileEntry *const *) b;

  if (notable (x) != notable (y))
    return notable (x) ? -1 : 1;
  return strcmp (x->path, y->path);
}

static int
cmp_entry_ptr (const void *a, const void *b)
{
  return cmp_entry (*(const RunnerFileEntry *const *) a, *(const RunnerFileEntry *const *) b);
}

static void
describe (int root, const RunnerFileEntry *entry, bool created, size_t *base64_budget,
          bool all_files, SpFileInfo *info)
{
  *info = (SpFileInfo){ 0 };
  info->path = runner_escape_name (entry->path, RUNNER_FILES_MAX_SHOWN_PATH);
  /* What is shown is not always the name: "notes\x0a.txt" may be the
   * escaped "notes\n.txt" or a file of that literal name, which the run
   * can make too. The client opens the bytes, never the shown text. */
  if (strcmp (info->path, entry->path) != 0)
    {
      if (strlen (entry->path) <= SP_FILE_MAX_NAME)
        info->name = xstrdup (entry->path);
      else
        info->name_left_out = true;
    }
  info->size = entry->size;
  info->created = created;
  info->kind = kind_of (entry->mode);
  if (info->kind != SP_FILE_REGULAR)
    {
      static const char *const inode_types[] = { NULL,           "inode/symlink",
                                                 "inode/fifo",   "inode/socket",
                                                 "inode/device", "application/octet-stream" };
      info->mime = xstrdup (inode_types[info->kind]);
      if (info->kind == SP_FILE_SYMLINK)
        info->target = runner_escape_name (entry->target ? entry->target : "",
                                           RUNNER_FILES_MAX_SHOWN_TARGET);
      return;
    }

  /* The file the snapshot found, by its path beneath the root, refusing
   * any symlink on the way: the run may have swapped a directory for one. */
  cleanup_fd int fd = openat_beneath (root, entry->path,
                                      O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, 0);
  struct stat st;
  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      info->mime = xstrdup ("application/octet-stream");
      return;
    }
  info->mime = file_type (fd, entry->path, &info->width, &info->height);
  /* Inline bytes for clients that cannot read the run's directory: in
   * file order while they fit the budget. */
  bool wanted = info->width > 0 || (all_files && st.st_size <= SP_FILE_INLINE_MAX);
  if (wanted && st.st_size >= 0 && (size_t) st.st_size / 3 * 4 + 4 <= *base64_budget)
    {
      size_t max = *base64_budget / 4 * 3;
      if (info->width <= 0 && max > SP_FILE_INLINE_MAX)
        max = SP_FILE_INLINE_MAX;
      info->base64 = read_base64 (fd, max);
      if (info->base64 != NULL)
        *base64_budget -= strlen (info->base64);
    }
}

/* A time before the runner started (a file a named cwd held, touched back)
 * is 0, the clock's start, as the wire allows no negative time. */
static int64_t
mtime_on_clock (int64_t mtime_ns, int64_t origin_ns)
{
  return mtime_ns > origin_ns ? (mtime_ns - origin_ns) / 1000000 : 0;
}

void
runner_files_changes (int dir_fd, const RunnerFileSnap *before, size_t base64_budget,
                      bool all_files, int64_t origin_ns, SpFileInfo **files, size_t *n_files,
                      bool *truncated)
{
  cleanup_fd int root = open_root (dir_fd);
  RunnerFileSnap after;
  const RunnerFileEntry **changed = NULL;
  size_t n_changed = 0;

  runner_files_snapshot (dir_fd, &after);
  *truncated = after.truncated;
  changed = xcalloc (after.n + 1, sizeof *changed);
  for (size_t i = 0; i < after.n; i++)
    if (!unchanged (snap_find (before, after.entries[i].path), &after.entries[i]))
      changed[n_changed++] = &after.entries[i];

  /* Too many: keep the ones that matter most, then back to path order. */
  if (n_changed > RUNNER_FILES_MAX_REPORT)
    {
      qsort (changed, n_changed, sizeof *changed, cmp_notable_first);
      n_changed = RUNNER_FILES_MAX_REPORT;
      *truncated = true;
      qsort (changed, n_changed, sizeof *changed, cmp_entry_ptr);
    }

  *files = n_changed ? xcalloc (n_changed, sizeof **files) : NULL;
  for (size_t i = 0; i < n_changed; i++)
    {
      describe (root, changed[i], snap_find (before, changed[i]->path) == NULL, &base64_budget,
                all_files, &(*files)[i]);
      (*files)[i].t_ms = mtime_on_clock (changed[i]->mtime_ns, origin_ns);
    }
  *n_files = n_changed;
  free (changed);
  runner_files_snap_clear (&after);
}
