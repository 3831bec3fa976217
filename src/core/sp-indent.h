/* sp-indent.h: smart indentation for the editor's three languages, as
 * plain text in and out, so it is tested without a display (the app's
 * SpIndenter is the GtkSourceIndenter around it). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  SP_INDENT_OTHER,
  SP_INDENT_PYTHON,
  SP_INDENT_JAVASCRIPT,
  SP_INDENT_BASH,
} SpIndentLanguage;

/* From a GtkSourceLanguage id ("python3", "js", "sh"...); NULL: other. */
SpIndentLanguage sp_indent_language_from_id (const char *id);

/* The indent of a line started by Enter after `before`, the text up to
 * the end of the line the cursor was on (no newline of its own). Within an
 * open bracket: one level past the bracket's line when the bracket ends
 * its line, else aligned just after it. Otherwise the statement's indent,
 * one level more after a block opener (Python ':', a '{', Bash
 * then/do/else), one less after Python's return, pass, break, continue
 * and raise. `width` columns a level; tabs where `spaces` is FALSE. */
char *sp_indent_after_newline (SpIndentLanguage language, const char *before, guint width,
                               gboolean spaces);

/* The indent of a line whose first character is a closing bracket ('}',
 * ')' or ']'), given the text before that line: the indent of the line
 * that opened it. NULL when nothing is open (leave the line as it is). */
char *sp_indent_for_closer (SpIndentLanguage language, const char *before_line, guint width,
                            gboolean spaces);

G_END_DECLS
