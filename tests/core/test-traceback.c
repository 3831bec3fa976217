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

/* The compilers' diagnostics (issue 38, item 6), captured from the real
 * compilers with the runner's flags (gcc 12.2, g++ 12.2, clang 14, rustc
 * 1.95, go 1.19, esbuild 0.17, ruby 3.1), the source at /code/ as in the
 * sandbox. Each place in the snippet is a link that says the person's
 * name for the file, and the sandbox's path is gone. */
static char *
compile_markup (const char *fixture_name, const char *snippet_name, const char *display_name)
{
  g_autofree char *text = fixture (fixture_name);
  char *markup = sp_traceback_to_markup (text, snippet_name, display_name);

  g_assert_nonnull (markup);
  g_test_message ("%s", markup);
  g_assert_null (strstr (markup, "/code/"));
  return markup;
}

static void
test_gcc (void)
{
  g_autofree char *markup = compile_markup ("compile-gcc.txt", "hello.c", "hello.c");
  g_autofree char *untitled = compile_markup ("compile-gcc.txt", "hello.c", "Untitled");

  /* The header names no line: renamed, not a link. */
  g_assert_true (g_str_has_prefix (markup, "hello.c: In function ‘main’:\n"
                                           "<a href=\"line:5\">hello.c:5:18</a>: error: "));
  g_assert_nonnull (strstr (markup, "\n<a href=\"line:6\">hello.c:6:11</a>: error: expected"));
  g_assert_nonnull (strstr (markup, "\n<a href=\"line:4\">hello.c:4:7</a>: warning: unused"));
  g_assert_cmpuint (count (markup, "<a "), ==, 4);
  g_assert_true (g_str_has_prefix (untitled, "Untitled: In function ‘main’:\n"
                                             "<a href=\"line:5\">Untitled:5:18</a>: error: "));
}

static void
test_gpp (void)
{
  g_autofree char *markup = compile_markup ("compile-gpp.txt", "hello.cpp", "hello.cpp");

  g_assert_true (g_str_has_prefix (markup, "hello.cpp: In function ‘int main()’:\n"
                                           "<a href=\"line:5\">hello.cpp:5:18</a>: error: "));
  g_assert_cmpuint (count (markup, "<a "), ==, 3);
}

static void
test_clang (void)
{
  g_autofree char *markup = compile_markup ("compile-clang.txt", "hello.c", "hello.c");

  g_assert_true (g_str_has_prefix (markup, "<a href=\"line:5\">hello.c:5:18</a>: error: use of "));
  g_assert_nonnull (strstr (markup, "\n<a href=\"line:6\">hello.c:6:11</a>: error: expected"));
  /* The quoted source lines and the carets stay as they are. */
  g_assert_nonnull (strstr (markup, "\n  printf(&quot;%d\\n&quot;, m);\n"));
  g_assert_cmpuint (count (markup, "<a "), ==, 2);
}

static void
test_rustc (void)
{
  g_autofree char *markup = compile_markup ("compile-rustc.txt", "hello.rs", "hello.rs");

  g_assert_nonnull (strstr (markup, "\n --&gt; <a href=\"line:3\">hello.rs:3:20</a>\n"));
  g_assert_cmpuint (count (markup, "<a "), ==, 1);
}

/* go build trims the source's folder: "./hello.go:7:14". */
static void
test_go (void)
{
  g_autofree char *markup = compile_markup ("compile-go.txt", "hello.go", "Untitled");

  g_assert_cmpstr (markup, ==,
                   "# command-line-arguments\n"
                   "<a href=\"line:6\">Untitled:6:2</a>: n declared but not used\n"
                   "<a href=\"line:7\">Untitled:7:14</a>: undefined: m\n");
}

/* esbuild names the source from the run's working directory. */
static void
test_esbuild (void)
{
  g_autofree char *markup = compile_markup ("compile-esbuild.txt", "hello.ts", "hello.ts");

  g_assert_nonnull (strstr (markup, "\n    <a href=\"line:4\">hello.ts:4:29</a>:\n"));
  g_assert_null (strstr (markup, "../code"));
  g_assert_cmpuint (count (markup, "<a "), ==, 1);
}

static void
test_ruby (void)
{
  g_autofree char *markup = compile_markup ("ruby-nameerror.txt", "hello.rb", "hello.rb");
  g_autofree char *syntax = compile_markup ("ruby-syntax.txt", "syn.rb", "syn.rb");

  g_assert_true (g_str_has_prefix (markup, "<a href=\"line:2\">hello.rb:2</a>:in `greet"));
  g_assert_nonnull (strstr (markup, "\tfrom <a href=\"line:5\">hello.rb:5</a>:in `&lt;main&gt;"));
  g_assert_cmpuint (count (markup, "<a "), ==, 2);
  g_assert_true (g_str_has_prefix (syntax, "<a href=\"line:4\">syn.rb:4</a>: syntax error, "));
}

/* R through the runner's driver and Java through the source launcher
 * (issue 42; R 4.2, OpenJDK 17), captured from sandpad-run. */
static void
test_r_java (void)
{
  g_autofree char *r = compile_markup ("r-error.txt", "hello.R", "hello.R");
  g_autofree char *r_syntax = compile_markup ("r-syntax.txt", "syn.R", "syn.R");
  g_autofree char *java = compile_markup ("java-exception.txt", "Hello.java", "Hello.java");
  g_autofree char *javac = compile_markup ("java-compile.txt", "Syn.java", "Untitled");

  g_assert_nonnull (strstr (r, "\n  at <a href=\"line:4\">hello.R:4</a> in g\n"));
  g_assert_nonnull (strstr (r, "\n  at <a href=\"line:5\">hello.R:5</a>"));
  g_assert_cmpuint (count (r, "<a "), ==, 3);
  g_assert_true (
    g_str_has_prefix (r_syntax, "Error: <a href=\"line:2\">syn.R:2:3</a>: unexpected"));
  g_assert_nonnull (strstr (java, "\tat Main.f(<a href=\"line:4\">Hello.java:4</a>)\n"));
  g_assert_cmpuint (count (java, "<a "), ==, 2);
  g_assert_true (g_str_has_prefix (javac, "<a href=\"line:3\">Untitled:3</a>: error: "));
}

/* Another file's places and headers (a system header) stay as they are;
 * so does a path that merely ends like the snippet's name. */
static void
test_compile_other_files (void)
{
  const char *text = "/usr/include/stdio.h: In function ‘f’:\n"
                     "/usr/include/stdio.h:356:12: note: expected ‘const char *’\n"
                     "/code/main.c:3:9: error: too few arguments\n"
                     "/code/xmain.c:4:1: error: elsewhere\n"
                     "main.c:(.text+0x1b): undefined reference to `foo'\n";
  g_autofree char *markup = sp_traceback_to_markup (text, "main.c", "Untitled");

  g_assert_cmpstr (markup, ==,
                   "/usr/include/stdio.h: In function ‘f’:\n"
                   "/usr/include/stdio.h:356:12: note: expected ‘const char *’\n"
                   "<a href=\"line:3\">Untitled:3:9</a>: error: too few arguments\n"
                   "/code/xmain.c:4:1: error: elsewhere\n"
                   "main.c:(.text+0x1b): undefined reference to `foo&apos;\n");
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
  g_test_add_func ("/Sandpad/Traceback/gcc", test_gcc);
  g_test_add_func ("/Sandpad/Traceback/gpp", test_gpp);
  g_test_add_func ("/Sandpad/Traceback/clang", test_clang);
  g_test_add_func ("/Sandpad/Traceback/rustc", test_rustc);
  g_test_add_func ("/Sandpad/Traceback/go", test_go);
  g_test_add_func ("/Sandpad/Traceback/esbuild", test_esbuild);
  g_test_add_func ("/Sandpad/Traceback/ruby", test_ruby);
  g_test_add_func ("/Sandpad/Traceback/r-java", test_r_java);
  g_test_add_func ("/Sandpad/Traceback/compile-other-files", test_compile_other_files);
  return g_test_run ();
}
