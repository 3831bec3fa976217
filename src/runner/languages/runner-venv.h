/* runner-venv.h: a run's environment, a Python venv or a node_modules.
 *
 * A workspace may hold its own packages: a Python virtual environment
 * (`.venv` or `venv`, made by `python3 -m venv`) or a JavaScript
 * `node_modules`. A run that names one (the request's "environment") runs
 * the venv's interpreter, so sys.prefix and site-packages are the venv's,
 * or gets NODE_PATH pointing at node_modules; either way the directory is
 * visible to the run read-only (runner-run.c puts it in the sandbox plan),
 * so a run never changes its environment.
 *
 * A venv is only a directory of files someone wrote, so it is checked
 * before every run: pyvenv.cfg present, its `home` one of the system's
 * interpreter directories, and bin/python a symlink (possibly through
 * others) to an interpreter there. A venv made with --copies, or one whose
 * bin/python was replaced by a script, is refused: the run would execute
 * a binary nobody installed through the system's package manager.
 *
 * Plain C, no GLib: the runner, sandpad-run and sandpad-mcp use it. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>

typedef enum
{
  RUNNER_ENV_PYTHON_VENV,
  RUNNER_ENV_NODE_MODULES,
} RunnerEnvKind;

typedef struct
{
  RunnerEnvKind kind;
  char *dir;    /* canonical path of the venv or node_modules */
  char *python; /* venv: dir/bin/python, the path to execute (unresolved,
                 * so Python finds pyvenv.cfg beside it) */
  char *base;   /* venv: the system interpreter bin/python resolves to */
  dev_t dev;    /* dir as checked: the sandbox binds and grants it only */
  ino_t ino;    /* through an fd found to be this directory */
} RunnerEnv;

/* The directories a venv's base interpreter may live in: the system's,
 * never one a user can write. NULL-terminated. */
extern const char *const runner_venv_system_dirs[];

/* Looks for `.venv` or `venv` (a directory holding pyvenv.cfg) in
 * start_dir, then in each parent up to stop_dir inclusive (NULL: up to
 * "/"). A start_dir outside stop_dir is searched alone. Returns the
 * canonical path (malloc'd) or NULL when there is none. Detection only:
 * check the result with runner_env_check(). */
char *runner_venv_find (const char *start_dir, const char *stop_dir);

/* Looks for `node_modules` the same way. */
char *runner_node_modules_find (const char *start_dir, const char *stop_dir);

/* Checks `path` as an environment for `language` ("python": a venv;
 * "javascript": a node_modules directory). On success fills *env and
 * returns 0; otherwise returns -1 with a sentence for the user in msg. */
int runner_env_check (const char *language, const char *path, RunnerEnv *env, char *msg,
                      size_t msg_len);

void runner_env_clear (RunnerEnv *env);

/* The value of `key = ...` in dir's pyvenv.cfg (malloc'd; at most 4 KiB
 * are read, the file is a handful of lines), or NULL. */
char *runner_venv_cfg_get (const char *dir, const char *key);

/* Whether canonical path lies at or below canonical dir. */
bool runner_env_within (const char *path, const char *dir);
