/* sp-transcript.h: the scrolling list of a run's output.
 *
 * Follows new output while the user has not scrolled up; a button brings
 * the view back to the end and follows again. When the output model keeps
 * only the tail, a bar says how many lines are not shown and offers to
 * save the whole output. The rows themselves come from the factory of
 * whoever owns the transcript (the execution panel). */
#pragma once

#include <gtk/gtk.h>

#include "sp-output-model.h"

G_BEGIN_DECLS

#define SP_TYPE_TRANSCRIPT (sp_transcript_get_type ())
G_DECLARE_FINAL_TYPE (SpTranscript, sp_transcript, SP, TRANSCRIPT, GtkWidget)

GtkListView *sp_transcript_get_list_view (SpTranscript *self);
/* The model to show (NULL: nothing); an SpOutputModel also brings the
 * hidden-lines bar and Save Output. Starts following. */
void sp_transcript_set_model (SpTranscript *self, GListModel *model);
/* Whether the view keeps to the end as output comes ("following"). */
gboolean sp_transcript_get_following (SpTranscript *self);
/* Scrolls to the end and follows again (the button does this). */
void sp_transcript_follow (SpTranscript *self);
/* Output collected but not shown yet, or a scroll to the end not done yet. */
gboolean sp_transcript_get_busy (SpTranscript *self);
/* For the row factory, when a bound row's text changed: TRUE when the row
 * lies out of sight while the view keeps to the end (and, on GTK 4.12+,
 * this frame has laid out its worth of text already), and its new text
 * can wait; a row in sight never waits; the transcript emits "rebind" with the item once it
 * may be seen. The factory calls forget_row when it unbinds a row. */
gboolean sp_transcript_defer_rebind (SpTranscript *self, GtkListItem *item);
/* The same when the list view binds a row anew: TRUE when the row lies
 * out of sight while the view keeps to the end and more than a frame's
 * worth of text from the end, so its text can wait (rows bound at once are
 * all laid out in one frame: 200 rows of long lines held it for 0.6 s). */
gboolean sp_transcript_defer_bind (SpTranscript *self, GtkListItem *item);
void sp_transcript_forget_row (SpTranscript *self, GtkListItem *item);
/* The bar's text, or NULL while nothing is hidden (for tests). */
const char *sp_transcript_get_hidden_text (SpTranscript *self);

G_END_DECLS
