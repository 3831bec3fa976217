/* sp-session-store.h: the windows that were open, so the next start
 * brings them back.
 *
 * A GKeyFile at $XDG_STATE_HOME/sandpad/session.ini, one group per window
 * in their order: the file it showed (or none for a scratch buffer), its
 * autosave id (where its unsaved text is), its language and the editor's
 * share of the split. Written atomically; a damaged file reads as no
 * session and says why, it never stops a start. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

typedef struct
{
  char *path;            /* or NULL: a scratch buffer */
  char *autosave_id;     /* or NULL */
  char *language;        /* or NULL */
  double panel_fraction; /* 0 when not known */
} SpSessionWindow;

void sp_session_window_free (SpSessionWindow *window);

/* $XDG_STATE_HOME/sandpad/session.ini */
char *sp_session_store_default_path (void);

/* windows: SpSessionWindow. */
gboolean sp_session_store_save (const char *path, GPtrArray *windows, GError **error);

/* The saved windows (SpSessionWindow, owned); an empty list when there is
 * no session, NULL with error when the file is damaged. */
GPtrArray *sp_session_store_load (const char *path, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpSessionWindow, sp_session_window_free)

G_END_DECLS
