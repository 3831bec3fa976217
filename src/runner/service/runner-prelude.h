/* runner-prelude.h: the Python prelude every Python run gets. */
#pragma once

extern const char runner_python_prelude[];
