/* sp-runner-error.c: the SP_RUNNER_ERROR domain. */
#include "sp-runner-error-private.h"

G_DEFINE_QUARK (sp - runner - error - quark, sp_runner_error)

/* The protocol codes are laid out in SpProtoErrorCode's order, so the
 * mapping is an offset; these catch a reordering at compile time. */
G_STATIC_ASSERT (SP_RUNNER_ERROR_INVALID_JSON - SP_ERR_INVALID_JSON
                 == SP_RUNNER_ERROR_UNKNOWN_SESSION - SP_ERR_UNKNOWN_SESSION);
G_STATIC_ASSERT (SP_ERR_UNKNOWN_SESSION + 1 == SP_ERR_LAST);
G_STATIC_ASSERT (SP_ERR_INVALID_JSON == 1);

SpRunnerError
sp_runner_error_from_proto (SpProtoErrorCode code)
{
  if (code <= SP_ERR_NONE || code >= SP_ERR_LAST)
    return SP_RUNNER_ERROR_FAILED;
  return (SpRunnerError) (SP_RUNNER_ERROR_INVALID_JSON + (code - SP_ERR_INVALID_JSON));
}

SpRunnerError
sp_runner_error_from_string (const char *code)
{
  g_return_val_if_fail (code != NULL, SP_RUNNER_ERROR_FAILED);
  return sp_runner_error_from_proto (sp_proto_error_code_from_string (code));
}

const char *
sp_runner_error_to_string (SpRunnerError code)
{
  if (code < SP_RUNNER_ERROR_INVALID_JSON || code > SP_RUNNER_ERROR_UNKNOWN_SESSION)
    return NULL;
  return sp_proto_error_code_to_string (
    (SpProtoErrorCode) (SP_ERR_INVALID_JSON + (code - SP_RUNNER_ERROR_INVALID_JSON)));
}
