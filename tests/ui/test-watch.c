/* test-watch.c: the window watches its file, in a real window under Xvfb
 * against the real runner: an outside write reloads it (cursor line kept,
 * changed lines marked); with unsaved edits nothing is overwritten and
 * the bar offers Reload, Keep Mine and Compare; a replace by rename is
 * seen; deletion and rename are handled; our own save is no change; Run
 * on change re-runs and stops a run still going. Saves the bar as
 * sandpad-reload-bar.png. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp-application.h"
#include "sp-compare-window.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;
static char *tmp_dir;

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
has_text (gpointer data)
{
  TextWait *wait = data;
  g_autofree char *text = buffer_text (wait->window);

  return g_str_equal (text, wait->text);
}

typedef struct
{
  SpWindow *window;
  const char *kind;
} BarWait;

static gboolean
bar_shows (gpointer data)
{
  BarWait *wait = data;

  return g_strcmp0 (sp_reload_bar_get_kind (sp_window_get_file_bar (wait->window)), wait->kind)
         == 0;
}

/* Spins the loop for ms, for "nothing happens" checks: generous, as the
 * machine is shared. */
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

/* Writes in place (truncate and write), as a simple tool would. */
static void
write_in_place (const char *path, const char *text)
{
  FILE *f = fopen (path, "w");

  g_assert_nonnull (f);
  g_assert_cmpint (fputs (text, f), >=, 0);
  g_assert_cmpint (fclose (f), ==, 0);
}

/* Writes a temporary file and renames it over path, as editors and
 * sandpad-mcp's edit_and_execute do. */
static void
replace_by_rename (const char *path, const char *text)
{
  g_autofree char *tmp = g_strconcat (path, ".tmp-edit", NULL);

  write_in_place (tmp, text);
  g_assert_cmpint (g_rename (tmp, path), ==, 0);
}

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static SpWindow *
open_file (const char *name, const char *text, char **path_out)
{
  g_autofree char *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  SpWindow *window = sp_window_new (app);
  TextWait wait = { window, text };

  write_in_place (path, text);
  gtk_window_present (GTK_WINDOW (window));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (has_text, &wait, 10000));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  /* Let the monitor settle before the outside world acts. */
  spin (300);
  *path_out = g_steal_pointer (&path);
  return window;
}

static char *
numbered_lines (int n, int changed)
{
  GString *text = g_string_new (NULL);

  for (int i = 1; i <= n; i++)
    g_string_append_printf (text, "x%d = %d%s\n", i, i, i == changed ? "  # changed" : "");
  return g_string_free (text, FALSE);
}

static gboolean
line_tagged (SpWindow *window, int line, const char *tag_name)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextTag *tag = gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), tag_name);
  GtkTextIter iter;

  g_assert_nonnull (tag);
  gtk_text_buffer_get_iter_at_line (buffer, &iter, line - 1);
  return gtk_text_iter_has_tag (&iter, tag);
}

/* The editor: the source view under widget. */
static GtkTextView *
find_view (GtkWidget *widget)
{
  if (GTK_SOURCE_IS_VIEW (widget))
    return GTK_TEXT_VIEW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkTextView *found = find_view (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_reload (void)
{
  g_autofree char *path = NULL;
  g_autofree char *before = numbered_lines (80, 0);
  g_autofree char *after = numbered_lines (80, 60);
  SpWindow *window = open_file ("reload.py", before, &path);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkAdjustment *adj = NULL;
  GtkTextView *view = NULL;
  TextWait wait = { window, after };
  GtkTextIter iter;
  double scroll;

  /* The cursor on line 50, the view scrolled down to it. */
  gtk_text_buffer_get_iter_at_line (buffer, &iter, 49);
  gtk_text_buffer_place_cursor (buffer, &iter);
  view = find_view (GTK_WIDGET (window));
  g_assert_nonnull (view);
  adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  gtk_text_view_scroll_to_mark (view, gtk_text_buffer_get_insert (buffer), 0, TRUE, 0, 0.5);
  spin (800);
  scroll = gtk_adjustment_get_value (adj);
  g_test_message ("scrolled to %.0f", scroll);
  g_assert_cmpfloat (scroll, >, 100);

  write_in_place (path, after);
  g_assert_true (sp_test_wait_for (has_text, &wait, 10000));
  g_assert_false (gtk_text_buffer_get_modified (buffer));
  g_assert_cmpint (cursor_line (window), ==, 50);
  spin (300);
  g_assert_cmpfloat (ABS (gtk_adjustment_get_value (adj) - scroll), <, 40);
  /* The changed line is marked, the others not; the mark goes away. */
  g_assert_true (line_tagged (window, 60, "sandpad-changed-line"));
  g_assert_false (line_tagged (window, 59, "sandpad-changed-line"));
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_file_bar (window)));
  spin (4500);
  g_assert_false (line_tagged (window, 60, "sandpad-changed-line"));
  close_window (window);
}

/* Unsaved edits are never overwritten: the text survives byte for byte,
 * Compare shows both sides, Keep Mine keeps, Reload replaces (undoably). */
static void
test_unsaved_kept (void)
{
  g_autofree char *path = NULL;
  SpWindow *window = open_file ("unsaved.py", "print('disk 1')\n", &path);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  /* As Save would write it: with the implicit trailing newline. */
  const char *mine = "print('disk 1')\nprint('mine: ünï ✓')\t\r\n\n";
  BarWait changed = { window, "changed" };
  TextWait disk3 = { window, "print('disk 3')\n" };
  g_autofree char *text = NULL;
  g_autofree char *diff = NULL;
  GtkWidget *compare = NULL;
  GtkTextIter end;

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert_interactive (buffer, &end, "\nprint('mine: ünï ✓')\t\r\n", -1, TRUE);
  g_assert_true (gtk_text_buffer_get_modified (buffer));

  write_in_place (path, "print('disk 2')\n");
  g_assert_true (sp_test_wait_for (bar_shows, &changed, 10000));
  spin (500);
  text = buffer_text (window);
  g_assert_cmpmem (text, strlen (text), mine, strlen (mine));
  g_assert_true (gtk_text_buffer_get_modified (buffer));

  /* Compare: the disk's line against the editor's. */
  g_signal_emit_by_name (find_button (GTK_WIDGET (sp_window_get_file_bar (window)), "_Compare"),
                         "clicked");
  for (GList *l = gtk_window_list_toplevels (); l != NULL; l = g_list_delete_link (l, l))
    if (SP_IS_COMPARE_WINDOW (l->data))
      compare = l->data;
  g_assert_nonnull (compare);
  diff = sp_compare_window_get_text (SP_COMPARE_WINDOW (compare));
  g_test_message ("compare:\n%s", diff);
  g_assert_nonnull (strstr (diff, "-print('disk 2')"));
  g_assert_nonnull (strstr (diff, "+print('disk 1')"));
  g_assert_nonnull (strstr (diff, "+print('mine: ünï ✓')"));

  /* Keep Mine: nothing changes, not asked again for this version. */
  g_signal_emit_by_name (find_button (GTK_WIDGET (sp_window_get_file_bar (window)), "_Keep Mine"),
                         "clicked");
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_file_bar (window)));
  spin (500);
  g_free (text);
  text = buffer_text (window);
  g_assert_cmpmem (text, strlen (text), mine, strlen (mine));
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_file_bar (window)));

  /* Another change: asked again; Reload takes the disk's, Ctrl+Z mine. */
  write_in_place (path, "print('disk 3')\n");
  g_assert_true (sp_test_wait_for (bar_shows, &changed, 10000));
  g_signal_emit_by_name (find_button (GTK_WIDGET (sp_window_get_file_bar (window)), "_Reload"),
                         "clicked");
  g_assert_true (sp_test_wait_for (has_text, &disk3, 1000));
  g_assert_false (gtk_text_buffer_get_modified (buffer));
  gtk_text_buffer_undo (buffer);
  g_free (text);
  text = buffer_text (window);
  g_assert_cmpmem (text, strlen (text), mine, strlen (mine));
  close_window (window);
}

static void
test_replace_by_rename (void)
{
  g_autofree char *path = NULL;
  SpWindow *window = open_file ("atomic.py", "print('old')\n", &path);
  TextWait wait = { window, "print('new, renamed into place')\n" };

  replace_by_rename (path, wait.text);
  g_assert_true (sp_test_wait_for (has_text, &wait, 10000));
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window))));
  /* And again: the watch follows the new inode. */
  wait.text = "print('newer')\n";
  replace_by_rename (path, wait.text);
  g_assert_true (sp_test_wait_for (has_text, &wait, 10000));
  close_window (window);
}

static gboolean
file_has (gpointer data)
{
  TextWait *wait = data;
  g_autofree char *contents = NULL;

  return g_file_get_contents (wait->text, &contents, NULL, NULL)
         && g_str_equal (contents, "print('keep me')\n");
}

static void
test_deleted (void)
{
  g_autofree char *path = NULL;
  SpWindow *window = open_file ("deleted.py", "print('keep me')\n", &path);
  BarWait deleted = { window, "deleted" };
  TextWait written = { window, NULL };
  g_autofree char *text = NULL;

  g_assert_cmpint (g_unlink (path), ==, 0);
  g_assert_true (sp_test_wait_for (bar_shows, &deleted, 10000));
  text = buffer_text (window);
  g_assert_cmpstr (text, ==, "print('keep me')\n");
  /* Nothing on disk holds the text: it counts as unsaved. */
  g_assert_true (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window))));
  g_signal_emit_by_name (find_button (GTK_WIDGET (sp_window_get_file_bar (window)), "_Save"),
                         "clicked");
  written.text = path;
  g_assert_true (sp_test_wait_for (file_has, &written, 10000));
  spin (600);
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_file_bar (window)));
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window))));
  close_window (window);
}

/* Moved to another folder: the bar says moved, the text stays. */
static void
test_moved_away (void)
{
  g_autofree char *path = NULL;
  g_autofree char *elsewhere = g_build_filename (tmp_dir, "elsewhere", NULL);
  g_autofree char *to = g_build_filename (elsewhere, "moved.py", NULL);
  SpWindow *window = open_file ("moved.py", "print('moved')\n", &path);
  BarWait moved = { window, "moved" };
  g_autofree char *text = NULL;

  g_assert_cmpint (g_mkdir (elsewhere, 0700), ==, 0);
  g_assert_cmpint (g_rename (path, to), ==, 0);
  g_assert_true (sp_test_wait_for (bar_shows, &moved, 10000));
  text = buffer_text (window);
  g_assert_cmpstr (text, ==, "print('moved')\n");
  g_assert_nonnull (
    strstr (sp_reload_bar_get_message (sp_window_get_file_bar (window)), "moved away"));
  close_window (window);
}

typedef struct
{
  SpWindow *window;
  const char *path;
} FileWait;

static gboolean
window_file_is (gpointer data)
{
  FileWait *wait = data;
  GFile *file = sp_window_get_file (wait->window);
  g_autofree char *path = file ? g_file_get_path (file) : NULL;

  return g_strcmp0 (path, wait->path) == 0;
}

static void
test_renamed (void)
{
  g_autofree char *path = NULL;
  g_autofree char *to = g_build_filename (tmp_dir, "renamed-to.py", NULL);
  SpWindow *window = open_file ("renamed-from.py", "print('r')\n", &path);
  FileWait wait = { window, to };
  TextWait changed = { window, "print('r2')\n" };

  g_assert_cmpint (g_rename (path, to), ==, 0);
  g_assert_true (sp_test_wait_for (window_file_is, &wait, 10000));
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "renamed-to.py");
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_file_bar (window)));
  /* The new name is watched. */
  spin (300);
  write_in_place (to, changed.text);
  g_assert_true (sp_test_wait_for (has_text, &changed, 10000));
  close_window (window);
}

static gboolean
not_modified (gpointer data)
{
  return !gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (data)));
}

/* Our own save is no outside change: no bar, no reload. */
static void
test_own_save (void)
{
  g_autofree char *path = NULL;
  SpWindow *window = open_file ("own.py", "a = 1\n", &path);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  g_autofree char *text = NULL;
  GtkTextIter end;

  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert_interactive (buffer, &end, "\nb = 2", -1, TRUE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
  g_assert_true (sp_test_wait_for (not_modified, window, 10000));
  /* Typing right after the save, before the monitor's events are read. */
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert_interactive (buffer, &end, "\nc = 3", -1, TRUE);
  spin (1500);
  g_assert_null (sp_reload_bar_get_kind (sp_window_get_file_bar (window)));
  text = buffer_text (window);
  g_assert_cmpstr (text, ==, "a = 1\nb = 2\nc = 3\n");
  close_window (window);
}

static char *
output_text (SpWindow *window)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  GString *text = g_string_new (NULL);

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == SP_OUTPUT_STDOUT)
        g_string_append (text, sp_output_item_get_text (item));
    }
  return g_string_free (text, FALSE);
}

static gboolean
output_has (gpointer data)
{
  TextWait *wait = data;
  g_autofree char *text = output_text (wait->window);

  return strstr (text, wait->text) != NULL;
}

static void
test_run_on_change (void)
{
  g_autofree char *path = NULL;
  SpWindow *window = open_file ("rerun.py", "print('version', 1)\n", &path);
  TextWait v2 = { window, "version 2" };
  TextWait started = { window, "sleeping" };
  TextWait v3 = { window, "version 3" };
  g_auto (GStrv) remembered = NULL;
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  GSettings *settings = sp_application_get_settings (app);

  /* Off: an outside change reloads but does not run. */
  write_in_place (path, "print('version', 2)\n");
  spin (2000);
  g_assert_false (output_has (&v2));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run-on-change", NULL));
  g_assert_true (sp_window_get_run_on_change (window));
  remembered = g_settings_get_strv (settings, "run-on-change-files");
  g_assert_true (g_strv_contains ((const char *const *) remembered, uri));

  write_in_place (path, "print('version', 2)\nprint('again')\n");
  g_assert_true (sp_test_wait_for (output_has, &v2, 20000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));

  /* A long run is going when the file changes: it is stopped and the new
   * version runs (the old one would sleep for a minute). */
  replace_by_rename (path, "import time\nprint('sleeping', flush=True)\ntime.sleep(60)\n");
  g_assert_true (sp_test_wait_for (output_has, &started, 20000));
  g_assert_true (sp_window_get_running (window));
  replace_by_rename (path, "print('version', 3)\n");
  g_assert_true (sp_test_wait_for (output_has, &v3, 30000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));

  /* A save runs it too. */
  {
    TextWait v4 = { window, "saved 4" };
    GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));

    gtk_text_buffer_set_text (buffer, "print('saved', 4)", -1);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.save", NULL));
    g_assert_true (sp_test_wait_for (output_has, &v4, 30000));
    g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  }
  close_window (window);

  /* Remembered for the file: a new window on it has it on. */
  {
    g_autoptr (GFile) file = g_file_new_for_path (path);
    SpWindow *again = sp_window_new (app);
    TextWait loaded = { again, "print('saved', 4)\n" };

    sp_window_load_file (again, file);
    g_assert_true (sp_test_wait_for (has_text, &loaded, 10000));
    g_assert_true (sp_window_get_run_on_change (again));
    close_window (again);
  }
}

static gboolean
recent_has (gpointer data)
{
  TextWait *wait = data;
  GMenuModel *menu = sp_window_get_recent_menu (wait->window);

  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autoptr (GVariant) target
        = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET, NULL);
      if (target != NULL && g_str_equal (g_variant_get_string (target, NULL), wait->text))
        return TRUE;
    }
  return FALSE;
}

/* Files opened and saved are in Open Recent, in every window; choosing
 * one from a window that shows a file opens it in a new window. */
static void
test_recent (void)
{
  g_autofree char *path = NULL;
  SpWindow *window = open_file ("recent.py", "print('recent')\n", &path);
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  SpWindow *other = sp_window_new (app);
  TextWait in_menu = { other, uri };
  guint before = g_list_length (gtk_application_get_windows (GTK_APPLICATION (app)));

  g_assert_true (sp_test_wait_for (recent_has, &in_menu, 10000));
  in_menu.window = window;
  g_assert_true (sp_test_wait_for (recent_has, &in_menu, 10000));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.open-recent", "s", uri));
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==,
                    before + 1);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (l->data != (gpointer) window && l->data != (gpointer) other && SP_IS_WINDOW (l->data))
      {
        TextWait loaded = { l->data, "print('recent')\n" };
        g_assert_true (sp_test_wait_for (has_text, &loaded, 10000));
        close_window (l->data);
        break;
      }
  close_window (other);
  close_window (window);
}

/* An assistant's edit_and_execute (the real sandpad-mcp over stdio)
 * rewrites the open file: the window reloads it. */
static gboolean
assistant_status (gpointer data)
{
  GtkWidget *status = find_label (data, "sp-status");

  return status != NULL
         && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (status)), "Run by an assistant: ")
         && !g_str_has_suffix (gtk_label_get_text (GTK_LABEL (status)), "Running…");
}

static void
assistant_edit (const char *name, gboolean run_on_change)
{
  g_autofree char *ws = g_build_filename (tmp_dir, name, NULL);
  g_autofree char *path = g_build_filename (ws, "agent.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (path);
  const char *mcp = g_getenv ("SANDPAD_MCP");
  /* The journal is how the window knows the run (Run on Change); else
   * none is kept. */
  const char *argv[]
    = { mcp, "--workspace", ws, run_on_change ? NULL : "--journal-max", "0", NULL };
  const char *requests
    = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
      "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
      "\"clientInfo\":{\"name\":\"test-watch\",\"version\":\"1\"}}}\n"
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
      "{\"name\":\"edit_and_execute\",\"arguments\":{\"path\":\"agent.py\","
      "\"edits\":[{\"old_text\":\"before\",\"new_text\":\"after the assistant\"}]}}}\n";
  SpWindow *window = sp_window_new (app);
  TextWait loaded = { window, "print('before')\n" };
  TextWait edited = { window, "print('after the assistant')\n" };
  g_autoptr (GError) error = NULL;
  GPid pid;
  int in_fd = -1, out_fd = -1;

  g_assert_nonnull (mcp);
  g_assert_cmpint (g_mkdir (ws, 0755), ==, 0);
  write_in_place (path, loaded.text);
  /* Runs are made as nobody when sandpad-mcp is root: the workspace and
   * the file must be theirs (docs/mcp.md). */
  if (geteuid () == 0)
    {
      g_assert_cmpint (chown (ws, 65534, 65534), ==, 0);
      g_assert_cmpint (chown (path, 65534, 65534), ==, 0);
    }
  gtk_window_present (GTK_WINDOW (window));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (has_text, &loaded, 10000));
  if (run_on_change)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run-on-change", NULL));
      g_assert_true (sp_window_get_run_on_change (window));
    }
  spin (300);

  g_assert_true (g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                           NULL, NULL, &pid, &in_fd, &out_fd, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpint (write (in_fd, requests, strlen (requests)), ==, (gssize) strlen (requests));
  g_assert_true (sp_test_wait_for (has_text, &edited, 60000));
  g_assert_false (gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window))));
  g_assert_true (line_tagged (window, 1, "sandpad-changed-line"));
  if (run_on_change)
    {
      /* The assistant's run is the run of this change: shown, and not run
       * again by the window (issue 23; it ran twice). */
      gint64 until = g_get_monotonic_time () + 4 * G_USEC_PER_SEC;
      gboolean ran = FALSE;

      if (!sp_test_wait_for (assistant_status, window, 30000))
        g_test_message ("status: %s", gtk_label_get_text (
                                        GTK_LABEL (find_label (GTK_WIDGET (window), "sp-status"))));
      g_assert_true (assistant_status (window));
      while (g_get_monotonic_time () < until)
        {
          g_main_context_iteration (NULL, FALSE);
          ran = ran || sp_window_get_running (window);
        }
      g_assert_false (ran);
      g_assert_true (assistant_status (window));
    }
  /* End of input ends the server. */
  close (in_fd);
  close (out_fd);
  waitpid (pid, NULL, 0);
  g_spawn_close_pid (pid);
  close_window (window);
}

static void
test_assistant_edit (void)
{
  assistant_edit ("workspace", FALSE);
}

/* With Run on Change on, an assistant's edit_and_execute runs once. */
static void
test_assistant_edit_runs_once (void)
{
  assistant_edit ("workspace-roc", TRUE);
}

/* The bar as the README shows it: an assistant changed the file while the
 * editor had unsaved edits. */
static void
test_screenshot (void)
{
  g_autofree char *path = NULL;
  SpWindow *window = open_file ("fib.py",
                                "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
                                "\nprint([fib(i) for i in range(10)])\n",
                                &path);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  BarWait changed = { window, "changed" };
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *shot = NULL;
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  GtkSnapshot *snapshot;
  GtkTextIter end;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 560);
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert_interactive (buffer, &end, "\nprint(fib(20))", -1, TRUE);
  write_in_place (path, "from functools import cache\n\n@cache\ndef fib(n):\n"
                        "    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
                        "\nprint([fib(i) for i in range(10)])\n");
  g_assert_true (sp_test_wait_for (bar_shows, &changed, 10000));
  spin (800);
  paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  snapshot = gtk_snapshot_new ();
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (GTK_WIDGET (window)),
                          gtk_widget_get_height (GTK_WIDGET (window)));
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node, NULL);
  shot = g_build_filename (dir ? dir : g_get_tmp_dir (), "sandpad-reload-bar.png", NULL);
  g_assert_true (gdk_texture_save_to_png (texture, shot));
  g_test_message ("screenshot: %s", shot);
  close_window (window);
}

int
main (int argc, char **argv)
{
  g_autofree char *state = NULL;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  tmp_dir = g_dir_make_tmp ("sp-watch-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* Autosave copies and the session go to a folder of this test's own. */
  state = g_build_filename (tmp_dir, "state", NULL);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  /* Recent files too: never the account's own list. */
  {
    g_autofree char *data = g_build_filename (tmp_dir, "data", NULL);
    g_setenv ("XDG_DATA_HOME", data, TRUE);
  }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  g_test_add_func ("/Sandpad/Watch/reload", test_reload);
  g_test_add_func ("/Sandpad/Watch/unsaved-kept", test_unsaved_kept);
  g_test_add_func ("/Sandpad/Watch/replace-by-rename", test_replace_by_rename);
  g_test_add_func ("/Sandpad/Watch/deleted", test_deleted);
  g_test_add_func ("/Sandpad/Watch/renamed", test_renamed);
  g_test_add_func ("/Sandpad/Watch/moved-away", test_moved_away);
  g_test_add_func ("/Sandpad/Watch/own-save", test_own_save);
  g_test_add_func ("/Sandpad/Watch/run-on-change", test_run_on_change);
  g_test_add_func ("/Sandpad/Watch/recent", test_recent);
  g_test_add_func ("/Sandpad/Watch/assistant-edit", test_assistant_edit);
  g_test_add_func ("/Sandpad/Watch/assistant-edit-runs-once", test_assistant_edit_runs_once);
  g_test_add_func ("/Sandpad/Watch/screenshot", test_screenshot);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
