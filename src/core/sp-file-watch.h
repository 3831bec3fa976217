/* sp-file-watch.h: a file on disk, watched, and what it holds once a
 * burst of changes is over. It knows nothing of who watches: an
 * SpDocument compares what it says with its own text. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SP_TYPE_FILE_WATCH (sp_file_watch_get_type ())
G_DECLARE_FINAL_TYPE (SpFileWatch, sp_file_watch, SP, FILE_WATCH, GObject)

/* Watches file. Signals, each once a burst of events is over:
 * - "contents" (GBytes *): what the file holds now;
 * - "renamed" (GFile *): it was renamed within its folder and nothing
 *   took its place; the watch goes on following the old name, so the
 *   caller makes a new watch for the new one;
 * - "gone" (gboolean moved): it was deleted, or moved (renamed to a name
 *   that is gone too, or moved out of its folder); said once until the
 *   file comes back. */
SpFileWatch *sp_file_watch_new (GFile *file);
GFile *sp_file_watch_get_file (SpFileWatch *self);
/* Stops watching: no signal is emitted after this. */
void sp_file_watch_stop (SpFileWatch *self);

G_END_DECLS
