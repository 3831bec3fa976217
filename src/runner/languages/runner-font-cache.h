/* runner-font-cache.h: matplotlib's font list, made once and copied into
 * every Python run (issue 26, "The cold path's chart cost").
 *
 * A cold run starts with an empty MPLCONFIGDIR in its private tmp, so
 * matplotlib would rebuild its font list (a scan of every font, hundreds
 * of ms) on each import. The runner makes that list once, in a run of its
 * own in the sandbox (RUNNER_FONT_BUILD_ID, `import
 * matplotlib.font_manager`, no user code), harvests the one file it
 * leaves through fds (no symlink followed, a size cap, valid JSON of
 * matplotlib's shape) and keeps it in the compile cache's directory
 * (runner-compile-cache.h: the runner's, 0700, never visible to a run),
 * named by a key of what decides the list: the interpreter, matplotlib's
 * directories and the font directories (their identity and mtimes), so a
 * change to any of them makes a new key and a new build. Each Python run
 * gets a copy in its own MPLCONFIGDIR before it starts: whatever the run
 * does to its copy stays in its own tmp. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "runner-compile-cache.h"
#include "runner-langs.h"

/* A harvested or cached list larger than this is not used (Debian's with
 * a few hundred fonts is about 100 KiB). */
#define RUNNER_FONT_CACHE_MAX_BYTES (4 * 1024 * 1024)
/* Font lists kept at most, the newest: older keys' lists are removed. */
#define RUNNER_FONT_CACHE_KEEP 4

/* The build run's id: a control character, which no front end makes. */
#define RUNNER_FONT_BUILD_ID "\001sandpad-fonts"
/* Nice 19 (runs start at 10): it takes no slot, and yields the CPU to
 * every client's run. */
#define RUNNER_FONT_BUILD_CODE "import os\nos.nice(9)\nimport matplotlib.font_manager\n"
#define RUNNER_FONT_BUILD_TIMEOUT_MS (60 * 1000)
/* A long-lived runner remakes the key at most this often. */
#define RUNNER_FONT_KEY_TTL_NS (5 * 1000000000LL)

/* The list a fetch last read and checked, kept by the engine: a
 * long-lived runner copies the same list into every Python run, and
 * reading and parsing it again for each was ~0.5 ms of every run's start
 * (bench/README.md, daemon.sh). Only bytes that passed the checks are
 * kept, so a run never gets a list that did not. */
typedef struct
{
  char name[80];  /* its entry's name; "" when none is kept */
  struct stat st; /* the entry's identity when it was read */
  char *bytes;
  size_t len;
  long long version;
} RunnerFontMemo;

void runner_font_memo_clear (RunnerFontMemo *memo);

/* The key (64 hex digits) of the font list python would build now. */
void runner_font_cache_key (const RunnerLanguage *python, char key[65]);

/* Copies the list under key, checked again, into dest_dir_fd as
 * matplotlib names it (fontlist-vN.json, mode 0600, new). 0 on a copy,
 * -1 when there is none or it is refused. The entry is opened and
 * fstat'ed each time; it is read and checked again only when it is not
 * the file memo holds (device, inode, size, mtime and ctime). */
int runner_font_cache_fetch (RunnerCompileCache *cache, RunnerFontMemo *memo, const char *key,
                             int dest_dir_fd);

/* Takes the list the build run left in mpl_dir_fd (its MPLCONFIGDIR) and
 * keeps it under key when it passes the checks. 0 when kept. */
int runner_font_cache_harvest (RunnerCompileCache *cache, const char *key, int mpl_dir_fd);
