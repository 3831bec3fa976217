/* sp-activity-run.h: one run an assistant made through sandpad-mcp, as the
 * live journal tells it (docs/mcp.md, "The live journal, and Stop").
 *
 * Filled by SpActivityModel from live.jsonl lines: what was run (tool,
 * code or command, workspace), its output as it comes (by stream, in
 * order), and how it ended. "changed" is emitted after each update. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define SP_TYPE_ACTIVITY_RUN (sp_activity_run_get_type ())
G_DECLARE_FINAL_TYPE (SpActivityRun, sp_activity_run, SP, ACTIVITY_RUN, GObject)

typedef struct
{
  gboolean is_stderr;
  char *text;
} SpActivityChunk;

const char *sp_activity_run_get_id (SpActivityRun *self);       /* "4242-mcp-3" */
const char *sp_activity_run_get_tool (SpActivityRun *self);     /* "execute_code" */
const char *sp_activity_run_get_language (SpActivityRun *self); /* NULL for commands */
/* The code, the command, or for edit_and_execute the file's path. */
const char *sp_activity_run_get_source (SpActivityRun *self);
/* edit_and_execute: the file it edited and ran, absolute when the
 * workspace is known; else NULL. */
const char *sp_activity_run_get_file (SpActivityRun *self);
const char *sp_activity_run_get_workspace (SpActivityRun *self); /* may be NULL */
const char *sp_activity_run_get_time (SpActivityRun *self);      /* UTC, ISO 8601 */
/* When it started as a person reads it: local time (with the date when
 * not today), and how long before now: "14:03:21, 5 minutes ago". NULL
 * without a time. */
char *sp_activity_run_format_time (SpActivityRun *self, GDateTime *now);
gboolean sp_activity_run_is_running (SpActivityRun *self);
/* "exited", "cancelled", "timeout", ... once ended; "lost" when its server
 * is gone without saying how it ended; NULL while running. */
const char *sp_activity_run_get_end (SpActivityRun *self);
int sp_activity_run_get_exit_code (SpActivityRun *self); /* -1: none */
gint64 sp_activity_run_get_duration_ms (SpActivityRun *self);
const char *sp_activity_run_get_error (SpActivityRun *self); /* "Type: message" or NULL */
const char *sp_activity_run_get_diff (SpActivityRun *self);  /* edit_and_execute's edit */
/* Names of the files it made (plots among them), NULL-terminated. */
const char *const *sp_activity_run_get_files (SpActivityRun *self);
/* Its output so far, in order (of SpActivityChunk). */
GArray *sp_activity_run_get_output (SpActivityRun *self);
/* One line for a person: "Exited with code 0 · 0.25 s", "Running…". */
char *sp_activity_run_describe (SpActivityRun *self);

/* For SpActivityModel. */
SpActivityRun *_sp_activity_run_new (const char *id);
void _sp_activity_run_set_start (SpActivityRun *self, const char *tool, const char *language,
                                 const char *source, const char *file, const char *workspace,
                                 const char *time, gint pid);
void _sp_activity_run_add_output (SpActivityRun *self, gboolean is_stderr, const char *text);
/* stdout/stderr: the end line's text, used when no output line came (a
 * run that began before the app followed the journal, or a flood). */
void _sp_activity_run_set_end (SpActivityRun *self, const char *end, int exit_code,
                               gint64 duration_ms, const char *error, const char *diff,
                               const char *const *files, const char *stdout_text,
                               const char *stderr_text);
gint _sp_activity_run_get_pid (SpActivityRun *self);

G_END_DECLS
