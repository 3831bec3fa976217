/* sp-runner-error-private.h: protocol error codes to SP_RUNNER_ERROR (core only). */
#pragma once

#include "sp-proto.h"
#include "sp-runner-error.h"

G_BEGIN_DECLS

/* SP_ERR_INVALID_JSON → SP_RUNNER_ERROR_INVALID_JSON; SP_ERR_NONE and
 * unknown values → SP_RUNNER_ERROR_FAILED. */
SpRunnerError sp_runner_error_from_proto (SpProtoErrorCode code);

G_END_DECLS
