/* test-error-info.c: real tracebacks (the .txt files in tracebacks/, made
 * by running snippets through sandpad-run) parsed into what each .expect
 * says. */
#include <string.h>

#include "sp-error-info.h"

static const char *fixtures;

static char *
expect_value (GKeyFile *expect, const char *key)
{
  return g_key_file_get_string (expect, "error", key, NULL);
}

static void
check_fixture (gconstpointer data)
{
  const char *name = data;
  g_autofree char *text_path = g_strdup_printf ("%s/%s.txt", fixtures, name);
  g_autofree char *expect_path = g_strdup_printf ("%s/%s.expect", fixtures, name);
  g_autofree char *text = NULL;
  g_autoptr (GKeyFile) expect = g_key_file_new ();
  g_autoptr (GError) error = NULL;
  g_autoptr (SpErrorInfo) info = NULL;
  const char *language = g_str_has_prefix (name, "python") ? "python"
                         : g_str_has_prefix (name, "node") ? "javascript"
                                                           : "bash";
  const char *snippet = g_str_equal (language, "python")       ? "main.py"
                        : g_str_equal (language, "javascript") ? "main.js"
                                                               : "main.sh";
  g_autofree char *type = NULL, *message = NULL;

  g_assert_true (g_file_get_contents (text_path, &text, NULL, &error));
  g_assert_true (g_key_file_load_from_file (expect, expect_path, 0, &error));
  info = sp_error_info_parse (language, text, snippet);
  g_assert_nonnull (info);
  type = expect_value (expect, "type");
  message = expect_value (expect, "message");
  g_assert_cmpstr (sp_error_info_get_error_type (info), ==, type);
  g_assert_cmpstr (sp_error_info_get_message (info), ==, message);
  g_assert_cmpint (sp_error_info_get_line (info), ==,
                   g_key_file_get_integer (expect, "error", "line", NULL));
  g_assert_cmpint (sp_error_info_get_column (info), ==,
                   g_key_file_get_integer (expect, "error", "column", NULL));
  g_assert_cmpint (sp_error_info_is_syntax_error (info), ==,
                   g_key_file_get_boolean (expect, "error", "syntax", NULL));
  g_assert_cmpuint (sp_error_info_get_n_frames (info), ==,
                    (guint) g_key_file_get_integer (expect, "error", "frames", NULL));
}

static void
test_no_error (void)
{
  g_assert_null (sp_error_info_parse ("python", "hello\nworld\n", "main.py"));
  g_assert_null (sp_error_info_parse ("javascript", "", "main.js"));
  g_assert_null (sp_error_info_parse ("bash", "just output\n", "main.sh"));
}

int
main (int argc, char **argv)
{
  static const char *const names[] = { "python-nested",    "python-chained", "python-syntax",
                                       "python-recursion", "node-typeerror", "node-syntax",
                                       "bash-command",     "bash-syntax" };

  g_test_init (&argc, &argv, NULL);
  fixtures = g_getenv ("SANDPAD_TRACEBACKS");
  g_assert_nonnull (fixtures);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_strdup_printf ("/Sandpad/ErrorInfo/%s", names[i]);
      g_test_add_data_func (path, names[i], check_fixture);
    }
  g_test_add_func ("/Sandpad/ErrorInfo/no-error", test_no_error);
  return g_test_run ();
}
