/* sp-autosave.h: copies of unsaved text, so a crash loses nothing.
 *
 * One file per editor buffer in a folder of the user's state directory
 * ($XDG_STATE_HOME/sandpad/autosave), never the user's own file. Each copy
 * has a small header (format version, the file it belongs to or a title
 * such as "Untitled 2", the language, the time, the text's length and
 * checksum) and then the text, byte for byte. Writes are atomic (a
 * temporary file renamed over the old copy), so a copy is either the old
 * or the new one. Reading the folder skips damaged, truncated and foreign
 * files with a message instead of failing. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  char *id;       /* the copy's name in the folder: letters, digits, '-' */
  char *path;     /* the file the text belongs to, or NULL (untitled) */
  char *title;    /* what the window called it, e.g. "Untitled 2" */
  char *language; /* "python", ... or NULL */
  gint64 time;    /* when it was written, Unix seconds */
  char *text;     /* the text, NUL-terminated; length bytes */
  gsize length;
} SpAutosaveEntry;

void sp_autosave_entry_free (SpAutosaveEntry *entry);

/* $XDG_STATE_HOME/sandpad/autosave (not created). */
char *sp_autosave_default_dir (void);

/* A fresh id for a buffer. */
char *sp_autosave_new_id (void);

/* Writes the copy for entry->id (creating dir), atomically; the old copy
 * stays whole when this fails (a full disk, say). */
gboolean sp_autosave_write (const char *dir, const SpAutosaveEntry *entry, GError **error);

/* Removes the copy; a copy that is not there is no error. */
gboolean sp_autosave_remove (const char *dir, const char *id, GError **error);

/* Reads one copy; a file that is not a whole copy is an error
 * (G_IO_ERROR_INVALID_DATA) and nothing else. */
SpAutosaveEntry *sp_autosave_read (const char *file, GError **error);

/* Every copy in dir, oldest first (SpAutosaveEntry, owned). What could not
 * be read is skipped and described in *problems (strings, may be NULL).
 * A missing folder is an empty list. */
GPtrArray *sp_autosave_load_all (const char *dir, GPtrArray **problems);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpAutosaveEntry, sp_autosave_entry_free)

G_END_DECLS
