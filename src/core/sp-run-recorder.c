/* sp-run-recorder.c: a window's runs into the run history. */
#define G_LOG_DOMAIN "sp-run-recorder"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-run-recorder.h"

enum
{
  CLAIMED = 1,
  KEPT,
};

/* Files of a run listed in its record, at most. */
#define FILES_MAX 200

struct _SpRunRecorder
{
  GObject parent_instance;

  SpRunHistory *store;
  SpDocument *document;
  SpRunController *runs;
  gboolean recording;
  char *code;
  char *language;
  gint64 started_us;
  GString *stdout_text;
  GString *stderr_text;
  gboolean cut;
  /* The comparison of the last run with the one before, in a worker
   * thread (two large outputs cost the diff up to a second); cancelled by
   * the next run and on dispose. */
  GCancellable *comparing;
  gboolean disposed;
  /* The journal ids of the assistants' runs being kept (CLAIMED: the
   * window reads the file) or kept (KEPT). */
  GHashTable *assistant_runs;
};

G_DEFINE_FINAL_TYPE (SpRunRecorder, sp_run_recorder, G_TYPE_OBJECT)

enum
{
  RECORDED,
  COMPARED,
  FAILED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
on_new_run (SpRunController *runs, SpRunRequest *request, SpRunRecorder *self)
{
  self->recording = TRUE;
  /* The status line is this run's now: an older comparison must not land on it. */
  g_cancellable_cancel (self->comparing);
  g_clear_object (&self->comparing);
  g_free (self->code);
  self->code = g_strdup (sp_run_request_get_code (request));
  g_free (self->language);
  self->language = g_strdup (sp_run_request_get_language (request));
  self->started_us = g_get_real_time ();
  g_string_truncate (self->stdout_text, 0);
  g_string_truncate (self->stderr_text, 0);
  self->cut = FALSE;
}

static void
on_output (SpRunController *runs, SpOutputKind kind, const char *text, SpRunRecorder *self)
{
  GString *to = kind == SP_OUTPUT_STDERR ? self->stderr_text : self->stdout_text;

  /* A typed answer goes with stdout, where a terminal shows it ("Name:
   * Alice" then "Hello Alice"). */
  if (!self->recording
      || (kind != SP_OUTPUT_STDOUT && kind != SP_OUTPUT_STDERR && kind != SP_OUTPUT_INPUT))
    return;
  /* The store keeps the start of each stream; collecting past that would
   * only hold memory. */
  if (to->len < SP_RUN_HISTORY_TEXT_MAX)
    g_string_append (to, text);
  else
    self->cut = TRUE;
}

/* The run's files by name, and its images' bytes while its directory is
 * still there (the next run replaces it). */
static char **
keep_files (SpRunRecord *record, SpRunResult *result)
{
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();

  for (guint i = 0; i < sp_run_result_get_n_files (result) && i < FILES_MAX; i++)
    {
      const SpRunFile *file = sp_run_result_get_file (result, i);
      g_autofree char *size = g_format_size ((guint64) MAX (file->size, 0));
      g_autofree char *line = NULL;
      g_autoptr (GError) error = NULL;

      if (file->kind == SP_RUN_FILE_REGULAR && sp_run_record_is_image_type (file->mime)
          && (file->name == NULL
              || !sp_run_record_keep_image (record, file->relative, file->mime, file->dir,
                                            file->name, &error)))
        {
          g_debug ("not keeping %s: %s", file->relative,
                   error ? error->message : "the runner could not name it");
          /* TRANSLATORS: a file of a run whose image the history does not
           * keep: its name, its size */
          line = g_strdup_printf (_ ("%s (%s, not kept)"), file->relative, size);
        }
      else
        line = g_strdup_printf ("%s (%s)", file->relative, size);
      g_strv_builder_add (builder, line);
    }
  return g_strv_builder_end (builder);
}

static SpRunRecord *
make_record (SpRunRecorder *self, SpRunResult *result)
{
  SpRunRecord *r = sp_run_record_new ();
  SpErrorInfo *error = sp_run_result_get_error_info (result);

  r->time_us = self->started_us;
  r->duration_ms = sp_run_result_get_wall_ms (result);
  r->language = g_strdup (self->language);
  r->code = g_strdup (self->code);
  r->stdout_text = g_strdup (self->stdout_text->str);
  r->stderr_text = g_strdup (self->stderr_text->str);
  r->output_cut = self->cut || sp_run_result_get_truncated (result);
  r->end = sp_run_result_describe (result);
  r->succeeded = sp_run_result_succeeded (result);
  r->exit_code = sp_run_result_get_end (result) == SP_RUN_END_EXITED
                   ? sp_run_result_get_exit_code (result)
                   : -1;
  if (error != NULL)
    r->error = g_strdup_printf ("%s: %s", sp_error_info_get_error_type (error),
                                sp_error_info_get_message (error));
  r->files = keep_files (r, result);
  return r;
}

typedef struct
{
  SpRunRecorder *self;
  SpRunRecord *record;
} Compared;

static void
on_compared (GObject *source, GAsyncResult *result, gpointer user_data)
{
  Compared *c = user_data;
  g_autoptr (SpRunComparison) comparison = sp_run_record_compare_finish (result, NULL, NULL);
  g_autofree char *line = comparison != NULL ? sp_run_comparison_describe (comparison) : NULL;

  /* Cancelled by the next run, or the recorder went: the comparison
   * would land on the next run's status line. */
  if (line != NULL && !c->self->disposed)
    g_signal_emit (c->self, signals[COMPARED], 0, c->record, line);
  g_object_unref (c->self);
  sp_run_record_free (c->record);
  g_free (c);
}

/* Into the store under the document's key, then compared with the run
 * before it there. */
static void
keep (SpRunRecorder *self, SpRunRecord *record_in)
{
  g_autofree char *key = sp_run_recorder_dup_key (self);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (SpRunRecord) previous = NULL;
  g_autoptr (SpRunRecord) record = record_in;
  g_autoptr (GError) error = NULL;
  Compared *c;

  previous = sp_run_history_latest (self->store, key, warnings);
  for (guint i = 0; i < warnings->len; i++)
    g_debug ("history: %s", (const char *) g_ptr_array_index (warnings, i));
  if (!sp_run_history_add (self->store, key, record, &error))
    {
      g_signal_emit (self, signals[FAILED], 0, record, error->message);
      return;
    }
  g_signal_emit (self, signals[RECORDED], 0, record);
  if (previous == NULL)
    return;
  g_cancellable_cancel (self->comparing);
  g_clear_object (&self->comparing);
  self->comparing = g_cancellable_new ();
  c = g_new0 (Compared, 1);
  c->self = g_object_ref (self);
  c->record = g_steal_pointer (&record);
  sp_run_record_compare_async (previous, c->record, FALSE, self->comparing, on_compared, c);
}

static void
on_exited (SpRunController *runs, SpRunResult *result, SpRunRecorder *self)
{
  if (!self->recording)
    return;
  self->recording = FALSE;
  keep (self, make_record (self, result));
}

/* The journal's UTC time ("2026-11-23T09:09:51.425Z") in µs, or now. */
static gint64
journal_time_us (const char *time)
{
  g_autoptr (GDateTime) when = time != NULL ? g_date_time_new_from_iso8601 (time, NULL) : NULL;

  if (when == NULL)
    return g_get_real_time ();
  return g_date_time_to_unix (when) * G_USEC_PER_SEC + g_date_time_get_microsecond (when);
}

gboolean
sp_run_recorder_claim_assistant_run (SpRunRecorder *self, SpActivityRun *run)
{
  g_return_val_if_fail (SP_IS_RUN_RECORDER (self), FALSE);
  g_return_val_if_fail (SP_IS_ACTIVITY_RUN (run), FALSE);

  if (sp_activity_run_is_running (run)
      || g_hash_table_contains (self->assistant_runs, sp_activity_run_get_id (run)))
    return FALSE;
  g_hash_table_insert (self->assistant_runs, g_strdup (sp_activity_run_get_id (run)),
                       GINT_TO_POINTER (CLAIMED));
  return TRUE;
}

gboolean
sp_run_recorder_add_assistant_run (SpRunRecorder *self, SpActivityRun *run, const char *code)
{
  SpRunRecord *r;
  GArray *chunks;
  const char *const *files;
  const char *end;
  int state;

  g_return_val_if_fail (SP_IS_RUN_RECORDER (self), FALSE);
  g_return_val_if_fail (SP_IS_ACTIVITY_RUN (run), FALSE);

  /* Claimed by the caller (it read the file meanwhile), or now; kept
   * once only. */
  state = GPOINTER_TO_INT (
    g_hash_table_lookup (self->assistant_runs, sp_activity_run_get_id (run)));
  if (state == KEPT || (state == 0 && !sp_run_recorder_claim_assistant_run (self, run)))
    return FALSE;
  g_hash_table_insert (self->assistant_runs, g_strdup (sp_activity_run_get_id (run)),
                       GINT_TO_POINTER (KEPT));
  r = sp_run_record_new ();
  end = sp_activity_run_get_end (run);
  r->time_us = journal_time_us (sp_activity_run_get_time (run));
  r->duration_ms = sp_activity_run_get_duration_ms (run);
  r->language = g_strdup (
    sp_activity_run_get_language (run) != NULL ? sp_activity_run_get_language (run) : "");
  r->code = g_strdup (code != NULL ? code : "");
  chunks = sp_activity_run_get_output (run);
  {
    g_autoptr (GString) out = g_string_new (NULL);
    g_autoptr (GString) err = g_string_new (NULL);

    for (guint i = 0; i < chunks->len; i++)
      {
        SpActivityChunk *chunk = &g_array_index (chunks, SpActivityChunk, i);
        GString *to = chunk->is_stderr ? err : out;

        /* the store keeps the start of each stream */
        if (to->len < SP_RUN_HISTORY_TEXT_MAX)
          g_string_append (to, chunk->text);
        else
          r->output_cut = TRUE;
      }
    r->stdout_text = g_string_free (g_steal_pointer (&out), FALSE);
    r->stderr_text = g_string_free (g_steal_pointer (&err), FALSE);
  }
  r->end = sp_activity_run_describe (run);
  r->exit_code = g_strcmp0 (end, "exited") == 0 ? sp_activity_run_get_exit_code (run) : -1;
  r->succeeded = g_strcmp0 (end, "exited") == 0 && r->exit_code == 0;
  r->error = g_strdup (sp_activity_run_get_error (run));
  files = sp_activity_run_get_files (run);
  r->files = files != NULL && files[0] != NULL ? g_strdupv ((char **) files) : NULL;
  r->tool = g_strdup (sp_activity_run_get_tool (run));
  r->assistant_run = g_strdup (sp_activity_run_get_id (run));
  r->diff = g_strdup (sp_activity_run_get_diff (run));
  keep (self, r);
  return TRUE;
}

/* Files larger than this are not read for an assistant's run's code: it
 * could not have been run through the protocol's 4 MiB frames either. */
#define ASSISTANT_CODE_MAX (4 * 1024 * 1024)

typedef struct
{
  GWeakRef recorder; /* a recorder gone meanwhile keeps nothing */
  SpActivityRun *run;
} AssistantRead;

/* Reading stops once past the cap: a file too big to keep is not read whole
 * to be dropped. */
static gboolean
assistant_read_more (const char *contents, goffset size, gpointer user_data)
{
  return size <= ASSISTANT_CODE_MAX;
}

static void
on_assistant_code (GObject *source, GAsyncResult *result, gpointer user_data)
{
  AssistantRead *read = user_data;
  g_autoptr (SpRunRecorder) self = g_weak_ref_get (&read->recorder);
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *code = NULL;
  gsize len = 0;

  if (!g_file_load_partial_contents_finish (G_FILE (source), result, &contents, &len, NULL, &error))
    g_debug ("assistant's run of %s kept without its code: %s",
             sp_activity_run_get_file (read->run), error->message);
  else if (len <= ASSISTANT_CODE_MAX)
    code = g_utf8_make_valid (contents, (gssize) len);
  if (self != NULL)
    sp_run_recorder_add_assistant_run (self, read->run, code != NULL ? code : "");
  g_weak_ref_clear (&read->recorder);
  g_object_unref (read->run);
  g_free (read);
}

gboolean
sp_run_recorder_keep_assistant_run (SpRunRecorder *self, SpActivityRun *run)
{
  g_autoptr (GFile) file = NULL;
  AssistantRead *read;

  g_return_val_if_fail (SP_IS_RUN_RECORDER (self), FALSE);
  g_return_val_if_fail (SP_IS_ACTIVITY_RUN (run), FALSE);

  if (sp_activity_run_get_file (run) == NULL || !sp_run_recorder_claim_assistant_run (self, run))
    return FALSE;
  /* The file as the run left it: what edit_and_execute wrote and ran. */
  file = g_file_new_for_path (sp_activity_run_get_file (run));
  read = g_new0 (AssistantRead, 1);
  g_weak_ref_init (&read->recorder, self);
  read->run = g_object_ref (run);
  g_file_load_partial_contents_async (file, NULL, assistant_read_more, on_assistant_code, read);
  return TRUE;
}

SpRunHistory *
sp_run_recorder_get_store (SpRunRecorder *self)
{
  g_return_val_if_fail (SP_IS_RUN_RECORDER (self), NULL);
  return self->store;
}

char *
sp_run_recorder_dup_key (SpRunRecorder *self)
{
  g_return_val_if_fail (SP_IS_RUN_RECORDER (self), NULL);
  return sp_document_dup_history_key (self->document);
}

static void
sp_run_recorder_dispose (GObject *object)
{
  SpRunRecorder *self = SP_RUN_RECORDER (object);

  self->disposed = TRUE;
  g_cancellable_cancel (self->comparing);
  g_clear_object (&self->comparing);
  if (self->runs != NULL)
    g_signal_handlers_disconnect_by_data (self->runs, self);
  g_clear_object (&self->runs);
  g_clear_object (&self->document);
  g_clear_object (&self->store);
  G_OBJECT_CLASS (sp_run_recorder_parent_class)->dispose (object);
}

static void
sp_run_recorder_finalize (GObject *object)
{
  SpRunRecorder *self = SP_RUN_RECORDER (object);

  g_free (self->code);
  g_free (self->language);
  g_string_free (self->stdout_text, TRUE);
  g_string_free (self->stderr_text, TRUE);
  g_hash_table_unref (self->assistant_runs);
  G_OBJECT_CLASS (sp_run_recorder_parent_class)->finalize (object);
}

static void
sp_run_recorder_class_init (SpRunRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GType type = G_TYPE_FROM_CLASS (klass);

  object_class->dispose = sp_run_recorder_dispose;
  object_class->finalize = sp_run_recorder_finalize;

  /* (SpRunRecord *record) */
  signals[RECORDED] = g_signal_new ("recorded", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 1, G_TYPE_POINTER);
  /* (SpRunRecord *record, const char *comparison) */
  signals[COMPARED] = g_signal_new ("compared", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                    G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
  /* (SpRunRecord *record, const char *message) */
  signals[FAILED] = g_signal_new ("failed", type, G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                  G_TYPE_NONE, 2, G_TYPE_POINTER, G_TYPE_STRING);
}

static void
sp_run_recorder_init (SpRunRecorder *self)
{
  self->stdout_text = g_string_new (NULL);
  self->stderr_text = g_string_new (NULL);
  self->assistant_runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

SpRunRecorder *
sp_run_recorder_new (SpRunController *runs, SpDocument *document, SpRunHistory *store)
{
  SpRunRecorder *self;

  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (runs), NULL);
  g_return_val_if_fail (SP_IS_DOCUMENT (document), NULL);
  g_return_val_if_fail (SP_IS_RUN_HISTORY (store), NULL);
  self = g_object_new (SP_TYPE_RUN_RECORDER, NULL);
  self->runs = g_object_ref (runs);
  self->document = g_object_ref (document);
  self->store = g_object_ref (store);
  g_signal_connect_object (runs, "new-run", G_CALLBACK (on_new_run), self, 0);
  g_signal_connect_object (runs, "output", G_CALLBACK (on_output), self, 0);
  g_signal_connect_object (runs, "exited", G_CALLBACK (on_exited), self, 0);
  return self;
}
