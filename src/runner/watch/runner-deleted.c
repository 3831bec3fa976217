/* runner-deleted.c: see runner-deleted.h. */
#include "runner-deleted.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "runner-base.h"

typedef struct
{
  dev_t dev;
  ino_t ino;
} FileId;

typedef struct
{
  FileId *ids;
  size_t n, cap;
  int64_t total;
} Tally;

static void
add (Tally *tally, dev_t dev, ino_t ino, int64_t bytes)
{
  for (size_t i = 0; i < tally->n; i++)
    if (tally->ids[i].dev == dev && tally->ids[i].ino == ino)
      return;
  if (tally->n == tally->cap)
    {
      tally->cap = tally->cap ? tally->cap * 2 : 16;
      tally->ids = xrealloc (tally->ids, tally->cap * sizeof *tally->ids);
    }
  tally->ids[tally->n++] = (FileId){ dev, ino };
  tally->total += bytes;
}

/* A deleted file can also outlive its last fd as a mapping. Its size is
 * not readable without privileges (map_files), so the mapping's length
 * stands in for it: a bound, not a measure. */
static void
add_mapped (Tally *tally, pid_t pid)
{
  char path[64], line[4096 + 128];

  snprintf (path, sizeof path, "/proc/%d/maps", (int) pid);
  FILE *maps = fopen (path, "re");
  if (maps == NULL)
    return;
  while (fgets (line, sizeof line, maps) != NULL)
    {
      unsigned long start, end, inode;
      unsigned int major, minor;

      if (strstr (line, " (deleted)\n") == NULL
          || sscanf (line, "%lx-%lx %*s %*s %x:%x %lu", &start, &end, &major, &minor, &inode) != 5
          || inode == 0)
        continue;
      add (tally, makedev (major, minor), (ino_t) inode, (int64_t) (end - start));
    }
  fclose (maps);
}

int64_t
runner_deleted_bytes (const pid_t *pids, size_t n_pids)
{
  Tally tally = { 0 };

  for (size_t p = 0; p < n_pids; p++)
    {
      char path[64];
      snprintf (path, sizeof path, "/proc/%d/fd", (int) pids[p]);
      int dfd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      DIR *dir = dfd >= 0 ? fdopendir (dfd) : NULL;
      struct dirent *entry;

      if (dir == NULL)
        {
          if (dfd >= 0)
            close (dfd);
          continue; /* gone already, or not ours to read */
        }
      while ((entry = readdir (dir)) != NULL)
        {
          struct stat st;

          /* stat through the magic link: the open file itself, name or
           * not. */
          if (entry->d_name[0] == '.' || fstatat (dfd, entry->d_name, &st, 0) != 0)
            continue;
          if (S_ISREG (st.st_mode) && st.st_nlink == 0)
            add (&tally, st.st_dev, st.st_ino, (int64_t) st.st_blocks * 512);
        }
      closedir (dir);
      add_mapped (&tally, pids[p]);
    }
  free (tally.ids);
  return tally.total;
}
