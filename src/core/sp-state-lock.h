/* sp-state-lock.h: one process at a time owns the app's state folder.
 *
 * The autosave copies and the session (sp-autosave.h, sp-session-store.h)
 * describe one running app's windows. A second process that read them
 * would show the same unsaved text twice, and its Discard or its session
 * would remove or rewrite what the first still shows: a kill of the first
 * then loses the text. So whoever restores, writes or removes that state
 * first takes this lock (an exclusive flock on <dir>/session.lock) and
 * holds it as long as it lives; the kernel drops it when the process
 * dies, however it dies. A process that cannot take it leaves the state
 * alone. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SP_TYPE_STATE_LOCK (sp_state_lock_get_type ())
G_DECLARE_FINAL_TYPE (SpStateLock, sp_state_lock, SP, STATE_LOCK, GObject)

/* $XDG_STATE_HOME/sandpad: the folder the lock guards. */
char *sp_state_lock_default_dir (void);

/* Takes the lock of dir (created 0700 when missing) without waiting. When
 * another process holds it: NULL and G_IO_ERROR_BUSY, the message naming
 * that process where it is known. The lock is held until the object is
 * finalized or the process ends; it is not inherited by programs the
 * process starts. */
SpStateLock *sp_state_lock_acquire (const char *dir, GError **error);

/* The folder this lock owns. */
const char *sp_state_lock_get_dir (SpStateLock *self);

/* Where that folder's autosave copies and session file are. */
char *sp_state_lock_dup_autosave_dir (SpStateLock *self);
char *sp_state_lock_dup_session_path (SpStateLock *self);

G_END_DECLS
