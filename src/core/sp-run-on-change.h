/* sp-run-on-change.h: Run on Change for a window's document, decided
 * apart from how it is shown, so it is tested without a display.
 *
 * While it is on, a save of the document's file, or a change on disk the
 * editor took in, asks for a run ("run") once edits and saves settle: a
 * run still going is stopped first, and the runner must be ready. A
 * change on disk that an assistant's edit_and_execute made is left alone,
 * since the panel shows that run already and running it again would run
 * it twice; its journal line comes once its run started, a moment after
 * the change, so such a rerun waits a few ticks for it. Whether it is on
 * is remembered per file (GSettings `run-on-change-files`, newest first,
 * at most 200). */
#pragma once

#include <gio/gio.h>

#include "sp-activity-model.h"
#include "sp-document.h"
#include "sp-run-controller.h"

G_BEGIN_DECLS

/* What one tick of a rerun asked for does (sp_run_on_change_step). */
typedef enum
{
  SP_RERUN_WAIT,    /* tick again */
  SP_RERUN_STOP,    /* stop the run going, and tick again */
  SP_RERUN_RUN,     /* run now */
  SP_RERUN_GIVE_UP, /* drop it: waited too long, or an assistant's run explains it */
} SpRerunStep;

/* The decision of tick number tick (1 for the first) of a rerun: running,
 * whether a run is going; ready, the runner's state; for_disk, a change on
 * disk asked for it; explained, whether an assistant's edit_and_execute of
 * the file started since that change (asked only when the rest would run). */
SpRerunStep sp_run_on_change_step (guint tick, gboolean running, gboolean ready, gboolean for_disk,
                                   gboolean explained);

#define SP_TYPE_RUN_ON_CHANGE (sp_run_on_change_get_type ())
G_DECLARE_FINAL_TYPE (SpRunOnChange, sp_run_on_change, SP, RUN_ON_CHANGE, GObject)

/* For document (its "loaded" turns it on or off as remembered for the
 * file; its "saved" asks for a rerun), runs (stopped first; their
 * supervisor says when the runner is ready), activity (the assistants' journal) and settings
 * (org.sandpad.Sandpad). */
SpRunOnChange *sp_run_on_change_new (SpDocument *document, SpRunController *runs,
                                     SpActivityModel *activity, GSettings *settings);

/* "active": on for the document's file; set by the person, remembered. */
gboolean sp_run_on_change_get_active (SpRunOnChange *self);
void sp_run_on_change_set_active (SpRunOnChange *self, gboolean active);
/* The editor took in a change on disk (reloaded): a rerun, unless an
 * assistant's run explains the change. */
void sp_run_on_change_disk_changed (SpRunOnChange *self);
/* "pending": a rerun is asked for and not yet run or dropped. */
gboolean sp_run_on_change_get_pending (SpRunOnChange *self);

G_END_DECLS
