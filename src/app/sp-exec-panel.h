/* sp-exec-panel.h: the execution panel beside the editor.
 *
 * A status line (idle, running with elapsed time, the result), a policy
 * card (what the run may do, as the runner reported it), the output as it
 * streams in, and an input line while a program runs. The panel shows a
 * run's state; the window drives the run. */
#pragma once

#include <gtk/gtk.h>

#include "sp-activity-follow.h"
#include "sp-image-budget.h"
#include "sp-image-loader.h"
#include "sp-policy-card.h"
#include "sp-run-controller.h"
#include "sp-transcript.h"

G_BEGIN_DECLS

#define SP_TYPE_EXEC_PANEL (sp_exec_panel_get_type ())
G_DECLARE_FINAL_TYPE (SpExecPanel, sp_exec_panel, SP, EXEC_PANEL, GtkWidget)

GtkWidget *sp_exec_panel_new (void);

/* The output model (a GListModel of SpOutputItem) to show; NULL clears. */
void sp_exec_panel_set_output (SpExecPanel *self, GListModel *output);
GListModel *sp_exec_panel_get_output (SpExecPanel *self);
/* An assistant's runs of the window's file (follow, SpActivityFollow)
 * shown as they go: a frame at a time, once however many journal lines
 * came, never while runs (the window's own SpRunController) has a run
 * going, which it would hide. Showing one lets the window's last run's
 * files go (sp_run_controller_release). Once, after the window made both. */
void sp_exec_panel_follow_activity (SpExecPanel *self, SpActivityFollow *follow,
                                    SpRunController *runs);
/* Whether the panel shows the followed assistant's run now (not the
 * window's own). */
gboolean sp_exec_panel_shows_activity (SpExecPanel *self);
/* A run's image items (in the output model): each is decoded when its
 * row comes into view and dropped when it is scrolled far away, counted
 * by budget, until cancellable is cancelled (sp-image-loader.h). */
void sp_exec_panel_add_images (SpExecPanel *self, GPtrArray *items, SpImageBudget *budget,
                               GCancellable *cancellable);
SpImageLoader *sp_exec_panel_get_image_loader (SpExecPanel *self);

/* The policy card (SpPolicyCard), which the window binds to its runs. */
SpPolicyCard *sp_exec_panel_get_policy_card (SpExecPanel *self);
/* sp_policy_card_get_reduced() and _get_text() of the card. */
gboolean sp_exec_panel_get_policy_reduced (SpExecPanel *self);
char *sp_exec_panel_get_policy_text (SpExecPanel *self);

/* Running: spinner, live elapsed time, input line. */
void sp_exec_panel_set_running (SpExecPanel *self, gboolean running);

/* The result line after a run; also stops the running state. */
void sp_exec_panel_set_status (SpExecPanel *self, const char *text, gboolean is_error);
/* The result line and what follows it ("text — detail"): only text in
 * the error colour when is_error. get_status gives the whole line. */
void sp_exec_panel_set_status_detail (SpExecPanel *self, const char *text, const char *detail,
                                      gboolean is_error);

/* Before a run (its declared packages installing): the spinner and
 * text, no clock, no input line. A status or a run ends it. */
void sp_exec_panel_set_busy (SpExecPanel *self, const char *text);
/* A button beside the status line that activates action_name (Run
 * Anyway); label NULL hides it. The next status or run hides it too. */
void sp_exec_panel_set_status_action (SpExecPanel *self, const char *label,
                                      const char *action_name);
GtkWidget *sp_exec_panel_get_status_action (SpExecPanel *self);
/* The status line's text (for tests). */
const char *sp_exec_panel_get_status (SpExecPanel *self);

/* The snippet's file name in the run (main.py) and the user's name for
 * it (the file's name, "Untitled"): error text links each place in the
 * snippet to its line and names it so. */
void sp_exec_panel_set_snippet_names (SpExecPanel *self, const char *run_name,
                                      const char *display_name);

/* Where Save As of a run's file starts (the snippet's folder); NULL: the
 * home folder. */
void sp_exec_panel_set_save_folder (SpExecPanel *self, GFile *folder);

/* While running: the program waits for input (the runner's input_wait).
 * The status says so (the time limit stands still; where to change it)
 * and the input line is outlined; while the keyboard is elsewhere both
 * name the shortcut that brings it there (Ctrl+I, win.focus-input).
 * Whether the wait takes the keyboard is the window's to decide
 * (SpInputFocus). Cleared when the run ends. */
void sp_exec_panel_set_waiting (SpExecPanel *self, gboolean waiting, guint timeout_s);

/* While running: the runner started the run (its started event). Until
 * then the status reads "Starting… 0.1 s": the run is queued or its
 * sandbox is being made, and whether a compile step comes first is not
 * known yet. */
void sp_exec_panel_set_started (SpExecPanel *self);

/* While running: a compiled language's compile step is under way, with
 * its own time limit (timeout_s). The status reads "Compiling… 12.0 s
 * (limit 60 s)"; when it ends, "Running…" counts the program's time from
 * the program's start. Cleared when the run ends. */
void sp_exec_panel_set_compiling (SpExecPanel *self, gboolean compiling, guint timeout_s);

GtkEntry *sp_exec_panel_get_input_entry (SpExecPanel *self);
/* The output list: follow mode, the hidden-lines bar. */
SpTranscript *sp_exec_panel_get_transcript (SpExecPanel *self);

/* "input" (const char *line): the user sent a line to the program. */

G_END_DECLS
