/* sp-autosave.c: copies of unsaved text in the state directory.
 *
 * A copy is "# Sandpad autosave 1", a GKeyFile group (values escaped, so
 * no header line can look like the separator), a line "%%", then the text.
 * The header's length and SHA-256 of the text let a reader tell a whole
 * copy from a truncated or damaged one: a crash while writing leaves at
 * worst a temporary file, never half a copy, but disks and people do
 * other things to files. */
#define G_LOG_DOMAIN "sp-autosave"

#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sp-autosave.h"

#define MAGIC "# Sandpad autosave 1\n"
#define SEPARATOR "\n%%\n"
#define SUFFIX ".autosave"
#define GROUP "Autosave"
/* Larger than any text the editor would hold; a reader never slurps a
 * huge foreign file. */
#define MAX_COPY_SIZE (256 * 1024 * 1024)

void
sp_autosave_entry_free (SpAutosaveEntry *entry)
{
  if (entry == NULL)
    return;
  g_free (entry->id);
  g_free (entry->path);
  g_free (entry->title);
  g_free (entry->language);
  g_free (entry->text);
  g_free (entry);
}

char *
sp_autosave_default_dir (void)
{
  return g_build_filename (g_get_user_state_dir (), "sandpad", "autosave", NULL);
}

char *
sp_autosave_new_id (void)
{
  return g_uuid_string_random ();
}

/* Ids become file names: nothing that could climb out of the folder. */
static gboolean
id_is_valid (const char *id)
{
  gsize len = id != NULL ? strlen (id) : 0;

  if (len == 0 || len > 64)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isalnum (id[i]) && id[i] != '-')
      return FALSE;
  return TRUE;
}

static char *
copy_path (const char *dir, const char *id)
{
  g_autofree char *name = g_strconcat (id, SUFFIX, NULL);
  return g_build_filename (dir, name, NULL);
}

gboolean
sp_autosave_write (const char *dir, const SpAutosaveEntry *entry, GError **error)
{
  g_autoptr (GKeyFile) header = g_key_file_new ();
  g_autoptr (GString) data = g_string_new (MAGIC);
  g_autofree char *header_text = NULL;
  g_autofree char *checksum = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (dir != NULL && entry != NULL, FALSE);
  if (!id_is_valid (entry->id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _ ("Invalid autosave id"));
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", dir,
                   g_strerror (saved));
      return FALSE;
    }
  if (entry->path != NULL)
    {
      /* A URI is ASCII: any file name survives the key file. */
      g_autofree char *uri = g_filename_to_uri (entry->path, NULL, error);
      if (uri == NULL)
        return FALSE;
      g_key_file_set_string (header, GROUP, "Uri", uri);
    }
  if (entry->title != NULL)
    g_key_file_set_string (header, GROUP, "Title", entry->title);
  if (entry->language != NULL)
    g_key_file_set_string (header, GROUP, "Language", entry->language);
  g_key_file_set_int64 (header, GROUP, "Time", entry->time);
  g_key_file_set_uint64 (header, GROUP, "Length", entry->length);
  checksum = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) entry->text,
                                          entry->length);
  g_key_file_set_string (header, GROUP, "Sha256", checksum);
  header_text = g_key_file_to_data (header, NULL, NULL);
  g_string_append (data, header_text);
  while (data->len > 0 && data->str[data->len - 1] == '\n')
    g_string_truncate (data, data->len - 1);
  g_string_append (data, SEPARATOR);
  g_string_append_len (data, entry->text, (gssize) entry->length);

  path = copy_path (dir, entry->id);
  /* A temporary file, synced, then renamed: the old copy stays whole
   * until the new one is complete (and a full disk fails here, before). */
  return g_file_set_contents_full (path, data->str, (gssize) data->len,
                                   G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE,
                                   0600, error);
}

gboolean
sp_autosave_remove (const char *dir, const char *id, GError **error)
{
  g_autofree char *path = NULL;

  if (!id_is_valid (id))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _ ("Invalid autosave id"));
      return FALSE;
    }
  path = copy_path (dir, id);
  if (g_unlink (path) != 0 && errno != ENOENT)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), "%s: %s", path,
                   g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gboolean
invalid (GError **error, const char *file, const char *why)
{
  g_autofree char *name = g_path_get_basename (file);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", name, why);
  return FALSE;
}

/* The header's fields into entry; FALSE with error when one is wrong. */
static gboolean
parse_header (const char *file, const char *text, SpAutosaveEntry *entry, guint64 *length,
              char **checksum, GError **error)
{
  g_autoptr (GKeyFile) header = g_key_file_new ();
  g_autoptr (GError) local = NULL;
  g_autofree char *uri = NULL;

  if (!g_key_file_load_from_data (header, text, (gsize) -1, G_KEY_FILE_NONE, &local)
      || !g_key_file_has_group (header, GROUP))
    return invalid (error, file, _ ("damaged header"));
  *length = g_key_file_get_uint64 (header, GROUP, "Length", &local);
  if (local != NULL)
    return invalid (error, file, _ ("no length"));
  *checksum = g_key_file_get_string (header, GROUP, "Sha256", NULL);
  if (*checksum == NULL)
    return invalid (error, file, _ ("no checksum"));
  uri = g_key_file_get_string (header, GROUP, "Uri", NULL);
  if (uri != NULL && (entry->path = g_filename_from_uri (uri, NULL, NULL)) == NULL)
    return invalid (error, file, _ ("damaged file name"));
  entry->title = g_key_file_get_string (header, GROUP, "Title", NULL);
  entry->language = g_key_file_get_string (header, GROUP, "Language", NULL);
  entry->time = g_key_file_get_int64 (header, GROUP, "Time", NULL);
  return TRUE;
}

SpAutosaveEntry *
sp_autosave_read (const char *file, GError **error)
{
  g_autoptr (SpAutosaveEntry) entry = g_new0 (SpAutosaveEntry, 1);
  g_autofree char *contents = NULL;
  g_autofree char *header = NULL;
  g_autofree char *checksum = NULL;
  g_autofree char *actual = NULL;
  g_autofree char *base = g_path_get_basename (file);
  GStatBuf st;
  const char *sep;
  gsize len = 0;
  guint64 length = 0;

  if (g_lstat (file, &st) != 0 || !S_ISREG (st.st_mode))
    return invalid (error, file, _ ("not a regular file")), NULL;
  if (st.st_size > MAX_COPY_SIZE)
    return invalid (error, file, _ ("too large to be a copy")), NULL;
  if (!g_file_get_contents (file, &contents, &len, error))
    return NULL;
  if (len < strlen (MAGIC) || memcmp (contents, MAGIC, strlen (MAGIC)) != 0)
    return invalid (error, file, _ ("not a Sandpad autosave file")), NULL;
  sep = g_strstr_len (contents, (gssize) len, SEPARATOR);
  if (sep == NULL)
    return invalid (error, file, _ ("truncated (no text)")), NULL;
  header = g_strndup (contents + strlen (MAGIC), (gsize) (sep - contents) - strlen (MAGIC));
  if (!parse_header (file, header, entry, &length, &checksum, error))
    return NULL;
  entry->length = len - (gsize) (sep + strlen (SEPARATOR) - contents);
  if (entry->length != length)
    return invalid (error, file, _ ("truncated")), NULL;
  actual = g_compute_checksum_for_data (G_CHECKSUM_SHA256,
                                        (const guchar *) sep + strlen (SEPARATOR), entry->length);
  if (g_ascii_strcasecmp (actual, checksum) != 0)
    return invalid (error, file, _ ("damaged (checksum)")), NULL;
  entry->text = g_strndup (sep + strlen (SEPARATOR), entry->length);
  if (strlen (entry->text) != entry->length || !g_utf8_validate (entry->text, -1, NULL))
    return invalid (error, file, _ ("not UTF-8 text")), NULL;
  entry->id = g_strndup (base, strlen (base) - strlen (SUFFIX));
  return g_steal_pointer (&entry);
}

static int
by_time (gconstpointer a, gconstpointer b)
{
  const SpAutosaveEntry *ea = *(SpAutosaveEntry *const *) a;
  const SpAutosaveEntry *eb = *(SpAutosaveEntry *const *) b;

  return ea->time < eb->time ? -1 : ea->time > eb->time;
}

GPtrArray *
sp_autosave_load_all (const char *dir, GPtrArray **problems)
{
  g_autoptr (GPtrArray) entries = g_ptr_array_new_with_free_func (
    (GDestroyNotify) sp_autosave_entry_free);
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) folder = NULL;
  g_autoptr (GError) error = NULL;
  const char *name;

  folder = g_dir_open (dir, 0, &error);
  if (folder == NULL && !g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    g_ptr_array_add (found, g_strdup (error->message));
  while (folder != NULL && (name = g_dir_read_name (folder)) != NULL)
    {
      g_autofree char *file = g_build_filename (dir, name, NULL);
      g_autofree char *stem = NULL;
      g_autoptr (GError) read_error = NULL;
      SpAutosaveEntry *entry;

      stem = g_str_has_suffix (name, SUFFIX) ? g_strndup (name, strlen (name) - strlen (SUFFIX))
                                             : NULL;
      if (stem == NULL || !id_is_valid (stem))
        {
          g_ptr_array_add (found, g_strdup_printf ("%s: not an autosave file", name));
          continue;
        }
      entry = sp_autosave_read (file, &read_error);
      if (entry == NULL)
        g_ptr_array_add (found, g_strdup (read_error->message));
      else
        g_ptr_array_add (entries, entry);
    }
  g_ptr_array_sort (entries, by_time);
  if (problems != NULL)
    *problems = g_steal_pointer (&found);
  return g_steal_pointer (&entries);
}
