/* test-autosave.c: nothing is lost. The real app binary is started under
 * Xvfb, text is typed into a file's window and a scratch window (the
 * SANDPAD_TEST_TYPE hook), the autosave delay passes, and the app is
 * killed with SIGKILL. The next start (this process, with the same state
 * folder) restores both windows with every character, byte for byte,
 * says so, offers Discard, and skips damaged files in the autosave folder
 * with a message. Closing with Discard removes the copy. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <signal.h>
#include <string.h>
#include <errno.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp-application.h"
#include "sp-autosave.h"
#include "sp-session-store.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;
static char *tmp_dir;
static char *autosave_dir;

/* What the "person" types: non-ASCII, tabs, a carriage return, a line
 * that looks like the copy's own separator, and a few thousand
 * characters. */
static char *
typed_text (void)
{
  GString *text = g_string_new ("# ünïcode ✓ — 日本語\n\tindented\r\n%%\nprint('typed')\n");

  for (int i = 0; i < 200; i++)
    g_string_append_printf (text, "line_%03d = '%s'\n", i, i % 7 ? "x" : "ÿ€");
  g_string_append (text, "no newline at the end");
  return g_string_free (text, FALSE);
}

static char *
buffer_text (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

typedef struct
{
  const char *typed;
  guint n;
} CopiesWait;

/* Both copies are in the folder and hold all of the typed text. */
static gboolean
copies_complete (gpointer data)
{
  CopiesWait *wait = data;
  g_autoptr (GPtrArray) entries = sp_autosave_load_all (autosave_dir, NULL);
  guint complete = 0;

  for (guint i = 0; i < entries->len; i++)
    {
      SpAutosaveEntry *entry = g_ptr_array_index (entries, i);
      /* A copy holds the file's text: the editor's and its implicit
       * trailing newline. */
      g_autofree char *shown = g_strndup (entry->text,
                                          sp_document_editor_length (entry->text, entry->length));
      if (g_str_has_suffix (shown, wait->typed))
        complete++;
    }
  g_usleep (50 * 1000);
  return complete == wait->n;
}

static gboolean
session_has (gpointer data)
{
  g_autofree char *path = sp_session_store_default_path ();
  g_autoptr (GPtrArray) windows = sp_session_store_load (path, NULL);

  g_usleep (50 * 1000);
  return windows != NULL && windows->len == GPOINTER_TO_UINT (data);
}

static SpWindow *
window_for (GtkApplication *application, gboolean with_file)
{
  for (GList *l = gtk_application_get_windows (application); l != NULL; l = l->next)
    if (SP_IS_WINDOW (l->data) && (sp_window_get_file (l->data) != NULL) == with_file)
      return l->data;
  return NULL;
}

static void
spin (guint ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) ms * 1000;

  while (g_get_monotonic_time () < end)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static gboolean
copy_exists (const char *id)
{
  g_autofree char *name = g_strconcat (id, ".autosave", NULL);
  g_autofree char *path = g_build_filename (autosave_dir, name, NULL);

  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* A few files in the folder that are not whole copies. */
static void
damage_folder (void)
{
  g_autoptr (GPtrArray) entries = sp_autosave_load_all (autosave_dir, NULL);
  SpAutosaveEntry *entry = g_ptr_array_index (entries, 0);
  g_autofree char *name = g_strconcat (entry->id, ".autosave", NULL);
  g_autofree char *good = g_build_filename (autosave_dir, name, NULL);
  g_autofree char *cut = g_build_filename (autosave_dir, "deadbeef.autosave", NULL);
  g_autofree char *foreign = g_build_filename (autosave_dir, "hello.autosave", NULL);
  g_autofree char *notes = g_build_filename (autosave_dir, "notes.txt", NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;

  g_assert_true (g_file_get_contents (good, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (cut, contents, (gssize) len / 2, NULL));
  g_assert_true (g_file_set_contents (foreign, "\x89PNG\r\n\x1a\n\x00\x00", 10, NULL));
  g_assert_true (g_file_set_contents (notes, "not ours\n", -1, NULL));
}

static void
test_kill9 (void)
{
  g_autofree char *typed = typed_text ();
  g_autofree char *typed_path = g_build_filename (tmp_dir, "typed.txt", NULL);
  g_autofree char *file = g_build_filename (tmp_dir, "snippet.py", NULL);
  g_autofree char *expected_file_text = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = g_get_environ ();
  const char *app_path = g_getenv ("SANDPAD_APP");
  const char *argv[] = { app_path, file, NULL };
  CopiesWait copies = { typed, 2 };
  SpWindow *with_file, *scratch;
  g_autofree char *text = NULL;
  g_autofree char *file_id = NULL;
  g_autofree char *scratch_id = NULL;
  const char *notice;
  GPid pid;

  int status = 0;

  g_assert_nonnull (app_path);
  g_assert_true (g_file_set_contents (file, "print('on disk')\n", -1, NULL));
  g_assert_true (g_file_set_contents (typed_path, typed, -1, NULL));
  /* Typed at the end of the editor, after the file's text without its
   * final line break (the editor's implicit trailing newline). */
  expected_file_text = g_strconcat ("print('on disk')", typed, NULL);

  /* The real app: typed into, given time to autosave, then killed. */
  env = g_environ_setenv (env, "SANDPAD_TEST_TYPE", typed_path, TRUE);
  g_assert_true (
    g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  g_assert_true (sp_test_wait_for (copies_complete, &copies, 60000));
  g_assert_true (sp_test_wait_for (session_has, GUINT_TO_POINTER (2), 10000));
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
  /* The file itself was never written by autosave. */
  {
    g_autofree char *on_disk = NULL;
    g_assert_true (g_file_get_contents (file, &on_disk, NULL, NULL));
    g_assert_cmpstr (on_disk, ==, "print('on disk')\n");
  }
  damage_folder ();
  /* The split as another start left it (a window moved it to 0.3). */
  {
    g_autofree char *session_path = sp_session_store_default_path ();
    g_autoptr (GPtrArray) windows = sp_session_store_load (session_path, &error);

    g_assert_no_error (error);
    for (guint i = 0; i < windows->len; i++)
      ((SpSessionWindow *) windows->pdata[i])->panel_fraction = 0.3;
    g_assert_true (sp_session_store_save (session_path, windows, &error));
  }

  /* The next start: this process, same state folder. It registers only
   * now: before, the app started above would have handed its file to it
   * over the test's session bus instead of running, and the state folder
   * was the other's. */
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_assert_nonnull (sp_application_get_state_lock (app));
  g_application_activate (G_APPLICATION (app));
  with_file = window_for (GTK_APPLICATION (app), TRUE);
  scratch = window_for (GTK_APPLICATION (app), FALSE);
  g_assert_nonnull (with_file);
  g_assert_nonnull (scratch);
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 2);
  g_assert_cmpfloat_with_epsilon (sp_window_get_panel_fraction (with_file), 0.3, 0.001);

  text = buffer_text (with_file);
  g_assert_cmpuint (strlen (text), ==, strlen (expected_file_text));
  g_assert_cmpmem (text, strlen (text), expected_file_text, strlen (expected_file_text));
  g_assert_true (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (with_file))));
  g_clear_pointer (&text, g_free);
  text = buffer_text (scratch);
  g_assert_cmpmem (text, strlen (text), typed, strlen (typed));
  g_assert_true (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (scratch))));
  g_assert_cmpstr (sp_reload_bar_get_kind (sp_window_get_autosave_bar (with_file)), ==, "restored");
  g_assert_cmpstr (sp_reload_bar_get_kind (sp_window_get_autosave_bar (scratch)), ==, "restored");
  /* Each says what its Discard does: an untitled buffer has no file to
   * go back to (issue 23). */
  g_assert_nonnull (strstr (sp_reload_bar_get_message (sp_window_get_autosave_bar (with_file)),
                            "Discard goes back to the file"));
  g_assert_null (strstr (sp_reload_bar_get_message (sp_window_get_autosave_bar (scratch)), "file"));
  g_assert_nonnull (strstr (sp_reload_bar_get_message (sp_window_get_autosave_bar (scratch)),
                            "Discard empties the editor"));

  /* The damaged files were skipped, and the first window says which. */
  g_assert_nonnull (sp_window_get_notice_bar (with_file) ? with_file : scratch);
  notice = sp_reload_bar_get_message (sp_window_get_notice_bar (with_file)
                                        ? sp_window_get_notice_bar (with_file)
                                        : sp_window_get_notice_bar (scratch));
  g_test_message ("notice: %s", notice);
  g_assert_nonnull (strstr (notice, "3 files"));
  g_assert_nonnull (strstr (notice, "deadbeef.autosave: truncated"));
  g_assert_nonnull (strstr (notice, "hello.autosave"));
  g_assert_nonnull (strstr (notice, "notes.txt"));

  /* Discard: the file's window goes back to the file, the scratch
   * buffer empties; both copies go. */
  file_id = g_strdup (sp_window_get_autosave_id (with_file));
  scratch_id = g_strdup (sp_window_get_autosave_id (scratch));
  g_assert_true (copy_exists (file_id));
  g_assert_true (copy_exists (scratch_id));
  g_signal_emit_by_name (find_button (GTK_WIDGET (sp_window_get_autosave_bar (scratch)),
                                      "_Discard"),
                         "clicked");
  g_clear_pointer (&text, g_free);
  text = buffer_text (scratch);
  g_assert_cmpstr (text, ==, "");
  g_assert_false (copy_exists (scratch_id));
  g_signal_emit_by_name (find_button (GTK_WIDGET (sp_window_get_autosave_bar (with_file)),
                                      "_Discard"),
                         "clicked");
  spin (1500);
  g_clear_pointer (&text, g_free);
  text = buffer_text (with_file);
  g_assert_cmpstr (text, ==, "print('on disk')");
  g_assert_false (copy_exists (file_id));

  close_window (with_file);
  close_window (scratch);
}

static SpAlert *
find_dialog (void)
{
  return sp_ui_test_find_alert (NULL);
}

static gboolean
has_dialog (gpointer data)
{
  return find_dialog () != NULL;
}

static gboolean
is_gone (gpointer data)
{
  return *(gpointer *) data == NULL;
}

/* Closing with Discard removes the copy; saving does too. */
static void
test_discard_on_close (void)
{
  SpWindow *window;
  GtkTextBuffer *buffer;
  g_autofree char *id = NULL;
  gpointer weak;

  window = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  gtk_text_buffer_insert_interactive_at_cursor (buffer, "print('throw away')\n", -1, TRUE);
  sp_window_autosave_now (window);
  id = g_strdup (sp_window_get_autosave_id (window));
  g_assert_true (copy_exists (id));

  weak = window;
  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (has_dialog, NULL, 5000));
  /* As the Discard button does. */
  sp_ui_test_alert_respond (find_dialog (), "discard");
  g_assert_true (sp_test_wait_for (is_gone, &weak, 5000));
  g_assert_false (copy_exists (id));
}

/* A full disk: the copy cannot be written, the window says so, and the
 * text stays in the editor. A 64 KiB tmpfs over the autosave folder
 * stands in for the disk; mounting it needs root. */
static void
test_full_disk (void)
{
  g_autoptr (GString) big = g_string_new (NULL);
  SpWindow *window;
  GtkTextBuffer *buffer;
  g_autofree char *text = NULL;
  const char *kind;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root to mount a small tmpfs as the autosave folder");
      return;
    }
  g_assert_cmpint (g_mkdir_with_parents (autosave_dir, 0700), ==, 0);
  if (mount ("tmpfs", autosave_dir, "tmpfs", 0, "size=64k") != 0)
    {
      g_autofree char *why = g_strdup_printf ("cannot mount a tmpfs: %s", g_strerror (errno));
      g_test_skip (why);
      return;
    }
  for (int i = 0; i < 8000; i++)
    g_string_append_printf (big, "value_%05d = %d  # ünïcode\n", i, i);
  window = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (window));
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  gtk_text_buffer_insert_interactive_at_cursor (buffer, big->str, (int) big->len, TRUE);
  sp_window_autosave_now (window);
  kind = sp_reload_bar_get_kind (sp_window_get_autosave_bar (window));
  g_test_message ("bar: %s", sp_reload_bar_get_message (sp_window_get_autosave_bar (window)));
  g_assert_cmpstr (kind, ==, "autosave-failed");
  g_assert_nonnull (strstr (sp_reload_bar_get_message (sp_window_get_autosave_bar (window)),
                            "No space left on device"));
  text = buffer_text (window);
  g_assert_cmpmem (text, strlen (text), big->str, big->len);
  g_assert_true (gtk_text_buffer_get_modified (buffer));
  /* Space again: the next copy is written and the bar goes. */
  g_assert_cmpint (umount (autosave_dir), ==, 0);
  sp_window_autosave_now (window);
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_autosave_bar (window)));
  g_assert_true (copy_exists (sp_window_get_autosave_id (window)));
  close_window (window);
}

/* Leaving the window writes the copy at once, without waiting for the
 * pause after typing. Under Xvfb without a window manager the focus does
 * not move between windows, so the test says the window's "is-active"
 * changed (it is not active) as GTK does when the focus leaves; no main
 * loop iteration runs in between, so the typing timer cannot be what
 * wrote the copy. */
static void
test_focus_out (void)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  g_autoptr (GPtrArray) entries = NULL;
  g_autofree char *id = g_strdup (sp_window_get_autosave_id (window));
  gboolean found = FALSE;

  gtk_text_buffer_insert_interactive_at_cursor (buffer, "print('left the window')", -1, TRUE);
  g_assert_false (copy_exists (id));
  g_assert_false (gtk_window_is_active (GTK_WINDOW (window)));
  g_object_notify (G_OBJECT (window), "is-active");
  g_assert_true (copy_exists (id));
  entries = sp_autosave_load_all (autosave_dir, NULL);
  for (guint i = 0; i < entries->len; i++)
    {
      SpAutosaveEntry *entry = g_ptr_array_index (entries, i);
      found |= g_str_equal (entry->id, id)
               && g_str_equal (entry->text, "print('left the window')\n");
    }
  g_assert_true (found);
  close_window (window);
  g_assert_false (copy_exists (id));
}

int
main (int argc, char **argv)
{
  g_autofree char *state = NULL;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  tmp_dir = g_dir_make_tmp ("sp-autosave-ui-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* The app started from here and this process share this state folder;
   * set before GLib reads it once and for all. */
  state = g_build_filename (tmp_dir, "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  autosave_dir = sp_autosave_default_dir ();
  g_assert_true (g_str_has_prefix (autosave_dir, tmp_dir));
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  /* Registered by kill9, the first test, once the real app is gone. */
  app = sp_application_new ();

  g_test_add_func ("/Sandpad/Autosave/kill9", test_kill9);
  g_test_add_func ("/Sandpad/Autosave/discard-on-close", test_discard_on_close);
  g_test_add_func ("/Sandpad/Autosave/focus-out", test_focus_out);
  g_test_add_func ("/Sandpad/Autosave/full-disk", test_full_disk);
  ret = g_test_run ();
  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
