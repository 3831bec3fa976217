/* runner-prelude-cache.c: writes the prelude's .pyc beside the prelude.
 *
 * The file is built from the same prelude text (prelude-dump.c,
 * prelude-pyc.py) and is hash-checked: Python reads it only under its own
 * cache tag and magic number and only while it matches the source's hash,
 * and compiles the source otherwise. It is no less the runner's than the
 * source: the run reads both and may change neither. */
#include "runner-prelude-cache.h"

#include <fcntl.h>
#include <sys/stat.h>

#include "runner-base.h"

int
runner_prelude_write_cache (const char *dir)
{
  if (runner_python_prelude_pyc_name[0] == '\0')
    return 0;
  cleanup_free char *cache = xasprintf ("%s/__pycache__", dir);
  cleanup_free char *path = xasprintf ("%s/%s", cache, runner_python_prelude_pyc_name);
  if (mkdir (cache, 0755) != 0)
    return -1;
  cleanup_fd int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
  if (fd < 0)
    return -1;
  return write_all (fd, runner_python_prelude_pyc, runner_python_prelude_pyc_len);
}
