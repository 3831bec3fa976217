/* sp-run-recorder.h: every run of a window kept in the run history, and
 * compared with the one before.
 *
 * It follows a window's SpRunController: the code and language of each
 * new run, its stdout and stderr as they come (each cut at the store's
 * SP_RUN_HISTORY_TEXT_MAX), and at its end the record (how it ended, its
 * error, its files, the bytes of its first images while its directory is
 * still there) goes into the store under the SpDocument's history key.
 * GLib only, so tests drive it without a display. */
#pragma once

#include <gio/gio.h>

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

G_END_DECLS
