/* sandpad-run-install.h: sandpad-run's --install mode. */
#pragma once

#include "runner-engine.h"
#include "runner-install.h"

/* argv as sandpad-run got it (argv[1] is "--install"); returns the exit
 * status: 0 installed, 1 refused or failed, 125 a usage error. */
int sandpad_run_install (int argc, char **argv, RunnerConfig *config, RunnerLanguages *langs);

/* Before `sandpad-run FILE.py`: a script's declared dependencies (PEP 723)
 * installed into run->environment from source's index or wheelhouse under
 * its policy (source's packages and environment are not read). 0 when
 * there were none or they are installed; else the exit status (125), the
 * reason on stderr, and the script must not run. */
int sandpad_run_install_declared (RunnerConfig *config, RunnerLanguages *langs, const SpRun *run,
                                  const RunnerInstallRequest *source);
