/* test-activity-follow.c: an assistant's runs of a document's file,
 * without a display: only edit_and_execute runs of the file's canonical
 * path are the document's (not another file, another tool, nor an
 * untitled document's); each journal line appends only what is new, a
 * growing last chunk included; the run's error comes once, at its end;
 * another run, or a fresh start, gets a new model. */
#include "config.h"

#include <string.h>

#include "sp-activity-follow.h"
#include "sp-test-tree.h"

static SpActivityRun *
edit_run (const char *id, const char *tool, const char *path)
{
  SpActivityRun *run = _sp_activity_run_new (id);

  _sp_activity_run_set_start (run, tool, "python", path, path, "/ws", "2026-11-23T09:09:51.425Z",
                              4242);
  return run;
}

/* The model's text, a stream at a time: "o:" and "e:" before each row. */
static char *
shown (SpOutputModel *output)
{
  GString *text = g_string_new (NULL);
  guint n = g_list_model_get_n_items (G_LIST_MODEL (output));

  for (guint i = 0; i < n; i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (G_LIST_MODEL (output), i);

      g_string_append (text, sp_output_item_get_kind (item) == SP_OUTPUT_STDERR ? "e:" : "o:");
      g_string_append (text, sp_output_item_get_text (item));
      g_string_append (text, "|");
    }
  return g_string_free (text, FALSE);
}

static void
on_run_changed (SpActivityFollow *follow, SpActivityRun *run, guint *n)
{
  (*n)++;
}

static void
test_is_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-follow-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "prog.py", NULL);
  g_autofree char *other = g_build_filename (dir, "other.py", NULL);
  g_autofree char *roundabout = g_build_filename (dir, "sub", "..", "prog.py", NULL);
  g_autoptr (GFile) file = g_file_new_for_path (roundabout);
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  g_autoptr (SpDocument) untitled = sp_document_new (NULL);
  g_autoptr (SpDocument) document = sp_document_new (NULL);
  g_autoptr (SpActivityFollow) none = sp_activity_follow_new (model, untitled);
  g_autoptr (SpActivityFollow) follow = NULL;
  g_autoptr (SpActivityRun) edit = edit_run ("1-mcp-1", "edit_and_execute", path);
  g_autoptr (SpActivityRun) elsewhere = edit_run ("1-mcp-2", "edit_and_execute", other);
  g_autoptr (SpActivityRun) code = edit_run ("1-mcp-3", "execute_code", path);
  guint n = 0;

  g_assert_true (g_file_set_contents (path, "print(1)\n", -1, NULL));
  sp_document_set_file (document, file, NULL);
  follow = sp_activity_follow_new (model, document);
  g_assert_false (sp_activity_follow_is_file (none, edit));
  g_assert_true (sp_activity_follow_is_file (follow, edit));
  g_assert_false (sp_activity_follow_is_file (follow, elsewhere));
  g_assert_false (sp_activity_follow_is_file (follow, code));

  /* "run-changed" for the file's runs only, as the model adds them */
  g_signal_connect (follow, "run-changed", G_CALLBACK (on_run_changed), &n);
  g_signal_emit_by_name (model, "run-added", edit);
  g_signal_emit_by_name (model, "run-added", elsewhere);
  g_signal_emit_by_name (model, "run-added", code);
  _sp_activity_run_add_output (edit, FALSE, "a\n");
  _sp_activity_run_add_output (elsewhere, FALSE, "b\n");
  _sp_activity_run_add_output (code, FALSE, "c\n");
  g_assert_cmpuint (n, ==, 1);

  g_clear_object (&follow);
  g_clear_object (&none);
  sp_document_close (document, TRUE);
  sp_document_close (untitled, TRUE);
  sp_test_remove_tree (dir);
}

static void
test_update (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-follow-XXXXXX", NULL);
  g_autoptr (SpActivityModel) model = sp_activity_model_new (dir);
  g_autoptr (SpDocument) document = sp_document_new (NULL);
  g_autoptr (SpActivityFollow) follow = sp_activity_follow_new (model, document);
  g_autoptr (SpActivityRun) run = edit_run ("1-mcp-1", "edit_and_execute", "/ws/prog.py");
  g_autoptr (SpActivityRun) next = edit_run ("1-mcp-2", "edit_and_execute", "/ws/prog.py");
  g_autoptr (SpOutputModel) first = NULL;
  g_autofree char *text = NULL;

  g_assert_null (sp_activity_follow_get_output (follow));
  _sp_activity_run_add_output (run, FALSE, "one");
  g_assert_true (sp_activity_follow_update (follow, run, FALSE));
  first = g_object_ref (sp_activity_follow_get_output (follow));
  /* the last chunk grows: only its new bytes are appended */
  _sp_activity_run_add_output (run, FALSE, " two\n");
  g_assert_false (sp_activity_follow_update (follow, run, FALSE));
  _sp_activity_run_add_output (run, TRUE, "warn\n");
  g_assert_false (sp_activity_follow_update (follow, run, FALSE));
  _sp_activity_run_set_end (run, "exited", 1, 250, "ZeroDivisionError: division by zero", NULL,
                            NULL, NULL, NULL);
  g_assert_false (sp_activity_follow_update (follow, run, FALSE));
  /* the end again (another "changed"): nothing twice */
  g_assert_false (sp_activity_follow_update (follow, run, FALSE));
  g_assert_true (sp_activity_follow_get_output (follow) == first);
  text = shown (first);
  g_assert_cmpstr (text, ==, "o:one two\n|e:warn\n|e:ZeroDivisionError: division by zero\n|");

  /* a fresh start (the panel showed another run): a new model, all of it */
  g_assert_true (sp_activity_follow_update (follow, run, TRUE));
  g_assert_true (sp_activity_follow_get_output (follow) != first);
  g_clear_pointer (&text, g_free);
  text = shown (sp_activity_follow_get_output (follow));
  g_assert_cmpstr (text, ==, "o:one two\n|e:warn\n|e:ZeroDivisionError: division by zero\n|");

  /* another run: a new model of its own */
  _sp_activity_run_add_output (next, FALSE, "next\n");
  _sp_activity_run_set_end (next, "exited", 0, 10, NULL, NULL, NULL, NULL, NULL);
  g_assert_true (sp_activity_follow_update (follow, next, FALSE));
  g_clear_pointer (&text, g_free);
  text = shown (sp_activity_follow_get_output (follow));
  g_assert_cmpstr (text, ==, "o:next\n|");

  g_clear_object (&follow);
  sp_document_close (document, TRUE);
  sp_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/activity-follow/is-file", test_is_file);
  g_test_add_func ("/activity-follow/update", test_update);
  return g_test_run ();
}
