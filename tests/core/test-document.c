/* test-document.c: SpDocument without a display. A file is loaded and
 * known as the disk's; a change made by someone else is told as a reload
 * (no unsaved edits) or a conflict (unsaved edits), our own save and a
 * touch as no change, a deletion once, a rename followed, a move and text
 * that is no longer UTF-8 said; a save refuses to overwrite a file
 * changed since (sp_safe_save's check) unless told to; the unsaved text's
 * copy is written, removed when the text is saved or unmodified, kept
 * when the document closes unsaved; and an untitled buffer's history key
 * comes back with its copy after a restart. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "sp-autosave.h"
#include "sp-document.h"
#include "sp-environment.h"
#include "sp-run-history.h"
#include "sp-test-tree.h"
#include "sp-test-wait.h"

#define WAIT_MS 10000

/* The editor, as far as the document sees it. */
typedef struct
{
  char *text;
  GPtrArray *changes; /* SpDocumentDiskChange, as pointers */
  GBytes *last_contents;
  GAsyncResult *result;
} Editor;

static char *
editor_text (gpointer data)
{
  Editor *editor = data;

  return g_strdup (editor->text);
}

static void
on_disk_changed (SpDocument *document, int change, GBytes *contents, Editor *editor)
{
  g_ptr_array_add (editor->changes, GINT_TO_POINTER (change));
  g_clear_pointer (&editor->last_contents, g_bytes_unref);
  editor->last_contents = contents != NULL ? g_bytes_ref (contents) : NULL;
}

static void
editor_init (Editor *editor, SpDocument *document, const char *text)
{
  editor->text = g_strdup (text);
  editor->changes = g_ptr_array_new ();
  sp_document_set_text_func (document, editor_text, editor);
  g_signal_connect (document, "disk-changed", G_CALLBACK (on_disk_changed), editor);
}

static void
editor_clear (Editor *editor)
{
  g_free (editor->text);
  g_ptr_array_unref (editor->changes);
  g_clear_pointer (&editor->last_contents, g_bytes_unref);
  g_clear_object (&editor->result);
}

static void
got_result (GObject *source, GAsyncResult *result, gpointer data)
{
  Editor *editor = data;

  editor->result = g_object_ref (result);
}

static gboolean
has_result (gpointer data)
{
  return ((Editor *) data)->result != NULL;
}

typedef struct
{
  Editor *editor;
  guint n;
} Count;

static gboolean
has_changes (gpointer data)
{
  Count *count = data;

  return count->editor->changes->len >= count->n;
}

/* Waits for the n-th disk change and returns it. */
static SpDocumentDiskChange
wait_change (Editor *editor, guint n)
{
  Count count = { editor, n };

  g_assert_true (sp_test_wait_for (has_changes, &count, WAIT_MS));
  return GPOINTER_TO_INT (g_ptr_array_index (editor->changes, n - 1));
}

/* Lets the monitor's burst and the document's delayed look happen. */
static void
settle (void)
{
  gint64 until = g_get_monotonic_time () + 600 * 1000;

  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static char *
make_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("sp-document-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

static void
write_file (const char *path, const char *text)
{
  g_autoptr (GError) error = NULL;

  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
}

/* As the view loads: read, then the file taken with its text. */
static GBytes *
load (SpDocument *document, Editor *editor, GFile *file, GError **error)
{
  g_autoptr (GFile) read = NULL;
  GBytes *bytes;

  g_clear_object (&editor->result);
  sp_document_load_async (document, file, NULL, got_result, editor);
  g_assert_true (sp_test_wait_for (has_result, editor, WAIT_MS));
  bytes = sp_document_load_finish (document, editor->result, &read, error);
  g_clear_object (&editor->result);
  g_assert_true (g_file_equal (read, file));
  if (bytes != NULL)
    sp_document_set_file (document, read, bytes);
  return bytes;
}

static gboolean
save (SpDocument *document, Editor *editor, GFile *file, gboolean overwrite, GError **error)
{
  gboolean ok;

  g_clear_object (&editor->result);
  sp_document_save_async (document, file, overwrite, NULL, got_result, editor);
  g_assert_true (sp_test_wait_for (has_result, editor, WAIT_MS));
  ok = sp_document_save_finish (document, editor->result, error);
  g_clear_object (&editor->result);
  return ok;
}

static void
count_loaded (guint *loaded)
{
  (*loaded)++;
}

static void
test_load (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autofree char *bad_path = g_build_filename (dir, "b.bin", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFile) bad = g_file_new_for_path (bad_path);
  g_autoptr (SpDocument) document = sp_document_new (NULL);
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *name = NULL;
  Editor editor = { 0 };
  guint loaded = 0;

  editor_init (&editor, document, "");
  g_signal_connect_swapped (document, "loaded", G_CALLBACK (count_loaded), &loaded);
  write_file (path, "print(1)\n");
  g_assert_true (g_file_set_contents (bad_path, "\xff\xfe", 2, NULL));
  name = sp_document_dup_display_name (document);
  g_assert_cmpstr (name, ==, "Untitled");

  /* Not text: an error, and the document is not that file's. */
  bytes = load (document, &editor, bad, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_null (bytes);
  g_assert_null (sp_document_get_file (document));
  g_assert_cmpuint (loaded, ==, 0);
  g_clear_error (&error);

  bytes = load (document, &editor, file, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes), "print(1)\n", 9);
  g_assert_true (g_file_equal (sp_document_get_file (document), file));
  g_clear_pointer (&name, g_free);
  name = sp_document_dup_display_name (document);
  g_assert_cmpstr (name, ==, "a.py");
  g_assert_cmpuint (loaded, ==, 1);

  g_object_unref (g_steal_pointer (&document));
  editor_clear (&editor);
  sp_test_remove_tree (dir);
}

/* Someone else writes the file: without unsaved edits a reload, with them
 * a conflict whose new text waits for an answer; Keep Mine makes it the
 * known text, so the same text again is no change. */
static void
test_change_on_disk (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (SpDocument) document = sp_document_new (NULL);
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  Editor editor = { 0 };

  write_file (path, "one\n");
  editor_init (&editor, document, "one\n");
  bytes = load (document, &editor, file, &error);
  g_assert_no_error (error);

  /* A touch: the same bytes are no change. */
  write_file (path, "one\n");
  g_assert_cmpint (wait_change (&editor, 1), ==, SP_DOCUMENT_DISK_UNCHANGED);

  write_file (path, "two\n");
  g_assert_cmpint (wait_change (&editor, 2), ==, SP_DOCUMENT_DISK_RELOAD);
  g_assert_cmpmem (g_bytes_get_data (editor.last_contents, NULL),
                   g_bytes_get_size (editor.last_contents), "two\n", 4);
  /* The view reloads. */
  g_free (editor.text);
  editor.text = g_strdup ("two\n");
  sp_document_reloaded (document, editor.last_contents);

  /* Unsaved edits: the new text is pending, nothing is replaced. */
  g_free (editor.text);
  editor.text = g_strdup ("mine\n");
  sp_document_set_modified (document, TRUE);
  write_file (path, "three\n");
  g_assert_cmpint (wait_change (&editor, 3), ==, SP_DOCUMENT_DISK_CONFLICT);
  g_assert_nonnull (sp_document_get_pending (document));
  sp_document_keep_mine (document);
  g_assert_null (sp_document_get_pending (document));
  g_assert_true (sp_document_get_modified (document));

  /* The editor's own text written by someone else: known, no question. */
  write_file (path, "mine\n");
  g_assert_cmpint (wait_change (&editor, 4), ==, SP_DOCUMENT_DISK_SAME_AS_EDITOR);

  /* Deleted: said once; the text is unsaved. */
  sp_document_set_modified (document, FALSE);
  g_assert_no_errno (g_unlink (path));
  g_assert_cmpint (wait_change (&editor, 5), ==, SP_DOCUMENT_DISK_DELETED);
  g_assert_true (sp_document_get_modified (document));
  settle ();
  g_assert_cmpuint (editor.changes->len, ==, 5);

  g_object_unref (g_steal_pointer (&document));
  editor_clear (&editor);
  sp_test_remove_tree (dir);
}

/* A rename within the folder is followed; text that is no longer UTF-8
 * is said and leaves the editor's text unsaved; a move to another folder
 * is said as moved, once. */
static void
test_rename_and_move (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autofree char *renamed = g_build_filename (dir, "b.py", NULL);
  g_autofree char *elsewhere_dir = g_build_filename (dir, "elsewhere", NULL);
  g_autofree char *elsewhere = g_build_filename (elsewhere_dir, "b.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFile) renamed_file = g_file_new_for_path (renamed);
  g_autoptr (SpDocument) document = sp_document_new (NULL);
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  Editor editor = { 0 };

  write_file (path, "one\n");
  g_assert_cmpint (g_mkdir (elsewhere_dir, 0700), ==, 0);
  editor_init (&editor, document, "one\n");
  bytes = load (document, &editor, file, &error);
  g_assert_no_error (error);

  g_assert_cmpint (g_rename (path, renamed), ==, 0);
  g_assert_cmpint (wait_change (&editor, 1), ==, SP_DOCUMENT_DISK_RENAMED);
  g_assert_true (g_file_equal (sp_document_get_file (document), renamed_file));
  g_assert_false (sp_document_get_modified (document));

  g_assert_true (g_file_set_contents (renamed, "\xff\xfe\n", 3, NULL));
  g_assert_cmpint (wait_change (&editor, 2), ==, SP_DOCUMENT_DISK_NOT_TEXT);
  g_assert_true (sp_document_get_modified (document));

  g_assert_cmpint (g_rename (renamed, elsewhere), ==, 0);
  g_assert_cmpint (wait_change (&editor, 3), ==, SP_DOCUMENT_DISK_MOVED);
  settle ();
  g_assert_cmpuint (editor.changes->len, ==, 3);

  g_object_unref (g_steal_pointer (&document));
  editor_clear (&editor);
  sp_test_remove_tree (dir);
}

/* Save goes through sp_safe_save: our own save is no change on disk; a
 * file changed since it was read is not overwritten unless asked. */
static void
test_save (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autofree char *other_path = g_build_filename (dir, "b.py", NULL);
  g_autofree char *autosave_dir = g_build_filename (dir, "autosave", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  g_autoptr (GFile) other = g_file_new_for_path (other_path);
  g_autoptr (SpDocument) document = sp_document_new (autosave_dir);
  g_autoptr (GBytes) bytes = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *copy = NULL;
  Editor editor = { 0 };

  write_file (path, "old\n");
  editor_init (&editor, document, "old\n");
  bytes = load (document, &editor, file, &error);
  g_assert_no_error (error);

  g_free (editor.text);
  editor.text = g_strdup ("new\n");
  sp_document_set_modified (document, TRUE);
  sp_document_autosave_now (document);
  copy = g_strdup_printf ("%s/%s.autosave", autosave_dir, sp_document_get_autosave_id (document));
  g_assert_true (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_assert_true (save (document, &editor, NULL, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "new\n");
  g_assert_false (sp_document_get_modified (document));
  /* Saved: the copy is not needed. */
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));
  settle ();
  for (guint i = 0; i < editor.changes->len; i++)
    g_assert_cmpint (GPOINTER_TO_INT (g_ptr_array_index (editor.changes, i)), <=,
                     SP_DOCUMENT_DISK_SAME_AS_EDITOR);

  /* Changed behind our back, quietly (no monitor event reaches us before
   * the save: the document is told nothing). */
  g_signal_handlers_disconnect_by_data (document, &editor);
  {
    g_autoptr (GBytes) known = g_bytes_new_static ("new\n", 4);
    sp_document_set_file (document, file, known);
  }
  write_file (path, "theirs\n");
  g_free (editor.text);
  editor.text = g_strdup ("newer\n");
  g_assert_false (save (document, &editor, NULL, FALSE, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG);
  g_clear_error (&error);
  g_clear_pointer (&contents, g_free);
  g_assert_true (g_file_get_contents (path, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "theirs\n");
  g_assert_true (save (document, &editor, NULL, TRUE, &error));
  g_assert_no_error (error);

  /* Save As: the document becomes the other file's. */
  g_assert_true (save (document, &editor, other, FALSE, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_equal (sp_document_get_file (document), other));

  g_object_unref (g_steal_pointer (&document));
  editor_clear (&editor);
  sp_test_remove_tree (dir);
}

static gboolean
exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static void
count_status (SpDocument *document, int status, const char *message, int *seen)
{
  seen[status]++;
}

static void
on_prepare (SpDocument *document, gpointer data)
{
  sp_document_set_untitled_name (document, "Untitled 7");
}

/* The copy: written a moment after the text changes, removed when the
 * text is unmodified, kept when the document closes unsaved, removed when
 * it closes with Discard; no folder, no copy, said once. */
static void
test_autosave (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpDocument) document = sp_document_new (dir);
  g_autoptr (SpDocument) nowhere = sp_document_new (NULL);
  g_autoptr (GPtrArray) all = NULL;
  g_autofree char *copy = NULL;
  SpAutosaveEntry *entry;
  int seen[3] = { 0 };
  Editor editor = { 0 }, other = { 0 };

  editor_init (&editor, document, "x = 1\n");
  g_signal_connect (document, "prepare-copy", G_CALLBACK (on_prepare), NULL);
  sp_document_set_language (document, "python");
  copy = g_strdup_printf ("%s/%s.autosave", dir, sp_document_get_autosave_id (document));

  /* Unmodified text needs no copy. */
  sp_document_autosave_now (document);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));

  sp_document_set_modified (document, TRUE);
  sp_document_text_changed (document);
  g_assert_true (sp_test_wait_for (exists, copy, WAIT_MS));
  all = sp_autosave_load_all (dir, NULL);
  g_assert_cmpuint (all->len, ==, 1);
  entry = g_ptr_array_index (all, 0);
  g_assert_cmpstr (entry->text, ==, "x = 1\n");
  g_assert_cmpstr (entry->title, ==, "Untitled 7");
  g_assert_cmpstr (entry->language, ==, "python");
  g_assert_null (entry->path);

  /* Undone back to the file: the copy goes. */
  sp_document_set_modified (document, FALSE);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));

  /* Closed unsaved: kept for the next start; and with Discard: gone. */
  sp_document_set_modified (document, TRUE);
  sp_document_close (document, FALSE);
  g_assert_true (g_file_test (copy, G_FILE_TEST_EXISTS));
  g_object_unref (g_steal_pointer (&document));
  document = sp_document_new (dir);
  editor_clear (&editor);
  editor_init (&editor, document, "y\n");
  g_signal_handlers_disconnect_by_data (document, &editor);
  {
    SpAutosaveEntry restored = { .id = entry->id, .text = "y\n", .length = 2 };
    sp_document_restore (document, &restored);
  }
  g_assert_true (sp_document_get_modified (document));
  sp_document_close (document, TRUE);
  g_assert_false (g_file_test (copy, G_FILE_TEST_EXISTS));

  /* No folder: nothing written, said once. */
  editor_init (&other, nowhere, "z\n");
  g_signal_connect (nowhere, "autosave-status", G_CALLBACK (count_status), seen);
  sp_document_set_modified (nowhere, TRUE);
  sp_document_autosave_now (nowhere);
  sp_document_autosave_now (nowhere);
  g_assert_cmpint (seen[SP_DOCUMENT_AUTOSAVE_OFF], ==, 1);

  editor_clear (&editor);
  editor_clear (&other);
  sp_test_remove_tree (dir);
}

/* An untitled buffer's runs are kept under its copy's id, which a restart
 * brings back with its text: the restored window finds its history. A
 * file's key is its path's, whatever the copy. */
static void
test_history_key (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *path = g_build_filename (dir, "a.py", NULL);
  g_autoptr (SpDocument) before = sp_document_new (dir);
  g_autoptr (SpDocument) after = sp_document_new (dir);
  g_autoptr (SpDocument) filed = sp_document_new (dir);
  g_autofree char *key_before = sp_document_dup_history_key (before);
  g_autofree char *key_fresh = sp_document_dup_history_key (after);
  g_autofree char *key_after = NULL;
  g_autofree char *key_filed = NULL;
  g_autofree char *key_path = sp_run_history_key_for_path (path);
  SpAutosaveEntry entry = { .id = (char *) sp_document_get_autosave_id (before),
                            .title = "Untitled 1",
                            .text = "print(1)\n",
                            .length = 9 };
  SpAutosaveEntry with_file = { .id = "other-id", .path = path, .text = "", .length = 0 };

  g_assert_cmpstr (key_before, !=, key_fresh);
  sp_document_restore (after, &entry);
  key_after = sp_document_dup_history_key (after);
  g_assert_cmpstr (key_after, ==, key_before);
  g_assert_cmpstr (sp_document_get_untitled_name (after), ==, "Untitled 1");

  write_file (path, "");
  sp_document_restore (filed, &with_file);
  key_filed = sp_document_dup_history_key (filed);
  g_assert_cmpstr (key_filed, ==, key_path);

  /* Nothing was written: the copies belong to the session. */
  sp_document_close (before, TRUE);
  sp_document_close (after, TRUE);
  sp_document_close (filed, TRUE);
  sp_test_remove_tree (dir);
}

/* The environment comes from the file's folder up to the workspace. */
static void
test_environment (void)
{
  g_autofree char *dir = make_dir ();
  g_autofree char *venv = g_build_filename (dir, ".venv", NULL);
  g_autoptr (SpDocument) document = sp_document_new (NULL);
  g_autofree char *found = NULL;
  g_autofree char *folder = NULL;

  g_assert_null (sp_document_dup_folder (document));
  g_assert_true (sp_document_set_workspace (document, dir));
  g_assert_false (sp_document_set_workspace (document, dir));
  folder = sp_document_dup_folder (document);
  g_assert_cmpstr (folder, ==, dir);
  g_assert_cmpint (g_mkdir (venv, 0700), ==, 0);
  sp_document_set_language (document, "python");
  found = sp_document_dup_environment (document);
  /* Whatever sp_environment_find says for the folder up to the
   * workspace is what the document says. */
  {
    g_autofree char *direct = sp_environment_find ("python", dir, dir);
    g_assert_cmpstr (found, ==, direct);
  }
  sp_test_remove_tree (dir);
}

/* GtkSourceView's implicit trailing newline: the file's text is the
 * editor's with one line break more (none for no text), and a file shows
 * in the editor less one final "\n" or "\r\n", nothing else. */
static void
test_trailing_newline (void)
{
  const struct
  {
    const char *file;
    gsize shown;
  } reads[] = {
    { "", 0 },      { "\n", 0 },    { "a", 1 },   { "a\n", 1 },
    { "a\r\n", 1 }, { "a\n\n", 2 }, { "a\r", 2 }, { "\r\n\r\n", 2 },
  };
  const char *texts[][2] = { { "", "" }, { "a", "a\n" }, { "a\n", "a\n\n" } };

  for (guint i = 0; i < G_N_ELEMENTS (reads); i++)
    g_assert_cmpuint (sp_document_editor_length (reads[i].file, strlen (reads[i].file)), ==,
                      reads[i].shown);
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autofree char *file = sp_document_text_for_file (texts[i][0]);
      g_assert_cmpstr (file, ==, texts[i][1]);
      /* And back: what was typed is what shows again. */
      g_assert_cmpuint (sp_document_editor_length (file, strlen (file)), ==, strlen (texts[i][0]));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/document/load", test_load);
  g_test_add_func ("/document/change-on-disk", test_change_on_disk);
  g_test_add_func ("/document/rename-and-move", test_rename_and_move);
  g_test_add_func ("/document/save", test_save);
  g_test_add_func ("/document/trailing-newline", test_trailing_newline);
  g_test_add_func ("/document/autosave", test_autosave);
  g_test_add_func ("/document/history-key", test_history_key);
  g_test_add_func ("/document/environment", test_environment);
  return g_test_run ();
}
