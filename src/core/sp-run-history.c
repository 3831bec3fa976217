/* sp-run-history.c: every run of a window, kept on disk.
 *
 * A run is a key file (readable with any text editor, and GLib parses it
 * strictly): a [run] group, then an [end] group written last, so a file
 * cut short is told from a whole one. File names start with the start time
 * in microseconds, zero-padded, so sorting names sorts runs by age. */
#define G_LOG_DOMAIN "sp-run-history"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sp-run-history.h"

#define FORMAT_VERSION 1
#define SUFFIX ".run"
/* A record can hold two streams of TEXT_MAX and the code; anything much
 * bigger was not written by us. */
#define FILE_MAX (4 * SP_RUN_HISTORY_TEXT_MAX + 8 * 1024 * 1024)

struct _SpRunHistory
{
  GObject parent_instance;
  char *dir;
  gint64 max_bytes;
};

G_DEFINE_FINAL_TYPE (SpRunHistory, sp_run_history, G_TYPE_OBJECT)

static void
sp_run_history_finalize (GObject *object)
{
  SpRunHistory *self = SP_RUN_HISTORY (object);

  g_free (self->dir);
  G_OBJECT_CLASS (sp_run_history_parent_class)->finalize (object);
}

static void
sp_run_history_class_init (SpRunHistoryClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sp_run_history_finalize;
}

static void
sp_run_history_init (SpRunHistory *self)
{
}

SpRunHistory *
sp_run_history_new (const char *dir, gint64 max_bytes)
{
  SpRunHistory *self = g_object_new (SP_TYPE_RUN_HISTORY, NULL);

  self->dir = dir != NULL ? g_strdup (dir)
                          : g_build_filename (g_get_user_state_dir (), "sandpad", "history", NULL);
  self->max_bytes = max_bytes > 0 ? max_bytes : SP_RUN_HISTORY_DEFAULT_MAX_BYTES;
  return self;
}

const char *
sp_run_history_get_dir (SpRunHistory *self)
{
  g_return_val_if_fail (SP_IS_RUN_HISTORY (self), NULL);
  return self->dir;
}

char *
sp_run_history_key_for_path (const char *path)
{
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, path, -1);

  return g_strdup_printf ("file-%.24s", sum);
}

char *
sp_run_history_key_for_scratch (const char *name)
{
  g_autofree char *sum = g_compute_checksum_for_string (G_CHECKSUM_SHA256, name, -1);

  return g_strdup_printf ("scratch-%.24s", sum);
}

/* At most SP_RUN_HISTORY_TEXT_MAX bytes, cut at a character boundary. */
static char *
cut_text (const char *text, gboolean *cut)
{
  gsize len = text != NULL ? strlen (text) : 0;
  gsize keep = SP_RUN_HISTORY_TEXT_MAX;

  if (len <= keep)
    return g_strdup (text != NULL ? text : "");
  while (keep > 0 && ((guchar) text[keep] & 0xC0) == 0x80)
    keep--;
  *cut = TRUE;
  return g_strndup (text, keep);
}

static GKeyFile *
record_to_keyfile (const SpRunRecord *r)
{
  GKeyFile *kf = g_key_file_new ();
  gboolean cut = r->output_cut;
  g_autofree char *out = cut_text (r->stdout_text, &cut);
  g_autofree char *err = cut_text (r->stderr_text, &cut);

  g_key_file_set_integer (kf, "run", "version", FORMAT_VERSION);
  g_key_file_set_int64 (kf, "run", "time-us", r->time_us);
  g_key_file_set_int64 (kf, "run", "duration-ms", r->duration_ms);
  g_key_file_set_string (kf, "run", "language", r->language ? r->language : "");
  g_key_file_set_string (kf, "run", "end", r->end ? r->end : "");
  g_key_file_set_boolean (kf, "run", "succeeded", r->succeeded);
  g_key_file_set_integer (kf, "run", "exit-code", r->exit_code);
  if (r->error != NULL)
    g_key_file_set_string (kf, "run", "error", r->error);
  g_key_file_set_boolean (kf, "run", "output-cut", cut);
  if (r->files != NULL && r->files[0] != NULL)
    g_key_file_set_string_list (kf, "run", "files", (const char *const *) r->files,
                                g_strv_length (r->files));
  g_key_file_set_string (kf, "run", "code", r->code ? r->code : "");
  g_key_file_set_string (kf, "run", "stdout", out);
  g_key_file_set_string (kf, "run", "stderr", err);
  g_key_file_set_boolean (kf, "end", "complete", TRUE);
  return kf;
}

/* NULL with error when the file is not a whole run of this format. */
static SpRunRecord *
record_from_keyfile (GKeyFile *kf, GError **error)
{
  g_autoptr (SpRunRecord) r = sp_run_record_new ();
  g_autoptr (GError) local = NULL;
  int version;

  if (!g_key_file_get_boolean (kf, "end", "complete", NULL))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT, _("it is cut short"));
      return NULL;
    }
  version = g_key_file_get_integer (kf, "run", "version", &local);
  if (local != NULL || version != FORMAT_VERSION)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("it is not a run of this version of Sandpad"));
      return NULL;
    }
  r->time_us = g_key_file_get_int64 (kf, "run", "time-us", &local);
  if (local == NULL)
    r->duration_ms = g_key_file_get_int64 (kf, "run", "duration-ms", &local);
  if (local == NULL)
    r->language = g_key_file_get_string (kf, "run", "language", &local);
  if (local == NULL)
    r->end = g_key_file_get_string (kf, "run", "end", &local);
  if (local == NULL)
    r->succeeded = g_key_file_get_boolean (kf, "run", "succeeded", &local);
  if (local == NULL)
    r->exit_code = g_key_file_get_integer (kf, "run", "exit-code", &local);
  if (local == NULL)
    r->output_cut = g_key_file_get_boolean (kf, "run", "output-cut", &local);
  if (local == NULL)
    r->code = g_key_file_get_string (kf, "run", "code", &local);
  if (local == NULL)
    r->stdout_text = g_key_file_get_string (kf, "run", "stdout", &local);
  if (local == NULL)
    r->stderr_text = g_key_file_get_string (kf, "run", "stderr", &local);
  if (local != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  r->error = g_key_file_get_string (kf, "run", "error", NULL);
  r->files = g_key_file_get_string_list (kf, "run", "files", NULL, NULL);
  return g_steal_pointer (&r);
}

static gboolean
is_run_name (const char *name)
{
  return g_str_has_suffix (name, SUFFIX) && g_ascii_isdigit (name[0]);
}

/* Every run file under the store, as "key/name", oldest first. */
static GPtrArray *
all_runs (SpRunHistory *self)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) top = g_dir_open (self->dir, 0, NULL);
  const char *key;

  while (top != NULL && (key = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *path = g_build_filename (self->dir, key, NULL);
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        if (is_run_name (name))
          g_ptr_array_add (runs, g_build_filename (key, name, NULL));
    }
  return runs;
}

static int
by_string (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorting "key/name" by name alone: names start with the time. */
static int
by_time (gconstpointer a, gconstpointer b)
{
  return strcmp (strchr (*(const char *const *) a, '/'), strchr (*(const char *const *) b, '/'));
}

static void
evict (SpRunHistory *self, const char *keep)
{
  g_autoptr (GPtrArray) runs = all_runs (self);
  g_autofree gint64 *sizes = g_new0 (gint64, runs->len + 1);
  gint64 total = 0;

  g_ptr_array_sort (runs, by_time);
  for (guint i = 0; i < runs->len; i++)
    {
      g_autofree char *path = g_build_filename (self->dir, g_ptr_array_index (runs, i), NULL);
      GStatBuf st;

      sizes[i] = g_stat (path, &st) == 0 ? (gint64) st.st_size : 0;
      total += sizes[i];
    }
  for (guint i = 0; i < runs->len && total > self->max_bytes; i++)
    {
      g_autofree char *path = g_build_filename (self->dir, g_ptr_array_index (runs, i), NULL);

      if (g_str_equal (g_ptr_array_index (runs, i), keep))
        continue;
      if (g_unlink (path) == 0)
        total -= sizes[i];
    }
}

gboolean
sp_run_history_add (SpRunHistory *self, const char *key, SpRunRecord *record, GError **error)
{
  g_autoptr (GKeyFile) kf = NULL;
  g_autofree char *data = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autofree char *relative = NULL;
  gsize len;

  g_return_val_if_fail (SP_IS_RUN_HISTORY (self), FALSE);
  g_return_val_if_fail (key != NULL && strchr (key, '/') == NULL && key[0] != '.', FALSE);

  dir = g_build_filename (self->dir, key, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not create %s: %s"), dir, g_strerror (saved));
      return FALSE;
    }
  name = g_strdup_printf ("%020" G_GINT64_FORMAT "-%08x" SUFFIX, MAX (record->time_us, 0),
                          g_random_int ());
  path = g_build_filename (dir, name, NULL);
  kf = record_to_keyfile (record);
  data = g_key_file_to_data (kf, &len, NULL);
  /* Written beside and renamed over: whole or not at all. */
  if (!g_file_set_contents_full (path, data, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT,
                                 0600, error))
    return FALSE;
  g_free (record->id);
  record->id = g_strdup (name);
  relative = g_build_filename (key, name, NULL);
  evict (self, relative);
  return TRUE;
}

static void
warn (GPtrArray *warnings, const char *path, const char *why)
{
  /* TRANSLATORS: a file of the run history could not be read; %s: path, reason */
  char *line = g_strdup_printf (_("Skipped %s in the run history: %s"), path, why);

  g_message ("%s", line);
  if (warnings != NULL)
    g_ptr_array_add (warnings, line);
  else
    g_free (line);
}

static SpRunRecord *
load_record (const char *path, const char *name, GPtrArray *warnings)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  SpRunRecord *record;
  GStatBuf st;

  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > FILE_MAX)
    {
      warn (warnings, path, _("not a run file"));
      return NULL;
    }
  if (!g_file_get_contents (path, &data, &len, &error)
      || !g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, &error)
      || (record = record_from_keyfile (kf, &error)) == NULL)
    {
      warn (warnings, path, error->message);
      return NULL;
    }
  record->id = g_strdup (name);
  return record;
}

GPtrArray *
sp_run_history_list (SpRunHistory *self, const char *key, GPtrArray *warnings)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) sp_run_record_free);
  g_autofree char *dir = NULL;
  g_autoptr (GDir) d = NULL;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_return_val_if_fail (SP_IS_RUN_HISTORY (self), records);
  g_return_val_if_fail (key != NULL && strchr (key, '/') == NULL, records);

  dir = g_build_filename (self->dir, key, NULL);
  d = g_dir_open (dir, 0, NULL);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (is_run_name (name))
        g_ptr_array_add (names, g_strdup (name));
      /* g_file_set_contents' temporary, while another process writes */
      else if (strstr (name, SUFFIX ".") == NULL)
        warn (warnings, path, _("not a run file"));
    }
  g_ptr_array_sort (names, by_string);
  for (guint i = 0; i < names->len; i++)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
      SpRunRecord *record = load_record (path, g_ptr_array_index (names, i), warnings);

      if (record != NULL)
        g_ptr_array_add (records, record);
    }
  return records;
}

SpRunRecord *
sp_run_history_latest (SpRunHistory *self, const char *key, GPtrArray *warnings)
{
  g_autoptr (GPtrArray) records = sp_run_history_list (self, key, warnings);

  if (records->len == 0)
    return NULL;
  return g_ptr_array_steal_index (records, records->len - 1);
}
