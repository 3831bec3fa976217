/* sp-run-result.c: how a run ended, from its exited event. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "sp-run-result-private.h"

/* The core's enums copy the protocol's values so conversion is a cast;
 * these fail the build if either side changes alone. */
G_STATIC_ASSERT ((int) SP_RUN_END_FAILED == (int) SP_END_FAILED && SP_END_LAST == 3);
G_STATIC_ASSERT ((int) SP_RUN_LIMIT_DISK == (int) SP_LIMIT_DISK
                 && (int) SP_RUN_LIMIT_INPUT_IDLE == (int) SP_LIMIT_INPUT_IDLE
                 && (int) SP_RUN_LIMIT_COMPILE_TIME == (int) SP_LIMIT_COMPILE_TIME
                 && SP_LIMIT_LAST == 9);
G_STATIC_ASSERT ((int) SP_RUN_CANCEL_KILL == (int) SP_CANCEL_KILL && SP_CANCEL_LAST == 4);
G_STATIC_ASSERT ((int) SP_RUN_FILE_OTHER == (int) SP_FILE_OTHER && SP_FILE_KIND_LAST == 6);

struct _SpRunResult
{
  gatomicrefcount ref_count;
  SpRunEnd end;
  int exit_code;
  int signal;
  char *error;
  SpRunLimit limit;
  SpRunCancel cancelled;
  gint64 wall_ms, cpu_ms, peak_memory;
  gint64 timeout_ms, memory_mib;
  gint64 stdout_bytes, stderr_bytes;
  gboolean truncated;
  gboolean warm;     /* forked from the runner's warm interpreter */
  char *cold_reason; /* cold because the runner's warm runs are off: why */
  GStrv images;
  GArray *files; /* SpRunFile */
  SpErrorInfo *error_info;
  char *session_ended; /* a session run: why its interpreter ended with it */
};

static void
clear_file (gpointer data)
{
  SpRunFile *file = data;

  g_free (file->path);
  g_free (file->relative);
  g_free (file->mime);
  g_free (file->target);
  g_free (file->dir);
  g_free (file->name);
}

G_DEFINE_BOXED_TYPE (SpRunResult, sp_run_result, sp_run_result_ref, sp_run_result_unref)

SpRunResult *
_sp_run_result_new (const SpExited *exited, gint64 timeout_ms, gint64 memory_mib, const char *cwd)
{
  SpRunResult *self = g_new0 (SpRunResult, 1);
  g_autoptr (GStrvBuilder) images = g_strv_builder_new ();

  self->files = g_array_new (FALSE, TRUE, sizeof (SpRunFile));
  g_array_set_clear_func (self->files, clear_file);
  for (gsize i = 0; cwd != NULL && i < exited->n_files; i++)
    {
      const SpFileInfo *info = &exited->files[i];
      /* The name the decoder checked; the shown path only when it is one. */
      const char *name = info->name ? info->name : info->name_left_out ? NULL : info->path;
      SpRunFile file = { name ? g_build_filename (cwd, name, NULL) : NULL,
                         g_strdup (info->path),
                         info->size,
                         g_strdup (info->mime),
                         (SpRunFileKind) info->kind,
                         g_strdup (info->target),
                         info->t_ms,
                         g_strdup (cwd),
                         g_strdup (name) };

      if (file.kind == SP_RUN_FILE_REGULAR && file.path != NULL
          && g_str_has_prefix (file.mime, "image/") && !g_str_equal (file.mime, "image/svg+xml"))
        g_strv_builder_add (images, file.path);
      g_array_append_val (self->files, file);
    }
  self->images = g_strv_builder_end (images);

  g_atomic_ref_count_init (&self->ref_count);
  self->end = (SpRunEnd) exited->end;
  if (exited->session_ended != SP_SESSION_END_NONE)
    self->session_ended = g_strdup (sp_session_end_to_string (exited->session_ended));
  self->exit_code = (int) exited->exit_code;
  self->signal = (int) exited->signal;
  self->error = g_strdup (exited->error);
  self->limit = (SpRunLimit) exited->limit;
  self->cancelled = (SpRunCancel) exited->cancelled;
  self->wall_ms = exited->wall_ms;
  self->cpu_ms = exited->cpu_ms;
  self->peak_memory = exited->peak_memory_bytes;
  self->warm = exited->warm;
  self->cold_reason = g_strdup (exited->cold_reason);
  self->stdout_bytes = exited->stdout_bytes;
  self->stderr_bytes = exited->stderr_bytes;
  self->truncated = exited->stdout_truncated || exited->stderr_truncated;
  self->timeout_ms = timeout_ms;
  self->memory_mib = memory_mib;
  return self;
}

SpRunResult *
sp_run_result_ref (SpRunResult *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sp_run_result_unref (SpRunResult *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->error);
  g_free (self->session_ended);
  g_free (self->cold_reason);
  g_strfreev (self->images);
  g_clear_pointer (&self->error_info, sp_error_info_unref);
  g_array_unref (self->files);
  g_free (self);
}

const char *
sp_run_result_get_session_ended (SpRunResult *self)
{
  return self->session_ended;
}

gboolean
sp_run_result_succeeded (SpRunResult *self)
{
  return self->end == SP_RUN_END_EXITED && self->exit_code == 0 && self->limit == SP_RUN_LIMIT_NONE
         && self->cancelled == SP_RUN_CANCEL_NONE;
}

SpRunEnd
sp_run_result_get_end (SpRunResult *self)
{
  return self->end;
}

int
sp_run_result_get_exit_code (SpRunResult *self)
{
  return self->exit_code;
}

int
sp_run_result_get_signal (SpRunResult *self)
{
  return self->signal;
}

SpRunLimit
sp_run_result_get_limit (SpRunResult *self)
{
  return self->limit;
}

SpRunCancel
sp_run_result_get_cancelled (SpRunResult *self)
{
  return self->cancelled;
}

SpErrorInfo *
sp_run_result_get_error_info (SpRunResult *self)
{
  return self->error_info;
}

void
_sp_run_result_set_error_info (SpRunResult *self, SpErrorInfo *info)
{
  g_clear_pointer (&self->error_info, sp_error_info_unref);
  self->error_info = info ? sp_error_info_ref (info) : NULL;
}

gint64
sp_run_result_get_wall_ms (SpRunResult *self)
{
  return self->wall_ms;
}

gint64
sp_run_result_get_cpu_ms (SpRunResult *self)
{
  return self->cpu_ms;
}

gint64
sp_run_result_get_peak_memory (SpRunResult *self)
{
  return self->peak_memory;
}

gboolean
sp_run_result_get_warm (SpRunResult *self)
{
  return self->warm;
}

const char *
sp_run_result_get_cold_reason (SpRunResult *self)
{
  return self->cold_reason;
}

gint64
sp_run_result_get_stdout_bytes (SpRunResult *self)
{
  return self->stdout_bytes;
}

gint64
sp_run_result_get_stderr_bytes (SpRunResult *self)
{
  return self->stderr_bytes;
}

gboolean
sp_run_result_get_truncated (SpRunResult *self)
{
  return self->truncated;
}

const char *
sp_run_result_get_error (SpRunResult *self)
{
  return self->error;
}

const char *const *
sp_run_result_get_images (SpRunResult *self)
{
  return (const char *const *) self->images;
}

guint
sp_run_result_get_n_files (SpRunResult *self)
{
  return self->files->len;
}

const SpRunFile *
sp_run_result_get_file (SpRunResult *self, guint index)
{
  g_return_val_if_fail (index < self->files->len, NULL);
  return &g_array_index (self->files, SpRunFile, index);
}

static char *
describe_end (SpRunResult *self)
{
  switch (self->limit)
    {
    case SP_RUN_LIMIT_TIME:
      return g_strdup_printf (_ ("Stopped: time limit of %g s reached"), self->timeout_ms / 1000.0);
    case SP_RUN_LIMIT_CPU:
      return g_strdup (_ ("Stopped: CPU time limit reached"));
    case SP_RUN_LIMIT_MEMORY:
      return g_strdup_printf (_ ("Stopped: memory limit of %d MiB reached"),
                              (int) self->memory_mib);
    case SP_RUN_LIMIT_OUTPUT:
      return g_strdup (_ ("Stopped: output limit reached"));
    case SP_RUN_LIMIT_DISK:
      return g_strdup (_ ("Stopped: disk limit reached"));
    case SP_RUN_LIMIT_PROCESSES:
      return g_strdup (_ ("Stopped: process limit reached"));
    case SP_RUN_LIMIT_INPUT_IDLE:
      return g_strdup (_ ("Stopped: waited too long for input"));
    case SP_RUN_LIMIT_COMPILE_TIME:
      return g_strdup (_ ("Stopped: the compile took longer than its time limit"));
    case SP_RUN_LIMIT_NONE:
    default:
      break;
    }
  if (self->cancelled != SP_RUN_CANCEL_NONE)
    return g_strdup (_ ("Stopped"));
  if (self->end == SP_RUN_END_FAILED)
    return g_strdup_printf (_ ("Could not run: %s"), self->error ? self->error : "");
  if (self->end == SP_RUN_END_SIGNALED)
    return g_strdup_printf (_ ("Killed by signal %d"), self->signal);
  return g_strdup_printf (_ ("Exited with code %d"), self->exit_code);
}

char *
_sp_output_omitted_describe (const SpOutputOmitted *omitted)
{
  /* "%'" groups the digits as the locale does: 1,234,567. */
  g_autofree char *bytes = g_strdup_printf ("%'" G_GINT64_FORMAT, omitted->bytes);
  g_autofree char *lines = g_strdup_printf ("%'" G_GINT64_FORMAT, omitted->lines);
  g_autofree char *what = NULL;

  if (omitted->stream == SP_STREAM_STDERR)
    /* TRANSLATORS: bytes, lines (numbers); the middle of the program's error output */
    what = g_strdup_printf (_ ("%s bytes (%s lines) of error output left out here, past the "
                               "output limit"),
                            bytes, lines);
  else
    /* TRANSLATORS: bytes, lines (numbers); the middle of the program's output */
    what = g_strdup_printf (_ ("%s bytes (%s lines) of output left out here, past the output "
                               "limit"),
                            bytes, lines);
  if (omitted->file == NULL)
    return g_strdup_printf (_ ("%s. The whole output was not kept: the run already had a file "
                               "of that name."),
                            what);
  if (omitted->file_cut)
    return g_strdup_printf (_ ("%s. The start of the whole output is in the run's file %s (it "
                               "stopped at half the disk limit)."),
                            what, omitted->file);
  return g_strdup_printf (_ ("%s. The whole output is in the run's file %s."), what, omitted->file);
}

char *
sp_run_result_describe (SpRunResult *self)
{
  g_autofree char *end = describe_end (self);
  g_autofree char *memory = g_format_size ((guint64) self->peak_memory);

  if (self->end == SP_RUN_END_FAILED)
    return g_steal_pointer (&end);
  /* TRANSLATORS: how a run ended · wall time · peak memory · CPU time */
  return g_strdup_printf (_ ("%s · %.2f s · %s · CPU %.2f s"), end, self->wall_ms / 1000.0, memory,
                          self->cpu_ms / 1000.0);
}
