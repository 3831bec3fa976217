/* sp-activity-follow.c: an assistant's runs of one document's file,
 * followed into an output model (sp-activity-follow.h). */
#define G_LOG_DOMAIN "sp-activity-follow"

#include "config.h"

#include <string.h>

#include "sp-activity-follow.h"

struct _SpActivityFollow
{
  GObject parent_instance;

  SpDocument *document;
  /* The run the output holds, and how much of its output it holds
   * (chunks, bytes of the last), so each journal line appends only what
   * is new. */
  SpOutputModel *output;
  SpActivityRun *run;
  guint chunks;
  gsize last_len;
  gboolean error_shown;
};

G_DEFINE_FINAL_TYPE (SpActivityFollow, sp_activity_follow, G_TYPE_OBJECT)

enum
{
  RUN_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

gboolean
sp_activity_follow_is_file (SpActivityFollow *self, SpActivityRun *run)
{
  GFile *file;
  g_autofree char *path = NULL;
  g_autofree char *canonical = NULL;

  g_return_val_if_fail (SP_IS_ACTIVITY_FOLLOW (self), FALSE);
  g_return_val_if_fail (SP_IS_ACTIVITY_RUN (run), FALSE);

  file = sp_document_get_file (self->document);
  if (g_strcmp0 (sp_activity_run_get_tool (run), "edit_and_execute") != 0 || file == NULL
      || sp_activity_run_get_file (run) == NULL)
    return FALSE;
  path = g_file_get_path (file);
  if (path == NULL)
    return FALSE;
  canonical = g_canonicalize_filename (path, NULL);
  return g_str_equal (canonical, sp_activity_run_get_file (run));
}

static void
on_run_changed (SpActivityRun *run, SpActivityFollow *self)
{
  if (sp_activity_follow_is_file (self, run))
    g_signal_emit (self, signals[RUN_CHANGED], 0, run);
}

static void
on_run_added (SpActivityModel *model, SpActivityRun *run, SpActivityFollow *self)
{
  g_signal_connect_object (run, "changed", G_CALLBACK (on_run_changed), self, 0);
}

/* Appends what came since the last call: the rest of the chunk that was
 * last then, and new chunks. */
static void
append_new_output (SpActivityFollow *self, SpActivityRun *run)
{
  GArray *chunks = sp_activity_run_get_output (run);
  guint first = self->chunks > 0 ? self->chunks - 1 : 0;

  for (guint i = first; i < chunks->len; i++)
    {
      SpActivityChunk *chunk = &g_array_index (chunks, SpActivityChunk, i);
      gsize len = strlen (chunk->text);
      gsize from = i + 1 == self->chunks ? self->last_len : 0;

      if (len > from)
        sp_output_model_append (self->output,
                                chunk->is_stderr ? SP_OUTPUT_STDERR : SP_OUTPUT_STDOUT,
                                chunk->text + from);
      self->last_len = len;
    }
  self->chunks = chunks->len;
}

gboolean
sp_activity_follow_update (SpActivityFollow *self, SpActivityRun *run, gboolean fresh)
{
  gboolean started = FALSE;

  g_return_val_if_fail (SP_IS_ACTIVITY_FOLLOW (self), FALSE);
  g_return_val_if_fail (SP_IS_ACTIVITY_RUN (run), FALSE);

  if (fresh || self->output == NULL || self->run != run)
    {
      g_autoptr (SpOutputModel) output = sp_output_model_new ();

      /* Batched like a run of the window's own: a flood of journal lines
       * is shown once per frame at most. */
      sp_output_model_set_batched (output, TRUE);
      g_set_object (&self->output, output);
      g_set_object (&self->run, run);
      self->chunks = 0;
      self->last_len = 0;
      self->error_shown = FALSE;
      started = TRUE;
    }
  append_new_output (self, run);
  if (!sp_activity_run_is_running (run) && sp_activity_run_get_error (run) != NULL
      && !self->error_shown)
    {
      g_autofree char *line = g_strdup_printf ("%s\n", sp_activity_run_get_error (run));
      sp_output_model_append (self->output, SP_OUTPUT_STDERR, line);
      self->error_shown = TRUE;
    }
  if (!sp_activity_run_is_running (run))
    sp_output_model_flush (self->output);
  return started;
}

SpOutputModel *
sp_activity_follow_get_output (SpActivityFollow *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_FOLLOW (self), NULL);
  return self->output;
}

static void
sp_activity_follow_dispose (GObject *object)
{
  SpActivityFollow *self = SP_ACTIVITY_FOLLOW (object);

  g_clear_object (&self->output);
  g_clear_object (&self->run);
  g_clear_object (&self->document);
  G_OBJECT_CLASS (sp_activity_follow_parent_class)->dispose (object);
}

static void
sp_activity_follow_class_init (SpActivityFollowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sp_activity_follow_dispose;
  signals[RUN_CHANGED] = g_signal_new ("run-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_ACTIVITY_RUN);
}

static void
sp_activity_follow_init (SpActivityFollow *self)
{
}

SpActivityFollow *
sp_activity_follow_new (SpActivityModel *model, SpDocument *document)
{
  SpActivityFollow *self;

  g_return_val_if_fail (SP_IS_ACTIVITY_MODEL (model), NULL);
  g_return_val_if_fail (SP_IS_DOCUMENT (document), NULL);

  self = g_object_new (SP_TYPE_ACTIVITY_FOLLOW, NULL);
  self->document = g_object_ref (document);
  g_signal_connect_object (model, "run-added", G_CALLBACK (on_run_added), self, 0);
  return self;
}
