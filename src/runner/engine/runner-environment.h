/* runner-environment.h: the engine's verdict on a request's
 * "environment" (a venv or node_modules to run with), against the
 * runner's path policy and its own directories (runner-environment.c). */
#pragma once

#include <stdbool.h>

#include "sp-proto.h"
#include "runner-host.h"
#include "runner-venv.h"

/* Checks req->environment (req->cwd already canonical) for the runner
 * host lends itself as; fills *env or returns -1 with err set. */
int _runner_environment_check (const RunnerHost *host, const SpRun *req, bool writable,
                               RunnerEnv *env, SpProtoError *err);
