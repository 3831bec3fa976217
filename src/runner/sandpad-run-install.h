/* sandpad-run-install.h: sandpad-run's --install mode. */
#pragma once

#include "runner-engine.h"

/* argv as sandpad-run got it (argv[1] is "--install"); returns the exit
 * status: 0 installed, 1 refused or failed, 125 a usage error. */
int sandpad_run_install (int argc, char **argv, RunnerConfig *config, RunnerLanguages *langs);
