/* sp-document.h: what one editor window edits, without the editor.
 *
 * The file (or none, an untitled snippet), a watch on it and what it held
 * when last loaded, saved or accepted; the copy of unsaved text kept in
 * the state folder (autosave); the key its run history is kept under; the
 * workspace folder and the environment a run of it gets. The text itself
 * stays in the view's buffer: the view hands the document a function that
 * returns it, tells it when the text changed and whether it is modified,
 * and the document tells the view what happened on disk. GLib/GIO only,
 * so tests drive it without a display. */
#pragma once

#include <gio/gio.h>

#include "sp-autosave.h"

G_BEGIN_DECLS

#define SP_TYPE_DOCUMENT (sp_document_get_type ())
G_DECLARE_FINAL_TYPE (SpDocument, sp_document, SP, DOCUMENT, GObject)

/* What a look at the file after a monitor event found ("disk-changed"). */
typedef enum
{
  /* The file holds what we knew (our own save, a touch), or went back to
   * it: a pending question is answered. */
  SP_DOCUMENT_DISK_UNCHANGED,
  /* The file holds what the editor holds: now known as the file's text. */
  SP_DOCUMENT_DISK_SAME_AS_EDITOR,
  /* No unsaved edits: the view reloads with the contents given, then
   * calls sp_document_reloaded(). */
  SP_DOCUMENT_DISK_RELOAD,
  /* Unsaved edits and a new text on disk: pending until answered
   * (sp_document_take_pending(), sp_document_keep_mine()). */
  SP_DOCUMENT_DISK_CONFLICT,
  /* No longer UTF-8 text: the editor keeps its text, which is unsaved. */
  SP_DOCUMENT_DISK_NOT_TEXT,
  /* Deleted, or moved out of its folder: the text is unsaved now. Said
   * once until the file is back or saved. */
  SP_DOCUMENT_DISK_DELETED,
  SP_DOCUMENT_DISK_MOVED,
  /* Renamed within its folder: the document follows ("file" changed). */
  SP_DOCUMENT_DISK_RENAMED,
} SpDocumentDiskChange;

/* What became of the unsaved text's copy ("autosave-status"). */
typedef enum
{
  SP_DOCUMENT_AUTOSAVE_OK,     /* written again after a failure */
  SP_DOCUMENT_AUTOSAVE_FAILED, /* not written; the message says why */
  SP_DOCUMENT_AUTOSAVE_OFF,    /* no folder (another process owns it): said once */
} SpDocumentAutosaveStatus;

/* The editor's whole text, newly allocated. */
typedef char *(*SpDocumentTextFunc) (gpointer user_data);

/* autosave_dir: where copies go; NULL keeps none (another process owns
 * the folder). */
SpDocument *sp_document_new (const char *autosave_dir);

void sp_document_set_text_func (SpDocument *self, SpDocumentTextFunc func, gpointer user_data);
char *sp_document_dup_text (SpDocument *self);

/* GtkSourceView's implicit trailing newline, as GNOME Text Editor keeps
 * it: a file's final line break is no line of the editor's. The file's
 * text for the editor's (one "\n" more, unless it is empty), newly
 * allocated; and how much of a file's bytes the editor shows (less one
 * final "\n" or "\r\n"). */
char *sp_document_text_for_file (const char *editor_text);
gsize sp_document_editor_length (const char *file_text, gsize length);

GFile *sp_document_get_file (SpDocument *self);
/* The file's name, or "Untitled". */
char *sp_document_dup_display_name (SpDocument *self);

gboolean sp_document_get_modified (SpDocument *self);
void sp_document_set_modified (SpDocument *self, gboolean modified);

const char *sp_document_get_language (SpDocument *self);
void sp_document_set_language (SpDocument *self, const char *language);

/* ---- the file ---- */

/* Reads file as UTF-8 text (else G_IO_ERROR_INVALID_DATA). The view puts
 * the text in the editor, then gives the document the file with
 * sp_document_set_file(). file (out, may be NULL): the file read. */
void sp_document_load_async (SpDocument *self, GFile *file, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data);
GBytes *sp_document_load_finish (SpDocument *self, GAsyncResult *result, GFile **file,
                                 GError **error);

/* Takes file (NULL: none) with contents (NULL: not read) as what it holds
 * on disk, and watches it; with both, says "loaded": the editor holds
 * the file's text now. */
void sp_document_set_file (SpDocument *self, GFile *file, GBytes *contents);

/* Writes the editor's text to file (NULL: the document's own) through
 * sp_safe_save(). Unless overwrite, the document's own file must still
 * hold what we last knew (else G_IO_ERROR_WRONG_ETAG, nothing written).
 * On success the document is file's, unmodified, its copy removed, and
 * says "saved" before the callback. */
void sp_document_save_async (SpDocument *self, GFile *file, gboolean overwrite,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data);
gboolean sp_document_save_finish (SpDocument *self, GAsyncResult *result, GError **error);

/* The view put contents in the editor as the file's (a reload). */
void sp_document_reloaded (SpDocument *self, GBytes *contents);
/* An outside change not answered yet (NULL: none). */
GBytes *sp_document_get_pending (SpDocument *self);
/* Takes the pending change (to reload with it). */
GBytes *sp_document_take_pending (SpDocument *self);
/* The disk's version is known and declined: not asked again until it
 * changes once more; Save writes the editor's text over it. */
void sp_document_keep_mine (SpDocument *self);

/* ---- the unsaved text's copy ---- */

const char *sp_document_get_autosave_id (SpDocument *self);
/* "Untitled 2", kept in the copy of an untitled buffer. */
const char *sp_document_get_untitled_name (SpDocument *self);
void sp_document_set_untitled_name (SpDocument *self, const char *name);
/* The text changed: a copy is written a moment after it stops. */
void sp_document_text_changed (SpDocument *self);
/* Writes the copy now (unmodified: removes it). */
void sp_document_autosave_now (SpDocument *self);
/* The copy is not wanted: removed. */
void sp_document_autosave_forget (SpDocument *self);
/* Takes an autosaved copy: its file, id, language and name; the text is
 * the view's to put in (before this call), and is unsaved. */
void sp_document_restore (SpDocument *self, const SpAutosaveEntry *entry);
/* The view goes: the copy is removed if the text is saved or discard,
 * else written for the next start. The text function is not called
 * again. */
void sp_document_close (SpDocument *self, gboolean discard);

/* ---- where runs belong ---- */

/* The key its runs are kept under in the run history: the file's, or for
 * an untitled buffer its copy's id, which a restart restores with the
 * text, so its history is found again. */
char *sp_document_dup_history_key (SpDocument *self);

const char *sp_document_get_workspace (SpDocument *self);
/* Canonicalized; TRUE when it changed. */
gboolean sp_document_set_workspace (SpDocument *self, const char *folder);
/* The saved file's folder, else the workspace (NULL: neither). */
char *sp_document_dup_folder (SpDocument *self);
/* Says "environment-changed": something changed what a run would get
 * (a venv was made in the folder). */
void sp_document_environment_changed (SpDocument *self);
/* The environment a run gets for the language: looked for from the
 * folder up to the workspace (the folder alone without one). */
char *sp_document_dup_environment (SpDocument *self);

G_END_DECLS
