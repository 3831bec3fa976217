/* runner-files.h: what a run created or changed in its working directory.
 *
 * The directory is walked before and after the run without following
 * symlinks (a run must not be able to make the runner describe, or later
 * hand out, files outside its directory), with caps on depth and count so
 * a run that creates a million files cannot stall the runner. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sp-proto.h"

#define RUNNER_FILES_MAX_WALK 20000 /* entries looked at per walk */
#define RUNNER_FILES_MAX_DEPTH 16
#define RUNNER_FILES_MAX_REPORT 200 /* files listed in "exited" */

typedef struct
{
  char *path; /* relative */
  int64_t size;
  int64_t mtime_ns;
  uint64_t ino;
  int64_t blocks; /* 512-byte blocks allocated */
} RunnerFileEntry;

typedef struct
{
  RunnerFileEntry *entries; /* sorted by path */
  size_t n;
  bool truncated;
} RunnerFileSnap;

void runner_files_snapshot (const char *dir, RunnerFileSnap *snap);
void runner_files_snap_clear (RunnerFileSnap *snap);

/* Lists files that are new or changed since before (NULL: everything). */
void runner_files_changes (const char *dir, const RunnerFileSnap *before, SpFileInfo **files,
                           size_t *n_files, bool *truncated);

/* Bytes the regular files beneath dir occupy on disk (st_blocks), walked
 * with the same caps and without following symlinks. */
int64_t runner_files_usage (const char *dir);

/* The file's bytes base64-encoded, if it is a regular file of at most
 * max_bytes (read without following symlinks); NULL otherwise. */
char *runner_files_base64 (const char *dir, const char *rel_path, size_t max_bytes);

/* MIME type by extension, falling back to sniffing the first bytes. */
char *runner_files_mime (const char *dir, const char *rel_path);
