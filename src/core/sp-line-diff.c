/* sp-line-diff.c: the difference of two texts, line by line (Myers). */
#define G_LOG_DOMAIN "sp-line-diff"

#include "config.h"

#include "sp-line-diff.h"

#include <string.h>

/* Splits text at '\n'; *no_eol says the last line had none. */
static char **
split_lines (const char *text, guint *n_lines, gboolean *no_eol)
{
  g_autoptr (GPtrArray) lines = g_ptr_array_new ();
  const char *p = text != NULL ? text : "";

  *no_eol = FALSE;
  while (*p != '\0')
    {
      const char *nl = strchr (p, '\n');

      if (nl == NULL)
        {
          g_ptr_array_add (lines, g_strdup (p));
          *no_eol = TRUE;
          break;
        }
      g_ptr_array_add (lines, g_strndup (p, nl - p));
      p = nl + 1;
    }
  *n_lines = lines->len;
  g_ptr_array_add (lines, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&lines), FALSE);
}

/* Gives every distinct line a number, so the algorithm compares integers.
 * A last line without '\n' is keyed apart from the same text with one. */
static guint *
intern_lines (GHashTable *ids, char **lines, guint n, gboolean no_eol)
{
  guint *out = g_new (guint, n + 1);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *key = g_strconcat (no_eol && i == n - 1 ? "N" : "L", lines[i], NULL);
      gpointer id;

      if (!g_hash_table_lookup_extended (ids, key, NULL, &id))
        {
          id = GUINT_TO_POINTER (g_hash_table_size (ids));
          g_hash_table_insert (ids, g_steal_pointer (&key), id);
        }
      out[i] = GPOINTER_TO_UINT (id);
    }
  return out;
}

/* Myers' greedy forward search on a[0..n) and b[0..m). Fills script with
 * '=', '-' and '+' (old line kept, deleted, new line inserted) in order.
 * Returns FALSE when more than max_d edits are needed. trace[d] holds the
 * furthest x on each diagonal k in [-d, d] after d edits: d * d integers
 * in all, which is what max_d bounds. */
static gboolean
myers (const guint *a, gint n, const guint *b, gint m, guint max_d, GString *script)
{
  g_autoptr (GPtrArray) trace = g_ptr_array_new_with_free_func (g_free);
  gint d, x, y, k;
  gboolean done = FALSE;

  for (d = 0; d <= (gint) max_d && !done; d++)
    {
      gint *v = g_new (gint, 2 * d + 1);
      const gint *prev = d > 0 ? g_ptr_array_index (trace, d - 1) : NULL;

      for (k = -d; k <= d; k += 2)
        {
          /* prev is indexed by k + (d - 1) */
          if (d == 0)
            x = 0;
          else if (k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1]))
            x = prev[k + 1 + d - 1]; /* down: an insert */
          else
            x = prev[k - 1 + d - 1] + 1; /* right: a delete */
          y = x - k;
          while (x < n && y < m && a[x] == b[y])
            x++, y++;
          v[k + d] = x;
          if (x >= n && y >= m)
            done = TRUE;
        }
      g_ptr_array_add (trace, v);
    }
  if (!done)
    return FALSE;

  /* Back from (n, m), writing the script reversed. */
  g_string_truncate (script, 0);
  x = n;
  y = m;
  for (d = trace->len - 1; d > 0; d--)
    {
      const gint *prev = g_ptr_array_index (trace, d - 1);
      gint prev_k, prev_x, mid_x;

      k = x - y;
      if (k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1]))
        prev_k = k + 1;
      else
        prev_k = k - 1;
      prev_x = prev[prev_k + d - 1];
      mid_x = prev_k == k + 1 ? prev_x : prev_x + 1;
      for (; x > mid_x; x--)
        g_string_append_c (script, '=');
      g_string_append_c (script, prev_k == k + 1 ? '+' : '-');
      x = prev_x;
      y = prev_x - prev_k;
    }
  for (; x > 0; x--)
    g_string_append_c (script, '=');
  g_strreverse (script->str);
  return TRUE;
}

static void
add_op (GArray *ops, SpLineDiffKind kind, guint old_start, guint new_start, guint n)
{
  SpLineDiffOp op = { kind, old_start, new_start, n };

  if (n > 0)
    g_array_append_val (ops, op);
}

/* Turns a script into ops; in each changed stretch the deletes go first. */
static void
script_to_ops (const char *script, guint old_pos, guint new_pos, GArray *ops)
{
  const char *p = script;

  while (*p != '\0')
    {
      guint same = 0, del = 0, ins = 0;

      for (; *p == '='; p++)
        same++;
      add_op (ops, SP_LINE_DIFF_EQUAL, old_pos, new_pos, same);
      old_pos += same;
      new_pos += same;
      for (; *p == '-' || *p == '+'; p++)
        *p == '-' ? del++ : ins++;
      add_op (ops, SP_LINE_DIFF_DELETE, old_pos, new_pos, del);
      add_op (ops, SP_LINE_DIFF_INSERT, old_pos + del, new_pos, ins);
      old_pos += del;
      new_pos += ins;
    }
}

SpLineDiff *
sp_line_diff_bounded (const char *old_text, const char *new_text, guint max_edits)
{
  SpLineDiff *diff = g_new0 (SpLineDiff, 1);
  g_autoptr (GHashTable) ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autofree guint *a = NULL;
  g_autofree guint *b = NULL;
  g_autoptr (GString) script = g_string_new (NULL);
  guint head = 0, tail = 0, n, m;

  diff->old_lines = split_lines (old_text, &diff->n_old, &diff->old_no_eol);
  diff->new_lines = split_lines (new_text, &diff->n_new, &diff->new_no_eol);
  diff->ops = g_array_new (FALSE, FALSE, sizeof (SpLineDiffOp));
  a = intern_lines (ids, diff->old_lines, diff->n_old, diff->old_no_eol);
  b = intern_lines (ids, diff->new_lines, diff->n_new, diff->new_no_eol);

  /* The common first and last lines cost nothing to find and are most of
   * a typical edit; only the middle goes through the search. */
  while (head < diff->n_old && head < diff->n_new && a[head] == b[head])
    head++;
  while (tail < diff->n_old - head && tail < diff->n_new - head
         && a[diff->n_old - 1 - tail] == b[diff->n_new - 1 - tail])
    tail++;
  n = diff->n_old - head - tail;
  m = diff->n_new - head - tail;

  add_op (diff->ops, SP_LINE_DIFF_EQUAL, 0, 0, head);
  if (myers (a + head, n, b + head, m, max_edits, script))
    script_to_ops (script->str, head, head, diff->ops);
  else
    {
      diff->gave_up = TRUE;
      add_op (diff->ops, SP_LINE_DIFF_DELETE, head, head, n);
      add_op (diff->ops, SP_LINE_DIFF_INSERT, head + n, head, m);
    }
  add_op (diff->ops, SP_LINE_DIFF_EQUAL, head + n, head + m, tail);
  return diff;
}

SpLineDiff *
sp_line_diff (const char *old_text, const char *new_text)
{
  return sp_line_diff_bounded (old_text, new_text, SP_LINE_DIFF_MAX_EDITS);
}

void
sp_line_diff_free (SpLineDiff *diff)
{
  if (diff == NULL)
    return;
  g_strfreev (diff->old_lines);
  g_strfreev (diff->new_lines);
  g_array_unref (diff->ops);
  g_free (diff);
}

void
sp_line_diff_count (const SpLineDiff *diff, guint *deleted, guint *inserted)
{
  guint del = 0, ins = 0;

  g_return_if_fail (diff != NULL);
  for (guint i = 0; i < diff->ops->len; i++)
    {
      const SpLineDiffOp *op = &g_array_index (diff->ops, SpLineDiffOp, i);

      if (op->kind == SP_LINE_DIFF_DELETE)
        del += op->n_lines;
      else if (op->kind == SP_LINE_DIFF_INSERT)
        ins += op->n_lines;
    }
  if (deleted != NULL)
    *deleted = del;
  if (inserted != NULL)
    *inserted = ins;
}

gboolean
sp_line_diff_is_same (const SpLineDiff *diff)
{
  guint del, ins;

  g_return_val_if_fail (diff != NULL, TRUE);
  sp_line_diff_count (diff, &del, &ins);
  return del == 0 && ins == 0;
}

/* One line of the unified diff: the old or new line at i, with its prefix. */
static void
append_line (GString *out, char prefix, char **lines, guint i, guint n, gboolean no_eol)
{
  g_string_append_c (out, prefix);
  g_string_append (out, lines[i]);
  g_string_append_c (out, '\n');
  if (no_eol && i == n - 1)
    g_string_append (out, "\\ No newline at end of file\n");
}

static void
append_range (GString *out, guint start, guint len)
{
  /* diff -u: an empty range names the line before it */
  if (len == 1)
    g_string_append_printf (out, "%u", start + 1);
  else
    g_string_append_printf (out, "%u,%u", len == 0 ? start : start + 1, len);
}

/* Appends the hunk made of ops[first..last] (changes, and the equal ops
 * between them), with up to context lines around. */
static void
append_hunk (const SpLineDiff *diff, GString *out, guint first, guint last, guint context)
{
  const SpLineDiffOp *f = &g_array_index (diff->ops, SpLineDiffOp, first);
  const SpLineDiffOp *l = &g_array_index (diff->ops, SpLineDiffOp, last);
  guint before = MIN (context, f->old_start);
  guint old_end = l->kind == SP_LINE_DIFF_DELETE ? l->old_start + l->n_lines : l->old_start;
  guint new_end = l->kind == SP_LINE_DIFF_INSERT ? l->new_start + l->n_lines : l->new_start;
  guint after = MIN (context, diff->n_old - old_end);
  guint old_start = f->old_start - before;
  guint new_start = f->new_start - before;

  g_string_append (out, "@@ -");
  append_range (out, old_start, old_end + after - old_start);
  g_string_append (out, " +");
  append_range (out, new_start, new_end + after - new_start);
  g_string_append (out, " @@\n");

  for (guint i = old_start; i < f->old_start; i++)
    append_line (out, ' ', diff->old_lines, i, diff->n_old, diff->old_no_eol);
  for (guint o = first; o <= last; o++)
    {
      const SpLineDiffOp *op = &g_array_index (diff->ops, SpLineDiffOp, o);

      for (guint i = 0; i < op->n_lines; i++)
        if (op->kind == SP_LINE_DIFF_INSERT)
          append_line (out, '+', diff->new_lines, op->new_start + i, diff->n_new, diff->new_no_eol);
        else
          append_line (out, op->kind == SP_LINE_DIFF_DELETE ? '-' : ' ', diff->old_lines,
                       op->old_start + i, diff->n_old, diff->old_no_eol);
    }
  for (guint i = old_end; i < old_end + after; i++)
    append_line (out, ' ', diff->old_lines, i, diff->n_old, diff->old_no_eol);
}

char *
sp_line_diff_to_unified (const SpLineDiff *diff, const char *old_label, const char *new_label,
                         guint context)
{
  g_autoptr (GString) out = g_string_new (NULL);
  guint i = 0;

  g_return_val_if_fail (diff != NULL, NULL);
  if (sp_line_diff_is_same (diff))
    return g_strdup ("");
  if (old_label != NULL && new_label != NULL)
    g_string_append_printf (out, "--- %s\n+++ %s\n", old_label, new_label);

  while (i < diff->ops->len)
    {
      guint first, last;

      if (g_array_index (diff->ops, SpLineDiffOp, i).kind == SP_LINE_DIFF_EQUAL)
        {
          i++;
          continue;
        }
      /* A hunk goes on while the unchanged stretch to the next change is
       * short enough that their contexts would touch. */
      first = last = i;
      for (i++; i < diff->ops->len; i++)
        {
          const SpLineDiffOp *op = &g_array_index (diff->ops, SpLineDiffOp, i);

          if (op->kind != SP_LINE_DIFF_EQUAL)
            last = i;
          else if (i + 1 >= diff->ops->len || op->n_lines > 2 * context)
            break;
        }
      append_hunk (diff, out, first, last, context);
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
