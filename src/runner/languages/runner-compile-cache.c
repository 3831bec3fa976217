/* runner-compile-cache.c: compiled snippets, by the hash of what made them. */
#include "runner-compile-cache.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner-base.h"
#include "runner-sha256.h"

/* Makes each missing directory of path, 0700. */
static void
make_dirs (const char *path)
{
  cleanup_free char *copy = xstrdup (path);

  for (char *c = copy + 1; *c; c++)
    if (*c == '/')
      {
        *c = '\0';
        mkdir (copy, 0700);
        *c = '/';
      }
  mkdir (copy, 0700);
}

void
runner_compile_cache_open (RunnerCompileCache *cache, const char *dir)
{
  cleanup_free char *path = NULL;
  struct stat st;

  cache->dir_fd = -1;
  cache->max_bytes = RUNNER_COMPILE_CACHE_MAX_BYTES;
  if (dir != NULL)
    path = xstrdup (dir);
  else
    {
      const char *xdg = getenv ("XDG_CACHE_HOME"), *home = getenv ("HOME");
      if (xdg != NULL && xdg[0] == '/')
        path = xasprintf ("%s/sandpad/compiled", xdg);
      else if (home != NULL && home[0] == '/')
        path = xasprintf ("%s/.cache/sandpad/compiled", home);
      else
        return;
    }
  if (path[0] != '/')
    return;
  make_dirs (path);
  int fd = open_no_symlinks (path, O_RDONLY | O_DIRECTORY);
  /* Another user's directory, or one others may write, could hand a run
   * a program that is not its snippet's. */
  if (fd < 0 || fstat (fd, &st) != 0 || st.st_uid != geteuid () || (st.st_mode & 022) != 0)
    {
      if (fd >= 0)
        close (fd);
      return;
    }
  cache->dir_fd = fd;
}

void
runner_compile_cache_close (RunnerCompileCache *cache)
{
  if (cache->dir_fd >= 0)
    close (cache->dir_fd);
  cache->dir_fd = -1;
}

static void
hash_field (RunnerSha256 *ctx, const char *text)
{
  /* Each field with its length first: no two lists hash alike. */
  uint64_t len = strlen (text);

  runner_sha256_update (ctx, &len, sizeof len);
  runner_sha256_update (ctx, text, len);
}

void
runner_compile_cache_key (RunnerLanguage *lang, const char *name, const char *code, bool namespaces,
                          bool network, char key[65])
{
  RunnerSha256 ctx;
  struct stat st = { 0 };
  char identity[96];

  runner_sha256_init (&ctx);
  hash_field (&ctx, "sandpad compile cache 2");
  hash_field (&ctx, lang->name);
  hash_field (&ctx, lang->path);
  hash_field (&ctx, runner_lang_version (lang));
  /* A compiler replaced in place (an upgrade) under the same version
   * string still makes another key. */
  stat (lang->path, &st);
  snprintf (identity, sizeof identity, "%llu:%llu:%lld:%lld", (unsigned long long) st.st_dev,
            (unsigned long long) st.st_ino, (long long) st.st_size, (long long) st.st_mtim.tv_sec);
  hash_field (&ctx, identity);
  for (size_t i = 0; lang->compiler->args[i] != NULL; i++)
    hash_field (&ctx, lang->compiler->args[i]);
  /* The compile step's whole environment (runner-compile.c), as the
   * templates it is made from. */
  for (size_t i = 0; runner_compile_env_base[i] != NULL; i++)
    hash_field (&ctx, runner_compile_env_base[i]);
  for (size_t i = 0; lang->compiler->env != NULL && lang->compiler->env[i] != NULL; i++)
    hash_field (&ctx, lang->compiler->env[i]);
  /* The sandbox it ran in: the paths the compiler is given (and may
   * write into the output, as __FILE__ or a panic's location) are the
   * mode's. */
  hash_field (&ctx, namespaces ? "namespaces" : "fallback");
  hash_field (&ctx, network ? "network" : "no network");
  hash_field (&ctx, name);
  hash_field (&ctx, code);
  runner_sha256_hex (&ctx, key);
}

/* An entry is a header and the output's bytes. The header names the key
 * it was written under, the SHA-256 and the length of what follows,
 * fixed-width so a read takes exactly its size:
 *   "SPCC2 KEY SHA256 LENGTH\n" (64 hex, 64 hex, 20 decimal digits). */
#define ENTRY_MAGIC "SPCC2 "
#define ENTRY_HEADER_LEN (sizeof ENTRY_MAGIC - 1 + 64 + 1 + 64 + 1 + 20 + 1)

static void
entry_header (char out[ENTRY_HEADER_LEN + 1], const char *key, const char *hash, int64_t len)
{
  snprintf (out, ENTRY_HEADER_LEN + 1, ENTRY_MAGIC "%.64s %.64s %020lld\n", key, hash,
            (long long) len);
}

/* Copies at most max bytes of from to to, hashing them; -1 past max. */
static int
copy_hashed (int from, int to, int64_t max, RunnerSha256 *ctx, int64_t *copied)
{
  char buf[65536];
  int64_t total = 0;
  ssize_t n;

  while ((n = read (from, buf, sizeof buf)) > 0)
    {
      total += n;
      if (total > max || write_all (to, buf, (size_t) n) != 0)
        return -1;
      runner_sha256_update (ctx, buf, (size_t) n);
    }
  *copied = total;
  return n < 0 ? -1 : 0;
}

/* Removes the entry whose fd is from, if its name still leads to it (a
 * good one another runner just renamed there stays). */
static void
drop_entry (RunnerCompileCache *cache, const char *key, int from)
{
  struct stat held, named;

  if (fstat (from, &held) == 0 && fstatat (cache->dir_fd, key, &named, AT_SYMLINK_NOFOLLOW) == 0
      && held.st_dev == named.st_dev && held.st_ino == named.st_ino)
    unlinkat (cache->dir_fd, key, 0);
}

bool
runner_compile_cache_fetch (RunnerCompileCache *cache, const char *key, int dest_dir_fd,
                            const char *dest_name)
{
  char header[ENTRY_HEADER_LEN + 1], want[ENTRY_HEADER_LEN + 1], hash[65];
  struct stat st;
  RunnerSha256 ctx;
  int64_t len = 0, copied = 0;

  if (cache->dir_fd < 0)
    return false;
  cleanup_fd int from = openat (cache->dir_fd, key, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (from < 0 || fstat (from, &st) != 0 || !S_ISREG (st.st_mode))
    return false;
  /* The header as this key's entry of this size would have it; the hash
   * is checked after the copy, over the bytes copied. Anything else (an
   * old format, another key's entry renamed here, an entry cut short or
   * grown) is not used, and goes: the compile that follows replaces it. */
  len = (int64_t) st.st_size - (int64_t) ENTRY_HEADER_LEN;
  if (len <= 0 || len > RUNNER_COMPILE_CACHE_MAX_ENTRY
      || read (from, header, ENTRY_HEADER_LEN) != (ssize_t) ENTRY_HEADER_LEN)
    {
      drop_entry (cache, key, from);
      return false;
    }
  header[ENTRY_HEADER_LEN] = '\0';
  memcpy (hash, header + sizeof ENTRY_MAGIC - 1 + 65, 64);
  hash[64] = '\0';
  entry_header (want, key, hash, len);
  if (strcmp (header, want) != 0)
    {
      drop_entry (cache, key, from);
      return false;
    }
  cleanup_fd int to = openat (dest_dir_fd, dest_name,
                              O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0755);
  if (to < 0)
    return false;
  runner_sha256_init (&ctx);
  bool same = copy_hashed (from, to, len, &ctx, &copied) == 0 && copied == len;
  if (same)
    {
      char got[65];
      runner_sha256_hex (&ctx, got);
      same = strcmp (got, hash) == 0;
    }
  if (!same)
    {
      /* Not what was written: never run. The build directory gets the
       * compiler's output instead. */
      unlinkat (dest_dir_fd, dest_name, 0);
      drop_entry (cache, key, from);
      return false;
    }
  /* Used now: the last the trim removes. */
  futimens (from, NULL);
  return true;
}

typedef struct
{
  char name[72];
  int64_t bytes;
  struct timespec used;
} Entry;

static int
older_first (const void *a, const void *b)
{
  const Entry *x = a, *y = b;

  if (x->used.tv_sec != y->used.tv_sec)
    return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  return x->used.tv_nsec < y->used.tv_nsec ? -1 : x->used.tv_nsec > y->used.tv_nsec;
}

/* Removes the least recently used entries until the cache fits its cap. */
static void
trim (RunnerCompileCache *cache)
{
  int fd = openat (cache->dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *dir = fd >= 0 ? fdopendir (fd) : NULL;
  Entry *entries = NULL;
  size_t n = 0, cap = 0;
  int64_t total = 0;
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
      if (strlen (de->d_name) != 64
          || fstatat (cache->dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        continue;
      if (n == cap)
        {
          cap = cap ? cap * 2 : 64;
          entries = xrealloc (entries, cap * sizeof *entries);
        }
      /* 64 hex digits and the NUL, checked above. */
      memcpy (entries[n].name, de->d_name, 65);
      entries[n].bytes = (int64_t) st.st_blocks * 512;
      entries[n].used = st.st_mtim;
      total += entries[n].bytes;
      n++;
    }
  closedir (dir);
  qsort (entries, n, sizeof *entries, older_first);
  for (size_t i = 0; i < n && total > cache->max_bytes; i++)
    if (unlinkat (cache->dir_fd, entries[i].name, 0) == 0)
      total -= entries[i].bytes;
  free (entries);
}

void
runner_compile_cache_store (RunnerCompileCache *cache, const char *key, int src_dir_fd,
                            const char *src_name)
{
  char header[ENTRY_HEADER_LEN + 1], hash[65], tmp[96];
  struct stat st;
  RunnerSha256 ctx;
  int64_t copied = 0;

  if (cache->dir_fd < 0)
    return;
  cleanup_fd int from = openat (src_dir_fd, src_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (from < 0 || fstat (from, &st) != 0 || !S_ISREG (st.st_mode)
      || st.st_size > RUNNER_COMPILE_CACHE_MAX_ENTRY)
    return;
  snprintf (tmp, sizeof tmp, ".new-%ld-%.16s", (long) getpid (), key);
  cleanup_fd int to = openat (cache->dir_fd, tmp,
                              O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0700);
  if (to < 0)
    return;
  /* The header's place first, the bytes hashed as they are written, then
   * the header with their hash: it vouches for exactly what is kept. */
  memset (header, ' ', ENTRY_HEADER_LEN);
  runner_sha256_init (&ctx);
  bool ok = write_all (to, header, ENTRY_HEADER_LEN) == 0
            && copy_hashed (from, to, RUNNER_COMPILE_CACHE_MAX_ENTRY, &ctx, &copied) == 0
            && copied > 0;
  if (ok)
    {
      runner_sha256_hex (&ctx, hash);
      entry_header (header, key, hash, copied);
      ok = pwrite (to, header, ENTRY_HEADER_LEN, 0) == (ssize_t) ENTRY_HEADER_LEN;
    }
  /* Whole or not at all: a runner killed mid-copy leaves a .new- file,
   * never a short entry under the key. */
  if (!ok || renameat (cache->dir_fd, tmp, cache->dir_fd, key) != 0)
    {
      unlinkat (cache->dir_fd, tmp, 0);
      return;
    }
  trim (cache);
}

bool
runner_compile_cache_ready (const RunnerCompileCache *cache)
{
  return cache->dir_fd >= 0;
}
