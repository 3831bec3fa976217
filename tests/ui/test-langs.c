/* test-langs.c: the compiled languages and Ruby (issue 27), R and Java
 * (issue 42) in a real window under Xvfb, against the real runner: the
 * language menu offers each and highlights it, a hello in each runs and
 * its output shows in the panel, and a compile error (Ruby: a syntax
 * error; R: an error in a function) marks its line in the editor and
 * says where. The languages come from SANDPAD_TEST_LANGS
 * (comma separated; Go's first compile is slow, so it has a test of its
 * own); one whose toolchain the runner lacks is skipped, saying so. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

typedef struct
{
  const char *name;      /* the runner's */
  const char *menu;      /* the menu's */
  const char *source_id; /* GtkSourceView's */
  const char *hello, *expect;
  const char *broken;
  int broken_line;
} LangCase;

static const LangCase cases[] = {
  { "c", "C", "c", "#include <stdio.h>\nint main(void) { puts(\"hello from C\"); return 0; }\n",
    "hello from C\n", "#include <stdio.h>\nint main(void) {\n  int x = 1;\n  return y;\n}\n", 4 },
  { "cpp", "C++", "cpp",
    "#include <iostream>\nint main() { std::cout << \"hello from C++\" << std::endl; }\n",
    "hello from C++\n",
    "#include <vector>\nint main() {\n  std::vector<int> v;\n  v.push_bakc(1);\n}\n", 4 },
  { "rust", "Rust", "rust", "fn main() { println!(\"hello from Rust\"); }\n", "hello from Rust\n",
    "fn main() {\n    let x = 1;\n    println!(\"{}\", y);\n}\n", 3 },
  { "go", "Go", "go",
    "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello from Go\") }\n",
    "hello from Go\n", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(y)\n}\n",
    6 },
  { "typescript", "TypeScript", "typescript",
    "const who: string = \"TypeScript\";\nconsole.log(`hello from ${who}`);\n",
    "hello from TypeScript\n", "const a: number = 1;\nconst b = a +;\n", 2 },
  { "ruby", "Ruby", "ruby", "puts \"hello from Ruby\"\n", "hello from Ruby\n", "puts 1\ndef x(\n",
    2 },
  /* Issue 42: R's error (stop() inside a function) marks the line of the
   * call that failed; Java's compile error (the source launcher's javac)
   * its line. */
  { "r", "R", "r", "cat(\"hello from R\\n\")\n", "hello from R\n",
    "f <- function() {\n  stop(\"boom\")\n}\nf()\n", 2 },
  { "java", "Java", "java",
    "public class Main {\n  public static void main(String[] a) {\n"
    "    System.out.println(\"hello from Java\");\n  }\n}\n",
    "hello from Java\n",
    "public class Main {\n  public static void main(String[] a) {\n    int x = \"s\";\n  }\n}\n",
    3 },
};

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

/* Whether a visible label under widget shows text (as part of it). */
static gboolean
shows_text (GtkWidget *widget, const char *text)
{
  if (!gtk_widget_get_visible (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget) && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (shows_text (child, text))
      return TRUE;
  return FALSE;
}

static char *
stdout_text (SpWindow *window)
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

/* Runs the editor's text; a compile from an empty cache is slow on a
 * loaded machine (Go's for 15 s and more). */
static void
run_and_wait (SpWindow *window)
{
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 5000) || !sp_window_get_running (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 280000));
}

typedef struct
{
  GtkWidget *panel;
  const char *text;
} ShowsWait;

static gboolean
panel_shows (gpointer data)
{
  ShowsWait *wait = data;
  return shows_text (wait->panel, wait->text);
}

static void
test_language (gconstpointer data)
{
  const LangCase *lc = data;
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *panel = sp_window_get_exec_panel (window);
  const char *const *have;
  GtkDropDown *dropdown;
  GListModel *menu;
  GtkSourceLanguage *source;
  guint index = G_MAXUINT;
  g_autofree char *out = NULL;
  g_autofree char *where = NULL;
  g_autofree char *none = NULL;
  g_autofree char *marked = NULL;
  g_autofree char *expect_marked = NULL;
  int line_before;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));

  /* The menu offers the language whatever this system has. */
  dropdown = GTK_DROP_DOWN (sp_ui_test_find_of_type (GTK_WIDGET (window), GTK_TYPE_DROP_DOWN));
  g_assert_nonnull (dropdown);
  menu = gtk_drop_down_get_model (dropdown);
  for (guint i = 0; i < g_list_model_get_n_items (menu); i++)
    if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (menu), i), lc->menu) == 0)
      index = i;
  g_assert_cmpuint (index, !=, G_MAXUINT);

  have = sp_runner_supervisor_get_languages (sp_application_get_supervisor (app));
  if (have == NULL || !g_strv_contains (have, lc->name))
    {
      g_autofree char *msg = g_strdup_printf ("%s's toolchain is not installed here", lc->name);
      close_window (window);
      g_test_skip (msg);
      return;
    }

  /* Chosen from the menu, it highlights the text as that language. */
  gtk_drop_down_set_selected (dropdown, index);
  source = gtk_source_buffer_get_language (sp_window_get_buffer (window));
  g_assert_nonnull (source);
  g_assert_cmpstr (gtk_source_language_get_id (source), ==, lc->source_id);

  /* A hello runs (compiled in the sandbox first) and shows its output. */
  gtk_text_buffer_set_text (buffer, lc->hello, -1);
  run_and_wait (window);
  out = stdout_text (window);
  g_assert_cmpstr (out, ==, lc->expect);
  {
    g_autofree char *first = g_strndup (lc->expect, strlen (lc->expect) - 1);
    ShowsWait wait = { panel, first };
    g_assert_true (sp_test_wait_for (panel_shows, &wait, 5000));
  }
  none = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (none, ==, "");

  /* A compile error marks its line in the editor, leaves the cursor where
   * it was (a person may be typing there) and says where in the panel. */
  gtk_text_buffer_set_text (buffer, lc->broken, -1);
  line_before = cursor_line (window);
  run_and_wait (window);
  g_assert_cmpint (cursor_line (window), ==, line_before);
  marked = sp_ui_test_marked_lines (window);
  expect_marked = g_strdup_printf ("%d", lc->broken_line);
  g_assert_cmpstr (marked, ==, expect_marked);
  where = g_strdup_printf ("in line %d", lc->broken_line);
  {
    ShowsWait wait = { panel, where };
    g_assert_true (sp_test_wait_for (panel_shows, &wait, 5000));
  }

  close_window (window);
}

int
main (int argc, char **argv)
{
  const char *only = g_getenv ("SANDPAD_TEST_LANGS");
  g_auto (GStrv) langs = g_strsplit (only ? only : "c,cpp,rust,typescript,ruby,r,java", ",", -1);
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    if (g_strv_contains ((const char *const *) langs, cases[i].name))
      {
        g_autofree char *path = g_strdup_printf ("/Sandpad/Langs/%s", cases[i].name);
        g_test_add_data_func (path, &cases[i], test_language);
      }
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
