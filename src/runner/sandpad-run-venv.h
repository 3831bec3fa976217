/* sandpad-run-venv.h: sandpad-run's --create-venv mode. */
#pragma once

/* argv as sandpad-run got it (argv[1] is "--create-venv", argv[2] the
 * new folder); returns the exit status: 0 made, 1 failed, 125 a usage
 * error. */
int sandpad_run_create_venv (int argc, char **argv);
