/* sp-visible-text.h: characters that hide, shown as what they are.
 *
 * A run names its files and writes its output, and both are shown to the
 * person as if they were plain text. Some characters are not seen at all:
 * bidi controls (U+202E turns "txt.exe" around to read "exe.txt"),
 * zero-width spaces and joiners, the byte order mark, line and paragraph
 * separators, and the rest of Unicode's format characters (category Cf),
 * with the few letters that are drawn blank (Hangul fillers). Any of them
 * can make a name or a line read as something it is not. So where text of
 * a run is shown, each is replaced by its code point, "<U+202E>", which
 * the caller draws in a style of its own. Nothing else changes: the text
 * is kept as it was wherever it is copied, saved or opened. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Whether c is drawn as nothing or changes how the text around it is
 * ordered (and is therefore escaped). Tabs and newlines are not. */
gboolean sp_visible_text_is_hidden (gunichar c);

/* Whether text (valid UTF-8, len bytes or -1 for NUL-terminated) holds
 * one; cheap enough to ask of every row. */
gboolean sp_visible_text_has_hidden (const char *text, gssize len);

/* A byte range [start, end) of an escape in an escaped text. */
typedef struct
{
  gsize start;
  gsize end;
} SpVisibleSpan;

/* text with each hidden character as "<U+XXXX>" (at least four hex
 * digits). With spans non-NULL (a GArray of SpVisibleSpan), the escapes'
 * places in the result are appended to it. */
char *sp_visible_text_escape (const char *text, gssize len, GArray *spans);

/* The same as Pango markup: the text markup-escaped, each escape in
 * <span> with a style of its own (an error underline, italic). */
void sp_visible_text_append_markup (GString *out, const char *text, gssize len);
char *sp_visible_text_to_markup (const char *text, gssize len);

G_END_DECLS
