/* sp-error-info-private.h: an SpErrorInfo from the runner's program_error
 * (core only: it names a protocol type). */
#pragma once

#include "sp-error-info.h"
#include "sp-proto.h"

G_BEGIN_DECLS

/* snippet_name: the run's file name, which tells the snippet's frames
 * from the library's; NULL when the request named none, and then the
 * snippet's file is the one of the frame at the runner's "line". */
SpErrorInfo *_sp_error_info_new_from_proto (const SpProgramError *error, const char *snippet_name);

G_END_DECLS
