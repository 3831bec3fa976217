/* sp-runner-error.h: SP_RUNNER_ERROR, what can go wrong talking to the runner.
 *
 * Two kinds of codes share the domain: the runner's own protocol error
 * codes (an "error" event, or a frame from the runner that does not
 * decode), one for one with SpProtoErrorCode, and the client's (spawning,
 * the handshake timing out, the connection closing). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SP_RUNNER_ERROR (sp_runner_error_quark ())

typedef enum
{
  SP_RUNNER_ERROR_FAILED,    /* none of the below */
  SP_RUNNER_ERROR_SPAWN,     /* the runner could not be started */
  SP_RUNNER_ERROR_TIMEOUT,   /* it did not answer the handshake in time */
  SP_RUNNER_ERROR_CLOSED,    /* it exited, crashed or closed its socket */
  SP_RUNNER_ERROR_NOT_READY, /* a request before the handshake or after close */
  /* The protocol's codes (docs/protocol.md), same order as SpProtoErrorCode. */
  SP_RUNNER_ERROR_INVALID_JSON,
  SP_RUNNER_ERROR_NOT_OBJECT,
  SP_RUNNER_ERROR_BAD_VERSION,
  SP_RUNNER_ERROR_UNKNOWN_TYPE,
  SP_RUNNER_ERROR_MISSING_FIELD,
  SP_RUNNER_ERROR_WRONG_TYPE,
  SP_RUNNER_ERROR_INVALID_VALUE,
  SP_RUNNER_ERROR_UNKNOWN_FIELD,
  SP_RUNNER_ERROR_FRAME_TOO_LARGE,
  SP_RUNNER_ERROR_NUL_BYTE,
  SP_RUNNER_ERROR_UNKNOWN_RUN,
  SP_RUNNER_ERROR_DUPLICATE_RUN,
  SP_RUNNER_ERROR_RUN_STATE,
  SP_RUNNER_ERROR_UNSUPPORTED_LANGUAGE,
  SP_RUNNER_ERROR_LIMIT,
  SP_RUNNER_ERROR_IO,
  SP_RUNNER_ERROR_INTERNAL,
  SP_RUNNER_ERROR_UNKNOWN_SESSION,
} SpRunnerError;

GQuark sp_runner_error_quark (void);

/* The same from a wire name ("unknown_run"). */
SpRunnerError sp_runner_error_from_string (const char *code);
/* The wire name of a protocol code; NULL for the client's own codes. */
const char *sp_runner_error_to_string (SpRunnerError code);

G_END_DECLS
