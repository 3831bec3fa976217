/* sp-text-fold.h: a text's long lines folded for a text view.
 *
 * A GtkTextView lays out each line as one Pango paragraph, and a line
 * without a space costs it time that grows with the square of its length:
 * one of 2,000 characters took 0.2 s, one of 50,000 over a minute (issue
 * 38: the run history showed a run's output so). The output panel folds a
 * long line in its model (sp-output-model.h); a view that shows a run's
 * text from elsewhere (the run history) folds it here: a line's first
 * max_bytes, never cut inside a character, then how much of it is not
 * shown. The text kept (the history's record) stays whole. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Lines of a text view: at most this many bytes of each are shown. */
#define SP_TEXT_FOLD_VIEW_BYTES 1024

/* text with every line longer than max_bytes (its newline not counted)
 * cut to its start and " … (N more characters of this line)". */
char *sp_text_fold_lines (const char *text, gsize max_bytes);

G_END_DECLS
