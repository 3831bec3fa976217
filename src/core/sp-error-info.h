/* sp-error-info.h: a run's error, read from its stderr.
 *
 * Python tracebacks (chained ones: the last exception wins; SyntaxError
 * with its column), node's stack traces and parse errors, and bash's
 * "line N:" messages become one structure: the error's type and message,
 * its frames from outermost to innermost, and the line (and column) in the
 * snippet to point at. The app shows it and marks the line; an assistant
 * can read it instead of the raw text. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct
{
  char *file;
  char *function; /* NULL when the interpreter does not say */
  int line;
  int column; /* 0 when unknown */
  gboolean in_snippet;
} SpErrorFrame;

typedef struct _SpErrorInfo SpErrorInfo;

#define SP_TYPE_ERROR_INFO (sp_error_info_get_type ())
GType sp_error_info_get_type (void) G_GNUC_CONST;

/* language: "python", "javascript", "bash"; snippet_name: the file name
 * the snippet ran under (main.py), to tell its frames from the library's.
 * Returns NULL when text holds no error this parser knows. */
SpErrorInfo *sp_error_info_parse (const char *language, const char *text, const char *snippet_name);

SpErrorInfo *sp_error_info_ref (SpErrorInfo *self);
void sp_error_info_unref (SpErrorInfo *self);

const char *sp_error_info_get_error_type (SpErrorInfo *self);
const char *sp_error_info_get_message (SpErrorInfo *self);
gboolean sp_error_info_is_syntax_error (SpErrorInfo *self);
guint sp_error_info_get_n_frames (SpErrorInfo *self);
const SpErrorFrame *sp_error_info_get_frame (SpErrorInfo *self, guint index);
/* The innermost frame in the snippet (its line, 1-based), 0 if none. */
int sp_error_info_get_line (SpErrorInfo *self);
int sp_error_info_get_column (SpErrorInfo *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpErrorInfo, sp_error_info_unref)

G_END_DECLS
