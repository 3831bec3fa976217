/* sp-traceback.h: an interpreter's or a compiler's error text made to
 * point at the editor.
 *
 * Every place in a Python traceback, a node stack, a bash message or a
 * compiler's diagnostic that names the snippet ("File "/code/main.py",
 * line 4", "(/code/main.js:3:15)", "/code/main.sh: line 3",
 * "/code/main.c:3:22: error", rustc's "--> /code/main.rs:3:20", go's
 * "./main.go:7:14", esbuild's "main.ts:4:29:", Ruby's "/code/main.rb:2:in")
 * becomes a Pango link to that line, and the run's path of the snippet
 * (/code/main.py, or the host path in fallback mode) is replaced by the
 * name the user knows it by (the file's name, or "Untitled"); so is gcc's
 * "/code/main.c: In function 'main':", which names no line. Places in
 * other files (the standard library, node's internals, a header) stay
 * text: Sandpad never opens them. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Link URIs are "line:N" (N 1-based). */
#define SP_TRACEBACK_LINK_PREFIX "line:"

/* Pango markup for text (escaped), or NULL when nothing in it names the
 * snippet, so the caller shows the text as it is. snippet_name: the file
 * name the snippet ran under (main.py); display_name: what to call it. */
char *sp_traceback_to_markup (const char *text, const char *snippet_name, const char *display_name);

/* text as plain text with the snippet's places renamed the same way (for
 * a view without links, such as the Activity window); a copy of text
 * when nothing in it names the snippet. */
char *sp_traceback_rename (const char *text, const char *snippet_name, const char *display_name);

/* The line a link points at, or 0 when uri is not one of ours. */
int sp_traceback_link_line (const char *uri);

G_END_DECLS
