/* sp-window-private.h: SpWindow's view state and the functions its files
 * share. SpWindow is one GObject type whose code is in four files:
 * sp-window.c (the type: template, style, title, closing, the
 * run keys' guard, Keep State Between Runs, the run history shown, an
 * assistant's runs of the file handed to the panel and kept, the
 * Assistant Activity window, a rename said, the recent files kept, Run on
 * Change's action, the public accessors of sp-window.h), sp-window-view.c
 * (the helpers below) and the two sp-window-*.c below, each one concern
 * of the view.
 * What is not the view is core's: the file, its watch, its copy and its
 * workspace are self->document (SpDocument), the runs, their output,
 * input and session self->runs (SpRunController), the runs kept
 * self->recorder (SpRunRecorder), a snippet's declared dependencies
 * installed before it runs self->declared (SpDeclaredInstall), when Run
 * on Change runs the file self->run_on_change (SpRunOnChange); the file's
 * page (SpPage: its bars, the editor, the panel, the shown run's images)
 * is the window's template child, whose widgets the window takes at init;
 * the bars and panels with a life of their own are widgets (SpHiddenBar,
 * SpReloadBar, SpFileChangeBar, SpExecPanel and its SpPolicyCard,
 * SpHistoryWindow, SpPackagesDialog) and Open Recent an object
 * (SpRecentMenu); the panel shows an assistant's runs of the file by
 * itself (an SpActivityFollow), the file change bar what happens to the
 * file on disk (reloaded, tinted, the bar, Compare). */
#pragma once

#include <gtksourceview/gtksource.h>

#include "sp-activity-model.h"
#include "sp-declared-install.h"
#include "sp-document.h"
#include "sp-error-mark.h"
#include "sp-exec-panel.h"
#include "sp-file-change-bar.h"
#include "sp-history-window.h"
#include "sp-input-focus.h"
#include "sp-output-model.h"
#include "sp-recent-menu.h"
#include "sp-reload-bar.h"
#include "sp-run-controller.h"
#include "sp-run-on-change.h"
#include "sp-run-recorder.h"
#include "sp-runner-banner.h"
#include "sp-page.h"
#include "sp-split.h"
#include "sp-window.h"

struct _SpWindow
{
  AdwApplicationWindow parent_instance;

  /* template */
  AdwWindowTitle *window_title;
  GtkDropDown *language_dropdown;
  GtkWidget *run_button;
  GtkWidget *stop_button;
  AdwToastOverlay *toast_overlay;
  SpRunnerBanner *runner_banner;
  /* The file's page (template): the bars, the editor and the panel. The
   * window still drives its widgets, taken from it at init (not owned). */
  SpPage *page;
  SpSplit *split;
  GtkSourceView *source_view;
  SpExecPanel *exec_panel;
  GtkWidget *restart_button; /* Keep State Between Runs' Restart (sp-window.c) */
  /* Asked to look at the text when it comes in from outside (a file
   * opened or reloaded, a run's file). The page's. */
  SpHiddenBar *hidden_bar;

  SpAppContext *context; /* what it needs of the application, handed down */
  GSettings *settings;
  SpRunnerSupervisor *supervisor;
  GtkCssProvider *font_css;
  /* A file was opened before the runner could say its language. */
  gboolean language_pending;

  /* The window's runs: the run shown, its output, input, session. */
  SpRunController *runs;
  /* Run's install of a snippet's declared dependencies (PEP 723) before
   * it runs, and the code kept for Run Anyway (sp-window-actions.c). */
  SpDeclaredInstall *declared;
  /* The line the last failed run stopped on, marked without moving the
   * caret; Ctrl+E goes there (win.goto-error). */
  SpErrorMark *error_mark;
  /* Whether a wait for input takes the keyboard from the editor. */
  SpInputFocus *input_focus;
  AdwToast *busy_toast; /* "a program is running", shown once at a time */
  /* The status line says the runner was lost; cleared once it is back. */
  gboolean runner_lost;
  /* Close was asked for while a run was going or text was unsaved. */
  gboolean close_confirmed;
  /* Made to show a file (sp_window_open_new): shown once it has the text,
   * destroyed if it cannot get it. */
  gboolean open_pending;
  /* sp-window.c: the window's runs and its assistants' kept in the run
   * history, and the open history list (weak). */
  SpRunRecorder *recorder;
  SpHistoryWindow *history_window;

  /* The file, its watch, its copy, its workspace (core, no GTK). */
  SpDocument *document;

  /* Changes on disk shown (reloaded, tinted, the bar, Compare). */
  SpFileChangeBar *file_bar; /* the page's */
  /* Run on Change: when a save or a change on disk runs the file (core). */
  SpRunOnChange *run_on_change;
  GMenu *recent_menu;   /* template: Open Recent */
  SpRecentMenu *recent; /* fills it from GtkRecentManager */

  /* sp-window-save.c: the unsaved text's copy in the state folder. */
  SpReloadBar *autosave_bar; /* the page's */
  SpReloadBar *notice_bar;   /* files skipped in the autosave folder */
};

/* Each sp-window-*.c is set up by sp-window.c (its _init or
 * _install_*_actions) and calls sp-window-view.c's helpers, the core
 * objects (self->document, self->runs, self->recorder, self->declared,
 * self->run_on_change) and the widgets; the files point one way
 * (sp-window.c, -save.c, -actions.c, -view.c, each calling only those
 * after it), a new window comes from the context's factory
 * (sp_app_context_new_window), and otherwise the files hear from each
 * other through the core objects' signals. */

/* Defined in sp-window-view.c: the helpers every sp-window-*.c may use. */
void _sp_window_update_title (SpWindow *self);
void _sp_window_set_language (SpWindow *self, const char *language);
void _sp_window_language_changed (SpWindow *self);
const char *_sp_window_get_language (SpWindow *self);
void _sp_window_toast (SpWindow *self, const char *message);
char *_sp_window_get_text (SpWindow *self);
void _sp_window_goto_line (SpWindow *self, int line);
SpActivityModel *_sp_window_activity_model (SpWindow *self);
char *_sp_window_file_name_for (SpWindow *self, const char *stem);

/* Defined in sp-window-actions.c: run (a snippet's declared dependencies
 * first, and Run Anyway), stop, input, a run's results and the files it
 * made opened, New, Open (and sp-window.h's sp_window_load_file,
 * sp_window_set_workspace, sp_window_show_packages and
 * sp_window_open_new), Open Recent's action, Open Folder, Packages; it
 * binds the policy card (SpPolicyCard) to the runs. */
void _sp_window_install_actions (GtkWidgetClass *widget_class);
void _sp_window_update_actions (SpWindow *self);
void _sp_window_connect_runner (SpWindow *self);
/* The panel's input, clear, goto-line and open-file, connected at init. */
void _sp_window_connect_panel (SpWindow *self);

/* Defined in sp-window-save.c: Save, Save As (file NULL asks for a
 * name), and the unsaved text's copy: its bars, the buffer bound to the
 * document, and sp-window.h's sp_window_restore_autosave,
 * sp_window_show_autosave_notice and sp_window_autosave_now. */
void _sp_window_install_save_actions (GtkWidgetClass *widget_class);
void _sp_window_save (SpWindow *self, GFile *file, gboolean then_close);
void _sp_window_autosave_init (SpWindow *self);
void _sp_window_autosave_dispose (SpWindow *self);
