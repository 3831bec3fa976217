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
#include "runner-install-guard.h"
#include "runner-install-policy.h"

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
