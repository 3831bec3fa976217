/* runner-prelude.h: the Python prelude every Python run gets
 * (runner-prelude.py, embedded as C text when the runner is built). */
#pragma once

extern const char runner_python_prelude[];
