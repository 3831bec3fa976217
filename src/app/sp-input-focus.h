/* sp-input-focus.h: whether a program's wait for input may take the
 * keyboard from the editor. */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_INPUT_FOCUS (sp_input_focus_get_type ())
G_DECLARE_FINAL_TYPE (SpInputFocus, sp_input_focus, SP, INPUT_FOCUS, GObject)

/* Watches editor for the person's keys and clicks; input is the line a
 * program's input is typed into. */
SpInputFocus *sp_input_focus_new (GtkWidget *editor, GtkWidget *input);

/* Run was asked for: what the person did in the editor before no longer
 * counts. */
void sp_input_focus_run_started (SpInputFocus *self);

/* Whether the person pressed a key (a modifier alone is none) or clicked
 * in the editor since Run. */
gboolean sp_input_focus_get_editor_used (SpInputFocus *self);

/* The program waits for input: the input line gets the keyboard, unless
 * the person used the editor since Run (then they are typing code, and
 * the keys must stay there). Returns whether the input line has the
 * keyboard now. */
gboolean sp_input_focus_offer (SpInputFocus *self);

G_END_DECLS
