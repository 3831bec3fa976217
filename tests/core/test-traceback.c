/* test-traceback.c: error text made to point at the editor, on the real
 * tracebacks in tests/core/tracebacks: every place in the snippet is a
 * link to its line and says the user's name for the file; places in other
 * files stay text; everything else is escaped, never lost. */
#include "config.h"

#include "sp-traceback.h"

static char *
fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("SANDPAD_TRACEBACKS"), name, NULL);
  g_autoptr (GError) error = NULL;
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  return text;
}

static guint
count (const char *haystack, const char *needle)
{
  guint n = 0;

  for (const char *p = strstr (haystack, needle); p != NULL; p = strstr (p + 1, needle))
    n++;
  return n;
}

static void
test_python (void)
{
  g_autofree char *text = fixture ("python-nested.txt");
  g_autofree char *markup = sp_traceback_to_markup (text, "main.py", "Untitled");

  g_assert_nonnull (markup);
  g_test_message ("%s", markup);
  g_assert_nonnull (strstr (markup, "<a href=\"line:7\">File &quot;Untitled&quot;, line 7</a>, "
                                    "in &lt;module&gt;"));
  g_assert_nonnull (strstr (markup, "<a href=\"line:2\">File &quot;Untitled&quot;, line 2</a>"));
  g_assert_nonnull (strstr (markup, "<a href=\"line:5\">File &quot;Untitled&quot;, line 5</a>"));
  g_assert_cmpuint (count (markup, "<a "), ==, 3);
  g_assert_null (strstr (markup, "/code/"));
  /* The rest is all there, escaped. */
  g_assert_nonnull (strstr (markup, "    return 1 / 0\n           ~~^~~\n"
                                    "ZeroDivisionError: division by zero"));
}

/* A saved snippet runs under its own name; library files are not links. */
static void
test_python_library_frame (void)
{
  const char *text = "Traceback (most recent call last):\n"
                     "  File \"/code/stats.py\", line 3, in <module>\n"
                     "    json.loads('{')\n"
                     "  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n"
                     "    return _default_decoder.decode(s)\n"
                     "json.decoder.JSONDecodeError: Expecting property name: line 1 column 2\n";
  g_autofree char *markup = sp_traceback_to_markup (text, "stats.py", "stats.py");

  g_assert_nonnull (markup);
  g_assert_nonnull (strstr (markup, "<a href=\"line:3\">File &quot;stats.py&quot;, line 3</a>"));
  g_assert_nonnull (strstr (markup, "File &quot;/usr/lib/python3.11/json/__init__.py&quot;, "
                                    "line 346, in loads"));
  g_assert_cmpuint (count (markup, "<a "), ==, 1);
}

static void
test_node (void)
{
  g_autofree char *text = fixture ("node-typeerror.txt");
  g_autofree char *markup = sp_traceback_to_markup (text, "main.js", "Untitled");

  g_assert_nonnull (markup);
  g_test_message ("%s", markup);
  g_assert_true (g_str_has_prefix (markup, "<a href=\"line:3\">Untitled:3</a>\n"));
  g_assert_nonnull (strstr (markup, "(<a href=\"line:3\">Untitled:3:15</a>)"));
  g_assert_nonnull (strstr (markup, "(node:internal/modules/cjs/loader:1521:14)"));
  g_assert_cmpuint (count (markup, "<a "), ==, 2);
}

static void
test_bash (void)
{
  g_autofree char *text = fixture ("bash-command.txt");
  g_autofree char *markup = sp_traceback_to_markup (text, "main.sh", "tool.sh");

  g_assert_nonnull (markup);
  g_assert_true (g_str_has_prefix (markup, "<a href=\"line:3\">tool.sh: line 3</a>: frobnicate"));
}

/* Fallback mode runs the snippet from a host path: the same links. */
static void
test_host_path (void)
{
  const char *text = "  File \"/tmp/sandpad-runs/r7/code/main.py\", line 12, in f\n";
  g_autofree char *markup = sp_traceback_to_markup (text, "main.py", "Untitled");

  g_assert_cmpstr (markup, ==,
                   "  <a href=\"line:12\">File &quot;Untitled&quot;, line 12</a>, in f\n");
}

static void
test_nothing_to_link (void)
{
  g_assert_null (sp_traceback_to_markup ("plain <text> on stderr\n", "main.py", "Untitled"));
  g_assert_null (sp_traceback_to_markup ("  File \"/usr/lib/x.py\", line 1\n", "main.py", "x"));
  g_assert_null (sp_traceback_to_markup ("File \"/code/main.py\", line 1\n", NULL, NULL));
}

/* Plain text for a view without links (the Activity window, issue 23):
 * the sandbox's path of the file becomes its name, other files stay. */
static void
test_rename (void)
{
  g_autofree char *renamed = sp_traceback_rename (
    "Traceback (most recent call last):\n  File \"/code/prog.py\", line 1, in <module>\n"
    "  File \"/usr/lib/python3.11/x.py\", line 9, in f\nZeroDivisionError: division by zero\n",
    "prog.py", "prog.py");
  g_autofree char *same = sp_traceback_rename ("nothing <here>\n", "prog.py", "prog.py");

  g_assert_cmpstr (renamed, ==,
                   "Traceback (most recent call last):\n  File \"prog.py\", line 1, in <module>\n"
                   "  File \"/usr/lib/python3.11/x.py\", line 9, in f\n"
                   "ZeroDivisionError: division by zero\n");
  g_assert_cmpstr (same, ==, "nothing <here>\n");
}

static void
test_link_line (void)
{
  g_assert_cmpint (sp_traceback_link_line ("line:42"), ==, 42);
  g_assert_cmpint (sp_traceback_link_line ("line:0"), ==, 0);
  g_assert_cmpint (sp_traceback_link_line ("line:4x"), ==, 0);
  g_assert_cmpint (sp_traceback_link_line ("line:"), ==, 0);
  g_assert_cmpint (sp_traceback_link_line ("https://example.org"), ==, 0);
  g_assert_cmpint (sp_traceback_link_line (NULL), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Traceback/python", test_python);
  g_test_add_func ("/Sandpad/Traceback/rename", test_rename);
  g_test_add_func ("/Sandpad/Traceback/python-library-frame", test_python_library_frame);
  g_test_add_func ("/Sandpad/Traceback/node", test_node);
  g_test_add_func ("/Sandpad/Traceback/bash", test_bash);
  g_test_add_func ("/Sandpad/Traceback/host-path", test_host_path);
  g_test_add_func ("/Sandpad/Traceback/nothing-to-link", test_nothing_to_link);
  g_test_add_func ("/Sandpad/Traceback/link-line", test_link_line);
  return g_test_run ();
}
