/* runner-prelude-cache.h: the Python prelude compiled when the runner was
 * built (prelude-pyc.py), written beside it in each Python run. */
#pragma once

#include <stddef.h>

/* "sitecustomize.cpython-311.pyc"; "" when the build had no python3. */
extern const char runner_python_prelude_pyc_name[];
extern const unsigned char runner_python_prelude_pyc[];
extern const size_t runner_python_prelude_pyc_len;

/* Writes dir/__pycache__/NAME (read-only to everyone but its owner);
 * nothing when there is none. Returns 0 or -1 with errno set. */
int runner_prelude_write_cache (const char *dir);
