/* runner-deleted.h: disk space held by files a run deleted but keeps open.
 *
 * A file that is open and unlinked has no name, so no walk of the working
 * directory sees it, yet its blocks stay in use until the last fd closes:
 * fifty such files of RLIMIT_FSIZE each would pass any walk-based cap.
 * The disk check adds what these hold, found through /proc/PID/fd of the
 * run's processes. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

/* Bytes (allocated blocks) of regular files with no links left that the
 * processes in pids[] hold open, counting each file once. */
int64_t runner_deleted_bytes (const pid_t *pids, size_t n_pids);
