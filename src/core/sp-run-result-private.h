/* sp-run-result-private.h: building a result from the wire (core only). */
#pragma once

#include "sp-proto.h"
#include "sp-run-result.h"

G_BEGIN_DECLS

SpRunResult *_sp_run_result_new (const SpExited *exited, gint64 timeout_ms, gint64 memory_mib,
                                 const char *cwd);

/* Built from exited's program_error by the client, which knows the run's
 * file name. */
void _sp_run_result_set_error_info (SpRunResult *self, SpErrorInfo *info);

/* The notice an output_omitted event shows in its place among the output:
 * how much of the stream's middle was left out past the output limit, and
 * the run's file that holds all of it. */
char *_sp_output_omitted_describe (const SpOutputOmitted *omitted);

G_END_DECLS
