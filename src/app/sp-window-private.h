/* sp-window-private.h: SpWindow's state, shared by sp-window.c (layout,
 * files, closing) and sp-window-actions.c (run, stop, open, save). */
#pragma once

#include <gtksourceview/gtksource.h>

#include "sp-exec-panel.h"
#include "sp-output-model.h"
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
  SpSplit *split;
  GtkSourceView *source_view;
  SpExecPanel *exec_panel;
  GtkRevealer *runner_banner;
  GtkLabel *runner_banner_label;

  GSettings *settings;
  SpRunnerSupervisor *supervisor;
  GtkCssProvider *font_css;
  GFile *file;
  /* A file was opened before the runner could say its language. */
  gboolean language_pending;

  /* The run shown in the panel. Its files (plots) stay until the next run,
   * so the panel can show them; then the runner may forget it. */
  char *run_id;
  SpOutputModel *output;
  GString *stderr_text;
  gboolean running;
  gboolean run_exited;
  const char *run_start; /* the last run's "warm start" / "cold start", NULL: none yet */
  GtkTextTag *error_tag;
  GCancellable *decode_cancellable; /* the shown run's images */
  /* sp-window-input.c: the program's last output left an open line (a
   * prompt); after a quiet spell the status says it waits for input. */
  gboolean prompt_open;
  guint quiet_id;
  AdwToast *busy_toast; /* "a program is running", shown once at a time */
  /* The status line says the runner was lost; cleared once it is back. */
  gboolean runner_lost;
  /* Close was asked for while a run was going or text was unsaved. */
  gboolean close_confirmed;
};

/* The languages the dropdown offers, in its order. */
extern const char *const sp_window_languages[];

/* sp-window-actions.c */
void _sp_window_install_actions (GtkWidgetClass *widget_class);
void _sp_window_update_actions (SpWindow *self);
void _sp_window_connect_runner (SpWindow *self);
void _sp_window_stop_run (SpWindow *self);
void _sp_window_save (SpWindow *self, GFile *file, gboolean then_close);
void _sp_window_release_run (SpWindow *self);
void _sp_window_goto_line (SpWindow *self, int line, gboolean mark);
void _sp_window_clear_mark (SpWindow *self);
char *_sp_window_file_name_for (SpWindow *self, const char *stem);

/* sp-window-runner.c */
void _sp_window_install_runner_actions (GtkWidgetClass *widget_class);
void _sp_window_connect_runner_state (SpWindow *self);
void _sp_window_runner_state_changed (SpWindow *self);
void _sp_window_update_runner_banner (SpWindow *self);

/* sp-window-input.c */
void _sp_window_input_saw_output (SpWindow *self, const char *text);
void _sp_window_input_sent (SpWindow *self, const char *line);
void _sp_window_input_reset (SpWindow *self);

/* sp-window-keys.c */
void _sp_window_guard_run_keys (SpWindow *self);

/* sp-window.c */
void _sp_window_update_title (SpWindow *self);
void _sp_window_set_language (SpWindow *self, const char *language);
const char *_sp_window_get_language (SpWindow *self);
void _sp_window_toast (SpWindow *self, const char *message);
