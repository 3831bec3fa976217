/* sp-hidden-bar.h: the characters of an editor's text that hide or
 * reorder text, made visible, and a bar that says they are there. */
#pragma once

#include <adwaita.h>

#include "sp-reload-bar.h"

G_BEGIN_DECLS

#define SP_TYPE_HIDDEN_BAR (sp_hidden_bar_get_type ())
G_DECLARE_FINAL_TYPE (SpHiddenBar, sp_hidden_bar, SP, HIDDEN_BAR, AdwBin)

/* The text it looks at ("buffer"); the window binds its editor's. */
void sp_hidden_bar_set_buffer (SpHiddenBar *self, GtkTextBuffer *buffer);
GtkTextBuffer *sp_hidden_bar_get_buffer (SpHiddenBar *self);

/* Tags each such character of the buffer (tag "sp-hidden-char") and shows
 * the bar when there are any, hides it when there are none. Asked for when
 * text comes in from outside (a file opened or reloaded, a run's file), not
 * on each keystroke: the text typed is the person's own. */
void sp_hidden_bar_check (SpHiddenBar *self);

/* The strip shown (kind "hidden-chars" while shown; what tests read). */
SpReloadBar *sp_hidden_bar_get_reload_bar (SpHiddenBar *self);

G_END_DECLS
