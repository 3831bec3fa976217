/* sp-run-result.h: how a run ended, from its exited event. */
#pragma once

#include <glib-object.h>

#include "sp-error-info.h"

G_BEGIN_DECLS

/* The core's own words for how a run ended. They mirror the protocol's
 * (docs/protocol.md) one for one, so the app never sees wire types. */
typedef enum
{
  SP_RUN_END_EXITED,   /* the program exited with its exit code */
  SP_RUN_END_SIGNALED, /* a signal killed it */
  SP_RUN_END_FAILED,   /* it never ran: see sp_run_result_get_error() */
} SpRunEnd;

typedef enum
{
  SP_RUN_LIMIT_NONE,
  SP_RUN_LIMIT_TIME,
  SP_RUN_LIMIT_CPU,
  SP_RUN_LIMIT_MEMORY,
  SP_RUN_LIMIT_OUTPUT,
  SP_RUN_LIMIT_PROCESSES,
  SP_RUN_LIMIT_DISK,
  SP_RUN_LIMIT_INPUT_IDLE,   /* waited for input past the runner's idle cap */
  SP_RUN_LIMIT_COMPILE_TIME, /* a compiled language's compile step */
} SpRunLimit;

/* How far a cancel had to go before the program was gone. */
typedef enum
{
  SP_RUN_CANCEL_NONE,
  SP_RUN_CANCEL_INTERRUPT,
  SP_RUN_CANCEL_TERMINATE,
  SP_RUN_CANCEL_KILL,
} SpRunCancel;

typedef enum
{
  SP_RUN_FILE_REGULAR,
  SP_RUN_FILE_SYMLINK,
  SP_RUN_FILE_FIFO,
  SP_RUN_FILE_SOCKET,
  SP_RUN_FILE_DEVICE,
  SP_RUN_FILE_OTHER,
} SpRunFileKind;

typedef struct _SpRunResult SpRunResult;

#define SP_TYPE_RUN_RESULT (sp_run_result_get_type ())
GType sp_run_result_get_type (void) G_GNUC_CONST;

SpRunResult *sp_run_result_ref (SpRunResult *self);
void sp_run_result_unref (SpRunResult *self);

/* Exited with status 0, no limit hit, not cancelled. */
gboolean sp_run_result_succeeded (SpRunResult *self);
SpRunEnd sp_run_result_get_end (SpRunResult *self);
int sp_run_result_get_exit_code (SpRunResult *self);
int sp_run_result_get_signal (SpRunResult *self);
SpRunLimit sp_run_result_get_limit (SpRunResult *self);
SpRunCancel sp_run_result_get_cancelled (SpRunResult *self);
/* The error the program reported, as the runner read it from its stderr
 * (the same object sandpad-run --json and sandpad-mcp give); NULL when it
 * did not fail with one. Transfer none. */
SpErrorInfo *sp_run_result_get_error_info (SpRunResult *self);
gint64 sp_run_result_get_wall_ms (SpRunResult *self);
gint64 sp_run_result_get_cpu_ms (SpRunResult *self);
gint64 sp_run_result_get_peak_memory (SpRunResult *self);
/* TRUE when the run was forked from the runner's warm interpreter, FALSE
 * for a cold start (or a runner that does not say). */
gboolean sp_run_result_get_warm (SpRunResult *self);
/* Why a cold start was cold when the runner has turned its warm runs off
 * after a failure of their own (a helper it cannot run); NULL otherwise. */
const char *sp_run_result_get_cold_reason (SpRunResult *self);
/* Everything the program wrote to each stream, including what a limit cut. */
gint64 sp_run_result_get_stdout_bytes (SpRunResult *self);
gint64 sp_run_result_get_stderr_bytes (SpRunResult *self);
/* Output past the run's output limit was dropped (either stream). */
gboolean sp_run_result_get_truncated (SpRunResult *self);
/* Why it never ran (SP_RUN_END_FAILED), else NULL. */
const char *sp_run_result_get_error (SpRunResult *self);
/* A run in a session whose interpreter ended with it: why ("exited" for
 * a crash or exit, "timeout", "cancelled", "limit", "closed", "restart",
 * "idle", "failed"); NULL while the session lives on, or not a session. */
const char *sp_run_result_get_session_ended (SpRunResult *self);

/* Absolute paths (SpRunFile's path) of the images the run created or
 * changed, in the runner's order (NULL-terminated, owned by the result). */
const char *const *sp_run_result_get_images (SpRunResult *self);

/* Every file the run created or changed, images included, and the
 * symlinks, FIFOs and sockets it left (kind says which). */
typedef struct
{
  /* absolute, made from name (never from relative); NULL with name. Only
   * for telling files apart and showing: open through sp-run-file.h. */
  char *path;
  char *relative; /* as shown: the runner escapes control bytes, so it may not spell the name */
  gint64 size;
  char *mime;
  SpRunFileKind kind; /* SP_RUN_FILE_REGULAR, or what else the run left there */
  char *target;       /* SP_RUN_FILE_SYMLINK: where it points (shown, never followed) */
  gint64 t_ms;        /* last modified, on the runner's clock (as output's); -1: unknown */
  char *dir;          /* the run's directory, as the runner named it */
  /* The name's bytes beneath dir, for sp_run_file_open(); NULL when the
   * runner could not carry it (a very long escaped name): not openable. */
  char *name;
} SpRunFile;

guint sp_run_result_get_n_files (SpRunResult *self);
const SpRunFile *sp_run_result_get_file (SpRunResult *self, guint index);

/* One line for a person: "Exited with code 0 · 0.25 s · 9.1 MB · CPU 0.20 s". */
char *sp_run_result_describe (SpRunResult *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpRunResult, sp_run_result_unref)

G_END_DECLS
