/* sp-ansi.h: program output with terminal colours, as Pango markup.
 *
 * SGR sequences for the 16 basic colours, xterm's 256 colours and
 * truecolour (foreground and background), bold and reset become markup; every other escape sequence
 * is shown, not obeyed: its ESC turns into the visible symbol U+241B, so output can never move a
 * cursor, retitle a window or reach a terminal emulator's parser. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Returns newly allocated, escaped Pango markup for text. */
char *sp_ansi_to_markup (const char *text);
/* The same; dark picks the 16 colours' variants that read on a dark
 * background (the 256-colour cube and truecolour are what they say). */
char *sp_ansi_to_markup_for (const char *text, gboolean dark);

/* Whether text holds an escape character at all (the fast path skips). */
gboolean sp_ansi_has_escapes (const char *text);

G_END_DECLS
