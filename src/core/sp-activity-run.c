/* sp-activity-run.c: one run an assistant made, as the live journal tells it. */
#define G_LOG_DOMAIN "sp-activity"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sp-activity-run.h"

#include <string.h>

/* Output kept per run: the live journal sends at most 64 KiB, the end line
 * up to 2 x 4 KiB more. */
#define OUTPUT_KEEP (256 * 1024)

struct _SpActivityRun
{
  GObject parent_instance;
  char *id, *tool, *language, *source, *file, *workspace, *time;
  gint pid;
  gboolean running;
  gboolean saw_output;
  char *end, *error, *diff;
  int exit_code;
  gint64 duration_ms;
  char **files;
  GArray *output;
  gsize output_bytes;
};

enum
{
  CHANGED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (SpActivityRun, sp_activity_run, G_TYPE_OBJECT)

static void
set_str (char **to, const char *value)
{
  char *copy = g_strdup (value);

  g_free (*to);
  *to = copy;
}

static void
clear_chunk (gpointer data)
{
  g_free (((SpActivityChunk *) data)->text);
}

static void
sp_activity_run_finalize (GObject *object)
{
  SpActivityRun *self = SP_ACTIVITY_RUN (object);

  g_free (self->id);
  g_free (self->tool);
  g_free (self->language);
  g_free (self->source);
  g_free (self->file);
  g_free (self->workspace);
  g_free (self->time);
  g_free (self->end);
  g_free (self->error);
  g_free (self->diff);
  g_strfreev (self->files);
  g_array_unref (self->output);
  G_OBJECT_CLASS (sp_activity_run_parent_class)->finalize (object);
}

static void
sp_activity_run_class_init (SpActivityRunClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sp_activity_run_finalize;
  signals[CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL, NULL, G_TYPE_NONE, 0);
}

static void
sp_activity_run_init (SpActivityRun *self)
{
  self->exit_code = -1;
  self->running = TRUE;
  self->output = g_array_new (FALSE, TRUE, sizeof (SpActivityChunk));
  g_array_set_clear_func (self->output, clear_chunk);
}

SpActivityRun *
_sp_activity_run_new (const char *id)
{
  SpActivityRun *self = g_object_new (SP_TYPE_ACTIVITY_RUN, NULL);

  self->id = g_strdup (id);
  return self;
}

void
_sp_activity_run_set_start (SpActivityRun *self, const char *tool, const char *language,
                            const char *source, const char *file, const char *workspace,
                            const char *time, gint pid)
{
  set_str (&self->tool, tool);
  set_str (&self->language, language);
  set_str (&self->source, source);
  set_str (&self->file, file);
  set_str (&self->workspace, workspace);
  set_str (&self->time, time);
  self->pid = pid;
  g_signal_emit (self, signals[CHANGED], 0);
}

static void
append (SpActivityRun *self, gboolean is_stderr, const char *text)
{
  SpActivityChunk chunk = { is_stderr, NULL };
  gsize len = strlen (text);

  if (len == 0 || self->output_bytes >= OUTPUT_KEEP)
    return;
  /* Next to the last chunk of the same stream: one piece, not thousands. */
  if (self->output->len > 0)
    {
      SpActivityChunk *last = &g_array_index (self->output, SpActivityChunk, self->output->len - 1);
      if (last->is_stderr == is_stderr)
        {
          char *joined = g_strconcat (last->text, text, NULL);
          g_free (last->text);
          last->text = joined;
          self->output_bytes += len;
          return;
        }
    }
  chunk.text = g_strdup (text);
  g_array_append_val (self->output, chunk);
  self->output_bytes += len;
}

void
_sp_activity_run_add_output (SpActivityRun *self, gboolean is_stderr, const char *text)
{
  self->saw_output = TRUE;
  append (self, is_stderr, text);
  g_signal_emit (self, signals[CHANGED], 0);
}

void
_sp_activity_run_set_end (SpActivityRun *self, const char *end, int exit_code, gint64 duration_ms,
                          const char *error, const char *diff, const char *const *files,
                          const char *stdout_text, const char *stderr_text)
{
  self->running = FALSE;
  set_str (&self->end, end);
  self->exit_code = exit_code;
  self->duration_ms = duration_ms;
  set_str (&self->error, error);
  set_str (&self->diff, diff);
  g_strfreev (self->files);
  self->files = g_strdupv ((char **) files);
  if (!self->saw_output)
    {
      if (stdout_text != NULL)
        append (self, FALSE, stdout_text);
      if (stderr_text != NULL)
        append (self, TRUE, stderr_text);
    }
  g_signal_emit (self, signals[CHANGED], 0);
}

gint
_sp_activity_run_get_pid (SpActivityRun *self)
{
  return self->pid;
}

const char *
sp_activity_run_get_id (SpActivityRun *self)
{
  return self->id;
}

const char *
sp_activity_run_get_tool (SpActivityRun *self)
{
  return self->tool;
}

const char *
sp_activity_run_get_language (SpActivityRun *self)
{
  return self->language;
}

const char *
sp_activity_run_get_source (SpActivityRun *self)
{
  return self->source;
}

const char *
sp_activity_run_get_file (SpActivityRun *self)
{
  return self->file;
}

const char *
sp_activity_run_get_workspace (SpActivityRun *self)
{
  return self->workspace;
}

const char *
sp_activity_run_get_time (SpActivityRun *self)
{
  return self->time;
}

char *
sp_activity_run_format_time (SpActivityRun *self, GDateTime *now)
{
  g_autoptr (GDateTime) utc = NULL;
  g_autoptr (GDateTime) local = NULL;
  g_autoptr (GDateTime) local_now = NULL;
  g_autofree char *clock = NULL;
  GTimeSpan ago;

  g_return_val_if_fail (SP_IS_ACTIVITY_RUN (self), NULL);
  g_return_val_if_fail (now != NULL, NULL);

  if (self->time == NULL || (utc = g_date_time_new_from_iso8601 (self->time, NULL)) == NULL)
    return NULL;
  local = g_date_time_to_local (utc);
  local_now = g_date_time_to_local (now);
  /* The date only when it is not today's. */
  if (g_date_time_get_year (local) == g_date_time_get_year (local_now)
      && g_date_time_get_day_of_year (local) == g_date_time_get_day_of_year (local_now))
    clock = g_date_time_format (local, "%X");
  else
    clock = g_date_time_format (local, "%x %X");
  ago = g_date_time_difference (now, utc);
  if (ago < 0)
    return g_steal_pointer (&clock);
  if (ago < G_TIME_SPAN_MINUTE)
    /* TRANSLATORS: a clock time, then that it was less than a minute ago */
    return g_strdup_printf (_ ("%s, just now"), clock);
  if (ago < G_TIME_SPAN_HOUR)
    {
      int n = (int) (ago / G_TIME_SPAN_MINUTE);
      /* TRANSLATORS: a clock time, then how long ago it was */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %d minute ago",
                                           "%s, %d minutes ago", n),
                              clock, n);
    }
  if (ago < G_TIME_SPAN_DAY)
    {
      int n = (int) (ago / G_TIME_SPAN_HOUR);
      /* TRANSLATORS: a clock time, then how long ago it was */
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %d hour ago", "%s, %d hours ago",
                                           n),
                              clock, n);
    }
  {
    int n = (int) (ago / G_TIME_SPAN_DAY);
    /* TRANSLATORS: a date and time, then how long ago it was */
    return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s, %d day ago", "%s, %d days ago", n),
                            clock, n);
  }
}

gboolean
sp_activity_run_is_running (SpActivityRun *self)
{
  return self->running;
}

const char *
sp_activity_run_get_end (SpActivityRun *self)
{
  return self->end;
}

int
sp_activity_run_get_exit_code (SpActivityRun *self)
{
  return self->exit_code;
}

gint64
sp_activity_run_get_duration_ms (SpActivityRun *self)
{
  return self->duration_ms;
}

const char *
sp_activity_run_get_error (SpActivityRun *self)
{
  return self->error;
}

const char *
sp_activity_run_get_diff (SpActivityRun *self)
{
  return self->diff;
}

const char *const *
sp_activity_run_get_files (SpActivityRun *self)
{
  return (const char *const *) self->files;
}

GArray *
sp_activity_run_get_output (SpActivityRun *self)
{
  return self->output;
}

char *
sp_activity_run_describe (SpActivityRun *self)
{
  double seconds = self->duration_ms / 1000.0;

  if (self->running)
    return g_strdup (_ ("Running…"));
  if (g_strcmp0 (self->end, "exited") == 0)
    return g_strdup_printf (_ ("Exited with code %d · %.2f s"), self->exit_code, seconds);
  if (g_strcmp0 (self->end, "cancelled") == 0)
    return g_strdup_printf (_ ("Stopped · %.2f s"), seconds);
  if (g_strcmp0 (self->end, "lost") == 0)
    return g_strdup (_ ("Its server is gone; how it ended is not known"));
  if (g_strcmp0 (self->end, "failed") == 0)
    return g_strdup (_ ("Could not run"));
  /* TRANSLATORS: %s is the limit that stopped the run: timeout, memory, disk... */
  return g_strdup_printf (_ ("Stopped by a limit (%s) · %.2f s"), self->end, seconds);
}
