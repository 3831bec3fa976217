/* sp-program-error-private.h: exited's "program_error" object on the
 * wire, for the exited encoder and decoder. */
#pragma once

#include <jansson.h>

#include "sp-proto.h"

/* Adds "program_error" to obj when error is not NULL; clears *ok on a
 * string that is not UTF-8 or too many frames. */
void sp_program_error_encode (json_t *obj, const SpProgramError *error, bool *ok);
/* obj's field key ("program_error" in exited, "error" in the run
 * journal); leaves *out NULL when the field is absent. */
int sp_program_error_decode (json_t *obj, const char *key, SpProgramError **out, SpProtoError *err);
