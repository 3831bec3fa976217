/* runner-pep723.h: a Python snippet's inline script metadata (PEP 723),
 * read once here for every front end that runs Python (sandpad-run,
 * sandpad-mcp, the runner's protocol server), so that a script's declared
 * dependencies mean the same wherever it runs: installed into the run's
 * environment through runner-install.h (its policy, its refusals) before
 * the run starts, or the run refused with the reason. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef struct
{
  char **dependencies;   /* NULL-terminated, or NULL when none are declared */
  char *requires_python; /* or NULL */
} RunnerPep723;

/* 0: no "# /// script" block; 1: read into *meta; -1: malformed, why in
 * msg (nothing in *meta). */
int runner_pep723_parse (const char *code, RunnerPep723 *meta, char *msg, size_t msg_len);
void runner_pep723_clear (RunnerPep723 *meta);
/* 0 when the version have (major, minor, micro) meets requires-python spec. */
int runner_pep723_python_ok (const char *spec, const long have[3], char *msg, size_t msg_len);

typedef enum
{
  RUNNER_PEP723_NONE,           /* nothing to install (none declared, or the
                                 * environment has them all): run as it is,
                                 * with no install step */
  RUNNER_PEP723_INSTALL,        /* *deps, what environment lacks, to install
                                 * into it first */
  RUNNER_PEP723_NO_ENVIRONMENT, /* deps declared, but no environment to take
                                 * them: refuse the run (never install into
                                 * a home or the system) */
  RUNNER_PEP723_INVALID,        /* malformed, or requires-python not met: msg */
} RunnerPep723Verdict;

/* What a front end does with code before running it in environment (a
 * venv, or NULL): reads the block, checks requires-python against the
 * environment's pyvenv.cfg (INVALID: msg says why, and that nothing was
 * installed or run), and hands out the dependencies (*deps, malloc'd,
 * NULL-terminated) when there are any to install: with an environment,
 * only those runner_pep723_missing() finds it lacks, so every front end
 * skips the install the same way; with none (NO_ENVIRONMENT), all. */
RunnerPep723Verdict runner_pep723_declared (const char *code, const char *environment, char ***deps,
                                            char *msg, size_t msg_len);

/* The specs of deps the environment (a venv) does not have yet: a
 * distribution of that name in its site-packages (or the system's, when
 * pyvenv.cfg includes them), of the pinned version for name==version. A
 * range (name>=2) counts any installed version: the install path, not
 * this, decides versions. Malloc'd, NULL-terminated, maybe empty. */
char **runner_pep723_missing (const char *environment, char *const *deps);
