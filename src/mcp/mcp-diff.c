/* mcp-diff.c: a unified diff of an edit, for the model to check what it
 * changed.
 *
 * Lines common to the start and the end are trimmed first (an edit is
 * usually small); the rest is aligned by a longest-common-subsequence
 * table while that stays small, else shown as removed and added whole.
 * Hunks carry three lines of context, as diff -u does. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mcp-server.h"

#define CONTEXT 3
/* LCS cells at most (4 bytes each): 8 MiB of table. */
#define MAX_CELLS (2u * 1024 * 1024)

typedef struct
{
  const char *start;
  size_t len; /* without the newline */
  bool newline;
} Line;

static Line *
split_lines (const char *text, size_t *n_out)
{
  size_t n = 0, cap = 16;
  Line *lines = xmalloc (cap * sizeof *lines);

  for (const char *p = text; *p != '\0';)
    {
      const char *nl = strchr (p, '\n');
      if (n == cap)
        lines = xrealloc (lines, (cap *= 2) * sizeof *lines);
      lines[n].start = p;
      lines[n].len = nl ? (size_t) (nl - p) : strlen (p);
      lines[n].newline = nl != NULL;
      n++;
      p = nl ? nl + 1 : p + strlen (p);
    }
  *n_out = n;
  return lines;
}

static bool
line_eq (const Line *a, const Line *b)
{
  return a->len == b->len && a->newline == b->newline && memcmp (a->start, b->start, a->len) == 0;
}

/* The edit script: '=' keep, '-' remove, '+' add, in order. */
static char *
align (const Line *a, size_t na, const Line *b, size_t nb, size_t *n_ops)
{
  size_t pre = 0, suf = 0;
  char *ops = xmalloc (na + nb + 1);
  size_t k = 0;

  while (pre < na && pre < nb && line_eq (&a[pre], &b[pre]))
    pre++;
  while (suf < na - pre && suf < nb - pre && line_eq (&a[na - 1 - suf], &b[nb - 1 - suf]))
    suf++;
  memset (ops, '=', pre);
  k = pre;

  size_t ma = na - pre - suf, mb = nb - pre - suf;
  const Line *ca = a + pre, *cb = b + pre;
  if (ma > 0 && mb > 0 && (uint64_t) (ma + 1) * (mb + 1) <= MAX_CELLS)
    {
      /* len[i][j]: LCS of ca[i..] and cb[j..]. */
      uint32_t *len = xcalloc ((ma + 1) * (mb + 1), sizeof *len);
#define L(i, j) len[(i) * (mb + 1) + (j)]
      for (size_t i = ma; i-- > 0;)
        for (size_t j = mb; j-- > 0;)
          L (i, j) = line_eq (&ca[i], &cb[j])       ? L (i + 1, j + 1) + 1
                     : L (i + 1, j) >= L (i, j + 1) ? L (i + 1, j)
                                                    : L (i, j + 1);
      size_t i = 0, j = 0;
      while (i < ma || j < mb)
        if (i < ma && j < mb && line_eq (&ca[i], &cb[j]))
          ops[k++] = '=', i++, j++;
        else if (j == mb || (i < ma && L (i + 1, j) >= L (i, j + 1)))
          ops[k++] = '-', i++;
        else
          ops[k++] = '+', j++;
#undef L
      free (len);
    }
  else
    {
      memset (ops + k, '-', ma);
      k += ma;
      memset (ops + k, '+', mb);
      k += mb;
    }
  memset (ops + k, '=', suf);
  k += suf;
  *n_ops = k;
  return ops;
}

static void
emit_line (Buf *out, char mark, const Line *line)
{
  buf_append (out, &mark, 1);
  buf_append (out, line->start, line->len);
  buf_append (out, "\n", 1);
  if (!line->newline)
    buf_append (out, "\\ No newline at end of file\n", strlen ("\\ No newline at end of file\n"));
}

char *
mcp_diff (const char *path, const char *before, const char *after)
{
  size_t na, nb, n_ops;
  Line *a = split_lines (before, &na);
  Line *b = split_lines (after, &nb);
  char *ops = align (a, na, b, nb, &n_ops);
  Buf out = { 0 };
  char *header = xasprintf ("--- a/%s\n+++ b/%s\n", path, path);

  buf_append (&out, header, strlen (header));
  free (header);
  for (size_t k = 0; k < n_ops;)
    {
      if (ops[k] == '=')
        {
          k++;
          continue;
        }
      /* A hunk: from CONTEXT before this change to CONTEXT after the last
       * change that is at most 2 * CONTEXT unchanged lines from the next. */
      size_t start = k > CONTEXT ? k - CONTEXT : 0, end = k;
      for (size_t gap = 0; end < n_ops && gap <= 2 * CONTEXT; end++)
        gap = ops[end] == '=' ? gap + 1 : 0;
      while (end > k && ops[end - 1] == '=')
        end--;
      end = end + CONTEXT < n_ops ? end + CONTEXT : n_ops;

      size_t ia = 0, ib = 0, ca = 0, cb = 0;
      for (size_t m = 0; m < start; m++)
        ia += ops[m] != '+', ib += ops[m] != '-';
      for (size_t m = start; m < end; m++)
        ca += ops[m] != '+', cb += ops[m] != '-';
      char *at = xasprintf ("@@ -%zu,%zu +%zu,%zu @@\n", ca ? ia + 1 : ia, ca, cb ? ib + 1 : ib,
                            cb);
      buf_append (&out, at, strlen (at));
      free (at);
      for (size_t m = start; m < end; m++)
        {
          if (ops[m] == '=')
            emit_line (&out, ' ', &a[ia]), ia++, ib++;
          else if (ops[m] == '-')
            emit_line (&out, '-', &a[ia++]);
          else
            emit_line (&out, '+', &b[ib++]);
        }
      k = end;
    }
  buf_append (&out, "", 1);
  free (ops);
  free (a);
  free (b);
  return out.data;
}
