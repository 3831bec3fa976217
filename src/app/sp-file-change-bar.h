/* sp-file-change-bar.h: what happened to a window's file on disk, shown.
 *
 * Bound to the window's SpDocument (which watches the file and says what
 * a change is) and its editor. An outside change with no unsaved edits
 * reloads the editor in one undoable step, keeping the cursor's line and
 * the scroll position, and tints the changed lines for a few seconds.
 * With unsaved edits nothing is overwritten: the bar offers Reload, Keep
 * Mine and Compare (SpCompareWindow, one at a time). A deleted or moved
 * file keeps its text, and the bar offers Save (win.save); a file no
 * longer UTF-8 text keeps it too. The document's "loaded" and "saved"
 * hide the bar. A rename is the window's to say. */
#pragma once

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "sp-document.h"
#include "sp-reload-bar.h"

G_BEGIN_DECLS

#define SP_TYPE_FILE_CHANGE_BAR (sp_file_change_bar_get_type ())
G_DECLARE_FINAL_TYPE (SpFileChangeBar, sp_file_change_bar, SP, FILE_CHANGE_BAR, AdwBin)

/* Signals:
 *   "reloaded": the editor holds the file's new text (reloaded by itself
 *     or by Reload); after the document knows it. */

/* Once, before the document loads: connects to document's "disk-changed",
 * "loaded" and "saved" (in that order, after those connected before). */
void sp_file_change_bar_bind (SpFileChangeBar *self, SpDocument *document, GtkSourceView *view);

/* The strip shown (its kind: "changed", "deleted", "moved", "not-text"). */
SpReloadBar *sp_file_change_bar_get_reload_bar (SpFileChangeBar *self);

G_END_DECLS
