/* sp-run-history.h: every run of a window, kept on disk.
 *
 * The store lives in a directory (the app uses
 * $XDG_STATE_HOME/sandpad/history): one folder per history key (a file's
 * key is a hash of its path, a scratch buffer's its window's), one file per
 * run, written whole and renamed into place, so a crash leaves the old
 * state or the new. A run's kept images (SpRunImage) lie beside its file,
 * written before it the same way, and go with it. Bounded: after each add
 * the oldest runs, of any key, are removed with their images until all runs
 * and images together fit in max_bytes (the newest run is always kept).
 * Each stream's text is cut to SP_RUN_HISTORY_TEXT_MAX.
 *
 * Reading is forgiving: a damaged, truncated or foreign file is skipped
 * and named in a message (warnings out), never fatal; so is an image that
 * is missing or not the size and SHA-256 its run wrote down (the run is
 * listed without it). Synchronous: records
 * are small, and a run ends at most a few times a second. */
#pragma once

#include <gio/gio.h>

#include "sp-run-record.h"

G_BEGIN_DECLS

/* Each stream's text kept per run, and the default cap of the store. */
#define SP_RUN_HISTORY_TEXT_MAX (256 * 1024)
#define SP_RUN_HISTORY_DEFAULT_MAX_BYTES (32 * 1024 * 1024)

#define SP_TYPE_RUN_HISTORY (sp_run_history_get_type ())
G_DECLARE_FINAL_TYPE (SpRunHistory, sp_run_history, SP, RUN_HISTORY, GObject)

/* dir NULL: $XDG_STATE_HOME/sandpad/history. */
SpRunHistory *sp_run_history_new (const char *dir, gint64 max_bytes);
const char *sp_run_history_get_dir (SpRunHistory *self);

/* The key of a file's history (a hash of its absolute path), and of a
 * scratch buffer's (from a name the window keeps, such as a UUID). */
char *sp_run_history_key_for_path (const char *path);
char *sp_run_history_key_for_scratch (const char *name);

/* Stores record under key (sets record->id) and evicts the oldest runs
 * past the cap. FALSE with error when it could not be written. */
gboolean sp_run_history_add (SpRunHistory *self, const char *key, SpRunRecord *record,
                             GError **error);

/* The key's runs, oldest first (of SpRunRecord). Files that cannot be read
 * as runs are skipped; warnings (may be NULL) gets a line for each. */
GPtrArray *sp_run_history_list (SpRunHistory *self, const char *key, GPtrArray *warnings);

/* The newest run of key, or NULL. */
SpRunRecord *sp_run_history_latest (SpRunHistory *self, const char *key, GPtrArray *warnings);

G_END_DECLS
