/* sp-error-mark.h: the line a failed run stopped on, marked in the editor
 * without moving the caret or the view, and the jump to it. */
#pragma once

#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

/* The GtkSourceMark category of the mark (one at most in the buffer). */
#define SP_ERROR_MARK_CATEGORY "sandpad-error-line"

#define SP_TYPE_ERROR_MARK (sp_error_mark_get_type ())
G_DECLARE_FINAL_TYPE (SpErrorMark, sp_error_mark, SP, ERROR_MARK, GObject)

/* Marks lines of view's buffer (the buffer it has now). */
SpErrorMark *sp_error_mark_new (GtkSourceView *view);

/* Tints line (from 1) until the next clear or until its text is deleted
 * as a whole (a reload, a restore); edits elsewhere and on the line keep
 * it, and the caret, the selection and the scroll position stay where
 * they are. A line past the end marks nothing. */
void sp_error_mark_set_line (SpErrorMark *self, int line);
void sp_error_mark_clear (SpErrorMark *self);
/* The marked line (from 1), where the text has moved it; 0 when none
 * ("line" notifies). */
int sp_error_mark_get_line (SpErrorMark *self);

/* The caret to the start of the marked line, scrolled into view, and the
 * keyboard to the editor; FALSE when nothing is marked. */
gboolean sp_error_mark_jump (SpErrorMark *self);

G_END_DECLS
