/* sp-run-record.c: one kept run, and how two runs compare. */
#define G_LOG_DOMAIN "sp-run-record"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-run-file.h"
#include "sp-run-record.h"

void
sp_run_image_free (SpRunImage *image)
{
  if (image == NULL)
    return;
  g_free (image->name);
  g_free (image->mime);
  g_clear_pointer (&image->bytes, g_bytes_unref);
  g_free (image->path);
  g_free (image);
}

static SpRunImage *
image_copy (const SpRunImage *image, gpointer unused)
{
  SpRunImage *copy = g_new0 (SpRunImage, 1);

  copy->name = g_strdup (image->name);
  copy->mime = g_strdup (image->mime);
  copy->bytes = image->bytes != NULL ? g_bytes_ref (image->bytes) : NULL;
  copy->path = g_strdup (image->path);
  return copy;
}

SpRunRecord *
sp_run_record_new (void)
{
  SpRunRecord *record = g_new0 (SpRunRecord, 1);

  record->exit_code = -1;
  record->images = g_ptr_array_new_with_free_func ((GDestroyNotify) sp_run_image_free);
  return record;
}

gboolean
sp_run_record_is_image_type (const char *mime)
{
  static const char *const types[] = { "image/png", "image/svg+xml", "image/jpeg", "image/gif",
                                       "image/webp" };

  for (guint i = 0; mime != NULL && i < G_N_ELEMENTS (types); i++)
    if (g_str_equal (mime, types[i]))
      return TRUE;
  return FALSE;
}

static gsize
kept_bytes (const SpRunRecord *record)
{
  gsize total = 0;

  for (guint i = 0; i < record->images->len; i++)
    {
      SpRunImage *image = g_ptr_array_index (record->images, i);
      total += g_bytes_get_size (image->bytes);
    }
  return total;
}

/* At most limit bytes of the run's file, or NULL with error. Read as
 * every file of a run is (sp-run-file.h): by its name beneath the run's
 * directory, no symlink followed at any step (one could name any file of
 * the user's, and a folder of the run can be one too), no FIFO, a regular
 * file whose size is checked before it is read. */
static GBytes *
read_capped (const char *dir, const char *file_name, gsize limit, GError **error)
{
  g_autoptr (GError) local = NULL;
  GBytes *bytes = sp_run_file_read (dir, file_name, limit, SP_RUN_FILE_READ_WHOLE, NULL, NULL,
                                    &local);

  if (bytes != NULL)
    return bytes;
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_MESSAGE_TOO_LARGE))
    g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                         _ ("over the images' size kept per run"));
  else
    g_propagate_error (error, g_steal_pointer (&local));
  return NULL;
}

gboolean
sp_run_record_keep_image (SpRunRecord *record, const char *name, const char *mime, const char *dir,
                          const char *file_name, GError **error)
{
  gsize used;
  GBytes *bytes;
  SpRunImage *image;

  g_return_val_if_fail (record != NULL && name != NULL && dir != NULL && file_name != NULL, FALSE);

  if (!sp_run_record_is_image_type (mime))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _ ("not an image"));
      return FALSE;
    }
  if (record->images->len >= SP_RUN_RECORD_IMAGES_MAX)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NO_SPACE, _ ("a run keeps at most %d images"),
                   SP_RUN_RECORD_IMAGES_MAX);
      return FALSE;
    }
  used = kept_bytes (record);
  bytes = read_capped (dir, file_name,
                       SP_RUN_RECORD_IMAGE_BYTES_MAX - MIN (used, SP_RUN_RECORD_IMAGE_BYTES_MAX),
                       error);
  if (bytes == NULL)
    return FALSE;
  image = g_new0 (SpRunImage, 1);
  image->name = g_strdup (name);
  image->mime = g_strdup (mime);
  image->bytes = bytes;
  g_ptr_array_add (record->images, image);
  return TRUE;
}

void
sp_run_record_free (SpRunRecord *record)
{
  if (record == NULL)
    return;
  g_free (record->id);
  g_free (record->language);
  g_free (record->code);
  g_free (record->stdout_text);
  g_free (record->stderr_text);
  g_free (record->end);
  g_free (record->error);
  g_strfreev (record->files);
  g_clear_pointer (&record->images, g_ptr_array_unref);
  g_free (record->tool);
  g_free (record->assistant_run);
  g_free (record->diff);
  g_free (record);
}

SpRunRecord *
sp_run_record_copy (const SpRunRecord *record)
{
  SpRunRecord *copy = g_memdup2 (record, sizeof *record);

  copy->id = g_strdup (record->id);
  copy->language = g_strdup (record->language);
  copy->code = g_strdup (record->code);
  copy->stdout_text = g_strdup (record->stdout_text);
  copy->stderr_text = g_strdup (record->stderr_text);
  copy->end = g_strdup (record->end);
  copy->error = g_strdup (record->error);
  copy->files = g_strdupv (record->files);
  copy->tool = g_strdup (record->tool);
  copy->assistant_run = g_strdup (record->assistant_run);
  copy->diff = g_strdup (record->diff);
  copy->images = g_ptr_array_copy (record->images, (GCopyFunc) image_copy, NULL);
  g_ptr_array_set_free_func (copy->images, (GDestroyNotify) sp_run_image_free);
  return copy;
}

SpRunComparison *
sp_run_record_compare (const SpRunRecord *older, const SpRunRecord *newer)
{
  SpRunComparison *c = g_new0 (SpRunComparison, 1);

  g_return_val_if_fail (older != NULL && newer != NULL, NULL);
  c->code_diff = sp_line_diff (older->code, newer->code);
  c->stdout_diff = sp_line_diff (older->stdout_text, newer->stdout_text);
  c->stderr_diff = sp_line_diff (older->stderr_text, newer->stderr_text);
  if (older->error == NULL && newer->error == NULL)
    c->error_change = SP_RUN_ERROR_NONE;
  else if (older->error == NULL)
    c->error_change = SP_RUN_ERROR_APPEARED;
  else if (newer->error == NULL)
    c->error_change = SP_RUN_ERROR_GONE;
  else
    c->error_change = g_str_equal (older->error, newer->error) ? SP_RUN_ERROR_SAME
                                                               : SP_RUN_ERROR_CHANGED;
  c->same_output = sp_line_diff_is_same (c->stdout_diff) && sp_line_diff_is_same (c->stderr_diff)
                   && (c->error_change == SP_RUN_ERROR_NONE
                       || c->error_change == SP_RUN_ERROR_SAME);
  return c;
}

void
sp_run_comparison_free (SpRunComparison *comparison)
{
  if (comparison == NULL)
    return;
  sp_line_diff_free (comparison->code_diff);
  sp_line_diff_free (comparison->stdout_diff);
  sp_line_diff_free (comparison->stderr_diff);
  g_free (comparison);
}

static const char *
error_change_text (SpRunErrorChange change)
{
  switch (change)
    {
    case SP_RUN_ERROR_APPEARED:
      return _ ("the error is new");
    case SP_RUN_ERROR_CHANGED:
      return _ ("the error changed");
    case SP_RUN_ERROR_GONE:
      return _ ("the error went away");
    case SP_RUN_ERROR_SAME:
    case SP_RUN_ERROR_NONE:
    default:
      return NULL;
    }
}

static guint
changed_lines (const SpLineDiff *diff)
{
  guint del, ins;

  sp_line_diff_count (diff, &del, &ins);
  return MAX (del, ins);
}

char *
sp_run_comparison_describe (const SpRunComparison *c)
{
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *joined = NULL;
  guint out = changed_lines (c->stdout_diff), err = changed_lines (c->stderr_diff);
  const char *error = error_change_text (c->error_change);

  if (c->same_output)
    return g_strdup (_ ("Same output as the last run"));
  if (out > 0)
    g_ptr_array_add (parts,
                     g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u line of stdout differs",
                                                   "%u lines of stdout differ", out),
                                      out));
  if (err > 0)
    g_ptr_array_add (parts,
                     g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u line of stderr differs",
                                                   "%u lines of stderr differ", err),
                                      err));
  if (error != NULL)
    g_ptr_array_add (parts, g_strdup (error));
  g_ptr_array_add (parts, NULL);
  joined = g_strjoinv (", ", (char **) parts->pdata);
  /* TRANSLATORS: %s lists what changed: "2 lines of stdout differ, the error went away" */
  return g_strdup_printf (_ ("Output changed since the last run: %s"), joined);
}

char *
sp_run_comparison_to_text (const SpRunComparison *c, const SpRunRecord *older,
                           const SpRunRecord *newer)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *code = NULL;

  /* What was run first: a changed output is read against it. */
  code = c->code_diff != NULL
           ? sp_line_diff_to_unified (c->code_diff, _ ("code, last run"), _ ("code, this run"), 3)
           : g_strdup ("");
  if (*code == '\0')
    g_string_append (text, _ ("The code is the same as the last run's.\n"));
  else
    {
      g_string_append (text, code);
      g_string_append_c (text, '\n');
    }
  switch (c->error_change)
    {
    case SP_RUN_ERROR_APPEARED:
      g_string_append_printf (text, _ ("Error appeared: %s\n"), newer->error);
      break;
    case SP_RUN_ERROR_GONE:
      g_string_append_printf (text, _ ("Error went away (was: %s)\n"), older->error);
      break;
    case SP_RUN_ERROR_CHANGED:
      g_string_append_printf (text, _ ("Error changed: %s\n             was: %s\n"), newer->error,
                              older->error);
      break;
    case SP_RUN_ERROR_SAME:
      g_string_append_printf (text, _ ("Same error: %s\n"), newer->error);
      break;
    case SP_RUN_ERROR_NONE:
    default:
      break;
    }
  out = sp_line_diff_to_unified (c->stdout_diff, _ ("stdout, last run"), _ ("stdout, this run"), 3);
  err = sp_line_diff_to_unified (c->stderr_diff, _ ("stderr, last run"), _ ("stderr, this run"), 3);
  if (*out == '\0' && *err == '\0')
    g_string_append (text, _ ("stdout and stderr are the same as the last run's.\n"));
  else if (*out == '\0')
    g_string_append (text, _ ("stdout is the same as the last run's.\n"));
  else if (*err == '\0')
    g_string_append (text, _ ("stderr is the same as the last run's.\n"));
  g_string_append (text, out);
  g_string_append (text, err);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* The first line where new differs from old (new's, or old's when new
 * ran out), cut for a list row; NULL when they are the same. */
static char *
first_changed_line (const char *old, const char *new)
{
  const char *o = old != NULL ? old : "", *n = new != NULL ? new : "";
  const char *line;
  gsize len;

  while (*o != '\0' || *n != '\0')
    {
      const char *oe = strchrnul (o, '\n'), *ne = strchrnul (n, '\n');

      if ((oe - o) != (ne - n) || memcmp (o, n, (gsize) (ne - n)) != 0
          || (*oe == '\0') != (*ne == '\0'))
        {
          gboolean from_new = ne != n || *n != '\0';
          g_autofree char *text = NULL;

          line = from_new ? n : o;
          len = (gsize) (from_new ? ne - n : oe - o);
          /* A run of blank changed lines says nothing: the next one. */
          text = g_strstrip (g_strndup (line, len));
          if (*text == '\0' && *(from_new ? ne : oe) != '\0')
            {
              o = *oe != '\0' ? oe + 1 : oe;
              n = *ne != '\0' ? ne + 1 : ne;
              continue;
            }
          if (g_utf8_strlen (text, -1) > 72)
            {
              char *end = g_utf8_offset_to_pointer (text, 72);
              *end = '\0';
              return g_strconcat (text, "…", NULL);
            }
          return g_steal_pointer (&text);
        }
      o = *oe != '\0' ? oe + 1 : oe;
      n = *ne != '\0' ? ne + 1 : ne;
    }
  return NULL;
}

char *
sp_run_record_summary (const SpRunRecord *run, const SpRunRecord *previous)
{
  g_autofree char *line = NULL;

  g_return_val_if_fail (run != NULL, NULL);

  if (previous != NULL && (line = first_changed_line (previous->code, run->code)) != NULL)
    /* TRANSLATORS: the first line of code that changed since the run before */
    return g_strdup_printf (_ ("Code: %s"), line);
  if ((line = first_changed_line (previous ? previous->stdout_text : NULL, run->stdout_text))
      != NULL)
    /* TRANSLATORS: the first line of output that changed since the run before */
    return g_strdup_printf (_ ("Output: %s"), line);
  if (g_strcmp0 (previous ? previous->error : NULL, run->error) != 0 && run->error != NULL)
    return g_strdup_printf (_ ("Error: %s"), run->error);
  if ((line = first_changed_line (previous ? previous->stderr_text : NULL, run->stderr_text))
      != NULL)
    /* TRANSLATORS: the first line of stderr that changed since the run before */
    return g_strdup_printf (_ ("stderr: %s"), line);
  if (previous == NULL)
    return g_strdup (_ ("No output"));
  return g_strdup (_ ("Same code and output as the run before"));
}

typedef struct
{
  SpRunRecord *older;
  SpRunRecord *newer;
  gboolean with_text;
  SpRunComparison *comparison;
  char *text;
} CompareJob;

static void
compare_job_free (CompareJob *job)
{
  sp_run_record_free (job->older);
  sp_run_record_free (job->newer);
  sp_run_comparison_free (job->comparison);
  g_free (job->text);
  g_free (job);
}

static void
compare_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  CompareJob *job = data;

  job->comparison = sp_run_record_compare (job->older, job->newer);
  if (job->with_text)
    {
      job->text = sp_run_comparison_to_text (job->comparison, job->older, job->newer);
      /* A text view takes a while over a long text on the main thread:
       * the start of the diff is what a person reads; cut at a line. */
      if (strlen (job->text) > SP_RUN_COMPARISON_TEXT_MAX)
        {
          char *cut = g_utf8_find_prev_char (job->text, job->text + SP_RUN_COMPARISON_TEXT_MAX);
          char *nl = g_strrstr_len (job->text, cut - job->text, "\n");
          g_autofree char *head = g_strndup (job->text, nl != NULL ? (gsize) (nl + 1 - job->text)
                                                                   : (gsize) (cut - job->text));
          g_free (job->text);
          job->text = g_strconcat (head, _ ("\n(The comparison is longer; its start is shown.)\n"),
                                   NULL);
        }
    }
  g_task_return_boolean (task, TRUE);
}

void
sp_run_record_compare_async (const SpRunRecord *older, const SpRunRecord *newer, gboolean with_text,
                             GCancellable *cancellable, GAsyncReadyCallback callback,
                             gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  CompareJob *job = g_new0 (CompareJob, 1);

  g_return_if_fail (older != NULL && newer != NULL);
  g_task_set_source_tag (task, sp_run_record_compare_async);
  /* Copies: the caller's records may go (a window closed, a history
   * reloaded) while the thread reads them. */
  job->older = sp_run_record_copy (older);
  job->newer = sp_run_record_copy (newer);
  job->with_text = with_text;
  g_task_set_task_data (task, job, (GDestroyNotify) compare_job_free);
  /* A result nobody waits for any more is dropped, not delivered. */
  g_task_set_return_on_cancel (task, TRUE);
  g_task_run_in_thread (task, compare_thread);
}

SpRunComparison *
sp_run_record_compare_finish (GAsyncResult *result, char **text, GError **error)
{
  CompareJob *job;

  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return NULL;
  job = g_task_get_task_data (G_TASK (result));
  if (text != NULL)
    *text = g_steal_pointer (&job->text);
  return g_steal_pointer (&job->comparison);
}
