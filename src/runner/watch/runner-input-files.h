/* runner-input-files.h: files a front end hands a run (sandpad-mcp's
 * execute_code "files"), written into the run's working directory when
 * the run starts, before its file snapshot, so the report after the run
 * shows what the program made of them, not the files themselves.
 *
 * One writer for a cold run's fresh private directory and a session's
 * long-lived one alike. The session's code from an earlier call may have
 * left anything at a given path (a symlink to a file outside, a
 * directory, a FIFO, a hard link) and may still run in the background,
 * so every part is looked up beneath the held directory fd (openat2
 * RESOLVE_BENEATH, no symlinks, no other mount), never by name, and an
 * existing file is overwritten only when it is a regular file of the
 * run's uid with no other link; anything else refuses the write with a
 * message that names the path and what was found there. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sp-proto.h"

#define RUNNER_INPUT_FILES_MAX 64
#define RUNNER_INPUT_PATH_MAX 1024

typedef struct
{
  char *path; /* relative, plain parts: runner_input_files_check */
  char *data;
  size_t len;
} RunnerInputFile;

/* The set is one a run can take: at most RUNNER_INPUT_FILES_MAX files,
 * each path relative without "", "." or ".." parts, no path given twice
 * or as a directory of another, max_bytes (0: no cap) in all. The
 * message names the offending file by its index and path. */
int runner_input_files_check (const RunnerInputFile *files, size_t n, int64_t max_bytes,
                              SpProtoError *err);

/* Writes the set beneath dir_fd (an O_PATH fd will do), making parent
 * directories as needed; what it makes belongs to owner. Stops at the
 * first file it cannot write. */
int runner_input_files_write (int dir_fd, const RunnerInputFile *files, size_t n, uid_t owner,
                              SpProtoError *err);

RunnerInputFile *runner_input_files_copy (const RunnerInputFile *files, size_t n);
void runner_input_files_free (RunnerInputFile *files, size_t n);
