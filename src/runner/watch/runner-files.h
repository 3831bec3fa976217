/* runner-files.h: what a run wrote in its directories, and how much.
 *
 * Three walks, all without following symlinks (a run must not be able to
 * make the runner describe, change or later hand out files outside its
 * directory) and all with a bounded number of open fds whatever the depth
 * (the way back up is "..", checked against the directory we came from):
 *
 * - usage: the disk cap. Exact or conservative: every entry counts, of
 *   every type, at least RUNNER_FILES_ENTRY_MIN_BYTES; a walk that cannot
 *   finish within its bounds (too many entries, too deep, unreadable, or
 *   moved under us three times) is reported incomplete, and the caller
 *   treats that as over the limit.
 * - strip: after a run, setuid and setgid bits on files it created or
 *   changed are cleared, through fds.
 * - snapshot / changes: the "files" report. This one may be truncated
 *   (and says so); it never decides a limit.
 *
 * Each takes the directory as an fd (O_PATH will do) that the caller
 * opened when it checked the directory, never as a name: a name is looked
 * up again, and a run can swap a part of it for a symlink meanwhile. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp-proto.h"

#define RUNNER_FILES_SNAP_MAX_ENTRIES 20000 /* entries looked at for the report */
#define RUNNER_FILES_SNAP_MAX_DEPTH 16
#define RUNNER_FILES_MAX_REPORT 200 /* entries listed in "exited" */
/* Accounting: deeper than this is over the disk limit. Nothing legitimate
 * nests this deep (PATH_MAX is 4096), and it bounds the walk's memory. */
#define RUNNER_FILES_USAGE_MAX_DEPTH 1024
/* What an entry costs at least: an empty file or a symlink still takes an
 * inode and a directory entry, which st_blocks does not show. */
#define RUNNER_FILES_ENTRY_MIN_BYTES 1024
/* Setuid/setgid stripping looks at up to this many entries after a run. */
#define RUNNER_FILES_STRIP_MAX_ENTRIES 1000000
/* What the report shows of a path or a symlink's target, in bytes. */
#define RUNNER_FILES_MAX_SHOWN_PATH 1024
#define RUNNER_FILES_MAX_SHOWN_TARGET 256
/* Images the report types as image/png, image/jpeg or image/gif, which
 * clients may decode: at most this many pixels a side and in all. */
#define RUNNER_FILES_IMAGE_MAX_SIDE 16384
#define RUNNER_FILES_IMAGE_MAX_PIXELS (64 * 1024 * 1024)

typedef struct
{
  char *path;   /* relative, raw bytes as on disk */
  char *target; /* symlinks: the target as read (capped), else NULL */
  int64_t size;
  int64_t mtime_ns;
  uint64_t ino;
  mode_t mode; /* type and permission bits */
} RunnerFileEntry;

typedef struct
{
  RunnerFileEntry *entries; /* sorted by path */
  size_t n;
  bool truncated;
} RunnerFileSnap;

void runner_files_snapshot (int dir_fd, RunnerFileSnap *snap);
void runner_files_snap_clear (RunnerFileSnap *snap);

typedef struct
{
  int64_t bytes;   /* allocated (st_blocks), at least RUNNER_FILES_ENTRY_MIN_BYTES each */
  int64_t entries; /* every entry beneath dir, directories included */
  bool complete;   /* false: the figures are a lower bound; treat as over */
} RunnerUsage;

/* Measures the directory, giving up (incomplete) past max_entries entries or
 * RUNNER_FILES_USAGE_MAX_DEPTH levels. */
void runner_files_usage (int dir_fd, int64_t max_entries, RunnerUsage *usage);

/* A run's writable space: the directory work_fd and, when tmp_fd >= 0
 * (fallback mode, where /tmp is no capped tmpfs), its private tmp,
 * summed; each walk gives up past max_entries (incomplete: treat as
 * over). */
void runner_files_space_usage (int work_fd, int tmp_fd, int64_t max_entries, RunnerUsage *usage);

/* Clears setuid and setgid on regular files beneath dir that are not in
 * before with those bits already set (before may be NULL). */
void runner_files_strip_setid (int dir_fd, const RunnerFileSnap *before);

/* Lists entries that are new or changed since before (NULL: everything):
 * regular files, symlinks, FIFOs, sockets and devices, not directories.
 * When more than RUNNER_FILES_MAX_REPORT changed, entries a person should
 * see first (anything not a regular file, executables, dot-files and what
 * lies in dot-directories, such as .envrc or .git/hooks/) are kept first.
 * With base64_budget > 0, images carry their bytes while they fit, and
 * with all_files other regular files of at most SP_FILE_INLINE_MAX bytes
 * too (in path order, from the same budget).
 * origin_ns is the wall-clock time of the runner's clock origin: each
 * entry's t_ms is its modification time on the runner's clock. */
void runner_files_changes (int dir_fd, const RunnerFileSnap *before, size_t base64_budget,
                           bool all_files, int64_t origin_ns, SpFileInfo **files, size_t *n_files,
                           bool *truncated);
