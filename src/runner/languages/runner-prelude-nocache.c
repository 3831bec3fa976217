/* runner-prelude-nocache.c: no compiled prelude (the build had no
 * /usr/bin/python3): every Python run compiles the prelude itself. */
#include "runner-prelude-cache.h"

const char runner_python_prelude_pyc_name[] = "";
const unsigned char runner_python_prelude_pyc[1] = { 0 };
const size_t runner_python_prelude_pyc_len = 0;
