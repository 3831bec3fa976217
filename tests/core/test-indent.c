/* test-indent.c: sp_indent_after_newline() and sp_indent_for_closer() on
 * the cases a person meets typing Python, JavaScript and Bash: block
 * openers, the words that end a block, open brackets (a level in, or
 * aligned after the bracket), a statement spread over lines, and brackets,
 * quotes and comments inside strings and comments, which do not count. */
#include "config.h"

#include "sp-indent.h"

typedef struct
{
  SpIndentLanguage language;
  const char *before;
  const char *indent;
} Case;

static const Case newline_cases[] = {
  /* Python */
  { SP_INDENT_PYTHON, "for i in range(3):", "    " },
  { SP_INDENT_PYTHON, "def f(x):\n    if x:", "        " },
  { SP_INDENT_PYTHON, "def f(x):\n    y = x", "    " },
  { SP_INDENT_PYTHON, "def f(x):\n    return x", "" },
  { SP_INDENT_PYTHON, "for a in b:\n    for c in d:\n        break", "    " },
  { SP_INDENT_PYTHON, "while 1:\n    pass", "" },
  { SP_INDENT_PYTHON, "while 1:\n    continue", "" },
  { SP_INDENT_PYTHON, "if x:\n    raise ValueError('no')", "" },
  { SP_INDENT_PYTHON, "if x:\n    returned = 1", "    " },
  { SP_INDENT_PYTHON, "if x:  # why", "    " },
  { SP_INDENT_PYTHON, "x = 1  # note:", "" },
  { SP_INDENT_PYTHON, "s = 'a:'", "" },
  { SP_INDENT_PYTHON, "d = {'a': 1,", "     " },
  { SP_INDENT_PYTHON, "result = call(", "    " },
  { SP_INDENT_PYTHON, "    result = call(a,", "                  " },
  { SP_INDENT_PYTHON, "if (a and\n        b):", "    " },
  { SP_INDENT_PYTHON, "x = f(1,\n      2)", "" },
  { SP_INDENT_PYTHON, "s = '(('", "" },
  { SP_INDENT_PYTHON, "# (\nx = 1", "" },
  { SP_INDENT_PYTHON, "t = '''(\n'''", "" },
  { SP_INDENT_PYTHON, "class A:\n    def f(self):\n        return (1,\n                2)",
    "    " },
  /* JavaScript */
  { SP_INDENT_JAVASCRIPT, "function f() {", "    " },
  { SP_INDENT_JAVASCRIPT, "if (x) {\n    y();", "    " },
  { SP_INDENT_JAVASCRIPT, "if (x) {\n    y();\n}", "" },
  { SP_INDENT_JAVASCRIPT, "const a = [", "    " },
  { SP_INDENT_JAVASCRIPT, "f(a,", "  " },
  { SP_INDENT_JAVASCRIPT, "const s = '{';", "" },
  { SP_INDENT_JAVASCRIPT, "x(); // {", "" },
  { SP_INDENT_JAVASCRIPT, "/* { */ y();", "" },
  { SP_INDENT_JAVASCRIPT, "const t = `${a} {`;", "" },
  { SP_INDENT_JAVASCRIPT, "return 1;", "" },
  /* Bash */
  { SP_INDENT_BASH, "if [ -f x ]; then", "    " },
  { SP_INDENT_BASH, "if true\nthen", "    " },
  { SP_INDENT_BASH, "for i in 1 2; do", "    " },
  { SP_INDENT_BASH, "while read -r l; do\n    echo \"$l\"", "    " },
  { SP_INDENT_BASH, "f() {", "    " },
  { SP_INDENT_BASH, "if a; then\n    b\nelse", "    " },
  { SP_INDENT_BASH, "echo 'then'", "" },
  { SP_INDENT_BASH, "echo done # do", "" },
  { SP_INDENT_BASH, "echo $# {", "    " },
  { SP_INDENT_BASH, "arr=(a", "     " },
  /* Others keep the line's indent, and the brackets */
  { SP_INDENT_OTHER, "  text:", "  " },
  { SP_INDENT_OTHER, "x(", "    " },
  { SP_INDENT_PYTHON, "", "" },
};

static void
test_newline (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (newline_cases); i++)
    {
      const Case *c = &newline_cases[i];
      g_autofree char *got = sp_indent_after_newline (c->language, c->before, 4, TRUE);

      g_test_message ("%u: %s", i, c->before);
      g_assert_cmpstr (got, ==, c->indent);
    }
}

static const Case closer_cases[] = {
  { SP_INDENT_JAVASCRIPT, "function f() {\n    x();\n", "" },
  { SP_INDENT_JAVASCRIPT, "if (a) {\n    if (b) {\n        c();\n", "    " },
  { SP_INDENT_PYTHON, "x = [\n    1,\n", "" },
  { SP_INDENT_PYTHON, "def f():\n    return g(\n        1,\n", "    " },
  { SP_INDENT_BASH, "f() {\n    echo hi\n", "" },
  { SP_INDENT_JAVASCRIPT, "const s = '{';\n", NULL },
  { SP_INDENT_JAVASCRIPT, "", NULL },
};

static void
test_closer (void)
{
  for (guint i = 0; i < G_N_ELEMENTS (closer_cases); i++)
    {
      const Case *c = &closer_cases[i];
      g_autofree char *got = sp_indent_for_closer (c->language, c->before, 4, TRUE);

      g_test_message ("%u: %s", i, c->before);
      g_assert_cmpstr (got, ==, c->indent);
    }
}

static void
test_tabs_and_width (void)
{
  g_autofree char *tabs = sp_indent_after_newline (SP_INDENT_PYTHON, "\tif x:", 8, FALSE);
  g_autofree char *two = sp_indent_after_newline (SP_INDENT_JAVASCRIPT, "  if (x) {", 2, TRUE);
  g_autofree char *aligned = sp_indent_after_newline (SP_INDENT_PYTHON, "\tf(a,", 4, FALSE);

  g_assert_cmpstr (tabs, ==, "\t\t");
  g_assert_cmpstr (two, ==, "    ");
  /* The column after "\tf(" is 6: a tab and two spaces. */
  g_assert_cmpstr (aligned, ==, "\t  ");
}

static void
test_language_ids (void)
{
  g_assert_cmpint (sp_indent_language_from_id ("python3"), ==, SP_INDENT_PYTHON);
  g_assert_cmpint (sp_indent_language_from_id ("python"), ==, SP_INDENT_PYTHON);
  g_assert_cmpint (sp_indent_language_from_id ("js"), ==, SP_INDENT_JAVASCRIPT);
  g_assert_cmpint (sp_indent_language_from_id ("sh"), ==, SP_INDENT_BASH);
  g_assert_cmpint (sp_indent_language_from_id ("c"), ==, SP_INDENT_OTHER);
  g_assert_cmpint (sp_indent_language_from_id (NULL), ==, SP_INDENT_OTHER);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/indent/newline", test_newline);
  g_test_add_func ("/indent/closer", test_closer);
  g_test_add_func ("/indent/tabs-and-width", test_tabs_and_width);
  g_test_add_func ("/indent/language-ids", test_language_ids);
  return g_test_run ();
}
