/* sp-activity-model.h: the runs assistants make through sandpad-mcp on this
 * machine, followed live from the journal.
 *
 * A GListModel of SpActivityRun, oldest first, at most
 * SP_ACTIVITY_MAX_RUNS (the oldest ended ones go first). It follows
 * <dir>/live.jsonl with a GFileMonitor on the directory and a read offset:
 * each change reads the new complete lines (a line still being written
 * waits for its newline); a rotation (live.jsonl renamed to live.1.jsonl
 * and a new one started) is told by the file's inode, and what the old
 * file got after the last read is read from live.1.jsonl first, so no run
 * is lost. A line that is not JSON, not an object, or too long is skipped
 * and counted (sp_activity_model_get_skipped) with a message; lines of
 * events it does not know are ignored. A run whose server is gone without
 * an end line is marked "lost" (checked every 2 s while runs go; not in a
 * Flatpak, where the servers' pids are not visible).
 *
 * Stop: sp_activity_model_request_stop() creates <dir>/cancel/<run id>,
 * which the run's server looks for while it runs (docs/mcp.md). */
#pragma once

#include <gio/gio.h>

#include "sp-activity-run.h"

G_BEGIN_DECLS

#define SP_ACTIVITY_MAX_RUNS 200
/* A longer line is no journal line of ours. */
#define SP_ACTIVITY_LINE_MAX (4 * 1024 * 1024)

#define SP_TYPE_ACTIVITY_MODEL (sp_activity_model_get_type ())
G_DECLARE_FINAL_TYPE (SpActivityModel, sp_activity_model, SP, ACTIVITY_MODEL, GObject)

/* dir NULL: $XDG_STATE_HOME/sandpad/journal, sandpad-mcp's default. Reads
 * what the journal holds now, then follows it. */
SpActivityModel *sp_activity_model_new (const char *dir);
const char *sp_activity_model_get_dir (SpActivityModel *self);

/* Reads what is new now (the monitor calls it; tests may too). */
void sp_activity_model_poll (SpActivityModel *self);

SpActivityRun *sp_activity_model_find (SpActivityModel *self, const char *id);
/* The newest edit_and_execute run of file (a canonical path) that started
 * at since_us (Unix time, µs) or later, or NULL: a change of the file on
 * disk it explains. The journal's start line is written when the run has
 * started, after the edit was written. */
SpActivityRun *sp_activity_model_find_edit (SpActivityModel *self, const char *file,
                                            gint64 since_us);
guint sp_activity_model_get_skipped (SpActivityModel *self);

/* Asks the run's server to stop it. FALSE with error when the request
 * could not be written or the run is not going. */
gboolean sp_activity_model_request_stop (SpActivityModel *self, const char *id, GError **error);

/* "run-added" (SpActivityRun *run): a run appeared (also in the model). */

G_END_DECLS
