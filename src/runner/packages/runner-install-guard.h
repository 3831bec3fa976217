/* runner-install-guard.h: what the install step may not change in a venv
 * (runner-install-guard.c): pyvenv.cfg, bin/activate* and bin/python*,
 * kept before the step and put back after it. */
#pragma once

#include <stddef.h>

typedef struct RunnerVenvGuard RunnerVenvGuard;

/* Holds the venv as an fd and keeps pyvenv.cfg, bin/activate* and
 * bin/python* (bytes, or a link's target; mode, owner) and the names in
 * bin/. NULL with msg filled when they cannot be kept. */
RunnerVenvGuard *runner_venv_guard_new (const char *venv, char *msg, size_t msg_len);
/* After the step: puts back every kept file that changed or went, removes
 * new bin/activate* and bin/python*, and says which ("bin/activate,
 * bin/python3.99 (new)", malloc'd) in *changed, or NULL when none did.
 * *shadowing: new bin/ names that are common commands (ls, git, sudo),
 * malloc'd and NULL-terminated. -1 with msg when it could not put them
 * back. */
int runner_venv_guard_check (RunnerVenvGuard *guard, char **changed, char ***shadowing, char *msg,
                             size_t msg_len);
void runner_venv_guard_free (RunnerVenvGuard *guard);
