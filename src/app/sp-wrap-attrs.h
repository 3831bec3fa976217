/* sp-wrap-attrs.h: a wrapped label of output, laid out in time that grows
 * with its length, not its square.
 *
 * Pango 1.50 (Debian 12) wraps a run of text of one font (an item) by
 * shaping what is left of it again after every line it breaks: a line of
 * n characters that wraps into m lines costs n * m, and GtkLabel's minimum
 * width lays the text out one character per line (m = n). One row of 4 KiB
 * without a space took 0.8 s to measure (issue 38). Pango starts a new item
 * wherever the attributes that reach its itemizer change, and "fallback"
 * on (its default, so nothing shows) on every other stretch of about 128
 * bytes is such a change: items stay short, each line shapes a short rest,
 * and the layout is linear (4 KiB: 0.8 s to 14 ms). Stretches end between
 * two characters that shape apart anyway, preferably after a space: never
 * inside a cluster (a base and its combining marks, a ZWJ sequence, a flag)
 * or a word, where a font could join them. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The label's attributes for its text now: no hyphens that are not in the
 * output, and the stretches above when the text is long enough to need
 * them. Set only when they differ from the label's (setting them lays the
 * label out again). */
void sp_wrap_attrs_update (GtkLabel *label);

/* The attribute list sp_wrap_attrs_update gives text (for tests). */
PangoAttrList *sp_wrap_attrs_for_text (const char *text);

G_END_DECLS
