/* sp-run-recorder.h: every run of a window kept in the run history, and
 * compared with the one before.
 *
 * It follows a window's SpRunController: the code and language of each
 * new run, its stdout and stderr as they come (each cut at the store's
 * SP_RUN_HISTORY_TEXT_MAX), and at its end the record (how it ended, its
 * error, its files, the bytes of its first images while its directory is
 * still there) goes into the store under the SpDocument's history key.
 * An assistant's run of the same file, told by the window, goes there too.
 * GLib only, so tests drive it without a display. */
#pragma once

#include <gio/gio.h>

#include "sp-activity-run.h"
#include "sp-document.h"
#include "sp-run-controller.h"
#include "sp-run-history.h"

G_BEGIN_DECLS

#define SP_TYPE_RUN_RECORDER (sp_run_recorder_get_type ())
G_DECLARE_FINAL_TYPE (SpRunRecorder, sp_run_recorder, SP, RUN_RECORDER, GObject)

/* Signals, after the controller's "exited" handlers connected before:
 *   "recorded" (SpRunRecord *record): the run is kept;
 *   "compared" (SpRunRecord *record, const char *comparison): later, how
 *     it differs from the one before (none for a key's first run), made in
 *     a worker thread (two large outputs cost the diff up to a second);
 *     not emitted when the next run began first;
 *   "failed" (SpRunRecord *record, const char *message): it could not be
 *     kept (the run itself is unaffected). */
SpRunRecorder *sp_run_recorder_new (SpRunController *runs, SpDocument *document,
                                    SpRunHistory *store);

SpRunHistory *sp_run_recorder_get_store (SpRunRecorder *self);
/* The key the document's runs are kept under now. */
char *sp_run_recorder_dup_key (SpRunRecorder *self);

/* An assistant's run of the document's file (an edit_and_execute from
 * sandpad-mcp's journal, ended), kept like the window's own runs and
 * marked with its tool, journal id and diff: "recorded", then "compared"
 * with the run before. code: the file as it ran (the journal holds its
 * edit, not its text; the window reads the file). Each journal run is
 * kept once: FALSE when it was already (or is still running). Claim it
 * first with sp_run_recorder_claim_assistant_run() when the code comes
 * later (a read of the file), so a second "changed" does not read again. */
gboolean sp_run_recorder_claim_assistant_run (SpRunRecorder *self, SpActivityRun *run);
gboolean sp_run_recorder_add_assistant_run (SpRunRecorder *self, SpActivityRun *run,
                                            const char *code);

/* The same, with the code read from the run's file as the run left it
 * (asynchronously: "recorded" comes after; a file past 4 MiB, or one that
 * cannot be read, is kept without its code). FALSE when the run was
 * already claimed, is still running, or names no file. */
gboolean sp_run_recorder_keep_assistant_run (SpRunRecorder *self, SpActivityRun *run);

G_END_DECLS
