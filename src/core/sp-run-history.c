/* sp-run-history.c: every run of a window, kept on disk.
 *
 * A run is a key file (readable with any text editor, and GLib parses it
 * strictly): a [run] group, then an [end] group written last, so a file
 * cut short is told from a whole one. File names start with the start time
 * in microseconds, zero-padded, so sorting names sorts runs by age.
 *
 * A run's images lie beside it as "<run's name without .run>.image-<n>",
 * each written whole before the run's file (so a run never names an image
 * that was not written); the run names each one with its size and SHA-256,
 * so a truncated or swapped image is told from the one the run made. */
#define G_LOG_DOMAIN "sp-run-history"

#include "config.h"

#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sp-run-history.h"

#define FORMAT_VERSION 1
#define SUFFIX ".run"
#define IMAGE_INFIX ".image-"
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
record_to_keyfile (const SpRunRecord *r, char **image_files)
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
  /* An assistant's run: optional keys, so a run of an older Sandpad
   * (the window's own, none of them) reads as before. */
  if (r->tool != NULL)
    g_key_file_set_string (kf, "run", "tool", r->tool);
  if (r->assistant_run != NULL)
    g_key_file_set_string (kf, "run", "assistant-run", r->assistant_run);
  if (r->diff != NULL)
    {
      gboolean diff_cut = FALSE;
      g_autofree char *diff = cut_text (r->diff, &diff_cut);

      g_key_file_set_string (kf, "run", "diff", diff);
    }
  g_key_file_set_string (kf, "run", "code", r->code ? r->code : "");
  g_key_file_set_string (kf, "run", "stdout", out);
  g_key_file_set_string (kf, "run", "stderr", err);
  for (guint i = 0; i < r->images->len; i++)
    {
      SpRunImage *image = g_ptr_array_index (r->images, i);
      g_autofree char *group = g_strdup_printf ("image %u", i);
      g_autofree char *sum = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, image->bytes);

      g_key_file_set_string (kf, group, "name", image->name);
      g_key_file_set_string (kf, group, "type", image->mime);
      g_key_file_set_string (kf, group, "file", image_files[i]);
      g_key_file_set_int64 (kf, group, "size", (gint64) g_bytes_get_size (image->bytes));
      g_key_file_set_string (kf, group, "sha256", sum);
    }
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
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_PARTIAL_INPUT, _ ("it is cut short"));
      return NULL;
    }
  version = g_key_file_get_integer (kf, "run", "version", &local);
  if (local != NULL || version != FORMAT_VERSION)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _ ("it is not a run of this version of Sandpad"));
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
  r->tool = g_key_file_get_string (kf, "run", "tool", NULL);
  r->assistant_run = g_key_file_get_string (kf, "run", "assistant-run", NULL);
  r->diff = g_key_file_get_string (kf, "run", "diff", NULL);
  return g_steal_pointer (&r);
}

static gboolean
is_run_name (const char *name)
{
  return g_str_has_suffix (name, SUFFIX) && g_ascii_isdigit (name[0]);
}

/* An image of a run, or g_file_set_contents' temporary of one. */
static gboolean
is_image_name (const char *name)
{
  return g_ascii_isdigit (name[0]) && strstr (name, IMAGE_INFIX) != NULL;
}

/* What a run's file and its images' names start with: "<time>-<random>". */
static char *
run_stem (const char *name)
{
  const char *dot = strchr (name, '.');

  return dot != NULL ? g_strndup (name, (gsize) (dot - name)) : g_strdup (name);
}

typedef struct
{
  char *relative;    /* "key/name" of the run's file */
  gint64 size;       /* its file's and its images' */
  GPtrArray *images; /* "key/name" of each */
} Entry;

static void
entry_free (Entry *entry)
{
  g_free (entry->relative);
  g_ptr_array_unref (entry->images);
  g_free (entry);
}

static gint64
file_size (SpRunHistory *self, const char *relative)
{
  g_autofree char *path = g_build_filename (self->dir, relative, NULL);
  GStatBuf st;

  return g_lstat (path, &st) == 0 ? (gint64) st.st_size : 0;
}

/* Every run under the store with its images, oldest first. An image whose
 * run is gone counts for nothing: it may be a run being written now. */
static GPtrArray *
all_runs (SpRunHistory *self)
{
  GPtrArray *runs = g_ptr_array_new_with_free_func ((GDestroyNotify) entry_free);
  g_autoptr (GHashTable) by_stem = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) images = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) top = g_dir_open (self->dir, 0, NULL);
  const char *key;

  while (top != NULL && (key = g_dir_read_name (top)) != NULL)
    {
      g_autofree char *path = g_build_filename (self->dir, key, NULL);
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        if (is_run_name (name))
          {
            Entry *entry = g_new0 (Entry, 1);
            g_autofree char *stem = run_stem (name);

            entry->relative = g_build_filename (key, name, NULL);
            entry->size = file_size (self, entry->relative);
            entry->images = g_ptr_array_new_with_free_func (g_free);
            g_ptr_array_add (runs, entry);
            g_hash_table_insert (by_stem, g_build_filename (key, stem, NULL), entry);
          }
        else if (is_image_name (name))
          g_ptr_array_add (images, g_build_filename (key, name, NULL));
    }
  for (guint i = 0; i < images->len; i++)
    {
      const char *image = g_ptr_array_index (images, i);
      const char *base = strrchr (image, '/') + 1;
      g_autofree char *dir = g_strndup (image, (gsize) (base - image - 1));
      g_autofree char *stem = run_stem (base);
      g_autofree char *owner = g_build_filename (dir, stem, NULL);
      Entry *entry = g_hash_table_lookup (by_stem, owner);

      if (entry == NULL)
        continue;
      entry->size += file_size (self, image);
      g_ptr_array_add (entry->images, g_strdup (image));
    }
  return runs;
}

static int
by_string (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Sorting runs by name alone: names start with the time. */
static int
by_time (gconstpointer a, gconstpointer b)
{
  const Entry *x = *(const Entry *const *) a;
  const Entry *y = *(const Entry *const *) b;

  return strcmp (strchr (x->relative, '/'), strchr (y->relative, '/'));
}

static void
remove_relative (SpRunHistory *self, const char *relative)
{
  g_autofree char *path = g_build_filename (self->dir, relative, NULL);

  g_unlink (path);
}

static void
evict (SpRunHistory *self, const char *keep)
{
  g_autoptr (GPtrArray) runs = all_runs (self);
  gint64 total = 0;

  g_ptr_array_sort (runs, by_time);
  for (guint i = 0; i < runs->len; i++)
    total += ((Entry *) g_ptr_array_index (runs, i))->size;
  for (guint i = 0; i < runs->len && total > self->max_bytes; i++)
    {
      Entry *entry = g_ptr_array_index (runs, i);
      g_autofree char *path = g_build_filename (self->dir, entry->relative, NULL);

      if (g_str_equal (entry->relative, keep))
        continue;
      /* The run first: a run never names an image that is gone. */
      if (g_unlink (path) != 0)
        continue;
      for (guint j = 0; j < entry->images->len; j++)
        remove_relative (self, g_ptr_array_index (entry->images, j));
      total -= entry->size;
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
  g_autofree char *stem = NULL;
  g_auto (GStrv) image_files = NULL;
  g_auto (GStrv) image_paths = NULL;
  gsize len;

  g_return_val_if_fail (SP_IS_RUN_HISTORY (self), FALSE);
  g_return_val_if_fail (key != NULL && strchr (key, '/') == NULL && key[0] != '.', FALSE);

  dir = g_build_filename (self->dir, key, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _ ("Could not create %s: %s"),
                   dir, g_strerror (saved));
      return FALSE;
    }
  stem = g_strdup_printf ("%020" G_GINT64_FORMAT "-%08x", MAX (record->time_us, 0),
                          g_random_int ());
  name = g_strconcat (stem, SUFFIX, NULL);
  path = g_build_filename (dir, name, NULL);
  image_files = g_new0 (char *, record->images->len + 1);
  image_paths = g_new0 (char *, record->images->len + 1);
  /* The images first, each whole or not at all, so that the run's file,
   * once there, names only images that are. */
  for (guint i = 0; i < record->images->len; i++)
    {
      SpRunImage *image = g_ptr_array_index (record->images, i);
      gsize size;
      const char *bytes = g_bytes_get_data (image->bytes, &size);

      image_files[i] = g_strdup_printf ("%s" IMAGE_INFIX "%u", stem, i);
      image_paths[i] = g_build_filename (dir, image_files[i], NULL);
      if (!g_file_set_contents_full (image_paths[i], bytes != NULL ? bytes : "", (gssize) size,
                                     G_FILE_SET_CONTENTS_CONSISTENT, 0600, error))
        {
          for (guint j = 0; j < i; j++)
            g_unlink (image_paths[j]);
          return FALSE;
        }
    }
  kf = record_to_keyfile (record, image_files);
  data = g_key_file_to_data (kf, &len, NULL);
  /* Written beside and renamed over: whole or not at all. */
  if (!g_file_set_contents_full (path, data, (gssize) len, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                 error))
    {
      for (guint i = 0; i < record->images->len; i++)
        g_unlink (image_paths[i]);
      return FALSE;
    }
  for (guint i = 0; i < record->images->len; i++)
    {
      SpRunImage *image = g_ptr_array_index (record->images, i);

      g_free (image->path);
      image->path = g_strdup (image_paths[i]);
    }
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
  char *line = g_strdup_printf (_ ("Skipped %s in the run history: %s"), path, why);

  g_message ("%s", line);
  if (warnings != NULL)
    g_ptr_array_add (warnings, line);
  else
    g_free (line);
}

/* One image the run's file names, or NULL (and a warning) when the file
 * beside it is not that image any more. */
static SpRunImage *
load_image (GKeyFile *kf, const char *group, const char *dir, const char *stem, guint index,
            GPtrArray *warnings)
{
  g_autoptr (SpRunImage) image = g_new0 (SpRunImage, 1);
  g_autofree char *file = g_key_file_get_string (kf, group, "file", NULL);
  g_autofree char *sum = g_key_file_get_string (kf, group, "sha256", NULL);
  g_autofree char *expected = g_strdup_printf ("%s" IMAGE_INFIX "%u", stem, index);
  g_autofree char *actual = NULL;
  g_autofree char *data = NULL;
  g_autoptr (GError) error = NULL;
  gint64 size = g_key_file_get_int64 (kf, group, "size", NULL);
  gsize len = 0;
  GStatBuf st;

  image->name = g_key_file_get_string (kf, group, "name", NULL);
  image->mime = g_key_file_get_string (kf, group, "type", NULL);
  image->path = g_build_filename (dir, expected, NULL);
  /* Only the name this run would have written: the key file is data too. */
  if (image->name == NULL || file == NULL || sum == NULL || !g_str_equal (file, expected)
      || !sp_run_record_is_image_type (image->mime))
    {
      warn (warnings, image->path, _ ("the run does not name it as an image it kept"));
      return NULL;
    }
  if (g_lstat (image->path, &st) != 0 || !S_ISREG (st.st_mode))
    {
      warn (warnings, image->path, _ ("the run's image is missing"));
      return NULL;
    }
  if ((gint64) st.st_size != size || size > SP_RUN_RECORD_IMAGE_BYTES_MAX)
    {
      warn (warnings, image->path, _ ("the run's image is not the size it was"));
      return NULL;
    }
  if (!g_file_get_contents (image->path, &data, &len, &error))
    {
      warn (warnings, image->path, error->message);
      return NULL;
    }
  image->bytes = g_bytes_new_take (g_steal_pointer (&data), len);
  actual = g_compute_checksum_for_bytes (G_CHECKSUM_SHA256, image->bytes);
  if ((gint64) len != size || g_ascii_strcasecmp (actual, sum) != 0)
    {
      warn (warnings, image->path, _ ("the run's image is not the one it made"));
      return NULL;
    }
  return g_steal_pointer (&image);
}

static void
load_images (SpRunRecord *record, GKeyFile *kf, const char *dir, const char *name,
             GPtrArray *warnings)
{
  g_autofree char *stem = run_stem (name);

  for (guint i = 0;; i++)
    {
      g_autofree char *group = g_strdup_printf ("image %u", i);
      SpRunImage *image;

      if (!g_key_file_has_group (kf, group))
        break;
      image = load_image (kf, group, dir, stem, i, warnings);
      if (image != NULL)
        g_ptr_array_add (record->images, image);
    }
}

static SpRunRecord *
load_record (const char *path, const char *name, GPtrArray *warnings)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  g_autofree char *dir = g_path_get_dirname (path);
  gsize len = 0;
  SpRunRecord *record;
  GStatBuf st;

  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > FILE_MAX)
    {
      warn (warnings, path, _ ("not a run file"));
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
  load_images (record, kf, dir, name, warnings);
  return record;
}

/* The names of key's run files, oldest first; other files are named in
 * warnings. */
static GPtrArray *
run_names (SpRunHistory *self, const char *dir, GPtrArray *warnings)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (is_run_name (name))
        g_ptr_array_add (names, g_strdup (name));
      /* a run's images are read with it */
      else if (is_image_name (name))
        continue;
      /* g_file_set_contents' temporary, while another process writes */
      else if (strstr (name, SUFFIX ".") == NULL)
        warn (warnings, path, _ ("not a run file"));
    }
  g_ptr_array_sort (names, by_string);
  return names;
}

GPtrArray *
sp_run_history_list (SpRunHistory *self, const char *key, GPtrArray *warnings)
{
  GPtrArray *records = g_ptr_array_new_with_free_func ((GDestroyNotify) sp_run_record_free);
  g_autofree char *dir = NULL;
  g_autoptr (GPtrArray) names = NULL;

  g_return_val_if_fail (SP_IS_RUN_HISTORY (self), records);
  g_return_val_if_fail (key != NULL && strchr (key, '/') == NULL, records);

  dir = g_build_filename (self->dir, key, NULL);
  names = run_names (self, dir, warnings);
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
  g_autofree char *dir = NULL;
  g_autoptr (GPtrArray) names = NULL;

  g_return_val_if_fail (SP_IS_RUN_HISTORY (self), NULL);
  g_return_val_if_fail (key != NULL && strchr (key, '/') == NULL, NULL);

  /* Only the newest file that reads as a run: a run's end must not cost
   * reading the whole history. */
  dir = g_build_filename (self->dir, key, NULL);
  names = run_names (self, dir, warnings);
  for (guint i = names->len; i-- > 0;)
    {
      g_autofree char *path = g_build_filename (dir, g_ptr_array_index (names, i), NULL);
      SpRunRecord *record = load_record (path, g_ptr_array_index (names, i), warnings);

      if (record != NULL)
        return record;
    }
  return NULL;
}
