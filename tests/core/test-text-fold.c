/* test-text-fold.c: long lines folded for a text view, short ones kept,
 * never a character cut, the rest counted in characters. */
#include <string.h>

#include "sp-text-fold.h"

static void
test_fold (void)
{
  g_autofree char *same = sp_text_fold_lines ("short\nlines\n\nstay\n", 8);
  g_autofree char *long_line = NULL, *folded = NULL, *wide = NULL, *wide_folded = NULL;
  g_autoptr (GString) text = g_string_new ("first\n");

  g_assert_cmpstr (same, ==, "short\nlines\n\nstay\n");

  /* 12 bytes shown of 30, the rest counted; the lines around it kept. */
  long_line = g_strnfill (30, 'x');
  g_string_append_printf (text, "%s\nlast", long_line);
  folded = sp_text_fold_lines (text->str, 12);
  g_assert_cmpstr (folded, ==, "first\nxxxxxxxxxxxx … (18 more characters of this line)\nlast");

  /* Two-byte characters, one byte off: the cut goes before the one that
   * does not fit, and the count is of characters. */
  g_string_assign (text, "a");
  for (int i = 0; i < 20; i++)
    g_string_append (text, "é");
  wide_folded = sp_text_fold_lines (text->str, 12);
  g_assert_true (g_utf8_validate (wide_folded, -1, NULL));
  g_assert_cmpstr (wide_folded, ==, "aééééé … (15 more characters of this line)");
  /* Exactly the limit: kept. */
  wide = g_strnfill (12, 'y');
  g_free (folded);
  folded = sp_text_fold_lines (wide, 12);
  g_assert_cmpstr (folded, ==, wide);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/TextFold/fold", test_fold);
  return g_test_run ();
}
