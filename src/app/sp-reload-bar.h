/* sp-reload-bar.h: a strip across the top of the window that says what
 * happened to the file or its unsaved text and offers what to do.
 *
 * libadwaita 1.2 has no AdwBanner, and GtkInfoBar is on its way out, so
 * this is a revealer with a message and a row of buttons. Each button
 * emits "response" with its id; the window decides what that means. The
 * kind says which situation is shown ("changed", "deleted", ...) so the
 * window and tests can tell them apart. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_RELOAD_BAR (sp_reload_bar_get_type ())
G_DECLARE_FINAL_TYPE (SpReloadBar, sp_reload_bar, SP, RELOAD_BAR, GtkWidget)

SpReloadBar *sp_reload_bar_new (void);

/* Shows message (replacing what was shown and its buttons). */
void sp_reload_bar_show (SpReloadBar *self, const char *kind, const char *message,
                         gboolean warning);
/* A button after the message; label with a mnemonic ("_Reload"). */
GtkWidget *sp_reload_bar_add_button (SpReloadBar *self, const char *response, const char *label,
                                     const char *tooltip);
void sp_reload_bar_hide (SpReloadBar *self);

/* The kind shown, or NULL when hidden. */
const char *sp_reload_bar_get_kind (SpReloadBar *self);
const char *sp_reload_bar_get_message (SpReloadBar *self);

G_END_DECLS
