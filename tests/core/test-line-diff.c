/* test-line-diff.c: the line diff finds a shortest edit script (checked
 * against a plain LCS table on random texts), its ops rebuild the new text
 * from the old, the unified text is what diff -u prints, and a diff past
 * its bound gives up cleanly. */
#include "config.h"

#include "sp-line-diff.h"

/* Rebuilds new from old and the ops, checking the ops' positions. */
static char *
apply_ops (const SpLineDiff *diff)
{
  g_autoptr (GString) out = g_string_new (NULL);
  guint old_pos = 0, new_pos = 0;

  for (guint i = 0; i < diff->ops->len; i++)
    {
      const SpLineDiffOp *op = &g_array_index (diff->ops, SpLineDiffOp, i);

      g_assert_cmpuint (op->n_lines, >, 0);
      g_assert_cmpuint (op->old_start, ==, old_pos);
      g_assert_cmpuint (op->new_start, ==, new_pos);
      if (i > 0)
        g_assert_cmpint (op->kind, !=, g_array_index (diff->ops, SpLineDiffOp, i - 1).kind);
      for (guint j = 0; j < op->n_lines; j++)
        {
          if (op->kind == SP_LINE_DIFF_EQUAL)
            g_assert_cmpstr (diff->old_lines[old_pos + j], ==, diff->new_lines[new_pos + j]);
          if (op->kind != SP_LINE_DIFF_DELETE)
            {
              g_string_append (out, diff->new_lines[new_pos + j]);
              if (!(diff->new_no_eol && new_pos + j == diff->n_new - 1))
                g_string_append_c (out, '\n');
            }
        }
      if (op->kind != SP_LINE_DIFF_INSERT)
        old_pos += op->n_lines;
      if (op->kind != SP_LINE_DIFF_DELETE)
        new_pos += op->n_lines;
    }
  g_assert_cmpuint (old_pos, ==, diff->n_old);
  g_assert_cmpuint (new_pos, ==, diff->n_new);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* Length of a longest common subsequence of lines, the slow way. */
static guint
lcs_length (char **a, guint n, char **b, guint m)
{
  g_autofree guint *t = g_new0 (guint, (n + 1) * (m + 1));

  for (guint i = n; i-- > 0;)
    for (guint j = m; j-- > 0;)
      t[i * (m + 1) + j] = g_str_equal (a[i], b[j])
                             ? t[(i + 1) * (m + 1) + j + 1] + 1
                             : MAX (t[(i + 1) * (m + 1) + j], t[i * (m + 1) + j + 1]);
  return t[0];
}

static char *
random_text (GRand *rand, guint lines)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < lines; i++)
    g_string_append_printf (text, "%c\n", 'a' + g_rand_int_range (rand, 0, 4));
  return g_string_free (text, FALSE);
}

static void
test_random_shortest (void)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (12);

  for (guint round = 0; round < 400; round++)
    {
      g_autofree char *old = random_text (rand, g_rand_int_range (rand, 0, 30));
      g_autofree char *new = random_text (rand, g_rand_int_range (rand, 0, 30));
      g_autoptr (SpLineDiff) diff = sp_line_diff (old, new);
      g_autofree char *rebuilt = apply_ops (diff);
      guint del, ins, lcs;

      g_assert_false (diff->gave_up);
      g_assert_cmpstr (rebuilt, ==, new);
      lcs = lcs_length (diff->old_lines, diff->n_old, diff->new_lines, diff->n_new);
      sp_line_diff_count (diff, &del, &ins);
      g_assert_cmpuint (del, ==, diff->n_old - lcs);
      g_assert_cmpuint (ins, ==, diff->n_new - lcs);
      g_assert_cmpint (sp_line_diff_is_same (diff), ==, g_str_equal (old, new));
    }
}

static void
test_unified (void)
{
  const char *old = "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n";
  const char *new = "one\nTWO\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n";
  g_autoptr (SpLineDiff) diff = sp_line_diff (old, new);
  g_autofree char *text = sp_line_diff_to_unified (diff, "a/x", "b/x", 1);
  g_autofree char *wide = sp_line_diff_to_unified (diff, NULL, NULL, 4);

  g_assert_cmpstr (text, ==,
                   "--- a/x\n+++ b/x\n"
                   "@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"
                   "@@ -10 +10,2 @@\n ten\n+eleven\n");
  /* with 4 lines of context the two changes share one hunk */
  g_assert_cmpstr (wide, ==,
                   "@@ -1,10 +1,11 @@\n one\n-two\n+TWO\n three\n four\n five\n six\n"
                   " seven\n eight\n nine\n ten\n+eleven\n");
}

static void
test_edges (void)
{
  g_autoptr (SpLineDiff) same = sp_line_diff ("a\nb\n", "a\nb\n");
  g_autoptr (SpLineDiff) eol = sp_line_diff ("a\nb\n", "a\nb");
  g_autoptr (SpLineDiff) empty = sp_line_diff (NULL, "x\n");
  g_autoptr (SpLineDiff) gone = sp_line_diff ("x\ny\n", "");
  g_autofree char *same_text = sp_line_diff_to_unified (same, "a", "b", 3);
  g_autofree char *eol_text = sp_line_diff_to_unified (eol, "a", "b", 3);
  g_autofree char *empty_text = sp_line_diff_to_unified (empty, NULL, NULL, 3);
  g_autofree char *gone_text = sp_line_diff_to_unified (gone, NULL, NULL, 3);

  g_assert_true (sp_line_diff_is_same (same));
  g_assert_cmpstr (same_text, ==, "");
  g_assert_false (sp_line_diff_is_same (eol));
  g_assert_cmpstr (eol_text, ==,
                   "--- a\n+++ b\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n");
  g_assert_cmpstr (empty_text, ==, "@@ -0,0 +1 @@\n+x\n");
  g_assert_cmpstr (gone_text, ==, "@@ -1,2 +0,0 @@\n-x\n-y\n");
}

/* Past the bound: the common ends are kept, the middle replaced whole,
 * and the ops still rebuild the new text. */
static void
test_bound (void)
{
  g_autoptr (GString) old = g_string_new ("head\n");
  g_autoptr (GString) new = g_string_new ("head\n");
  g_autoptr (SpLineDiff) diff = NULL;
  g_autoptr (SpLineDiff) exact = NULL;
  g_autofree char *rebuilt = NULL;

  for (guint i = 0; i < 50; i++)
    {
      g_string_append_printf (old, "old %u\n", i);
      g_string_append_printf (new, "new %u\n", i);
    }
  g_string_append (old, "tail\n");
  g_string_append (new, "tail\n");

  diff = sp_line_diff_bounded (old->str, new->str, 10);
  g_assert_true (diff->gave_up);
  g_assert_cmpuint (diff->ops->len, ==, 4);
  g_assert_cmpint (g_array_index (diff->ops, SpLineDiffOp, 1).kind, ==, SP_LINE_DIFF_DELETE);
  g_assert_cmpuint (g_array_index (diff->ops, SpLineDiffOp, 1).n_lines, ==, 50);
  g_assert_cmpuint (g_array_index (diff->ops, SpLineDiffOp, 2).n_lines, ==, 50);
  rebuilt = apply_ops (diff);
  g_assert_cmpstr (rebuilt, ==, new->str);

  exact = sp_line_diff (old->str, new->str);
  g_assert_false (exact->gave_up);
}

/* A large change within the default bound still finishes, and one far
 * past it gives up without growing memory with the square of the size. */
static void
test_large (void)
{
  g_autoptr (GString) old = g_string_new (NULL);
  g_autoptr (GString) new = g_string_new (NULL);
  g_autoptr (SpLineDiff) diff = NULL;

  for (guint i = 0; i < 200000; i++)
    {
      g_string_append_printf (old, "line %u\n", i);
      g_string_append_printf (new, "line %u\n", i % 7 == 0 ? i + 1000000 : i);
    }
  diff = sp_line_diff (old->str, new->str);
  g_assert_true (diff->gave_up);
  g_assert_cmpuint (diff->n_new, ==, 200000);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/line-diff/random-shortest", test_random_shortest);
  g_test_add_func ("/line-diff/unified", test_unified);
  g_test_add_func ("/line-diff/edges", test_edges);
  g_test_add_func ("/line-diff/bound", test_bound);
  g_test_add_func ("/line-diff/large", test_large);
  return g_test_run ();
}
