/* test-activity-model.c: the journal follower reads start, output and end
 * lines as they are appended (a half-written line waits for its end),
 * loses nothing across a rotation, skips damaged lines (and lines the
 * journal's strict decoder refuses) with a count, marks
 * a run of a vanished server as lost, follows the file through its
 * monitor, and writes Stop requests where sandpad-mcp looks. */
#include "config.h"

#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp-activity-model.h"
#include "sp-journal.h"
#include "sp-test-tree.h"

static char *
make_dir (void)
{
  char *dir = g_dir_make_tmp ("sp-activity-XXXXXX", NULL);

  g_assert_nonnull (dir);
  return dir;
}

static void
append (const char *dir, const char *name, const char *text)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  int fd = g_open (path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, text, strlen (text)), ==, (ssize_t) strlen (text));
  close (fd);
}

static char *
output_text (SpActivityRun *run, gboolean is_stderr)
{
  GArray *chunks = sp_activity_run_get_output (run);
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < chunks->len; i++)
    {
      SpActivityChunk *c = &g_array_index (chunks, SpActivityChunk, i);
      if (c->is_stderr == is_stderr)
        g_string_append (text, c->text);
    }
  return g_string_free (text, FALSE);
}

#define PID "\"server_pid\":%d"
#define TIME "\"time\":\"2026-11-23T10:00:00.000Z\""

/* Lines as sandpad-mcp writes them, every key there (docs/journal.md). */
static char *
start_line (const char *run, const char *code)
{
  return g_strdup_printf ("{\"v\":1,\"event\":\"start\",\"run\":\"%s\"," TIME
                          ",\"tool\":\"execute_code\"," PID ",\"workspace\":null,"
                          "\"input\":{\"language\":\"python\",\"code\":\"%s\"}}\n",
                          run, (int) getpid (), code);
}

static char *
command_start_line (const char *run, int pid, const char *command)
{
  return g_strdup_printf ("{\"v\":1,\"event\":\"start\",\"run\":\"%s\"," TIME
                          ",\"tool\":\"execute_command\"," PID ",\"workspace\":\"/w\","
                          "\"input\":{\"command\":\"%s\"}}\n",
                          run, pid, command);
}

static void
test_lines (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  g_autofree char *start = start_line ("1-mcp-1", "print(1)");
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *end = g_strdup_printf (
    "{\"v\":1,\"event\":\"end\",\"run\":\"1-mcp-1\"," TIME ",\"tool\":\"execute_code\"," PID
    ",\"workspace\":null,\"input\":{\"language\":\"python\",\"code\":\"print(1)\"},"
    "\"end\":\"exited\",\"exit_code\":3,\"signal\":null,\"stdout\":\"a\\nb\\n\",\"stderr\":\"\","
    "\"stdout_bytes\":4,\"stderr_bytes\":0,\"stdout_truncated\":false,\"stderr_truncated\":false,"
    "\"duration_ms\":250,\"cpu_ms\":200,\"peak_memory_bytes\":1000,"
    "\"error\":{\"type\":\"ValueError\",\"message\":\"bad\",\"line\":1,\"frames\":[]},"
    "\"files\":[{\"path\":\"plot-1.png\",\"size\":10,\"mime\":\"image/png\",\"created\":true}],"
    "\"files_truncated\":false}\n",
    (int) getpid ());
  SpActivityRun *run;

  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 0);
  append (dir, "live.jsonl", start);
  append (dir, "live.jsonl",
          "{\"v\":1,\"event\":\"output\",\"run\":\"1-mcp-1\",\"stream\":\"stdout\","
          "\"text\":\"a\\n\"}\n");
  /* half a line: it waits for the rest */
  append (dir, "live.jsonl", "{\"v\":1,\"event\":\"output\",\"run\":\"1-mcp-1\",\"str");
  sp_activity_model_poll (model);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  run = sp_activity_model_find (model, "1-mcp-1");
  g_assert_nonnull (run);
  g_assert_true (sp_activity_run_is_running (run));
  g_assert_cmpstr (sp_activity_run_get_source (run), ==, "print(1)");
  g_assert_cmpstr (sp_activity_run_get_language (run), ==, "python");
  out = output_text (run, FALSE);
  g_assert_cmpstr (out, ==, "a\n");
  g_clear_pointer (&out, g_free);

  append (dir, "live.jsonl", "eam\":\"stderr\",\"text\":\"warn\\n\"}\n");
  append (dir, "live.jsonl",
          "{\"v\":1,\"event\":\"output\",\"run\":\"1-mcp-1\",\"stream\":\"stdout\","
          "\"text\":\"b\\n\"}\n");
  append (dir, "live.jsonl", end);
  sp_activity_model_poll (model);
  out = output_text (run, FALSE);
  err = output_text (run, TRUE);
  g_assert_cmpstr (out, ==, "a\nb\n");
  g_assert_cmpstr (err, ==, "warn\n");
  g_assert_false (sp_activity_run_is_running (run));
  g_assert_cmpstr (sp_activity_run_get_end (run), ==, "exited");
  g_assert_cmpint (sp_activity_run_get_exit_code (run), ==, 3);
  g_assert_cmpstr (sp_activity_run_get_error (run), ==, "ValueError: bad");
  g_assert_cmpstr (sp_activity_run_get_files (run)[0], ==, "plot-1.png");
  g_assert_cmpuint (sp_activity_model_get_skipped (model), ==, 0);
  sp_test_remove_tree (dir);
}

/* A C run (with env, input files and displays in its lines) and a
 * code_execution run, as sandpad-mcp writes them: both are shown like
 * any execute_code run, code_execution's own result names read as the
 * same fields. */
static void
test_languages_and_code_execution (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  const char *c_input = "\"input\":{\"language\":\"c\",\"code\":\"int main (void) { return 3; }\","
                        "\"env\":{\"TOKEN\":\"\"},\"files\":[{\"path\":\"in.txt\"}]}";
  const char *ce_input = "\"input\":{\"language\":\"python\",\"code\":\"print(1)\","
                         "\"environment\":{\"TOKEN\":\"\"},\"return_base64\":true}";
  g_autofree char *lines = g_strdup_printf (
    "{\"v\":1,\"event\":\"start\",\"run\":\"1-mcp-1\"," TIME ",\"tool\":\"execute_code\"," PID
    ",\"workspace\":null,%s}\n"
    "{\"v\":1,\"event\":\"end\",\"run\":\"1-mcp-1\"," TIME ",\"tool\":\"execute_code\"," PID
    ",\"workspace\":null,%s,\"end\":\"exited\",\"exit_code\":3,\"signal\":null,"
    "\"stdout\":\"\",\"stderr\":\"\",\"stdout_bytes\":0,\"stderr_bytes\":0,"
    "\"stdout_truncated\":false,\"stderr_truncated\":false,\"duration_ms\":40,\"cpu_ms\":30,"
    "\"peak_memory_bytes\":1000,\"files\":[],\"files_truncated\":false,"
    "\"displays\":[{\"mime_types\":[\"text/plain\"],\"stdout_offset\":0,\"text\":\"4\"}]}\n"
    "{\"v\":1,\"event\":\"start\",\"run\":\"1-mcp-2\"," TIME ",\"tool\":\"code_execution\"," PID
    ",\"workspace\":null,%s}\n"
    "{\"v\":1,\"event\":\"end\",\"run\":\"1-mcp-2\"," TIME ",\"tool\":\"code_execution\"," PID
    ",\"workspace\":null,%s,\"exit_code\":0,\"stdout\":\"1\\n\",\"stderr\":\"\","
    "\"base64_output_bytes\":1200,\"execution_time_ms\":124,\"memory_usage_mb\":18.5,"
    "\"cpu_usage_percent\":46.0,\"created_files\":[{\"path\":\"plot.png\",\"size_bytes\":900,"
    "\"mime_type\":\"image/png\",\"created_at\":\"2026-11-23T10:00:00.000Z\"}],"
    "\"installed_packages\":[],\"security_validation\":{\"allowed\":true,\"risk_level\":\"Low\","
    "\"blocked_operations\":[],\"warnings\":[],\"scan_duration_ms\":40},\"end\":\"exited\","
    "\"performance_metrics\":{\"sandbox_setup_time_ms\":10,\"code_validation_time_ms\":40,"
    "\"execution_time_ms\":124,\"result_processing_time_ms\":1,\"total_time_ms\":180}}\n",
    (int) getpid (), c_input, (int) getpid (), c_input, (int) getpid (), ce_input, (int) getpid (),
    ce_input);
  SpActivityRun *run;

  append (dir, "live.jsonl", lines);
  sp_activity_model_poll (model);
  g_assert_cmpuint (sp_activity_model_get_skipped (model), ==, 0);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);
  run = sp_activity_model_find (model, "1-mcp-1");
  g_assert_nonnull (run);
  g_assert_cmpstr (sp_activity_run_get_language (run), ==, "c");
  g_assert_cmpstr (sp_activity_run_get_source (run), ==, "int main (void) { return 3; }");
  g_assert_false (sp_activity_run_is_running (run));
  g_assert_cmpint (sp_activity_run_get_exit_code (run), ==, 3);
  run = sp_activity_model_find (model, "1-mcp-2");
  g_assert_nonnull (run);
  g_assert_cmpstr (sp_activity_run_get_tool (run), ==, "code_execution");
  g_assert_cmpstr (sp_activity_run_get_language (run), ==, "python");
  g_assert_cmpstr (sp_activity_run_get_source (run), ==, "print(1)");
  g_assert_false (sp_activity_run_is_running (run));
  g_assert_cmpstr (sp_activity_run_get_end (run), ==, "exited");
  g_assert_cmpint (sp_activity_run_get_exit_code (run), ==, 0);
  g_assert_cmpint (sp_activity_run_get_duration_ms (run), ==, 124);
  g_assert_cmpstr (sp_activity_run_get_files (run)[0], ==, "plot.png");
  sp_test_remove_tree (dir);
}

/* Lines appended to the old file after the last read, then the rename,
 * then a new file: every run is there, in order. */
/* The edit_and_execute run that explains a change of a file on disk
 * (issue 23: Run on Change ran an assistant's edit a second time): by the
 * file's canonical path, started at the time asked or later; other tools
 * and other files never count. */
static void
test_find_edit (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  g_autofree char *code = start_line ("1-mcp-1", "print(1)");
  g_autofree char *edit
    = g_strdup_printf ("{\"v\":1,\"event\":\"start\",\"run\":\"1-mcp-2\"," TIME
                       ",\"tool\":\"edit_and_execute\"," PID ",\"workspace\":\"/w\","
                       "\"input\":{\"path\":\"sub/../agent.py\",\"edits\":1}}\n",
                       (int) getpid ());
  g_autoptr (GDateTime) at = g_date_time_new_from_iso8601 ("2026-11-23T10:00:00.000Z", NULL);
  gint64 at_us = g_date_time_to_unix (at) * G_USEC_PER_SEC;
  SpActivityRun *found;

  append (dir, "live.jsonl", code);
  append (dir, "live.jsonl", edit);
  sp_activity_model_poll (model);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);
  found = sp_activity_model_find_edit (model, "/w/agent.py", at_us - G_USEC_PER_SEC);
  g_assert_nonnull (found);
  g_assert_cmpstr (sp_activity_run_get_id (found), ==, "1-mcp-2");
  g_assert_true (sp_activity_model_find_edit (model, "/w/agent.py", at_us) == found);
  /* Started before the change: it is not what changed the file. */
  g_assert_null (sp_activity_model_find_edit (model, "/w/agent.py", at_us + 1));
  g_assert_null (sp_activity_model_find_edit (model, "/w/other.py", 0));
  g_assert_null (sp_activity_model_find_edit (model, "print(1)", 0));
  /* Its language is the file's, by the extension, as sandpad-mcp tells
   * it (it was labelled "shell"). */
  g_assert_cmpstr (sp_activity_run_get_language (found), ==, "python");
  sp_test_remove_tree (dir);
}

/* A run's time as a person reads it: local, and how long ago (it was the
 * journal's raw UTC string). */
static void
test_format_time (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  g_autofree char *code = start_line ("1-mcp-1", "print(1)");
  g_autoptr (GDateTime) at = g_date_time_new_from_iso8601 ("2026-11-23T10:00:00.000Z", NULL);
  g_autoptr (GDateTime) local = g_date_time_to_local (at);
  g_autofree char *clock = g_date_time_format (local, "%X");
  g_autoptr (GDateTime) soon = g_date_time_add_seconds (at, 20);
  g_autoptr (GDateTime) later = g_date_time_add_minutes (at, 5);
  g_autoptr (GDateTime) next_week = g_date_time_add_days (at, 7);
  g_autofree char *s1 = NULL, *s2 = NULL, *s3 = NULL, *expected = NULL;
  SpActivityRun *run;

  append (dir, "live.jsonl", code);
  sp_activity_model_poll (model);
  run = sp_activity_model_find (model, "1-mcp-1");
  g_assert_nonnull (run);
  s1 = sp_activity_run_format_time (run, soon);
  s2 = sp_activity_run_format_time (run, later);
  s3 = sp_activity_run_format_time (run, next_week);
  g_test_message ("%s | %s | %s", s1, s2, s3);
  expected = g_strdup_printf ("%s, just now", clock);
  g_assert_cmpstr (s1, ==, expected);
  g_clear_pointer (&expected, g_free);
  expected = g_strdup_printf ("%s, 5 minutes ago", clock);
  g_assert_cmpstr (s2, ==, expected);
  /* Another day: the date too. */
  g_assert_true (g_str_has_suffix (s3, "7 days ago"));
  g_assert_cmpuint (strlen (s3), >, strlen (s2) - strlen ("5 minutes ago") + 4);
  g_assert_null (strstr (s3, "2026-11-23T"));
  sp_test_remove_tree (dir);
}

static void
test_rotation (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  g_autofree char *a = start_line ("1-mcp-1", "a");
  g_autofree char *b = start_line ("1-mcp-2", "b");
  g_autofree char *c = start_line ("1-mcp-3", "c");
  g_autofree char *live = g_build_filename (dir, "live.jsonl", NULL);
  g_autofree char *old = g_build_filename (dir, "live.1.jsonl", NULL);

  append (dir, "live.jsonl", a);
  sp_activity_model_poll (model);
  append (dir, "live.jsonl", b);
  g_assert_cmpint (g_rename (live, old), ==, 0);
  append (dir, "live.jsonl", c);
  sp_activity_model_poll (model);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 3);
  g_assert_nonnull (sp_activity_model_find (model, "1-mcp-2"));
  g_assert_cmpstr (sp_activity_run_get_source (sp_activity_model_find (model, "1-mcp-3")), ==, "c");
  /* and again, with the new file read to its end before the rename */
  g_assert_cmpint (g_rename (live, old), ==, 0);
  sp_activity_model_poll (model);
  {
    g_autofree char *d = start_line ("1-mcp-4", "d");
    append (dir, "live.jsonl", d);
  }
  sp_activity_model_poll (model);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 4);
  g_assert_cmpuint (sp_activity_model_get_skipped (model), ==, 0);
  sp_test_remove_tree (dir);
}

static void
test_damaged (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = NULL;
  g_autofree char *good = start_line ("1-mcp-9", "ok");
  g_autofree char *huge = g_strnfill (SP_ACTIVITY_LINE_MAX + 10, 'x');
  g_autofree char *newer = start_line ("1-mcp-7", "newer");
  g_autofree char *extra = start_line ("1-mcp-6", "extra");

  /* Lines the strict decoder refuses that a lax reader would take for
   * runs: a newer version's, an unknown key, an unknown stream. */
  G_STATIC_ASSERT (SP_JOURNAL_VERSION < 9);
  newer[strlen ("{\"v\":")] = (char) ('0' + SP_JOURNAL_VERSION + 1);
  memcpy (strstr (extra, "\"workspace\""), "\"workspacE\"", strlen ("\"workspacE\""));
  append (dir, "live.jsonl", newer);
  append (dir, "live.jsonl", extra);
  append (dir, "live.jsonl",
          "{\"v\":1,\"event\":\"output\",\"run\":\"1-mcp-5\",\"stream\":\"stdlog\","
          "\"text\":\"x\"}\n");
  append (dir, "live.jsonl", "not json at all\n");
  append (dir, "live.jsonl", "[1,2,3]\n");
  append (dir, "live.jsonl", "{\"event\":\"start\"}\n");
  append (dir, "live.jsonl", "\xff\xfe\x01{\n");
  append (dir, "live.jsonl", huge);
  append (dir, "live.jsonl", "\n");
  append (dir, "live.jsonl", "{\"v\":1,\"event\":\"future-thing\",\"run\":\"1-mcp-8\"}\n");
  append (dir, "live.jsonl", good);
  model = sp_activity_model_new (dir);
  g_assert_cmpuint (sp_activity_model_get_skipped (model), ==, 9);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  g_assert_nonnull (sp_activity_model_find (model, "1-mcp-9"));
  sp_test_remove_tree (dir);
}

/* A run whose server is gone (a pid that no longer exists) is lost, not
 * running forever. */
static void
test_lost (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = NULL;
  g_autofree char *line = NULL;
  SpActivityRun *run;
  pid_t gone = fork ();

  /* a process that existed and is reaped: its pid names nobody now */
  if (gone == 0)
    _exit (0);
  g_assert_cmpint (gone, >, 0);
  g_assert_cmpint (waitpid (gone, NULL, 0), ==, gone);
  line = command_start_line ("7-mcp-1", (int) gone, "ls");
  append (dir, "live.jsonl", line);
  model = sp_activity_model_new (dir);
  run = sp_activity_model_find (model, "7-mcp-1");
  g_assert_nonnull (run);
  g_assert_false (sp_activity_run_is_running (run));
  g_assert_cmpstr (sp_activity_run_get_end (run), ==, "lost");
  g_assert_cmpstr (sp_activity_run_get_source (run), ==, "ls");

  /* and a server killed while its run goes, after the model read it */
  {
    g_autoptr (GSubprocess) server = g_subprocess_new (G_SUBPROCESS_FLAGS_NONE, NULL, "sleep",
                                                       "600", NULL);
    g_autofree char *live = NULL;
    g_autofree char *run_name = NULL;
    SpActivityRun *killed;
    gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

    g_assert_nonnull (server);
    run_name = g_strdup_printf ("%s-mcp-1", g_subprocess_get_identifier (server));
    live = command_start_line (run_name, atoi (g_subprocess_get_identifier (server)), "x");
    append (dir, "live.jsonl", live);
    sp_activity_model_poll (model);
    killed = g_list_model_get_item (G_LIST_MODEL (model), 1);
    g_object_unref (killed); /* the model keeps it */
    g_assert_true (sp_activity_run_is_running (killed));
    g_subprocess_force_exit (server);
    g_assert_true (g_subprocess_wait (server, NULL, NULL));
    while (sp_activity_run_is_running (killed) && g_get_monotonic_time () < deadline)
      g_main_context_iteration (NULL, FALSE), g_usleep (10000);
    g_assert_cmpstr (sp_activity_run_get_end (killed), ==, "lost");
  }
  sp_test_remove_tree (dir);
}

static gboolean
has_runs (gpointer data)
{
  return g_list_model_get_n_items (data) >= 2;
}

/* Through the monitor, no poll by hand; and Stop writes the request. */
static void
test_monitor_and_stop (void)
{
  g_autofree char *dir = make_dir ();
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  g_autofree char *a = start_line ("1-mcp-1", "a");
  g_autofree char *b = start_line ("1-mcp-2", "b");
  g_autofree char *request = g_build_filename (dir, "cancel", "1-mcp-2", NULL);
  g_autoptr (GError) error = NULL;
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  append (dir, "live.jsonl", a);
  append (dir, "live.jsonl", b);
  while (!has_runs (model) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE), g_usleep (1000);
  g_assert_true (has_runs (model));

  g_assert_true (sp_activity_model_request_stop (model, "1-mcp-2", &error));
  g_assert_no_error (error);
  g_assert_true (g_file_test (request, G_FILE_TEST_IS_REGULAR));
  g_assert_false (sp_activity_model_request_stop (model, "1-mcp-404", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  sp_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/activity/lines", test_lines);
  g_test_add_func ("/activity/languages-and-code-execution", test_languages_and_code_execution);
  g_test_add_func ("/activity/rotation", test_rotation);
  g_test_add_func ("/activity/find-edit", test_find_edit);
  g_test_add_func ("/activity/format-time", test_format_time);
  g_test_add_func ("/activity/damaged", test_damaged);
  g_test_add_func ("/activity/lost", test_lost);
  g_test_add_func ("/activity/monitor-and-stop", test_monitor_and_stop);
  return g_test_run ();
}
