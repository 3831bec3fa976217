/* sp-window-hidden.h: an editor's text that holds characters that hide or
 * reorder text, made visible (what tests look at). */
#pragma once

#include "sp-reload-bar.h"
#include "sp-window.h"

G_BEGIN_DECLS

/* The bar that says the text holds such characters (kind
 * "hidden-chars"), or NULL when none was ever shown. */
SpReloadBar *sp_window_get_hidden_bar (SpWindow *self);

G_END_DECLS
