/* sp-activity-window.h: what assistants run through sandpad-mcp on this
 * machine, live.
 *
 * The runs of the journal (SpActivityModel), newest selected as it comes;
 * the selected run's tool, workspace, code or command, its output as it
 * streams (stderr in the error colour), the files and plots it made, its
 * error and how it ended; Stop asks its server to stop it. */
#pragma once

#include <adwaita.h>

#include "sp-activity-model.h"

G_BEGIN_DECLS

#define SP_TYPE_ACTIVITY_WINDOW (sp_activity_window_get_type ())
G_DECLARE_FINAL_TYPE (SpActivityWindow, sp_activity_window, SP, ACTIVITY_WINDOW, AdwWindow)

SpActivityWindow *sp_activity_window_new (GtkApplication *app, SpActivityModel *model);

/* The run shown, or NULL. */
SpActivityRun *sp_activity_window_get_shown (SpActivityWindow *self);
/* The detail pane's text and the status line (for tests and copying). */
char *sp_activity_window_get_text (SpActivityWindow *self);
const char *sp_activity_window_get_status (SpActivityWindow *self);
/* The heading (tool, language, workspace, time) and the text view. */
const char *sp_activity_window_get_title_text (SpActivityWindow *self);
GtkTextView *sp_activity_window_get_text_view (SpActivityWindow *self);

G_END_DECLS
