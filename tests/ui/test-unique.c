/* test-unique.c: one Sandpad per session, and one owner of the unsaved
 * text (issue 23). Two scenarios, one per meson test (SANDPAD_TEST_UNIQUE),
 * each with a state folder of its own:
 *
 * second-launch: this process is the running Sandpad on the test's own
 * session bus. The real binary started again, from another directory with
 * a relative file name, hands the file over and exits 0: the file opens
 * here. Started again with the same file it opens no second window but
 * shows the one there is (hidden first, so showing it is visible to the
 * test); without a file it opens nothing new.
 *
 * race: the real binary runs without a session bus (as in a session with
 * none, or another login on the same home), opens a file and has unsaved
 * text typed into it and a scratch window; it owns the state folder. This
 * process then starts on the same folder: it restores none of the other's
 * windows, keeps no copy of its own, and closing its window with Discard,
 * or writing its session, changes nothing of the other's state. Killed
 * with SIGKILL, the other leaves every copy for the next start, and the
 * folder free. */
#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include "sp-app-session.h"
#include "sp-application.h"
#include "sp-autosave.h"
#include "sp-session-store.h"
#include "sp-state-lock.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;
static char *tmp_dir;

typedef struct
{
  gboolean exited;
  int status;
} Child;

static void
on_child_exit (GPid pid, int status, gpointer data)
{
  Child *child = data;

  child->status = status;
  child->exited = TRUE;
  g_spawn_close_pid (pid);
}

static gboolean
child_exited (gpointer data)
{
  return ((Child *) data)->exited;
}

/* Starts the real binary from cwd with env and args, and waits (serving
 * this process's main loop, where the D-Bus call arrives) until it ends. */
static void
launch_and_wait (const char *cwd, char **env, const char *const *args)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_autoptr (GError) error = NULL;
  Child child = { 0 };
  GPid pid;

  g_ptr_array_add (argv, (char *) g_getenv ("SANDPAD_APP"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *) args[i]);
  g_ptr_array_add (argv, NULL);
  /* Its stdout (--version) is not TAP. */
  g_assert_true (g_spawn_async (cwd, (char **) argv->pdata, env,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                                &pid, &error));
  g_assert_no_error (error);
  g_child_watch_add (pid, on_child_exit, &child);
  /* A second instance that does not hand over stays up with its own
   * window: it would never exit. */
  g_assert_true (sp_test_wait_for (child_exited, &child, 30000));
  g_assert_true (WIFEXITED (child.status));
  g_assert_cmpint (WEXITSTATUS (child.status), ==, 0);
}

static guint
count_windows (void)
{
  guint n = 0;

  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    n += SP_IS_WINDOW (l->data);
  return n;
}

static SpWindow *
window_for_path (const char *path)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);

  return (SpWindow *) sp_app_session_find_window (GTK_APPLICATION (app), file);
}

static gboolean
has_window_for (gpointer data)
{
  return window_for_path (data) != NULL;
}

static char *
buffer_text (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;

  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  /* As the file holds it: with the implicit trailing newline. */
  return sp_document_text_for_file (text);
}

typedef struct
{
  SpWindow *window;
  const char *text;
} TextWait;

static gboolean
shows_text (gpointer data)
{
  TextWait *wait = data;
  g_autofree char *text = buffer_text (wait->window);

  return g_str_equal (text, wait->text);
}

static void
test_second_launch (void)
{
  g_autofree char *path = g_build_filename (tmp_dir, "snippet.py", NULL);
  g_autofree char *other = g_build_filename (tmp_dir, "elsewhere", NULL);
  g_autofree char *relative = g_build_filename ("..", "snippet.py", NULL);
  const char *const by_relative[] = { relative, NULL };
  const char *const by_path[] = { path, NULL };
  const char *const none[] = { NULL };
  const char *const version[] = { "--version", NULL };
  g_auto (GStrv) env = g_get_environ ();
  SpWindow *window;
  TextWait loaded;

  g_assert_nonnull (g_getenv ("SANDPAD_APP"));
  g_assert_nonnull (sp_application_get_state_lock (app));
  g_assert_true (g_file_set_contents (path, "print('second launch')\n", -1, NULL));
  g_assert_cmpint (g_mkdir_with_parents (other, 0700), ==, 0);
  g_assert_cmpuint (count_windows (), ==, 0);

  /* From another directory, by a name relative to it. */
  launch_and_wait (other, env, by_relative);
  g_assert_true (sp_test_wait_for (has_window_for, path, 10000));
  g_assert_cmpuint (count_windows (), ==, 1);
  window = window_for_path (path);
  loaded = (TextWait){ window, "print('second launch')\n" };
  g_assert_true (sp_test_wait_for (shows_text, &loaded, 10000));

  /* Again: the window there is comes forward, no second one. */
  gtk_widget_set_visible (GTK_WIDGET (window), FALSE);
  launch_and_wait (other, env, by_path);
  g_assert_cmpuint (count_windows (), ==, 1);
  g_assert_true (window_for_path (path) == window);
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));

  /* No file: the running one is shown, nothing new. --version is
   * answered by the starting process alone. */
  launch_and_wait (other, env, none);
  launch_and_wait (other, env, version);
  g_assert_cmpuint (count_windows (), ==, 1);
  close_window (window);
}

/* ---- race ---- */

typedef struct
{
  const char *dir;
  const char *typed;
  guint n;
} CopiesWait;

static gboolean
copies_complete (gpointer data)
{
  CopiesWait *wait = data;
  g_autoptr (GPtrArray) entries = sp_autosave_load_all (wait->dir, NULL);
  guint complete = 0;

  for (guint i = 0; i < entries->len; i++)
    {
      SpAutosaveEntry *entry = entries->pdata[i];
      /* A copy holds the file's text: the editor's and its implicit
       * trailing newline. */
      g_autofree char *shown = g_strndup (entry->text,
                                          sp_document_editor_length (entry->text, entry->length));

      complete += g_str_has_suffix (shown, wait->typed);
    }
  g_usleep (50 * 1000);
  return complete == wait->n;
}

static gboolean
session_has_two (gpointer data)
{
  g_autoptr (GPtrArray) windows = sp_session_store_load (data, NULL);

  g_usleep (50 * 1000);
  return windows != NULL && windows->len == 2;
}

static int
by_name (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Every file under dir (but the lock, whose holder may rewrite it) with
 * its bytes, one "name\nbytes\n" after another in name order. */
static void
snapshot_into (GString *out, const char *dir, const char *prefix)
{
  g_autoptr (GDir) folder = g_dir_open (dir, 0, NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  while (folder != NULL && (name = g_dir_read_name (folder)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, by_name);
  for (guint i = 0; i < names->len; i++)
    {
      const char *n = g_ptr_array_index (names, i);
      g_autofree char *full = g_build_filename (dir, n, NULL);
      g_autofree char *rel = g_build_filename (prefix, n, NULL);
      g_autofree char *bytes = NULL;

      if (g_str_equal (rel, "session.lock"))
        continue;
      if (g_file_test (full, G_FILE_TEST_IS_DIR))
        {
          snapshot_into (out, full, rel);
          continue;
        }
      g_assert_true (g_file_get_contents (full, &bytes, NULL, NULL));
      g_string_append_printf (out, "%s\n", rel);
      /* The owner rewrites its own copies while it lives (a new Time=,
       * the same text): not the second process's doing, so left out. */
      g_auto (GStrv) lines = g_strsplit (bytes, "\n", -1);
      for (char **l = lines; *l != NULL; l++)
        if (!g_str_has_prefix (*l, "Time="))
          g_string_append_printf (out, "%s\n", *l);
    }
}

static char *
snapshot (const char *dir)
{
  GString *out = g_string_new (NULL);

  snapshot_into (out, dir, "");
  return g_string_free (out, FALSE);
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

/* This process's side of the race: nothing of the owner's comes here,
 * and nothing done here reaches the owner's state. */
static void
act_as_second (const char *path, const char *owner_pid)
{
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SpWindow *scratch, *window;
  TextWait on_disk;
  gpointer weak;

  g_assert_null (sp_application_get_state_lock (app));
  g_test_message ("state: %s", sp_application_get_state_problem (app));
  g_assert_nonnull (strstr (sp_application_get_state_problem (app), owner_pid));

  g_application_activate (G_APPLICATION (app));
  g_assert_cmpuint (count_windows (), ==, 1);
  scratch = SP_WINDOW (gtk_application_get_windows (GTK_APPLICATION (app))->data);
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_autosave_bar (scratch)));

  /* The owner's file: its text on disk, not the owner's unsaved copy. */
  g_application_open (G_APPLICATION (app), &file, 1, "");
  g_assert_cmpuint (count_windows (), ==, 2);
  g_assert_true (sp_test_wait_for (has_window_for, (gpointer) path, 10000));
  window = window_for_path (path);
  on_disk = (TextWait){ window, "print('on disk')\n" };
  g_assert_true (sp_test_wait_for (shows_text, &on_disk, 10000));
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_autosave_bar (window)));

  /* Typed into, it keeps no copy, and says so naming the owner. */
  gtk_text_buffer_insert_interactive_at_cursor (GTK_TEXT_BUFFER (sp_window_get_buffer (window)),
                                                "print('second')\n", -1, TRUE);
  sp_window_autosave_now (window);
  g_assert_cmpstr (sp_reload_bar_get_kind (sp_window_get_autosave_bar (window)), ==,
                   "autosave-off");
  g_assert_nonnull (
    strstr (sp_reload_bar_get_message (sp_window_get_autosave_bar (window)), owner_pid));

  /* Closed with Discard, as the duplicate was. */
  weak = window;
  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_close (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (has_dialog, NULL, 5000));
  sp_ui_test_alert_respond (find_dialog (), "discard");
  g_assert_true (sp_test_wait_for (is_gone, &weak, 5000));
  sp_app_session_save (GTK_APPLICATION (app));
  close_window (scratch);
}

static void
test_race (void)
{
  g_autofree char *path = g_build_filename (tmp_dir, "snippet.py", NULL);
  g_autofree char *typed_path = g_build_filename (tmp_dir, "typed.txt", NULL);
  g_autofree char *no_bus = g_strdup_printf ("unix:path=%s/no-bus", tmp_dir);
  g_autofree char *state_dir = sp_state_lock_default_dir ();
  g_autofree char *autosave_dir = sp_autosave_default_dir ();
  g_autofree char *session = sp_session_store_default_path ();
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *owner_pid = NULL;
  g_autoptr (SpStateLock) lock = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) env = g_get_environ ();
  const char *typed = "# typed in the first\nprint('keep me')\n";
  const char *argv[] = { g_getenv ("SANDPAD_APP"), path, NULL };
  CopiesWait copies = { autosave_dir, typed, 2 };
  GPid pid;
  int status = 0;

  g_assert_nonnull (argv[0]);
  g_assert_true (g_file_set_contents (path, "print('on disk')\n", -1, NULL));
  g_assert_true (g_file_set_contents (typed_path, typed, -1, NULL));
  env = g_environ_setenv (env, "SANDPAD_TEST_TYPE", typed_path, TRUE);
  env = g_environ_setenv (env, "DBUS_SESSION_BUS_ADDRESS", no_bus, TRUE);
  g_assert_true (
    g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  owner_pid = g_strdup_printf ("process %ld", (long) pid);
  g_assert_true (sp_test_wait_for (copies_complete, &copies, 60000));
  g_assert_true (sp_test_wait_for (session_has_two, session, 10000));
  before = snapshot (state_dir);

  /* This process starts now, on the same folder. */
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  act_as_second (path, owner_pid);
  after = snapshot (state_dir);
  g_assert_cmpstr (after, ==, before);

  /* The owner killed: its copies are all there for the next start. */
  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  lock = sp_state_lock_acquire (state_dir, &error);
  g_assert_no_error (error);
  g_assert_true (copies_complete (&copies));
  g_clear_pointer (&after, g_free);
  after = snapshot (state_dir);
  g_assert_cmpstr (after, ==, before);
}

int
main (int argc, char **argv)
{
  g_autofree char *state = NULL;
  const char *scenario = g_getenv ("SANDPAD_TEST_UNIQUE");
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  g_assert_nonnull (scenario);
  tmp_dir = g_dir_make_tmp ("sp-unique-ui-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* A state folder of this test's own, set before GLib reads it. */
  state = g_build_filename (tmp_dir, "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();

  if (g_str_equal (scenario, "second-launch"))
    {
      /* The running instance, before the second start. */
      g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
      g_assert_false (g_application_get_is_remote (G_APPLICATION (app)));
      g_test_add_func ("/Sandpad/Unique/second-launch", test_second_launch);
    }
  else if (g_str_equal (scenario, "race"))
    g_test_add_func ("/Sandpad/Unique/race", test_race);
  else
    g_error ("unknown SANDPAD_TEST_UNIQUE %s", scenario);
  ret = g_test_run ();
  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
