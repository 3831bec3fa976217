/* sp-window-private.h: SpWindow's state, shared by sp-window.c (layout,
 * files, closing) and sp-window-actions.c (run, stop, open, save). */
#pragma once

#include <gtksourceview/gtksource.h>

#include "sp-activity-model.h"
#include "sp-exec-panel.h"
#include "sp-image-budget.h"
#include "sp-output-model.h"
#include "sp-reload-bar.h"
#include "sp-split.h"
#include "sp-window.h"

/* sp-window-history.c's state */
typedef struct _SpWindowHistory SpWindowHistory;

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
  /* An assistant's run of this file shown in the panel (sp-window-
   * activity.c): the model it fills while self->output is that model,
   * and how much of the run's output it holds (chunks, bytes of the
   * last, which may still grow), so each journal line appends only what
   * is new. */
  SpOutputModel *assistant_output;
  SpActivityRun *assistant_run;
  guint assistant_chunks;
  gsize assistant_last_len;
  gboolean assistant_error_shown;
  /* A run whose journal lines came since the last frame, shown on the
   * next one (a tick callback), once however many lines came. */
  SpActivityRun *assistant_changed;
  guint assistant_tick_id;
  GString *stderr_text;
  gboolean running;
  gboolean run_exited;
  char *run_start; /* the last run's "warm start" / "cold start[: why]", NULL: none yet */
  GtkTextTag *error_tag;
  GCancellable *decode_cancellable; /* the shown run's images */
  SpImageBudget *image_budget;      /* their decoded pixels, bounded */
  /* sp-window-input.c: the program's last output left an open line (a
   * prompt); after a quiet spell the status says it waits for input. */
  gboolean prompt_open;
  guint quiet_id;
  AdwToast *busy_toast; /* "a program is running", shown once at a time */
  /* The status line says the runner was lost; cleared once it is back. */
  gboolean runner_lost;
  /* Close was asked for while a run was going or text was unsaved. */
  gboolean close_confirmed;
  /* sp-window-history.c: the run being recorded, the store */
  SpWindowHistory *history;

  /* sp-window-file.c: the file on disk, watched. disk_text is what the
   * file held when we last loaded, saved or accepted it (NULL: nothing on
   * disk), so our own saves and a touch are no change. */
  SpReloadBar *file_bar;
  GFileMonitor *monitor;
  GBytes *disk_text;
  GBytes *saving_text;  /* a save on its way to disk */
  GBytes *pending_disk; /* an outside change the person has not answered */
  GFile *renamed_to;    /* the monitor saw our file renamed to this */
  gboolean moved_away;  /* ... or moved out of its folder */
  GCancellable *check_cancellable;
  guint check_id;
  GtkTextTag *changed_tag;
  guint changed_tag_id;
  GtkTextMark *top_mark; /* the line at the top of the view, kept by a reload */
  gboolean run_on_change;
  guint rerun_id;
  guint rerun_tries;
  GtkWindow *compare_window;
  GMenu *recent_menu; /* template: Open Recent, filled from GtkRecentManager */

  /* sp-window-autosave.c: the unsaved text's copy in the state folder. */
  SpReloadBar *autosave_bar;
  SpReloadBar *notice_bar; /* files skipped in the autosave folder */
  char *autosave_id;
  char *autosave_title; /* "Untitled 2" for a scratch buffer */
  guint autosave_timer;
  gboolean autosave_failed;
  /* The folder its copies go to; NULL when another process owns it. */
  char *autosave_dir;
  gboolean autosave_off_said;
  /* sp-window-session.c: "Keep state between runs" */
  GtkWidget *restart_button;
  gboolean keep_state;
  gboolean session_used; /* a run named the session since it last ended */
  char *session_id;
  /* sp-window-display.c: where the images of the shown run's results
   * are written (NULL: none yet), for which run, how many. */
  char *display_dir;
  char *display_run;
  guint display_count;
  /* sp-window-packages.c: the folder opened with Open Folder… (NULL:
   * none), the top of the search for an environment. */
  char *workspace;
};

/* The languages the dropdown offers, in its order. */
extern const char *const sp_window_languages[];

/* sp-window-save.c: file NULL asks for a name (Save As). */
void _sp_window_save (SpWindow *self, GFile *file, gboolean then_close);

/* sp-window-actions.c */
void _sp_window_install_actions (GtkWidgetClass *widget_class);
void _sp_window_update_actions (SpWindow *self);
void _sp_window_connect_runner (SpWindow *self);
void _sp_window_stop_run (SpWindow *self);
void _sp_window_release_run (SpWindow *self);
void _sp_window_goto_line (SpWindow *self, int line, gboolean mark);
void _sp_window_clear_mark (SpWindow *self);
char *_sp_window_file_name_for (SpWindow *self, const char *stem);

/* sp-window-runner.c */
void _sp_window_install_runner_actions (GtkWidgetClass *widget_class);
void _sp_window_connect_runner_state (SpWindow *self);
void _sp_window_runner_state_changed (SpWindow *self);
void _sp_window_update_runner_banner (SpWindow *self);

/* sp-window-session.c */
void _sp_window_session_init (SpWindow *self);
void _sp_window_session_apply (SpWindow *self, SpRunRequest *request);
void _sp_window_session_exited (SpWindow *self, SpRunResult *result);
const char *_sp_window_session_label (SpWindow *self);
void _sp_window_session_dispose (SpWindow *self);
/* sp-window-display.c */
void _sp_window_display_image (SpWindow *self, const char *run_id, const char *text,
                               GBytes *png);
void _sp_window_display_dispose (SpWindow *self);
/* sp-window-save.c: file NULL asks for a name (Save As). */
void _sp_window_save (SpWindow *self, GFile *file, gboolean then_close);

/* sp-window-actions.c */
void _sp_window_update_policy (SpWindow *self);

/* sp-window-packages.c */
void _sp_window_install_packages_actions (GtkWidgetClass *widget_class);
char *_sp_window_folder (SpWindow *self);
char *_sp_window_environment (SpWindow *self);

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

/* sp-window-history.c */
void _sp_window_install_history_actions (GtkWidgetClass *widget_class);
void _sp_window_history_init (SpWindow *self);
void _sp_window_history_free (SpWindow *self);
char *_sp_window_history_key (SpWindow *self);
const char *_sp_window_history_get_scratch_name (SpWindow *self);
void _sp_window_history_set_scratch_name (SpWindow *self, const char *name);
void _sp_window_history_run_started (SpWindow *self, const char *code, const char *language);
void _sp_window_history_saw_output (SpWindow *self, SpOutputKind kind, const char *text);
void _sp_window_history_run_ended (SpWindow *self, SpRunResult *result, const char *summary);

/* sp-window-activity.c */
void _sp_window_install_activity_actions (GtkWidgetClass *widget_class);
void _sp_window_activity_init (SpWindow *self);
SpActivityModel *_sp_window_activity_model (SpWindow *self);
/* sp-window-file.c */
void _sp_window_file_init (SpWindow *self);
void _sp_window_file_dispose (SpWindow *self);
void _sp_window_file_watch (SpWindow *self);
void _sp_window_file_loaded (SpWindow *self, const char *contents, gsize len);
void _sp_window_file_saving (SpWindow *self, GBytes *bytes);
void _sp_window_file_save_failed (SpWindow *self);
void _sp_window_file_saved (SpWindow *self, GBytes *bytes);
void _sp_window_file_request_rerun (SpWindow *self);
char *_sp_window_get_text (SpWindow *self);

/* sp-window-autosave.c */
void _sp_window_autosave_init (SpWindow *self);
void _sp_window_autosave_dispose (SpWindow *self);
void _sp_window_autosave_now (SpWindow *self);
void _sp_window_autosave_forget (SpWindow *self);
