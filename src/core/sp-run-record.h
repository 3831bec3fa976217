/* sp-run-record.h: one kept run of a window, and how two runs compare.
 *
 * A record is what the history (sp-run-history.h) stores and lists: the
 * code as it ran, stdout and stderr as the panel showed them, the files the
 * run made (by name and size: the run's directory goes away with the next
 * run, so their contents are not kept), and how it ended. Plain data: the
 * app fills it when a run ends, the store writes and reads it.
 *
 * Comparing two records says whether the output is the same and, when not,
 * gives each stream's line diff and what happened to the error. */
#pragma once

#include <glib.h>

#include "sp-line-diff.h"

G_BEGIN_DECLS

typedef struct
{
  char *id;             /* the store's name for it; NULL until stored */
  gint64 time_us;       /* when it started, g_get_real_time () */
  gint64 duration_ms;
  char *language;
  char *code;
  char *stdout_text;
  char *stderr_text;
  gboolean output_cut;  /* the text above is not all the run wrote */
  char *end;            /* one line for a person: "Exited with code 1 · 0.25 s" */
  gboolean succeeded;
  int exit_code;        /* -1 when it did not exit */
  char *error;          /* "ZeroDivisionError: division by zero", or NULL */
  char **files;         /* "plot-1.png (12.3 kB)", NULL-terminated, may be NULL */
} SpRunRecord;

SpRunRecord *sp_run_record_new (void);
void sp_run_record_free (SpRunRecord *record);
SpRunRecord *sp_run_record_copy (const SpRunRecord *record);

typedef enum
{
  SP_RUN_ERROR_NONE,      /* neither run failed with an error */
  SP_RUN_ERROR_SAME,      /* both failed with the same error */
  SP_RUN_ERROR_APPEARED,  /* only the newer run has one */
  SP_RUN_ERROR_CHANGED,   /* both have one, not the same */
  SP_RUN_ERROR_GONE,      /* only the older run had one */
} SpRunErrorChange;

typedef struct
{
  gboolean same_output;   /* stdout, stderr and error all the same */
  SpLineDiff *stdout_diff;
  SpLineDiff *stderr_diff;
  SpRunErrorChange error_change;
} SpRunComparison;

SpRunComparison *sp_run_record_compare (const SpRunRecord *older, const SpRunRecord *newer);
void sp_run_comparison_free (SpRunComparison *comparison);

/* "Output changed since the last run: 2 lines of output differ, the error
 * went away" and the like, for the status line. Translated. */
char *sp_run_comparison_describe (const SpRunComparison *comparison);

/* The whole comparison as text: the error's change, then each stream's
 * unified diff (labelled "stdout, last run" / "stdout, this run"). */
char *sp_run_comparison_to_text (const SpRunComparison *comparison, const SpRunRecord *older,
                                 const SpRunRecord *newer);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpRunRecord, sp_run_record_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpRunComparison, sp_run_comparison_free)

G_END_DECLS
