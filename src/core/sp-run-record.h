/* sp-run-record.h: one kept run of a window, and how two runs compare.
 *
 * A record is what the history (sp-run-history.h) stores and lists: the
 * code as it ran, stdout and stderr as the panel showed them, the files the
 * run made (by name and size), the bytes of its first few images (read when
 * the run ends: the run's directory goes away with the next run), and how it
 * ended. Plain data: the app fills it when a run ends (its own, or an
 * assistant's edit_and_execute of the file, marked with the tool and the
 * edit's diff), the store writes and reads it.
 *
 * Comparing two records says whether the output is the same and, when not,
 * gives each stream's line diff and what happened to the error. */
#pragma once

#include <gio/gio.h>

#include "sp-line-diff.h"

G_BEGIN_DECLS

/* What one run keeps of its images: the rest are listed by name only. */
#define SP_RUN_RECORD_IMAGES_MAX 8
#define SP_RUN_RECORD_IMAGE_BYTES_MAX (4 * 1024 * 1024)

/* One image a run made, kept whole. */
typedef struct
{
  char *name; /* its path in the run: "plot-1.png" */
  char *mime; /* as the runner typed it: "image/png" */
  GBytes *bytes;
  char *path; /* where the store keeps it (what a viewer decodes); NULL until stored */
} SpRunImage;

void sp_run_image_free (SpRunImage *image);

typedef struct
{
  char *id;       /* the store's name for it; NULL until stored */
  gint64 time_us; /* when it started, g_get_real_time () */
  gint64 duration_ms;
  char *language;
  char *code;
  char *stdout_text;
  char *stderr_text;
  gboolean output_cut; /* the text above is not all the run wrote */
  char *end;           /* one line for a person: "Exited with code 1 · 0.25 s" */
  gboolean succeeded;
  int exit_code;     /* -1 when it did not exit */
  char *error;       /* "ZeroDivisionError: division by zero", or NULL */
  char **files;      /* "plot-1.png (12.3 kB)", NULL-terminated, may be NULL */
  GPtrArray *images; /* of SpRunImage, in the run's order; never NULL */
  /* An assistant's run of the file (through sandpad-mcp): the tool that
   * ran it ("edit_and_execute"), its journal id and the edit it made as a
   * unified diff (may be NULL); all NULL for the window's own runs. */
  char *tool;
  char *assistant_run;
  char *diff;
} SpRunRecord;

SpRunRecord *sp_run_record_new (void);
void sp_run_record_free (SpRunRecord *record);
SpRunRecord *sp_run_record_copy (const SpRunRecord *record);

/* Whether a file of this type is one of the images a record keeps (PNG,
 * SVG, JPEG, GIF, WebP). */
gboolean sp_run_record_is_image_type (const char *mime);

/* Reads the run's file file_name beneath dir (its name's bytes, never
 * the shown text; a regular file, no symlink followed at any step, as
 * sp_run_file_open()) into record->images as name, unless the record already holds
 * SP_RUN_RECORD_IMAGES_MAX images or SP_RUN_RECORD_IMAGE_BYTES_MAX bytes of
 * them with it: then FALSE with error, and the caller lists it as not kept. */
gboolean sp_run_record_keep_image (SpRunRecord *record, const char *name, const char *mime,
                                   const char *dir, const char *file_name, GError **error);

typedef enum
{
  SP_RUN_ERROR_NONE,     /* neither run failed with an error */
  SP_RUN_ERROR_SAME,     /* both failed with the same error */
  SP_RUN_ERROR_APPEARED, /* only the newer run has one */
  SP_RUN_ERROR_CHANGED,  /* both have one, not the same */
  SP_RUN_ERROR_GONE,     /* only the older run had one */
} SpRunErrorChange;

typedef struct
{
  gboolean same_output;  /* stdout, stderr and error all the same */
  SpLineDiff *code_diff; /* the code as it ran (not part of same_output) */
  SpLineDiff *stdout_diff;
  SpLineDiff *stderr_diff;
  SpRunErrorChange error_change;
} SpRunComparison;

SpRunComparison *sp_run_record_compare (const SpRunRecord *older, const SpRunRecord *newer);
void sp_run_comparison_free (SpRunComparison *comparison);

/* "Output changed since the last run: 2 lines of output differ, the error
 * went away" and the like, for the status line. Translated. */
char *sp_run_comparison_describe (const SpRunComparison *comparison);

/* The whole comparison as text: the code's unified diff (labelled "code,
 * last run" / "code, this run") or that it is the same, the error's change,
 * then each stream's unified diff (labelled "stdout, last run" / "stdout,
 * this run"). */
char *sp_run_comparison_to_text (const SpRunComparison *comparison, const SpRunRecord *older,
                                 const SpRunRecord *newer);

/* One line that tells run from previous (the run before it, or NULL),
 * for a list of runs where every run "Exited with code 0": the first line
 * of code that changed ("Code: print(x + 1)"), else of its output
 * ("Output: 42", "Error: ValueError: bad"), else that both are the same;
 * a first run gives its output's first line. Found by a line-by-line scan,
 * not a diff: a list of 200 runs of 256 KiB each opens at once.
 * Translated, at most about 80 characters. */
char *sp_run_record_summary (const SpRunRecord *run, const SpRunRecord *previous);

/* The most of a comparison's text sp_run_record_compare_async() gives. */
#define SP_RUN_COMPARISON_TEXT_MAX (64 * 1024)

/* sp_run_record_compare() and, with with_text, sp_run_comparison_to_text()
 * in a worker thread, on copies of the two records: two outputs of 256 KiB
 * that differ in many places cost the diff up to a second, which on the
 * main thread froze the window at the end of a run (issue 29). */
void sp_run_record_compare_async (const SpRunRecord *older, const SpRunRecord *newer,
                                  gboolean with_text, GCancellable *cancellable,
                                  GAsyncReadyCallback callback, gpointer user_data);
/* The comparison, and its text in *text when asked for with with_text
 * (text may be NULL), cut at a line to SP_RUN_COMPARISON_TEXT_MAX with a
 * note saying so; NULL with error only when cancelled. */
SpRunComparison *sp_run_record_compare_finish (GAsyncResult *result, char **text, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpRunRecord, sp_run_record_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpRunImage, sp_run_image_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpRunComparison, sp_run_comparison_free)

G_END_DECLS
