/* sp-run-request-private.h: a request as a wire message (core only). */
#pragma once

#include "sp-proto.h"
#include "sp-run-request.h"

G_BEGIN_DECLS

/* Fills a protocol run message (strings copied) with the given id. */
void _sp_run_request_to_message (SpRunRequest *self, const char *id, SpMessage *msg);

G_END_DECLS
