/* sp-activity-follow.h: an assistant's runs of one document's file.
 *
 * When an assistant's edit_and_execute (from sandpad-mcp's live journal,
 * SpActivityModel) runs the file a document has open, the window shows
 * the run's output as it goes. This object is that following, without a
 * display: it says which runs are the file's ("run-changed", once per
 * journal line about one), and fills an output model of its own with what
 * each line added (only what is new: the rest of the chunk that was last,
 * which grows while its stream goes on, then new chunks), the run's error
 * once when it ended, flushed at the end. The window decides when to show
 * it (never over a run of its own) and binds the model to its panel. */
#pragma once

#include <gio/gio.h>

#include "sp-activity-model.h"
#include "sp-document.h"
#include "sp-output-model.h"

G_BEGIN_DECLS

#define SP_TYPE_ACTIVITY_FOLLOW (sp_activity_follow_get_type ())
G_DECLARE_FINAL_TYPE (SpActivityFollow, sp_activity_follow, SP, ACTIVITY_FOLLOW, GObject)

/* Signals:
 *   "run-changed" (SpActivityRun *run): an edit_and_execute of the
 *     document's file changed (it started, printed or ended). */
SpActivityFollow *sp_activity_follow_new (SpActivityModel *model, SpDocument *document);

/* Whether run is an edit_and_execute of the document's file now (by its
 * canonical path; an untitled document has none). */
gboolean sp_activity_follow_is_file (SpActivityFollow *self, SpActivityRun *run);

/* Brings the output up to date with run: into a new model (batched, as a
 * window's own run's is) when run is not the one it holds or fresh is TRUE
 * (the panel showed something else since). Returns TRUE when the model is
 * new, for the caller to show it. */
gboolean sp_activity_follow_update (SpActivityFollow *self, SpActivityRun *run, gboolean fresh);
/* The model update() fills; NULL before the first. */
SpOutputModel *sp_activity_follow_get_output (SpActivityFollow *self);

G_END_DECLS
