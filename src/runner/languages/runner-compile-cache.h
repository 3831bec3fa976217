/* runner-compile-cache.h: compiled snippets kept so identical code is not
 * compiled twice (issue 27).
 *
 * An entry is the compile step's output file, named by the SHA-256 of
 * everything that decides it: the language, the compiler's path, identity
 * and version, its arguments, its environment (fixed: runner-compile.c
 * says what the compile step sees, and when a run is not cached), the
 * sandbox mode and network, the snippet's name and its bytes. Each
 * entry starts with a header naming its key and the SHA-256 and length
 * of the output's bytes; a read checks all three over what it copies,
 * and an entry that fails is not used (a miss, which the compile then
 * replaces). The
 * directory is the runner's (0700, its owner's), held as an fd from its
 * check on; runs never see it (namespace mode does not bind it, Landlock
 * does not list it, and as root it is not nobody's). Its size is bounded:
 * past the cap, the least recently used entries go. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-langs.h"

#define RUNNER_COMPILE_CACHE_MAX_BYTES (256 * INT64_C (1024) * 1024)
/* One output larger than this is not kept (a sane program is far smaller). */
#define RUNNER_COMPILE_CACHE_MAX_ENTRY (64 * INT64_C (1024) * 1024)

typedef struct
{
  int dir_fd; /* -1: no cache (none could be made, or it was refused) */
  int64_t max_bytes;
} RunnerCompileCache;

/* Opens (making it, 0700) dir, or, when dir is NULL, the user's
 * $XDG_CACHE_HOME/sandpad/compiled (~/.cache/...). A directory that is not
 * ours or that others may write is refused: the cache is then off. */
void runner_compile_cache_open (RunnerCompileCache *cache, const char *dir);
void runner_compile_cache_close (RunnerCompileCache *cache);

/* The entry's key (64 hex digits) for this snippet, toolchain and
 * sandbox (namespace or fallback mode, network). */
void runner_compile_cache_key (RunnerLanguage *lang, const char *name, const char *code,
                               bool namespaces, bool network, char key[65]);

/* Whether the cache has its directory (matplotlib's font list is kept
 * there too, runner-font-cache.h). */
bool runner_compile_cache_ready (const RunnerCompileCache *cache);

/* Copies the entry's output to dest_dir_fd/dest_name (mode 0755, new);
 * true on a hit. An entry whose header or hash does not match what is
 * read is removed and false returned, with no file left at dest_name. */
bool runner_compile_cache_fetch (RunnerCompileCache *cache, const char *key, int dest_dir_fd,
                                 const char *dest_name);

/* Keeps a copy of src_dir_fd/src_name (a regular file, not followed if a
 * symlink) under key, with the hash of the bytes copied, replacing any
 * entry there; then trims the cache to its cap. Best effort. */
void runner_compile_cache_store (RunnerCompileCache *cache, const char *key, int src_dir_fd,
                                 const char *src_name);
