/* runner-install.h: installing packages into a run's environment.
 *
 * Nothing of a snippet runs during an install, and the network and a
 * writable environment are never granted together:
 *
 *   1. download: pip download, sandboxed, network on, by the venv's base
 *      interpreter in isolated mode (-I) and without the venv, so nothing
 *      an earlier install put there (a .pth file) runs while the network
 *      is on; into a directory of the runner's (wheels only unless the
 *      policy allows sdists: their setup.py is code that runs); no index
 *      configured means --no-index, never pip's default;
 *   2. check: the runner reads what came (names, versions, sizes, kinds)
 *      against the policy, hashes each file (SHA-256) and copies it into a
 *      second directory the next step may only read; a refusal names the
 *      rule;
 *   3. install: pip install --no-index --no-deps of exactly those files,
 *      sandboxed, network off, the environment its only writable place
 *      besides its own scratch directory; pyvenv.cfg, bin/activate* and
 *      bin/python* are kept before it and put back after it if changed
 *      (the install then fails naming them: activate is sourced outside
 *      any sandbox), and new bin/ commands named like common ones (ls,
 *      git) are warnings;
 *   4. log: one JSON line per installed file in the install log (outside
 *      the environment, where neither step can write), rotated past a size.
 *
 * The steps are ordinary runs of the engine with ids "<id>.download" and
 * "<id>.install", so their output reaches the front end like any run's.
 * The front end forwards every engine event to runner_install_event() and
 * calls runner_install_poll() after each loop iteration (a step is never
 * started or released from inside the engine's own callback). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "runner-engine.h"

typedef struct
{
  char **allow;      /* fnmatch patterns on normalized names (PEP 503);
                      * NULL or empty: every name may come in */
  char **block;      /* patterns refused whatever allow says */
  bool require_pins; /* every file must be requested as name==version */
  int64_t max_bytes; /* all files of one install together; 0: the default */
  bool allow_sdist;  /* accept source distributions (their setup.py runs) */
} RunnerInstallPolicy;

#define RUNNER_INSTALL_DEFAULT_MAX_BYTES (200 * INT64_C (1024) * 1024)
/* The install log is rotated (to .1) past this size. */
#define RUNNER_INSTALL_LOG_MAX_BYTES (1024 * 1024)

typedef struct
{
  const char *id;          /* the install's id; its runs add .download/.install */
  const char *environment; /* a venv (checked like a run's) */
  char *const *packages;   /* requirement specs: name, name==1.0, name>=2 */
  const char *index_url;   /* NULL: no index (--no-index, offline); then
                            * find_links must name a wheelhouse */
  char *const *find_links; /* local directories of wheels (a wheelhouse) */
  const char *log_path;    /* NULL: runner_install_default_log() */
  RunnerInstallPolicy policy;
} RunnerInstallRequest;

typedef enum
{
  RUNNER_INSTALL_RUNNING,
  RUNNER_INSTALL_DONE,    /* installed */
  RUNNER_INSTALL_REFUSED, /* the policy refused it, or the install step
                           * changed bin/activate*, bin/python* or
                           * pyvenv.cfg (put back); message names the
                           * rule or the files */
  RUNNER_INSTALL_FAILED,  /* a step failed (pip's error is in its output) */
} RunnerInstallState;

typedef struct
{
  char *name; /* normalized */
  char *version;
  char *file; /* the file's name */
  char sha256[65];
  int64_t size;
  bool sdist;
} RunnerInstallFile;

typedef struct RunnerInstall RunnerInstall;

/* Checks the request (environment, specs, policy before any download) and
 * submits the download step. Returns NULL with msg filled when refused at
 * once. */
RunnerInstall *runner_install_start (RunnerEngine *engine, const RunnerInstallRequest *req,
                                     char *msg, size_t msg_len);
/* Feeds an engine event; returns true when it was one of the install's. */
bool runner_install_event (RunnerInstall *inst, const SpMessage *msg);
/* Advances the install after an event; returns its state. */
RunnerInstallState runner_install_poll (RunnerInstall *inst);
/* The outcome in words ("installed tinypkg 1.0", or why not). */
const char *runner_install_message (RunnerInstall *inst);
/* What was installed (DONE) or checked so far. */
const RunnerInstallFile *runner_install_files (RunnerInstall *inst, size_t *n);
const char *runner_install_log_path (RunnerInstall *inst);
/* Warnings about an install that went through (DONE): new commands in
 * the venv's bin/ that shadow common ones ("bin/ls shadows ls ..."). */
char *const *runner_install_warnings (RunnerInstall *inst);
/* Runs still in the engine are released first (their directories go). */
void runner_install_free (RunnerInstall *inst);

/* $XDG_STATE_HOME/sandpad/installs.log, or ~/.local/state/sandpad/...
 * malloc'd; NULL when neither variable gives an absolute directory. */
char *runner_install_default_log (void);

/* ---- the policy, plain functions (runner-install-policy.c) ---- */

/* PEP 503: lower case, runs of "-", "_", "." as one "-". malloc'd. */
char *runner_install_normalize (const char *name);

/* Splits a requirement spec into a normalized name and, for name==version,
 * the pin (else *pin NULL). Refuses options ("-e", "--index-url"), paths
 * and URLs: only names from the index or find-links come in. */
int runner_install_parse_spec (const char *spec, char **name, char **pin, char *msg,
                               size_t msg_len);

/* Reads name and version from a distribution's file name: a wheel
 * (name-version(-build)?-py-abi-plat.whl) or an sdist (name-version.tar.gz,
 * .zip). Returns -1 for anything else. */
int runner_install_parse_file (const char *file, RunnerInstallFile *out);

/* The policy's verdict on one requested name (before any download): 0, or
 * -1 with the rule in msg. */
int runner_install_check_name (const RunnerInstallPolicy *policy, const char *name, char *msg,
                               size_t msg_len);

/* The verdict on what the download step brought: every file against the
 * lists, the pins of the request (names and pins parallel, n entries),
 * the kinds and the size cap. */
int runner_install_check_files (const RunnerInstallPolicy *policy, char *const *names,
                                char *const *pins, size_t n, const RunnerInstallFile *files,
                                size_t n_files, char *msg, size_t msg_len);

void runner_install_file_clear (RunnerInstallFile *file);

/* ---- what the install step may not change (runner-install-guard.c) ---- */

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
