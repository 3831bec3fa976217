/* sp-history-window.h: the runs of one file, and what changed between them.
 *
 * A list of the file's runs (newest first: time, duration, and the first
 * line of code or output that changed since the run before, and a
 * thumbnail of the run's first plot, decoded as its row comes into
 * view); the selected
 * run's code and output beside it, or with "Changes since last run" its
 * difference from the run before it (code, stdout and stderr line by line,
 * and what happened to the error), or with Compare from any run chosen in
 * the drop-down beside it. "Restore this code" emits
 * restore-code; the editor window puts the code back as one undoable
 * edit. */
#pragma once

#include <adwaita.h>

#include "sp-run-history.h"
#include "sp-run-recorder.h"

G_BEGIN_DECLS

#define SP_TYPE_HISTORY_WINDOW (sp_history_window_get_type ())
G_DECLARE_FINAL_TYPE (SpHistoryWindow, sp_history_window, SP, HISTORY_WINDOW, AdwWindow)

/* Lists key's runs in history; skipped files are named in the window. */
SpHistoryWindow *sp_history_window_new (GtkWindow *parent, SpRunHistory *history, const char *key);
/* Lists the runs recorder keeps under its key now, and adds each run it
 * keeps while the window is open (a window's own runs and an assistant's
 * of its file). */
SpHistoryWindow *sp_history_window_new_for_recorder (GtkWindow *parent, SpRunRecorder *recorder);

/* Selects the run index places from the newest (0: the newest). */
void sp_history_window_select (SpHistoryWindow *self, guint index);
/* Shows how the selected run differs from the one before it, once a worker
 * thread has made it (sp_history_window_is_comparing() until then). */
void sp_history_window_show_changes (SpHistoryWindow *self);
gboolean sp_history_window_is_comparing (SpHistoryWindow *self);
/* The same between the selected run and any other, index places from the
 * newest (what the Compare With drop-down and Compare do). */
void sp_history_window_compare_with (SpHistoryWindow *self, guint index);
/* The text of the list's row index places from the newest (for tests). */
char *sp_history_window_get_row_text (SpHistoryWindow *self, guint index);
guint sp_history_window_get_n_runs (SpHistoryWindow *self);
/* The thumbnail of the row index places from the newest, once decoded
 * (NULL before, or for a run that kept no image); *has (may be NULL):
 * whether the row has a place for one (for tests). */
GdkPaintable *sp_history_window_get_row_thumbnail (SpHistoryWindow *self, guint index,
                                                   gboolean *has);
/* A run that just ended: listed first and selected. */
void sp_history_window_add_run (SpHistoryWindow *self, const SpRunRecord *record);
/* What the text pane shows now (for tests and copying). */
char *sp_history_window_get_text (SpHistoryWindow *self);

/* "restore-code" (const char *code, const char *language) */

G_END_DECLS
